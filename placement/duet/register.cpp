// The duet family (zhang2021, papers/zhang2021-duet-cpu-gpu.txt): subgraph placement on a CPU
// and a GPU over DUET's phases.
#include "placement/duet/duet_placer.hpp"
#include "placement/families.hpp"

namespace hetsim::placement::duet {

void register_placers(PlacerRegistry& registry) {
    registry.family("duet", "zhang2021 DUET: phases of subgraphs on a CPU and a GPU")
        .add(DuetPlacer::info(DuetMode::greedy_correction))
        .add(DuetPlacer::info(DuetMode::random_correction))
        .add(DuetPlacer::info(DuetMode::random))
        .add(DuetPlacer::info(DuetMode::round_robin))
        .add(DuetPlacer::info(DuetMode::exhaustive));
}

}  // namespace hetsim::placement::duet
