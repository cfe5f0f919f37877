// Exact dynamic programs over chains of ideals for mcm2022's partitioning problem, on the
// §5.1 analytical model (analytic.hpp).
//
// Under Eq. 2 (f(u) <= f(v) on every edge) the ops on chips 0..c form an ideal (a down-closed
// set) I_{c+1}, so a partition is a chain ∅ = I_0 ⊂ I_1 ⊂ ... ⊂ I_k = V and chip c holds
// I_{c+1} \ I_c; Eq. 3 (no skipped chip) is "every difference non-empty". The load of chip c
// depends only on the pair (I_c, I_{c+1}): its compute and graph outputs are sums over the
// difference, and its outgoing ring link carries exactly the tensors produced in I_{c+1} (or
// fed by the host) with a consumer outside I_{c+1}. A DP over (ideal, chips used) therefore
// minimises the maximum load exactly — tarnawski2020 §5.1.1's max-load DP, with mcm2022's link
// term instead of PCIe transfers.
//
//  * kRelaxed: every chain whose chips' weights fit their SRAM, Eq. 4 (no chip triangle)
//    ignored. Its optimum is a proven lower bound on the time per sample of every partition
//    the analytical model accepts (mcm.bound).
//  * kAdjacentCuts: only chains in which every tensor crossing a boundary is consumed on the
//    next chip, i.e. all consumers of the tensors leaving I_c lie in I_{c+1}. The chip graph is
//    then the path 0 -> 1 -> ... -> k, so Eq. 4 holds: its optimum is a valid partition (an
//    upper bound on the optimum), optimal among those whose cut edges all reach the next chip.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "placement/mcm/problem.hpp"

namespace hetsim::placement::mcm {

enum class ChainSpace { kRelaxed, kAdjacentCuts };

struct ChainDpOptions {
    ChainSpace space = ChainSpace::kRelaxed;
    // Refuse graphs with more ideals than this (ChainDpError) instead of exhausting memory.
    std::size_t max_ideals = 5'000'000;
    // Wall-clock deadline; past it the DP stops with ChainDpResult::stopped set and no result.
    std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct ChainDpResult {
    bool feasible = false;           // some chain of the space fits the SRAMs
    bool stopped = false;            // the deadline cut the DP short: nothing below is proven
    double time_per_sample_s = 0.0;  // the optimum: max(host_in, max_c load_c)
    std::vector<int> chip_of_op;     // a partition attaining it (empty when !feasible)
    std::size_t ideals = 0;
    std::size_t pairs = 0;  // (J ⊂ I) transitions evaluated
    double seconds = 0.0;
};

class ChainDpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

ChainDpResult solve_chain_dp(const McmProblem& problem, const ChainDpOptions& options = {});

}  // namespace hetsim::placement::mcm
