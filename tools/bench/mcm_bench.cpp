// mcm2022 on BERT-large (configs/studies/mcm_bert.yaml): how many partitions per second each
// part of the search loop handles, issue 13's speed targets next to each:
//   analytic   AnalyticModel::time_per_sample_s               (target >= 5,000 / s)
//   check      AnalyticModel::static_constraints_hold          (the fast Eq. 2-4 check)
//   sampler    PartitionSolver::sample, uniform (Algorithm 1)  (target >= 50 valid / s)
//   des        simulate_partition: H(G, f) + lowering + DES    (target >= 50 / s)
// Reference measured in the same run: one pass over the graph's ops summing their FLOPs (the
// floor of anything that reads every op once), so each line also prints how many such passes
// one partition costs. Run: build/release/mcm_bench [partitions] (default 200).
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/des_check.hpp"
#include "placement/mcm/problem.hpp"
#include "placement/mcm/solver.hpp"
#include "sim/evaluator.hpp"
#include "tools/app/study.hpp"

namespace {

using namespace hetsim;  // a benchmark program, not a header
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    const int count = argc > 1 ? std::atoi(argv[1]) : 200;
    const app::StudyConfig study =
        app::load_study(std::string(HETSIM_SOURCE_DIR) + "/configs/studies/mcm_bert.yaml", {});
    const sim::Graph& graph = *study.graph;
    const placement::mcm::McmProblem problem(graph, study.platform);
    placement::mcm::AnalyticModel analytic(problem);
    fmt::print("mcm_bench: {} ({} ops, {} edges) on {} ({} chips), {} partitions\n",
               study.workload_label, graph.op_count(), problem.edges().size(), study.platform.name,
               problem.chip_count(), count);

    // Reference: passes over the ops.
    double flops = 0.0;
    const int passes = 20000;
    auto t0 = Clock::now();
    for (int pass = 0; pass < passes; ++pass) {
        for (const sim::Op& op : graph.ops())
            flops += op.flops;
    }
    const double pass_s = seconds_since(t0) / passes;
    if (flops < 0)
        fmt::print("impossible\n");

    placement::mcm::PartitionSolver solver(problem);
    std::mt19937_64 rng(1);
    std::vector<std::vector<int>> partitions;
    t0 = Clock::now();
    while (static_cast<int>(partitions.size()) < count) {
        if (auto p = solver.sample({}, rng))
            partitions.push_back(std::move(*p));
    }
    const double sample_s = seconds_since(t0) / count;

    double sink = 0.0;
    const int rounds = 20;
    t0 = Clock::now();
    for (int r = 0; r < rounds; ++r) {
        for (const auto& p : partitions)
            sink += analytic.time_per_sample_s(p);
    }
    const double analytic_s = seconds_since(t0) / (rounds * count);
    t0 = Clock::now();
    int hold = 0;
    for (int r = 0; r < rounds; ++r) {
        for (const auto& p : partitions)
            hold += analytic.static_constraints_hold(p) ? 1 : 0;
    }
    const double check_s = seconds_since(t0) / (rounds * count);

    sim::EvalOptions options;
    options.samples = study.samples;
    auto des = sim::make_evaluator("des", study.platform, options);
    int valid = 0;
    t0 = Clock::now();
    for (const auto& p : partitions)
        valid += placement::mcm::simulate_partition(problem, p, *des).valid() ? 1 : 0;
    const double des_s = seconds_since(t0) / count;

    auto line = [&](const char* what, double s, const char* target) {
        fmt::print("  {:<9} {:>10.1f} partitions/s  ({:>9.1f} us each, {:>7.1f} op passes)  {}\n",
                   what, 1.0 / s, s * 1e6, s / pass_s, target);
    };
    fmt::print("reference: one pass over the ops {:.2f} us\n", pass_s * 1e6);
    line("analytic", analytic_s, "target >= 5000/s");
    line("check", check_s, "");
    line("sampler", sample_s, "target >= 50/s");
    line("des", des_s, "target >= 50/s");
    fmt::print(
        "  sampler: {} failures, {} restarts over {} calls; {} of {} held Eq. 2-4 in the "
        "check loop, {} of {} ran in the DES ({} samples in flight)\n",
        solver.stats().failures, solver.stats().restarts, solver.stats().calls, hold / rounds,
        count, valid, count, study.samples);
    return sink > 0.0 ? 0 : 1;
}
