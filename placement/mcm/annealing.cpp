// mcm.sa: mcm2022 §5.1's Simulated Annealing — "starts from the same uniform probability
// distribution as Random. Each iteration, SA randomly selects a set of nodes, and for each node
// i from this set, it generates a new random distribution p_i. The constraint solver takes
// this new probability distribution to generate a valid partition. Based on the evaluation
// results of this valid partition, SA decides whether to accept the new probability
// distribution."
//
// The paper gives no schedule; ours, fixed before any evaluation and not tuned on the studies
// we report:
//  * the set: each node independently with probability `fraction` (at least one node);
//  * a new p_i: a flat Dirichlet draw (C independent Exp(1) weights), so every distribution
//    over the chips is equally likely;
//  * acceptance (Metropolis on the relative change of time per sample): a candidate whose time
//    is t' against the current t is accepted with probability min(1, exp(-(t' - t) / (T t)));
//    a candidate the cost model refuses is never accepted;
//  * temperature T decays geometrically from `t0` to t0 / 100 over the sample budget.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>

#include "placement/mcm/mcm_placers.hpp"
#include "placement/mcm/search.hpp"
#include "placement/mcm/solver.hpp"

namespace hetsim::placement::mcm {

namespace {

constexpr const char* kName = "mcm.sa";

ArgumentSchema schema() {
    ArgumentSchema s(kName);
    add_search_arguments(s, "1000");
    s.number("fraction", 0.0, 1.0, "0.05",
             "share of the nodes that get a new random distribution per iteration")
        .positive_number("t0", "0.05",
                         "initial temperature, as a relative change of time per sample");
    return s;
}

}  // namespace

AnnealingPlacer::AnnealingPlacer(const std::string& arguments)
    : McmPlacer(join_placer_spec(kName, arguments), schema().parse(arguments)) {}

PlacerInfo AnnealingPlacer::info() {
    const ArgumentSchema s = schema();
    return PlacerInfo{kName, s.usage(),
                      "mcm2022's simulated annealing over per-node chip distributions, the "
                      "solver's SAMPLE mode per candidate (§5.1)",
                      [](const std::string& a) { return std::make_unique<AnnealingPlacer>(a); },
                      s.key_help()};
}

PlacementResult AnnealingPlacer::place(const PlacementContext& context) {
    Search search(context, read_search_settings(arguments_));
    const double fraction = arguments_.number("fraction");
    const double t0 = arguments_.number("t0");
    SolverOptions options;
    options.deadline = search.deadline();
    PartitionSolver solver(search.problem(), options);
    const int ops = search.problem().op_count();
    const int chips = search.problem().chip_count();
    std::mt19937_64 rng(context.seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::exponential_distribution<double> exp1(1.0);

    // The current distribution: uniform, as Random's.
    std::vector<double> current(static_cast<std::size_t>(ops) * static_cast<std::size_t>(chips),
                                1.0);
    double current_s = std::numeric_limits<double>::infinity();
    const auto budget = static_cast<double>(search.settings().samples);
    int accepted = 0;
    while (!search.done()) {
        std::vector<double> candidate = current;
        if (std::isfinite(current_s)) {
            bool any = false;
            for (int op = 0; op < ops; ++op) {
                if (unit(rng) >= fraction)
                    continue;
                any = true;
                for (int c = 0; c < chips; ++c)
                    candidate[static_cast<std::size_t>(op) * static_cast<std::size_t>(chips) +
                              static_cast<std::size_t>(c)] = exp1(rng);
            }
            if (!any) {
                const int op = static_cast<int>(unit(rng) * ops) % ops;
                for (int c = 0; c < chips; ++c)
                    candidate[static_cast<std::size_t>(op) * static_cast<std::size_t>(chips) +
                              static_cast<std::size_t>(c)] = exp1(rng);
            }
        }
        const auto partition = solver.sample(candidate, rng);
        if (!partition) {
            search.record_failed_sample();
            continue;
        }
        const double time_s = search.evaluate(*partition);
        if (!std::isfinite(time_s))
            continue;
        const double progress = static_cast<double>(search.samples()) / budget;
        const double temperature = t0 * std::pow(0.01, progress);
        const bool accept = !std::isfinite(current_s) || time_s <= current_s ||
                            unit(rng) < std::exp(-(time_s - current_s) / (temperature * current_s));
        if (accept) {
            current = std::move(candidate);
            current_s = time_s;
            ++accepted;
        }
    }
    PlacementResult result = search.finish(spec_);
    result.stats["accepted"] = std::to_string(accepted);
    result.stats["solver_failures"] = std::to_string(solver.stats().failures);
    return result;
}

}  // namespace hetsim::placement::mcm
