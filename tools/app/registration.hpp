// Registers every component type of every folder with the ComponentRegistry (idempotent).
// Placers register themselves in PlacerRegistry::instance().
#pragma once

namespace hetsim::app {
void register_all();
}
