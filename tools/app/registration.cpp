#include "tools/app/registration.hpp"

#include "devices/register.hpp"
#include "interconnect/register.hpp"
#include "mcm_ring/chiplet.hpp"
#include "mcm_ring/register.hpp"
#include "placement/mcm/ring_rule.hpp"
#include "placement/mcm/rl/rl.hpp"
#include "placement/placer.hpp"
#include "silent_pim/register.hpp"
#include "sim/placement_rules.hpp"
#include "sim/platform.hpp"

namespace hetsim::app {

void register_all() {
    static const bool done = [] {
        auto& registry = sim::ComponentRegistry::instance();
        devices::register_components(registry);
        interconnect::register_components(registry);
        silent_pim::register_components(registry);
        mcm_ring::register_components(registry);
        // mcm.rl lives in its own library (libtorch), which hetsim_placement does not link.
        placement::mcm::rl::register_placers(placement::PlacerRegistry::instance());
        // Placement rules: the component names one, its code lives with its placers.
        sim::PlacementRuleRegistry::instance().add(mcm_ring::kChipletRingRule,
                                                   placement::mcm::chiplet_ring_rule());
        return true;
    }();
    (void)done;
}

}  // namespace hetsim::app
