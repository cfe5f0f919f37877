// `tarnawski.dp` and `tarnawski.dpl` as SplitSolvers: the max-load DP over ideals (§5.1.1) and
// its linearization heuristic (§5.1.2), from max_load_dp.hpp.
#pragma once

#include "placement/tarnawski/split_solver.hpp"

namespace hetsim::placement::tarnawski {

// Registers tarnawski.dp and tarnawski.dpl.
void register_dp_solvers(SplitSolverRegistry& registry);

}  // namespace hetsim::placement::tarnawski
