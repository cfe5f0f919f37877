// mcm2022 §5.1's analytical model (placement/mcm/analytic.hpp) on the Figure 2a graph and a
// three-chip ring with round numbers: loads by hand, relayed tensors, the host stages, the
// validity checks against the reference checker on random partitions of random DAGs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/constraints.hpp"
#include "placement/mcm/problem.hpp"
#include "placement/placer.hpp"
#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/mcm_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::placement::mcm {
namespace {

using ::testing::HasSubstr;

sim::Graph figure2() {
    return sim::workloads::parse_json_graph(hetsim::testing::kMcmFigure2, "figure2");
}

sim::Platform ring(int chips, const std::string& sram = "32 MiB") {
    return hetsim::testing::parse_platform_yaml(
        hetsim::testing::mcm_ring_platform_yaml(chips, sram));
}

constexpr double kNs = 1e-9;
constexpr double kPs = 1e-12;

TEST(McmProblem, CostsOpsTensorsAndRoutesOnce) {
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3);
    const McmProblem problem(g, p);
    EXPECT_EQ(problem.chip_count(), 3);
    EXPECT_TRUE(problem.homogeneous());
    // Relu of 4 elements: 4 ops at 100 GOPS; MatMul [1,4]x[4,4]: 32 ops at 1 TOPS.
    EXPECT_NEAR(problem.op_time_s(0, 0), 40 * kPs, 1e-18);
    EXPECT_NEAR(problem.op_time_s(3, 2), 32 * kPs, 1e-18);
    // x, t0..t4 move (t4 to the host); w is a weight of n3.
    ASSERT_EQ(problem.flows().size(), 6u);
    EXPECT_EQ(problem.flows().front().producer, -1);
    EXPECT_TRUE(problem.flows().back().graph_output);
    ASSERT_EQ(problem.weights().size(), 1u);
    EXPECT_EQ(problem.weights().front().bytes, 64);
    EXPECT_EQ(problem.op_weight_bytes(3), 64);
    EXPECT_NEAR(problem.ring_hop(1).time_s(16), 116 * kNs, 1e-15);
    EXPECT_NEAR(problem.host_in().time_s(16), 1016 * kNs, 1e-15);
    EXPECT_NEAR(problem.host_out(2).time_s(16), 1016 * kNs, 1e-15);
    EXPECT_EQ(problem.edges().size(), 5u);
    const std::vector<int> f{0, 1, 1, 2, 2};
    EXPECT_EQ(problem.from_placement(problem.to_placement(f)), f);
}

TEST(McmAnalytic, Figure2LoadsByHand) {
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3);
    const McmProblem problem(g, p);
    AnalyticModel model(problem);
    const AnalyticResult r = model.evaluate({0, 1, 1, 2, 2});
    ASSERT_TRUE(r.valid) << r.reason;
    ASSERT_EQ(r.chips.size(), 3u);
    // chip 0: n0 (40 ps) + t0 over ring0 (100 ns + 16 B at 1 ns/B).
    EXPECT_NEAR(r.chips[0].load_s(), 40 * kPs + 116 * kNs, 1e-15);
    // chip 1: n1, n2 + t1 and t2 over ring1.
    EXPECT_NEAR(r.chips[1].compute_s, 80 * kPs, 1e-18);
    EXPECT_NEAR(r.chips[1].ring_s, 232 * kNs, 1e-15);
    // chip 2: n3 (32 ps) + n4 (40 ps) + t4 to the host (1 us + 16 ns).
    EXPECT_NEAR(r.chips[2].host_out_s, 1016 * kNs, 1e-15);
    EXPECT_NEAR(r.chips[2].load_s(), 72 * kPs + 1016 * kNs, 1e-15);
    EXPECT_EQ(r.chips[2].weight_bytes, 64);
    EXPECT_NEAR(r.host_in_s, 1016 * kNs, 1e-15);
    EXPECT_EQ(r.bottleneck_chip, 2);
    EXPECT_EQ(r.chips_used, 3);
    EXPECT_NEAR(r.time_per_sample_s, 72 * kPs + 1016 * kNs, 1e-15);
    EXPECT_NEAR(r.throughput_per_s, 1.0 / r.time_per_sample_s, 1e-6);
    EXPECT_DOUBLE_EQ(model.time_per_sample_s({0, 1, 1, 2, 2}), r.time_per_sample_s);
}

TEST(McmAnalytic, RelayedTensorsLoadEveryLinkOnTheirWay) {
    // {n0, n2} on chip 0, n1 on chip 1, {n3, n4} on chip 2: t2 goes from chip 0 to chip 2
    // through chip 1. The chip graph has 0 -> 1 -> 2 and the direct 0 -> 2: a triangle, which
    // the verdict names, while the loads are still computed.
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3);
    const McmProblem problem(g, p);
    AnalyticModel model(problem);
    const AnalyticResult r = model.evaluate({0, 1, 0, 2, 2});
    // ring0 carries t0 and t2; ring1 carries t1 and t2 (relayed).
    EXPECT_NEAR(r.chips[0].ring_s, 232 * kNs, 1e-15);
    EXPECT_NEAR(r.chips[1].ring_s, 232 * kNs, 1e-15);
    EXPECT_FALSE(r.valid);
    EXPECT_THAT(r.reason, HasSubstr("triangle (Eq. 4)"));
}

TEST(McmAnalytic, WeightsBeyondSramAreInvalid) {
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3, "48 B");
    const McmProblem problem(g, p);
    AnalyticModel model(problem);
    const AnalyticResult r = model.evaluate({0, 1, 1, 2, 2});
    EXPECT_FALSE(r.valid);
    EXPECT_THAT(r.reason, HasSubstr("chip 2 holds 64 B of weights, more than its 48 B"));
    EXPECT_FALSE(model.weights_fit({0, 1, 1, 2, 2}));
}

TEST(McmAnalytic, FastCheckAgreesWithTheReferenceCheckerOnRandomPartitions) {
    std::mt19937_64 rng(7);
    int valid = 0;
    for (std::int64_t seed = 1; seed <= 5; ++seed) {
        const sim::Graph g = sim::workloads::build_model(
            "random_dag", {{"seed", seed}, {"nodes", 12}, {"width", 3}, {"hidden", 4}});
        for (int chips : {2, 3, 5}) {
            const sim::Platform p = ring(chips);
            const McmProblem problem(g, p);
            AnalyticModel model(problem);
            std::uniform_int_distribution<int> chip(0, chips - 1);
            for (int trial = 0; trial < 300; ++trial) {
                std::vector<int> f(static_cast<std::size_t>(g.op_count()));
                // Sorted chips along the topological order make Eq. 2 hold often, so that all
                // three constraints get exercised, not only Eq. 2.
                for (int& c : f)
                    c = chip(rng);
                if (trial % 2 == 0) {
                    std::vector<int> sorted = f;
                    std::sort(sorted.begin(), sorted.end());
                    for (std::size_t i = 0; i < f.size(); ++i)
                        f[static_cast<std::size_t>(g.topo_order()[i])] = sorted[i];
                }
                const bool reference = check_static_constraints(g, f, chips).empty();
                ASSERT_EQ(model.static_constraints_hold(f), reference);
                valid += reference ? 1 : 0;
            }
        }
    }
    EXPECT_GT(valid, 50);  // the property was tested on valid partitions too
}

TEST(McmProblem, TheReserveShrinksWhatWeightsMayTakeNotTheSram) {
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3, "100 B");
    const McmProblem reserved(g, p, 0.25);
    EXPECT_EQ(reserved.sram_bytes(), (std::vector<std::int64_t>{100, 100, 100}));
    EXPECT_EQ(reserved.capacity_bytes(), (std::vector<std::int64_t>{75, 75, 75}));
    // n3's 64 B weight fits 75 B; with half the SRAM reserved (50 B) it does not.
    AnalyticModel fits(reserved);
    EXPECT_TRUE(fits.weights_fit({0, 1, 1, 2, 2}));
    const McmProblem half(g, p, 0.5);
    AnalyticModel too_small(half);
    EXPECT_FALSE(too_small.weights_fit({0, 1, 1, 2, 2}));
    EXPECT_NE(reserved.fingerprint(), half.fingerprint());
    EXPECT_EQ(reserved.fingerprint(), McmProblem(g, p, 0.25).fingerprint());
    EXPECT_THROW(McmProblem(g, p, 1.0), PlacementError);
}

TEST(McmProblem, RefusesPlatformsWithoutARing) {
    const sim::Graph g = figure2();
    const sim::Platform host_only =
        hetsim::testing::parse_platform_yaml(hetsim::testing::kHostWithoutChips);
    try {
        const McmProblem problem(g, host_only);
        FAIL() << "expected an InputError";
    } catch (const sim::InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("no device has role chiplet"));
    }
}

}  // namespace
}  // namespace hetsim::placement::mcm
