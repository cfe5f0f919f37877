// One multi-chip partitioning instance of mcm2022 (§3): a graph and a platform whose chiplets
// form a one-way ring, reduced once to the numbers every mcm tool reads (the §5.1 analytical
// model, the constraint solver, the ideal DPs and the placers), so that each fact — an op's time
// on a chip, a tensor's bytes on the ring, a hop's latency and bandwidth — is computed in one
// place, from the same device and link models the simulator uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "sim/transfer_cost.hpp"

namespace hetsim::placement::mcm {

// The store-and-forward time of a route alone: Σ over its hops of (latency + bytes / bandwidth),
// kept as its two sums so that an evaluator pays latency_s + bytes · seconds_per_byte; the
// sums are sim/transfer_cost.hpp's, the one transfer cost.
using RouteCost = sim::RouteCost;

// A tensor that moves between memories: an op's output read by other ops or returned to the
// host, or a graph input fed from the host. Weights never move (resident where used).
struct Flow {
    int tensor = -1;
    int producer = -1;           // op id; -1 for a graph input (it enters at chip 0)
    std::vector<int> consumers;  // op ids, deduplicated, ascending
    bool graph_output = false;   // returned to the host from its producer's chip
    std::int64_t bytes = 0;      // on the ring, in the chips' dtype
};

// A weight tensor and the ops that read it: it is resident once on every chip one of them runs
// on (mcm2022 Fig. 2f: weights and live tensors share a chip's SRAM).
struct WeightUse {
    int tensor = -1;
    std::int64_t bytes = 0;  // in the chips' dtype
    std::vector<int> ops;    // deduplicated, ascending
};

class McmProblem {
public:
    // Finds the chiplets in ring order (chiplet_ring_order), costs every op on every chip with
    // its DeviceModel, every tensor in the chips' compute dtype, and the routes host -> chip 0,
    // chip c -> chip c + 1 and chip c -> host with Platform::route. Throws PlacementError when
    // an op cannot run on some chip, when the chiplets do not share one compute dtype, or when
    // one of those routes is missing; sim::InputError (from chiplet_ring_order) when the
    // platform has no ring. `sram_reserve` (0 <= r < 1) is the share of each chip's SRAM the
    // analytical tools keep out of the weights' reach (capacity_bytes), room a user leaves for
    // activations the analytical model does not see.
    McmProblem(const sim::Graph& graph, const sim::Platform& platform, double sram_reserve = 0.0);

    const sim::Graph& graph() const { return *graph_; }
    const sim::Platform& platform() const { return *platform_; }
    int chip_count() const { return static_cast<int>(chip_devices_.size()); }
    int op_count() const { return graph_->op_count(); }

    // Device index of chip c (ring order) and the inverse (-1 for a device that is no chip).
    const std::vector<int>& chip_devices() const { return chip_devices_; }
    int chip_of_device(int device) const;

    // Seconds op `op` takes on chip `chip` (the chiplet's DeviceModel::op_time_s).
    double op_time_s(int op, int chip) const {
        return op_time_s_[static_cast<std::size_t>(chip) * static_cast<std::size_t>(op_count()) +
                          static_cast<std::size_t>(op)];
    }
    // True when every chip has the same op times (the usual homogeneous package).
    bool homogeneous() const { return homogeneous_; }

    const std::vector<Flow>& flows() const { return flows_; }
    const std::vector<WeightUse>& weights() const { return weights_; }
    // Bytes of tensor t in the chips' dtype (floats take the chips' compute dtype, as lowering
    // does; integers keep theirs).
    std::int64_t tensor_bytes(int tensor) const {
        return tensor_bytes_[static_cast<std::size_t>(tensor)];
    }
    const std::vector<std::int64_t>& tensor_bytes_all() const { return tensor_bytes_; }
    // Sum of the weight bytes each op reads, counting a shared tensor once per op (a lower
    // bound of nothing; for balancing heuristics).
    std::int64_t op_weight_bytes(int op) const {
        return op_weight_bytes_[static_cast<std::size_t>(op)];
    }

    // What the analytical model, the solver and the DPs let chip c's weights take: its SRAM less
    // the reserve; 0 = unlimited.
    const std::vector<std::int64_t>& capacity_bytes() const { return capacity_bytes_; }
    // Chip c's whole SRAM (0 = unlimited): what H(G, f) and the DES check.
    const std::vector<std::int64_t>& sram_bytes() const { return sram_bytes_; }

    // Producer -> consumer op edges, deduplicated, by producer's topological position then
    // consumer id (the edges of Eq. 2 and Eq. 4).
    struct Edge {
        int from = -1;
        int to = -1;
    };
    const std::vector<Edge>& edges() const { return edges_; }

    // Routes: host -> chip 0, chip c -> chip c + 1 (c < C - 1), chip c -> host.
    const RouteCost& host_in() const { return host_in_; }
    const RouteCost& ring_hop(int chip) const { return ring_hop_[static_cast<std::size_t>(chip)]; }
    const RouteCost& host_out(int chip) const { return host_out_[static_cast<std::size_t>(chip)]; }

    // chip index per op -> the platform's placement (device per op), and back. from_placement
    // throws PlacementError naming the first op that is not on a chiplet.
    sim::Placement to_placement(const std::vector<int>& chip_of_op) const;
    std::vector<int> from_placement(const sim::Placement& placement) const;

    // A 64-bit digest (FNV-1a) of every number above: equal instances have equal fingerprints,
    // so results that depend only on the instance (the chain DP's bound) can be cached by it.
    std::uint64_t fingerprint() const { return fingerprint_; }

private:
    const sim::Graph* graph_;
    const sim::Platform* platform_;
    std::vector<int> chip_devices_;
    std::vector<int> chip_of_device_;
    std::vector<double> op_time_s_;  // [chip * op_count + op]
    bool homogeneous_ = true;
    std::vector<Flow> flows_;
    std::vector<WeightUse> weights_;
    std::vector<std::int64_t> tensor_bytes_;
    std::vector<std::int64_t> op_weight_bytes_;
    std::vector<std::int64_t> capacity_bytes_;
    std::vector<std::int64_t> sram_bytes_;
    std::vector<Edge> edges_;
    RouteCost host_in_;
    std::vector<RouteCost> ring_hop_;
    std::vector<RouteCost> host_out_;
    std::uint64_t fingerprint_ = 0;
};

}  // namespace hetsim::placement::mcm
