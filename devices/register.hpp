// Registers the device component types of this folder (`cpu`) with the platform parser.
#pragma once

#include "sim/platform.hpp"

namespace hetsim::devices {

void register_components(sim::ComponentRegistry& registry);

}  // namespace hetsim::devices
