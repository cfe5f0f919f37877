// Registers the component types of mcm2022's multi-chip ring (`chiplet`, `ring_host`,
// `ring_link`) with the platform parser.
#pragma once

#include "sim/platform.hpp"

namespace hetsim::mcm_ring {

void register_components(sim::ComponentRegistry& registry);

}  // namespace hetsim::mcm_ring
