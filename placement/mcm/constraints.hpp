// The constraints of a multi-chip partition (mcm2022 §3, Eq. 2-5): a partition f maps every op
// of a graph to a chip index 0..C-1 along a one-way ring. The static constraints (Eq. 2 acyclic
// dataflow, Eq. 3 no skipped chips, Eq. 4 no chip triangle) and the dynamic memory check
// H(G, f) each return every violation with the ops and chips involved, so a placer, a test or
// `hetsim check-partition` can say exactly why a partition is refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::placement::mcm {

enum class Constraint {
    acyclic,   // Eq. 2: f(u) <= f(v) for every edge (u, v)
    no_skip,   // Eq. 3: the used chips are exactly 0..k
    triangle,  // Eq. 4: delta(f(u), f(v)) = 1 for every cut edge
    memory,    // H(G, f): live activations plus resident weights fit the chip's SRAM
};

// "acyclic", "no-skip", "triangle", "memory": the prefix of every violation message.
std::string_view to_string(Constraint constraint);

struct Violation {
    Constraint constraint = Constraint::acyclic;
    std::vector<std::string> ops;  // op names involved (edge endpoints, witnesses, peak op)
    std::vector<int> chips;        // chip indices involved
    std::string message;           // one human-readable line, starting with to_string()
};

// The static constraints of `chip_of_op` (one chip index in [0, chip_count) per op id) on a
// finalized graph, every violation in this order: acyclic (edges by producer's topological
// position, then consumer), no-skip (ascending chip), triangle (as acyclic). Throws
// std::invalid_argument when chip_of_op has the wrong size or an index out of range.
std::vector<Violation> check_static_constraints(const sim::Graph& graph,
                                                const std::vector<int>& chip_of_op, int chip_count);

// What one chip holds at its peak under the compiler's schedule (see chip_memory).
struct ChipMemory {
    int chip = 0;
    int ops = 0;                        // ops on the chip
    std::int64_t weight_bytes = 0;      // resident weights of its ops, each tensor once
    std::int64_t activation_bytes = 0;  // live activations at the peak
    std::int64_t capacity_bytes = 0;    // SRAM; 0 = unlimited
    int peak_op = -1;                   // the op running at the peak; -1 for an empty chip
    std::int64_t peak_bytes() const { return weight_bytes + activation_bytes; }
};

// H(G, f)'s memory part. Schedule: each chip runs its ops in the graph's topological order
// (Graph::topo_order, Kahn with ties by op id) restricted to the chip, one op per step, as a
// single-stream compiler would. Liveness, per chip, in steps of that schedule:
//  - an activation produced on the chip is live from its producer's step to its last local
//    consumer's step; when it also leaves the chip (a consumer on another chip, or a graph
//    output) it stays live to the chip's last step, because a pipeline stage hands its outputs
//    to the next chip when the stage ends;
//  - a tensor arriving from elsewhere (another chip's activation, a graph input from the host)
//    is live from step 0 (it arrives before the stage starts) to its last local consumer;
//  - weights of the chip's ops are resident throughout, each tensor counted once per chip.
// The peak is the largest weights + live activations over the steps (the first step on ties).
// `capacity_bytes[c]` is chip c's SRAM (0 = unlimited); its size is the chip count.
// `tensor_bytes[t]` is tensor t's size on the chips (McmProblem::tensor_bytes_all: floats in the
// chips' dtype); empty = the graph's declared sizes.
std::vector<ChipMemory> chip_memory(const sim::Graph& graph, const std::vector<int>& chip_of_op,
                                    const std::vector<std::int64_t>& capacity_bytes,
                                    const std::vector<std::int64_t>& tensor_bytes = {});

// One `memory` violation per chip whose peak exceeds its (non-zero) capacity.
std::vector<Violation> check_memory(const sim::Graph& graph, const std::vector<int>& chip_of_op,
                                    const std::vector<std::int64_t>& capacity_bytes,
                                    const std::vector<std::int64_t>& tensor_bytes = {});

// The static constraints, then the memory check.
std::vector<Violation> check_partition(const sim::Graph& graph, const std::vector<int>& chip_of_op,
                                       const std::vector<std::int64_t>& capacity_bytes,
                                       const std::vector<std::int64_t>& tensor_bytes = {});

// The platform's chiplets (devices of role chiplet) in ring order: device indices, element i
// being chip i. The order follows the links, never the names: each chiplet's component has at
// most one link (one-way, or a direction of a two-way link) to another chiplet's component.
// Chip 0 is the chiplet no other chiplet feeds (a chain); on a closed ring, the chiplet the
// host component reaches in the fewest hops (Platform::route). Throws sim::InputError naming
// the platform file when there is no chiplet, two chiplets share a component, a chiplet feeds
// or is fed by two chiplets, the start is ambiguous, or the links leave a chiplet off the ring.
std::vector<int> chiplet_ring_order(const sim::Platform& platform);

// SRAM of each chip in ring order (its component's memory capacity; 0 = unlimited).
std::vector<std::int64_t> chip_capacities(const sim::Platform& platform,
                                          const std::vector<int>& ring_order);

}  // namespace hetsim::placement::mcm
