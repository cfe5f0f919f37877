// Placement rules (issue 24 item 5, sim/placement_rules.hpp): a platform's components name the
// rules its placements must keep, code registers each rule by name, and placement_violation
// reports the first one broken as "<rule>: <message>".
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "sim/placement_rules.hpp"
#include "tests/fixtures/platform_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::sim {
namespace {

using hetsim::testing::add_simple_device;
using hetsim::testing::TableDevice;

// Refuses any placement that puts op 0 on device 1.
class NotOpZeroOnOne final : public PlacementRule {
public:
    std::string violation(const Graph& graph, const Platform& platform,
                          const Placement& placement) const override {
        if (placement.device_of_op.at(0) == 1)
            return "op '" + graph.op(0).name + "' may not run on " + platform.device(1).name;
        return {};
    }
};

Graph one_op() {
    Graph g("g");
    const int x = g.add_tensor("x", {1, 8}, DType::f32, TensorKind::input);
    const int y = g.add_tensor("y", {1, 8}, DType::f32);
    g.add_op("A", "Relu", {x}, {y});
    g.finalize();
    return g;
}

TEST(PlacementRules, TheFirstBrokenRuleIsReportedByName) {
    PlacementRuleRegistry::instance().add("test.not_zero_on_one",
                                          std::make_shared<NotOpZeroOnOne>());
    Platform p;
    p.name = "p";
    add_simple_device(p, "c", "D0", std::make_shared<TableDevice>(1e-6));
    add_simple_device(p, "c", "D1", std::make_shared<TableDevice>(1e-6));
    const Graph g = one_op();
    EXPECT_EQ(placement_violation(g, p, Placement{{1}, {}, {}}), "");  // no rule named yet
    p.add_placement_rule("test.not_zero_on_one");
    p.add_placement_rule("test.not_zero_on_one");  // once
    EXPECT_EQ(p.placement_rules().size(), 1U);
    EXPECT_EQ(placement_violation(g, p, Placement{{0}, {}, {}}), "");
    EXPECT_EQ(placement_violation(g, p, Placement{{1}, {}, {}}),
              "test.not_zero_on_one: op 'A' may not run on D1");
    // A rule the platform names but no code registered is a missing registration line.
    p.add_placement_rule("test.unregistered");
    EXPECT_THROW(placement_violation(g, p, Placement{{0}, {}, {}}), std::logic_error);
}

TEST(PlacementRules, TheChipletRingNamesMcm2022sRule) {
    app::register_all();
    const Platform ring =
        load_platform(std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/mcm36.yaml");
    ASSERT_EQ(ring.placement_rules(), std::vector<std::string>{"mcm2022.chiplet_ring"});
    EXPECT_NE(PlacementRuleRegistry::instance().find("mcm2022.chiplet_ring"), nullptr);
    const Platform zynq =
        load_platform(std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/zynq_silentpim.yaml");
    EXPECT_TRUE(zynq.placement_rules().empty());
    // Execution resources: CPU_S and CPU_P are two modes of one processor, PIM another.
    ASSERT_EQ(zynq.resources().size(), 2U);
    std::vector<std::string> on_cpu;
    for (int d : zynq.devices_on_resource(0))
        on_cpu.push_back(zynq.device(d).name);
    EXPECT_EQ(zynq.resources()[0].name, "cpu");
    EXPECT_EQ(on_cpu, (std::vector<std::string>{"CPU_S", "CPU_P"}));
    ASSERT_EQ(zynq.devices_on_resource(1).size(), 1U);
    EXPECT_EQ(zynq.device(zynq.devices_on_resource(1)[0]).name, "PIM");
}

}  // namespace
}  // namespace hetsim::sim
