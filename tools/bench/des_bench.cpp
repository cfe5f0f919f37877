// DES speed: wall time per simulated task of BERT-base (12 layers, hidden 768, seq 128) on
// the Zynq + Silent-PIM platform, against a raw SystemC event ping-pong measured in the same
// run (the floor any SystemC model pays per event), plus AnalyticEvaluator time per call. The
// same placement with a schedule (each resource's order and planned starts, taken from the
// unscheduled run) measures what following an order costs (issue 24: at most 1.1x per task).
// Prints the ratios at the end, then again from 15 interleaved rounds (median and range: the
// numbers to quote on a noisy machine). Run: build/release/des_bench [--interleaved_rounds=N]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <systemc>

#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "placement/placer.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tools/app/registration.hpp"

namespace {

using namespace hetsim;  // a benchmark program, not a header

// Two SC_METHODs notifying each other 1 ns apart: one timed event + one process activation
// per hop, the cheapest thing a SystemC model can do per simulated step.
class PingPong : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(PingPong);
    explicit PingPong(sc_core::sc_module_name name) : sc_module(name) {
        SC_METHOD(ping);
        sensitive << ping_event_;
        dont_initialize();
        SC_METHOD(pong);
        sensitive << pong_event_;
        dont_initialize();
    }
    void run(std::int64_t hops) {
        remaining_ = hops;
        ping_event_.notify(sc_core::SC_ZERO_TIME);
        sc_core::sc_start();
    }

private:
    void ping() {
        if (--remaining_ > 0)
            pong_event_.notify(1, sc_core::SC_NS);
    }
    void pong() {
        if (--remaining_ > 0)
            ping_event_.notify(1, sc_core::SC_NS);
    }
    sc_core::sc_event ping_event_, pong_event_;
    std::int64_t remaining_ = 0;
};

struct Fixture {
    sim::Platform platform;
    sim::Graph graph;
    sim::ExecGraph exec;
    sim::ExecGraph scheduled;  // the same placement with each resource's order
    PingPong* ping_pong = nullptr;
    std::unique_ptr<sim::DesEvaluator> des;
};

Fixture* g_fixture = nullptr;
double g_event_s = 0.0, g_des_task_s = 0.0, g_analytic_task_s = 0.0, g_scheduled_task_s = 0.0;

void BM_SystemCEventPingPong(benchmark::State& state) {
    const std::int64_t hops = 100000;
    for (auto _ : state)
        g_fixture->ping_pong->run(hops);
    state.SetItemsProcessed(state.iterations() * hops);
}

void BM_DesBertBase(benchmark::State& state) {
    const auto tasks = static_cast<std::int64_t>(g_fixture->exec.tasks.size());
    for (auto _ : state)
        benchmark::DoNotOptimize(g_fixture->des->evaluate(g_fixture->exec));
    state.SetItemsProcessed(state.iterations() * tasks);
    state.counters["tasks"] = static_cast<double>(tasks);
}

void BM_DesBertBaseScheduled(benchmark::State& state) {
    const auto tasks = static_cast<std::int64_t>(g_fixture->scheduled.tasks.size());
    for (auto _ : state)
        benchmark::DoNotOptimize(g_fixture->des->evaluate(g_fixture->scheduled));
    state.SetItemsProcessed(state.iterations() * tasks);
}

void BM_AnalyticBertBase(benchmark::State& state) {
    sim::AnalyticEvaluator analytic(sim::EvalOptions{1});
    const auto tasks = static_cast<std::int64_t>(g_fixture->exec.tasks.size());
    for (auto _ : state)
        benchmark::DoNotOptimize(analytic.evaluate(g_fixture->exec));
    state.SetItemsProcessed(state.iterations() * tasks);
}

// The ratios again, measured in interleaved rounds: each round times the ping-pong, the DES and
// the analytic evaluator back to back (about 0.1 s each), so that a change of the machine's
// speed between Google Benchmark's separate runs (another process, frequency) cancels in each
// round's ratios. Prints the median and the range over the rounds.
void interleaved_rounds(int rounds) {
    using Clock = std::chrono::steady_clock;
    auto seconds_per_item = [](auto&& body, std::int64_t items_per_call) {
        const auto t0 = Clock::now();
        std::int64_t items = 0;
        do {
            body();
            items += items_per_call;
        } while (Clock::now() - t0 < std::chrono::milliseconds(100));
        return std::chrono::duration<double>(Clock::now() - t0).count() /
               static_cast<double>(items);
    };
    const auto tasks = static_cast<std::int64_t>(g_fixture->exec.tasks.size());
    sim::AnalyticEvaluator analytic(sim::EvalOptions{1});
    std::vector<double> des_over_event, des_over_analytic;
    for (int r = 0; r < rounds; ++r) {
        const double event_s = seconds_per_item([] { g_fixture->ping_pong->run(20000); }, 20000);
        const double des_s = seconds_per_item(
            [] { benchmark::DoNotOptimize(g_fixture->des->evaluate(g_fixture->exec)); }, tasks);
        const double analytic_s = seconds_per_item(
            [&] { benchmark::DoNotOptimize(analytic.evaluate(g_fixture->exec)); }, tasks);
        des_over_event.push_back(des_s / event_s);
        des_over_analytic.push_back(des_s / analytic_s);
    }
    auto summary = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return fmt::format("median {:.2f}x (range {:.2f}-{:.2f})", v[v.size() / 2], v.front(),
                           v.back());
    };
    fmt::print("interleaved, {} rounds: DES per task / raw SystemC event: {}\n", rounds,
               summary(des_over_event));
    fmt::print("interleaved, {} rounds: DES / AnalyticEvaluator:          {}\n", rounds,
               summary(des_over_analytic));
}

// Collects seconds per item of each benchmark for the summary.
class SummaryReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const auto& run : runs) {
            auto it = run.counters.find("items_per_second");
            if (it == run.counters.end() || it->second.value <= 0)
                continue;
            const double per_item_s = 1.0 / it->second.value;
            const std::string name = run.benchmark_name();
            if (name.find("PingPong") != std::string::npos)
                g_event_s = per_item_s;
            if (name.find("DesBertBaseScheduled") != std::string::npos)
                g_scheduled_task_s = per_item_s;
            else if (name.find("DesBertBase") != std::string::npos)
                g_des_task_s = per_item_s;
            if (name.find("AnalyticBertBase") != std::string::npos)
                g_analytic_task_s = per_item_s;
        }
    }
};

}  // namespace

BENCHMARK(BM_SystemCEventPingPong)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DesBertBase)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DesBertBaseScheduled)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AnalyticBertBase)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    // --interleaved_rounds=N (default 15; 0 skips them, e.g. under a profiler).
    int rounds = 15;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.starts_with("--interleaved_rounds=")) {
            rounds = std::stoi(std::string(arg.substr(arg.find('=') + 1)));
            std::copy(argv + i + 1, argv + argc + 1, argv + i);  // argv[argc] is null
            --argc;
            --i;
        }
    }
    app::register_all();
    Fixture fixture;
    const std::string platform_file =
        std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/zynq_silentpim.yaml";
    fixture.platform = sim::load_platform(platform_file);
    fixture.platform.dispatch = sim::DispatchMode::dataflow;  // exercise queues and links
    fixture.graph = sim::workloads::build_model(
        "bert", {{"layers", 12}, {"hidden", 768}, {"heads", 12}, {"ffn", 3072}, {"seq_len", 128}});
    // Both elaborate before the first sc_start (SystemC elaborates once per process).
    fixture.ping_pong = new PingPong("ping_pong");
    fixture.des = std::make_unique<sim::DesEvaluator>(fixture.platform, sim::EvalOptions{1});
    sim::AnalyticEvaluator analytic(sim::EvalOptions{1});
    auto placer = placement::PlacerRegistry::instance().create("priority:PIM,CPU_P,CPU_S");
    placement::PlacementContext context{fixture.graph, fixture.platform, analytic,
                                        placement::Objective::latency, 1};
    sim::Placement placement = placer->place(context).placement;
    fixture.exec = sim::lower(fixture.graph, placement, fixture.platform);
    // The schedule the unscheduled run followed: each resource's ops by simulated start.
    const sim::Metrics run = fixture.des->evaluate(fixture.exec);
    std::vector<double> start(static_cast<std::size_t>(fixture.graph.op_count()));
    std::vector<double> finish(start.size());
    for (const sim::Task& task : fixture.exec.tasks) {
        if (task.kind != sim::TaskKind::compute)
            continue;
        const sim::TaskTiming& t = run.task_timings[static_cast<std::size_t>(task.order)];
        start[static_cast<std::size_t>(task.op)] = static_cast<double>(t.start_ps) * 1e-12;
        finish[static_cast<std::size_t>(task.op)] = static_cast<double>(t.finish_ps) * 1e-12;
    }
    std::vector<int> by_start(start.size());
    for (std::size_t i = 0; i < by_start.size(); ++i)
        by_start[i] = static_cast<int>(i);
    std::stable_sort(by_start.begin(), by_start.end(), [&](int a, int b) {
        return start[static_cast<std::size_t>(a)] < start[static_cast<std::size_t>(b)];
    });
    placement.schedule.order.assign(fixture.platform.resources().size(), {});
    for (int op : by_start) {
        const int device = placement.device_of_op[static_cast<std::size_t>(op)];
        placement.schedule.order[static_cast<std::size_t>(fixture.platform.device(device).resource)]
            .push_back(op);
    }
    placement.schedule.planned_start_s = start;
    placement.schedule.planned_finish_s = finish;
    fixture.scheduled = sim::lower(fixture.graph, placement, fixture.platform);
    const sim::Metrics replayed = fixture.des->evaluate(fixture.scheduled);
    g_fixture = &fixture;

    benchmark::Initialize(&argc, argv);
    SummaryReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    fmt::print("\nBERT-base seq 128: {} ops, {} tasks after lowering\n", fixture.graph.op_count(),
               fixture.exec.tasks.size());
    fmt::print("raw SystemC event (ping-pong hop): {:.3f} us\n", g_event_s * 1e6);
    fmt::print("DES per simulated task:            {:.3f} us  = {:.1f}x a raw SystemC event\n",
               g_des_task_s * 1e6, g_des_task_s / g_event_s);
    fmt::print(
        "DES per task, with a schedule:     {:.3f} us  = {:.1f}x a raw SystemC event, "
        "{:.3f}x the DES without one (latency {:.6f} s vs {:.6f} s)\n",
        g_scheduled_task_s * 1e6, g_scheduled_task_s / g_event_s, g_scheduled_task_s / g_des_task_s,
        replayed.latency_s, run.latency_s);
    fmt::print(
        "AnalyticEvaluator per evaluation:  {:.3f} ms ({:.3f} us per task, {:.1f}x "
        "faster than the DES)\n",
        g_analytic_task_s * static_cast<double>(fixture.exec.tasks.size()) * 1e3,
        g_analytic_task_s * 1e6, g_des_task_s / g_analytic_task_s);
    if (rounds > 0)
        interleaved_rounds(rounds);
    return 0;
}
