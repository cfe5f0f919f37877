// The PipeDream baseline of tarnawski2020 §6 (Table 1, column "PipeDream"): PipeDream's
// partitioner [NHP+19], the dynamic program over a *linear* chain of layers, run on a DAG by
// first contracting its branches into single nodes (§6, "Baselines": "It requires the input
// to be a linear path, thus it contracts all branchings to single nodes").
//
// How the paper ran it (the published dp.cpp, option -pipeDream; we follow it step by step):
//  1. colour classes (Appendix B) are contracted: a class is one unit of placement, its
//     backward nodes travelling with its forward nodes (§5.3);
//  2. branches are contracted as the published code does, by biconnected components: for every
//     biconnected component of the undirected graph, all tails (sources) of its edges are
//     merged. A fork, its parallel branches and everything up to (not including) the join
//     become one node, so a ResNet block becomes "block -> add" and the DAG a path;
//  3. orphaned backward nodes get artificial forward images tied by mirrored edges, and strongly
//     connected components of the contracted forward graph are merged (Appendix B);
//  4. the forward groups are linearised by a DFS-like topological order (the path of §5.1.2);
//  5. the DP of §5.1.1 restricted to that chain (= PipeDream's DP over layer prefixes) splits
//     it into at most k accelerator and ℓ CPU segments, one per device, under the memory limit.
//     Loads are §3's: a CPU segment costs Σ p^cpu, an accelerator segment Σ p^acc plus the
//     transfers in and out of it (∞ if over M or holding a node unsupported on accelerators).
// No replication (PipeDream's data-parallel stages, App. C.2): the paper's comparison did not
// use it, its objective being the same max-load (§5.3: FW_i + BW_i per device for training).
//
// Deviations from the published code (documented so the numbers can be compared):
//  * step 2 runs on the forward graph only. The published code used every edge; on the layer
//    graphs the paper ran PipeDream on, the backward part is a copy of the forward part with no
//    edge from forward to backward, so the merges are identical. On operator training graphs
//    (not in the paper's PipeDream column) forward->backward edges would make the whole graph
//    one biconnected component;
//  * edges out of graph inputs (forward nodes with no predecessor and zero latency, e.g. the
//    attention mask of BERT-24 feeding every layer) are ignored in step 2. The published code
//    hard-codes such node ids for BERT-24 and GNMT ("vertices that PipeDream would have
//    ignored: input layers, zero-size layers"); this is the general rule behind them;
//  * the published pipeline also merged zero-latency nodes into their single neighbour before
//    linearising (DpOptions::merge_trivial_nodes); we do not, which can only help the chain DP.
//  * the DFS-like order of step 4 breaks ties by node index (the published order depended on
//    hash-map iteration), so the chain can differ where the contracted graph still branches.
//
// The DP's value equals evaluate_assignment's max-load of the returned split (same §3 loads);
// the solver reports the latter.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

struct PipeDreamOptions {
    // Step 2: merge the tails of each biconnected component. Off: only colour classes and
    // strongly connected components are contracted, and the chain DP runs on a topological
    // order of the whole graph (which is then the §5.1.2 linearization heuristic, DPL).
    bool contract_branches = true;
    // Step 2: ignore edges out of zero-latency forward sources (graph inputs).
    bool ignore_input_edges = true;
};

struct PipeDreamResult {
    Assignment assignment;   // empty when infeasible
    double objective = 0.0;  // the chain DP's optimum (∞ if no feasible split exists)
    // chain[p] = node indices of the p-th position of the linearised contracted graph.
    std::vector<std::vector<int>> chain;
    std::size_t segments = 0;  // non-empty devices used
};

// Steps 1-4: the chain of node groups the DP runs on (every node in exactly one group, groups
// in a topological order of the contracted forward graph).
std::vector<std::vector<int>> pipedream_chain(const Workload& workload,
                                              const PipeDreamOptions& options = {});

// Step 5 on a given chain (node groups in pipeline order; every node exactly once): the
// optimal split of the chain into at most k accelerator and ℓ CPU segments. Throws SolverError
// if the chain does not cover every node exactly once.
PipeDreamResult solve_chain(const Workload& workload, std::vector<std::vector<int>> chain);

// Steps 1-5.
PipeDreamResult solve_pipedream(const Workload& workload, const PipeDreamOptions& options = {});

// The `pipedream` SplitSolver: make_pipedream_solver in baseline_solvers.hpp (arguments
// branches=on|off, inputs=ignore|keep: PipeDreamOptions).

}  // namespace hetsim::placement::tarnawski
