#include "placement/classic/exhaustive.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

namespace hetsim::placement {

std::string SearchSpace::describe() const {
    std::map<std::size_t, int> ops_with;  // choice count -> ops having it
    for (std::size_t c : choices) {
        if (c > 1)
            ++ops_with[c];
    }
    if (ops_with.empty())
        return "1";
    std::vector<std::string> factors;
    for (const auto& [count, ops] : ops_with)
        factors.push_back(fmt::format("{}^{}", count, ops));
    const std::string product = fmt::format("{}", fmt::join(factors, " · "));
    if (!overflow && size < 1000000000000ULL)
        return fmt::format("{} = {}", product, size);
    // Scientific notation from the logarithm: the product itself may not fit any integer.
    const double exponent = std::floor(log10_size);
    double mantissa = std::pow(10.0, log10_size - exponent);
    return fmt::format("{} ≈ {:.1f}e{}", product, mantissa, static_cast<long long>(exponent));
}

SearchSpace search_space(const sim::Graph& graph, const sim::Platform& platform) {
    SearchSpace space;
    space.choices.reserve(static_cast<std::size_t>(graph.op_count()));
    for (int op_id = 0; op_id < graph.op_count(); ++op_id) {
        // capable_devices() throws for an op no device can run: there is nothing to search.
        const std::size_t c = capable_devices(graph, platform, op_id).size();
        space.choices.push_back(c);
        space.log10_size += std::log10(static_cast<double>(c));
        if (!space.overflow && space.size > std::numeric_limits<std::uint64_t>::max() / c) {
            space.overflow = true;
        }
        if (!space.overflow)
            space.size *= c;
    }
    return space;
}

ExhaustivePlacer::ExhaustivePlacer(const std::string& arguments) {
    if (arguments.empty())
        return;
    const std::optional<std::uint64_t> value = parse_positive_integer(arguments);
    if (!value) {
        throw PlacementError(fmt::format(
            "placer 'exhaustive:{}': the argument must be a positive integer limit on the "
            "number of placements to evaluate: exhaustive:<max_placements> (default {})",
            arguments, kDefaultMaxPlacements));
    }
    max_placements_ = *value;
    explicit_limit_ = true;
}

PlacerInfo ExhaustivePlacer::info() {
    return PlacerInfo{
        "exhaustive", "exhaustive[:<max_placements>]",
        fmt::format("the exact optimum: evaluates every assignment of ops to capable devices; "
                    "refuses graphs with more than <max_placements> (default {}) placements",
                    kDefaultMaxPlacements),
        [](const std::string& arguments) { return std::make_unique<ExhaustivePlacer>(arguments); }};
}

std::string ExhaustivePlacer::name() const {
    return explicit_limit_ ? fmt::format("exhaustive:{}", max_placements_) : "exhaustive";
}

PlacementResult ExhaustivePlacer::place(const PlacementContext& context) {
    const SearchSpace space = search_space(context.graph, context.platform);
    if (space.overflow || space.size > max_placements_) {
        throw PlacementError(fmt::format(
            "placer '{}': graph '{}' has {} possible placements ({} ops on {} devices), more "
            "than the limit of {}; raise the limit with 'exhaustive:<max_placements>' if "
            "evaluating them all is affordable, or use a heuristic placer",
            name(), context.graph.name(), space.describe(), context.graph.op_count(),
            context.platform.device_count(), max_placements_));
    }

    // Mixed-radix counter over the ops that have a choice; the lowest op id is the fastest
    // digit. Every op starts on its first capable device (platform order).
    const int op_count = context.graph.op_count();
    std::vector<std::vector<int>> capable(static_cast<std::size_t>(op_count));
    std::vector<int> free_ops;  // ops with more than one capable device
    sim::Placement candidate;
    candidate.device_of_op.resize(static_cast<std::size_t>(op_count));
    for (int op_id = 0; op_id < op_count; ++op_id) {
        const auto index = static_cast<std::size_t>(op_id);
        capable[index] = capable_devices(context.graph, context.platform, op_id);
        candidate.device_of_op[index] = capable[index].front();
        if (capable[index].size() > 1)
            free_ops.push_back(op_id);
    }
    std::vector<std::size_t> digit(free_ops.size(), 0);

    PlacementResult result;
    double best_cost = std::numeric_limits<double>::infinity();
    bool have_best = false;
    std::uint64_t infeasible = 0;
    std::string first_infeasible;
    while (true) {
        try {
            const sim::Metrics metrics = evaluate_placement(context, candidate);
            ++result.profile_runs;
            double cost = objective_cost(context.objective, metrics);
            if (std::isnan(cost))
                cost = std::numeric_limits<double>::infinity();
            // Strictly better only, so ties keep the first placement found (deterministic).
            if (!have_best || cost < best_cost) {
                best_cost = cost;
                result.placement = candidate;
                have_best = true;
            }
        } catch (const sim::LoweringError& error) {
            // An assignment the platform cannot execute (e.g. no link between two
            // components) is not a placement; it is skipped and counted, never chosen.
            if (infeasible++ == 0)
                first_infeasible = error.what();
        }
        if (context.wants_progress()) {
            context.report_progress(
                {static_cast<long>(result.profile_runs + static_cast<long>(infeasible)),
                 static_cast<long>(space.size), "placements",
                 have_best ? cost_text(context.objective, best_cost) : "", 0.0});
        }
        std::size_t position = 0;
        for (; position < free_ops.size(); ++position) {
            const auto op = static_cast<std::size_t>(free_ops[position]);
            if (++digit[position] < capable[op].size()) {
                candidate.device_of_op[op] = capable[op][digit[position]];
                break;
            }
            digit[position] = 0;
            candidate.device_of_op[op] = capable[op].front();
        }
        if (position == free_ops.size())
            break;  // the counter wrapped: all enumerated
    }
    if (!have_best) {
        throw PlacementError(fmt::format(
            "placer '{}': none of the {} placements of graph '{}' can be executed on platform "
            "'{}'; the first failed with: {}",
            name(), space.size, context.graph.name(), context.platform.name, first_infeasible));
    }
    result.stats["search_space"] = std::to_string(space.size);
    result.stats["search_space_factors"] = space.describe();
    result.stats["infeasible"] = std::to_string(infeasible);
    result.stats["best_cost"] = fmt::format("{:.6g}", best_cost);
    return result;
}

}  // namespace hetsim::placement
