#include "placement/lee2022/dcg.hpp"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "placement/placer.hpp"

namespace hetsim::placement::lee2022 {

Dcg::Dcg(const sim::Graph& graph, const sim::Platform& platform)
    : graph_(&graph), platform_(&platform) {
    const auto& components = platform.components();
    for (std::size_t c = 0; c < components.size(); ++c) {
        if (components[c].name == platform.host_component)
            host_component_ = static_cast<int>(c);
    }
    if (host_component_ < 0) {
        throw PlacementError(
            fmt::format("lee2022: platform '{}' names host component '{}', which it does not have",
                        platform.name, platform.host_component));
    }
    for (const sim::Device& d : platform.devices()) {
        int component = -1;
        for (std::size_t c = 0; c < components.size(); ++c) {
            if (components[c].name == d.component)
                component = static_cast<int>(c);
        }
        if (component < 0) {
            throw PlacementError(
                fmt::format("lee2022: device '{}' belongs to component '{}', which platform "
                            "'{}' does not have",
                            d.name, d.component, platform.name));
        }
        component_of_device_.push_back(component);
        if (host_cpu_device_ < 0 && d.role() == sim::DeviceRole::host_cpu &&
            component == host_component_) {
            host_cpu_device_ = static_cast<int>(component_of_device_.size()) - 1;
        }
    }

    nodes_.push_back(DcgNode{DcgNode::Kind::start, -1, kHostDevice});
    nodes_.push_back(DcgNode{DcgNode::Kind::end, -1, kHostDevice});
    const auto op_count = static_cast<std::size_t>(graph.op_count());
    capable_.resize(op_count);
    node_of_.assign(op_count,
                    std::vector<int>(static_cast<std::size_t>(platform.device_count()), -1));
    // Nodes in topological order with the devices of one op as siblings (§3.2.2: "we need
    // only to consider the devices as siblings in the order").
    for (int op : graph.topo_order()) {
        const auto o = static_cast<std::size_t>(op);
        capable_[o] = capable_devices(graph, platform, op);
        for (int device : capable_[o]) {
            node_of_[o][static_cast<std::size_t>(device)] = static_cast<int>(nodes_.size());
            nodes_.push_back(DcgNode{DcgNode::Kind::op, op, device});
        }
    }

    auto add_edge = [&](int from, int to, int tensor, int from_device, int to_device) {
        EdgeKind kind = EdgeKind::solid;
        if (from_device != to_device || from_device == kHostDevice) {
            kind = location(from_device, tensor) == location(to_device, tensor)
                       ? EdgeKind::same_memory
                       : EdgeKind::cross_memory;
        }
        edges_.push_back(DcgEdge{from, to, tensor, kind});
    };

    // One DCG edge per (data edge of the CG, producer device, consumer device): consumers in
    // topological order, their inputs in order, an op reading a tensor twice counting once
    // (as Graph::edge_count() counts CG edges). Weights are resident where they are used, so
    // they carry no edge.
    for (int op : graph.topo_order()) {
        const sim::Op& consumer = graph.op(op);
        std::set<int> seen;
        for (int t : consumer.inputs) {
            const sim::Tensor& tensor = graph.tensor(t);
            if (tensor.kind == sim::TensorKind::weight || !seen.insert(t).second)
                continue;
            for (int to_device : capable(op)) {
                const int to = node_of(op, to_device);
                if (tensor.producer < 0) {
                    // A graph input: it starts in the host memory (start node).
                    add_edge(start_node(), to, t, kHostDevice, to_device);
                    continue;
                }
                for (int from_device : capable(tensor.producer)) {
                    add_edge(node_of(tensor.producer, from_device), to, t, from_device, to_device);
                    ++op_edge_count_;
                }
            }
        }
    }
    // Graph outputs return to the host memory (end node), as lowering brings them back.
    for (int t = 0; t < graph.tensor_count(); ++t) {
        const sim::Tensor& tensor = graph.tensor(t);
        if (!tensor.is_graph_output || tensor.producer < 0)
            continue;
        for (int from_device : capable(tensor.producer)) {
            add_edge(node_of(tensor.producer, from_device), end_node(), t, from_device,
                     kHostDevice);
        }
    }
}

int Dcg::node_of(int op, int device) const {
    return node_of_.at(static_cast<std::size_t>(op)).at(static_cast<std::size_t>(device));
}

std::string Dcg::label(int node) const {
    const DcgNode& n = nodes_.at(static_cast<std::size_t>(node));
    switch (n.kind) {
        case DcgNode::Kind::start:
            return "start";
        case DcgNode::Kind::end:
            return "end";
        case DcgNode::Kind::op:
            break;
    }
    return fmt::format("{}@{}", graph_->op(n.op).name, platform_->device(n.device).name);
}

int Dcg::dashed_edge_count() const {
    int count = 0;
    for (const auto& e : edges_)
        count += e.dashed() ? 1 : 0;
    return count;
}

int Dcg::nodes_on_device(int device) const {
    int count = 0;
    for (const auto& n : nodes_)
        count += n.kind == DcgNode::Kind::op && n.device == device ? 1 : 0;
    return count;
}

int Dcg::pim_capable_nodes() const {
    int count = 0;
    for (int d = 0; d < platform_->device_count(); ++d) {
        if (platform_->device(d).role() == sim::DeviceRole::pim)
            count += nodes_on_device(d);
    }
    return count;
}

Location Dcg::location(int device, int tensor) const {
    const sim::DType declared = graph_->tensor(tensor).dtype;
    if (device == kHostDevice)
        return Location{host_component_, declared};
    const sim::Device& d = platform_->device(device);
    // Lowering's dtype_on(): floats take the device's compute dtype, others keep theirs.
    return Location{component_of_device_.at(static_cast<std::size_t>(device)),
                    sim::is_float(declared) ? d.model->compute_dtype() : declared};
}

}  // namespace hetsim::placement::lee2022
