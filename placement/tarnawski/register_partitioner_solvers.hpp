// The graph-partitioner baselines of tarnawski2020 §6-7 as SplitSolvers: `scotch`
// (scotch_solver.hpp) and `pipedream` (pipedream_solver.hpp).
#pragma once

#include "placement/tarnawski/split_solver.hpp"

namespace hetsim::placement::tarnawski {

// Registers scotch and pipedream.
void register_partitioner_solvers(SplitSolverRegistry& registry);

}  // namespace hetsim::placement::tarnawski
