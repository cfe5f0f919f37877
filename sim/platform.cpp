#include "sim/platform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sim/names.hpp"

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

std::string_view to_string(Arbitration arbitration) {
    switch (arbitration) {
        case Arbitration::shared:
            return "shared";
        case Arbitration::fifo:
            return "fifo";
        case Arbitration::none:
            return "none";
    }
    return "?";
}

bool Platform::is_relay(const std::string& component) const {
    return relays_all || std::find(relays.begin(), relays.end(), component) != relays.end();
}

int Platform::component_index(const std::string& component_name) const {
    for (std::size_t i = 0; i < components_.size(); ++i) {
        if (components_[i].name == component_name)
            return static_cast<int>(i);
    }
    return -1;
}

void Platform::compute_routes() const {
    const std::size_t n = components_.size();
    routes_.assign(n * n, std::nullopt);
    // Out-edges of every component in (link index, forward first) order: BFS over them with
    // a FIFO queue reaches every component first along its lexicographically smallest
    // shortest route.
    std::vector<std::vector<std::pair<Hop, int>>> out(n);
    for (std::size_t i = 0; i < links_.size(); ++i) {
        const int a = component_index(links_[i].endpoint_a);
        const int b = component_index(links_[i].endpoint_b);
        if (a < 0 || b < 0)
            continue;  // parse_platform reports unknown endpoints
        out[static_cast<std::size_t>(a)].push_back({Hop{static_cast<int>(i), true}, b});
        if (!links_[i].one_way)
            out[static_cast<std::size_t>(b)].push_back({Hop{static_cast<int>(i), false}, a});
    }
    for (std::size_t from = 0; from < n; ++from) {
        std::vector<int> parent(n, -1);
        std::vector<Hop> via(n);
        std::vector<bool> seen(n, false);
        std::vector<std::size_t> queue{from};
        seen[from] = true;
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const std::size_t u = queue[head];
            if (u != from && !is_relay(components_[u].name))
                continue;  // reached, but data is not forwarded through it
            for (const auto& [hop, v] : out[u]) {
                const auto vi = static_cast<std::size_t>(v);
                if (seen[vi])
                    continue;
                seen[vi] = true;
                parent[vi] = static_cast<int>(u);
                via[vi] = hop;
                queue.push_back(vi);
            }
        }
        for (std::size_t to = 0; to < n; ++to) {
            if (!seen[to])
                continue;
            std::vector<Hop> hops;
            for (std::size_t v = to; v != from; v = static_cast<std::size_t>(parent[v]))
                hops.push_back(via[v]);
            std::reverse(hops.begin(), hops.end());
            routes_[from * n + to] = std::move(hops);
        }
    }
    routes_valid_ = true;
}

const std::vector<Hop>* Platform::route(const std::string& from_component,
                                        const std::string& to_component) const {
    const int from = component_index(from_component);
    const int to = component_index(to_component);
    if (from < 0 || to < 0)
        return nullptr;
    if (!routes_valid_)
        compute_routes();
    const auto& r =
        routes_[static_cast<std::size_t>(from) * components_.size() + static_cast<std::size_t>(to)];
    return r ? &*r : nullptr;
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
    routes_valid_ = false;
}

std::vector<int> Platform::devices_on_resource(int resource) const {
    std::vector<int> out;
    for (int d = 0; d < device_count(); ++d) {
        if (devices_[static_cast<std::size_t>(d)].resource == resource)
            out.push_back(d);
    }
    return out;
}

void Platform::add_placement_rule(const std::string& rule) {
    if (std::find(placement_rules_.begin(), placement_rules_.end(), rule) == placement_rules_.end())
        placement_rules_.push_back(rule);
}

void Platform::add_link(Link link) {
    links_.push_back(std::move(link));
    routes_valid_ = false;
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

namespace {

// relays: [cpu] | all
void parse_relays(const ConfigNode& node, Platform& platform) {
    if (!node.has("relays"))
        return;
    const ConfigNode relays = node.at("relays");
    if (relays.is_scalar() && relays.as_string() == "all") {
        platform.relays_all = true;
        return;
    }
    if (!relays.is_sequence())
        relays.fail("expected 'all' or a list of component names, e.g. [cpu]");
    for (std::size_t i = 0; i < relays.size(); ++i) {
        const std::string name = relays.at(i).as_string();
        if (platform.find_component(name) == nullptr) {
            relays.at(i).fail(fmt::format("relay '{}' is not a component of this platform", name));
        }
        platform.relays.push_back(name);
    }
}

void check_links_and_routes(const ConfigNode& components, const Platform& platform) {
    const auto& links = platform.links();
    for (std::size_t i = 0; i < links.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            const Link& a = links[i];
            const Link& b = links[j];
            const bool same = a.endpoint_a == b.endpoint_a && a.endpoint_b == b.endpoint_b;
            const bool reversed = a.endpoint_a == b.endpoint_b && a.endpoint_b == b.endpoint_a;
            // Two links may join a pair only as two one-way links in opposite directions.
            const bool overlap = same || (reversed && !(a.one_way && b.one_way));
            if (overlap) {
                components.at(a.name).fail(fmt::format(
                    "links '{}' and '{}' both join '{}' and '{}'; a route uses one link per "
                    "pair of components, so describe them as one link (summed bandwidth) or as "
                    "two one-way links in opposite directions",
                    b.name, a.name, a.endpoint_a, a.endpoint_b));
            }
        }
    }
    // Every component must reach every other: a placement may put a producer and a consumer
    // on any two devices, and graph inputs start (outputs end) in the host's memory.
    for (const auto& from : platform.components()) {
        for (const auto& to : platform.components()) {
            if (from.name == to.name || platform.route(from.name, to.name) != nullptr)
                continue;
            components.fail(fmt::format(
                "no route from '{}' to '{}': they must exchange data (any op may run on any "
                "device), but no chain of links{} joins them; add a link, or declare the "
                "component in between under 'relays:'",
                from.name, to.name,
                platform.relays.empty() && !platform.relays_all
                    ? " (no component is declared a relay)"
                    : " through the relays"));
        }
    }
}

}  // namespace

Platform parse_platform(const ConfigNode& node) {
    node.expect_map();
    node.expect_keys({"name", "description", "dispatch", "host", "relays", "components"});
    node.get_string("description", "");  // free text, but text: not a list or a map
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
        if (const std::string problem = plain_name_problem(key); !problem.empty())
            comp.fail(fmt::format("component name {}", problem));
        // A component set to null is not there: a sweep or --set removes one this way
        // (`--set platform.components.acc3=~`; its links are removed the same way).
        if (!comp.defined())
            continue;
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
            const YAML::Node removed = components.raw()[end];
            if (platform.find_component(end) == nullptr && removed.IsDefined() &&
                removed.IsNull()) {
                // Set to null, by `--set platform.components.<name>=~` or a sweep: its links
                // go with it only when they are removed too.
                comp.fail(
                    fmt::format("link endpoint '{}' is a component set to null (removed); "
                                "remove this link too (components.{}: ~)",
                                end, key));
            }
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
        if (const std::string problem = plain_name_problem(d.name); !problem.empty())
            components.at(d.component).fail(fmt::format("device name {}", problem));
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
    parse_relays(node, platform);
    check_links_and_routes(components, platform);
    return platform;
}

Platform load_platform(const std::string& file) {
    return parse_platform(ConfigNode::load_file(file));
}

}  // namespace hetsim::sim
