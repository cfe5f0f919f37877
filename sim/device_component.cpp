#include "sim/device_component.hpp"

#include <fmt/format.h>

#include <optional>
#include <utility>

namespace hetsim::sim {

std::vector<std::string> device_component_keys(std::vector<std::string> own_keys) {
    own_keys.insert(own_keys.begin(), {"type", "role", "memory_latency", "compiler"});
    return own_keys;
}

void add_device_component(const ConfigNode& node, const std::string& name, DeviceComponentSpec spec,
                          Platform& platform) {
    std::optional<DeviceRole> role;
    if (node.has("role")) {
        const ConfigNode role_node = node.at("role");
        const std::string text = role_node.as_string();
        role = parse_device_role(text);
        if (!role) {
            const std::vector<std::string> known = device_role_names();
            const std::string hint = did_you_mean(text, known);
            role_node.fail(
                fmt::format("unknown device role '{}'{}; known roles: {}", text,
                            hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                            fmt::join(known, ", ")));
        }
    }

    Compiler compiler = Compiler::none;
    if (node.has("compiler")) {
        const ConfigNode c = node.at("compiler");
        const std::string text = c.as_string();
        if (text == "tvm") {
            compiler = Compiler::tvm;
        } else if (text != "none") {
            c.fail(fmt::format("expected 'tvm' or 'none', got '{}'", text));
        }
    }

    Component component;
    component.name = name;
    component.type = node.at("type").as_string();
    component.memory_bytes = spec.memory_bytes;
    component.converter = std::move(spec.converter);
    component.memory_bandwidth_Bps = spec.memory_bandwidth_Bps;
    component.memory_latency_s = node.get_quantity("memory_latency", Quantity::time, 0.0);
    if (component.memory_latency_s < 0.0) {
        node["memory_latency"].fail(
            fmt::format("must be >= 0, got '{}'", node["memory_latency"].as_string()));
    }
    platform.add_component(std::move(component));

    const int shared = spec.sharing == ResourceSharing::shared
                           ? platform.add_resource(ExecResource{name, spec.capacity})
                           : -1;
    for (auto& device : spec.devices) {
        Device d;
        d.name = device.name;
        d.component = name;
        d.resource =
            spec.sharing == ResourceSharing::shared
                ? shared
                : platform.add_resource(ExecResource{fmt::format("{}_{}", name, device.name), 1});
        d.units = device.units;
        d.model = std::move(device.model);
        d.role_override = role;
        d.compiler = compiler;
        platform.add_device(std::move(d));
    }
}

}  // namespace hetsim::sim
