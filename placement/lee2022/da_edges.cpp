#include "placement/lee2022/da_edges.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace hetsim::placement::lee2022 {

DaEdges::DaEdges(const Dcg& dcg) : dcg_(&dcg) {
    const auto& nodes = dcg.nodes();
    of_edge_.assign(dcg.edges().size(), -1);
    for (std::size_t e = 0; e < dcg.edges().size(); ++e) {
        const DcgEdge& edge = dcg.edges()[e];
        if (!edge.dashed())
            continue;
        const int src = nodes[static_cast<std::size_t>(edge.from)].device;
        const int dst = nodes[static_cast<std::size_t>(edge.to)].device;
        // The dummy start/end nodes cost nothing (§3.2); only an actual copy between the
        // host memory and another one makes their edge a DA edge (see the header).
        if ((src == kHostDevice || dst == kHostDevice) && edge.kind == EdgeKind::same_memory)
            continue;
        const DaKey k = key(edge.tensor, src, dst);
        auto [it, inserted] = index_.try_emplace(k, static_cast<int>(edges_.size()));
        if (inserted) {
            edges_.push_back(
                DaEdge{k, edge.kind == EdgeKind::cross_memory, static_cast<int>(e), 0});
        }
        ++edges_[static_cast<std::size_t>(it->second)].dcg_edge_count;
        of_edge_[e] = it->second;
    }
    costed_position_.assign(edges_.size(), -1);
    for (std::size_t da = 0; da < edges_.size(); ++da) {
        if (edges_[da].costed) {
            costed_position_[da] = static_cast<int>(costed_.size());
            costed_.push_back(static_cast<int>(da));
            const DaKey& k = edges_[da].key;
            paper_count_ += k.src_device != kHostDevice && k.dst_device != kHostDevice ? 1 : 0;
        }
    }
}

int DaEdges::find(const DaKey& k) const {
    auto it = index_.find(k);
    return it == index_.end() ? -1 : it->second;
}

DaKey DaEdges::key(int tensor, int src_device, int dst_device) const {
    const sim::Tensor& t = dcg_->graph().tensor(tensor);
    return DaKey{src_device, dst_device, t.dtype, t.size_bytes()};
}

std::string DaEdges::describe(int da) const {
    const DaKey& k = at(da).key;
    auto name = [&](int device) {
        return device == kHostDevice ? std::string{"host"} : dcg_->platform().device(device).name;
    };
    return fmt::format("{}->{} {} {} B", name(k.src_device), name(k.dst_device),
                       sim::to_string(k.dtype), k.bytes);
}

std::vector<Move> DaEdges::moves(const sim::Placement& placement) const {
    // Mirrors sim::lower(): ops in topological order, each input made available in the
    // consumer's location unless a copy is already there; then graph outputs to the host.
    const sim::Graph& graph = dcg_->graph();
    const auto tensors = static_cast<std::size_t>(graph.tensor_count());
    std::vector<std::vector<Location>> where(tensors);
    std::vector<int> source(tensors, kHostDevice);
    std::vector<Move> moves;
    auto make_available = [&](int t, int dst_device, int consumer) {
        auto& locations = where[static_cast<std::size_t>(t)];
        const Location need = dcg_->location(dst_device, t);
        if (std::find(locations.begin(), locations.end(), need) != locations.end())
            return;
        locations.push_back(need);
        const int src = source[static_cast<std::size_t>(t)];
        moves.push_back(Move{t, src, dst_device, consumer, find(key(t, src, dst_device))});
    };
    for (int op : graph.topo_order()) {
        const int device = placement.device_of_op.at(static_cast<std::size_t>(op));
        const sim::Op& o = graph.op(op);
        for (int t : o.inputs) {
            const sim::Tensor& tensor = graph.tensor(t);
            if (tensor.kind == sim::TensorKind::weight)
                continue;
            auto& locations = where[static_cast<std::size_t>(t)];
            if (tensor.kind == sim::TensorKind::input && locations.empty())
                locations.push_back(dcg_->location(kHostDevice, t));
            make_available(t, device, op);
        }
        for (int t : o.outputs) {
            where[static_cast<std::size_t>(t)].push_back(dcg_->location(device, t));
            source[static_cast<std::size_t>(t)] = device;
        }
    }
    for (int t = 0; t < graph.tensor_count(); ++t) {
        const sim::Tensor& tensor = graph.tensor(t);
        if (tensor.is_graph_output && tensor.producer >= 0)
            make_available(t, kHostDevice, -1);
    }
    return moves;
}

}  // namespace hetsim::placement::lee2022
