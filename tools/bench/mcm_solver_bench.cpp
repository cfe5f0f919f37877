// mcm2022 §4.2's constraint solver on BERT-large (24 layers, hidden 1024, 16 heads, FFN 4096,
// seq 128) and the 36-chip ring of configs/platforms/mcm36.yaml: valid partitions per second
// for SAMPLE with a uniform p (§5.1 "Random": p = 1/C, a fresh random node order per attempt)
// and FIX (Algorithm 2) from uniformly random candidates and from slightly perturbed valid
// partitions (what a trained policy emits), with failures (backtracks) and restarts.
//
// Same-run references, on the very partitions the solver returned: one
// AnalyticModel::time_per_sample_s (the §5.1 cost model a search loop calls per sample) and one
// check_static_constraints (the reference checker with messages). The ratios say how many cost
// evaluations one solver call is worth. Every partition is checked with the reference checker
// (and AnalyticModel::weights_fit when the capacity is on) outside the timed region.
//
// The BERT generator's `host_mask=1` knob (the attention mask a graph input read by every
// layer) is used when the generator has it: with one mask op chain feeding all 24 layers, Eq. 4
// forbids nearly every cut (a tensor read on two later chips is a triangle).
//
// Run: build/release/mcm_solver_bench [seconds per mode, default 5] [--no-capacity]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/constraints.hpp"
#include "placement/mcm/problem.hpp"
#include "placement/mcm/solver.hpp"
#include "sim/platform.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tools/app/registration.hpp"

namespace {

using namespace hetsim;                  // a benchmark program, not a header
using namespace hetsim::placement::mcm;  // idem
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// CPU seconds of this thread: the machine is shared, so rates are also given per CPU second.
double thread_cpu_s() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

bool has_knob(const std::string& model, const std::string& knob) {
    for (const auto& info : sim::workloads::list_models()) {
        if (info.name != model)
            continue;
        for (const auto& k : info.knobs) {
            if (k.name == knob)
                return true;
        }
    }
    return false;
}

struct Run {
    std::string name;
    int partitions = 0;
    int invalid = 0;
    int nullopts = 0;
    double seconds = 0.0;
    double cpu_seconds = 0.0;
    SolverStats stats;
    double mean_chips = 0.0;
    int max_chips = 0;
    std::vector<std::vector<int>> kept;  // for the references
};

template <class Call>
Run measure(const std::string& name, const McmProblem& problem, const SolverOptions& options,
            double budget_s, bool check_weights, Call&& call) {
    Run run;
    run.name = name;
    PartitionSolver solver(problem, options);
    AnalyticModel model(problem);
    std::mt19937_64 rng(2022);
    double chips_sum = 0.0;
    const auto started = Clock::now();
    while (since(started) < budget_s) {
        const auto t0 = Clock::now();
        const double c0 = thread_cpu_s();
        const std::optional<std::vector<int>> f = call(solver, rng);
        run.cpu_seconds += thread_cpu_s() - c0;
        run.seconds += since(t0);
        if (!f) {
            ++run.nullopts;
            continue;
        }
        ++run.partitions;
        const bool ok =
            check_static_constraints(problem.graph(), *f, problem.chip_count()).empty() &&
            (!check_weights || model.weights_fit(*f));
        run.invalid += ok ? 0 : 1;
        const int used = *std::max_element(f->begin(), f->end()) + 1;
        chips_sum += used;
        run.max_chips = std::max(run.max_chips, used);
        if (run.kept.size() < 200)
            run.kept.push_back(*f);
    }
    run.stats = solver.stats();
    run.mean_chips = run.partitions > 0 ? chips_sum / run.partitions : 0.0;
    return run;
}

}  // namespace

int main(int argc, char** argv) {
    double budget_s = 5.0;
    bool capacity = true;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--no-capacity") == 0)
            capacity = false;
        else
            budget_s = std::atof(argv[i]);
    }
    app::register_all();
    const sim::Platform platform =
        sim::load_platform(std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/mcm36.yaml");
    sim::workloads::Knobs knobs{
        {"layers", 24}, {"hidden", 1024}, {"heads", 16}, {"ffn", 4096}, {"seq_len", 128}};
    const bool host_mask = has_knob("bert", "host_mask");
    if (host_mask)
        knobs["host_mask"] = 1;
    const sim::Graph graph = sim::workloads::build_model("bert", knobs);
    const McmProblem problem(graph, platform);

    std::int64_t weight_bytes = 0;
    for (const WeightUse& w : problem.weights())
        weight_bytes += w.bytes;
    std::int64_t sram = 0;
    for (std::int64_t c : problem.capacity_bytes())
        sram += c;
    fmt::print(
        "BERT-large seq 128{}: {} ops, {} edges; mcm36: {} chips, {:.0f} MiB of weights in "
        "the chips' dtype, {:.0f} MiB of SRAM in all\n",
        host_mask ? " (host_mask=1)" : " (no host_mask knob: one mask chain)", problem.op_count(),
        problem.edges().size(), problem.chip_count(), weight_bytes / 1048576.0, sram / 1048576.0);

    SolverOptions options;
    options.weight_capacity = capacity;
    {
        PartitionSolver probe(problem, options);
        std::mt19937_64 rng(1);
        if (capacity && !probe.sample({}, rng)) {
            fmt::print("no partition fits the SRAM (weights > capacity): weight capacity off\n");
            options.weight_capacity = false;
        }
    }
    fmt::print("weight capacity {}, fail_limit {}, max_attempts {}, {:.1f} s per mode\n\n",
               options.weight_capacity ? "on" : "off", options.fail_limit, options.max_attempts,
               budget_s);

    const int ops = problem.op_count();
    const int chips = problem.chip_count();
    std::vector<Run> runs;
    runs.push_back(
        measure("SAMPLE uniform p", problem, options, budget_s, options.weight_capacity,
                [&](PartitionSolver& s, std::mt19937_64& rng) { return s.sample({}, rng); }));
    runs.push_back(measure("FIX, random candidate", problem, options, budget_s,
                           options.weight_capacity, [&](PartitionSolver& s, std::mt19937_64& rng) {
                               std::vector<int> y(static_cast<std::size_t>(ops));
                               for (int& c : y)
                                   c = static_cast<int>(rng() % static_cast<unsigned>(chips));
                               return s.fix(y, rng);
                           }));
    // A valid partition with 5 % of its ops moved to a random chip.
    const std::vector<std::vector<int>> bases = runs.front().kept;
    std::size_t next_base = 0;
    if (!bases.empty()) {
        runs.push_back(measure("FIX, 5 % perturbed valid", problem, options, budget_s,
                               options.weight_capacity,
                               [&](PartitionSolver& s, std::mt19937_64& rng) {
                                   std::vector<int> y = bases[next_base++ % bases.size()];
                                   for (int k = 0; k < ops / 20; ++k)
                                       y[rng() % static_cast<unsigned>(ops)] =
                                           static_cast<int>(rng() % static_cast<unsigned>(chips));
                                   return s.fix(y, rng);
                               }));
    }

    // References on the partitions the solver produced.
    std::vector<std::vector<int>> all;
    for (const Run& r : runs)
        all.insert(all.end(), r.kept.begin(), r.kept.end());
    double analytic_s = 0.0, checker_s = 0.0;
    if (!all.empty()) {
        AnalyticModel model(problem);
        double sink = 0.0;
        const int reps = 20;
        double c0 = thread_cpu_s();
        for (int rep = 0; rep < reps; ++rep) {
            for (const auto& f : all)
                sink += model.time_per_sample_s(f);
        }
        analytic_s = (thread_cpu_s() - c0) / (reps * static_cast<double>(all.size()));
        c0 = thread_cpu_s();
        std::size_t violations = 0;
        for (const auto& f : all)
            violations += check_static_constraints(graph, f, chips).size();
        checker_s = (thread_cpu_s() - c0) / static_cast<double>(all.size());
        if (sink < 0.0 || violations > 0)
            fmt::print("(unexpected: {} violations)\n", violations);
    }

    fmt::print("{:<26} {:>8} {:>8} {:>9} {:>9} {:>9} {:>8} {:>8} {:>11} {:>10}\n", "mode",
               "valid/s", "/cpu-s", "cpu-ms", "failures", "restarts", "nullopt", "chips",
               "x analytic", "x checker");
    for (const Run& r : runs) {
        const double per = r.partitions > 0 ? r.cpu_seconds / r.partitions : 0.0;
        fmt::print(
            "{:<26} {:>8.1f} {:>8.1f} {:>9.2f} {:>9} {:>9} {:>8} {:>4.1f}/{:<3} {:>11.0f} "
            "{:>10.1f}\n",
            r.name, r.partitions / r.seconds, r.partitions / r.cpu_seconds, per * 1e3,
            r.stats.failures, r.stats.restarts, r.nullopts, r.mean_chips, r.max_chips,
            analytic_s > 0 ? per / analytic_s : 0.0, checker_s > 0 ? per / checker_s : 0.0);
        if (r.invalid > 0)
            fmt::print("  ERROR: {} of {} partitions failed the independent check\n", r.invalid,
                       r.partitions);
    }
    fmt::print(
        "\nvalid/s: per wall second, /cpu-s: per CPU second of the calls, cpu-ms: CPU per valid "
        "partition; failures = propagation failures (backtracks) over all calls; restarts = "
        "attempts abandoned at their failure limit; chips = mean/max chips used.\nreferences on "
        "{} of the returned partitions (CPU time): AnalyticModel::time_per_sample_s {:.2f} us, "
        "check_static_constraints {:.1f} us per partition; 'x analytic' = CPU of one solver call "
        "in cost evaluations.\n",
        all.size(), analytic_s * 1e6, checker_s * 1e6);
    bool bad = false;
    for (const Run& r : runs)
        bad = bad || r.invalid > 0;
    return bad ? 1 : 0;
}
