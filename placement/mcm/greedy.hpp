// mcm.greedy's partition as a function (greedy.cpp documents the rule), for the placers that
// start from it or normalise by it: mcm.rl's first round and its reward (mcm2022 §5.2-5.3
// report every method's throughput over the compiler's greedy heuristic).
#pragma once

#include <random>
#include <vector>

#include "placement/mcm/problem.hpp"

namespace hetsim::placement::mcm {

enum class GreedyFill { compute, memory };

struct GreedyOptions {
    double reserve = 0.1;  // share of each chip's SRAM left for activations [assumption]
    GreedyFill fill = GreedyFill::compute;
};

struct GreedyPartition {
    std::vector<int> chip_of_op;  // satisfies Eq. 2-4 and the weight capacity
    int repaired_ops = 0;         // ops FIX moved off the fill's chip
    int runs = 0;                 // chips the compute was balanced over (C unless FIX failed)
};

// The balanced (or memory) fill, repaired by FIX where it breaks Eq. 4 or the weight capacity,
// over fewer chips when FIX fails (greedy.cpp, step 5). Throws PlacementError when not even
// one chip's fill can be repaired.
GreedyPartition greedy_partition(const McmProblem& problem, const GreedyOptions& options,
                                 std::mt19937_64& rng);

}  // namespace hetsim::placement::mcm
