// Registers the `silent_pim` component type with the platform parser.
#pragma once

#include "sim/platform.hpp"

namespace hetsim::silent_pim {

void register_components(sim::ComponentRegistry& registry);

}  // namespace hetsim::silent_pim
