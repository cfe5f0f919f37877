// The `pipedream` baseline (pipedream_solver.cpp, tarnawski2020 §6): hand-computed chains, the
// chain DP against the exact DP, branch contraction; and both partitioner baselines (pipedream,
// scotch) on the shared throughput workloads next to Table 1.
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

std::vector<std::vector<int>> identity_chain(const Workload& w) {
    std::vector<std::vector<int>> chain;
    for (int v = 0; v < static_cast<int>(w.node_count()); ++v)
        chain.push_back({v});
    return chain;
}

TEST(TarnawskiBaselines, PipeDreamHandComputedChain) {
    // Two accelerators, one CPU (10x slower), memory loose. One accelerator: 14. Cuts:
    //   a | bcd: max(4 + 1, 1 + 10) = 11;  ab | cd: max(7 + 0.5, 0.5 + 7) = 7.5;
    //   abc | d: max(9 + 2, 2 + 5) = 11;   any CPU segment costs >= 20.
    const Workload w = hand_chain(2, 1, 100.0);
    const PipeDreamResult r = solve_chain(w, identity_chain(w));
    EXPECT_DOUBLE_EQ(r.objective, 7.5);
    ASSERT_EQ(r.assignment.device_of_node.size(), 4u);
    EXPECT_EQ(r.assignment.device_of_node[0], r.assignment.device_of_node[1]);
    EXPECT_EQ(r.assignment.device_of_node[2], r.assignment.device_of_node[3]);
    EXPECT_NE(r.assignment.device_of_node[0], r.assignment.device_of_node[2]);
    EXPECT_TRUE(is_accelerator_device(w, r.assignment.device_of_node[0]));
    EXPECT_TRUE(is_accelerator_device(w, r.assignment.device_of_node[2]));
    EXPECT_DOUBLE_EQ(evaluate_assignment(w, r.assignment).max_load, 7.5);
    EXPECT_DOUBLE_EQ(solve_max_load(w).objective, 7.5);
    EXPECT_DOUBLE_EQ(solve_pipedream(w).objective, 7.5);
}

TEST(TarnawskiBaselines, PipeDreamHandComputedChainWithMemoryAndCpu) {
    // M = 1.5: an accelerator holds one node, so with two accelerators the CPU takes a
    // segment of at least two nodes: cpu{a,b} = 70, cpu{b,c} = 50 (with a: 4 + 1 = 5 and
    // d: 2 + 5 = 7), cpu{c,d} = 70, longer CPU segments are worse. Optimum 50.
    const Workload w = hand_chain(2, 1, 1.5);
    const PipeDreamResult r = solve_chain(w, identity_chain(w));
    EXPECT_DOUBLE_EQ(r.objective, 50.0);
    const auto& dev = r.assignment.device_of_node;
    ASSERT_EQ(dev.size(), 4u);
    EXPECT_EQ(dev[1], cpu_device(w, 0));
    EXPECT_EQ(dev[2], cpu_device(w, 0));
    EXPECT_TRUE(is_accelerator_device(w, dev[0]));
    EXPECT_TRUE(is_accelerator_device(w, dev[3]));
    const LoadReport e = evaluate_assignment(w, r.assignment);
    EXPECT_DOUBLE_EQ(e.max_load, 50.0);
    EXPECT_DOUBLE_EQ(solve_max_load(w).objective, 50.0);

    // Without a CPU nothing fits: no feasible split.
    const Workload none = hand_chain(2, 0, 1.5);
    EXPECT_TRUE(std::isinf(solve_chain(none, identity_chain(none)).objective));
}

TEST(TarnawskiBaselines, PipeDreamEqualsExactDpOnRandomChains) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> len(1, 9), kd(1, 3), ld(0, 2);
    for (int trial = 0; trial < 200; ++trial) {
        Workload w;
        const int n = len(rng);
        w.max_accelerators = kd(rng);
        w.max_cpus = ld(rng);
        double total = 0.0;
        for (int v = 0; v < n; ++v) {
            const double acc = 0.5 + 4.0 * u(rng);
            const double bytes = 1.0 + 9.0 * u(rng);
            total += bytes;
            w.add_node(v, acc * (1.0 + 6.0 * u(rng)), acc, bytes, false, u(rng) > 0.1);
        }
        for (int v = 0; v + 1 < n; ++v)
            w.add_edge(v, v + 1, 2.0 * u(rng));
        w.max_size_per_accelerator = total * (0.3 + u(rng));
        DpOptions exact;
        exact.merge_trivial_nodes = false;
        const double dp = solve_max_load(w, exact).objective;
        const PipeDreamResult r = solve_pipedream(w);
        ASSERT_EQ(r.chain.size(), static_cast<std::size_t>(n)) << "trial " << trial;
        if (std::isinf(dp)) {
            EXPECT_TRUE(std::isinf(r.objective)) << "trial " << trial;
            continue;
        }
        EXPECT_NEAR(r.objective, dp, 1e-9 * dp) << "trial " << trial;
        EXPECT_NEAR(evaluate_assignment(w, r.assignment).max_load, dp, 1e-9 * dp)
            << "trial " << trial;
    }
}

TEST(TarnawskiBaselines, PipeDreamContractsBranches) {
    // s -> u; u -> a -> w; u -> b -> w; w -> t, plus a zero-latency input x feeding a, b and t
    // (like BERT-24's attention mask). The diamond's tails {u, a, b} become one node; the
    // input's edges are ignored, so it stays a node of its own.
    Workload w;
    w.max_accelerators = 2;
    w.max_cpus = 1;
    w.max_size_per_accelerator = 1e9;
    const int s = w.add_node(0, 10, 1);
    const int uu = w.add_node(1, 10, 1);
    const int a = w.add_node(2, 10, 1);
    const int b = w.add_node(3, 10, 1);
    const int j = w.add_node(4, 10, 1);
    const int t = w.add_node(5, 10, 1);
    const int x = w.add_node(6, 0, 0);
    for (auto [p, q] : std::vector<std::pair<int, int>>{
             {s, uu}, {uu, a}, {uu, b}, {a, j}, {b, j}, {j, t}, {x, a}, {x, b}, {x, t}})
        w.add_edge(p, q, 0.1);
    const auto chain = pipedream_chain(w);
    std::vector<std::set<int>> groups;
    for (const auto& g : chain)
        groups.emplace_back(g.begin(), g.end());
    const std::vector<std::set<int>> expected = {{s}, {uu, a, b}, {j}, {t}, {x}};
    for (const auto& e : expected) {
        EXPECT_NE(std::find(groups.begin(), groups.end(), e), groups.end())
            << "missing group of " << *e.begin();
    }
    EXPECT_EQ(groups.size(), expected.size());
    // Topological: s before {u,a,b} before j before t, x before {u,a,b}.
    std::unordered_map<int, std::size_t> pos;
    for (std::size_t p = 0; p < chain.size(); ++p)
        for (int v : chain[p])
            pos[v] = p;
    EXPECT_LT(pos[s], pos[uu]);
    EXPECT_LT(pos[x], pos[a]);
    EXPECT_LT(pos[uu], pos[j]);
    EXPECT_LT(pos[j], pos[t]);

    // Keeping the input's edges makes x part of one big component: x, u, a, b, j merge.
    PipeDreamOptions keep;
    keep.ignore_input_edges = false;
    const auto merged = pipedream_chain(w, keep);
    EXPECT_EQ(merged.size(), 3u);  // {s}, {u, a, b, j, x}, {t}
    // Without branch contraction every node is its own position.
    PipeDreamOptions off;
    off.contract_branches = false;
    EXPECT_EQ(pipedream_chain(w, off).size(), w.node_count());
}

TEST(TarnawskiBaselines, PipeDreamTrainingKeepsColourClassesAndNeverBeatsDp) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const Workload w = make_branching_workload(2, 2, 2, seed, true, 3, 1);
        const PipeDreamResult r = solve_pipedream(w);
        ASSERT_FALSE(r.assignment.device_of_node.empty());
        const LoadReport e = evaluate_assignment(w, r.assignment);
        EXPECT_TRUE(e.colocation_ok);
        EXPECT_TRUE(e.memory_ok);
        EXPECT_NEAR(e.max_load, r.objective, 1e-9 * r.objective);
        DpOptions exact;
        exact.merge_trivial_nodes = false;
        EXPECT_GE(e.max_load, solve_max_load(w, exact).objective * (1.0 - 1e-12));
    }
}

TEST(TarnawskiBaselines, PipeDreamChainRejectsBadChains) {
    const Workload w = hand_chain(2, 1, 100.0);
    EXPECT_THROW(solve_chain(w, {{0, 1}, {2}}), SolverError);        // 3 missing
    EXPECT_THROW(solve_chain(w, {{0, 1}, {1, 2, 3}}), SolverError);  // 1 twice
    EXPECT_THROW(solve_chain(w, {{0, 1, 2, 3, 4}}), SolverError);    // no node 4
}

TEST(TarnawskiBaselines, PipeDreamDegenerateDeviceCounts) {
    // More accelerators than nodes, a single accelerator, CPUs only.
    for (int k : {1, 8}) {
        const Workload w = hand_chain(k, 1, 100.0);
        const PipeDreamResult p = solve_pipedream(w);
        expect_valid(w, to_split(w, p.assignment, p.objective), "pipedream k=" + std::to_string(k));
    }
    EXPECT_DOUBLE_EQ(solve_pipedream(hand_chain(1, 1, 100.0)).objective, 14.0);  // all on one
    // k = 0, two CPUs: p^cpu 40, 30, 20, 50; best contiguous split 70 | 70.
    EXPECT_DOUBLE_EQ(solve_pipedream(hand_chain(0, 2, 100.0)).objective, 70.0);
}

// ---- the shared throughput workloads next to Table 1 ----

class SharedWorkloads : public SharedWorkloadTest<Table1Row> {
protected:
    SharedWorkloads() : SharedWorkloadTest("throughput") {}
};

TEST_P(SharedWorkloads, BaselinesAreValidAndNeverBeatTheDp) {
    const Table1Row row = GetParam();
    const Workload& w = workload();
    register_split_solvers();
    const SplitSolverRegistry& registry = SplitSolverRegistry::instance();
    // Table 1 prints two decimals and the DP's objective rounds to it. PipeDream's splits are
    // contiguous (prefixes of one topological order), so it can never beat the DP. Scotch's are
    // not, and a non-contiguous split can beat the best contiguous one (Table 1, "IP
    // (non-contiguous)"): the check holds for Scotch with the default seed 1 on these
    // workloads, not for every seed (seeds 14-15 give 17.761 < 17.79 on BERT-24 inference).
    const double dp_floor = row.dp - 0.005;
    for (const char* spec : {"tarnawski.pipedream", "tarnawski.scotch"}) {
        const auto t0 = std::chrono::steady_clock::now();
        const SolveResult r = registry.create(spec)->solve(w, SolveOptions{});
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::string what = std::string(spec) + " on " + row.file;
        expect_valid(w, r.split, what);
        EXPECT_TRUE(std::isfinite(r.objective)) << what;
        EXPECT_DOUBLE_EQ(r.objective, evaluate_split(w, r.split).max_load) << what;
        EXPECT_GE(r.objective, dp_floor) << what << " beats Table 1's DP " << row.dp;
        const double paper = std::string(spec) == "tarnawski.scotch" ? row.scotch : row.pipedream;
        // PipeDream is deterministic: on the layer graphs it must reproduce Table 1's column
        // (within 0.5%: the published linear order and preprocessing differ in details).
        if (std::string(spec) == "tarnawski.pipedream" && paper > 0) {
            EXPECT_NEAR(r.objective, paper, 0.005 * paper) << what;
        }
        std::ostringstream extra;
        for (const char* key : {"chain_length", "segments", "vertices", "repair_moves",
                                "max_load_before_repair", "memory_ratio_before_repair"})
            if (r.stats.count(key))
                extra << " " << key << "=" << r.stats.at(key);
        std::printf("[ baseline ] %-30s %-9s TPS %9.3f (Table 1: DP %7.2f, %s %s) %8.3f s%s\n",
                    row.file, spec, r.objective, row.dp, spec,
                    paper < 0 ? "-" : std::to_string(paper).substr(0, 6).c_str(), seconds,
                    extra.str().c_str());
        RecordProperty(std::string(spec) + "_tps", std::to_string(r.objective));
    }
}

INSTANTIATE_TEST_SUITE_P(TarnawskiBaselines, SharedWorkloads, ::testing::ValuesIn(kTable1),
                         FileTestName());

}  // namespace
}  // namespace hetsim::placement::tarnawski
