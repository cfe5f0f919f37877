#include "placement/tarnawski/register_partitioner_solvers.hpp"

#include "placement/tarnawski/pipedream_solver.hpp"
#include "placement/tarnawski/scotch_solver.hpp"

namespace hetsim::placement::tarnawski {

void register_partitioner_solvers(SplitSolverRegistry& registry) {
    registry.add({"scotch",
                  "scotch[:preset=default|standard|quality|speed|balance][,imbalance=X]"
                  "[,repair=on|off][,seed=N][,strategy=<Scotch mapping strategy>]",
                  "tarnawski2020 §6-7 baseline: libscotch k-way partition of the colour classes "
                  "(vertex = Σ p^acc, edge = transfer cost), parts -> accelerators, unsupported "
                  "nodes -> CPUs, memory repair; non-contiguous, scored by the §3 max-load",
                  [](const std::string& a) { return make_scotch_solver(a); }});
    registry.add({"pipedream", "pipedream[:branches=on|off][,inputs=ignore|keep]",
                  "tarnawski2020 §6 baseline: PipeDream's partitioner, the linear DP over a "
                  "topological chain of the graph with branches contracted (biconnected "
                  "components), k accelerators + ℓ CPUs, memory limit, no replication",
                  [](const std::string& a) { return make_pipedream_solver(a); }});
}

}  // namespace hetsim::placement::tarnawski
