// DUET's subgraph placers (zhang2021 §IV-B, §IV-C, Algorithm 1) over the phases of
// placement/duet/phases.hpp, on a platform's first host CPU and its first GPU (or other
// accelerator), found by role:
//   duet.greedy_correction  Algorithm 1: the critical path on its fastest devices, the other
//                           subgraphs longest first to the device that least lengthens their
//                           phase, then Kernighan-Lin-style swap and move passes per
//                           multi-path phase judged by the study's evaluator; the best single
//                           device when that is faster (Table III).
//   duet.random_correction  a seeded random assignment, then the same correction.
//   duet.random             a seeded random assignment (§VI-C's baseline).
//   duet.round_robin        subgraphs alternately on the CPU and the GPU, in phase order.
//   duet.exhaustive         every assignment of the subgraphs (2^n, n <= 16).
// Subgraph costs come from two profile runs of the whole graph through the study's evaluator,
// one per device (§IV-B's profiler measures compiled subgraphs; here a subgraph's time is the
// span of its ops' tasks in that run). Each device runs its subgraphs one at a time, in phase
// order: the placement carries that order as its schedule (docs/DESIGN.md "Schedules").
#pragma once

#include <array>
#include <string>

#include "placement/placer.hpp"

namespace hetsim::placement::duet {

enum class DuetMode { greedy_correction, random_correction, random, round_robin, exhaustive };

class DuetPlacer final : public Placer {
public:
    DuetPlacer(DuetMode mode, const std::string& arguments);
    std::string name() const override;
    PlacementResult place(const PlacementContext& context) override;
    static PlacerInfo info(DuetMode mode);

private:
    DuetMode mode_;
};

}  // namespace hetsim::placement::duet
