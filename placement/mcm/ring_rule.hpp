// mcm2022's rule for partitions over a chiplet ring (§3, Eq. 2-4 and H(G, f); constraints.hpp)
// as a platform placement rule (sim/placement_rules.hpp): the chiplet component names it, the
// app binds the name to this code.
#pragma once

#include <memory>

#include "sim/placement_rules.hpp"

namespace hetsim::placement::mcm {

// "" for a platform without chiplets or a placement that puts an op off them (the ring's
// constraints then do not apply); else the first violation of Eq. 2-4 or H(G, f).
std::shared_ptr<const sim::PlacementRule> chiplet_ring_rule();

}  // namespace hetsim::placement::mcm
