#include "placement/mcm/problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "placement/mcm/constraints.hpp"
#include "placement/placer.hpp"
#include "sim/digest.hpp"
#include "sim/op_table.hpp"
#include "sim/transfer_cost.hpp"

namespace hetsim::placement::mcm {

namespace {

// The two sums of a route (sim/transfer_cost.hpp), with mcm's error for a missing route.
RouteCost checked_route_cost(const sim::Platform& platform, const std::string& from,
                             const std::string& to) {
    if (platform.route(from, to) == nullptr) {
        throw PlacementError(
            fmt::format("platform '{}' has no route from '{}' to '{}'", platform.name, from, to));
    }
    return sim::route_cost(platform, from, to);
}

}  // namespace

McmProblem::McmProblem(const sim::Graph& graph, const sim::Platform& platform, double sram_reserve)
    : graph_(&graph), platform_(&platform), chip_devices_(chiplet_ring_order(platform)) {
    if (!(sram_reserve >= 0.0 && sram_reserve < 1.0)) {
        throw PlacementError(
            fmt::format("the SRAM reserve must be in [0, 1), got {}", sram_reserve));
    }
    const int chips = chip_count();
    const int ops = graph.op_count();
    chip_of_device_.assign(static_cast<std::size_t>(platform.device_count()), -1);
    for (int c = 0; c < chips; ++c)
        chip_of_device_[static_cast<std::size_t>(chip_devices_[static_cast<std::size_t>(c)])] = c;

    // The chips' dtype: what their copies of float tensors take (DeviceModel::compute_dtype).
    const sim::DType chip_dtype = platform.device(chip_devices_.front()).model->compute_dtype();
    for (int device : chip_devices_) {
        const sim::Device& d = platform.device(device);
        if (d.model->compute_dtype() != chip_dtype) {
            throw PlacementError(fmt::format(
                "chiplets '{}' ({}) and '{}' ({}) keep tensors in different dtypes; mcm2022's "
                "partitioning assumes one package-wide dtype",
                platform.device(chip_devices_.front()).name, sim::to_string(chip_dtype), d.name,
                sim::to_string(d.model->compute_dtype())));
        }
    }
    tensor_bytes_.resize(static_cast<std::size_t>(graph.tensor_count()));
    for (int t = 0; t < graph.tensor_count(); ++t) {
        const sim::Tensor& tensor = graph.tensor(t);
        const sim::DType dtype = is_float(tensor.dtype) ? chip_dtype : tensor.dtype;
        tensor_bytes_[static_cast<std::size_t>(t)] =
            tensor.elements() * sim::dtype_size_bytes(dtype);
    }

    op_time_s_.resize(static_cast<std::size_t>(chips) * static_cast<std::size_t>(ops));
    for (int c = 0; c < chips; ++c) {
        const sim::Device& device = platform.device(chip_devices_[static_cast<std::size_t>(c)]);
        for (int op = 0; op < ops; ++op) {
            const sim::Support support = device.model->supports(graph, graph.op(op));
            if (!support.ok) {
                throw PlacementError(fmt::format(
                    "op '{}' ({}) cannot run on chiplet '{}' ({}); mcm2022 places every op on a "
                    "chip",
                    graph.op(op).name, graph.op(op).type, device.name, support.reason));
            }
            const double t = device.model->op_time_s(graph, graph.op(op));
            op_time_s_[static_cast<std::size_t>(c) * static_cast<std::size_t>(ops) +
                       static_cast<std::size_t>(op)] = t;
            if (c > 0 && t != op_time_s(op, 0))
                homogeneous_ = false;
        }
    }

    // Flows and weights, in tensor id order.
    op_weight_bytes_.assign(static_cast<std::size_t>(ops), 0);
    for (int t = 0; t < graph.tensor_count(); ++t) {
        const sim::Tensor& tensor = graph.tensor(t);
        std::vector<int> consumers = tensor.consumers;
        std::sort(consumers.begin(), consumers.end());
        consumers.erase(std::unique(consumers.begin(), consumers.end()), consumers.end());
        if (tensor.kind == sim::TensorKind::weight) {
            if (consumers.empty())
                continue;
            for (int op : consumers)
                op_weight_bytes_[static_cast<std::size_t>(op)] += tensor_bytes(t);
            weights_.push_back({t, tensor_bytes(t), std::move(consumers)});
            continue;
        }
        if (consumers.empty() && !tensor.is_graph_output)
            continue;
        flows_.push_back(
            {t, tensor.producer, std::move(consumers), tensor.is_graph_output, tensor_bytes(t)});
    }

    sram_bytes_ = chip_capacities(platform, chip_devices_);
    for (std::int64_t sram : sram_bytes_) {
        capacity_bytes_.push_back(static_cast<std::int64_t>(
            std::floor(static_cast<double>(sram) * (1.0 - sram_reserve))));
    }

    for (int u : graph.topo_order()) {
        for (int v : graph.successors(u))
            edges_.push_back({u, v});
    }

    auto component_of = [&](int chip) -> const std::string& {
        return platform.device(chip_devices_[static_cast<std::size_t>(chip)]).component;
    };
    if (platform.host_component.empty()) {
        throw PlacementError(fmt::format(
            "platform '{}' has no host: mcm2022's ring is fed by a host (`host:`)", platform.name));
    }
    host_in_ = checked_route_cost(platform, platform.host_component, component_of(0));
    for (int c = 0; c + 1 < chips; ++c)
        ring_hop_.push_back(checked_route_cost(platform, component_of(c), component_of(c + 1)));
    for (int c = 0; c < chips; ++c)
        host_out_.push_back(checked_route_cost(platform, component_of(c), platform.host_component));

    // FNV-1a over the instance's numbers, in a fixed order.
    std::uint64_t h = sim::kFnv1aOffset;
    auto mix = [&h](const auto& value) {
        char bytes[sizeof(value)];
        std::memcpy(bytes, &value, sizeof(value));
        h = sim::fnv1a_64(std::string_view(bytes, sizeof(value)), h);
    };
    mix(chips);
    mix(ops);
    for (double t : op_time_s_)
        mix(t);
    for (const Flow& f : flows_) {
        mix(f.producer);
        mix(f.bytes);
        mix(f.graph_output);
        for (int c : f.consumers)
            mix(c);
    }
    for (const WeightUse& w : weights_) {
        mix(w.bytes);
        for (int op : w.ops)
            mix(op);
    }
    for (std::int64_t c : capacity_bytes_)
        mix(c);
    for (const Edge& e : edges_) {
        mix(e.from);
        mix(e.to);
    }
    for (const RouteCost& r : ring_hop_) {
        mix(r.latency_s);
        mix(r.seconds_per_byte);
    }
    for (const RouteCost& r : host_out_) {
        mix(r.latency_s);
        mix(r.seconds_per_byte);
    }
    mix(host_in_.latency_s);
    mix(host_in_.seconds_per_byte);
    fingerprint_ = h;
}

int McmProblem::chip_of_device(int device) const {
    if (device < 0 || device >= static_cast<int>(chip_of_device_.size()))
        return -1;
    return chip_of_device_[static_cast<std::size_t>(device)];
}

sim::Placement McmProblem::to_placement(const std::vector<int>& chip_of_op) const {
    sim::Placement placement;
    placement.device_of_op.reserve(chip_of_op.size());
    for (int chip : chip_of_op)
        placement.device_of_op.push_back(chip_devices_.at(static_cast<std::size_t>(chip)));
    return placement;
}

std::vector<int> McmProblem::from_placement(const sim::Placement& placement) const {
    std::vector<int> chip_of_op;
    chip_of_op.reserve(placement.device_of_op.size());
    for (std::size_t op = 0; op < placement.device_of_op.size(); ++op) {
        const int device = placement.device_of_op[op];
        const int chip = chip_of_device(device);
        if (chip < 0) {
            throw PlacementError(fmt::format(
                "op '{}' is on device '{}', which is not a chiplet of the ring",
                graph_->op(static_cast<int>(op)).name,
                device >= 0 && device < platform_->device_count() ? platform_->device(device).name
                                                                  : std::string("?")));
        }
        chip_of_op.push_back(chip);
    }
    return chip_of_op;
}

}  // namespace hetsim::placement::mcm
