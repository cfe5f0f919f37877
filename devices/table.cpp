#include "devices/table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <variant>
#include <vector>

#include "sim/device_component.hpp"
#include "sim/yaml_params.hpp"

namespace hetsim::devices {

namespace {

// The op's cost in `column`, or NaN when it has none there.
double cost_in(const sim::Op& op, int column) {
    const auto it = op.attrs.find(kTaskCostsAttribute);
    if (it == op.attrs.end())
        return std::nan("");
    if (const auto* costs = std::get_if<std::vector<double>>(&it->second)) {
        return static_cast<std::size_t>(column) < costs->size()
                   ? (*costs)[static_cast<std::size_t>(column)]
                   : std::nan("");
    }
    return std::nan("");
}

}  // namespace

sim::Support TableModel::supports(const sim::Graph&, const sim::Op& op) const {
    const double cost = cost_in(op, column_);
    if (std::isnan(cost)) {
        return sim::Support::no(
            fmt::format("no cost for column {} in the op's '{}'", column_, kTaskCostsAttribute));
    }
    if (!std::isfinite(cost) || cost < 0.0)
        return sim::Support::no(fmt::format("its cost in column {} is {}", column_, cost));
    return sim::Support::yes();
}

double TableModel::op_time_s(const sim::Graph&, const sim::Op& op) const {
    return cost_in(op, column_);
}

void build_table(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(sim::device_component_keys({"column", "memory"}));
    const int column = static_cast<int>(node.get_int("column", 0));
    if (column < 0)
        node["column"].fail(fmt::format("must be >= 0, got {}", column));
    sim::DeviceComponentSpec spec;
    spec.memory_bytes =
        sim::bytes_of(sim::optional_positive(node, "memory", sim::Quantity::data_size, 0.0));
    spec.devices.push_back(sim::DeviceSpec{name, std::make_shared<TableModel>(column)});
    sim::add_device_component(node, name, std::move(spec), platform);
}

}  // namespace hetsim::devices
