#include "sim/platform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace hetsim::sim {

std::optional<int> Platform::find_device(const std::string& device_name) const {
    for (int i = 0; i < device_count(); ++i) {
        if (devices_[static_cast<std::size_t>(i)].name == device_name)
            return i;
    }
    return std::nullopt;
}

const Component* Platform::find_component(const std::string& component_name) const {
    for (const auto& c : components_) {
        if (c.name == component_name)
            return &c;
    }
    return nullptr;
}

std::vector<std::string> Platform::device_names() const {
    std::vector<std::string> names;
    for (const auto& d : devices_)
        names.push_back(d.name);
    return names;
}

std::optional<Platform::Route> Platform::route(const std::string& from_component,
                                               const std::string& to_component) const {
    for (const auto& link : links_) {
        if (link.endpoint_a == from_component && link.endpoint_b == to_component) {
            return Route{&link, true};
        }
        if (link.endpoint_b == from_component && link.endpoint_a == to_component) {
            return Route{&link, false};
        }
    }
    return std::nullopt;
}

int Platform::add_resource(ExecResource resource) {
    resources_.push_back(std::move(resource));
    return static_cast<int>(resources_.size()) - 1;
}

int Platform::add_device(Device device) {
    devices_.push_back(std::move(device));
    return static_cast<int>(devices_.size()) - 1;
}

void Platform::add_component(Component component) {
    components_.push_back(std::move(component));
}

void Platform::add_link(Link link) {
    links_.push_back(std::move(link));
}

ComponentRegistry& ComponentRegistry::instance() {
    static ComponentRegistry registry;
    return registry;
}

void ComponentRegistry::add(ComponentType type) {
    auto key = type.type;
    types_.insert_or_assign(std::move(key), std::move(type));
}

const ComponentType* ComponentRegistry::find(const std::string& type) const {
    auto it = types_.find(type);
    return it == types_.end() ? nullptr : &it->second;
}

std::vector<const ComponentType*> ComponentRegistry::all() const {
    std::vector<const ComponentType*> out;
    for (const auto& [name, type] : types_)
        out.push_back(&type);
    return out;
}

Platform parse_platform(const ConfigNode& node) {
    node.expect_map();
    node.expect_keys({"name", "description", "dispatch", "host", "components"});
    Platform platform;
    platform.source_file = node.file();
    platform.name = node.get_string("name", "platform");
    const std::string dispatch = node.get_string("dispatch", "dataflow");
    if (dispatch == "sequential") {
        platform.dispatch = DispatchMode::sequential;
    } else if (dispatch == "dataflow") {
        platform.dispatch = DispatchMode::dataflow;
    } else {
        node["dispatch"].fail(
            fmt::format("expected 'sequential' or 'dataflow', got '{}'", dispatch));
    }
    ConfigNode components = node.at("components");
    components.expect_map();
    if (components.size() == 0)
        components.fail("a platform needs at least one component");

    const auto& registry = ComponentRegistry::instance();
    std::vector<std::string> known_types;
    for (const auto* t : registry.all())
        known_types.push_back(t->type);
    // Devices and memories first, links after, so links can check their endpoints.
    std::vector<std::pair<std::string, const ComponentType*>> links;
    for (const auto& key : components.keys()) {
        ConfigNode comp = components.at(key);
        comp.expect_map();
        const std::string type = comp.at("type").as_string();
        const ComponentType* ct = registry.find(type);
        if (ct == nullptr) {
            std::string hint = did_you_mean(type, known_types);
            comp["type"].fail(
                fmt::format("unknown component type '{}'{}; known types: {}", type,
                            hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                            fmt::join(known_types, ", ")));
        }
        if (ct->kind == "link") {
            links.emplace_back(key, ct);
            continue;
        }
        ct->factory(comp, key, platform);
    }
    for (const auto& [key, ct] : links) {
        ConfigNode comp = components.at(key);
        ct->factory(comp, key, platform);
        const Link& link = platform.links().back();
        for (const auto& end : {link.endpoint_a, link.endpoint_b}) {
            if (platform.find_component(end) == nullptr) {
                std::vector<std::string> names;
                for (const auto& c : platform.components())
                    names.push_back(c.name);
                comp.fail(
                    fmt::format("link endpoint '{}' is not a component of this platform "
                                "(components: {})",
                                end, fmt::join(names, ", ")));
            }
        }
    }
    // Device names must be unique across components: placements refer to them by name.
    std::set<std::string> seen;
    for (const auto& d : platform.devices()) {
        if (!seen.insert(d.name).second) {
            components.fail(fmt::format("device name '{}' is defined twice", d.name));
        }
    }
    if (platform.devices().empty())
        components.fail("the platform defines no device");
    platform.host_component = node.get_string("host", platform.devices().front().component);
    if (platform.find_component(platform.host_component) == nullptr) {
        node["host"].fail(
            fmt::format("host '{}' is not a component of this platform", platform.host_component));
    }
    return platform;
}

Platform load_platform(const std::string& file) {
    return parse_platform(ConfigNode::load_file(file));
}

}  // namespace hetsim::sim
