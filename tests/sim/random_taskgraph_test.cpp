// Random task graphs (sim/workloads/random_taskgraph.hpp): the DAGGEN shape knobs and
// Topcuoglu §5.1's cost knobs do what they say, on samples large enough for the means.
#include "sim/workloads/random_taskgraph.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "sim/workloads/model_zoo.hpp"

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

// Issue: 30,000 tasks with fat 1 and density 1 asked for 2 x 10^8 edges and ended in
// std::bad_alloc after 20 s. The edges the drawn levels allow are counted first and refused
// past kMaxRandomTaskGraphEdges, with the knobs and the limit in the message.
TEST(RandomTaskGraph, TooManyEdgesAreRefusedBeforeTheGraphIsDrawn) {
    RandomTaskGraphConfig c;
    c.tasks = 30'000;
    c.fat = 1.0;
    c.density = 1.0;
    EXPECT_THAT([&] { random_taskgraph(c); },
                testing::ThrowsMessage<std::invalid_argument>(testing::AllOf(
                    testing::HasSubstr("random_taskgraph: tasks 30000, fat 100 %, density 100 % "
                                       "and jump 1 allow up to "),
                    testing::HasSubstr(" edges, over the limit of 1000000: lower tasks, fat, "
                                       "density or jump"))));
    // The knobs' largest values, and the default shape at the most tasks, are refused too.
    c.tasks = 1'000'000;
    EXPECT_THROW(random_taskgraph(c), std::invalid_argument);
    EXPECT_THAT([] { random_taskgraph({.tasks = 999'999}); },
                testing::ThrowsMessage<std::invalid_argument>(
                    testing::HasSubstr("fat 50 %, density 50 % and jump 1 allow up to")));
    // The model `random_taskgraph` (knobs in percent) goes through the same check.
    EXPECT_THAT(
        [] {
            build_model("random_taskgraph",
                        {{"tasks", 30'000}, {"fat_percent", 100}, {"density_percent", 100}});
        },
        testing::ThrowsMessage<std::invalid_argument>(
            testing::HasSubstr("over the limit of 1000000")));
}

TEST(RandomTaskGraph, TooManyTaskCostsAreRefused) {
    RandomTaskGraphConfig c;
    c.tasks = 100'000;
    c.processors = 4096;
    EXPECT_THAT([&] { random_taskgraph(c); },
                testing::ThrowsMessage<std::invalid_argument>(testing::HasSubstr(
                    "random_taskgraph: tasks 100000 x processors 4096 = 409600000 task costs, "
                    "over the limit of 10000000: lower tasks or processors")));
    c.tasks = 2'441;  // 2441 x 4096 = 9,998,336 costs: within the limit
    c.fat = 0.0;
    const RandomTaskGraph g = random_taskgraph(c);
    EXPECT_EQ(g.cost.size(), 2'441U);
    EXPECT_EQ(g.cost.back().size(), 4096U);
}

// Wide levels with a low density: each task drew its few parents from a copy of all the
// candidates (10^10 copies at 10^6 tasks); now the cost is per edge. Every task below the first
// level has exactly one parent at density 0.
TEST(RandomTaskGraph, WideSparseLevelsCostPerEdgeNotPerCandidate) {
    RandomTaskGraphConfig c;
    c.tasks = 200'000;
    c.processors = 1;
    c.fat = 0.8;  // levels of about 17,000 tasks
    c.density = 0.0;
    const RandomTaskGraph g = random_taskgraph(c);
    const auto first_level =
        static_cast<std::size_t>(std::count(g.level.begin(), g.level.end(), 0));
    EXPECT_EQ(g.edges.size(), g.level.size() - first_level);
}

// The limit check and the draw without copies keep the draws: this graph's edges are those the
// generator made before them (hetsim inspect random_taskgraph --set tasks=700 --set
// fat_percent=70 --set density_percent=80 --set jump=3 --export).
TEST(RandomTaskGraph, TheSameKnobsGiveTheGraphTheyGaveBefore) {
    RandomTaskGraphConfig c;
    c.tasks = 700;
    c.fat = 0.7;
    c.density = 0.8;
    c.jump = 3;
    const RandomTaskGraph g = random_taskgraph(c);
    std::int64_t from_sum = 0, product_sum = 0;
    for (const auto& e : g.edges) {
        from_sum += e.from;
        product_sum += std::int64_t{e.from} * e.to;
    }
    EXPECT_EQ(g.edges.size(), 54'272U);
    EXPECT_EQ(from_sum, 15'298'737);
    EXPECT_EQ(product_sum, 8'079'302'826);
}

}  // namespace
}  // namespace hetsim::sim::workloads
