// tarnawski2020 §4: the single-sample (non-pipelined inference) latency of a split.
//
// Mode of computation (§4, "Mode of computation", and the IP of Fig. 3/4):
//  * all CPU cores together form one device (index 0 of the IP); we assume, as §4 does, that
//    there are at least as many cores as the width of the graph, so a CPU node v starts as soon
//    as all its predecessors have finished and runs for p_v^cpu (constraints (8), (9)). The
//    number ℓ of CPUs and the CPU index of a node are therefore irrelevant here;
//  * an accelerator's subgraph S is invoked once all of its inputs (outputs of nodes outside S
//    with an edge into S) are in RAM; it then transfers them in, computes Σ_{v∈S} p_v^acc and
//    transfers its outputs (of nodes of S with an edge leaving S) back to RAM; every node of S
//    finishes when S does (constraints (6), (7), (10));
//  * non-contiguous accelerator contents (§4.1, Fig. 4): the nodes of accelerator a are split
//    into contiguous pieces S_a^0, S_a^1, ... by the earliest layering: the layer of v is the
//    largest number of times a path ending at v leaves a's nodes and comes back (the published
//    tool's reworkSplitIntoContiguous does the same). This is the fewest pieces possible, each
//    piece is contiguous, and edges between a's nodes never go to a lower layer. Each piece is
//    one invocation with its own transfers (no state survives between invocations, §3
//    footnote 2, so an edge between two pieces of the same accelerator is paid out and in),
//    and the pieces run one at a time in layer order (constraint (14)). With this layering
//    (14) never binds: a piece of layer t > 0 depends, through a node outside the accelerator,
//    on a piece of layer t - 1, so it cannot start earlier anyway; the published tool, which
//    omits (14), computes the same latencies.
//
// Transfers (§3): node u's output costs c_u to move between RAM and an accelerator. A piece
// pays c_u once for each outside node u that feeds it and once for each own node u with an
// edge leaving the piece (CPU nodes read and write RAM for free). When u's outgoing edges carry
// different costs, Appendix B subdivides each edge (u, v_j) by a zero-cost node w_j colocated
// with u and with c_{w_j} = d_j, so each such edge is paid on its own: d_j out of u's piece (if
// u is on an accelerator) and d_j into v_j's piece (if v_j is on an accelerator), whenever u
// and v_j are in different pieces. This matches evaluate_assignment (max_load_dp.hpp), which
// charges the same items per device instead of per piece.
//
// Infeasible splits have latency ∞: an accelerator over its memory M (summed over all its
// pieces, constraint (3*)), a node unsupported on accelerators placed on one, a colour class
// spread over more than one device (all CPU cores count as one device, as in the IP), or a
// deadlock: subgraphs on different accelerators that each need the other's output before they
// can be invoked (e.g. a1 -> b2 and b1 -> a2 with {a1, a2} and {b1, b2} on two accelerators;
// both sets are contiguous, but constraints (6)/(10) are then unsatisfiable for positive
// durations, and under the §4 mode of computation neither can ever be invoked).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

inline constexpr double kLatencyInfinity = std::numeric_limits<double>::infinity();

// One invocation of an accelerator: a contiguous piece of its nodes (§4.1).
struct LatencyPiece {
    int accelerator = 0;  // 0..k-1
    int layer = 0;        // position among the accelerator's pieces (run in this order)
    double start = 0.0;   // all inputs in RAM and the previous piece finished
    double transfer_in = 0.0;
    double compute = 0.0;  // Σ p_v^acc
    double transfer_out = 0.0;
    double finish = 0.0;     // start + transfer_in + compute + transfer_out
    std::vector<int> nodes;  // node indices
};

struct LatencyReport {
    // The §4 latency: ∞ if any check below fails.
    double latency = 0.0;
    // The schedule's makespan ignoring memory, support and colour classes (∞ only on deadlock).
    double schedule_latency = 0.0;
    bool memory_ok = true;
    bool supported_ok = true;
    bool colocation_ok = true;
    bool deadlock_free = true;
    bool contiguous = true;                 // every accelerator holds at most one piece
    std::vector<double> accelerator_bytes;  // Σ m_v per accelerator
    double memory_excess_bytes = 0.0;       // Σ_a max(0, bytes_a - M)
    std::vector<int> pieces_per_accelerator;
    std::vector<LatencyPiece> pieces;  // ordered by accelerator, then layer
    std::vector<double> node_finish;   // Latency_v of the IP (∞ on deadlock)
};

// The §4 latency of an assignment (CPUs 0..ℓ-1, accelerators ℓ..ℓ+k-1). Throws WorkloadError
// for an assignment of the wrong size or with a device out of range, or a cyclic graph.
double split_latency(const Workload& workload, const Assignment& assignment);
double split_latency(const Workload& workload, const Split& split);
LatencyReport evaluate_latency(const Workload& workload, const Assignment& assignment);

// Reusable evaluator for searches: precomputes the topological order, adjacency and transfer
// items once; each evaluation is O(k·(|V| + |E|)) with no allocation after the first call.
class LatencyEvaluator {
public:
    explicit LatencyEvaluator(const Workload& workload);

    struct Options {
        // false: return the makespan even when accelerators exceed M (for penalised searches;
        // memory_excess_bytes() tells by how much).
        bool check_memory = true;
        // true: return ∞ as soon as some accelerator holds more than one piece.
        bool require_contiguous = false;
    };

    // The latency of device_of_node (as in Assignment); ∞ when infeasible (see above).
    double latency(const std::vector<int>& device_of_node) {
        return evaluate(device_of_node, Options{}, nullptr);
    }
    double latency(const std::vector<int>& device_of_node, const Options& options) {
        return evaluate(device_of_node, options, nullptr);
    }
    LatencyReport report(const std::vector<int>& device_of_node);

    // Facts of the last evaluation.
    double memory_excess_bytes() const { return memory_excess_; }
    bool contiguous() const { return contiguous_; }

    const Workload& workload() const { return w_; }
    // A topological order of the nodes (depth-first over predecessors from the nodes in index
    // order, postorder: every node right after its not yet listed ancestors).
    const std::vector<int>& topological_order() const { return topo_; }

private:
    double evaluate(const std::vector<int>& device_of_node, const Options& options,
                    LatencyReport* report);

    const Workload& w_;
    int n_ = 0;
    std::vector<int> topo_, position_;  // order and each node's position in it
    // CSR adjacency: predecessors and successors with their edge index.
    std::vector<int> pred_begin_, pred_node_, pred_edge_;
    std::vector<int> succ_begin_, succ_node_, succ_edge_;
    std::vector<std::uint8_t> uniform_out_;  // all outgoing edges of the node cost the same
    std::vector<double> out_cost_;           // that cost (when uniform)
    std::vector<int> color_;                 // dense colour class or -1

    // Scratch, sized on first use.
    std::vector<int> layer_, value_, unit_, piece_base_, piece_count_, mark_, class_device_;
    std::vector<int> span_first_, span_last_;
    std::vector<int> unit_indeg_, unit_begin_, unit_succ_, fill_;
    std::vector<double> bytes_, duration_, ready_, in_, out_, compute_, finish_;
    double memory_excess_ = 0.0;
    bool contiguous_ = true;
};

}  // namespace hetsim::placement::tarnawski
