// The placer registry: every built-in placer is one line in instance(), so a new placer is
// one new file plus one registration line (docs/DESIGN.md "The flow of data").
#include <fmt/format.h>

#include "placement/classic/exhaustive.hpp"
#include "placement/classic/random.hpp"
#include "placement/classic/round_robin.hpp"
#include "placement/classic/single.hpp"
#include "placement/lee2022/als_placer.hpp"
#include "placement/placer.hpp"
#include "placement/priority/priority.hpp"
#include "placement/tarnawski/tarnawski_placer.hpp"
#include "sim/config.hpp"

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
        return r;
    }();
    return registry;
}

void PlacerRegistry::add(PlacerInfo info) {
    auto key = info.name;
    placers_.insert_or_assign(std::move(key), std::move(info));
}

std::unique_ptr<Placer> PlacerRegistry::create(const std::string& spec) const {
    // "name" or "name:arguments"; only the first ':' separates, so arguments may hold more.
    const std::size_t colon = spec.find(':');
    std::string name = spec.substr(0, colon);
    const std::string arguments = colon == std::string::npos ? "" : spec.substr(colon + 1);
    const auto first = name.find_first_not_of(" \t");
    const auto last = name.find_last_not_of(" \t");
    name = first == std::string::npos ? "" : name.substr(first, last - first + 1);

    auto it = placers_.find(name);
    if (it == placers_.end()) {
        std::vector<std::string> known;
        for (const auto& [key, info] : placers_)
            known.push_back(key);
        const std::string hint = sim::did_you_mean(name, known);
        throw PlacementError(
            fmt::format("unknown placer '{}'{}; known: {}", name,
                        hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                        fmt::join(known, ", ")));
    }
    return it->second.factory(arguments);
}

std::vector<const PlacerInfo*> PlacerRegistry::all() const {
    std::vector<const PlacerInfo*> out;
    out.reserve(placers_.size());
    for (const auto& [name, info] : placers_)
        out.push_back(&info);  // std::map: sorted
    return out;
}

}  // namespace hetsim::placement
