// The pieces of the latency search (latency_search.hpp): the scorer, the sequential-bound DP
// and the §7 greedy fill.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/latency/latency_search.hpp"
#include "placement/tarnawski/latency/latency_solvers.hpp"
#include "tests/placement/tarnawski/solver_test_support.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

using namespace solver_test;

TEST(TarnawskiLatencySolvers, ScorerMaxLoadEqualsEvaluateAssignment) {
    std::mt19937_64 rng(17);
    for (int trial = 0; trial < 200; ++trial) {
        Workload w = random_instance(rng, 8, 2);
        w.max_cpus = 2;
        SplitScorer scorer(w, SplitObjective::throughput, false);
        std::vector<int> dev(w.node_count());
        for (int& d : dev)
            d = static_cast<int>(rng() % 4);
        const LoadReport r = evaluate_assignment(w, Assignment{dev});
        const double expected = r.colocation_ok ? r.max_load : kInf;
        EXPECT_EQ(scorer.max_load(dev), expected) << "trial " << trial;
        EXPECT_EQ(scorer(dev), expected);
    }
}

TEST(TarnawskiLatencySolvers, SequentialDpBoundsTheLatencyOfItsSplit) {
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 40; ++trial) {
        const Workload w = random_instance(rng, 9, 3);
        const Blocks blocks = make_blocks(w, true);
        ASSERT_TRUE(blocks.acyclic);
        for (BlockOrder kind : {BlockOrder::stack, BlockOrder::queue, BlockOrder::random}) {
            const auto order = block_order(blocks, kind, &rng);
            ASSERT_EQ(order.size(), static_cast<std::size_t>(blocks.count()));
            const auto split = linear_latency_dp(w, blocks, order);
            if (!split)
                continue;
            const LatencyReport r = evaluate_latency(w, split->assignment);
            EXPECT_TRUE(r.memory_ok);
            EXPECT_TRUE(r.contiguous);
            EXPECT_LE(r.latency, split->bound + 1e-9);
            // The bound is exact for a single segment on one device.
        }
    }
}

TEST(TarnawskiLatencySolvers, SequentialDpOnAChainIsExact) {
    // On a chain, every split into segments is sequential: the bound is the latency, and the DP
    // is the optimum over contiguous splits.
    Workload w;
    w.max_accelerators = 2;
    w.max_cpus = 1;
    w.max_size_per_accelerator = 25.0;
    const double cpu[] = {2, 40, 40, 40, 3};
    const double acc[] = {1, 2, 2, 2, 1};
    const double cost[] = {5, 0.5, 6, 0.5};
    for (int v = 0; v < 5; ++v)
        w.add_node(v, cpu[v], acc[v], 10.0);
    for (int v = 0; v < 4; ++v)
        w.add_edge(v, v + 1, cost[v]);
    const Blocks blocks = make_blocks(w, true);
    const auto split = linear_latency_dp(w, blocks, block_order(blocks, BlockOrder::stack));
    ASSERT_TRUE(split.has_value());
    EXPECT_DOUBLE_EQ(split_latency(w, split->assignment), split->bound);
    EXPECT_NEAR(split->bound, exhaustive_latency(w, true), 1e-12);
    // Node 0 on the CPU (2), {1, 2} on one accelerator (in 5, compute 4, out 6 -> 15) would
    // pay the expensive edges; the optimum cuts at the cheap ones: {0, 1} (compute 3, out 0.5),
    // {2, 3} (in 0.5, compute 4, out 0.5), node 4 on the CPU (3): 3.5 + 5 + 3.
    EXPECT_DOUBLE_EQ(split->bound, 11.5);
}

TEST(TarnawskiLatencySolvers, GreedyFillsInTopologicalOrder) {
    // a -> b -> c -> d, 10 bytes each, M = 25: {a, b} on accelerator 0, {c, d} on 1.
    Workload w;
    w.max_accelerators = 2;
    w.max_cpus = 1;
    w.max_size_per_accelerator = 25.0;
    for (int v = 0; v < 4; ++v)
        w.add_node(v, 10, 1, 10);
    for (int v = 0; v < 3; ++v)
        w.add_edge(v, v + 1, 1.0);
    EXPECT_EQ(latency_greedy(w).device_of_node, (std::vector<int>{1, 1, 2, 2}));
    // One accelerator: the rest goes to the CPU.
    EXPECT_EQ(latency_greedy(w, 1).device_of_node, (std::vector<int>{1, 1, 0, 0}));
    // A block larger than M goes to the CPU and the next block opens a new accelerator.
    w.size[1] = 30.0;
    EXPECT_EQ(latency_greedy(w).device_of_node, (std::vector<int>{1, 0, 2, 2}));
    // Colour classes are never split.
    Workload c = w;
    c.size[1] = 10.0;
    c.has_color_class[0] = c.has_color_class[2] = 1;
    c.color_class[0] = c.color_class[2] = 5;
    const auto dev = latency_greedy(c).device_of_node;
    EXPECT_EQ(dev[0], dev[2]);
    EXPECT_EQ(dev[1], dev[0]);  // the cycle a~c -> b -> c is contracted too (App. B)
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
