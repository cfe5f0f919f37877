// Routes over the link graph (docs/DESIGN.md "Routes and relays"): fewest hops, one-way
// links, relays, deterministic ties, and the load-time errors of parse_platform.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "sim/transfer_cost.hpp"
#include "tests/fixtures/platform_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::sim {
namespace {

using hetsim::testing::add_simple_device;
using hetsim::testing::FixedLink;
using hetsim::testing::platform_yaml_error;
using hetsim::testing::TableDevice;
using ::testing::HasSubstr;

Platform components(const std::vector<std::string>& names) {
    Platform p;
    p.name = "routes";
    for (const auto& n : names)
        add_simple_device(p, n, "D" + n, std::make_shared<TableDevice>(1e-6));
    p.host_component = names.front();
    return p;
}

void link(Platform& p, const std::string& name, const std::string& a, const std::string& b,
          bool one_way = false) {
    Link l{name, a, b, std::make_shared<FixedLink>(1e-6, 1e9)};
    l.one_way = one_way;
    p.add_link(l);
}

// The route as "link>" (forward) or "link<" (backward) per hop.
std::string describe(const Platform& p, const std::string& from, const std::string& to) {
    const std::vector<Hop>* r = p.route(from, to);
    if (r == nullptr)
        return "none";
    std::string s;
    for (const Hop& h : *r)
        s += p.links()[static_cast<std::size_t>(h.link)].name + (h.forward ? ">" : "<");
    return s;
}

TEST(Routes, AOneWayRingGoesTheLongWayRoundBackwards) {
    // c0 -> c1 -> c2 -> c3 -> c0, one-way, every chiplet a relay (mcm2022's ring).
    Platform p = components({"c0", "c1", "c2", "c3"});
    link(p, "r01", "c0", "c1", true);
    link(p, "r12", "c1", "c2", true);
    link(p, "r23", "c2", "c3", true);
    link(p, "r30", "c3", "c0", true);
    p.relays_all = true;
    EXPECT_EQ(describe(p, "c0", "c1"), "r01>");
    EXPECT_EQ(describe(p, "c1", "c0"), "r12>r23>r30>");  // three hops, never backwards
    EXPECT_EQ(describe(p, "c2", "c1"), "r23>r30>r01>");
    EXPECT_EQ(describe(p, "c0", "c0"), "");
    // Store and forward: three hops of 1 µs + 4000 B / 1 GB/s.
    EXPECT_DOUBLE_EQ(hetsim::sim::transfer_cost(p, "c1", hetsim::sim::DType::f32, "c0",
                                                hetsim::sim::DType::f32, 1000)
                         .seconds(),
                     3 * 5e-6);
}

TEST(Routes, OnlyRelaysForward) {
    Platform p = components({"h", "a0", "a1"});
    link(p, "p0", "h", "a0");
    link(p, "p1", "h", "a1");
    EXPECT_EQ(describe(p, "a0", "a1"), "none");
    p.relays = {"h"};
    p.add_link(Link{"x", "a0", "h", std::make_shared<FixedLink>(1e-6, 1e9)});  // invalidates
    EXPECT_EQ(describe(p, "a0", "a1"), "p0<p1>");
}

TEST(Routes, TiesGoToTheSmallestLinkSequence) {
    // Two 2-hop routes from s to t: via m1 (links 2, 3) and via m0 (links 0, 1); the link
    // indices decide, not the component names or insertion order of components.
    Platform p = components({"s", "t", "m1", "m0"});
    link(p, "s_m1", "s", "m1");  // 0
    link(p, "m1_t", "m1", "t");  // 1
    link(p, "s_m0", "s", "m0");  // 2
    link(p, "m0_t", "m0", "t");  // 3
    p.relays_all = true;
    EXPECT_EQ(describe(p, "s", "t"), "s_m1>m1_t>");
    EXPECT_EQ(describe(p, "t", "s"), "m1_t<s_m1<");
}

std::string three_cpus(const std::string& links, const std::string& relays = "") {
    std::string text = "name: t\nhost: a\n" + relays + "components:\n";
    for (const char* c : {"a", "b", "c"}) {
        text += std::string("  ") + c + ":\n    type: cpu\n    devices: {" +
                std::string(1, static_cast<char>(c[0] - 32)) +
                ": serial}\n    cores: 1\n    clock: 1 GHz\n    flops_per_cycle: 1\n"
                "    l1d: 32 KiB\n    l2: 1 MiB\n    dram_bandwidth: 1 GB/s\n";
    }
    return text + links;
}

TEST(Routes, ParsePlatformNeedsARouteBetweenEveryPair) {
    const std::string links =
        "  ab:\n    type: pcie\n    endpoints: [a, b]\n    bandwidth: 1 GB/s\n"
        "  ac:\n    type: pcie\n    endpoints: [a, c]\n    bandwidth: 1 GB/s\n";
    EXPECT_THAT(platform_yaml_error(three_cpus(links)),
                HasSubstr("no route from 'b' to 'c': they must exchange data"));
    EXPECT_EQ(platform_yaml_error(three_cpus(links, "relays: [a]\n")), "(no error)");
    EXPECT_THAT(platform_yaml_error(three_cpus(links, "relays: [z]\n")),
                HasSubstr("relays.0: relay 'z' is not a component of this platform"));
    EXPECT_EQ(platform_yaml_error(three_cpus(links, "relays: all\n")), "(no error)");
}

TEST(Routes, OneWayLinksParseAndFormARing) {
    const std::string ring =
        "  ab:\n    type: dma\n    endpoints: [a, b]\n    one_way: true\n"
        "    forward: {bandwidth: 1 GB/s}\n"
        "  bc:\n    type: pcie\n    endpoints: [b, c]\n    one_way: true\n    bandwidth: 1 GB/s\n"
        "  ca:\n    type: pcie\n    endpoints: [c, a]\n    one_way: true\n    bandwidth: 1 GB/s\n"
        "    arbitration: fifo\n";
    const Platform p = hetsim::testing::parse_platform_yaml(three_cpus(ring, "relays: all\n"));
    EXPECT_EQ(describe(p, "a", "c"), "ab>bc>");
    EXPECT_EQ(p.links()[2].arbitration, Arbitration::fifo);
    EXPECT_EQ(p.links()[0].arbitration, Arbitration::shared);
    EXPECT_THAT(platform_yaml_error(three_cpus(ring)), HasSubstr("no route from 'a' to 'c'"));
    const std::string backward =
        "  ab:\n    type: dma\n    endpoints: [a, b]\n    one_way: true\n"
        "    forward: {bandwidth: 1 GB/s}\n    backward: {bandwidth: 1 GB/s}\n";
    EXPECT_THAT(platform_yaml_error(three_cpus(backward)),
                HasSubstr("backward: a one-way link has no backward direction"));
    EXPECT_THAT(platform_yaml_error(three_cpus(
                    "  ab:\n    type: pcie\n    endpoints: [a, b]\n    bandwidth: 1 GB/s\n"
                    "    arbitration: round_robin\n")),
                HasSubstr("arbitration: expected 'shared'"));
}

TEST(Routes, TwoOneWayLinksInOppositeDirectionsAreAllowed) {
    const std::string pair =
        "  ab:\n    type: pcie\n    endpoints: [a, b]\n    one_way: true\n    bandwidth: 1 GB/s\n"
        "  ba:\n    type: pcie\n    endpoints: [b, a]\n    one_way: true\n    bandwidth: 2 GB/s\n"
        "  ac:\n    type: pcie\n    endpoints: [a, c]\n    bandwidth: 1 GB/s\n";
    const Platform p = hetsim::testing::parse_platform_yaml(three_cpus(pair, "relays: [a]\n"));
    EXPECT_EQ(describe(p, "b", "a"), "ba>");
    EXPECT_EQ(describe(p, "b", "c"), "ba>ac>");
}

}  // namespace
}  // namespace hetsim::sim
