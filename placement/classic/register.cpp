// The classic family: placers that follow no one paper of hetsim's five, with bare names.
#include "placement/classic/exhaustive.hpp"
#include "placement/classic/list_scheduling.hpp"
#include "placement/classic/mcmc.hpp"
#include "placement/classic/priority.hpp"
#include "placement/classic/random.hpp"
#include "placement/classic/replay.hpp"
#include "placement/classic/round_robin.hpp"
#include "placement/classic/single.hpp"
#include "placement/families.hpp"

namespace hetsim::placement::classic {

void register_placers(PlacerRegistry& registry) {
    registry.family(kClassicFamily, "baselines and exact search on small graphs")
        .add(SinglePlacer::info())
        .add(PriorityPlacer::info())
        .add(RandomPlacer::info())
        .add(RoundRobinPlacer::info())
        .add(ExhaustivePlacer::info())
        .add(ReplayPlacer::info())
        .add(ListSchedulerPlacer::info(ListAlgorithm::heft))
        .add(ListSchedulerPlacer::info(ListAlgorithm::cpop))
        .add(ListSchedulerPlacer::info(ListAlgorithm::peft))
        .add(ListSchedulerPlacer::info(ListAlgorithm::etf))
        .add(McmcPlacer::info());
}

}  // namespace hetsim::placement::classic
