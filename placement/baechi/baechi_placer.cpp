#include "placement/baechi/baechi_placer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "placement/baechi/m_sct.hpp"
#include "placement/classic/list_scheduling.hpp"
#include "placement/placer_args.hpp"

namespace hetsim::placement::baechi {

namespace {

const char* mode_name(BaechiMode mode) {
    switch (mode) {
        case BaechiMode::m_topo:
            return "baechi.m_topo";
        case BaechiMode::m_etf:
            return "baechi.m_etf";
        case BaechiMode::m_sct:
            return "baechi.m_sct";
    }
    return "baechi.m_topo";
}

// m-TOPO (Baechi §4.1).
sim::Placement m_topo(const sim::Graph& graph, const classic::SchedulingProblem& p,
                      const classic::MemoryLimits& m) {
    const auto P = static_cast<std::size_t>(p.processors);
    std::vector<std::int64_t> used(P, 0);
    std::vector<std::set<int>> resident(P);
    const auto needs = [&](int t, std::size_t q) {
        std::int64_t bytes = m.output_bytes[static_cast<std::size_t>(t)][q];
        for (const auto& [tensor, size] : m.weights[static_cast<std::size_t>(t)]) {
            if (!resident[q].count(tensor))
                bytes += size;
        }
        return bytes;
    };
    // Each processor's share: the graph's memory (every output once, every weight once, as
    // processor 0 holds them) over the processors, capped by the capacity.
    std::int64_t total = 0;
    std::set<int> weights;
    for (int t = 0; t < p.tasks; ++t) {
        total += m.output_bytes[static_cast<std::size_t>(t)][0];
        for (const auto& [tensor, size] : m.weights[static_cast<std::size_t>(t)]) {
            if (weights.insert(tensor).second)
                total += size;
        }
    }
    const std::int64_t share =
        (total + static_cast<std::int64_t>(P) - 1) / static_cast<std::int64_t>(P);
    const auto limit = [&](std::size_t q, bool last) {
        const std::int64_t cap = m.capacity[q] > 0 ? m.capacity[q] : INT64_MAX;
        return last ? cap : std::min(cap, share);
    };
    sim::Placement placement;
    placement.device_of_op.assign(static_cast<std::size_t>(p.tasks), -1);
    std::size_t fill = 0;  // the processor being filled
    for (int t : graph.topo_order()) {
        std::size_t chosen = P;
        // The processor being filled, then the later ones (up to their share; the last one up
        // to its capacity), then any with capacity left.
        for (std::size_t q = fill; q < P && chosen == P; ++q) {
            if (!std::isinf(p.cost[static_cast<std::size_t>(t)][q]) &&
                used[q] + needs(t, q) <= limit(q, q + 1 == P)) {
                chosen = q;
            }
        }
        for (std::size_t q = 0; q < P && chosen == P; ++q) {
            if (!std::isinf(p.cost[static_cast<std::size_t>(t)][q]) &&
                used[q] + needs(t, q) <= limit(q, true)) {
                chosen = q;
            }
        }
        if (chosen == P) {
            std::vector<std::string> left;
            for (std::size_t q = 0; q < P; ++q) {
                left.push_back(fmt::format("{}: {} of {} bytes free, it needs {}", q,
                                           m.capacity[q] - used[q], m.capacity[q], needs(t, q)));
            }
            throw PlacementError(
                fmt::format("nothing fits: op '{}' fits in no processor's memory "
                            "({})",
                            graph.op(t).name, fmt::join(left, "; ")));
        }
        if (chosen > fill && chosen < P && !std::isinf(p.cost[static_cast<std::size_t>(t)][fill]))
            fill = chosen;  // the one being filled is full: move on
        used[chosen] += needs(t, chosen);
        for (const auto& [tensor, size] : m.weights[static_cast<std::size_t>(t)])
            resident[chosen].insert(tensor);
        placement.device_of_op[static_cast<std::size_t>(t)] =
            p.device[static_cast<std::size_t>(t)][chosen];
    }
    return placement;
}

}  // namespace

BaechiPlacer::BaechiPlacer(BaechiMode mode, const std::string& arguments) : mode_(mode) {
    ArgumentSchema(mode_name(mode)).parse(arguments);  // none: a clear error for any
}

std::string BaechiPlacer::name() const {
    return mode_name(mode_);
}

PlacerInfo BaechiPlacer::info(BaechiMode mode) {
    const char* description = "";
    switch (mode) {
        case BaechiMode::m_topo:
            description =
                "Baechi m-TOPO (Jeon et al., SoCC 2020): topological order filling the processors "
                "one by one up to their memory share; says which op fits nowhere";
            break;
        case BaechiMode::m_etf:
            description =
                "Baechi m-ETF (Jeon et al., SoCC 2020): ETF where a task may go only where it "
                "fits in memory; says which op fits nowhere";
            break;
        case BaechiMode::m_sct:
            description =
                "Baechi m-SCT (Jeon et al., SoCC 2020, §4.3): Hanen-Munier's favourite-child LP "
                "(solved on CBC) picks a child to run right after each op on its processor, then "
                "m-ETF with that child urgent where it fits; says which op fits nowhere";
            break;
    }
    return PlacerInfo{mode_name(mode), mode_name(mode), description, [mode](const std::string& a) {
                          return std::make_unique<BaechiPlacer>(mode, a);
                      }};
}

PlacementResult BaechiPlacer::place(const PlacementContext& context) {
    const classic::SchedulingProblem problem =
        classic::scheduling_problem(context.graph, context.platform);
    const classic::MemoryLimits limits = classic::memory_limits(context.graph, context.platform);
    PlacementResult result;
    if (mode_ == BaechiMode::m_topo) {
        result.placement = m_topo(context.graph, problem, limits);
    } else if (mode_ == BaechiMode::m_etf) {
        result.placement = classic::to_placement(problem, classic::etf(problem, &limits));
    } else {
        const FavouriteChildren favourites = favourite_children(problem);
        std::vector<std::string> names;
        for (int t = 0; t < problem.tasks; ++t)
            names.push_back(context.graph.op(t).name);
        std::vector<FavouriteOutcome> outcomes;
        const classic::ListSchedule s = m_sct(problem, favourites, &limits, &outcomes, &names);
        result.placement = classic::to_placement(problem, s);
        const auto outcome_count = [&](FavouriteOutcome o) {
            return std::to_string(std::count(outcomes.begin(), outcomes.end(), o));
        };
        result.stats["favourite_children"] = std::to_string(favourites.count());
        result.stats["favourites_kept"] = outcome_count(FavouriteOutcome::kept);
        result.stats["favourites_displaced_memory"] = outcome_count(FavouriteOutcome::no_memory);
        result.stats["lp_makespan_s"] = fmt::format("{:.6g}", favourites.makespan_s);
        result.stats["planned_makespan_s"] = fmt::format("{:.6g}", s.makespan());
        result.summary = fmt::format(
            "m-SCT: {} favourite children, {} kept on their parent's processor; LP makespan "
            "{:.6g} s, planned {:.6g} s",
            favourites.count(), outcome_count(FavouriteOutcome::kept), favourites.makespan_s,
            s.makespan());
    }
    return result;
}

}  // namespace hetsim::placement::baechi
