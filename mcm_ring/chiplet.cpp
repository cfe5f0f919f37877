#include "mcm_ring/chiplet.hpp"

#include <fmt/format.h>

#include <limits>
#include <memory>
#include <stdexcept>

#include "sim/device_component.hpp"
#include "sim/op_table.hpp"
#include "sim/yaml_params.hpp"

namespace hetsim::mcm_ring {

ChipletModel::ChipletModel(ChipletParams params) : params_(params) {
    if (!(params_.matmul_rate_ops > 0.0) || !(params_.elementwise_rate_ops > 0.0) ||
        params_.op_overhead_s < 0.0) {
        throw std::invalid_argument("ChipletModel: rates must be > 0 and the overhead >= 0");
    }
}

sim::Support ChipletModel::supports(const sim::Graph&, const sim::Op&) const {
    return sim::Support::yes();
}

double ChipletModel::op_time_s(const sim::Graph&, const sim::Op& op) const {
    switch (sim::cost_category(op)) {
        case sim::OpCategory::view:
            return 0.0;
        case sim::OpCategory::matmul:
        case sim::OpCategory::conv:
        case sim::OpCategory::recurrent:
            return params_.op_overhead_s + op.flops / params_.matmul_rate_ops;
        default:
            return params_.op_overhead_s + op.flops / params_.elementwise_rate_ops;
    }
}

sim::Support RingHostModel::supports(const sim::Graph&, const sim::Op&) const {
    return sim::Support::no(
        "a ring_host only feeds the ring and receives its outputs; ops run on the chiplets");
}

double RingHostModel::op_time_s(const sim::Graph&, const sim::Op&) const {
    return std::numeric_limits<double>::infinity();
}

void build_chiplet(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(sim::device_component_keys(
        {"matmul_rate", "elementwise_rate", "op_overhead", "memory", "dtype"}));
    ChipletParams p;
    p.matmul_rate_ops = node.require_positive_quantity("matmul_rate", sim::Quantity::rate);
    p.elementwise_rate_ops =
        node.require_positive_quantity("elementwise_rate", sim::Quantity::rate);
    p.op_overhead_s = sim::non_negative_time(node, "op_overhead");
    p.dtype = sim::dtype_param(node, "dtype", sim::DType::f32);
    sim::DeviceComponentSpec spec;
    // The SRAM: what memory tracking checks the chip's resident tensors against.
    spec.memory_bytes =
        sim::bytes_of(node.require_positive_quantity("memory", sim::Quantity::data_size));
    spec.devices.push_back(sim::DeviceSpec{name, std::make_shared<ChipletModel>(p)});
    sim::add_device_component(node, name, std::move(spec), platform);
    // A partition over the chiplets must keep mcm2022's Eq. 2-4 and H(G, f) (the rule's code
    // is placement/mcm/ring_rule.cpp).
    platform.add_placement_rule(kChipletRingRule);
}

void build_ring_host(const sim::ConfigNode& node, const std::string& name,
                     sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(sim::device_component_keys({"dtype"}));
    sim::DeviceComponentSpec spec;
    spec.devices.push_back(sim::DeviceSpec{
        name, std::make_shared<RingHostModel>(sim::dtype_param(node, "dtype", sim::DType::f32))});
    sim::add_device_component(node, name, std::move(spec), platform);
}

}  // namespace hetsim::mcm_ring
