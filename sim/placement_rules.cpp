#include "sim/placement_rules.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace hetsim::sim {

PlacementRuleRegistry& PlacementRuleRegistry::instance() {
    static PlacementRuleRegistry registry;
    return registry;
}

void PlacementRuleRegistry::add(const std::string& name,
                                std::shared_ptr<const PlacementRule> rule) {
    rules_.insert_or_assign(name, std::move(rule));
}

const PlacementRule* PlacementRuleRegistry::find(const std::string& name) const {
    const auto it = rules_.find(name);
    return it == rules_.end() ? nullptr : it->second.get();
}

std::string placement_violation(const Graph& graph, const Platform& platform,
                                const Placement& placement) {
    for (const std::string& name : platform.placement_rules()) {
        const PlacementRule* rule = PlacementRuleRegistry::instance().find(name);
        if (rule == nullptr) {
            throw std::logic_error(
                fmt::format("platform '{}' needs placement rule '{}', which no code registered",
                            platform.name, name));
        }
        const std::string message = rule->violation(graph, platform, placement);
        if (!message.empty())
            return fmt::format("{}: {}", name, message);
    }
    return {};
}

}  // namespace hetsim::sim
