// Distinct-attribute (DA) edges, lee2022 §3.2.1 (Table 1): a transfer's cost is fixed by
// its source device, destination device, data type and size, so the dashed DCG edges are
// classified by (src device, dst device, dtype, bytes) and each class is profiled once.
//
// Which dashed edges count. hetsim's CPU_S and CPU_P are two devices of one memory domain
// (component "cpu"): a tensor passed between them is not copied (lowering makes no task), so
// such an edge costs nothing and needs no profiling. The paper draws these edges dashed
// (different devices, §3.1), but its Table 3 count does not include them: counting only the
// attributes of dashed edges between devices in different memories gives BERT's and
// RoBERTa's 20 DA edges exactly (hetsim's zoo at p = 16: CPU_S/CPU_P <-> PIM, five sizes
// each way), while adding the CPU_S <-> CPU_P ones would give 30. So paper_count() leaves
// them out; all() keeps them, with zero cost, so that every dashed edge has its attribute.
// Edges to the start and end nodes (graph inputs starting in, outputs returning to, the host
// memory) are no DA edges for the paper, whose dummy start/end nodes cost nothing (§3.2);
// hetsim's lowering does copy an input to the PIM or an output back from it, so those that
// cross memories are DA edges here: costed and profiled, but outside paper_count().
// costed_count() is what needs profiling.
//
// Moves. Lowering copies a tensor once per destination location (component, dtype) and
// reuses the copy for every later consumer there. A placement therefore exercises, and a
// profile run measures, exactly one DA edge per (tensor, destination) copy: the edge from
// the producer's device to the device of the first consumer in that location (topological
// order) -- or to the end node for an output no host-side consumer copied first. moves()
// lists those copies in the order lowering creates them; the profiler reads their costs
// and the DP charges them with the same rule.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "placement/lee2022/dcg.hpp"
#include "sim/exec_graph.hpp"

namespace hetsim::placement::lee2022 {

struct DaKey {
    int src_device = kHostDevice;        // kHostDevice: the start node (host memory)
    int dst_device = kHostDevice;        // kHostDevice: the end node (host memory)
    sim::DType dtype = sim::DType::f32;  // the tensor's declared dtype
    std::int64_t bytes = 0;              // the tensor's declared size
    auto operator<=>(const DaKey&) const = default;
};

struct DaEdge {
    DaKey key;
    bool costed = false;     // crosses memories: lowering moves data, so it must be profiled
    int first_edge = -1;     // first DCG edge with this attribute
    int dcg_edge_count = 0;  // DCG edges sharing it
};

// One copy of a tensor that lowering makes for a placement.
struct Move {
    int tensor = -1;
    int src_device = kHostDevice;  // producer's device (kHostDevice: graph input)
    int dst_device = kHostDevice;  // first consumer's device there (kHostDevice: end node)
    int consumer_op = -1;          // that consumer (-1: the end node)
    int da = -1;                   // index into DaEdges::all()
};

class DaEdges {
public:
    explicit DaEdges(const Dcg& dcg);

    const Dcg& dcg() const { return *dcg_; }
    const std::vector<DaEdge>& all() const { return edges_; }
    const DaEdge& at(int da) const { return edges_.at(static_cast<std::size_t>(da)); }
    // The paper's count (§3.2.1, Table 3 "DA edges"): attributes of dashed edges between two
    // devices in different memories (see the file comment).
    int paper_count() const { return paper_count_; }
    // The DA edges that cost something and so need a profiled measurement: paper_count()
    // plus the start/end edges that cross memories.
    int costed_count() const { return static_cast<int>(costed_.size()); }
    // The DA edges that cost nothing (between devices sharing a memory: CPU_S <-> CPU_P).
    int free_count() const { return static_cast<int>(edges_.size() - costed_.size()); }
    // DA indices of the costed edges, ascending: bit i of a profiled edge list (Algorithm 1)
    // stands for costed()[i].
    const std::vector<int>& costed() const { return costed_; }
    // Position of DA edge `da` in costed(), or -1 when it costs nothing.
    int costed_position(int da) const { return costed_position_.at(static_cast<std::size_t>(da)); }

    // DA index of a key, -1 when no DCG edge has that attribute.
    int find(const DaKey& key) const;
    // DA index of DCG edge `edge`, -1 when it is solid or a start/end edge inside the host
    // memory (no DA edge).
    int of_edge(int edge) const { return of_edge_.at(static_cast<std::size_t>(edge)); }
    // The attribute of tensor `tensor` going from `src_device` to `dst_device`.
    DaKey key(int tensor, int src_device, int dst_device) const;
    // "CPU_P->PIM f32 32768 B" (start/end shown as "host").
    std::string describe(int da) const;

    // The copies lowering makes for `placement`, in lowering's order (see the file comment).
    std::vector<Move> moves(const sim::Placement& placement) const;

private:
    const Dcg* dcg_;
    std::vector<DaEdge> edges_;
    std::vector<int> costed_;
    std::vector<int> costed_position_;
    std::vector<int> of_edge_;
    std::map<DaKey, int> index_;
    int paper_count_ = 0;
};

}  // namespace hetsim::placement::lee2022
