// Lowering and both evaluators on hand-computed cases. Durations in µs are exact integers
// of picoseconds, so the expected numbers below are exact.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "tests/fixtures/platform_fixtures.hpp"

namespace hetsim::sim {
namespace {

using hetsim::testing::add_simple_device;
using hetsim::testing::FixedConversion;
using hetsim::testing::FixedLink;
using hetsim::testing::TableDevice;

constexpr double kUs = 1e-6;

// Components a (devices X1, X2, each its own resource) and b (device Y), one link a<->b:
// 1 µs latency + 4000 B at 4 GB/s = 2 µs per [1,1000] fp32 tensor.
struct TwoComponentPlatform {
    Platform platform;
    std::shared_ptr<TableDevice> x1 = std::make_shared<TableDevice>(3 * kUs);
    std::shared_ptr<TableDevice> x2 = std::make_shared<TableDevice>(3 * kUs);
    std::shared_ptr<TableDevice> y = std::make_shared<TableDevice>(5 * kUs);
    TwoComponentPlatform() {
        platform.name = "two";
        add_simple_device(platform, "a", "X1", x1);
        add_simple_device(platform, "a", "X2", x2);
        add_simple_device(platform, "b", "Y", y);
        platform.add_link(Link{"ab", "a", "b", std::make_shared<FixedLink>(1 * kUs, 4e9)});
        platform.host_component = "a";
    }
    int id(const std::string& name) const { return *platform.find_device(name); }
    // Lowers `g` with every op on the device `device_of` names for it.
    ExecGraph lower_on(const Graph& g, const std::map<std::string, std::string>& device_of) const {
        Placement p;
        for (const auto& op : g.ops())
            p.device_of_op.push_back(id(device_of.at(op.name)));
        return lower(g, p, platform);
    }
};

// The metrics of both evaluators on one ExecGraph, with `samples` for throughput.
struct BothMetrics {
    Metrics analytic, des;
};

BothMetrics evaluate_both(const TwoComponentPlatform& fx, const ExecGraph& exec, int samples) {
    AnalyticEvaluator analytic(EvalOptions{samples});
    DesEvaluator des(fx.platform, EvalOptions{samples});
    Metrics a = analytic.evaluate(exec);
    Metrics d = des.evaluate(exec);
    return {a, d};
}

int relu(Graph& g, const std::string& name, int input) {
    int out = g.add_tensor(name + "_out", {1, 1000}, DType::f32);
    g.add_op(name, "Relu", {input}, {out});
    return out;
}

// in -> A -> B -> C, placed A(X1) -> B(Y) -> C(X1): two transfers that never overlap.
const std::map<std::string, std::string> kChainXYX = {{"A", "X1"}, {"B", "Y"}, {"C", "X1"}};
Graph chain_graph() {
    Graph g("chain");
    int in = g.add_tensor("in", {1, 1000}, DType::f32, TensorKind::input);
    relu(g, "C", relu(g, "B", relu(g, "A", in)));
    g.finalize();
    return g;
}

// in -> P -> C1; in -> Q -> C2, placed P(X1) -> C1(Y); Q(X2) -> C2(Y): the two transfers
// a->b start together.
const std::map<std::string, std::string> kForkIntoY = {
    {"P", "X1"}, {"Q", "X2"}, {"C1", "Y"}, {"C2", "Y"}};
Graph fork_graph(TwoComponentPlatform& fx) {
    Graph g("fork");
    int in = g.add_tensor("in", {1, 1000}, DType::f32, TensorKind::input);
    int t1 = relu(g, "P", in);
    int t2 = relu(g, "Q", in);
    relu(g, "C1", t1);
    relu(g, "C2", t2);
    g.finalize();
    fx.y->by_name["C1"] = 1 * kUs;
    fx.y->by_name["C2"] = 1 * kUs;
    return g;
}

TEST(Lowering, ChainMakesTransfersExplicit) {
    TwoComponentPlatform fx;
    Graph g = chain_graph();
    ExecGraph exec = fx.lower_on(g, kChainXYX);
    ASSERT_EQ(exec.tasks.size(), 5u);
    EXPECT_EQ(exec.tasks[0].kind, TaskKind::compute);
    EXPECT_EQ(exec.tasks[1].kind, TaskKind::transfer);
    EXPECT_EQ(exec.tasks[1].bytes, 4000);
    EXPECT_EQ(exec.tasks[1].duration_ps, 2'000'000);
    EXPECT_TRUE(exec.tasks[1].forward);
    EXPECT_EQ(exec.tasks[3].kind, TaskKind::transfer);
    EXPECT_FALSE(exec.tasks[3].forward);
    EXPECT_EQ(exec.tasks[2].duration_ps, 5'000'000);
    // Slots: X1, X2, Y resources, then ab forward, ab backward.
    EXPECT_EQ(exec.tasks[1].resource, 3);
    EXPECT_EQ(exec.tasks[3].resource, 4);
}

TEST(Evaluators, AgreeExactlyOnContentionFreeChain) {
    TwoComponentPlatform fx;
    Graph g = chain_graph();
    const auto [a, d] = evaluate_both(fx, fx.lower_on(g, kChainXYX), 1);
    // 3 (A) + 2 (a->b) + 5 (B) + 2 (b->a) + 3 (C) µs.
    EXPECT_DOUBLE_EQ(a.latency_s, 15 * kUs);
    EXPECT_EQ(a.latency_s, d.latency_s);
    EXPECT_EQ(a.tasks_executed, 5);
    EXPECT_EQ(d.tasks_executed, 5);
    EXPECT_EQ(d.link_bytes.at("ab:a->b"), 4000.0);
    EXPECT_EQ(d.link_bytes.at("ab:b->a"), 4000.0);
    EXPECT_DOUBLE_EQ(d.resource_busy_s.at("X1:exec"), 6 * kUs);
    // Per-task timings (what profiling placers read): the a->b transfer runs 3 -> 5 µs, B
    // 5 -> 10 µs, in both evaluators.
    ASSERT_EQ(d.task_timings.size(), 5u);
    EXPECT_EQ(d.task_timings[1].start_ps, 3'000'000);
    EXPECT_EQ(d.task_timings[1].finish_ps, 5'000'000);
    EXPECT_EQ(d.task_timings[2].start_ps, 5'000'000);
    EXPECT_EQ(d.task_timings[2].finish_ps, 10'000'000);
    for (std::size_t t = 0; t < 5; ++t) {
        EXPECT_EQ(a.task_timings[t].start_ps, d.task_timings[t].start_ps);
        EXPECT_EQ(a.task_timings[t].finish_ps, d.task_timings[t].finish_ps);
    }
}

TEST(Evaluators, DesIsSlowerExactlyByLinkContention) {
    TwoComponentPlatform fx;
    Graph g = fork_graph(fx);
    const auto [a, d] = evaluate_both(fx, fx.lower_on(g, kForkIntoY), 1);
    // Analytic: both transfers 3->5; C1 5->6, C2 6->7; outputs back 6->8 and 7->9.
    EXPECT_DOUBLE_EQ(a.latency_s, 9 * kUs);
    // DES, the link's bandwidth shared: t1 and t2 wait their 1 µs latency together (3->4),
    // then stream at half speed, both ending at 6; C1 6->7, C2 7->8; o1 back 7->9 alone;
    // o2's latency 8->9, its stream 9->10 alone.
    EXPECT_DOUBLE_EQ(d.latency_s, 10 * kUs);
}

TEST(Evaluators, PipelinedThroughputIsTheSlowestStage) {
    TwoComponentPlatform fx;
    Graph g("pipe");
    int in = g.add_tensor("in", {1, 1000}, DType::f32, TensorKind::input);
    relu(g, "B", relu(g, "A", in));
    g.finalize();
    fx.y->by_name["B"] = 2 * kUs;
    // Stages: A 3 µs, a->b 2, B 2, b->a 2: one sample per 3 µs in steady state.
    const auto [a, d] = evaluate_both(fx, fx.lower_on(g, {{"A", "X1"}, {"B", "Y"}}), 8);
    EXPECT_DOUBLE_EQ(a.latency_s, 9 * kUs);
    EXPECT_NEAR(a.throughput_per_s, 1.0 / (3 * kUs), 1e-6);
    EXPECT_EQ(a.throughput_per_s, d.throughput_per_s);
    EXPECT_EQ(a.latency_s, d.latency_s);
}

TEST(Evaluators, SequentialDispatchRunsOneTaskAtATime) {
    TwoComponentPlatform fx;
    fx.platform.dispatch = DispatchMode::sequential;
    Graph g = fork_graph(fx);
    // P 3 + Q 3 + t1 2 + C1 1 + t2 2 + C2 1 + o1 2 + o2 2 = 16 µs, nothing overlaps.
    const auto [a, d] = evaluate_both(fx, fx.lower_on(g, kForkIntoY), 4);
    EXPECT_DOUBLE_EQ(a.latency_s, 16 * kUs);
    EXPECT_EQ(d.latency_s, a.latency_s);
    EXPECT_NEAR(d.throughput_per_s, 1.0 / (16 * kUs), 1e-6);
}

TEST(Evaluators, DesReplaysPlacementsBackToBack) {
    TwoComponentPlatform fx;
    Graph g = fork_graph(fx);
    DesEvaluator des(fx.platform, EvalOptions{4});
    ExecGraph one = fx.lower_on(g, kForkIntoY);
    ExecGraph all_a = fx.lower_on(g, {{"P", "X1"}, {"Q", "X2"}, {"C1", "X1"}, {"C2", "X2"}});
    Metrics first = des.evaluate(one);
    Metrics other = des.evaluate(all_a);
    Metrics again = des.evaluate(one);
    EXPECT_EQ(first.latency_s, again.latency_s);
    EXPECT_EQ(first.throughput_per_s, again.throughput_per_s);
    EXPECT_DOUBLE_EQ(other.latency_s, 6 * kUs);  // P then C1 on X1, Q then C2 on X2
    EXPECT_EQ(des.evaluations(), 3);
}

TEST(Evaluators, TraceHasASlicePerTaskAndAFlowPerDependency) {
    TwoComponentPlatform fx;
    Graph g = chain_graph();
    ExecGraph exec = fx.lower_on(g, kChainXYX);
    DesEvaluator des(fx.platform, EvalOptions{2});
    Trace trace;
    des.evaluate(exec, &trace);
    ASSERT_EQ(trace.slices.size(), 5u);
    EXPECT_EQ(trace.flows.size(), 4u);  // A->t1->B->t2->C
    EXPECT_EQ(trace.slices[1].category, "transfer");
    EXPECT_DOUBLE_EQ(trace.slices[1].start_s, 3 * kUs);
    EXPECT_EQ(trace.tracks[static_cast<std::size_t>(trace.slices[1].track)].thread, "a->b");
}

TEST(Lowering, ConvertsOnTheLinksConvertingSide) {
    Platform p;
    auto cpu = std::make_shared<TableDevice>(1 * kUs, DType::f32);
    auto pim = std::make_shared<TableDevice>(1 * kUs, DType::bf16);
    add_simple_device(p, "cpu", "CPU", cpu, std::make_shared<FixedConversion>(1e-9));
    add_simple_device(p, "pim", "PIM", pim);
    p.add_link(Link{"dma", "cpu", "pim", std::make_shared<FixedLink>(0.0, 2e9, "cpu")});
    p.host_component = "cpu";
    Graph g("conv");
    int in = g.add_tensor("in", {1, 1000}, DType::f32, TensorKind::input);
    relu(g, "A", in);
    g.finalize();
    ExecGraph exec = lower(g, Placement{{1}, {}}, p);
    ASSERT_EQ(exec.tasks.size(), 5u);
    // fp32 -> bf16 on the CPU (1000 elements x 1 ns), 2000 B over the DMA (1 µs), A,
    // 2000 B back, bf16 -> fp32 on the CPU.
    EXPECT_EQ(exec.tasks[0].kind, TaskKind::convert);
    EXPECT_EQ(exec.tasks[0].duration_ps, 1'000'000);
    EXPECT_EQ(exec.tasks[0].resource, 0);
    EXPECT_EQ(exec.tasks[1].kind, TaskKind::transfer);
    EXPECT_EQ(exec.tasks[1].bytes, 2000);
    EXPECT_EQ(exec.tasks[1].duration_ps, 1'000'000);
    EXPECT_EQ(exec.tasks[2].kind, TaskKind::compute);
    EXPECT_EQ(exec.tasks[3].kind, TaskKind::transfer);
    EXPECT_EQ(exec.tasks[3].bytes, 2000);
    EXPECT_EQ(exec.tasks[4].kind, TaskKind::convert);
    AnalyticEvaluator analytic(EvalOptions{1});
    EXPECT_DOUBLE_EQ(analytic.evaluate(exec).latency_s, 5 * kUs);
}

TEST(Lowering, RejectsAnOpOnADeviceThatCannotRunIt) {
    TwoComponentPlatform fx;
    fx.y->unsupported_types.insert("Relu");
    Graph g = chain_graph();
    EXPECT_THAT([&] { fx.lower_on(g, kChainXYX); },
                ::testing::ThrowsMessage<LoweringError>(
                    ::testing::AllOf(::testing::HasSubstr("'B'"), ::testing::HasSubstr("Y"),
                                     ::testing::HasSubstr("table says no"))));
}

TEST(Lowering, RejectsTransfersWithoutARoute) {
    Platform p;
    add_simple_device(p, "a", "X", std::make_shared<TableDevice>(1 * kUs));
    add_simple_device(p, "b", "Y", std::make_shared<TableDevice>(1 * kUs));
    p.host_component = "a";
    Graph g = chain_graph();
    EXPECT_THAT(
        [&] {
            lower(g, Placement{{0, 1, 0}, {}}, p);
        },
        ::testing::ThrowsMessage<LoweringError>(::testing::HasSubstr("no route connects them")));
}

TEST(Lowering, StagesThroughADeclaredRelay) {
    // Host h and accelerators a0, a1, each linked to h only, h declared a relay
    // (tarnawski2020 §3: accelerators exchange data through CPU DRAM). in -> A(A0) -> B(A1),
    // and A's output also read by D on the host: a0 -> h once, then h -> a1; D reuses the
    // host copy.
    Platform p;
    add_simple_device(p, "h", "H", std::make_shared<TableDevice>(1 * kUs));
    add_simple_device(p, "a0", "A0", std::make_shared<TableDevice>(1 * kUs));
    add_simple_device(p, "a1", "A1", std::make_shared<TableDevice>(1 * kUs));
    p.add_link(Link{"h0", "h", "a0", std::make_shared<FixedLink>(1 * kUs, 4e9)});
    p.add_link(Link{"h1", "h", "a1", std::make_shared<FixedLink>(1 * kUs, 4e9)});
    p.host_component = "h";
    p.relays = {"h"};
    Graph g("fork");
    const int in = g.add_tensor("in", {1, 1000}, DType::f32, TensorKind::input);
    const int a = relu(g, "A", in);
    relu(g, "B", a);
    relu(g, "D", a);
    g.finalize();
    const ExecGraph exec = lower(g, Placement{{1, 2, 0}, {}}, p);
    std::vector<std::string> transfers;
    for (const Task& t : exec.tasks) {
        if (t.kind == TaskKind::transfer)
            transfers.push_back(t.name.substr(t.name.rfind(' ') + 1));
    }
    // B's output, a graph output, returns to the host at the end.
    EXPECT_THAT(transfers, ::testing::ElementsAre("h->a0", "a0->h", "h->a1", "a1->h"));
    // Contention-free: in h->a0 (2 us), A (1), a0->h (2), h->a1 (2), B (1), a1->h (2) = 10 us;
    // D runs on H at 5-6 us, in parallel with h->a1.
    AnalyticEvaluator analytic(EvalOptions{1});
    EXPECT_NEAR(analytic.evaluate(exec).latency_s, 10 * kUs, 1e-15);
}

}  // namespace
}  // namespace hetsim::sim
