// tarnawski2020 §5.1.1 max-load DP: Table 1 on the shared workloads, exhaustive search over
// contiguous splits on small random graphs, and strongly branching stress graphs.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/dp/replication.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

class Table1 : public SharedWorkloadTest<Table1Row> {
protected:
    Table1() : SharedWorkloadTest("throughput") {}
};

TEST_P(Table1, DpMatchesPaper) {
    const auto row = GetParam();
    const Workload& w = workload();
    const DpResult r = solve_max_load(w);
    // Table 1 prints two decimals: the objective must round to it.
    EXPECT_LT(std::fabs(r.objective * 100.0 - row.dp * 100.0), 0.5)
        << row.file << ": DP gives " << r.objective << ", Table 1 says " << row.dp;
    EXPECT_EQ(r.stats.ideals, row.ideals) << row.file;
    const LoadReport e = evaluate_split(w, r.split);
    EXPECT_NEAR(e.max_load, r.objective, 1e-9 * r.objective);
    EXPECT_TRUE(e.colocation_ok);
    EXPECT_TRUE(e.memory_ok);
    EXPECT_EQ(r.split.accelerators.size(), static_cast<size_t>(w.max_accelerators));
    EXPECT_EQ(r.split.cpus.size(), static_cast<size_t>(w.max_cpus));
    // Replication off (the default) reports one device per set; bandwidths alone change nothing.
    EXPECT_EQ(r.accelerator_replicas, std::vector<int>(w.max_accelerators, 1));
    EXPECT_EQ(r.cpu_replicas, std::vector<int>(w.max_cpus, 1));
    DpOptions off;
    off.replication.accelerator_bandwidth = 1e6;
    off.replication.overlap_sync = true;
    const DpResult same = solve_max_load(w, off);
    EXPECT_EQ(same.objective, r.objective);
    EXPECT_EQ(same.split.accelerators, r.split.accelerators);
    EXPECT_EQ(same.split.cpus, r.split.cpus);
}

INSTANTIATE_TEST_SUITE_P(SharedWorkloads, Table1, ::testing::ValuesIn(kTable1), FileTestName());

// ---- exhaustive search over contiguous, colocation-respecting splits ----

struct Tiny {
    Workload w;
    bool tight_memory = false;
};

Tiny random_tiny(std::mt19937_64& rng) {
    std::uniform_int_distribution<int> nodes(2, 7), classes(0, 2), kd(1, 3), ld(0, 1);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Tiny t;
    Workload& w = t.w;
    const int n = nodes(rng);
    w.max_accelerators = kd(rng);
    w.max_cpus = std::min(ld(rng), 4 - w.max_accelerators);
    const bool colored = u(rng) < 0.5;
    double total = 0.0;
    for (int v = 0; v < n; ++v) {
        const bool zero = u(rng) < 0.25;
        const double acc = zero ? 0.0 : 0.5 + 4.0 * u(rng);
        const double cpu = zero ? 0.0 : acc * (1.0 + 5.0 * u(rng));
        const double size = std::floor(10.0 * u(rng));
        total += size;
        std::optional<std::int64_t> color;
        if (colored && u(rng) < 0.4)
            color = classes(rng);
        w.add_node(100 + v, cpu, acc, size, false, u(rng) > 0.1, color);
    }
    const bool nonuniform = u(rng) < 0.3;
    const double density = 0.2 + 0.4 * u(rng);
    std::vector<double> cost(n);
    for (auto& c : cost)
        c = 0.1 + 2.0 * u(rng);
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
            if (u(rng) < density)
                w.add_edge(a, b, nonuniform && u(rng) < 0.5 ? 0.1 + 2.0 * u(rng) : cost[a]);
    t.tight_memory = u(rng) < 0.4;
    w.max_size_per_accelerator = t.tight_memory ? std::floor(total * (0.3 + 0.5 * u(rng))) : 1e9;
    return t;
}

// The split that puts node v on device dev[v] (CPUs first, as in Assignment).
Split split_of(const Workload& w, const std::vector<int>& dev) {
    Split split;
    split.cpus.resize(w.max_cpus);
    split.accelerators.resize(w.max_accelerators);
    for (std::size_t v = 0; v < dev.size(); ++v)
        (dev[v] < w.max_cpus ? split.cpus[dev[v]] : split.accelerators[dev[v] - w.max_cpus])
            .push_back(w.id[v]);
    return split;
}

double brute_force(const Workload& w) {
    const int n = static_cast<int>(w.node_count());
    const int devices = w.max_cpus + w.max_accelerators;
    double best = std::numeric_limits<double>::infinity();
    for_each_assignment(n, devices, [&](const std::vector<int>& dev) {
        if (!devices_acyclic(w, dev, devices))
            return;
        const LoadReport r = evaluate_split(w, split_of(w, dev));
        if (r.colocation_ok)
            best = std::min(best, r.max_load);
    });
    return best;
}

// The DP lists the sets of each device kind in pipeline order: no forward edge goes from a later
// device of a kind to an earlier one of the same kind.
void expect_pipeline_order(const Workload& w, const Split& split, int trial) {
    const Assignment a = to_assignment(w, split);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e], v = w.edge_dest[e];
        if (w.is_backward[u] || w.is_backward[v])
            continue;
        const int du = a.device_of_node[u], dv = a.device_of_node[v];
        if (is_accelerator_device(w, du) == is_accelerator_device(w, dv)) {
            EXPECT_LE(du, dv) << "trial " << trial << ": edge " << w.id[u] << " -> " << w.id[v];
        }
    }
}

TEST(TarnawskiDp, EqualsExhaustiveSearchOnSmallRandomGraphs) {
    std::mt19937_64 rng(2020);
    int finite = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const Tiny t = random_tiny(rng);
        DpOptions options;
        // The trivial-node merge is exact unless memory binds (see DpOptions).
        options.merge_trivial_nodes = !t.tight_memory;
        const double expected = brute_force(t.w);
        const DpResult r = solve_max_load(t.w, options);
        if (std::isinf(expected)) {
            EXPECT_TRUE(std::isinf(r.objective)) << "trial " << trial;
            continue;
        }
        ++finite;
        ASSERT_NEAR(r.objective, expected, 1e-9 * (1.0 + expected))
            << "trial " << trial << " nodes " << t.w.node_count() << "\n"
            << workload_to_json(t.w).dump() << "\n"
            << split_to_json(r.split).dump();
        const LoadReport e = evaluate_split(t.w, r.split);
        EXPECT_NEAR(e.max_load, r.objective, 1e-9 * (1.0 + expected)) << "trial " << trial;
        EXPECT_TRUE(e.colocation_ok);
        expect_pipeline_order(t.w, r.split, trial);
    }
    EXPECT_GE(finite, 100);
}

// A small training graph: a random forward DAG, a backward node (same colour class) for most
// forward nodes, mirrored backward edges and forward -> backward activation edges.
Workload random_training(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Workload w;
    const int f = 2 + static_cast<int>(u(rng) * 3);  // 2..4 forward nodes
    w.max_accelerators = 1 + static_cast<int>(u(rng) * 2);
    w.max_cpus = u(rng) < 0.5 ? 1 : 0;
    w.max_size_per_accelerator = 1e9;
    for (int v = 0; v < f; ++v) {
        const double acc = u(rng) < 0.2 ? 0.0 : 0.5 + 3.0 * u(rng);
        w.add_node(v, acc * 3.0, acc, 1.0, false, true, v);
    }
    std::vector<int> image(f, -1);
    for (int v = 0; v < f; ++v)
        if (u(rng) < 0.75) {
            const double acc = 0.5 + 3.0 * u(rng);
            image[v] = w.add_node(100 + v, acc * 3.0, acc, 1.0, true, true, v);
        }
    std::vector<double> cost(w.node_count());
    for (auto& c : cost)
        c = 0.1 + 2.0 * u(rng);
    for (int a = 0; a < f; ++a)
        for (int b = a + 1; b < f; ++b)
            if (u(rng) < 0.5) {
                w.add_edge(a, b, cost[a]);
                if (image[a] >= 0 && image[b] >= 0)
                    w.add_edge(image[b], image[a], cost[image[b]]);
                if (image[b] >= 0)
                    w.add_edge(a, image[b], cost[a]);
            }
    return w;
}

TEST(TarnawskiDp, TrainingEqualsExhaustiveSearch) {
    std::mt19937_64 rng(65);
    DpOptions options;
    options.merge_trivial_nodes = false;  // moves backward partners along: not exact in training
    for (int trial = 0; trial < 150; ++trial) {
        const Workload w = random_training(rng);
        const double expected = brute_force(w);
        const DpResult r = solve_max_load(w, options);
        ASSERT_NEAR(r.objective, expected, 1e-9 * (1.0 + expected))
            << "trial " << trial << "\n"
            << workload_to_json(w).dump() << "\n"
            << split_to_json(r.split).dump();
    }
}

TEST(TarnawskiDp, LinearizationIsFeasibleAndNeverBetter) {
    std::mt19937_64 rng(11);
    DpOptions dpl;
    dpl.linearize = true;
    DpOptions uncapped;
    uncapped.cap_with_linearization = false;
    for (int trial = 0; trial < 100; ++trial) {
        const Tiny t = random_tiny(rng);
        const DpResult full = solve_max_load(t.w);
        const DpResult linear = solve_max_load(t.w, dpl);
        EXPECT_EQ(linear.stats.ideals, linear.stats.groups + 1);
        EXPECT_GE(linear.objective, full.objective - 1e-12);
        const double plain = solve_max_load(t.w, uncapped).objective;
        if (std::isfinite(full.objective)) {
            EXPECT_NEAR(plain, full.objective, 1e-9 * (1.0 + full.objective)) << "trial " << trial;
        } else {
            EXPECT_TRUE(std::isinf(plain)) << "trial " << trial;
        }
        if (std::isfinite(linear.objective)) {
            EXPECT_NEAR(evaluate_split(t.w, linear.split).max_load, linear.objective,
                        1e-9 * (1.0 + linear.objective));
        }
    }
}

TEST(TarnawskiDp, MergeOfTrivialNodesKeepsTheOptimumWithLooseMemory) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 100; ++trial) {
        Tiny t = random_tiny(rng);
        t.w.max_size_per_accelerator = 1e9;
        DpOptions off;
        off.merge_trivial_nodes = false;
        const double a = solve_max_load(t.w).objective;
        const double b = solve_max_load(t.w, off).objective;
        if (std::isinf(a) || std::isinf(b)) {
            EXPECT_EQ(std::isinf(a), std::isinf(b));
            continue;
        }
        EXPECT_NEAR(a, b, 1e-9 * (1.0 + b)) << "trial " << trial;
    }
}

TEST(TarnawskiDp, StressGraphIdealCounts) {
    // `blocks` fork/join blocks of `width` chains of `length`: each block adds (length+1)^width
    // ideals (those holding its fork but not its join, minus one, plus its join), plus the empty
    // ideal and the source.
    const Workload w = make_branching_workload(6, 3, 4, 1);
    const DpStats s = count_ideals(w);
    EXPECT_EQ(s.ideals, 1u + 1u + 6u * 125u);
    const Workload wide = make_branching_workload(4, 4, 4, 2);
    EXPECT_EQ(count_ideals(wide).ideals, 2u + 4u * 625u);
    const DpResult r = solve_max_load(wide);
    EXPECT_TRUE(std::isfinite(r.objective));
    DpOptions uncapped;
    uncapped.cap_with_linearization = false;
    EXPECT_NEAR(solve_max_load(wide, uncapped).objective, r.objective, 1e-9 * r.objective);
    EXPECT_NEAR(evaluate_split(wide, r.split).max_load, r.objective, 1e-9 * r.objective);
}

TEST(TarnawskiDp, TrainingStressGraphKeepsPairsTogether) {
    const Workload w = make_branching_workload(3, 3, 3, 3, /*training=*/true);
    const DpResult r = solve_max_load(w);
    EXPECT_EQ(r.stats.ideals, 2u + 3u * 64u);  // (length+1)^width per block
    ASSERT_TRUE(std::isfinite(r.objective));
    const LoadReport e = evaluate_split(w, r.split);
    EXPECT_TRUE(e.colocation_ok);
    EXPECT_NEAR(e.max_load, r.objective, 1e-9 * r.objective);
}

TEST(TarnawskiDp, OrphanedBackwardNodesArePlaced) {
    // f0 -> f1, backward b1 (class of f1) -> b0 (orphan, own class) -> b2 (orphan).
    Workload w;
    w.max_accelerators = 2;
    w.max_cpus = 1;
    w.max_size_per_accelerator = 1e9;
    w.add_node(0, 8, 2, 1, false, true, 0);
    w.add_node(1, 8, 2, 1, false, true, 1);
    w.add_node(2, 8, 2, 1, true, true, 1);
    w.add_node(3, 8, 2, 1, true, true, 5);
    w.add_node(4, 8, 2, 1, true, true);
    w.add_edge(0, 1, 1);
    w.add_edge(1, 2, 1);
    w.add_edge(2, 3, 1);
    w.add_edge(3, 4, 1);
    const DpResult r = solve_max_load(w);
    ASSERT_TRUE(std::isfinite(r.objective));
    EXPECT_NO_THROW(evaluate_split(w, r.split));  // throws if a node is missing
    EXPECT_NEAR(evaluate_split(w, r.split).max_load, r.objective, 1e-12);
}

TEST(TarnawskiDp, RejectsCyclesAndBackwardToForwardEdges) {
    Workload w;
    w.max_accelerators = 1;
    w.max_cpus = 1;
    w.add_node(0, 1, 1);
    w.add_node(1, 1, 1);
    w.add_edge(0, 1, 1);
    w.add_edge(1, 0, 1);
    EXPECT_THROW(solve_max_load(w), DpError);
    Workload b;
    b.max_accelerators = 1;
    b.add_node(0, 1, 1, 0, true);
    b.add_node(1, 1, 1, 0, false);
    b.add_edge(0, 1, 1);
    EXPECT_THROW(solve_max_load(b), DpError);
    DpOptions small;
    small.max_ideals = 100;
    EXPECT_THROW(solve_max_load(make_branching_workload(2, 4, 4, 1), small), DpError);
}

// ---- ideals: generated once each by their canonical parent, Hasse diagram by table lookups ----

TEST(TarnawskiDp, IdealsAndHasseEdgesMatchBruteForce) {
    std::mt19937_64 rng(31);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int trial = 0; trial < 80; ++trial) {
        Workload w;
        w.max_accelerators = 2;
        w.max_cpus = 1;
        w.max_size_per_accelerator = 1e9;
        const int n = 1 + static_cast<int>(u(rng) * 10);
        for (int v = 0; v < n; ++v)
            w.add_node(v, 2.0, 1.0);  // non-zero latencies: no merging, one group per node
        const double density = u(rng);
        std::vector<unsigned> pred(n, 0), succ(n, 0);
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                if (u(rng) < density * 0.6) {
                    w.add_edge(a, b, 1.0);
                    pred[b] |= 1u << a;
                    succ[a] |= 1u << b;
                }
        std::size_t ideals = 0, hasse = 0;  // Hasse: (ideal, maximal element) pairs
        for (unsigned m = 0; m < (1u << n); ++m) {
            bool closed = true;
            for (int v = 0; v < n; ++v)
                closed &= !(m >> v & 1) || (pred[v] & ~m) == 0;
            if (!closed)
                continue;
            ++ideals;
            for (int v = 0; v < n; ++v)
                hasse += (m >> v & 1) && (succ[v] & m) == 0;
        }
        const DpStats s = count_ideals(w);
        EXPECT_EQ(s.groups, static_cast<std::size_t>(n)) << "trial " << trial;
        EXPECT_EQ(s.ideals, ideals) << "trial " << trial;
        EXPECT_EQ(s.hasse_edges, hasse) << "trial " << trial;
    }
}

// ---- the pruned DP against a plain one: §5.1.1's recurrence over all ideal pairs ----

// dp[I][c][a] = min over ideals J ⊊ I of max(dp[J][c][a-1], acc(I \ J)) and
// max(dp[J][c-1][a], cpu(I \ J)), and dp[I][c][a] ≤ dp[I][c-1][a], dp[I][c][a-1]; loads from
// scratch. For inference graphs without colour classes (one group per node).
double plain_dp(const Workload& w) {
    const int n = static_cast<int>(w.node_count());
    const int k = w.max_accelerators, l = w.max_cpus;
    std::vector<unsigned> pred(n, 0);
    std::vector<std::vector<int>> out(n);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        pred[w.edge_dest[e]] |= 1u << w.edge_source[e];
        out[w.edge_source[e]].push_back(static_cast<int>(e));
    }
    auto acc = [&](unsigned s) {
        double load = 0.0, bytes = 0.0;
        for (int v = 0; v < n; ++v) {
            if (!(s >> v & 1))
                continue;
            if (!w.supported_on_accelerator[v])
                return std::numeric_limits<double>::infinity();
            load += w.accelerator_latency[v];
            bytes += w.size[v];
        }
        if (bytes > w.max_size_per_accelerator)
            return std::numeric_limits<double>::infinity();
        for (int u = 0; u < n; ++u) {
            bool uniform = true;
            for (int e : out[u])
                uniform &= w.edge_cost[e] == w.edge_cost[out[u][0]];
            const bool in = s >> u & 1;
            if (uniform) {
                bool out_of = false, into = false;
                for (int e : out[u])
                    (s >> w.edge_dest[e] & 1 ? into : out_of) = true;
                if ((in && out_of) || (!in && into))
                    load += w.edge_cost[out[u][0]];
            } else {
                for (int e : out[u])
                    if (in != static_cast<bool>(s >> w.edge_dest[e] & 1))
                        load += w.edge_cost[e];
            }
        }
        return load;
    };
    auto cpu = [&](unsigned s) {
        double load = 0.0;
        for (int v = 0; v < n; ++v)
            if (s >> v & 1)
                load += w.cpu_latency[v];
        return load;
    };
    std::vector<unsigned> ideals;
    for (unsigned m = 0; m < (1u << n); ++m) {
        bool closed = true;
        for (int v = 0; v < n && closed; ++v)
            closed = !(m >> v & 1) || (pred[v] & ~m) == 0;
        if (closed)
            ideals.push_back(m);
    }
    const int layers = (k + 1) * (l + 1);
    auto at = [&](std::size_t i, int c, int a) { return i * layers + c * (k + 1) + a; };
    std::vector<double> dp(ideals.size() * layers, std::numeric_limits<double>::infinity());
    for (int L = 0; L < layers; ++L)
        dp[L] = 0.0;  // ideals[0] = ∅
    for (std::size_t i = 1; i < ideals.size(); ++i)
        for (int c = 0; c <= l; ++c)
            for (int a = 0; a <= k; ++a) {
                double& best = dp[at(i, c, a)];
                for (std::size_t j = 0; j < i; ++j) {
                    if ((ideals[j] & ~ideals[i]) != 0)
                        continue;
                    const unsigned s = ideals[i] & ~ideals[j];
                    if (a > 0)
                        best = std::min(best, std::max(dp[at(j, c, a - 1)], acc(s)));
                    if (c > 0)
                        best = std::min(best, std::max(dp[at(j, c - 1, a)], cpu(s)));
                }
                if (c > 0)
                    best = std::min(best, dp[at(i, c - 1, a)]);
                if (a > 0)
                    best = std::min(best, dp[at(i, c, a - 1)]);
            }
    return dp[at(ideals.size() - 1, l, k)];
}

TEST(TarnawskiDp, EqualsPlainDpOnMediumRandomGraphs) {
    // 8-13 nodes, up to 4 accelerators and 2 CPUs, CPUs from 4x faster to 20x slower than the
    // accelerators: exercises the cap, the work bounds and the walk's cut beyond the reach of
    // the exhaustive search.
    std::mt19937_64 rng(77);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    int finite = 0;
    for (int trial = 0; trial < 60; ++trial) {
        Workload w;
        const int n = 8 + static_cast<int>(u(rng) * 6);
        w.max_accelerators = 1 + static_cast<int>(u(rng) * 4);
        w.max_cpus = static_cast<int>(u(rng) * 3);
        const double cpu_factor = std::exp(std::log(0.25) + u(rng) * std::log(80.0));
        double total = 0.0;
        for (int v = 0; v < n; ++v) {
            const double acc = u(rng) < 0.15 ? 0.0 : 0.5 + 4.0 * u(rng);
            const double size = std::floor(10.0 * u(rng));
            total += size;
            w.add_node(v, acc * cpu_factor * (0.5 + u(rng)), acc, size, false, u(rng) > 0.05);
        }
        const double density = 0.15 + 0.35 * u(rng);
        const double comm = u(rng) < 0.5 ? 0.2 : 2.0;
        for (int a = 0; a < n; ++a) {
            const double cost = comm * u(rng);
            for (int b = a + 1; b < n; ++b)
                if (u(rng) < density)
                    w.add_edge(a, b, u(rng) < 0.2 ? comm * u(rng) : cost);
        }
        w.max_size_per_accelerator = u(rng) < 0.3 ? std::floor(total * (0.3 + 0.4 * u(rng))) : 1e9;
        DpOptions options;
        options.merge_trivial_nodes = false;
        const double expected = plain_dp(w);
        const DpResult r = solve_max_load(w, options);
        const std::string what = "trial " + std::to_string(trial);
        if (std::isinf(expected)) {
            EXPECT_TRUE(std::isinf(r.objective)) << what;
            continue;
        }
        ++finite;
        ASSERT_NEAR(r.objective, expected, 1e-9 * (1.0 + expected)) << what << "\n"
                                                                    << workload_to_json(w).dump();
        EXPECT_NEAR(evaluate_split(w, r.split).max_load, r.objective, 1e-9 * (1.0 + expected))
            << what;
        DpOptions uncapped = options;
        uncapped.cap_with_linearization = false;
        EXPECT_NEAR(solve_max_load(w, uncapped).objective, expected, 1e-9 * (1.0 + expected))
            << what;
    }
    EXPECT_GE(finite, 40);
}

// ---- replication (Appendix C.2) ----

// a -> b: p^acc 6 and 2 (p^cpu 60 and 20), a's output costs 1 to move, m_a = 4 bytes.
Workload two_node_chain(int accelerators, int cpus, double memory = 100.0, double size_b = 0.0) {
    Workload w;
    w.max_accelerators = accelerators;
    w.max_cpus = cpus;
    w.max_size_per_accelerator = memory;
    w.add_node(1, 60.0, 6.0, 4.0);
    w.add_node(2, 20.0, 2.0, size_b);
    w.add_edge(0, 1, 1.0);
    return w;
}

void expect_consistent(const Workload& w, const DpResult& r, const ReplicationOptions& o,
                       const std::string& what) {
    const LoadReport e =
        evaluate_replicated_split(w, r.split, r.cpu_replicas, r.accelerator_replicas, o);
    EXPECT_NEAR(e.max_load, r.objective, 1e-9 * (1.0 + r.objective)) << what;
    EXPECT_TRUE(e.colocation_ok) << what;
    EXPECT_TRUE(e.memory_ok) << what;
}

using Ids = std::vector<std::int64_t>;

TEST(TarnawskiDpReplication, HandComputedAccelerators) {
    const Workload w = two_node_chain(3, 0);
    DpOptions o;
    // No replication: {a} | {b} = max(6 + 1, 1 + 2) = 7 beats {a, b} = 8.
    DpResult r = solve_max_load(w, o);
    EXPECT_DOUBLE_EQ(r.objective, 7.0);
    EXPECT_EQ(r.accelerator_replicas, (std::vector<int>{1, 1, 1}));
    // B = 2: {a, b} on 3 replicas, 8/3 + (3-1)·4 / (3·2) = 4, beats {a} on 2 | {b},
    // max(7/2 + 1·4 / (2·2), 3) = 4.5, and {a, b} on 2, 8/2 + 4/4 = 5.
    o.replication.max_accelerator_replicas = 3;
    o.replication.accelerator_bandwidth = 2.0;
    r = solve_max_load(w, o);
    EXPECT_NEAR(r.objective, 4.0, 1e-12);
    EXPECT_EQ(r.accelerator_replicas, (std::vector<int>{3, 0, 0}));
    EXPECT_EQ(r.split.accelerators[0], (Ids{1, 2}));
    expect_consistent(w, r, o.replication, "3 replicas");
    // Synchronisation overlapping the work (App. C.1): max(8/3, 4/3).
    o.replication.overlap_sync = true;
    r = solve_max_load(w, o);
    EXPECT_NEAR(r.objective, 8.0 / 3.0, 1e-12);
    expect_consistent(w, r, o.replication, "overlap");
    // At most 2 replicas: {a} on 2 | {b} = 4.5 beats {a, b} on 2 = 5.
    o.replication.overlap_sync = false;
    o.replication.max_accelerator_replicas = 2;
    r = solve_max_load(w, o);
    EXPECT_NEAR(r.objective, 4.5, 1e-12);
    EXPECT_EQ(r.accelerator_replicas, (std::vector<int>{2, 0, 1}));
    EXPECT_EQ(r.split.accelerators, (std::vector<Ids>{{1}, {}, {2}}));
    expect_consistent(w, r, o.replication, "2 replicas");
    // Slow synchronisation, B = 0.5: {a} on 2 costs 7/2 + 4 = 7.5, {a, b} on 3 costs 8: none.
    o.replication.max_accelerator_replicas = 3;
    o.replication.accelerator_bandwidth = 0.5;
    r = solve_max_load(w, o);
    EXPECT_DOUBLE_EQ(r.objective, 7.0);
    EXPECT_EQ(r.accelerator_replicas, (std::vector<int>{1, 1, 1}));
    // DPL (§5.1.2) replicates too.
    o.replication.accelerator_bandwidth = 2.0;
    o.linearize = true;
    EXPECT_NEAR(solve_max_load(w, o).objective, 4.0, 1e-12);
}

TEST(TarnawskiDpReplication, HandComputedCpus) {
    // Two CPUs and no accelerator: {a} | {b} = max(60, 20) = 60.
    const Workload w = two_node_chain(0, 2);
    DpOptions o;
    EXPECT_DOUBLE_EQ(solve_max_load(w, o).objective, 60.0);
    // {a, b} on both CPUs: 80/2 = 40 with free synchronisation (footnote 8: CPUs likewise).
    o.replication.max_cpu_replicas = 2;
    DpResult r = solve_max_load(w, o);
    EXPECT_NEAR(r.objective, 40.0, 1e-12);
    EXPECT_EQ(r.cpu_replicas, (std::vector<int>{2, 0}));
    EXPECT_EQ(r.split.cpus[0], (Ids{1, 2}));
    expect_consistent(w, r, o.replication, "cpus");
    // B_cpu = 0.2: 40 + 1·4 / (2·0.2) = 50.
    o.replication.cpu_bandwidth = 0.2;
    r = solve_max_load(w, o);
    EXPECT_NEAR(r.objective, 50.0, 1e-12);
    expect_consistent(w, r, o.replication, "cpus, B = 0.2");
}

TEST(TarnawskiDpReplication, EveryReplicaHoldsItsSet) {
    // m_a = m_b = 4 bytes, M = 5: {a, b} fits no accelerator, replicated or not. With B = 2:
    // {a} on 2 | {b} = max(7/2 + 4/4, 3) = 4.5; {a} | {b} on 2 = max(7, 3/2 + 4/4) = 7.
    const Workload w = two_node_chain(3, 0, 5.0, 4.0);
    DpOptions o;
    o.replication.max_accelerator_replicas = 3;
    o.replication.accelerator_bandwidth = 2.0;
    const DpResult r = solve_max_load(w, o);
    EXPECT_NEAR(r.objective, 4.5, 1e-12);
    EXPECT_EQ(r.accelerator_replicas, (std::vector<int>{2, 0, 1}));
    expect_consistent(w, r, o.replication, "memory");
}

// Exhaustive search over acyclic device graphs (as brute_force) and replica counts: every used
// device d may take r_d devices of its kind, Σ r_d within k (accelerators) and ℓ (CPUs).
double brute_force_replicated(const Workload& w, const ReplicationOptions& o) {
    const int n = static_cast<int>(w.node_count());
    const int devices = w.max_cpus + w.max_accelerators;
    double best = std::numeric_limits<double>::infinity();
    struct Used {
        bool accelerator;
        double load, bytes;
    };
    for_each_assignment(n, devices, [&](const std::vector<int>& dev) {
        if (!devices_acyclic(w, dev, devices))
            return;
        const Split split = split_of(w, dev);
        std::vector<double> bytes(devices, 0.0);
        for (int v = 0; v < n; ++v)
            bytes[dev[v]] += w.size[v];
        const LoadReport r = evaluate_split(w, split);
        if (!r.colocation_ok || !std::isfinite(r.max_load))
            return;
        std::vector<Used> used;
        for (int d = 0; d < devices; ++d) {
            const bool acc = d >= w.max_cpus;
            const auto& set = acc ? split.accelerators[d - w.max_cpus] : split.cpus[d];
            if (!set.empty())
                used.push_back(
                    {acc, acc ? r.accelerator_loads[d - w.max_cpus] : r.cpu_loads[d], bytes[d]});
        }
        std::function<void(std::size_t, int, int, double)> choose = [&](std::size_t i, int accs,
                                                                        int cpus, double worst) {
            if (worst >= best)
                return;
            if (i == used.size()) {
                best = worst;
                return;
            }
            const Used& u = used[i];
            const int left = u.accelerator ? accs : cpus;
            const int limit =
                std::min(left, u.accelerator ? o.max_accelerator_replicas : o.max_cpu_replicas);
            for (int r = 1; r <= limit; ++r) {
                const double load = replicated_load(
                    u.load, u.bytes, r, u.accelerator ? o.accelerator_bandwidth : o.cpu_bandwidth,
                    o.overlap_sync);
                choose(i + 1, accs - (u.accelerator ? r : 0), cpus - (u.accelerator ? 0 : r),
                       std::max(worst, load));
            }
        };
        choose(0, w.max_accelerators, w.max_cpus, 0.0);
    });
    return best;
}

TEST(TarnawskiDpReplication, EqualsExhaustiveSearch) {
    std::mt19937_64 rng(2022);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double inf = std::numeric_limits<double>::infinity();
    int finite = 0, helped = 0;
    for (int trial = 0; trial < 200; ++trial) {
        Tiny t = random_tiny(rng);
        if (t.w.max_accelerators <= 2 && u(rng) < 0.4)
            t.w.max_cpus = 2;
        DpOptions o;
        o.merge_trivial_nodes = false;  // the merged nodes' weights would sync with their partner
        o.replication.max_accelerator_replicas = 1 + static_cast<int>(u(rng) * 3);
        o.replication.max_cpu_replicas = 1 + static_cast<int>(u(rng) * 2);
        o.replication.accelerator_bandwidth = u(rng) < 0.2 ? inf : 0.5 + 10.0 * u(rng);
        o.replication.cpu_bandwidth = u(rng) < 0.2 ? inf : 0.5 + 10.0 * u(rng);
        o.replication.overlap_sync = u(rng) < 0.3;
        const std::string what = "trial " + std::to_string(trial);
        const double expected = brute_force_replicated(t.w, o.replication);
        const DpResult r = solve_max_load(t.w, o);
        if (std::isinf(expected)) {
            EXPECT_TRUE(std::isinf(r.objective)) << what;
            continue;
        }
        ++finite;
        ASSERT_NEAR(r.objective, expected, 1e-9 * (1.0 + expected)) << what << "\n"
                                                                    << workload_to_json(t.w).dump();
        expect_consistent(t.w, r, o.replication, what);
        DpOptions plain;
        plain.merge_trivial_nodes = false;
        const double unreplicated = solve_max_load(t.w, plain).objective;
        EXPECT_LE(r.objective, unreplicated + 1e-9 * (1.0 + unreplicated)) << what;
        helped += r.objective < unreplicated - 1e-9;
    }
    EXPECT_GE(finite, 100);
    EXPECT_GE(helped, 20);
}

TEST(TarnawskiDpReplication, OffIsUnchanged) {
    // Limits of 1 (the default) with bandwidths and overlap set: the same code path, the same
    // objective and split bit for bit, replica counts all one.
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 100; ++trial) {
        const Tiny t = random_tiny(rng);
        DpOptions base;
        base.merge_trivial_nodes = !t.tight_memory;
        DpOptions off = base;
        off.replication.accelerator_bandwidth = 3.0;
        off.replication.cpu_bandwidth = 0.5;
        off.replication.overlap_sync = true;
        const DpResult a = solve_max_load(t.w, base), b = solve_max_load(t.w, off);
        if (std::isinf(a.objective)) {
            EXPECT_TRUE(std::isinf(b.objective));
            continue;
        }
        EXPECT_EQ(a.objective, b.objective) << "trial " << trial;
        EXPECT_EQ(a.split.accelerators, b.split.accelerators) << "trial " << trial;
        EXPECT_EQ(a.split.cpus, b.split.cpus) << "trial " << trial;
        EXPECT_EQ(b.accelerator_replicas, std::vector<int>(t.w.max_accelerators, 1));
        EXPECT_EQ(b.cpu_replicas, std::vector<int>(t.w.max_cpus, 1));
        // A replicated split with all counts one evaluates like the plain split.
        EXPECT_NEAR(evaluate_replicated_split(t.w, b.split, {}, {}, off.replication).max_load,
                    evaluate_split(t.w, b.split).max_load, 1e-12 * (1.0 + a.objective));
    }
}

TEST(TarnawskiDpReplication, SharedWorkloadNeverWorse) {
    const std::optional<Workload> loaded =
        shared_workload_or_skip("throughput/op_bert_l-3_inference.json");
    if (!loaded)
        return;
    const Workload& w = *loaded;
    const double plain = solve_max_load(w).objective;
    for (double bandwidth : {1e7, 1e9}) {  // bytes per time unit of the latencies
        DpOptions o;
        o.replication.max_accelerator_replicas = w.max_accelerators;
        o.replication.accelerator_bandwidth = bandwidth;
        const DpResult r = solve_max_load(w, o);
        EXPECT_LE(r.objective, plain * (1.0 + 1e-12)) << bandwidth;
        expect_consistent(w, r, o.replication, "BERT-3");
        o.linearize = true;
        EXPECT_GE(solve_max_load(w, o).objective, r.objective * (1.0 - 1e-12)) << bandwidth;
    }
}

TEST(TarnawskiDpReplication, RejectsBadOptionsAndCounts) {
    const Workload w = two_node_chain(3, 0);
    DpOptions bad;
    bad.replication.max_accelerator_replicas = 0;
    EXPECT_THROW(solve_max_load(w, bad), DpError);
    bad = {};
    bad.replication.accelerator_bandwidth = 0.0;
    EXPECT_THROW(solve_max_load(w, bad), DpError);

    DpOptions o;
    o.replication.max_accelerator_replicas = 2;
    o.replication.accelerator_bandwidth = 2.0;
    const DpResult r = solve_max_load(w, o);  // {a} on accelerators 0 and 1, {b} on 2
    ASSERT_EQ(r.accelerator_replicas, (std::vector<int>{2, 0, 1}));
    const auto& rep = o.replication;
    EXPECT_NO_THROW(evaluate_replicated_split(w, r.split, {}, {2, 0, 1}, rep));
    EXPECT_THROW(evaluate_replicated_split(w, r.split, {}, {2, 0}, rep), WorkloadError);
    EXPECT_THROW(evaluate_replicated_split(w, r.split, {}, {0, 1, 1}, rep), WorkloadError);
    EXPECT_THROW(evaluate_replicated_split(w, r.split, {}, {1, 1, 2}, rep), WorkloadError);
    EXPECT_THROW(evaluate_replicated_split(w, r.split, {}, {3, 0, 0}, rep), WorkloadError);
    Split moved = r.split;
    std::swap(moved.accelerators[1], moved.accelerators[2]);  // a replica device holds b
    EXPECT_THROW(evaluate_replicated_split(w, moved, {}, {2, 0, 1}, rep), WorkloadError);
}

// A deadline already past: DPL, having no split yet, refuses with a message naming the time
// limit; without a deadline the same graph is solved.
TEST(TarnawskiDp, APassedDeadlineStopsTheDp) {
    const Workload w = make_branching_workload(3, 3, 3, 4);
    DpOptions late;
    late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    for (bool linearize : {true, false}) {
        late.linearize = linearize;
        try {
            solve_max_load(w, late);
            ADD_FAILURE() << "no error past the deadline";
        } catch (const DpError& e) {
            EXPECT_NE(std::string(e.what()).find("time limit"), std::string::npos) << e.what();
        }
    }
    const DpResult r = solve_max_load(w);
    EXPECT_TRUE(std::isfinite(r.objective));
    EXPECT_FALSE(r.stats.stopped_at_deadline);
}

// The state budget (DpOptions::max_states, `tarnawski.dp:states=N`) is the reproducible stop:
// over it the full DP does not run and DPL's split is the answer, the same on every run; with
// room for every ideal the DP runs as without a budget. Progress counts ideals up to the total.
TEST(TarnawskiDp, AStateBudgetReturnsDplsSplitOnEveryRun) {
    const Workload w = make_branching_workload(3, 3, 3, 4);
    const DpResult full = solve_max_load(w);
    ASSERT_GT(full.stats.ideals, 20u);
    DpOptions dpl;
    dpl.linearize = true;
    const DpResult linear = solve_max_load(w, dpl);

    DpOptions small;
    small.max_states = 20;
    const DpResult a = solve_max_load(w, small), b = solve_max_load(w, small);
    EXPECT_TRUE(a.stats.stopped_by_state_budget);
    EXPECT_FALSE(a.stats.stopped_at_deadline);
    EXPECT_EQ(a.split.cpus, linear.split.cpus);
    EXPECT_EQ(a.split.accelerators, linear.split.accelerators);
    EXPECT_EQ(a.objective, linear.objective);
    EXPECT_EQ(b.split.cpus, a.split.cpus);
    EXPECT_EQ(b.split.accelerators, a.split.accelerators);

    DpOptions roomy;
    roomy.max_states = full.stats.ideals;
    std::vector<std::pair<std::size_t, std::size_t>> seen;
    roomy.on_progress = [&](std::size_t done, std::size_t total) {
        seen.emplace_back(done, total);
    };
    const DpResult c = solve_max_load(w, roomy);
    EXPECT_FALSE(c.stats.stopped_by_state_budget);
    EXPECT_EQ(c.objective, full.objective);
    EXPECT_EQ(c.split.accelerators, full.split.accelerators);
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_LT(seen[i].first, seen[i].second);
        // Within a pass (same total) the ideals done only grow.
        if (i > 0 && seen[i].second == seen[i - 1].second) {
            EXPECT_GT(seen[i].first, seen[i - 1].first);
        }
    }
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
