#include "devices/gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "sim/device_component.hpp"
#include "sim/op_table.hpp"
#include "sim/yaml_params.hpp"

namespace hetsim::devices {

GpuModel::GpuModel(GpuParams params) : params_(std::move(params)) {
    if (params_.sms <= 0 || !(params_.clock_hz > 0.0) ||
        !(params_.fp32_flops_per_cycle_per_sm > 0.0) || !(params_.memory_bandwidth_Bps > 0.0) ||
        params_.launch_overhead_s < 0.0 || params_.occupancy_half_threads < 0.0) {
        throw std::invalid_argument(
            "GpuModel: sms, clock, FLOP/cycle and bandwidth must be > 0, overheads >= 0");
    }
}

sim::Support GpuModel::supports(const sim::Graph&, const sim::Op& op) const {
    if (params_.unsupported_ops.count(op.type) != 0) {
        return sim::Support::no(
            fmt::format("{} is listed under unsupported_ops of this accelerator", op.type));
    }
    return sim::Support::yes();
}

GpuOpCost GpuModel::cost(const sim::Graph& graph, const sim::Op& op) const {
    GpuOpCost c;
    const sim::OpCategory category = sim::op_category(op.type);
    if (category == sim::OpCategory::view) {  // views alias their input: no kernel at all
        c.kernels = 0.0;
        return c;
    }
    double threads = 0.0;
    for (int t : op.outputs)
        threads += static_cast<double>(sim::element_count(graph.tensor(t).shape));
    if (category == sim::OpCategory::recurrent && !op.inputs.empty()) {
        // ONNX LSTM/GRU/RNN input X is (seq_length, batch, input_size): one kernel per step,
        // each producing 1/seq_length of the outputs.
        const sim::Shape& x = graph.tensor(op.inputs[0]).shape;
        c.kernels = x.empty() ? 1.0 : static_cast<double>(std::max<std::int64_t>(1, x[0]));
        threads /= c.kernels;
    }
    const double half = params_.occupancy_half_threads;
    c.occupancy = half > 0.0 && threads > 0.0 ? threads / (threads + half) : 1.0;
    c.compute_s = op.flops / (params_.peak_flops() * c.occupancy);
    c.memory_s =
        static_cast<double>(op.bytes_read + op.bytes_written) / params_.memory_bandwidth_Bps;
    c.total_s = c.kernels * params_.launch_overhead_s + std::max(c.compute_s, c.memory_s);
    return c;
}

double GpuModel::op_time_s(const sim::Graph& graph, const sim::Op& op) const {
    if (!supports(graph, op).ok)
        return std::numeric_limits<double>::infinity();
    return cost(graph, op).total_s;
}

void build_gpu(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(sim::device_component_keys(
        {"device", "sms", "clock", "fp32_flops_per_cycle_per_sm", "memory_bandwidth",
         "launch_overhead", "occupancy_half_threads", "memory", "unsupported_ops"}));
    GpuParams p;
    p.sms = sim::positive_int(node, "sms");
    p.clock_hz = node.require_positive_quantity("clock", sim::Quantity::frequency);
    p.fp32_flops_per_cycle_per_sm = sim::positive_number(node, "fp32_flops_per_cycle_per_sm");
    p.memory_bandwidth_Bps =
        node.require_positive_quantity("memory_bandwidth", sim::Quantity::bandwidth);
    p.launch_overhead_s = sim::non_negative_time(node, "launch_overhead");
    if (node.has("occupancy_half_threads")) {
        p.occupancy_half_threads = node.at("occupancy_half_threads").as_double();
        if (p.occupancy_half_threads < 0.0) {
            node["occupancy_half_threads"].fail(
                fmt::format("must be >= 0, got {}", p.occupancy_half_threads));
        }
    }
    p.memory_bytes =
        sim::bytes_of(sim::optional_positive(node, "memory", sim::Quantity::data_size, 0.0));
    if (node.has("unsupported_ops")) {
        for (const auto& type : node.at("unsupported_ops").as_string_list())
            p.unsupported_ops.insert(type);
    }
    const std::string device_name = node.at("device").as_string();
    if (device_name.empty())
        node["device"].fail("expected a device name, e.g. GPU0");

    sim::DeviceComponentSpec spec;
    spec.memory_bytes = p.memory_bytes;
    spec.devices.push_back(sim::DeviceSpec{device_name, std::make_shared<GpuModel>(std::move(p))});
    sim::add_device_component(node, name, std::move(spec), platform);
}

}  // namespace hetsim::devices
