#include "placement/classic/mcmc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#include "placement/placer_args.hpp"
#include "sim/random.hpp"

namespace hetsim::placement::classic {

namespace {

ArgumentSchema schema() {
    ArgumentSchema s("mcmc");
    s.integer("samples", 0, 100'000'000, "1000", "steps of the chain (each one evaluator run)");
    s.time_limit("time", "30", "seconds at most; the best placement so far is returned");
    s.number("beta", 0.0, 1e6, "20",
             "inverse temperature of the Metropolis rule exp(-beta x relative cost increase)");
    return s;
}

}  // namespace

McmcPlacer::McmcPlacer(const std::string& arguments) : arguments_(arguments) {
    const PlacerArguments args = schema().parse(arguments);
    samples_ = static_cast<long>(args.integer("samples"));
    time_s_ = args.number("time");
    beta_ = args.number("beta");
}

std::string McmcPlacer::name() const {
    return join_placer_spec("mcmc", arguments_);
}

PlacerInfo McmcPlacer::info() {
    const ArgumentSchema s = schema();
    return PlacerInfo{"mcmc", s.usage(),
                      "FlexFlow's MCMC search (Jia et al., SysML 2019): single-op moves, "
                      "Metropolis acceptance exp(-beta x delta), the best kept; seeded",
                      [](const std::string& a) { return std::make_unique<McmcPlacer>(a); },
                      s.key_help()};
}

PlacementResult McmcPlacer::place(const PlacementContext& context) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto deadline =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_s_));
    const sim::Graph& graph = context.graph;
    const int n = graph.op_count();
    std::vector<std::vector<int>> capable;
    std::vector<int> movable;  // ops with more than one capable device
    for (int op = 0; op < n; ++op) {
        capable.push_back(capable_devices(graph, context.platform, op));
        if (capable.back().size() > 1)
            movable.push_back(op);
    }
    int runs = 0;
    const auto cost_of = [&](const std::vector<int>& device_of_op) {
        ++runs;
        return objective_cost(context.objective,
                              evaluate_placement(context, sim::Placement{device_of_op, {}}));
    };
    // Start: the best single device, else each op on its first capable device.
    std::vector<int> current(static_cast<std::size_t>(n));
    for (int op = 0; op < n; ++op)
        current[static_cast<std::size_t>(op)] = capable[static_cast<std::size_t>(op)].front();
    double current_cost = std::numeric_limits<double>::infinity();
    for (int d = 0; d < context.platform.device_count(); ++d) {
        bool all = true;
        for (const auto& c : capable)
            all = all && std::find(c.begin(), c.end(), d) != c.end();
        if (!all)
            continue;
        const std::vector<int> single(static_cast<std::size_t>(n), d);
        if (const double c = cost_of(single); c < current_cost) {
            current = single;
            current_cost = c;
        }
    }
    if (!std::isfinite(current_cost))
        current_cost = cost_of(current);
    std::vector<int> best = current;
    double best_cost = current_cost;
    std::mt19937_64 rng(context.seed);
    long steps = 0, accepted = 0;
    bool timed_out = false;
    for (; steps < samples_ && !movable.empty(); ++steps) {
        if (context.wants_progress()) {
            context.report_progress(
                {steps, static_cast<long>(samples_), "steps",
                 std::isfinite(best_cost) ? fmt::format("cost {:.4g}", best_cost) : "",
                 time_fraction(start, deadline)});
        }
        if (Clock::now() >= deadline) {
            timed_out = true;
            break;
        }
        const int op = movable[sim::uniform_index(rng, movable.size())];
        const auto& choices = capable[static_cast<std::size_t>(op)];
        const int now = current[static_cast<std::size_t>(op)];
        // Another device than the op's current one, uniformly.
        std::size_t pick = sim::uniform_index(rng, choices.size() - 1);
        if (choices[pick] == now)
            pick = choices.size() - 1;
        std::vector<int> candidate = current;
        candidate[static_cast<std::size_t>(op)] = choices[pick];
        const double cost = cost_of(candidate);
        // Metropolis on the relative change (so beta does not depend on the objective's unit);
        // an infeasible candidate (infinite cost) is never accepted from a feasible state.
        const double delta = std::isfinite(current_cost) && current_cost > 0.0
                                 ? (cost - current_cost) / current_cost
                                 : (std::isfinite(cost) ? -1.0 : 0.0);
        const double u = sim::uniform_unit(rng);
        if (delta <= 0.0 || u < std::exp(-beta_ * delta)) {
            current = std::move(candidate);
            current_cost = cost;
            ++accepted;
            if (cost < best_cost) {
                best = current;
                best_cost = cost;
            }
        }
    }
    PlacementResult result;
    result.placement.device_of_op = best;
    result.profile_runs = runs;
    result.stats["steps"] = std::to_string(steps);
    result.stats["accepted"] = std::to_string(accepted);
    result.stats["best_cost"] = fmt::format("{:.9g}", best_cost);
    result.summary = fmt::format(
        "{} steps ({} accepted){}, best cost {:.6g}", steps, accepted,
        timed_out ? fmt::format(", stopped at the {} s limit", time_s_) : "", best_cost);
    return result;
}

}  // namespace hetsim::placement::classic
