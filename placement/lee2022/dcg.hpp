// The Device-mapped Computational Graph of lee2022 §3.1 (Fig. 4): one node per (op, device
// able to run it), a start and an end node, and for every data edge of the op graph an edge
// between every pair of capable devices of its producer and consumer: solid when both ends
// are on the same device, dashed when they are not (§3.1). The DCG is what the profiling path
// identification (Algorithm 1) traverses and what the assembly-line DP (§3.3) runs over.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::placement::lee2022 {

// The pseudo "device" of the start and end nodes: the host memory where lowering keeps graph
// inputs and returns graph outputs (sim/exec_graph.hpp lower()).
inline constexpr int kHostDevice = -1;

// Where a tensor lives when it is on a device: lowering keys a tensor's copies by (component,
// dtype), so two devices of one component that compute in the same dtype (CPU_S and CPU_P)
// share every tensor for free, and a copy is made once per such location.
struct Location {
    int component = -1;  // index into Platform::components()
    sim::DType dtype = sim::DType::f32;
    bool operator==(const Location&) const = default;
};

struct DcgNode {
    enum class Kind : std::uint8_t { start, end, op };
    Kind kind = Kind::op;
    int op = -1;               // graph op id (Kind::op)
    int device = kHostDevice;  // device index (Kind::op); kHostDevice for start/end
};

// How an edge's tensor gets from one end to the other.
enum class EdgeKind : std::uint8_t {
    solid,         // same device (§3.1 solid arrow): no cost
    same_memory,   // different devices, same location (CPU_S <-> CPU_P): dashed, no cost
    cross_memory,  // different locations: dashed, lowering inserts convert/transfer tasks
};

struct DcgEdge {
    int from = -1;    // DcgNode index
    int to = -1;      // DcgNode index
    int tensor = -1;  // graph tensor id carried
    EdgeKind kind = EdgeKind::solid;
    bool dashed() const { return kind != EdgeKind::solid; }
};

class Dcg {
public:
    // Builds the DCG of a finalized graph. Throws PlacementError (via capable_devices) for an
    // op no device can run.
    Dcg(const sim::Graph& graph, const sim::Platform& platform);

    const sim::Graph& graph() const { return *graph_; }
    const sim::Platform& platform() const { return *platform_; }

    const std::vector<DcgNode>& nodes() const { return nodes_; }
    const std::vector<DcgEdge>& edges() const { return edges_; }
    int start_node() const { return 0; }
    int end_node() const { return 1; }
    // DCG node of (op, device), or -1 when the device cannot run the op.
    int node_of(int op, int device) const;
    // Devices able to run `op`, in platform order.
    const std::vector<int>& capable(int op) const {
        return capable_.at(static_cast<std::size_t>(op));
    }
    std::string label(int node) const;  // "Gemm_3@PIM", "start", "end"

    // |V_d| and |E_d|: the op nodes plus start and end; every edge, start/end edges included.
    // (§1 bounds them by O(V_c n) and O(E_c n^2); Table 3's E_d for BERT, 686 for 262 CG
    // edges, is below what a pair of capable devices per CG edge gives, so the paper's DCG
    // evidently drew fewer dashed edges; the DA edges, which matter, agree: da_edges.hpp.)
    int node_count() const { return static_cast<int>(nodes_.size()); }
    int edge_count() const { return static_cast<int>(edges_.size()); }
    int op_node_count() const { return node_count() - 2; }
    // Edges between op nodes only (without the start/end edges of graph inputs and outputs).
    int op_edge_count() const { return op_edge_count_; }
    int dashed_edge_count() const;
    // Op nodes on `device` (Table 3 "PIM capable nodes" for the PIM device).
    int nodes_on_device(int device) const;
    // Op nodes on devices of role pim: Table 3's "PIM capable nodes".
    int pim_capable_nodes() const;
    // Algorithm 1's "device 0", where an op goes when the device being profiled cannot run it
    // (line 5) and where ONNX Runtime's default CPU provider runs: the first host_cpu device of
    // the host component, or -1 when the platform has none.
    int host_cpu_device() const { return host_cpu_device_; }

    // Where tensor `tensor` lives on `device` (kHostDevice: the host memory, declared dtype).
    Location location(int device, int tensor) const;

private:
    const sim::Graph* graph_;
    const sim::Platform* platform_;
    std::vector<DcgNode> nodes_;
    std::vector<DcgEdge> edges_;
    std::vector<std::vector<int>> capable_;  // per op
    std::vector<std::vector<int>> node_of_;  // per op, per device
    std::vector<int> component_of_device_;   // index into Platform::components()
    int op_edge_count_ = 0;
    int host_component_ = -1;
    int host_cpu_device_ = -1;
};

}  // namespace hetsim::placement::lee2022
