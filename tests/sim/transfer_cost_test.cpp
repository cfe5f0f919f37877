// The one transfer cost (sim/transfer_cost.hpp, issue 24 item 4): on every shipped platform,
// for every ordered pair of devices that can run a small op, the steps transfer_cost returns
// are exactly the conversion and transfer tasks lowering puts between a producer on the first
// device and its consumer on the second: same kinds, names, bytes and picoseconds.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "sim/transfer_cost.hpp"

#include "sim/op_table.hpp"
#include "sim/workloads/graph_builder.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::sim {
namespace {

// x -> op_a (on device a) -> t -> op_b (on device b) -> y, with op types the devices run.
// Empty optional when no candidate type runs on both.
std::optional<Graph> producer_consumer(const Platform& platform, int a, int b) {
    const char* candidates[] = {"Relu", "Add", "MatMul", "Gelu", "Tanh"};
    for (const char* type_a : candidates) {
        for (const char* type_b : candidates) {
            workloads::GraphBuilder builder("pair");
            auto apply = [&](const char* type, int in, const std::string& name) {
                const std::string t(type);
                if (t == "Add")
                    return builder.op(t, {in, in});
                if (t == "MatMul")
                    return builder.op(t, {in, builder.weight(name + ".w", {64, 64})});
                return builder.op(t, {in});
            };
            const int x = builder.input("x", {16, 64}, DType::f32);
            const int t = apply(type_a, x, "a");
            apply(type_b, t, "b");
            Graph g = std::move(builder.graph());
            g.finalize();
            const int op_a = g.tensor(t).producer;
            const int op_b = g.tensor(t).consumers.front();
            if (platform.device(a).model->supports(g, g.op(op_a)).ok &&
                platform.device(b).model->supports(g, g.op(op_b)).ok)
                return g;
        }
    }
    // Table processors (configs/platforms/table4.yaml) run only tasks with given costs: two
    // Tasks joined by a 1000-byte edge.
    Graph g("pair");
    const int t = g.add_tensor("e", {1000}, DType::i8);
    const int done = g.add_tensor("done", {0}, DType::i8);
    const Attributes costs{{kTaskCostsAttribute, std::vector<double>(8, 1e-6)}};
    g.add_op("a", "Task", {}, {t}, costs);
    g.add_op("b", "Task", {t}, {done}, costs);
    g.finalize();
    if (platform.device(a).model->supports(g, g.op(0)).ok &&
        platform.device(b).model->supports(g, g.op(1)).ok)
        return g;
    return std::nullopt;
}

TEST(TransferCost, IsExactlyWhatLoweringChargesOnEveryShippedPlatform) {
    app::register_all();
    int platforms = 0;
    int converting = 0;  // pairs whose move includes a dtype conversion (lee2022 §2.3)
    for (const auto& entry : std::filesystem::directory_iterator(std::string(HETSIM_SOURCE_DIR) +
                                                                 "/configs/platforms")) {
        if (entry.path().extension() != ".yaml")
            continue;
        const Platform platform = load_platform(entry.path().string());
        ++platforms;
        int pairs = 0, moving = 0;
        for (int a = 0; a < platform.device_count(); ++a) {
            for (int b = 0; b < platform.device_count(); ++b) {
                const auto g = producer_consumer(platform, a, b);
                if (!g)
                    continue;
                const std::string where = entry.path().filename().string() + " " +
                                          platform.device(a).name + " -> " +
                                          platform.device(b).name;
                // The tensor between the two ops is the first op's output.
                const int t = g->op(g->topo_order().front()).outputs.front();
                std::vector<int> device_of_op(static_cast<std::size_t>(g->op_count()));
                device_of_op[static_cast<std::size_t>(g->tensor(t).producer)] = a;
                device_of_op[static_cast<std::size_t>(g->tensor(t).consumers.front())] = b;
                const ExecGraph exec = lower(*g, Placement{device_of_op, {}}, platform);
                std::vector<const Task*> lowered;
                for (const Task& task : exec.tasks) {
                    if (task.kind != TaskKind::compute && task.tensor == t)
                        lowered.push_back(&task);
                }
                const TransferCost cost = transfer_cost(platform, a, b, g->tensor(t));
                ASSERT_EQ(cost.steps.size(), lowered.size()) << where;
                std::int64_t lowered_ps = 0;
                for (std::size_t i = 0; i < lowered.size(); ++i) {
                    const Task& task = *lowered[i];
                    const TransferStep& step = cost.steps[i];
                    EXPECT_EQ(task.kind, step.kind) << where << " step " << i;
                    EXPECT_EQ(task.name, step.name) << where;
                    EXPECT_EQ(task.bytes, step.bytes) << where << " " << task.name;
                    EXPECT_EQ(task.duration_ps, step.duration_ps()) << where << " " << task.name;
                    EXPECT_EQ(task.fixed_ps, step.fixed_ps) << where << " " << task.name;
                    EXPECT_EQ(task.access_ps, step.access_ps) << where << " " << task.name;
                    EXPECT_EQ(task.flow_ps, step.flow_ps) << where << " " << task.name;
                    if (task.kind == TaskKind::transfer) {
                        EXPECT_EQ(task.link, step.link) << where;
                        EXPECT_EQ(task.forward, step.forward) << where;
                    } else {
                        EXPECT_EQ(task.device, step.device) << where;
                    }
                    // The unrounded seconds and the rounded pieces differ by at most 0.5 ps a
                    // piece.
                    EXPECT_NEAR(step.seconds * 1e12, static_cast<double>(step.duration_ps()), 1.5)
                        << where << " " << task.name;
                    lowered_ps += task.duration_ps;
                }
                EXPECT_EQ(cost.duration_ps(), lowered_ps) << where;
                ++pairs;
                moving += cost.steps.empty() ? 0 : 1;
                for (const TransferStep& step : cost.steps) {
                    if (step.kind == TaskKind::convert) {
                        ++converting;
                        break;
                    }
                }
            }
        }
        // Every platform has devices that exchange tensors.
        EXPECT_GT(pairs, 1) << entry.path();
        EXPECT_GT(moving, 0) << entry.path();
        std::cout << entry.path().filename().string() << ": " << pairs << " device pairs, "
                  << moving << " that move a tensor\n";
    }
    EXPECT_GE(platforms, 3);
    EXPECT_GT(converting, 0);
}

// One hop of the PCIe platform: the link's latency, 4000 B at its bandwidth, and the
// destination memory's access latency; the linear form agrees.
TEST(TransferCost, OneHopIsLatencyPlusBytesOverBandwidthPlusAccess) {
    app::register_all();
    const Platform platform =
        load_platform(std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/pcie_accelerators.yaml");
    const std::string host = platform.host_component;
    std::string accelerator;
    for (const auto& c : platform.components()) {
        if (c.name != host) {
            accelerator = c.name;
            break;
        }
    }
    ASSERT_FALSE(accelerator.empty());
    const TransferCost cost =
        transfer_cost(platform, host, DType::f32, accelerator, DType::f32, 1000, "x");
    ASSERT_EQ(cost.steps.size(), 1U);
    const TransferStep& s = cost.steps.front();
    const Link& link = platform.links()[static_cast<std::size_t>(s.link)];
    const double expected = link.model->latency_s(s.forward) +
                            4000.0 / link.model->bandwidth_Bps(s.forward) +
                            platform.find_component(accelerator)->memory_latency_s;
    EXPECT_DOUBLE_EQ(cost.seconds(), expected);
    EXPECT_EQ(cost.bytes_per_hop(), std::vector<std::int64_t>{4000});
    EXPECT_EQ(s.name, "x " + host + "->" + accelerator);
    // The linear form agrees with it.
    EXPECT_DOUBLE_EQ(route_cost(platform, host, accelerator).time_s(4000), expected);
    // Nothing moves within one memory in one dtype; no route is an error naming both ends.
    EXPECT_TRUE(transfer_cost(platform, host, DType::f32, host, DType::f32, 10).steps.empty());
}

TEST(TransferCost, NoRouteAndNoConverterAreErrors) {
    Platform p;
    p.name = "islands";
    p.add_component(Component{"h", "test", 0, nullptr});
    p.add_component(Component{"a", "test", 0, nullptr});
    try {
        transfer_cost(p, "h", DType::f32, "a", DType::f32, 10, "x");
        FAIL() << "expected a LoweringError";
    } catch (const LoweringError& e) {
        EXPECT_STREQ(e.what(), "tensor 'x' must move from 'h' to 'a', but no route connects them");
    }
    try {
        transfer_cost(p, "h", DType::f32, "h", DType::bf16, 10, "x");
        FAIL() << "expected a LoweringError";
    } catch (const LoweringError& e) {
        EXPECT_STREQ(e.what(),
                     "tensor 'x' must be converted float32 -> bfloat16 on component 'h', which "
                     "cannot convert");
    }
}

}  // namespace
}  // namespace hetsim::sim
