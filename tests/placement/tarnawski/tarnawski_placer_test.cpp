// The split solvers as placers (tarnawski_placer.hpp): the §3 memory check Σ m_v ≤ M does not
// bound the simulator's peak (docs/DESIGN.md "Memory capacity": the throughput stream holds
// the tensors of several samples at once), so the adapter checks each split with the study's
// evaluator and re-solves under a tighter M until the evaluator accepts it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "placement/placer.hpp"
#include "placement/tarnawski/workload/graph_workload.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::tarnawski {
namespace {

// One CPU core (1 GFLOP/s, 1 GB/s) and one accelerator (10 GFLOP/s, 2 us per launch, no
// Softmax) with `acc_memory`, behind a 1 us + 1 GB/s link.
std::string platform_yaml(const std::string& acc_memory) {
    return "name: one_accelerator\nhost: cpu\ncomponents:\n" +
           hetsim::testing::one_core_cpu_component("{C0: serial}", "    pinned: true\n") +
           R"(  acc:
    type: gpu
    device: A0
    unsupported_ops: [Softmax]
    sms: 1
    clock: 1 GHz
    fp32_flops_per_cycle_per_sm: 10
    gemm_tiles: [[1, 64]]          # a [1, 64] row is one whole tile: the MatMuls stream
    memory_bandwidth: 10 GB/s
    launch_overhead: 2 us
    memory: )" +
           acc_memory + R"(
  link: {type: pcie, endpoints: [cpu, acc], bandwidth: 1 GB/s, latency: 1 us}
)";
}

// x[1,64] -> s (Softmax, CPU only) -> m1 -> m2 -> m3 (MatMul by a [64,64] f32 weight) -> y.
// Every activation is 256 B and every weight 16384 B, so m_v = 256 for s and 16640 for m_i.
sim::Graph softmax_then_matmuls() {
    sim::Graph graph("softmax_then_matmuls");
    const int x = graph.add_tensor("x", {1, 64}, sim::DType::f32, sim::TensorKind::input);
    int previous = graph.add_tensor("s_out", {1, 64}, sim::DType::f32);
    graph.add_op("s", "Softmax", {x}, {previous}, {{"axis", std::int64_t{-1}}});
    for (int i = 1; i <= 3; ++i) {
        const std::string name = "m" + std::to_string(i);
        const int w =
            graph.add_tensor(name + "_w", {64, 64}, sim::DType::f32, sim::TensorKind::weight);
        const int out = graph.add_tensor(name + "_out", {1, 64}, sim::DType::f32);
        graph.add_op(name, "MatMul", {previous, w}, {out});
        previous = out;
    }
    graph.mark_output(previous);
    graph.finalize();
    return graph;
}

std::vector<std::string> device_names(const sim::Platform& platform, const sim::Placement& p) {
    std::vector<std::string> names;
    for (int d : p.device_of_op)
        names.push_back(platform.device(d).name);
    return names;
}

std::int64_t accelerator_peak(const sim::Metrics& m) {
    for (const sim::MemoryUse& use : m.memory)
        if (use.component == "acc")
            return use.peak_bytes;
    return -1;
}

// M = 3 · 16640 = 49920 B: the §3 check lets m1, m2, m3 share the accelerator, and one sample
// alone peaks at the 3 weights + 2 activations = 49664 B. The stream of 4 samples does not fit:
// the CPU's Softmax takes 0.512 us and the link 1.256 us, so sample k's s_out is on the
// accelerator at (k + 1) · 0.512 + 1.256 us, all four by 3.3 us, while m1 of sample 0 runs from
// 1.77 to 5.46 us (3.69 us per MatMul). Then 4 copies of s_out and m1's output are live:
// 3 · 16384 + 5 · 256 = 50432 B > 49920 B. Before the fix the §7 greedy, which fills the
// accelerator up to M in topological order, returned exactly that split.
TEST(TarnawskiPlacer, ReSolvesUnderATighterMemoryUntilTheEvaluatorAcceptsTheSplit) {
    app::register_all();
    const sim::Platform platform = hetsim::testing::parse_platform_yaml(platform_yaml("49920 B"));
    const sim::Graph graph = softmax_then_matmuls();
    const GraphWorkload gw = workload_from_graph(graph, platform);
    ASSERT_EQ(gw.workload.node_count(), 4u);
    EXPECT_DOUBLE_EQ(gw.workload.size[1] + gw.workload.size[2] + gw.workload.size[3],
                     gw.workload.max_size_per_accelerator);  // 49920: fits the §3 check

    sim::EvalOptions eval;
    eval.samples = 4;
    auto evaluator = sim::make_evaluator("analytic", platform, eval);
    sim::Placement all_on_acc;
    all_on_acc.device_of_op = {gw.cpu_devices[0], gw.accelerator_devices[0],
                               gw.accelerator_devices[0], gw.accelerator_devices[0]};
    // One sample alone fits; the stream of 4 does not.
    auto one_sample = sim::make_evaluator("analytic", platform, sim::EvalOptions{1, false});
    const sim::Metrics alone = one_sample->evaluate(sim::lower(graph, all_on_acc, platform));
    EXPECT_TRUE(alone.feasible) << alone.infeasible_reason;
    EXPECT_EQ(accelerator_peak(alone), 3 * 16384 + 2 * 256);
    const sim::Metrics refused = evaluator->evaluate(sim::lower(graph, all_on_acc, platform));
    EXPECT_FALSE(refused.feasible);
    EXPECT_EQ(accelerator_peak(refused), 3 * 16384 + 5 * 256);

    PlacementContext context{graph, platform, *evaluator, Objective::throughput, 1};
    const PlacementResult placed =
        PlacerRegistry::instance().create("tarnawski.greedy")->place(context);
    // One refusal (overflow 512 B), then M = 49920 - 512 = 49408 B holds two MatMuls.
    EXPECT_EQ(device_names(platform, placed.placement),
              (std::vector<std::string>{"C0", "A0", "A0", "C0"}));
    EXPECT_EQ(placed.profile_runs, 2);
    EXPECT_EQ(placed.stats.at("memory_rounds"), "1");
    EXPECT_EQ(placed.stats.at("memory_limit"), "49408");
    const sim::Metrics accepted =
        evaluator->evaluate(sim::lower(graph, placed.placement, platform));
    EXPECT_TRUE(accepted.feasible) << accepted.infeasible_reason;
}

// The same instance for the placers of the co-design sweep, under both objectives: each one's
// first split overflows the accelerator in the stream, the returned one does not.
TEST(TarnawskiPlacer, DpAndLatencyPlacersReturnSplitsTheEvaluatorAccepts) {
    app::register_all();
    const sim::Platform platform = hetsim::testing::parse_platform_yaml(platform_yaml("49920 B"));
    const sim::Graph graph = softmax_then_matmuls();
    sim::EvalOptions eval;
    eval.samples = 4;
    auto evaluator = sim::make_evaluator("analytic", platform, eval);
    for (const char* spec : {"tarnawski.dp", "tarnawski.latency"}) {
        for (Objective objective : {Objective::latency, Objective::throughput}) {
            SCOPED_TRACE(::testing::Message()
                         << spec << (objective == Objective::latency ? " latency" : " throughput"));
            PlacementContext context{graph, platform, *evaluator, objective, 1};
            const PlacementResult placed = PlacerRegistry::instance().create(spec)->place(context);
            const sim::Metrics m =
                evaluator->evaluate(sim::lower(graph, placed.placement, platform));
            EXPECT_TRUE(m.feasible) << m.infeasible_reason;
            EXPECT_EQ(placed.stats.at("memory_rounds"), "1");
            EXPECT_EQ(placed.profile_runs, 2);
        }
    }
}

// Without a memory limit on the accelerators nothing can overflow: no evaluator run.
TEST(TarnawskiPlacer, UnlimitedAcceleratorMemoryNeedsNoCheck) {
    app::register_all();
    std::string yaml = platform_yaml("0 B");
    yaml.erase(yaml.find("    memory: 0 B\n"), std::string("    memory: 0 B\n").size());
    const sim::Platform platform = hetsim::testing::parse_platform_yaml(yaml);
    const sim::Graph graph = softmax_then_matmuls();
    auto evaluator = sim::make_evaluator("analytic", platform, sim::EvalOptions{});
    PlacementContext context{graph, platform, *evaluator, Objective::throughput, 1};
    const PlacementResult placed =
        PlacerRegistry::instance().create("tarnawski.greedy")->place(context);
    EXPECT_EQ(placed.profile_runs, 0);
    EXPECT_EQ(placed.stats.count("memory_rounds"), 0u);
    EXPECT_EQ(device_names(platform, placed.placement),
              (std::vector<std::string>{"C0", "A0", "A0", "A0"}));
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
