// `type: table` (devices/table.hpp): an op's time on the device is its `costs_s` entry in the
// device's column; an op without one, or with an infinite one, cannot run there. Usable from
// YAML platforms, with `arbitration: none` links (sim/platform.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "devices/table.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::devices {
namespace {

using ::testing::HasSubstr;

const char* kTwoProcessors = R"(
name: two
host: p0
components:
  p0: {type: table, column: 0}
  p1: {type: table, column: 1}
  l: {type: pcie, endpoints: [p0, p1], bandwidth: 1 GB/s, arbitration: none}
)";

TEST(Table, AnOpTakesItsCostInTheDevicesColumn) {
    const sim::Platform p = hetsim::testing::parse_platform_yaml(kTwoProcessors);
    ASSERT_EQ(p.device_count(), 2);
    EXPECT_EQ(p.links().front().arbitration, sim::Arbitration::none);
    sim::Graph g("g");
    const int a = g.add_tensor("a", {0}, sim::DType::i8);
    const int b = g.add_tensor("b", {0}, sim::DType::i8);
    const int c = g.add_tensor("c", {0}, sim::DType::i8);
    g.add_op("t0", "Task", {}, {a}, {{kTaskCostsAttribute, std::vector<double>{3.0, 5.0}}});
    g.add_op(
        "t1", "Task", {}, {b},
        {{kTaskCostsAttribute, std::vector<double>{2.0, std::numeric_limits<double>::infinity()}}});
    g.add_op("t2", "Task", {}, {c});
    g.finalize();
    const auto& p0 = *p.device(0).model;
    const auto& p1 = *p.device(1).model;
    EXPECT_EQ(p0.op_time_s(g, g.op(0)), 3.0);
    EXPECT_EQ(p1.op_time_s(g, g.op(0)), 5.0);
    EXPECT_TRUE(p0.supports(g, g.op(1)).ok);
    EXPECT_FALSE(p1.supports(g, g.op(1)).ok);
    EXPECT_THAT(p1.supports(g, g.op(1)).reason, HasSubstr("its cost in column 1 is inf"));
    EXPECT_FALSE(p0.supports(g, g.op(2)).ok);
    EXPECT_THAT(p0.supports(g, g.op(2)).reason, HasSubstr("no cost for column 0"));
}

TEST(Table, BadParametersAreRefused) {
    EXPECT_THAT(hetsim::testing::platform_yaml_error(R"(
name: bad
components:
  p0: {type: table, column: -1}
)"),
                HasSubstr("must be >= 0, got -1"));
    EXPECT_THAT(hetsim::testing::platform_yaml_error(R"(
name: bad
components:
  p0: {type: table}
  p1: {type: table, column: 1}
  l: {type: pcie, endpoints: [p0, p1], bandwidth: 1 GB/s, arbitration: ideal}
)"),
                HasSubstr("'none' (no contention"));
}

}  // namespace
}  // namespace hetsim::devices
