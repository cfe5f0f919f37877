// mcm.bound: what mcm2022 never knew — how far its partitions are from the best. The relaxed
// chain DP (chain_dp.hpp, kRelaxed: Eq. 2, Eq. 3 and each chip's weights within its SRAM, Eq. 4
// dropped) minimises the analytical time per sample over a superset of the valid partitions,
// so its optimum is a proven lower bound on every valid partition's time per sample (an upper
// bound on its throughput). As a placer it returns the chain attaining the bound: where that
// chain breaks Eq. 4 the study reports it as an invalid partition, which shows what the
// triangle constraint costs.
#include <fmt/format.h>

#include "placement/mcm/chain_dp.hpp"
#include "placement/mcm/mcm_placers.hpp"
#include "placement/mcm/search.hpp"

namespace hetsim::placement::mcm {

namespace {

constexpr const char* kName = "mcm.bound";

ArgumentSchema schema() {
    ArgumentSchema s(kName);
    s.time_limit("time", "", "wall-clock limit in seconds for the DP");
    add_reserve_argument(s);
    return s;
}

}  // namespace

BoundPlacer::BoundPlacer(const std::string& arguments)
    : McmPlacer(join_placer_spec(kName, arguments), schema().parse(arguments)) {}

PlacerInfo BoundPlacer::info() {
    const ArgumentSchema s = schema();
    return PlacerInfo{kName, s.usage(),
                      "a proven bound on mcm2022's analytical throughput: the max-load DP over "
                      "chains of ideals without Eq. 4, and the chain attaining it",
                      [](const std::string& a) { return std::make_unique<BoundPlacer>(a); },
                      s.key_help()};
}

PlacementResult BoundPlacer::place(const PlacementContext& context) {
    SearchSettings settings;
    settings.samples = 1;
    settings.report_bound = false;
    settings.sram_reserve = arguments_.number("reserve");
    if (arguments_.has("time"))
        settings.time_limit_s = arguments_.number("time");
    Search search(context, settings);
    const auto bound = relaxed_bound(search.problem(), search.deadline(), search.bound_progress());
    if (!bound) {
        throw PlacementError(fmt::format(
            "{}: the relaxed chain DP did not finish on '{}' (too many ideals, or past the time "
            "limit)",
            kName, context.graph.name()));
    }
    if (bound->chip_of_op.empty()) {
        throw PlacementError(
            fmt::format("{}: no chain of '{}' fits the chips' SRAM: no partition is valid", kName,
                        context.graph.name()));
    }
    PlacementResult result = search.finish(spec_, bound->chip_of_op);
    const AnalyticResult analytic = search.analytic().evaluate(bound->chip_of_op);
    result.stats["bound_time_per_sample_s"] = fmt::format("{:.9g}", bound->time_per_sample_s);
    result.stats["bound_throughput_per_s"] = fmt::format("{:.6g}", 1.0 / bound->time_per_sample_s);
    result.stats["ideals"] = std::to_string(bound->ideals);
    result.stats["dp_wall_s"] = fmt::format("{:.3f}", bound->wall_s);
    const std::string how = bound->ideals == 0 ? std::string("the linearized DP met the work bound")
                                               : fmt::format("{} ideals", bound->ideals);
    // No seconds in the summary: it goes into results.json, which --deterministic keeps free of
    // wall-clock quantities (the DP's time is the stat dp_wall_s).
    result.summary =
        fmt::format("bound: throughput <= {:.2f}/s for every valid partition ({}); its chain {}",
                    1.0 / bound->time_per_sample_s, how,
                    analytic.valid ? "is valid, hence optimal" : "breaks " + analytic.reason);
    return result;
}

}  // namespace hetsim::placement::mcm
