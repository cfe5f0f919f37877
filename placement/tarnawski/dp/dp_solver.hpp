// `tarnawski.dp` and `tarnawski.dpl` as SplitSolvers: the max-load DP over ideals (§5.1.1) and
// its linearization heuristic (§5.1.2), from max_load_dp.hpp.
#pragma once

#include "placement/tarnawski/split_solver.hpp"

namespace hetsim::placement::tarnawski {

// tarnawski.dp (linearize = false) or tarnawski.dpl; `arguments` hold the App. C.2 replication
// keys declared in register_solvers.cpp.
std::unique_ptr<SplitSolver> make_dp_solver(const std::string& spec,
                                            const PlacerArguments& arguments, bool linearize);

}  // namespace hetsim::placement::tarnawski
