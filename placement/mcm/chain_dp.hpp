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
//    In partition terms: f(v) - f(u) <= 1 on every edge (graph inputs, not being ops, are free).
//
// Algorithm (chain_dp.cpp; 𝓘 ideals, n ops, C chips, W = ⌈n/64⌉, P pairs (J ⊂ I) walked):
//  1. the same DP over the n + 1 prefixes of one depth-first topological order (tarnawski2020
//     §5.1.2's linearization): an achievable time, the cap; when it meets the lower bound
//     max(host_in, the largest op, Σ_v min_c t_c(v) / C) it is optimal and the lattice is skipped;
//  2. every ideal (placement/ideals/ideal_lattice.hpp), then per ideal from its parent its cut
//     (count, bytes), |I|, Σ of chip 0's and of the cheapest op times, and its weights: the
//     layers k with a chance below the cap (SRAM and work bounds) are stored, an interval;
//  3. dp[I][k] for k = 1 directly, k ≥ 2 by one pruned depth-first walk over the sub-ideals of I
//     (each visited once), the load of S = I \ J kept incrementally (compute, host outputs,
//     resident weights with a per-tensor counter), each visit relaxing every stored layer of I.
//  Time O(𝓘 · (W + width · log n + δ) + P · (C + w)) with δ the flows/weights touching an op
//  and w the weights of an op; memory O(𝓘 · (W + width)) for the lattice plus 8 bytes per
//  stored (ideal, k) value (≤ 𝓘 · C), no ideal × ideal table and no back-pointers: the chain
//  is rebuilt by re-walking one ideal per chip. Pruning keeps the optimum exact (see the
//  comment above ChainSolver in chain_dp.cpp). Single-threaded.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "placement/mcm/problem.hpp"

namespace hetsim::placement::mcm {

enum class ChainSpace { kRelaxed, kAdjacentCuts };

struct ChainDpOptions {
    ChainSpace space = ChainSpace::kRelaxed;
    // Refuse graphs with more ideals than this (ChainDpError naming the graph) instead of
    // exhausting memory; only asked when the lattice is needed (see step 1 above).
    std::size_t max_ideals = 5'000'000;
    // Wall-clock deadline; past it the DP stops with ChainDpResult::stopped set and no result.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // Run the same DP over the prefixes of one topological order first (tarnawski2020 §5.1.2's
    // linearization, n + 1 ideals) and let its optimum cap the full DP's walks and stored
    // layers. Exact either way; off only to measure what the cap saves.
    bool linearized_cap = true;
    // How far the full DP is: ideals walked of the lattice's, every 1024 ideals (the lattice of
    // BERT-base walks for seconds). Empty: nobody listens.
    std::function<void(std::size_t done, std::size_t total)> on_progress;
};

struct ChainDpResult {
    bool feasible = false;           // some chain of the space fits the SRAMs
    bool stopped = false;            // the deadline cut the DP short: nothing below is proven
    double time_per_sample_s = 0.0;  // the optimum: max(host_in, max_c load_c); ∞ when !feasible
    std::vector<int> chip_of_op;     // a partition attaining it (empty when !feasible)
    int chips_used = 0;              // k: chips 0..k-1 hold ops
    // Ideals of the whole graph, ∅ and V included; 0 when step 1 proved the linearized chain
    // optimal and the lattice was not built.
    std::size_t ideals = 0;
    std::size_t pairs = 0;      // (J ⊂ I) transitions evaluated, both DPs
    std::size_t dp_values = 0;  // (ideal, chips used) values stored
    // The optimum over chains of prefixes of one topological order (∞ when none fits, 0 when
    // not run): an upper bound on time_per_sample_s, the cap of the full DP.
    double linearized_time_per_sample_s = 0.0;
    double wall_s = 0.0;  // wall-clock time of the solve: not reproducible, never in results
};

class ChainDpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

ChainDpResult solve_chain_dp(const McmProblem& problem, const ChainDpOptions& options = {});

}  // namespace hetsim::placement::mcm
