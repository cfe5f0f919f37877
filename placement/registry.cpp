// The placer registry: every built-in placer is one line in instance(), so a new placer is
// one new file plus one registration line (docs/DESIGN.md "The flow of data").
#include <fmt/format.h>

#include "placement/classic/exhaustive.hpp"
#include "placement/classic/random.hpp"
#include "placement/classic/round_robin.hpp"
#include "placement/classic/single.hpp"
#include "placement/lee2022/als_placer.hpp"
#include "placement/mcm/mcm_placers.hpp"
#include "placement/placer.hpp"
#include "placement/placer_args.hpp"
#include "placement/priority/priority.hpp"
#include "placement/tarnawski/tarnawski_placer.hpp"

namespace hetsim::placement {

PlacerRegistry& PlacerRegistry::instance() {
    // Filled on first use (thread-safe static initialisation), not by static constructors in
    // each placer's file: those would be dropped by the linker from a static library.
    static PlacerRegistry registry = [] {
        PlacerRegistry r;
        r.add(SinglePlacer::info());
        r.add(PriorityPlacer::info());
        r.add(RandomPlacer::info());
        r.add(RoundRobinPlacer::info());
        r.add(ExhaustivePlacer::info());
        r.add(lee2022::AlsPlacer::info());
        tarnawski::add_split_solver_placers(r);
        r.add(mcm::GreedyPlacer::info());
        r.add(mcm::RandomSearchPlacer::info());
        r.add(mcm::AnnealingPlacer::info());
        r.add(mcm::BoundPlacer::info());
        r.add(mcm::OptimalPlacer::info());
        return r;
    }();
    return registry;
}

void PlacerRegistry::add(PlacerInfo info) {
    auto key = info.name;
    placers_.insert_or_assign(std::move(key), std::move(info));
}

std::unique_ptr<Placer> PlacerRegistry::create(const std::string& spec) const {
    const PlacerSpec parts = split_placer_spec(spec);
    auto it = placers_.find(parts.name);
    if (it == placers_.end()) {
        std::vector<std::string> known;
        for (const auto& [key, info] : placers_)
            known.push_back(key);
        throw PlacementError(unknown_placer_message(parts.name, known));
    }
    return it->second.factory(parts.arguments);
}

std::vector<const PlacerInfo*> PlacerRegistry::all() const {
    std::vector<const PlacerInfo*> out;
    out.reserve(placers_.size());
    for (const auto& [name, info] : placers_)
        out.push_back(&info);  // std::map: sorted
    return out;
}

}  // namespace hetsim::placement
