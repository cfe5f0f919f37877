// A partition on the simulated package, which plays mcm2022's hardware (§5.3-5.4): what the
// analytical model (analytic.hpp) leaves out decides here.
//  1. Eq. 2-4 (check_static_constraints): a partition the ring cannot run is never simulated.
//  2. H(G, f) (check_memory): each chip's ops in the compiler's order, live activations plus
//     resident weights against its SRAM.
//  3. The DES (the study's Evaluator, normally sim::DesEvaluator) runs the lowered partition
//     with EvalOptions::samples samples in flight: transfers share the ring links, each chip
//     runs its ops one at a time in dispatch order, and every sample's activations stay in a
//     chip's SRAM until their last reader is done, so a chip that fits one sample can overflow
//     with several (sim::Metrics::feasible).
// The first of the three that fails makes the partition invalid, with its reason; otherwise
// its throughput is the simulated one.
#pragma once

#include <string>
#include <vector>

#include "placement/mcm/problem.hpp"
#include "sim/evaluator.hpp"

namespace hetsim::placement::mcm {

enum class DesVerdict { valid, static_constraints, memory_schedule, memory_in_flight };
// "valid", "static constraints (Eq. 2-4)", "H(G, f) memory", "SRAM with samples in flight".
std::string_view to_string(DesVerdict verdict);

struct SimulatedPartition {
    DesVerdict verdict = DesVerdict::valid;
    std::string reason;  // the first violation, "" when valid
    double throughput_per_s = 0.0;
    double time_per_sample_s = 0.0;  // 1 / throughput
    sim::Metrics metrics;            // of the DES run (empty when it did not run)
    bool valid() const { return verdict == DesVerdict::valid; }
};

// Checks 1 and 2, then (when they pass) lowers and runs the partition on `evaluator`.
SimulatedPartition simulate_partition(const McmProblem& problem, const std::vector<int>& chip_of_op,
                                      sim::Evaluator& evaluator);

}  // namespace hetsim::placement::mcm
