// The `scotch` baseline (scotch_solver.cpp, tarnawski2020 §6-7): valid splits on small graphs,
// memory repair, unsupported nodes on the CPUs, degenerate device counts.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/baselines/pipedream_solver.hpp"
#include "placement/tarnawski/baselines/scotch_solver.hpp"
#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "tests/placement/tarnawski/solver_test_support.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

using namespace solver_test;

TEST(TarnawskiBaselines, ScotchReturnsValidSplitsOnSmallGraphs) {
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        for (bool training : {false, true}) {
            const Workload w = make_branching_workload(2, 3, 2, seed, training, 3, 1);
            ScotchOptions o;
            o.seed = seed;
            const ScotchResult r = partition_with_scotch(w, o);
            const std::string what = "seed " + std::to_string(seed) + (training ? " train" : "");
            expect_valid(w, to_split(w, r.assignment, r.max_load), what);
            EXPECT_TRUE(r.memory_ok) << what;
            EXPECT_TRUE(std::isfinite(r.max_load)) << what;
            EXPECT_DOUBLE_EQ(r.max_load, evaluate_assignment(w, r.assignment).max_load) << what;
            // Scotch is a heuristic over non-contiguous splits: it may beat the contiguous
            // optimum in principle, but it can never beat the best non-contiguous split, and
            // every device's load is at least the average accelerator work.
            double work = 0.0;
            for (double x : w.accelerator_latency)
                work += x;
            EXPECT_GE(r.max_load, work / (w.max_accelerators + 10.0 * w.max_cpus)) << what;
            // Reproducible with a fixed seed.
            EXPECT_EQ(partition_with_scotch(w, o).assignment.device_of_node,
                      r.assignment.device_of_node)
                << what;
        }
    }
}

// A strategy libscotch rejects is one error line: libscotch's own complaint, which it prints on
// stderr, is caught into the message instead of preceding it.
TEST(TarnawskiBaselines, ScotchRejectedStrategyIsOneMessage) {
    const Workload w = make_branching_workload(2, 3, 2, 1, false, 3, 1);
    ScotchOptions o;
    o.strategy = "garbage!!";
    ::testing::internal::CaptureStderr();
    try {
        (void)partition_with_scotch(w, o);
        ADD_FAILURE() << "expected a SolverError";
    } catch (const SolverError& e) {
        EXPECT_NE(std::string(e.what()).find("libscotch rejected the strategy 'garbage!!' ("),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    register_split_solvers();
    EXPECT_THROW((void)SplitSolverRegistry::instance().create("tarnawski.scotch:imbalance=inf"),
                 PlacementError);
}

TEST(TarnawskiBaselines, ScotchRepairsMemory) {
    // a: p^acc 10, 1 byte; b..e: p^acc 1, 10 bytes each; M = 25, two accelerators. Balancing
    // time alone puts b..e (40 bytes) together; the repair must move classes until both fit.
    Workload w;
    w.max_accelerators = 2;
    w.max_cpus = 1;
    w.max_size_per_accelerator = 25.0;
    const int a = w.add_node(0, 100, 10, 1);
    int prev = a;
    for (int v = 1; v <= 4; ++v) {
        const int x = w.add_node(v, 10, 1, 10);
        w.add_edge(prev, x, 0.01);
        prev = x;
    }
    ScotchOptions o;
    const ScotchResult r = partition_with_scotch(w, o);
    EXPECT_TRUE(r.memory_ok);
    EXPECT_TRUE(std::isfinite(r.max_load));
    expect_valid(w, to_split(w, r.assignment, r.max_load), "repaired");
    if (r.memory_ratio_before_repair > 1.0) {
        EXPECT_GT(r.repair_moves, 0u);
    } else {
        EXPECT_EQ(r.repair_moves, 0u);
    }
    std::printf(
        "[ scotch repair ] before: max load %.4g, memory ratio %.3g; after %zu moves: "
        "max load %.4g\n",
        r.max_load_before_repair, r.memory_ratio_before_repair, r.repair_moves, r.max_load);

    o.repair_memory = false;
    const ScotchResult raw = partition_with_scotch(w, o);
    EXPECT_EQ(raw.repair_moves, 0u);
    EXPECT_EQ(raw.memory_ok, raw.memory_ratio_before_repair <= 1.0);
    if (!raw.memory_ok) {
        EXPECT_TRUE(std::isinf(raw.max_load));
    }
}

TEST(TarnawskiBaselines, ScotchPutsUnsupportedNodesOnCpus) {
    Workload w = make_branching_workload(1, 2, 3, 3, false, 2, 2);
    w.supported_on_accelerator[2] = 0;
    w.accelerator_latency[2] = kInf;
    w.supported_on_accelerator[5] = 0;
    const ScotchResult r = partition_with_scotch(w);
    EXPECT_EQ(r.cpu_classes, 2u);
    EXPECT_FALSE(is_accelerator_device(w, r.assignment.device_of_node[2]));
    EXPECT_FALSE(is_accelerator_device(w, r.assignment.device_of_node[5]));
    // LPT over two CPUs: the two classes go to different CPUs.
    EXPECT_NE(r.assignment.device_of_node[2], r.assignment.device_of_node[5]);
    EXPECT_TRUE(std::isfinite(r.max_load));
    expect_valid(w, to_split(w, r.assignment, r.max_load), "unsupported");
}

TEST(TarnawskiBaselines, ScotchDegenerateDeviceCounts) {
    // More accelerators than nodes, a single accelerator, CPUs only, no devices at all.
    for (int k : {1, 8}) {
        const Workload w = hand_chain(k, 1, 100.0);
        const ScotchResult s = partition_with_scotch(w);
        expect_valid(w, to_split(w, s.assignment, s.max_load), "scotch k=" + std::to_string(k));
    }
    EXPECT_DOUBLE_EQ(partition_with_scotch(hand_chain(1, 1, 100.0)).max_load, 14.0);  // all on one
    // k = 0, two CPUs: p^cpu 40, 30, 20, 50; LPT gives 70 | 70.
    const ScotchResult s = partition_with_scotch(hand_chain(0, 2, 100.0));
    EXPECT_EQ(s.vertices, 0u);
    EXPECT_EQ(s.cpu_classes, 4u);
    EXPECT_DOUBLE_EQ(s.max_load, 70.0);
    EXPECT_THROW(partition_with_scotch(hand_chain(0, 0, 100.0)), SolverError);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
