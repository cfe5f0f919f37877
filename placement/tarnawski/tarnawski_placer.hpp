// Every SplitSolver as a hetsim Placer: the graph and platform become a tarnawski2020 §3
// instance (graph_workload.hpp), the solver splits it, and the split comes back as a
// Placement that the evaluators simulate.
// The §3 memory check (Σ m_v ≤ M) does not bound the simulated peak (a throughput stream holds
// several samples' tensors), so when accelerators have a memory the split is run once by the
// study's evaluator and re-solved under a smaller M until no accelerator overflows.
#pragma once

#include "placement/placer.hpp"

namespace hetsim::placement::tarnawski {

// Fills SplitSolverRegistry::instance() with every built-in split solver (idempotent); the one
// registration site of the family, register_solvers.cpp.
void register_split_solvers();

// register_placers (placement/families.hpp) adds a placer per registered split solver, under
// the solver's name and its deprecated names.

}  // namespace hetsim::placement::tarnawski
