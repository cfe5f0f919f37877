// mcm.optimal: the best valid partition under mcm2022 §5.1's analytical model, found by exact
// methods where they are tractable:
//   1. the adjacent-cut chain DP (chain_dp.hpp, kAdjacentCuts): optimal among the partitions
//      whose cut edges all reach the next chip, valid by construction — the incumbent;
//   2. the relaxed chain DP (mcm.bound): a proven lower bound; if the incumbent meets it, it is
//      optimal and nothing else runs;
//   3. otherwise branch and bound on Gecode over the full model (optimal.hpp) from the
//      incumbent, until it proves optimality or the time limit passes (then: the best found,
//      with its gap to the bound).
#include <fmt/format.h>

#include <chrono>

#include "placement/mcm/chain_dp.hpp"
#include "placement/mcm/mcm_placers.hpp"
#include "placement/mcm/optimal.hpp"
#include "placement/mcm/search.hpp"

namespace hetsim::placement::mcm {

namespace {

constexpr const char* kName = "mcm.optimal";

ArgumentSchema schema() {
    ArgumentSchema s(kName);
    s.time_limit("time", "60",
                 "wall-clock limit in seconds; past it the best partition found is returned");
    s.integer("nodes", 0, 1'000'000'000'000, "0",
              "branch-and-bound nodes at most (0 = none); past them the best partition found is "
              "returned, the same on every run, unlike one cut by the time limit");
    add_reserve_argument(s);
    return s;
}

}  // namespace

OptimalPlacer::OptimalPlacer(const std::string& arguments)
    : McmPlacer(join_placer_spec(kName, arguments), schema().parse(arguments)) {}

PlacerInfo OptimalPlacer::info() {
    const ArgumentSchema s = schema();
    return PlacerInfo{kName, s.usage(),
                      "the analytical optimum of mcm2022's partitioning where tractable: "
                      "adjacent-cut chain DP, relaxed DP bound, Gecode branch and bound",
                      [](const std::string& a) { return std::make_unique<OptimalPlacer>(a); },
                      s.key_help()};
}

PlacementResult OptimalPlacer::place(const PlacementContext& context) {
    SearchSettings settings;
    settings.samples = 1;
    settings.time_limit_s = arguments_.number("time");
    settings.sram_reserve = arguments_.number("reserve");
    Search search(context, settings);
    const McmProblem& problem = search.problem();

    ChainDpOptions adjacent;
    adjacent.space = ChainSpace::kAdjacentCuts;
    adjacent.deadline = search.deadline();
    adjacent.on_progress = search.bound_progress();
    std::vector<int> incumbent;
    std::string dp_note;
    try {
        const ChainDpResult dp = solve_chain_dp(problem, adjacent);
        if (dp.feasible && !dp.stopped)
            incumbent = dp.chip_of_op;
        // No seconds here: the summary goes into results.json, which --deterministic keeps
        // free of wall-clock quantities.
        dp_note =
            dp.stopped ? "adjacent-cut DP stopped at the time limit" : "adjacent-cut DP finished";
    } catch (const ChainDpError& e) {
        dp_note = fmt::format("adjacent-cut DP refused: {}", e.what());
    }
    const auto bound = relaxed_bound(problem, search.deadline(), search.bound_progress());

    OptimalOptions options;
    options.incumbent = incumbent;
    options.lower_bound_s = bound ? bound->time_per_sample_s : 0.0;
    options.deadline = search.deadline();
    options.node_limit = arguments_.integer("nodes");
    if (context.wants_progress()) {
        const auto start = std::chrono::steady_clock::now();
        options.on_progress = [&context, &options, start](std::int64_t nodes, double best_s) {
            context.report_progress({static_cast<long>(nodes),
                                     static_cast<long>(options.node_limit), "nodes",
                                     best_s > 0.0 ? fmt::format("{:.2f}/s", 1.0 / best_s) : "",
                                     time_fraction(start, options.deadline)});
        };
    }
    const OptimalResult best = solve_optimal(problem, options);
    if (!best.found) {
        throw PlacementError(fmt::format("{}: no valid partition of '{}' found within {} s ({})",
                                         kName, context.graph.name(), arguments_.number("time"),
                                         dp_note));
    }
    search.evaluate(best.chip_of_op);
    PlacementResult result = search.finish(spec_, best.chip_of_op);
    result.stats["proven_optimal"] = best.proven ? "1" : "0";
    result.stats["search_nodes"] = std::to_string(best.nodes);
    result.stats["node_limit_hit"] = best.node_limit_hit ? "1" : "0";
    result.stats["incumbent_from_dp"] =
        !incumbent.empty() && best.chip_of_op == incumbent ? "1" : "0";
    result.summary +=
        fmt::format("; {} ({}, {} B&B node(s))",
                    best.proven ? "proven optimal" : "not proven optimal", dp_note, best.nodes);
    return result;
}

}  // namespace hetsim::placement::mcm
