// The baselines of tarnawski2020 §6-7 as SplitSolvers:
//
//   greedy            §7's latency baseline (contract colour classes and cycles, one
//                     topological order, fill accelerators in turn up to M); Table 4 "Greedy"
//   local_search      steepest single-class moves (a node without a colour class is its own
//                     class) from the greedy, the all-CPU split, then random splits
//                     (max-load, §6) or random greedy fills (latency)
//   one_accelerator   the best split found using at most one accelerator (and the CPUs)
//   expert:<path>     a fixed split from a JSON file (experts/*.json), scored
//   scotch, pipedream the graph partitioners (scotch_solver.hpp, pipedream_solver.hpp)
//
// Each solver reports its split's objective under SolveOptions::objective (§4 latency, or
// the §3 max-load for throughput). The factories take the spec and its arguments, parsed
// against the keys declared in register_solvers.cpp.
#pragma once

#include <memory>
#include <string>

#include "placement/placer_args.hpp"
#include "placement/tarnawski/split_solver.hpp"

namespace hetsim::placement::tarnawski {

std::unique_ptr<SplitSolver> make_latency_greedy_solver(const std::string& spec,
                                                        const PlacerArguments& arguments);
std::unique_ptr<SplitSolver> make_local_search_solver(const std::string& spec,
                                                      const PlacerArguments& arguments);
std::unique_ptr<SplitSolver> make_one_accelerator_solver(const std::string& spec,
                                                         const PlacerArguments& arguments);
std::unique_ptr<SplitSolver> make_expert_solver(const std::string& spec,
                                                const PlacerArguments& arguments);
std::unique_ptr<SplitSolver> make_scotch_solver(const std::string& spec,
                                                const PlacerArguments& arguments);
std::unique_ptr<SplitSolver> make_pipedream_solver(const std::string& spec,
                                                   const PlacerArguments& arguments);

}  // namespace hetsim::placement::tarnawski
