// The mcm family (mcm2022, 36 chiplets on a one-way ring); mcm.rl joins it from the app.
#include "placement/families.hpp"
#include "placement/mcm/mcm_placers.hpp"

namespace hetsim::placement::mcm {

void register_placers(PlacerRegistry& registry) {
    registry.family("mcm", "mcm2022: partitions over the chiplets of a ring package")
        .add(GreedyPlacer::info())
        .add(RandomSearchPlacer::info())
        .add(AnnealingPlacer::info())
        .add(BoundPlacer::info())
        .add(OptimalPlacer::info());
}

}  // namespace hetsim::placement::mcm
