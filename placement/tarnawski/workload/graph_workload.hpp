// A hetsim graph on a platform as a tarnawski2020 §3 instance, and a solved split back as a
// sim::Placement. This is what lets every SplitSolver run as a Placer on generated models
// (issue: "hetsim-native graphs").
//
//   CPUs (ℓ)          the host_cpu devices of the host component that take one core each
//   accelerators (k)  the devices of any other role (accelerator, gpu, pim, chiplet) in the
//                     other components that have a link to the host; they must be identical
//                     (the DP and IPs assume one p^acc per node)
//   p_v^cpu, p_v^acc  the device models' op_time_s
//   m_v               bytes of the weights the op reads plus the activations it writes
//   edge (u, v)       one per producer -> consumer pair; cost = time of moving the tensors u
//                     sends to v over the host <-> accelerator link (the §3 transfer c_u; an
//                     op with several outputs gets non-uniform outgoing costs, App. B)
//   M                 the smallest accelerator memory (unlimited when none is given)
// Graph inputs and weights are where they are needed (weights live with their op, inputs are
// in host DRAM as §3 assumes), so they are not edges.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/workload/workload.hpp"
#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::placement::tarnawski {

struct GraphWorkload {
    Workload workload;                     // node i = op i, id = op index
    std::vector<int> cpu_devices;          // platform device index of CPU i
    std::vector<int> accelerator_devices;  // platform device index of accelerator j
};

// Throws SolverError when the platform has no CPU or no accelerator, the accelerators differ,
// or a CPU cannot run some op.
GraphWorkload workload_from_graph(const sim::Graph& graph, const sim::Platform& platform);

sim::Placement placement_from_assignment(const GraphWorkload& gw, const Assignment& assignment);

// The number of ideals (downward-closed op sets, ∅ included) of `graph`'s op DAG, which is the
// size of tarnawski.dp's search space (§5.1.1) before its node merging: a chain of n ops has
// n + 1, a diamond of 4 has 6. Counted by the DP's own enumerator (count_ideals) on the op DAG
// with no costs and no merging; nullopt when there are more than `limit` (it stops there, so
// time and memory stay bounded by the limit).
std::optional<std::size_t> count_graph_ideals(const sim::Graph& graph, std::size_t limit);

}  // namespace hetsim::placement::tarnawski
