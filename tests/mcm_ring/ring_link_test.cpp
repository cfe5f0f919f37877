// The one-way ring_link (mcm_ring/ring_link.hpp) and the mcm36 platform's routes: a transfer
// from chip a to chip b < ... crosses b - a links, store and forward, and the ring's closure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "mcm_ring/ring_link.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/transfer_cost.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::mcm_ring {
namespace {

using hetsim::testing::platform_yaml_error;
using ::testing::HasSubstr;

sim::Platform mcm36() {
    app::register_all();
    return sim::load_platform(std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/mcm36.yaml");
}

// mcm36.yaml's ring link: 200 ns + bytes / 25 GB/s per hop.
constexpr double kHopLatency_s = 200e-9;
constexpr double kRingBandwidth_Bps = 25e9;

TEST(RingLinkModel, LatencyPlusBytesOverBandwidth) {
    const RingLinkModel link(200e-9, 25e9);
    EXPECT_EQ(link.type(), "ring_link");
    // 5000 B / 25 GB/s = 200 ns, + 200 ns.
    EXPECT_DOUBLE_EQ(link.transfer_time_s(5000, true), 400e-9);
}

TEST(Mcm36, HasThirtySixChipletsAndAHostThatRunsNothing) {
    const sim::Platform p = mcm36();
    int chiplets = 0;
    for (const sim::Device& d : p.devices()) {
        if (d.role() == sim::DeviceRole::chiplet) {
            EXPECT_EQ(d.name, "chip" + std::to_string(chiplets));
            EXPECT_EQ(p.find_component(d.component)->memory_bytes, 32 * 1024 * 1024);
            ++chiplets;
        }
    }
    EXPECT_EQ(chiplets, 36);
    EXPECT_EQ(p.host_component, "host");
    EXPECT_EQ(p.device_count(), 37);
}

TEST(Mcm36, ChipThreeToChipSevenCrossesFourRingLinksStoreAndForward) {
    const sim::Platform p = mcm36();
    const auto* route = p.route("chip3", "chip7");
    ASSERT_NE(route, nullptr);
    ASSERT_EQ(route->size(), 4u);
    for (std::size_t i = 0; i < route->size(); ++i) {
        const sim::Link& link = p.links()[static_cast<std::size_t>((*route)[i].link)];
        EXPECT_EQ(link.name, "ring" + std::to_string(3 + i));
        EXPECT_TRUE((*route)[i].forward);
        EXPECT_TRUE(link.one_way);
    }
    // 4 x (200 ns + 4000 B / 25 GB/s) = 4 x 360 ns = 1.44 us.
    EXPECT_DOUBLE_EQ(hetsim::sim::transfer_cost(p, "chip3", hetsim::sim::DType::f32, "chip7",
                                                hetsim::sim::DType::f32, 1000)
                         .seconds(),
                     4 * (kHopLatency_s + 4000 / kRingBandwidth_Bps));
    EXPECT_DOUBLE_EQ(hetsim::sim::transfer_cost(p, "chip3", hetsim::sim::DType::f32, "chip7",
                                                hetsim::sim::DType::f32, 1000)
                         .seconds(),
                     1.44e-6);
}

TEST(Mcm36, ABackwardTransferGoesRoundTheClosedRingNeverThroughTheHost) {
    // chip7 -> chip3 exists only round the ring: chip7 .. chip35 -> chip0 .. chip3 is
    // 29 + 3 = 32 links. Through the host it would be 1 + 4 hops, but the host is no relay.
    const sim::Platform p = mcm36();
    const auto* route = p.route("chip7", "chip3");
    ASSERT_NE(route, nullptr);
    EXPECT_EQ(route->size(), 32u);
    for (const sim::Hop& hop : *route)
        EXPECT_EQ(p.links()[static_cast<std::size_t>(hop.link)].model->type(), "ring_link");
    EXPECT_FALSE(p.is_relay("host"));
}

TEST(Mcm36, InputsEnterAtChipZeroAndOutputsLeaveFromAnyChip) {
    const sim::Platform p = mcm36();
    const auto* in = p.route("host", "chip3");
    ASSERT_NE(in, nullptr);
    ASSERT_EQ(in->size(), 4u);  // host_in, ring0, ring1, ring2
    EXPECT_EQ(p.links()[static_cast<std::size_t>(in->front().link)].name, "host_in");
    const auto* out = p.route("chip7", "host");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(out->size(), 1u);
    EXPECT_EQ(p.links()[static_cast<std::size_t>(out->front().link)].name, "out7");
}

TEST(Mcm36, TheDesMovesAnActivationFromChipThreeToChipSevenInFourHops) {
    // x -> a (Relu on chip3) -> b (Relu on chip7): b starts exactly 4 x 240 ns after a ends
    // (mcm36's chips keep tensors in int8: 1,000 B at 25 GB/s = 40 ns, plus 200 ns per hop),
    // through four transfer tasks, in both evaluators.
    const sim::Platform p = mcm36();
    sim::Graph g("two_relus");
    const int x = g.add_tensor("x", {1, 1000}, sim::DType::f32, sim::TensorKind::input);
    const int a_out = g.add_tensor("a_out", {1, 1000}, sim::DType::f32);
    const int b_out = g.add_tensor("b_out", {1, 1000}, sim::DType::f32);
    const int a = g.add_op("a", "Relu", {x}, {a_out});
    const int b = g.add_op("b", "Relu", {a_out}, {b_out});
    g.mark_output(b_out);
    g.finalize();
    sim::Placement placement;
    placement.device_of_op = {*p.find_device("chip3"), *p.find_device("chip7")};
    const sim::ExecGraph exec = sim::lower(g, placement, p);
    int transfers_of_a = 0;
    for (const sim::Task& t : exec.tasks) {
        if (t.kind == sim::TaskKind::transfer && t.tensor == a_out)
            ++transfers_of_a;
    }
    EXPECT_EQ(transfers_of_a, 4);
    sim::AnalyticEvaluator analytic;
    sim::DesEvaluator des(p, sim::EvalOptions{1});
    for (const sim::Metrics& m : {analytic.evaluate(exec), des.evaluate(exec)}) {
        std::int64_t a_finish = -1;
        std::int64_t b_start = -1;
        for (const sim::Task& t : exec.tasks) {
            const auto& timing = m.task_timings[static_cast<std::size_t>(t.order)];
            if (t.kind == sim::TaskKind::compute && t.op == a)
                a_finish = timing.finish_ps;
            if (t.kind == sim::TaskKind::compute && t.op == b)
                b_start = timing.start_ps;
        }
        EXPECT_EQ(b_start - a_finish, 960'000);  // 0.96 us in ps
    }
}

std::string ring_yaml(const std::string& link) {
    return R"(
name: ring
host: host
relays: [c0, c1]
components:
  host: {type: ring_host}
  c0: {type: chiplet, matmul_rate: 4 TOPS, elementwise_rate: 0.25 TOPS, memory: 32 MiB}
  c1: {type: chiplet, matmul_rate: 4 TOPS, elementwise_rate: 0.25 TOPS, memory: 32 MiB}
  in: {type: ring_link, endpoints: [host, c0], bandwidth: 25 GB/s, latency: 200 ns}
  out: {type: ring_link, endpoints: [c1, host], bandwidth: 25 GB/s, latency: 200 ns}
  back: {type: ring_link, endpoints: [c1, c0], bandwidth: 25 GB/s, latency: 200 ns}
)" + link;
}

TEST(RingLinkYaml, ParsesAsOneWay) {
    const sim::Platform p = hetsim::testing::parse_platform_yaml(ring_yaml(
        "  r0: {type: ring_link, endpoints: [c0, c1], bandwidth: 25 GB/s, latency: 200 ns}\n"));
    const sim::Link& r0 = p.links().back();
    EXPECT_EQ(r0.name, "r0");
    EXPECT_TRUE(r0.one_way);
    EXPECT_DOUBLE_EQ(r0.model->transfer_time_s(5000, true), 400e-9);
}

TEST(RingLinkYaml, ABackwardDirectionIsRefused) {
    const std::string e = platform_yaml_error(
        ring_yaml("  r0: {type: ring_link, endpoints: [c0, c1], bandwidth: 25 GB/s, "
                  "latency: 200 ns, backward: {bandwidth: 25 GB/s}}\n"));
    EXPECT_THAT(e, HasSubstr("test.yaml"));
    EXPECT_THAT(e, HasSubstr("components.r0.backward"));
    EXPECT_THAT(e, HasSubstr("one-way"));
}

TEST(RingLinkYaml, OneWayFalseIsRefused) {
    const std::string e = platform_yaml_error(
        ring_yaml("  r0: {type: ring_link, endpoints: [c0, c1], bandwidth: 25 GB/s, "
                  "latency: 200 ns, one_way: false}\n"));
    EXPECT_THAT(e, HasSubstr("components.r0.one_way"));
    EXPECT_THAT(e, HasSubstr("one-way"));
}

TEST(RingLinkYaml, NegativeLatencyAndMissingUnitNameThePath) {
    EXPECT_THAT(platform_yaml_error(ring_yaml("  r0: {type: ring_link, endpoints: [c0, c1], "
                                              "bandwidth: 25 GB/s, latency: -1 ns}\n")),
                HasSubstr("components.r0.latency"));
    EXPECT_THAT(platform_yaml_error(ring_yaml("  r0: {type: ring_link, endpoints: [c0, c1], "
                                              "bandwidth: 25, latency: 200 ns}\n")),
                HasSubstr("components.r0.bandwidth"));
}

TEST(RingLinkYaml, AnOpenRingIsRefusedByTheRouteCheck) {
    // Without `back` (c1 -> c0) nothing reaches c0 from c1: parse_platform's every-pair route
    // check names the pair. This is why mcm36.yaml closes its ring.
    std::string yaml = ring_yaml(
        "  r0: {type: ring_link, endpoints: [c0, c1], bandwidth: 25 GB/s, latency: 200 ns}\n");
    yaml.erase(yaml.find("  back:"), yaml.find("  r0:") - yaml.find("  back:"));
    const std::string e = platform_yaml_error(yaml);
    EXPECT_THAT(e, HasSubstr("no route from 'c1' to 'c0'"));
}

}  // namespace
}  // namespace hetsim::mcm_ring
