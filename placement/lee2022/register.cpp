// The lee2022 family (Silent-PIM, papers/lee2022-silent-pim-partitioning.txt).
#include "placement/families.hpp"
#include "placement/lee2022/als_placer.hpp"

namespace hetsim::placement::lee2022 {

void register_placers(PlacerRegistry& registry) {
    registry.family("lee2022", "lee2022: optimal partitioning on CPU + Silent-PIM (DCG, ALS DP)")
        .add(AlsPlacer::info());
}

}  // namespace hetsim::placement::lee2022
