// Contention in the DES, on hand-computed cases: processor sharing of a link direction,
// store-and-forward routes, a memory shared by an op and a DMA stream, the memory access
// latency through the TLM target, FIFO arbitration, and memory capacity. Every number is an
// exact integer of picoseconds; the AnalyticEvaluator's contention-free number is checked
// next to the DES's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/fluid_share.hpp"
#include "sim/transfer_cost.hpp"
#include "tests/fixtures/platform_fixtures.hpp"

namespace hetsim::sim {
namespace {

using hetsim::testing::add_simple_device;
using hetsim::testing::FixedLink;
using hetsim::testing::TableDevice;

constexpr double kUs = 1e-6;
constexpr std::int64_t kPsPerUs = 1'000'000;

// A device whose op is `fixed_s` of overhead, then `bytes` streamed from its memory at up
// to `rate_Bps` (DeviceModel::op_timing).
class StreamingDevice : public TableDevice {
public:
    StreamingDevice(double fixed_s, double bytes, double rate_Bps)
        : TableDevice(fixed_s + bytes / rate_Bps),
          fixed_s_(fixed_s),
          bytes_(bytes),
          rate_Bps_(rate_Bps) {}
    Timing op_timing(const Graph&, const Op&) const override {
        return Timing{fixed_s_, bytes_, rate_Bps_};
    }

private:
    double fixed_s_, bytes_, rate_Bps_;
};

int relu(Graph& g, const std::string& name, int input, std::int64_t elements) {
    int out = g.add_tensor(name + "_out", {1, elements}, DType::f32);
    g.add_op(name, "Relu", {input}, {out});
    return out;
}

const Task& task_named(const ExecGraph& exec, const std::string& name) {
    for (const Task& t : exec.tasks) {
        if (t.name == name)
            return t;
    }
    throw std::runtime_error("no task " + name);
}

std::int64_t finish_of(const Metrics& m, const ExecGraph& exec, const std::string& name) {
    const Task& t = task_named(exec, name);
    return m.task_timings[static_cast<std::size_t>(t.order)].finish_ps;
}

// Both evaluators on one ExecGraph of `p`.
struct Both {
    Metrics analytic, des;
};
Both evaluate_both(const Platform& p, const ExecGraph& exec, int samples = 1) {
    AnalyticEvaluator analytic(EvalOptions{samples});
    DesEvaluator des(p, EvalOptions{samples});
    Metrics a = analytic.evaluate(exec);
    Metrics d = des.evaluate(exec);
    return {std::move(a), std::move(d)};
}

// in [1, 1000] fp32 -> A (Relu).
Graph one_relu() {
    Graph g("one");
    const int in = g.add_tensor("in", {1, 1000}, DType::f32, TensorKind::input);
    relu(g, "A", in, 1000);
    g.finalize();
    return g;
}

// Host h (device H) and accelerator a (device A), one link h<->a.
Platform host_and_accelerator(double latency_s, double bandwidth_Bps, Arbitration arbitration,
                              double host_memory_Bps = 0.0, double accelerator_latency_s = 0.0) {
    Platform p;
    p.name = "ha";
    Component h{"h", "test", 0, nullptr};
    h.memory_bandwidth_Bps = host_memory_Bps;
    p.add_component(h);
    Component a{"a", "test", 0, nullptr};
    a.memory_latency_s = accelerator_latency_s;
    p.add_component(a);
    p.add_device(Device{"H", "h", p.add_resource(ExecResource{"H", 1}), 1,
                        std::make_shared<TableDevice>(1 * kUs)});
    p.add_device(Device{"A", "a", p.add_resource(ExecResource{"A", 1}), 1,
                        std::make_shared<TableDevice>(1 * kUs)});
    Link link{"ha", "h", "a", std::make_shared<FixedLink>(latency_s, bandwidth_Bps)};
    link.arbitration = arbitration;
    p.add_link(link);
    p.host_component = "h";
    return p;
}

// Two graph inputs of 4000 B, each read by its own op on A: both transfers h->a start at 0.
Graph two_inputs_to_a() {
    Graph g("two");
    const int in1 = g.add_tensor("in1", {1, 1000}, DType::f32, TensorKind::input);
    const int in2 = g.add_tensor("in2", {1, 1000}, DType::f32, TensorKind::input);
    relu(g, "A1", in1, 1000);
    relu(g, "A2", in2, 1000);
    g.finalize();
    return g;
}

TEST(Contention, TwoEqualTransfersOnOneLinkBothEndAtLatencyPlusTwiceTheirStream) {
    // 1 µs latency, 4000 B at 1 GB/s = 4 µs of streaming each.
    const Platform p = host_and_accelerator(1 * kUs, 1e9, Arbitration::shared);
    const Graph g = two_inputs_to_a();
    const ExecGraph exec = lower(g, Placement{{1, 1}, {}}, p);
    const auto [a, d] = evaluate_both(p, exec);
    // Alone: 1 + 4 = 5 µs. Shared: latency 1 µs (not shared), then 4000 B each at 0.5 GB/s.
    EXPECT_EQ(finish_of(a, exec, "in1 h->a"), 5 * kPsPerUs);
    EXPECT_EQ(finish_of(a, exec, "in2 h->a"), 5 * kPsPerUs);
    EXPECT_EQ(finish_of(d, exec, "in1 h->a"), 9 * kPsPerUs);
    EXPECT_EQ(finish_of(d, exec, "in2 h->a"), 9 * kPsPerUs);
}

TEST(Contention, FifoArbitrationServesOneTransferAtATime) {
    const Platform p = host_and_accelerator(1 * kUs, 1e9, Arbitration::fifo);
    const Graph g = two_inputs_to_a();
    const ExecGraph exec = lower(g, Placement{{1, 1}, {}}, p);
    DesEvaluator des(p, EvalOptions{1});
    const Metrics d = des.evaluate(exec);
    // One DMA queue: in1 0->5 µs, in2 5->10 µs (latency and stream both queued).
    EXPECT_EQ(finish_of(d, exec, "in1 h->a"), 5 * kPsPerUs);
    EXPECT_EQ(finish_of(d, exec, "in2 h->a"), 10 * kPsPerUs);
}

TEST(Contention, ATransferStartingHalfwayThroughAnotherSharesTheRest) {
    // in1 (100 kB) goes to A at 0: 10 µs latency + 100 µs of streaming at 1 GB/s. in2 is
    // first processed by P on the host for 55 µs; P's output (100 kB) then goes to A.
    auto host_model = std::make_shared<TableDevice>(55 * kUs);
    Platform p;
    p.name = "ha";
    p.add_component(Component{"h", "test", 0, nullptr});
    p.add_component(Component{"a", "test", 0, nullptr});
    p.add_device(Device{"H", "h", p.add_resource(ExecResource{"H", 1}), 1, host_model});
    p.add_device(Device{"A", "a", p.add_resource(ExecResource{"A", 1}), 1,
                        std::make_shared<TableDevice>(1 * kUs)});
    p.add_link(Link{"ha", "h", "a", std::make_shared<FixedLink>(10 * kUs, 1e9)});
    p.host_component = "h";
    Graph g("halfway");
    const int in1 = g.add_tensor("in1", {1, 25000}, DType::f32, TensorKind::input);
    const int in2 = g.add_tensor("in2", {1, 25000}, DType::f32, TensorKind::input);
    relu(g, "A1", in1, 25000);
    relu(g, "A2", relu(g, "P", in2, 25000), 25000);
    g.finalize();
    const ExecGraph exec = lower(g, Placement{{1, 0, 1}, {}}, p);
    const auto [a, d] = evaluate_both(p, exec);
    EXPECT_EQ(finish_of(a, exec, "in1 h->a"), 110 * kPsPerUs);
    EXPECT_EQ(finish_of(a, exec, "P_out h->a"), 165 * kPsPerUs);  // 55 + 10 + 100
    // DES: in1 streams alone 10->65 µs (55 µs done, 45 left). P_out starts at 55, waits its
    // latency to 65, then both stream at half speed: in1's 45 µs of work end at 65 + 90 =
    // 155; P_out has 100 - 45 = 55 µs left at full speed: 155 + 55 = 210.
    EXPECT_EQ(finish_of(d, exec, "in1 h->a"), 155 * kPsPerUs);
    EXPECT_EQ(finish_of(d, exec, "P_out h->a"), 210 * kPsPerUs);
}

TEST(Contention, AThreeHopRoutePaysThreeHopLatencies) {
    // h - r1 - r2 - a in a line, r1 and r2 relays. 4000 B over links of 1 µs + 1 GB/s,
    // 2 µs + 2 GB/s and 3 µs + 4 GB/s: (1 + 4) + (2 + 2) + (3 + 1) = 13 µs, store and forward.
    Platform p;
    p.name = "line";
    add_simple_device(p, "h", "H", std::make_shared<TableDevice>(1 * kUs));
    add_simple_device(p, "r1", "R1", std::make_shared<TableDevice>(1 * kUs));
    add_simple_device(p, "r2", "R2", std::make_shared<TableDevice>(1 * kUs));
    add_simple_device(p, "a", "A", std::make_shared<TableDevice>(1 * kUs));
    p.add_link(Link{"l1", "h", "r1", std::make_shared<FixedLink>(1 * kUs, 1e9)});
    p.add_link(Link{"l2", "r1", "r2", std::make_shared<FixedLink>(2 * kUs, 2e9)});
    p.add_link(Link{"l3", "r2", "a", std::make_shared<FixedLink>(3 * kUs, 4e9)});
    p.host_component = "h";
    p.relays = {"r1", "r2"};
    ASSERT_NE(p.route("h", "a"), nullptr);
    EXPECT_EQ(p.route("h", "a")->size(), 3u);
    EXPECT_DOUBLE_EQ(hetsim::sim::transfer_cost(p, "h", hetsim::sim::DType::f32, "a",
                                                hetsim::sim::DType::f32, 1000)
                         .seconds(),
                     13 * kUs);
    const Graph g = one_relu();
    const ExecGraph exec = lower(g, Placement{{3}, {}}, p);
    const auto [a, d] = evaluate_both(p, exec);
    EXPECT_EQ(finish_of(a, exec, "in r2->a"), 13 * kPsPerUs);
    EXPECT_EQ(finish_of(d, exec, "in r2->a"), 13 * kPsPerUs);
    EXPECT_EQ(finish_of(d, exec, "in h->r1"), 5 * kPsPerUs);
    EXPECT_EQ(finish_of(d, exec, "in r1->r2"), 9 * kPsPerUs);
    // A (1 µs), then its output returns over the same three hops: 13 + 1 + 13 = 27 µs.
    EXPECT_DOUBLE_EQ(d.latency_s, 27 * kUs);
    EXPECT_DOUBLE_EQ(a.latency_s, 27 * kUs);
}

TEST(Contention, AMemoryBoundOpAndADmaStreamShareTheirMemory) {
    // Host memory of 8 GB/s. The op P on H is memory-bound for half its time: 1 µs fixed,
    // then 8000 B at up to 8 GB/s (1 µs). At the same time in1 (12000 B) streams h->a at up
    // to 6 GB/s (latency 0): 2 µs alone.
    Platform p;
    p.name = "shared-memory";
    Component h{"h", "test", 0, nullptr};
    h.memory_bandwidth_Bps = 8e9;
    p.add_component(h);
    p.add_component(Component{"a", "test", 0, nullptr});
    p.add_device(Device{"H", "h", p.add_resource(ExecResource{"H", 1}), 1,
                        std::make_shared<StreamingDevice>(1 * kUs, 8000.0, 8e9)});
    p.add_device(Device{"A", "a", p.add_resource(ExecResource{"A", 1}), 1,
                        std::make_shared<TableDevice>(1 * kUs)});
    p.add_link(Link{"ha", "h", "a", std::make_shared<FixedLink>(0.0, 6e9)});
    p.host_component = "h";
    Graph g("memory");
    const int in1 = g.add_tensor("in1", {1, 3000}, DType::f32, TensorKind::input);
    const int in2 = g.add_tensor("in2", {1, 1000}, DType::f32, TensorKind::input);
    relu(g, "A1", in1, 3000);
    relu(g, "P", in2, 1000);
    g.finalize();
    const ExecGraph exec = lower(g, Placement{{1, 0}, {}}, p);
    const auto [a, d] = evaluate_both(p, exec);
    EXPECT_EQ(finish_of(a, exec, "P"), 2 * kPsPerUs);
    EXPECT_EQ(finish_of(a, exec, "in1 h->a"), 2 * kPsPerUs);
    // DES: 0-1 µs the stream alone at 6 GB/s (6000 B). At 1 µs P starts streaming: 6 + 8 >
    // 8 GB/s, so each gets 4 GB/s. The stream's last 6000 B end at 2.5 µs; by then P has
    // moved 6000 B and its last 2000 B take 0.25 µs at its full 8 GB/s: 2.75 µs.
    EXPECT_EQ(finish_of(d, exec, "in1 h->a"), 2'500'000);
    EXPECT_EQ(finish_of(d, exec, "P"), 2'750'000);
}

TEST(Contention, TheMemoryAccessLatencyIsPaidThroughTheTlmTarget) {
    // a's memory answers every write after 250 ns: 1 + 4 µs + 0.25 µs per transfer into it.
    const Platform p = host_and_accelerator(1 * kUs, 1e9, Arbitration::shared, 0.0, 0.25 * kUs);
    const Graph g = one_relu();
    const ExecGraph exec = lower(g, Placement{{1}, {}}, p);
    const auto [a, d] = evaluate_both(p, exec);
    EXPECT_EQ(finish_of(a, exec, "in h->a"), 5'250'000);
    EXPECT_EQ(finish_of(d, exec, "in h->a"), 5'250'000);
}

TEST(FluidShare, MaxMinFairRates) {
    const std::vector<int> link{0}, memory{1}, both{0, 1};
    // Capacities: link 10, memory 6. Flow 0 on the link only (cap 8), flow 1 on both (cap
    // 100), flow 2 on the memory only (cap 1). Flow 2 freezes at its cap 1; flows 0 and 1
    // rise together to 5, when the memory (1 + 5 = 6) is full; flow 0 then takes what the
    // link has left, up to its cap 8 (5 + 8 > 10: it gets 5).
    const auto rates = max_min_fair_rates(
        {10.0, 6.0}, {FluidFlow{8.0, &link}, FluidFlow{100.0, &both}, FluidFlow{1.0, &memory}});
    ASSERT_EQ(rates.size(), 3u);
    EXPECT_DOUBLE_EQ(rates[0], 5.0);
    EXPECT_DOUBLE_EQ(rates[1], 5.0);
    EXPECT_DOUBLE_EQ(rates[2], 1.0);
    // No resource: the cap.
    EXPECT_DOUBLE_EQ(max_min_fair_rates({}, {FluidFlow{3.0, nullptr}})[0], 3.0);
}

// The DES costs a flow phase that runs alone with alone_rate_Bps: it must be bitwise the rate
// max_min_fair_rates gives the flow alone, for caps above and below the capacities, resources
// listed twice, and none.
TEST(FluidShare, AloneRateIsMaxMinFairnessWithOneFlow) {
    std::mt19937_64 rng(29);
    std::uniform_real_distribution<double> rate(1e6, 1e11);
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<double> capacity(1 + rng() % 5);
        for (double& c : capacity)
            c = rate(rng);
        std::vector<int> resources(rng() % 4);
        for (int& r : resources)
            r = static_cast<int>(rng() % capacity.size());
        // Half of the caps exactly at a capacity (the snap to the cap is exercised).
        const double cap = trial % 2 == 0 || resources.empty()
                               ? rate(rng)
                               : capacity[static_cast<std::size_t>(resources.front())];
        const double expected = max_min_fair_rates(capacity, {FluidFlow{cap, &resources}})[0];
        EXPECT_EQ(alone_rate_Bps(capacity, cap, resources), expected) << "trial " << trial;
    }
}

TEST(MemoryCapacity, PeakIsWeightsPlusLiveActivationsAndOverflowIsInfeasible) {
    // All on the host: in (4000 B) -> A -> B -> out. Live: in + A_out at A (8000 B), then
    // A_out + B_out at B (8000 B); in is freed when A ends. B_out is a graph output.
    for (const std::int64_t capacity : {8000, 7999}) {
        Platform q;
        q.name = "cap";
        q.add_component(Component{"h", "test", capacity, nullptr});
        q.add_device(Device{"H", "h", q.add_resource(ExecResource{"H", 1}), 1,
                            std::make_shared<TableDevice>(1 * kUs)});
        q.host_component = "h";
        Graph g("chain");
        const int in = g.add_tensor("in", {1, 1000}, DType::f32, TensorKind::input);
        relu(g, "B", relu(g, "A", in, 1000), 1000);
        g.finalize();
        const ExecGraph exec = lower(g, Placement{{0, 0}, {}}, q);
        AnalyticEvaluator analytic(EvalOptions{1});
        const Metrics m = analytic.evaluate(exec);
        ASSERT_EQ(m.memory.size(), 1u);
        EXPECT_EQ(m.memory[0].peak_bytes, 8000);
        EXPECT_EQ(m.memory[0].at_peak, "compute 'A'");
        if (capacity == 8000) {
            EXPECT_TRUE(m.feasible);
        } else {
            EXPECT_FALSE(m.feasible);
            EXPECT_THAT(m.infeasible_reason,
                        ::testing::AllOf(::testing::HasSubstr("H ('h')"),
                                         ::testing::HasSubstr("peak 8000 bytes"),
                                         ::testing::HasSubstr("capacity 7999 bytes"),
                                         ::testing::HasSubstr("compute 'A'")));
        }
    }
}

TEST(MemoryCapacity, WeightsCountOncePerComponentAndTheDesAgrees) {
    // A MatMul with a 1000 x 10 fp32 weight (40000 B) on H: weights + in (4000) + out (40 B).
    Platform p;
    p.name = "w";
    p.add_component(Component{"h", "test", 0, nullptr});
    p.add_device(Device{"H", "h", p.add_resource(ExecResource{"H", 1}), 1,
                        std::make_shared<TableDevice>(1 * kUs)});
    p.host_component = "h";
    Graph g("mm");
    const int in = g.add_tensor("in", {1, 1000}, DType::f32, TensorKind::input);
    const int w = g.add_tensor("W", {1000, 10}, DType::f32, TensorKind::weight);
    const int out = g.add_tensor("out", {1, 10}, DType::f32);
    g.add_op("M", "MatMul", {in, w}, {out});
    g.finalize();
    const ExecGraph exec = lower(g, Placement{{0}, {}}, p);
    const auto [a, d] = evaluate_both(p, exec, 4);
    // Four pipelined samples on one device run one after another: each input is freed when
    // its M ends, outputs stay; the peak is at the 4th M: 40000 + 4000 + 4 x 40.
    EXPECT_EQ(a.memory[0].peak_bytes, 40000 + 4000 + 4 * 40);
    EXPECT_EQ(d.memory[0].peak_bytes, a.memory[0].peak_bytes);
}

}  // namespace
}  // namespace hetsim::sim
