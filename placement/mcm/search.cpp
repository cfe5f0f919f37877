#include "placement/mcm/search.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>

#include "placement/classic/random.hpp"
#include "placement/mcm/chain_dp.hpp"
#include "placement/mcm/des_check.hpp"

namespace hetsim::placement::mcm {

namespace {

double throughput_of(double time_per_sample_s) {
    return time_per_sample_s > 0.0 && std::isfinite(time_per_sample_s) ? 1.0 / time_per_sample_s
                                                                       : 0.0;
}

}  // namespace

ArgumentSchema& add_reserve_argument(ArgumentSchema& schema) {
    return schema.number("reserve", 0.0, 0.9, "0",
                         "share of each chip's SRAM kept out of the weights' reach (room for "
                         "activations the analytical model does not see)");
}

ArgumentSchema& add_search_arguments(ArgumentSchema& schema, const std::string& default_samples) {
    schema
        .integer("samples", 1, 100'000'000, default_samples,
                 "partitions to sample and evaluate (the search budget of mcm2022 §5.3)")
        .choice("cost", {"analytic", "simulator"}, "analytic",
                "what scores a partition: mcm2022 §5.1's analytical model, or the study's "
                "evaluator after H(G, f) (the DES plays the hardware)")
        .time_limit("time", "", "wall-clock limit in seconds; the best so far is returned")
        .boolean("bound", "1", "report the gap to the relaxed chain DP's bound (mcm.bound)");
    return add_reserve_argument(schema);
}

SearchSettings read_search_settings(const PlacerArguments& arguments) {
    SearchSettings s;
    s.samples = arguments.integer("samples");
    s.cost = arguments.choice("cost") == "simulator" ? CostModel::simulator : CostModel::analytic;
    if (arguments.has("time"))
        s.time_limit_s = arguments.number("time");
    s.report_bound = arguments.boolean("bound");
    s.sram_reserve = arguments.number("reserve");
    return s;
}

std::optional<ChainBound> relaxed_bound(
    const McmProblem& problem, std::optional<std::chrono::steady_clock::time_point> deadline,
    const std::function<void(std::size_t done, std::size_t total)>& progress) {
    // One study asks for the same bound once per placer. Keyed by the instance's content
    // (McmProblem::fingerprint), never by object addresses, which a later instance may reuse.
    static std::mutex mutex;
    static std::map<std::uint64_t, std::optional<ChainBound>> cache;
    const std::uint64_t key = problem.fingerprint();
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end())
        return it->second;
    ChainDpOptions options;
    options.space = ChainSpace::kRelaxed;
    options.deadline = deadline;
    options.on_progress = progress;
    std::optional<ChainBound> bound;
    try {
        const ChainDpResult dp = solve_chain_dp(problem, options);
        if (!dp.stopped) {
            bound = ChainBound{
                dp.feasible ? dp.time_per_sample_s : std::numeric_limits<double>::infinity(),
                dp.chip_of_op, dp.ideals, dp.wall_s};
        }
    } catch (const ChainDpError&) {
        bound = std::nullopt;
    }
    // A DP cut short by a deadline is not cached: a later placer with more time may finish it.
    if (bound)
        cache.emplace(key, bound);
    return bound;
}

Search::Search(const PlacementContext& context, SearchSettings settings)
    : context_(&context),
      settings_(settings),
      problem_(
          std::make_unique<McmProblem>(context.graph, context.platform, settings.sram_reserve)),
      analytic_(std::make_unique<AnalyticModel>(*problem_)),
      start_(std::chrono::steady_clock::now()) {
    if (settings_.time_limit_s) {
        deadline_ = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(*settings_.time_limit_s));
    }
}

bool Search::done() const {
    if (samples() >= settings_.samples)
        return true;
    return deadline_ && std::chrono::steady_clock::now() >= *deadline_;
}

double Search::evaluate(const std::vector<int>& chip_of_op) {
    double time_s = std::numeric_limits<double>::infinity();
    if (settings_.cost == CostModel::analytic) {
        if (analytic_->weights_fit(chip_of_op))
            time_s = analytic_->time_per_sample_s(chip_of_op);
    } else {
        const SimulatedPartition run =
            simulate_partition(*problem_, chip_of_op, context_->evaluator);
        if (run.verdict != DesVerdict::static_constraints &&
            run.verdict != DesVerdict::memory_schedule)
            ++profile_runs_;
        if (run.valid())
            time_s = run.time_per_sample_s;
    }
    const bool valid = std::isfinite(time_s);
    if (valid) {
        ++valid_samples_;
        if (best_.empty() || time_s < best_time_s_) {
            best_ = chip_of_op;
            best_time_s_ = time_s;
        }
    }
    convergence_.push_back({best_.empty() ? 0.0 : throughput_of(best_time_s_), valid});
    report_progress();
    return time_s;
}

void Search::record_failed_sample() {
    convergence_.push_back({best_.empty() ? 0.0 : throughput_of(best_time_s_), false});
    report_progress();
}

std::string Search::best_text() const {
    return best_.empty() ? "" : fmt::format("{:.2f}/s", throughput_of(best_time_s_));
}

void Search::report_progress() const {
    if (!context_->wants_progress())
        return;
    context_->report_progress({static_cast<long>(samples()), static_cast<long>(settings_.samples),
                               "samples", best_text(), time_fraction(start_, deadline_)});
}

std::function<void(std::size_t, std::size_t)> Search::bound_progress() const {
    if (!context_->wants_progress())
        return {};
    return [this](std::size_t done, std::size_t total) {
        context_->report_progress({static_cast<long>(done), static_cast<long>(total),
                                   "ideals (chain DP)", best_text(),
                                   time_fraction(start_, deadline_)});
    };
}

PlacementResult Search::finish(const std::string& placer, const std::vector<int>& fallback) {
    PlacementResult result;
    const std::vector<int>& chosen = best_.empty() ? fallback : best_;
    if (chosen.empty()) {
        throw PlacementError(fmt::format(
            "placer '{}' found no valid partition of '{}' on platform '{}' in {} sample(s)", placer,
            problem_->graph().name(), problem_->platform().name, samples()));
    }
    result.placement = problem_->to_placement(chosen);
    result.profile_runs = profile_runs_;

    const AnalyticResult analytic = analytic_->evaluate(chosen);
    result.stats["samples"] = std::to_string(samples());
    result.stats["valid_samples"] = std::to_string(valid_samples_);
    result.stats["cost"] = settings_.cost == CostModel::analytic ? "analytic" : "simulator";
    result.stats["analytic_throughput_per_s"] = fmt::format("{:.6g}", analytic.throughput_per_s);
    result.stats["analytic_valid"] = analytic.valid ? "1" : "0";
    result.stats["chips_used"] = std::to_string(analytic.chips_used);
    result.stats["bottleneck_chip"] = std::to_string(analytic.bottleneck_chip);
    if (!best_.empty())
        result.stats["best_cost_throughput_per_s"] =
            fmt::format("{:.6g}", throughput_of(best_time_s_));

    std::string bound_text;
    if (settings_.report_bound) {
        if (const auto bound = relaxed_bound(*problem_, deadline_, bound_progress())) {
            const double bound_tp = throughput_of(bound->time_per_sample_s);
            double gap = bound_tp > 0.0 ? 1.0 - analytic.throughput_per_s / bound_tp : 0.0;
            if (std::abs(gap) < 1e-9)
                gap = 0.0;  // at the bound: no "-0.0 %" from rounding
            result.stats["bound_throughput_per_s"] = fmt::format("{:.6g}", bound_tp);
            result.stats["gap_to_bound"] = fmt::format("{:.6f}", gap);
            bound_text = fmt::format(", bound {:.2f}/s, gap {:.1f} %", bound_tp, 100.0 * gap);
        } else {
            bound_text = ", bound not computed (DP refused or out of time)";
        }
    }
    result.summary = fmt::format(
        "{} sample(s), {} valid ({} cost), {} chips, analytical {:.2f}/s{}{}", samples(),
        valid_samples_, result.stats["cost"], analytic.chips_used, analytic.throughput_per_s,
        bound_text,
        analytic.valid ? "" : fmt::format(" — analytically invalid: {}", analytic.reason));

    std::string csv = "sample,throughput_per_s,valid\n";
    for (std::size_t i = 0; i < convergence_.size(); ++i) {
        csv += fmt::format("{},{:.9g},{}\n", i + 1, convergence_[i].best_throughput_per_s,
                           convergence_[i].valid ? 1 : 0);
    }
    result.tables["convergence"] = std::move(csv);
    return result;
}

std::vector<int> random_order(int n, std::mt19937_64& rng) {
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        order[static_cast<std::size_t>(i)] = i;
    for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[uniform_index(rng, i)]);
    return order;
}

}  // namespace hetsim::placement::mcm
