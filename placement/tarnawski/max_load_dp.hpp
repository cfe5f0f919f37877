// tarnawski2020 §5.1.1: the max-load (time-per-sample) dynamic program over ideals for k
// accelerators and ℓ CPUs with contiguous splits and the accelerator memory limit, with
// Appendix B's preprocessing for training graphs.
//
// Load of a device (§3, §5.1.1): for a contiguous set S,
//   cpu(S) = Σ_{v∈S} p_v^cpu                       (CPUs read/write RAM for free, §3)
//   acc(S) = Σ_{v∉S, v has an edge into S} c_v     (incoming transfers)
//          + Σ_{v∈S} p_v^acc                       (compute)
//          + Σ_{v∈S, v has an edge out of S} c_v   (outgoing transfers)
//   and acc(S) = ∞ when Σ_{v∈S} m_v > M or S holds a node unsupported on accelerators.
// The objective is the maximum load over devices; for training graphs the load of a device is
// FW_i + BW_i (§5.3, Appendix A), the DP placing each forward set together with the backward
// nodes colocated with it (Appendix B).
//
// Search space: the device sets are carved out as I_1 \ ∅, I_2 \ I_1, ... for a chain of
// ideals (§5.1.1), i.e. the splits whose graph of devices is acyclic (the pipeline order).
// Each such set is contiguous (Def. 3.1, Fact 5.2); the converse does not hold for a whole
// split (two contiguous sets may feed each other), and the tests' exhaustive search is over
// this space. For training graphs the order is on the forward part; as in the published code,
// the backward sets that come along are not checked for contiguity.
//
// Algorithm and complexity (𝓘 = ideals of the contracted forward graph of G groups, P =
// ideal pairs J ⊆ I visited, L = (k+1)(ℓ+1) layers, δ = transfer items touching a group):
//  * preprocessing (Appendix B): colour-class contraction, orphaned backward nodes given
//    artificial forward images with mirrored edges, SCC contraction, the published code's
//    merging of zero-cost single-neighbour nodes, per-edge "transfer items" for nodes with
//    non-uniform outgoing edge costs (the subdivision of App. B); O((|V|+|E|) α) per pass.
//  * ideals are enumerated once, by cardinality, as bitsets deduplicated by a Zobrist-keyed hash
//    table, and linked by their Hasse diagram (I -> I \ {v} for each maximal v of I);
//    O(𝓘 · G · (G/64 + deg)) time, O(𝓘 · (G/64 + width)) memory.
//  * for each ideal I one depth-first walk visits every sub-ideal J ⊆ I exactly once by
//    removing maximal groups in strictly decreasing topological label; S = I \ J grows by one
//    group per step, so cpu(S), Σp^acc, Σm and the transfer cost are updated in O(δ) and all
//    layers (k', ℓ') of dp[I] are relaxed at once from dp[J]. A branch is cut as soon as no
//    layer can improve: cpu(S) and Σ_S p^acc + (transfers every S' ⊇ S within I must pay:
//    a source in S feeding a group outside I, or a source outside I feeding S) only grow
//    along a branch, and Σm > M is final.
//    O(P · (L + δ)) time with P ≤ Σ_I |{J ⊆ I}|; no ideal x ideal table is ever stored:
//    memory O(𝓘 · L) for dp values and back-pointers.
//  * DPL (§5.1.2) runs first in O(G² · (L + δ)); its objective caps the walks: a branch stops
//    once cpu(S) and Σ_S p^acc reach min(dp[I][layer], cap) for every layer, which keeps every
//    value below the cap exact, hence the optimum.
//
// Not yet a hetsim Placer: it runs on the paper's JSON workloads (workload.hpp). Registering
// `tarnawski.dp` needs the sim::Graph -> Workload converter planned in workload.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/workload.hpp"

namespace hetsim::placement::tarnawski {

struct DpOptions {
    // The published code's reduction: a zero-latency forward node whose only neighbour is one
    // forward node, with no backward neighbour and a zero-latency backward colour class, joins
    // that neighbour's colour class (we also require it to be supported on accelerators).
    // On inference graphs it never raises a load, so it is exact unless memory binds; on
    // training graphs the node's backward partners move too, which can cost transfers. Table 1
    // was computed with it (and the ideal counts of Table 1 need it). Turn off to optimise over
    // the unreduced space.
    bool merge_trivial_nodes = true;
    // DPL, the linearization heuristic of §5.1.2: the DP over the prefixes of one DFS-like
    // topological order only (𝓘 = G + 1); fast, not always optimal.
    bool linearize = false;
    // Run DPL first and use its objective to cut the full DP's walks (exact: see Solver).
    bool cap_with_linearization = true;
    // Relax dp "forwards" (each J pushes to its super-ideals along an upward walk, cut at the
    // cap) instead of "backwards" (each I pulls from its sub-ideals). Same optimum.
    bool push = false;
    // Refuse graphs with more ideals than this (clear error instead of exhausting memory).
    std::size_t max_ideals = 20'000'000;
};

struct DpStats {
    std::size_t groups = 0;       // nodes of the contracted forward graph
    std::size_t ideals = 0;       // 𝓘, including ∅
    std::size_t hasse_edges = 0;  // ideal -> ideal minus one maximal group
    std::size_t pairs = 0;        // (I, J) pairs evaluated by the walks
    double preprocess_seconds = 0.0;
    double ideals_seconds = 0.0;
    double dp_seconds = 0.0;
};

struct DpResult {
    double objective = 0.0;  // optimal max-load (time per sample); ∞ if infeasible
    Split split;             // max_cpus cpu entries and max_accelerators fpga entries
    DpStats stats;
};

// Thrown for inputs the DP cannot handle (cycles, backward->forward edges, too many ideals).
class DpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

DpResult solve_max_load(const Workload& workload, const DpOptions& options = {});

// Preprocesses and enumerates ideals only (for tests and reports).
DpStats count_ideals(const Workload& workload, const DpOptions& options = {});

// The §3/§5.1.1 loads of an arbitrary split (any node -> device map, contiguous or not).
struct LoadReport {
    double max_load = 0.0;  // ∞ if some accelerator is over memory or holds an unsupported node
    std::vector<double> cpu_loads;
    std::vector<double> accelerator_loads;
    bool memory_ok = true;
    bool supported_ok = true;
    bool colocation_ok = true;  // every colour class on one device
};
// Throws WorkloadError if a node is unknown, listed twice or missing, or if the split uses more
// devices than the workload has.
LoadReport evaluate_split(const Workload& workload, const Split& split);
// The same for an assignment (CPUs 0..ℓ-1, accelerators ℓ..ℓ+k-1, see split_solver.hpp).
LoadReport evaluate_assignment(const Workload& workload, const Assignment& assignment);

// A strongly branching synthetic workload for stress tests: `blocks` fork/join blocks in
// series, each with `width` parallel chains of `length` nodes (about blocks·(length+1)^width
// ideals), random costs from `seed`; training adds a mirrored backward pass with colour classes.
Workload make_branching_workload(int blocks, int width, int length, std::uint64_t seed,
                                 bool training = false, int accelerators = 3, int cpus = 1);

}  // namespace hetsim::placement::tarnawski
