// tarnawski2020 §6-7 baselines `scotch` and `pipedream`: hand-computed chains, the chain DP
// against the exact DP, branch contraction, Scotch's validity and memory repair, and both
// baselines on the shared throughput workloads next to Table 1.
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

#include "placement/tarnawski/max_load_dp.hpp"
#include "placement/tarnawski/pipedream_solver.hpp"
#include "placement/tarnawski/register_partitioner_solvers.hpp"
#include "placement/tarnawski/scotch_solver.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "tests/placement/tarnawski_test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The chain a -> b -> c -> d of the hand computations below: p^acc 4, 3, 2, 5 (p^cpu ten times
// that), outputs c_a = 1, c_b = 0.5, c_c = 2, sizes 1 each.
Workload hand_chain(int accelerators, int cpus, double memory) {
    Workload w;
    w.max_accelerators = accelerators;
    w.max_cpus = cpus;
    w.max_size_per_accelerator = memory;
    const double acc[] = {4, 3, 2, 5};
    for (int v = 0; v < 4; ++v)
        w.add_node(v, 10.0 * acc[v], acc[v], 1.0);
    w.add_edge(0, 1, 1.0);
    w.add_edge(1, 2, 0.5);
    w.add_edge(2, 3, 2.0);
    return w;
}

std::vector<std::vector<int>> identity_chain(const Workload& w) {
    std::vector<std::vector<int>> chain;
    for (int v = 0; v < static_cast<int>(w.node_count()); ++v)
        chain.push_back({v});
    return chain;
}

// Every node placed once (to_assignment checks it), colour classes together, memory kept.
void expect_valid(const Workload& w, const Split& split, const std::string& what,
                  bool memory = true) {
    Assignment a;
    ASSERT_NO_THROW(a = to_assignment(w, split)) << what;
    const LoadReport r = evaluate_assignment(w, a);
    EXPECT_TRUE(r.colocation_ok) << what;
    EXPECT_TRUE(r.supported_ok) << what;
    if (memory) {
        EXPECT_TRUE(r.memory_ok) << what;
    }
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

TEST(TarnawskiBaselines, DegenerateDeviceCounts) {
    // More accelerators than nodes, a single accelerator, CPUs only, no devices at all.
    for (int k : {1, 8}) {
        const Workload w = hand_chain(k, 1, 100.0);
        const ScotchResult s = partition_with_scotch(w);
        expect_valid(w, to_split(w, s.assignment, s.max_load), "scotch k=" + std::to_string(k));
        const PipeDreamResult p = solve_pipedream(w);
        expect_valid(w, to_split(w, p.assignment, p.objective), "pipedream k=" + std::to_string(k));
    }
    EXPECT_DOUBLE_EQ(solve_pipedream(hand_chain(1, 1, 100.0)).objective, 14.0);  // all on one
    EXPECT_DOUBLE_EQ(partition_with_scotch(hand_chain(1, 1, 100.0)).max_load, 14.0);
    // k = 0, two CPUs: p^cpu 40, 30, 20, 50; best contiguous split 70 | 70, LPT gives 70 too.
    const Workload cpus = hand_chain(0, 2, 100.0);
    EXPECT_DOUBLE_EQ(solve_pipedream(cpus).objective, 70.0);
    const ScotchResult s = partition_with_scotch(cpus);
    EXPECT_EQ(s.vertices, 0u);
    EXPECT_EQ(s.cpu_classes, 4u);
    EXPECT_DOUBLE_EQ(s.max_load, 70.0);
    EXPECT_THROW(partition_with_scotch(hand_chain(0, 0, 100.0)), SolverError);
}

TEST(TarnawskiBaselines, RegistryCreatesBothSolvers) {
    SplitSolverRegistry registry;
    register_partitioner_solvers(registry);
    ASSERT_TRUE(registry.has("scotch"));
    ASSERT_TRUE(registry.has("pipedream"));
    for (const auto* info : registry.all()) {
        EXPECT_FALSE(info->usage.empty());
        EXPECT_FALSE(info->description.empty());
    }
    EXPECT_EQ(registry.create("scotch")->name(), "scotch");
    EXPECT_EQ(registry.create("scotch:preset=quality,repair=off")->name(),
              "scotch:preset=quality,repair=off");
    EXPECT_NO_THROW(
        registry.create("scotch:seed=3,strategy=r{sep=m{vert=80,low=h{pass=10},asc=f{bal=0.05}}}"));
    EXPECT_THROW(registry.create("scotch:preset=best"), SolverError);
    EXPECT_THROW(registry.create("scotch:imbalance=x"), SolverError);
    EXPECT_THROW(registry.create("scotch:speed"), SolverError);
    EXPECT_EQ(registry.create("pipedream:branches=off")->name(), "pipedream:branches=off");
    EXPECT_THROW(registry.create("pipedream:replicate"), SolverError);

    // Both run through the interface and report the §3 max-load (and the §4 latency).
    const Workload w = hand_chain(2, 1, 100.0);
    for (const char* spec : {"scotch", "pipedream", "scotch:preset=quality,imbalance=0.05",
                             "scotch:strategy=r{sep=m{vert=80,low=h{pass=10},asc=f{bal=0.05}}}"}) {
        const SolveResult r = registry.create(spec)->solve(w, SolveOptions{});
        expect_valid(w, r.split, spec);
        EXPECT_DOUBLE_EQ(r.objective, evaluate_split(w, r.split).max_load) << spec;
        EXPECT_EQ(r.stats.count("latency"), 1u) << spec;
        SolveOptions latency;
        latency.objective = SplitObjective::latency;
        const SolveResult l = registry.create(spec)->solve(w, latency);
        const double reported = std::stod(l.stats.at("latency"));
        EXPECT_NEAR(l.objective, reported, 1e-8 * std::max(1.0, reported)) << spec;
    }
    EXPECT_DOUBLE_EQ(registry.create("pipedream")->solve(w, SolveOptions{}).objective, 7.5);
    // A strategy Scotch cannot parse is a SolverError when solving.
    EXPECT_THROW(registry.create("scotch:strategy=%%%")->solve(w, SolveOptions{}), SolverError);
}

// ---- the shared throughput workloads next to Table 1 ----

class SharedWorkloads : public SharedWorkloadTest<Table1Row> {
protected:
    SharedWorkloads() : SharedWorkloadTest("throughput") {}
};

TEST_P(SharedWorkloads, BaselinesAreValidAndNeverBeatTheDp) {
    const Table1Row row = GetParam();
    const Workload& w = workload();
    SplitSolverRegistry registry;
    register_partitioner_solvers(registry);
    // Table 1 prints two decimals and the DP's objective rounds to it. PipeDream's splits are
    // contiguous (prefixes of one topological order), so it can never beat the DP. Scotch's are
    // not, and a non-contiguous split can beat the best contiguous one (Table 1, "IP
    // (non-contiguous)"): the check holds for Scotch with the default seed 1 on these
    // workloads, not for every seed (seeds 14-15 give 17.761 < 17.79 on BERT-24 inference).
    const double dp_floor = row.dp - 0.005;
    for (const char* spec : {"pipedream", "scotch"}) {
        const auto t0 = std::chrono::steady_clock::now();
        const SolveResult r = registry.create(spec)->solve(w, SolveOptions{});
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::string what = std::string(spec) + " on " + row.file;
        expect_valid(w, r.split, what);
        EXPECT_TRUE(std::isfinite(r.objective)) << what;
        EXPECT_DOUBLE_EQ(r.objective, evaluate_split(w, r.split).max_load) << what;
        EXPECT_GE(r.objective, dp_floor) << what << " beats Table 1's DP " << row.dp;
        const double paper = std::string(spec) == "scotch" ? row.scotch : row.pipedream;
        // PipeDream is deterministic: on the layer graphs it must reproduce Table 1's column
        // (within 0.5%: the published linear order and preprocessing differ in details).
        if (std::string(spec) == "pipedream" && paper > 0) {
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
