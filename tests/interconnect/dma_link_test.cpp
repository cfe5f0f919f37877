#include "interconnect/dma_link.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/platform.hpp"
#include "sim/transfer_cost.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::interconnect {
namespace {

TEST(DmaLinkModel, LatencyPlusBytesOverBandwidthPerDirection) {
    DmaLinkParams p;
    p.forward = {2e9, 5e-6};
    p.backward = {1e9, 10e-6};
    p.convert_on = "cpu";
    const DmaLinkModel link(p);
    EXPECT_EQ(link.type(), "dma");
    // forward: 5 us + 1000 B / 2 GB/s = 5 us + 0.5 us.
    EXPECT_DOUBLE_EQ(link.transfer_time_s(1000, true), 5.5e-6);
    // backward: 10 us + 1 MB / 1 GB/s = 10 us + 1 ms.
    EXPECT_DOUBLE_EQ(link.transfer_time_s(1'000'000, false), 1.01e-3);
    // An empty transfer still pays the descriptor latency.
    EXPECT_DOUBLE_EQ(link.transfer_time_s(0, true), 5e-6);
    EXPECT_EQ(link.converting_component(), "cpu");
}

// A two-component platform with the link written by the test.
std::string platform_yaml(const std::string& link) {
    return "name: t\nhost: cpu\ncomponents:\n" +
           hetsim::testing::one_core_cpu_component("{CPU_S: serial}",
                                                   "    convert_bandwidth: 1 GB/s\n") +
           R"(  pim:
    type: silent_pim
    device: PIM
    memspec: ddr4-2400
)" + link;
}

sim::Platform parse(const std::string& link) {
    return hetsim::testing::parse_platform_yaml(platform_yaml(link));
}

std::string parse_error(const std::string& link) {
    return hetsim::testing::platform_yaml_error(platform_yaml(link));
}

// A dma link "dma" for the error tests: a valid link unless a field says otherwise.
struct DmaLink {
    std::string endpoints = "[cpu, pim]";
    std::string forward = "{bandwidth: 2 GB/s, latency: 5 us}";
    std::string backward = "{bandwidth: 1 GB/s, latency: 8 us}";  // empty: no backward key
    std::string extra_lines = "";
};

std::string dma_yaml(const DmaLink& link) {
    return "  dma:\n    type: dma\n    endpoints: " + link.endpoints +
           "\n    forward: " + link.forward + "\n" +
           (link.backward.empty() ? "" : "    backward: " + link.backward + "\n") +
           link.extra_lines;
}

TEST(DmaLinkYaml, ParsesBothDirections) {
    const sim::Platform platform = parse(R"(
  dma:
    type: dma
    endpoints: [cpu, pim]
    forward: {bandwidth: 2 GB/s, latency: 5 us}
    backward: {bandwidth: 1 GB/s, latency: 8 us}
    convert_on: cpu
)");
    ASSERT_EQ(platform.links().size(), 1u);
    const sim::Link& link = platform.links()[0];
    EXPECT_EQ(link.name, "dma");
    EXPECT_EQ(link.endpoint_a, "cpu");
    EXPECT_EQ(link.endpoint_b, "pim");
    EXPECT_EQ(link.model->type(), "dma");
    EXPECT_EQ(link.model->converting_component(), "cpu");
    // 5 us + 2000 B / 2 GB/s = 6 us; 8 us + 2000 B / 1 GB/s = 10 us.
    EXPECT_DOUBLE_EQ(link.model->transfer_time_s(2000, true), 6e-6);
    EXPECT_DOUBLE_EQ(link.model->transfer_time_s(2000, false), 10e-6);
    const auto* route = platform.route("pim", "cpu");
    ASSERT_NE(route, nullptr);
    ASSERT_EQ(route->size(), 1u);
    EXPECT_EQ(route->front().link, 0);
    EXPECT_FALSE(route->front().forward);
}

TEST(DmaLinkYaml, PcieIsSymmetricWithOptionalOverride) {
    const sim::Platform sym = parse(R"(
  pcie:
    type: pcie
    endpoints: [cpu, pim]
    bandwidth: 12 GB/s
    latency: 5 us
)");
    const auto& link = *sym.links()[0].model;
    EXPECT_EQ(link.type(), "pcie");
    EXPECT_EQ(link.converting_component(), "");
    // 5 us + 12 kB / 12 GB/s = 6 us, both ways.
    EXPECT_DOUBLE_EQ(link.transfer_time_s(12000, true), 6e-6);
    EXPECT_DOUBLE_EQ(link.transfer_time_s(12000, false), 6e-6);

    const sim::Platform asym = parse(R"(
  pcie:
    type: pcie
    endpoints: [cpu, pim]
    bandwidth: 12 GB/s
    latency: 5 us
    backward: {bandwidth: 6 GB/s}
)");
    const auto& link2 = *asym.links()[0].model;
    EXPECT_DOUBLE_EQ(link2.transfer_time_s(12000, true), 6e-6);
    // Overridden bandwidth, inherited latency: 5 us + 12 kB / 6 GB/s = 7 us.
    EXPECT_DOUBLE_EQ(link2.transfer_time_s(12000, false), 7e-6);
}

// Pageable host buffers (host_staging_bandwidth): CUDA stages each copy through a pinned
// buffer before its DMA, so a byte pays both rates; a copy from pinned memory (the
// page-locked rate, and route_cost's page_locked) pays the DMA's alone.
TEST(DmaLinkYaml, PageableHostBuffersPayTheStagingCopy) {
    const sim::Platform platform = parse(R"(
  pcie:
    type: pcie
    endpoints: [cpu, pim]
    bandwidth: 12 GB/s
    latency: 5 us
    host_staging_bandwidth: 4 GB/s
)");
    const auto& link = *platform.links()[0].model;
    // 5 us + 12 kB / 12 GB/s + 12 kB / 4 GB/s = 5 + 1 + 3 us, both ways.
    EXPECT_DOUBLE_EQ(link.transfer_time_s(12000, true), 9e-6);
    EXPECT_DOUBLE_EQ(link.transfer_time_s(12000, false), 9e-6);
    EXPECT_DOUBLE_EQ(link.page_locked_bandwidth_Bps(true), 12e9);
    EXPECT_DOUBLE_EQ(sim::route_cost(platform, "cpu", "pim").time_s(12000), 9e-6);
    EXPECT_DOUBLE_EQ(sim::route_cost(platform, "cpu", "pim", true).time_s(12000), 6e-6);

    const std::string e = parse_error(R"(
  pcie:
    type: pcie
    endpoints: [cpu, pim]
    bandwidth: 12 GB/s
    host_staging_bandwidth: 0 GB/s
)");
    EXPECT_NE(e.find("components.pcie.host_staging_bandwidth"), std::string::npos) << e;
}

TEST(DmaLinkYaml, UnknownKeySuggestsTheClosest) {
    const std::string e = parse_error(dma_yaml({.forward = "{bandwith: 2 GB/s, latency: 5 us}"}));
    EXPECT_NE(e.find("test.yaml"), std::string::npos) << e;
    EXPECT_NE(e.find("components.dma.forward"), std::string::npos) << e;
    EXPECT_NE(e.find("'bandwith'"), std::string::npos) << e;
    EXPECT_NE(e.find("did you mean 'bandwidth'"), std::string::npos) << e;
}

TEST(DmaLinkYaml, MissingUnitNamesThePath) {
    const std::string e = parse_error(dma_yaml({.forward = "{bandwidth: 2, latency: 5 us}"}));
    EXPECT_NE(e.find("components.dma.forward.bandwidth"), std::string::npos) << e;
    EXPECT_NE(e.find("GB/s"), std::string::npos) << e;  // the example unit
}

TEST(DmaLinkYaml, NegativeBandwidthNamesThePath) {
    const std::string e =
        parse_error(dma_yaml({.backward = "{bandwidth: -1 GB/s, latency: 8 us}"}));
    EXPECT_NE(e.find("components.dma.backward.bandwidth"), std::string::npos) << e;
}

TEST(DmaLinkYaml, NegativeLatencyNamesThePath) {
    const std::string e = parse_error(R"(
  pcie:
    type: pcie
    endpoints: [cpu, pim]
    bandwidth: 12 GB/s
    latency: -5 us
)");
    EXPECT_NE(e.find("components.pcie.latency"), std::string::npos) << e;
}

TEST(DmaLinkYaml, EndpointsMustBeTwoDistinctComponents) {
    std::string e = parse_error(dma_yaml({.endpoints = "[cpu, pim, cpu]"}));
    EXPECT_NE(e.find("components.dma.endpoints"), std::string::npos) << e;
    EXPECT_NE(e.find("two component names"), std::string::npos) << e;

    e = parse_error(dma_yaml({.endpoints = "[cpu, cpu]"}));
    EXPECT_NE(e.find("two different endpoints"), std::string::npos) << e;

    // Existence is checked by the platform parser once all components are known.
    e = parse_error(dma_yaml({.endpoints = "[cpu, gpu]"}));
    EXPECT_NE(e.find("'gpu'"), std::string::npos) << e;
}

TEST(DmaLinkYaml, ConvertOnMustBeAnEndpoint) {
    const std::string e = parse_error(dma_yaml({.extra_lines = "    convert_on: gpu\n"}));
    EXPECT_NE(e.find("components.dma.convert_on"), std::string::npos) << e;
    EXPECT_NE(e.find("'gpu'"), std::string::npos) << e;
}

TEST(DmaLinkYaml, DirectionsAreRequiredForDma) {
    const std::string e = parse_error(dma_yaml({.backward = ""}));
    EXPECT_NE(e.find("backward"), std::string::npos) << e;
}

}  // namespace
}  // namespace hetsim::interconnect
