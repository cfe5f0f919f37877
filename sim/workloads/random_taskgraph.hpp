// Random task graphs with the scheduling literature's knobs (issue 28): the shape of DAGGEN
// (Suter and Hunold, github.com/frs69wq/daggen: size, fat, density, regularity, jump) and the
// costs of Topcuoglu, Hariri and Wu, IEEE TPDS 2002, §5.1 (the communication-to-computation
// ratio CCR and the processor heterogeneity beta). Seeded: the same knobs give the same graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

struct RandomTaskGraphConfig {
    int tasks = 100;           // n
    int processors = 4;        // q
    double fat = 0.5;          // level width ~ n^fat (DAGGEN: 0 a chain, 1 all parallel)
    double density = 0.5;      // share of the previous levels' tasks a task may depend on
    double regularity = 0.5;   // 1: every level exactly the width; 0: from 1 to 2 x width
    int jump = 1;              // edges span at most this many levels
    double ccr = 1.0;          // mean edge cost / mean task cost
    double beta = 0.5;         // heterogeneity: w_ij in w_i (1 +- beta/2) (Topcuoglu §5.1)
    double mean_cost_s = 1.0;  // w_DAG: the mean task cost (w_i ~ U[0, 2 w_DAG])
    std::uint64_t seed = 1;
};

struct RandomTaskGraph {
    int processors = 0;
    std::vector<std::vector<double>> cost;  // [task][processor], seconds
    struct Edge {
        int from = -1, to = -1;
        double comm_s = 0.0;
    };
    std::vector<Edge> edges;  // from a lower level to a higher one: acyclic
    std::vector<int> level;   // per task
};

// The largest random task graph: one with more task costs (tasks x processors), or whose levels
// allow more edges (each task 1 + floor(density x the tasks of the `jump` levels above it)), is
// refused before its costs and edges are drawn. Each edge becomes a tensor of the graph, about
// as heavy as an op, so the limits keep a graph within about twice sim::kMaxGraphOps
// (sim/graph.hpp): 30,000 fat, dense tasks asked for 4.5 x 10^8 edges and ran out of memory.
inline constexpr std::int64_t kMaxRandomTaskGraphCosts = 10'000'000;
inline constexpr std::int64_t kMaxRandomTaskGraphEdges = 1'000'000;

// Throws std::invalid_argument naming the knob for a value out of range, and the knobs and the
// limit for a graph over the limits above.
RandomTaskGraph random_taskgraph(const RandomTaskGraphConfig& config);

// A task graph as hetsim runs it (docs/DESIGN.md "Classic task-graph instances"): one `Task` op
// per task, named "t<label>", carrying its costs (sim::kTaskCostsAttribute); one int8 tensor of
// `bytes` per edge, "e<from>_<to>"; a task without successors writes an empty output.
struct TaskGraphEdge {
    int from = -1, to = -1;
    std::int64_t bytes = 0;
};
Graph task_graph(const std::string& name, const std::vector<std::string>& labels,
                 const std::vector<std::vector<double>>& cost,
                 const std::vector<TaskGraphEdge>& edges);

// The bytes a task-graph edge of `comm_s` carries over the instances' 1 GB/s links (1 ns a
// byte): what makes the link charge exactly comm_s.
std::int64_t task_graph_edge_bytes(double comm_s);

// random_taskgraph() as such a graph: the model `random_taskgraph`, to run on table
// processors linked at 1 GB/s (configs/platforms/table4.yaml).
Graph build_random_taskgraph(const RandomTaskGraphConfig& config);

}  // namespace hetsim::sim::workloads
