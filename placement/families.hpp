// Each placer family's registration function, defined in the family's own folder: it opens
// its PlacerRegistry::Family and adds each of its placers, one line a placer.
// PlacerRegistry::instance() calls these; mcm::rl::register_placers (placement/mcm/rl/rl.hpp)
// is called by the app, since hetsim_placement does not link that library.
#pragma once

#include "placement/placer.hpp"

namespace hetsim::placement {

namespace classic {
void register_placers(PlacerRegistry& registry);  // placement/classic/register.cpp
}
namespace lee2022 {
void register_placers(PlacerRegistry& registry);  // placement/lee2022/register.cpp
}
namespace tarnawski {
void register_placers(PlacerRegistry& registry);  // placement/tarnawski/tarnawski_placer.cpp
}
namespace mcm {
void register_placers(PlacerRegistry& registry);  // placement/mcm/register.cpp
}
namespace duet {
void register_placers(PlacerRegistry& registry);  // placement/duet/register.cpp
}
namespace baechi {
void register_placers(PlacerRegistry& registry);  // placement/baechi/register.cpp
}
namespace eop {
void register_placers(PlacerRegistry& registry);  // placement/eop/register.cpp
}

}  // namespace hetsim::placement
