// Registers the interconnect component types (`dma`, `pcie`) with the platform parser.
#pragma once

#include "sim/platform.hpp"

namespace hetsim::interconnect {

void register_components(sim::ComponentRegistry& registry);

}  // namespace hetsim::interconnect
