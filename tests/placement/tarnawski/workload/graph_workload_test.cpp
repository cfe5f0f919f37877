// hetsim graph + platform -> tarnawski2020 §3 instance (graph_workload.hpp), and the split
// solvers as placers on a generated model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement/placer.hpp"
#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/workload/graph_workload.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"
#include "tools/app/registration.hpp"

#include <fmt/format.h>

#include <memory>

namespace hetsim::placement::tarnawski {
namespace {

// Two pinned CPU cores at 1 GFLOP/s and 1 GB/s, two identical accelerators behind 1 us +
// 1 GB/s links (the second accelerator's `unsupported` list is filled per test).
std::string platform_yaml(const std::string& acc1_unsupported = "[]") {
    std::string gpu = R"(
    type: gpu
    sms: 1
    clock: 1 GHz
    fp32_flops_per_cycle_per_sm: 10
    memory_bandwidth: 10 GB/s
    launch_overhead: 2 us
    memory: 1 MB
)";
    return R"(
name: small
host: cpu
relays: [cpu]
components:
  cpu:
    type: cpu
    devices: {C0: serial, C1: serial}
    pinned: true
    cores: 2
    clock: 1 GHz
    flops_per_cycle: 1
    l1d: 32 KiB
    l2: 1 MiB
    dram_bandwidth: 1 GB/s
  acc0:
    device: A0
    unsupported_ops: [Softmax])" +
           gpu + R"(
  acc1:
    device: A1
    unsupported_ops: )" +
           acc1_unsupported + gpu + R"(
  l0: {type: pcie, endpoints: [cpu, acc0], bandwidth: 1 GB/s, latency: 1 us}
  l1: {type: pcie, endpoints: [cpu, acc1], bandwidth: 1 GB/s, latency: 1 us}
)";
}

TEST(TarnawskiGraphWorkload, CostsComeFromTheDeviceAndLinkModels) {
    const sim::Platform platform = hetsim::testing::parse_platform_yaml(platform_yaml("[Softmax]"));
    // x -> op0 (Relu) -> op1 (Softmax), [1,64] f32 = 256 B per tensor.
    const sim::Graph graph = hetsim::testing::chain({"Relu", "Softmax"});
    const GraphWorkload gw = workload_from_graph(graph, platform);
    const Workload& w = gw.workload;
    EXPECT_EQ(w.max_cpus, 2);
    EXPECT_EQ(w.max_accelerators, 2);
    EXPECT_DOUBLE_EQ(w.max_size_per_accelerator, 1e6);
    ASSERT_EQ(w.node_count(), 2u);
    const sim::Device& cpu = platform.device(gw.cpu_devices[0]);
    const sim::Device& acc = platform.device(gw.accelerator_devices[0]);
    for (int v = 0; v < 2; ++v) {
        EXPECT_DOUBLE_EQ(w.cpu_latency[v], cpu.model->op_time_s(graph, graph.op(v)));
        EXPECT_EQ(w.size[v], 256.0);  // no weights, one [1,64] f32 output
    }
    EXPECT_DOUBLE_EQ(w.accelerator_latency[0], acc.model->op_time_s(graph, graph.op(0)));
    EXPECT_TRUE(w.supported_on_accelerator[0]);
    EXPECT_FALSE(w.supported_on_accelerator[1]);  // Softmax
    // One edge op0 -> op1: 1 us + 256 B / 1 GB/s.
    ASSERT_EQ(w.edge_count(), 1u);
    EXPECT_DOUBLE_EQ(w.edge_cost[0], 1e-6 + 256e-9);
}

TEST(TarnawskiGraphWorkload, DifferentAcceleratorsAreRefused) {
    const sim::Platform platform = hetsim::testing::parse_platform_yaml(platform_yaml("[Relu]"));
    const sim::Graph graph = hetsim::testing::chain({"Relu", "Softmax"});
    EXPECT_THAT([&] { workload_from_graph(graph, platform); },
                ::testing::ThrowsMessage<SolverError>(
                    ::testing::HasSubstr("need identical accelerators; A0 and A1 differ")));
}

TEST(TarnawskiGraphWorkload, DpPlacerSplitsAGeneratedModelAndTheDesMeetsItsMaxLoad) {
    app::register_all();
    const sim::Platform platform = sim::load_platform(std::string(HETSIM_SOURCE_DIR) +
                                                      "/configs/platforms/pcie_accelerators.yaml");
    sim::workloads::Knobs knobs{{"layers", 2}, {"seq_len", 64}, {"batch", 4}};
    const auto graph = std::make_shared<sim::Graph>(sim::workloads::build_model("bert", knobs));
    const GraphWorkload gw = workload_from_graph(*graph, platform);
    const DpResult dp = solve_max_load(gw.workload);

    sim::EvalOptions eval;
    eval.samples = 16;
    auto evaluator = sim::make_evaluator("des", platform, eval);
    PlacementContext context{*graph, platform, *evaluator, Objective::throughput, 1};
    auto placer = PlacerRegistry::instance().create("tarnawski.dp");
    const PlacementResult placed = placer->place(context);
    // The placer's split is the DP's, mapped onto the platform's devices.
    EXPECT_EQ(placed.stats.at("predicted_objective"), fmt::format("{:.9g}", dp.objective));
    const LoadReport loads = evaluate_assignment(gw.workload, [&] {
        Assignment a;
        for (std::size_t v = 0; v < gw.workload.node_count(); ++v) {
            const int device = placed.placement.device_of_op[v];
            int index = -1;
            for (std::size_t c = 0; c < gw.cpu_devices.size(); ++c)
                if (gw.cpu_devices[c] == device)
                    index = static_cast<int>(c);
            for (std::size_t f = 0; f < gw.accelerator_devices.size(); ++f)
                if (gw.accelerator_devices[f] == device)
                    index = gw.workload.max_cpus + static_cast<int>(f);
            a.device_of_node.push_back(index);
        }
        return a;
    }());
    EXPECT_DOUBLE_EQ(loads.max_load, dp.objective);
    EXPECT_TRUE(loads.memory_ok);
    // The max load charges each accelerator its transfers as well as its compute; in the DES
    // the links are resources of their own, so the simulated period (1 / throughput) can only
    // be shorter than the bottleneck device's load.
    const sim::Metrics m = evaluator->evaluate(sim::lower(*graph, placed.placement, platform));
    EXPECT_LE(1.0 / m.throughput_per_s, dp.objective * (1.0 + 1e-9));
    EXPECT_GT(dp.objective, 0.0);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
