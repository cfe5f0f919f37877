// The chiplet and ring_host device types (mcm_ring/chiplet.hpp): hand-computed op times and
// the YAML errors, each naming the file and YAML path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "mcm_ring/chiplet.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::mcm_ring {
namespace {

using hetsim::testing::binary;
using hetsim::testing::OneOp;
using hetsim::testing::platform_yaml_error;
using ::testing::HasSubstr;

ChipletParams small_chip() {
    ChipletParams p;
    p.matmul_rate_ops = 1e9;       // 1 GOP/s = 0.5 GMAC/s
    p.elementwise_rate_ops = 1e6;  // 1 MOP/s
    p.op_overhead_s = 1e-6;
    return p;
}

TEST(ChipletModel, MatMulRunsAtTheMacRateBehindTheOverhead) {
    // (4x8) x (8x16): 4*16*8 = 512 MACs = 1024 OPs at 1 GOP/s = 1.024 us, + 1 us.
    const OneOp g = binary("MatMul", {4, 8}, {8, 16}, {4, 16});
    ASSERT_DOUBLE_EQ(g.get().flops, 1024.0);
    const ChipletModel chip(small_chip());
    EXPECT_DOUBLE_EQ(chip.op_time_s(g.graph, g.get()), 2.024e-6);
}

TEST(ChipletModel, ElementwiseOpsRunAtTheElementwiseRate) {
    // Add of two (4x8): 32 OPs at 1 MOP/s = 32 us, + 1 us. At the MAC rate it would be
    // 1.032 us: the category decides the rate.
    const OneOp g = binary("Add", {4, 8}, {4, 8}, {4, 8});
    ASSERT_DOUBLE_EQ(g.get().flops, 32.0);
    const ChipletModel chip(small_chip());
    EXPECT_DOUBLE_EQ(chip.op_time_s(g.graph, g.get()), 33e-6);
}

TEST(ChipletModel, ConvRunsAtTheMacRate) {
    // 1x1x4x4 input, one 1x1x3x3 filter, no padding: 2x2 outputs x 9 MACs = 36 MACs = 72 OPs.
    const OneOp g = binary("Conv", {1, 1, 4, 4}, {1, 1, 3, 3}, {1, 1, 2, 2});
    ASSERT_DOUBLE_EQ(g.get().flops, 72.0);
    const ChipletModel chip(small_chip());
    EXPECT_DOUBLE_EQ(chip.op_time_s(g.graph, g.get()), 1e-6 + 72e-9);
}

TEST(ChipletModel, ViewsCostNothingAndEveryOpIsSupported) {
    const OneOp reshape =
        binary("Reshape", {4, 8}, {2}, {8, 4}, {}, sim::TensorKind::weight, sim::DType::f32);
    const ChipletModel chip(small_chip());
    EXPECT_DOUBLE_EQ(chip.op_time_s(reshape.graph, reshape.get()), 0.0);
    EXPECT_TRUE(chip.supports(reshape.graph, reshape.get()).ok);
    const OneOp add = binary("Add", {4, 8}, {4, 8}, {4, 8});
    EXPECT_TRUE(chip.supports(add.graph, add.get()).ok);
    EXPECT_EQ(chip.role(), sim::DeviceRole::chiplet);
}

TEST(RingHostModel, RunsNoOpAndSaysWhy) {
    const OneOp add = binary("Add", {4, 8}, {4, 8}, {4, 8});
    const RingHostModel host;
    EXPECT_EQ(host.role(), sim::DeviceRole::host_cpu);
    const sim::Support s = host.supports(add.graph, add.get());
    EXPECT_FALSE(s.ok);
    EXPECT_THAT(s.reason, HasSubstr("chiplets"));
    EXPECT_TRUE(std::isinf(host.op_time_s(add.graph, add.get())));
}

std::string two_chips(const std::string& chip0_params) {
    return R"(
name: two
host: host
relays: [c0, c1]
components:
  host: {type: ring_host}
  c0:
    type: chiplet
)" + chip0_params +
           R"(
  c1: {type: chiplet, matmul_rate: 4 TOPS, elementwise_rate: 0.25 TOPS, memory: 32 MiB}
  in: {type: ring_link, endpoints: [host, c0], bandwidth: 25 GB/s, latency: 200 ns}
  r0: {type: ring_link, endpoints: [c0, c1], bandwidth: 25 GB/s, latency: 200 ns}
  r1: {type: ring_link, endpoints: [c1, c0], bandwidth: 25 GB/s, latency: 200 ns}
  out: {type: ring_link, endpoints: [c1, host], bandwidth: 25 GB/s, latency: 200 ns}
)";
}

constexpr const char* kGoodChip = R"(    matmul_rate: 4 TOPS
    elementwise_rate: 0.25 TOPS
    op_overhead: 1 us
    memory: 32 MiB)";

TEST(ChipletYaml, DeviceIsNamedAfterItsComponentWithItsSram) {
    const sim::Platform p = hetsim::testing::parse_platform_yaml(two_chips(kGoodChip));
    const auto c0 = p.find_device("c0");
    ASSERT_TRUE(c0.has_value());
    EXPECT_EQ(p.device(*c0).role(), sim::DeviceRole::chiplet);
    EXPECT_EQ(p.find_component("c0")->memory_bytes, 32 * 1024 * 1024);
    const auto& model = dynamic_cast<const ChipletModel&>(*p.device(*c0).model);
    EXPECT_DOUBLE_EQ(model.params().matmul_rate_ops, 4e12);
    EXPECT_DOUBLE_EQ(model.params().elementwise_rate_ops, 0.25e12);
    EXPECT_DOUBLE_EQ(model.params().op_overhead_s, 1e-6);
    const auto host = p.find_device("host");
    ASSERT_TRUE(host.has_value());
    EXPECT_EQ(p.device(*host).role(), sim::DeviceRole::host_cpu);
}

TEST(ChipletYaml, RateWithoutUnitNamesThePath) {
    const std::string e = platform_yaml_error(two_chips(R"(    matmul_rate: 4
    elementwise_rate: 0.25 TOPS
    memory: 32 MiB)"));
    EXPECT_THAT(e, HasSubstr("test.yaml"));
    EXPECT_THAT(e, HasSubstr("components.c0.matmul_rate"));
}

TEST(ChipletYaml, NegativeOverheadNamesThePath) {
    const std::string e = platform_yaml_error(two_chips(R"(    matmul_rate: 4 TOPS
    elementwise_rate: 0.25 TOPS
    op_overhead: -1 us
    memory: 32 MiB)"));
    EXPECT_THAT(e, HasSubstr("components.c0.op_overhead"));
    EXPECT_THAT(e, HasSubstr(">= 0"));
}

TEST(ChipletYaml, SramIsRequired) {
    const std::string e = platform_yaml_error(two_chips(R"(    matmul_rate: 4 TOPS
    elementwise_rate: 0.25 TOPS)"));
    EXPECT_THAT(e, HasSubstr("components.c0"));
    EXPECT_THAT(e, HasSubstr("memory"));
}

TEST(ChipletYaml, UnknownKeyIsRefused) {
    const std::string e = platform_yaml_error(two_chips(R"(    matmul_rate: 4 TOPS
    elementwise_rate: 0.25 TOPS
    sram: 32 MiB
    memory: 32 MiB)"));
    EXPECT_THAT(e, HasSubstr("components.c0"));
    EXPECT_THAT(e, HasSubstr("'sram'"));
}

}  // namespace
}  // namespace hetsim::mcm_ring
