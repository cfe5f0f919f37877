// What the mcm2022 placers share (mcm.greedy, mcm.random, mcm.sa, mcm.bound, mcm.optimal):
// the instance, the cost of a partition, the best one so far with the convergence log, the
// sample and time budgets, and the relaxed chain DP's bound that every result is reported
// against (chain_dp.hpp).
//
// Cost of a partition (`cost=` argument):
//   analytic  — mcm2022 §5.1's model (analytic.hpp), µs per partition: the paper's pre-training
//               reward and the default here;
//   simulator — the study's evaluator through simulate_partition (des_check.hpp): H(G, f), the
//               DES with samples in flight; the paper's "real hardware" reward (§5.3).
// A partition the cost model refuses (memory) counts as a sample with no throughput, as
// §5.1's "evaluation platform returns a zero throughput when it evaluates an invalid
// partition".
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/problem.hpp"
#include "placement/placer.hpp"
#include "placement/placer_args.hpp"

namespace hetsim::placement::mcm {

enum class CostModel { analytic, simulator };

// The arguments every searching mcm placer takes: samples=N, cost=analytic|simulator,
// time=S (seconds, optional), bound=0|1 (report the gap to the relaxed DP's bound),
// reserve=R (McmProblem's SRAM reserve).
ArgumentSchema& add_search_arguments(ArgumentSchema& schema, const std::string& default_samples);

struct SearchSettings {
    std::int64_t samples = 1000;
    CostModel cost = CostModel::analytic;
    std::optional<double> time_limit_s;
    bool report_bound = true;
    double sram_reserve = 0.0;
};
// The reserve=R argument alone, for placers that take no budget (mcm.bound, mcm.optimal).
ArgumentSchema& add_reserve_argument(ArgumentSchema& schema);
SearchSettings read_search_settings(const PlacerArguments& arguments);

// The relaxed chain DP's bound on the analytical time per sample (chain_dp.hpp, kRelaxed),
// computed once per (graph, platform) in a process and reused by every placer of a study.
// nullopt when the DP is refused (too many ideals) or runs past `deadline`.
struct ChainBound {
    double time_per_sample_s = 0.0;
    std::vector<int> chip_of_op;  // a chain attaining it (may break Eq. 4)
    std::size_t ideals = 0;
    double wall_s = 0.0;  // of the DP that computed it (a cached bound keeps the first's)
};
// `progress` (may be empty) hears the full DP's ideals walked, when it runs (chain_dp.hpp).
std::optional<ChainBound> relaxed_bound(
    const McmProblem& problem,
    std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt,
    const std::function<void(std::size_t done, std::size_t total)>& progress = {});

class Search {
public:
    Search(const PlacementContext& context, SearchSettings settings);

    const McmProblem& problem() const { return *problem_; }
    AnalyticModel& analytic() { return *analytic_; }
    const SearchSettings& settings() const { return settings_; }
    // The time limit's deadline (none without `time=`).
    std::optional<std::chrono::steady_clock::time_point> deadline() const { return deadline_; }
    // True once the sample budget is spent or the deadline has passed.
    bool done() const;

    // Costs one partition that satisfies Eq. 2-4 and logs it as the next sample: its time per
    // sample in the cost model, +inf when the cost model refuses it.
    double evaluate(const std::vector<int>& chip_of_op);
    // Logs a sample the solver could not produce (no partition within its limits).
    void record_failed_sample();

    int samples() const { return static_cast<int>(convergence_.size()); }
    int valid_samples() const { return valid_samples_; }
    bool has_best() const { return !best_.empty(); }
    const std::vector<int>& best() const { return best_; }
    double best_time_s() const { return best_time_s_; }

    // The result: the best partition as a placement (or `fallback` when no sample was valid),
    // stats, the convergence table (header `sample,throughput_per_s,valid`: best-so-far
    // throughput in the cost model after each sample, and whether that sample was valid) and
    // the summary line with the analytical throughput and the gap to the bound.
    PlacementResult finish(const std::string& placer, const std::vector<int>& fallback = {});

    // A progress sink for a chain DP (the bound's, the adjacent-cut one) that reports its ideals,
    // with this search's best so far, to the context; empty when nobody listens.
    std::function<void(std::size_t, std::size_t)> bound_progress() const;

private:
    void report_progress() const;   // samples and the best throughput so far, to the context
    std::string best_text() const;  // "413.20/s", "" before a valid sample
    const PlacementContext* context_;
    SearchSettings settings_;
    std::unique_ptr<McmProblem> problem_;
    std::unique_ptr<AnalyticModel> analytic_;
    std::optional<std::chrono::steady_clock::time_point> deadline_;
    std::chrono::steady_clock::time_point start_;
    struct Row {
        double best_throughput_per_s;
        bool valid;
    };
    std::vector<Row> convergence_;
    int valid_samples_ = 0;
    std::vector<int> best_;
    double best_time_s_ = 0.0;
    int profile_runs_ = 0;
};

// A uniformly random permutation of 0..n-1 (Fisher-Yates with uniform_index, so the same seed
// gives the same order on every standard library).
std::vector<int> random_order(int n, std::mt19937_64& rng);

}  // namespace hetsim::placement::mcm
