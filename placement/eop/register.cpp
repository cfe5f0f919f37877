// The eop family (xu2022, papers/xu2022-eop-operator-partition.txt): operators split between
// a CPU and a GPU, and the Equal and Fixed ratio baselines it compares with.
#include "placement/eop/eop_placer.hpp"
#include "placement/families.hpp"

namespace hetsim::placement::eop {

void register_placers(PlacerRegistry& registry) {
    registry.family("eop", "xu2022 EOP: key operators split across a CPU and a GPU")
        .add(EopPlacer::info(EopMode::eop))
        .add(EopPlacer::info(EopMode::equal))
        .add(EopPlacer::info(EopMode::fixed));
}

}  // namespace hetsim::placement::eop
