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
// Algorithm and complexity (𝓘 = ideals of the contracted forward graph of G groups, W = ⌈G/64⌉,
// P = ideal pairs J ⊆ I visited, L = (k+1)(ℓ+1) layers, δ = transfer items touching a group):
//  * preprocessing (Appendix B): colour-class contraction, orphaned backward nodes given
//    artificial forward images with mirrored edges, SCC contraction, the published code's
//    merging of zero-cost single-neighbour nodes, per-edge "transfer items" for nodes with
//    non-uniform outgoing edge costs (the subdivision of App. B); O((|V|+|E|) α) per pass.
//    A transfer item is a hyperedge over the groups holding its source and its targets; an
//    accelerator set pays its cost c_o once iff it holds some but not all of those groups (§3).
//  * ideals (placement/ideals/ideal_lattice.hpp, shared with mcm2022's chain DP) are
//    generated once each, by cardinality, without deduplication: I ∪ {v} is made
//    from I only for v above every label of I (each ideal has one such parent, I \ {max I}).
//    The Hasse diagram downwards (I -> I \ {v} for each maximal v of I) follows from the
//    parent's without lookups: I \ {v} is the child of (parent \ {v}) with label max I.
//    O(𝓘 · (G · W + width · log G)) time; memory O(𝓘 · (W + width)), plus 12 bytes per ideal
//    while enumerating.
//  * for each ideal I one depth-first walk visits every sub-ideal J ⊆ I at most once by
//    removing maximal groups in strictly decreasing topological label; S = I \ J grows by one
//    group per step, so cpu(S), Σp^acc, Σm and the transfer cost are updated in O(δ) (one
//    counter per item: cut iff 0 < count < its group count) and all layers (k', ℓ') of dp[I]
//    are relaxed at once from dp[J]. A branch is cut as soon as no layer can improve: cpu(S)
//    and Σ_S p^acc + (items with a group outside I, which cut every S' ⊇ S inside I once S
//    touches them) only grow along a branch, and Σm > M is final. The test is two comparisons
//    against the largest value still to beat per device kind. "Use fewer devices"
//    (dp[I][k'][ℓ'] ≤ dp[I][k'-1][ℓ'], dp[I][k'][ℓ'-1]) is applied whenever dp[I] changes,
//    and layers that cannot improve or lie on no chain below the cap, by the fractional work
//    bound Σ_v min(α p^cpu, (1-α) p^acc) / (α ℓ' + (1-α) k') on I and on V \ I (transfers
//    ignored), are not targets. Transitions from dp[∅] (S = I) are evaluated once per I.
//    O(P · (L + δ) + 𝓘 · (G + items · W + L²)) time with P ≤ Σ_I |{J ⊆ I}|. No ideal x ideal table
//    and no back-pointers are stored: memory O(𝓘 · L) doubles for dp, and only the layers of
//    I that the work bounds keep below the cap are stored (the others read as "≥ cap"). The
//    split is rebuilt by re-walking I once per device of the optimal chain and taking a J that
//    attains dp[I].
//  * DPL (§5.1.2) runs first in O(G² · (L + δ)); its objective caps the walks: dp values start
//    at the cap instead of ∞ and only values below it are written, so a branch stops once
//    cpu(S) and Σ_S p^acc reach min(dp[I][layer], cap) for every layer. Every value below the
//    cap stays exact, hence the optimum.
//  * Replication (Appendix C.2, DpOptions::replication, replication.hpp): a set may run on r
//    devices of one kind; transitions from dp[J][k'-r][ℓ'] (or [ℓ'-r]) for r = 1..k' with the
//    replicated load, an O(max(k, ℓ)) factor.
// Single-threaded. Registered as the `tarnawski.dp` / `tarnawski.dpl` split solvers
// (dp_solver.cpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "placement/tarnawski/dp/replication.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

struct DpOptions {
    // The published code's reduction: a zero-latency forward node whose only neighbour is one
    // forward node, with no backward neighbour and a zero-latency backward colour class, joins
    // that neighbour's colour class (we also require it to be supported on accelerators).
    // On inference graphs it never raises a load, so it is exact unless memory binds (or
    // replicated sets synchronise the moved node's weights, App. C.2); on training graphs the
    // node's backward partners move too, which can cost transfers. Table 1 was computed with it
    // (and the ideal counts of Table 1 need it). Turn off to optimise over the unreduced space.
    bool merge_trivial_nodes = true;
    // DPL, the linearization heuristic of §5.1.2: the DP over the prefixes of one DFS-like
    // topological order only (𝓘 = G + 1); fast, not always optimal.
    bool linearize = false;
    // Run DPL first and use its objective to cut the full DP's walks (exact: see Solver).
    bool cap_with_linearization = true;
    // Appendix C.2: replicate a device set over several devices (off by default).
    ReplicationOptions replication;
    // Refuse graphs with more ideals than this (clear error instead of exhausting memory).
    std::size_t max_ideals = 20'000'000;
    // Wall-clock deadline (none = unlimited). Past it, the full DP stops and the DPL split (the
    // best found so far) is returned with DpStats::stopped_at_deadline; a DPL run cut short
    // throws DpError, having no split yet.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // The full DP's states (ideals, ∅ included) at most, 0 = none: over more, it does not run
    // and DPL's split is returned with DpStats::stopped_by_state_budget. Unlike the deadline,
    // this depends on the graph alone, so the answer is the same on every run. DPL's states
    // (G + 1, one per prefix) are not counted against it.
    std::size_t max_states = 0;
    // Called every 1024 ideals of each DP pass (DPL, then the full DP): ideals done of the
    // pass's total. Empty = none.
    std::function<void(std::size_t done, std::size_t total)> on_progress;
};

struct DpStats {
    std::size_t groups = 0;       // nodes of the contracted forward graph
    std::size_t ideals = 0;       // 𝓘, including ∅
    std::size_t hasse_edges = 0;  // ideal -> ideal minus one maximal group
    std::size_t pairs = 0;        // (I, J) pairs evaluated by the walks
    std::size_t dp_values = 0;    // dp entries stored (8 bytes each) for the ideals' used layers
    double preprocess_seconds = 0.0;
    double ideals_seconds = 0.0;
    double dp_seconds = 0.0;
    bool stopped_at_deadline = false;      // DpOptions::deadline cut the full DP short
    bool stopped_by_state_budget = false;  // DpOptions::max_states kept the full DP from running
};

struct DpResult {
    double objective = 0.0;  // optimal max-load (time per sample); ∞ if infeasible
    // max_cpus cpu entries and max_accelerators fpga entries, each kind in pipeline order.
    Split split;
    // Per device of `split` (replication.hpp): r on the first device of a set replicated over r
    // devices, 0 on its replicas, 1 elsewhere. All ones without replication.
    std::vector<int> cpu_replicas, accelerator_replicas;
    DpStats stats;
};

// Thrown for inputs the DP cannot handle (cycles, backward->forward edges, too many ideals) and
// for invalid replication options.
class DpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

DpResult solve_max_load(const Workload& workload, const DpOptions& options = {});

// Preprocesses and enumerates ideals only (for tests and reports). Throws DpError like
// solve_max_load when there are more than options.max_ideals.
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
