// Random task graphs with the scheduling literature's knobs (issue 28): the shape of DAGGEN
// (Suter and Hunold, github.com/frs69wq/daggen: size, fat, density, regularity, jump) and the
// costs of Topcuoglu, Hariri and Wu, IEEE TPDS 2002, §5.1 (the communication-to-computation
// ratio CCR and the processor heterogeneity beta). Seeded: the same knobs give the same graph.
#pragma once

#include <cstdint>
#include <vector>

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

// Throws std::invalid_argument naming the knob for a value out of range.
RandomTaskGraph random_taskgraph(const RandomTaskGraphConfig& config);

}  // namespace hetsim::sim::workloads
