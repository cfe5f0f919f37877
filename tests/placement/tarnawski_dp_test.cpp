// tarnawski2020 §5.1.1 max-load DP: Table 1 on the shared workloads, exhaustive search over
// contiguous splits on small random graphs, and strongly branching stress graphs.
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/max_load_dp.hpp"

namespace hetsim::placement::tarnawski {
namespace {

const std::filesystem::path kWorkloads = std::filesystem::path(HETSIM_SOURCE_DIR) / ".." /
                                         "shared" / "workloads" / "tarnawski2020" / "throughput";

struct Table1Row {
    const char* file;
    double tps;     // Table 1, DP (contiguous)
    size_t ideals;  // Table 1, ideals of the forward part
};

class Table1 : public ::testing::TestWithParam<Table1Row> {};

TEST_P(Table1, DpMatchesPaper) {
    const auto row = GetParam();
    const auto path = kWorkloads / row.file;
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "shared workload not found: " << path;
    const Workload w = read_workload(path);
    const DpResult r = solve_max_load(w);
    // Table 1 prints two decimals: the objective must round to it.
    EXPECT_LT(std::fabs(r.objective * 100.0 - row.tps * 100.0), 0.5)
        << row.file << ": DP gives " << r.objective << ", Table 1 says " << row.tps;
    EXPECT_EQ(r.stats.ideals, row.ideals) << row.file;
    const LoadReport e = evaluate_split(w, r.split);
    EXPECT_NEAR(e.max_load, r.objective, 1e-9 * r.objective);
    EXPECT_TRUE(e.colocation_ok);
    EXPECT_TRUE(e.memory_ok);
    DpOptions push;
    push.push = true;
    EXPECT_NEAR(solve_max_load(w, push).objective, r.objective, 1e-9 * r.objective);
    EXPECT_EQ(r.split.accelerators.size(), static_cast<size_t>(w.max_accelerators));
    EXPECT_EQ(r.split.cpus.size(), static_cast<size_t>(w.max_cpus));
}

INSTANTIATE_TEST_SUITE_P(SharedWorkloads, Table1,
                         ::testing::Values(Table1Row{"op_bert_l-3_inference.json", 27.92, 1428},
                                           Table1Row{"op_bert_l-6_inference.json", 29.58, 1923},
                                           Table1Row{"op_resnet50_inference.json", 124.35, 241},
                                           Table1Row{"op_bert_l-3_training.json", 65.30, 2774},
                                           Table1Row{"layer_bert24_inference.json", 17.79, 30},
                                           Table1Row{"layer_bert24_training.json", 41.75, 30},
                                           Table1Row{"layer_resnet50_inference.json", 33.77, 242},
                                           Table1Row{"layer_resnet50_training.json", 78.63, 242}),
                         [](const auto& info) {
                             std::string name = info.param.file;
                             name = name.substr(0, name.find('.'));
                             for (char& ch : name)
                                 if (!std::isalnum(static_cast<unsigned char>(ch)))
                                     ch = '_';
                             return name;
                         });

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

// The DP's search space (§5.1.1): the device sets can be ordered so that every prefix union is
// an ideal, i.e. the graph of devices (an edge d(u) -> d(v) for every cut edge) is acyclic.
// This implies Definition 3.1 for every device; it is stronger than Definition 3.1 for each
// device alone (two contiguous sets can feed each other), and it is what pipelining needs.
// For training graphs only the forward part is ordered (§5.3: forward and backward parts are
// contiguous separately; the DP orders the forward part and carries the backward nodes along).
bool devices_acyclic(const Workload& w, const std::vector<int>& dev, int devices) {
    std::vector<unsigned> succ(devices, 0);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        if (w.is_backward[w.edge_source[e]] || w.is_backward[w.edge_dest[e]])
            continue;
        const int a = dev[w.edge_source[e]], b = dev[w.edge_dest[e]];
        if (a != b)
            succ[a] |= 1u << b;
    }
    unsigned left = (1u << devices) - 1;
    for (bool progress = true; progress && left;) {
        progress = false;
        for (int d = 0; d < devices; ++d)
            if ((left >> d & 1) && !(succ[d] & left)) {  // a sink among the remaining
                left &= ~(1u << d);
                progress = true;
            }
    }
    return left == 0;
}

double brute_force(const Workload& w) {
    const int n = static_cast<int>(w.node_count());
    const int devices = w.max_cpus + w.max_accelerators;
    std::vector<int> dev(n, 0);
    double best = std::numeric_limits<double>::infinity();
    for (;;) {
        if (devices_acyclic(w, dev, devices)) {
            Split split;
            split.cpus.resize(w.max_cpus);
            split.accelerators.resize(w.max_accelerators);
            for (int v = 0; v < n; ++v)
                (dev[v] < w.max_cpus ? split.cpus[dev[v]] : split.accelerators[dev[v] - w.max_cpus])
                    .push_back(w.id[v]);
            const LoadReport r = evaluate_split(w, split);
            if (r.colocation_ok)
                best = std::min(best, r.max_load);
        }
        int i = 0;
        while (i < n && ++dev[i] == devices)
            dev[i++] = 0;
        if (i == n)
            break;
    }
    return best;
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
        DpOptions push = options;
        push.push = true;
        const double pushed = solve_max_load(t.w, push).objective;
        if (std::isinf(expected)) {
            EXPECT_TRUE(std::isinf(pushed)) << "trial " << trial;
            EXPECT_TRUE(std::isinf(r.objective)) << "trial " << trial;
            continue;
        }
        ++finite;
        EXPECT_NEAR(pushed, expected, 1e-9 * (1.0 + expected)) << "push, trial " << trial;
        ASSERT_NEAR(r.objective, expected, 1e-9 * (1.0 + expected))
            << "trial " << trial << " nodes " << t.w.node_count() << "\n"
            << workload_to_json(t.w).dump() << "\n"
            << split_to_json(r.split).dump();
        const LoadReport e = evaluate_split(t.w, r.split);
        EXPECT_NEAR(e.max_load, r.objective, 1e-9 * (1.0 + expected)) << "trial " << trial;
        EXPECT_TRUE(e.colocation_ok);
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
        DpOptions push = options;
        push.push = true;
        EXPECT_NEAR(solve_max_load(w, push).objective, expected, 1e-9 * (1.0 + expected))
            << "push, trial " << trial;
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
    DpOptions push;
    push.push = true;
    EXPECT_NEAR(solve_max_load(wide, push).objective, r.objective, 1e-9 * r.objective);
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

}  // namespace
}  // namespace hetsim::placement::tarnawski
