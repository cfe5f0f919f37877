// lee2022 Algorithm 1 (§3.2.2, Fig. 5): profiling path identification, and the profile runs
// themselves. Node-cost profiling makes n runs, run i with the device priority [device i,
// device 0] (lines 4-8); the DA edges those runs exercise are measured with them. The
// edge-cost part (lines 10-25) then walks the DCG in topological order carrying, per node,
// profiled edge lists L (one bit per DA edge) with their profiled paths P, keeps only the
// lists not included in another at every merge (lines 19-21), and stops as soon as one list
// has every DA edge marked (lines 12-14): that path is the one extra run. Every run is a real
// run of the study's evaluator; costs are read from Metrics::task_timings. Device 0 is the
// host CPU, found by role (Dcg::host_cpu_device()), wherever it is in the platform's order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/lee2022/da_edges.hpp"
#include "placement/lee2022/dcg.hpp"
#include "placement/placer.hpp"

namespace hetsim::placement::lee2022 {

struct TraversalOptions {
    // Profiled edge lists kept per DCG node after the inclusion summary (lines 19-21). The
    // paper bounds their number by E_d; this keeps the traversal polynomial on wide DAGs by
    // keeping the lists with the most marked edges (ties: first found).
    int max_lists_per_node = 32;
    // Record every node visit (for tests and `hetsim inspect`).
    bool record_visits = false;
};

// One node visit of the traversal (Fig. 5's T1, T2, ...).
struct TraversalVisit {
    int node = -1;                      // DCG node
    std::vector<std::string> lists;     // its profiled edge lists, "11001" over DaEdges::costed()
    std::vector<sim::Placement> paths;  // the matching profiled paths (ops not yet visited: -1)
};

struct EdgeProfilingPaths {
    // The extra profile runs, each a complete placement (ops after the node where the
    // traversal stopped get device 0, the host CPU, or their first capable device).
    std::vector<sim::Placement> runs;
    // Costed DA edges each run was found to exercise that were not marked before it.
    std::vector<std::vector<int>> newly_covered;
    // Costed DA edges no traversal could reach (none on a DCG where every DA edge lies on
    // some execution path).
    std::vector<int> unreachable;
    int passes = 0;  // traversals made: 1 when one path covers every DA edge (the paper's case)
    std::vector<TraversalVisit> visits;  // with TraversalOptions::record_visits, pass 1 only
};

// Lines 10-25: the fewest extra paths covering the costed DA edges not `marked` yet (indexed
// by DA edge). When no single path covers them all (the paper never needed more than one),
// the path covering most is taken, its edges marked, and the traversal repeated.
EdgeProfilingPaths identify_edge_profiling_paths(const DaEdges& da, std::vector<bool> marked,
                                                 const TraversalOptions& options = {});

// Node-profiling run i (line 5): every op on device i if it can run there, else on device 0
// (the host CPU, Dcg::host_cpu_device()), else (a host CPU that cannot run it either, or
// none) on its first capable device.
sim::Placement node_profiling_run(const Dcg& dcg, int device);

// Measured costs, in integer picoseconds as the evaluators time tasks.
struct ProfiledCosts {
    std::vector<std::vector<std::int64_t>> node_ps;  // [op][device]; -1: not measured
    std::vector<std::int64_t> edge_ps;               // per DA edge; -1: not measured
};

// Reads the costs one run measured: compute-task durations as node costs, and for every copy
// of a tensor the run made (DaEdges::moves) the summed durations of its convert and transfer
// tasks as that DA edge's cost. A cost already known is kept. Returns the DA edges this run
// measured. Throws std::logic_error if the ExecGraph's copies differ from DaEdges::moves.
std::vector<int> read_costs(const DaEdges& da, const sim::Placement& placement,
                            const sim::ExecGraph& exec, const sim::Metrics& metrics,
                            ProfiledCosts& costs);

struct ProfileResult {
    ProfiledCosts costs;
    std::vector<sim::Placement> node_runs;
    std::vector<sim::Placement> edge_runs;
    int da_left_after_node_runs = 0;  // costed DA edges the node runs did not measure
    std::vector<int> unmeasured;      // costed DA edges still without a cost at the end
    double traversal_s = 0.0;         // wall time of lines 10-25 (profile runs excluded)
};

// The whole of Algorithm 1 with its runs, through context.evaluator.
ProfileResult profile(const PlacementContext& context, const DaEdges& da,
                      const TraversalOptions& options = {});

}  // namespace hetsim::placement::lee2022
