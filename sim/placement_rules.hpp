// A platform's rules for which placements it can run, beyond each device's supports(): an
// extension point of the platform, contributed by its components (docs/DESIGN.md "Placement
// rules"). A component that imposes one names it while the platform is built
// (Platform::add_placement_rule); the rule's code registers under that name, possibly from a
// higher layer (mcm2022's chiplet ring: Eq. 2-4 and H(G, f), in placement/mcm). Every command
// that evaluates a placement asks placement_violation() first and does not simulate one that
// breaks a rule.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::sim {

class PlacementRule {
public:
    virtual ~PlacementRule() = default;
    // "" when `placement` keeps the rule on `platform`; else the first violation, one line.
    virtual std::string violation(const Graph& graph, const Platform& platform,
                                  const Placement& placement) const = 0;
};

class PlacementRuleRegistry {
public:
    static PlacementRuleRegistry& instance();
    void add(const std::string& name, std::shared_ptr<const PlacementRule> rule);
    const PlacementRule* find(const std::string& name) const;  // nullptr when unknown

private:
    std::map<std::string, std::shared_ptr<const PlacementRule>> rules_;
};

// The first violation of the platform's rules, in the order its components added them, as
// "<rule>: <message>"; "" when the placement keeps them all. A rule the platform names but no
// code registered is a std::logic_error (a registration line is missing).
std::string placement_violation(const Graph& graph, const Platform& platform,
                                const Placement& placement);

}  // namespace hetsim::sim
