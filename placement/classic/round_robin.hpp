// "round_robin": ops in topological order take the devices in turn — duet §VI-C's
// Round-Robin schedule ("assigns subgraphs to CPU and GPU alternatively"), generalised to
// any number of devices and applied per op.
#pragma once

#include <string>

#include "placement/placer.hpp"

namespace hetsim::placement {

class RoundRobinPlacer final : public Placer {
public:
    explicit RoundRobinPlacer(const std::string& arguments);  // takes no arguments
    static PlacerInfo info();

    std::string name() const override { return "round_robin"; }
    PlacementResult place(const PlacementContext& context) override;
};

}  // namespace hetsim::placement
