// Every partition of a small graph onto C chips that satisfies mcm2022's static constraints
// (§3, Eq. 2-4): the ground truth the tests of the checker, the sampler and `mcm.optimal`
// compare against.
#pragma once

#include <vector>

#include "sim/graph.hpp"

namespace hetsim::placement::mcm {

// Graphs above this size are refused: the search is exponential (up to C^n leaves).
inline constexpr int kMaxEnumeratedOps = 12;

// All valid partitions (chip index per op id), in lexicographic order of the chips along the
// graph's topological order. Ops are assigned in Graph::topo_order; an op's chip starts at the
// highest chip of its predecessors (Eq. 2 prunes every lower chip), and each complete
// assignment is kept when check_static_constraints finds nothing (Eq. 3 and Eq. 4 are global).
// Throws std::invalid_argument for more than kMaxEnumeratedOps ops or chip_count < 1.
std::vector<std::vector<int>> enumerate_valid_partitions(const sim::Graph& graph, int chip_count);

}  // namespace hetsim::placement::mcm
