// mcm2022's placers on a chiplet ring (papers/mcm2022-rl-chiplet-partitioning.txt §5.1,
// spec/placement.md "mcm"), one file each, registered in placement/mcm/register.cpp:
//   mcm.greedy   the production-compiler baseline: a balanced contiguous fill of the chips in
//                topological order, repaired by the solver's FIX mode where Eq. 4 breaks
//   mcm.random   Random search: SAMPLE (Algorithm 1) with a uniform distribution per sample
//   mcm.sa       simulated annealing over the per-node distributions, SAMPLE per candidate
//   mcm.bound    the relaxed chain DP (Eq. 4 ignored): a proven bound, and the chain attaining
//                it, which may break Eq. 4
//   mcm.optimal  the exact optimum of the analytical model where tractable: the adjacent-cut
//                chain DP's partition, improved and proven by branch and bound
// They find the chips by role (chiplet_ring_order), never by name.
#pragma once

#include <string>
#include <utility>

#include "placement/placer.hpp"
#include "placement/placer_args.hpp"

namespace hetsim::placement::mcm {

// What every mcm placer holds: the spec it was created from and its parsed arguments.
class McmPlacer : public Placer {
public:
    std::string name() const override { return spec_; }

protected:
    McmPlacer(std::string spec, PlacerArguments arguments)
        : spec_(std::move(spec)), arguments_(std::move(arguments)) {}
    std::string spec_;
    PlacerArguments arguments_;
};

class GreedyPlacer final : public McmPlacer {
public:
    explicit GreedyPlacer(const std::string& arguments);
    static PlacerInfo info();
    PlacementResult place(const PlacementContext& context) override;
};

class RandomSearchPlacer final : public McmPlacer {
public:
    explicit RandomSearchPlacer(const std::string& arguments);
    static PlacerInfo info();
    PlacementResult place(const PlacementContext& context) override;
};

class AnnealingPlacer final : public McmPlacer {
public:
    explicit AnnealingPlacer(const std::string& arguments);
    static PlacerInfo info();
    PlacementResult place(const PlacementContext& context) override;
};

class BoundPlacer final : public McmPlacer {
public:
    explicit BoundPlacer(const std::string& arguments);
    static PlacerInfo info();
    PlacementResult place(const PlacementContext& context) override;
};

class OptimalPlacer final : public McmPlacer {
public:
    explicit OptimalPlacer(const std::string& arguments);
    static PlacerInfo info();
    PlacementResult place(const PlacementContext& context) override;
};

}  // namespace hetsim::placement::mcm
