// tarnawski2020 max-load DP (§5.1.1 + Appendix B) wall time per shared workload, against the
// published single-threaded C++ DP (about 0.43 s, 1.6 s and 2.6 s on BERT-3 inference, BERT-6
// inference and BERT-3 training on a 2-core machine; Table 1 rounds them to 1 s / 5 s / 8 s
// on the paper's Xeon), plus a strongly branching synthetic graph. Each benchmark includes
// preprocessing, ideal enumeration, the DP and the reconstruction of the split. Prints a
// summary with TPS vs Table 1 and the speed ratio at the end.
// Run: build-tar/tarnawski_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "placement/tarnawski/max_load_dp.hpp"

namespace {

using namespace hetsim::placement::tarnawski;  // a benchmark program, not a header

struct Case {
    const char* file;
    double table1_tps;
    double published_seconds;  // the published DP's runtime; 0 when not stated
};

const Case kCases[] = {
    {"op_bert_l-3_inference.json", 27.92, 0.43},   {"op_bert_l-6_inference.json", 29.58, 1.6},
    {"op_resnet50_inference.json", 124.35, 0.0},   {"op_bert_l-3_training.json", 65.30, 2.6},
    {"layer_bert24_inference.json", 17.79, 0.0},   {"layer_bert24_training.json", 41.75, 0.0},
    {"layer_resnet50_inference.json", 33.77, 0.0}, {"layer_resnet50_training.json", 78.63, 0.0},
};

std::filesystem::path workload_dir() {
    return std::filesystem::path(HETSIM_SOURCE_DIR) / ".." / "shared" / "workloads" /
           "tarnawski2020" / "throughput";
}

void BM_TarnawskiDp(benchmark::State& state, const Case& c) {
    const auto path = workload_dir() / c.file;
    if (!std::filesystem::exists(path)) {
        state.SkipWithError(fmt::format("missing {}", path.string()).c_str());
        return;
    }
    const Workload w = read_workload(path);
    DpResult r;
    for (auto _ : state) {
        r = solve_max_load(w);
        benchmark::DoNotOptimize(r.objective);
    }
    state.counters["tps"] = r.objective;
    state.counters["ideals"] = static_cast<double>(r.stats.ideals);
    state.counters["pairs"] = static_cast<double>(r.stats.pairs);
}

void BM_TarnawskiDpBranching(benchmark::State& state) {
    const Workload w =
        make_branching_workload(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                4, 1, state.range(2) != 0, 6, 1);
    DpResult r;
    for (auto _ : state) {
        r = solve_max_load(w);
        benchmark::DoNotOptimize(r.objective);
    }
    state.counters["ideals"] = static_cast<double>(r.stats.ideals);
    state.counters["pairs"] = static_cast<double>(r.stats.pairs);
}

void register_all() {
    for (const Case& c : kCases) {
        std::string name = c.file;
        name = "BM_TarnawskiDp/" + name.substr(0, name.find('.'));
        benchmark::RegisterBenchmark(name.c_str(), BM_TarnawskiDp, c)
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.5);
    }
    // blocks x width chains of 4: 4·5^4 = 2,502 and 2·5^5 = 6,252 ideals.
    benchmark::RegisterBenchmark("BM_TarnawskiDpBranching", BM_TarnawskiDpBranching)
        ->Args({4, 4, 0})
        ->Args({2, 5, 0})
        ->Args({4, 4, 1})
        ->Unit(benchmark::kMillisecond);
}

// Median of a few timed runs, for the summary.
double median_seconds(const Workload& w, int runs, DpResult& last) {
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        last = solve_max_load(w);
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void print_summary() {
    fmt::print("\ntarnawski2020 DP vs Table 1 and the published DP runtime\n");
    fmt::print("{:<32} {:>7} {:>10} {:>8} {:>7} {:>10} {:>10} {:>8}\n", "workload", "ideals", "TPS",
               "Table 1", "match", "ours [s]", "paper [s]", "speedup");
    for (const Case& c : kCases) {
        const auto path = workload_dir() / c.file;
        if (!std::filesystem::exists(path)) {
            fmt::print("{:<32} (missing)\n", c.file);
            continue;
        }
        const Workload w = read_workload(path);
        DpResult r;
        const double s = median_seconds(w, 7, r);
        const bool match = std::fabs(r.objective * 100.0 - c.table1_tps * 100.0) < 0.5;
        fmt::print("{:<32} {:>7} {:>10.4f} {:>8.2f} {:>7} {:>10.4f} {:>10} {:>8}\n", c.file,
                   r.stats.ideals, r.objective, c.table1_tps, match ? "yes" : "NO", s,
                   c.published_seconds > 0 ? fmt::format("{:.2f}", c.published_seconds) : "-",
                   c.published_seconds > 0 ? fmt::format("{:.1f}x", c.published_seconds / s) : "-");
    }
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    print_summary();
    return 0;
}
