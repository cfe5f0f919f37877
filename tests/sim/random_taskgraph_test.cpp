// Random task graphs (sim/workloads/random_taskgraph.hpp): the DAGGEN shape knobs and
// Topcuoglu §5.1's cost knobs do what they say, on samples large enough for the means.
#include "sim/workloads/random_taskgraph.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

namespace hetsim::sim::workloads {
namespace {

TEST(RandomTaskGraph, IsSeededAcyclicAndEdgesSpanAtMostJumpLevels) {
    RandomTaskGraphConfig c;
    c.tasks = 300;
    c.jump = 2;
    const RandomTaskGraph a = random_taskgraph(c), b = random_taskgraph(c);
    ASSERT_EQ(a.edges.size(), b.edges.size());
    for (std::size_t k = 0; k < a.edges.size(); ++k) {
        EXPECT_EQ(a.edges[k].from, b.edges[k].from);
        EXPECT_EQ(a.edges[k].comm_s, b.edges[k].comm_s);
    }
    EXPECT_EQ(a.cost, b.cost);
    for (const auto& e : a.edges) {
        const int span =
            a.level[static_cast<std::size_t>(e.to)] - a.level[static_cast<std::size_t>(e.from)];
        EXPECT_GE(span, 1);
        EXPECT_LE(span, 2);
    }
    // Every task below the first level has a parent.
    std::vector<int> parents(300, 0);
    for (const auto& e : a.edges)
        ++parents[static_cast<std::size_t>(e.to)];
    for (int t = 0; t < 300; ++t) {
        if (a.level[static_cast<std::size_t>(t)] > 0)
            EXPECT_GE(parents[static_cast<std::size_t>(t)], 1) << t;
    }
    c.seed = 2;
    EXPECT_NE(random_taskgraph(c).cost, a.cost);
}

TEST(RandomTaskGraph, CostsFollowTheMeanTheCcrAndTheHeterogeneity) {
    RandomTaskGraphConfig c;
    c.tasks = 4000;
    c.processors = 4;
    c.ccr = 5.0;
    c.beta = 1.0;
    c.mean_cost_s = 2.0;
    const RandomTaskGraph g = random_taskgraph(c);
    double cost = 0.0, comm = 0.0;
    for (const auto& row : g.cost) {
        const double mean = std::accumulate(row.begin(), row.end(), 0.0) / 4.0;
        cost += mean;
        // beta = 1: every processor within w_i (1 +- 0.5) of the task's w_i, so max <= 3 min.
        const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
        EXPECT_LE(*hi, 3.0 * *lo + 1e-12);
    }
    for (const auto& e : g.edges)
        comm += e.comm_s;
    cost /= static_cast<double>(g.cost.size());
    comm /= static_cast<double>(g.edges.size());
    EXPECT_NEAR(cost, 2.0, 0.1);         // w_DAG
    EXPECT_NEAR(comm / cost, 5.0, 0.4);  // CCR
}

TEST(RandomTaskGraph, FatShapesTheLevelsAndBadKnobsNameThemselves) {
    RandomTaskGraphConfig c;
    c.tasks = 64;
    c.fat = 0.0;  // width 1: a chain of 64 levels
    c.regularity = 1.0;
    EXPECT_EQ(random_taskgraph(c).level.back(), 63);
    c.fat = 1.0;  // width 64: one level, no edges
    EXPECT_TRUE(random_taskgraph(c).edges.empty());
    c.fat = 0.5;  // width 8, regular: 8 levels
    EXPECT_EQ(random_taskgraph(c).level.back(), 7);
    c.ccr = -1.0;
    EXPECT_THAT([&] { random_taskgraph(c); },
                testing::ThrowsMessage<std::invalid_argument>(testing::HasSubstr("ccr")));
}

}  // namespace
}  // namespace hetsim::sim::workloads
