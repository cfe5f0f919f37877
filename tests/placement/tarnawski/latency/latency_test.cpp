// tarnawski2020 §4 single-sample latency (latency.hpp): hand-computed schedules on small
// graphs, the transfer conventions of §3 / App. B, infeasibility, and agreement with
// evaluate_assignment's per-device loads and with Table 4's baseline latencies.
#include <cmath>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

constexpr double kInf = kLatencyInfinity;

// Devices with ℓ = 1 CPU and k = 2 accelerators.
constexpr int C = 0;   // CPU
constexpr int A0 = 1;  // accelerator 0
constexpr int A1 = 2;  // accelerator 1

Workload empty(int accelerators = 2, int cpus = 1, double memory = 100.0) {
    Workload w;
    w.max_accelerators = accelerators;
    w.max_cpus = cpus;
    w.max_size_per_accelerator = memory;
    return w;
}

// a -> b -> c: p^cpu 10/20/30, p^acc 1/2/3, c_a = 1, c_b = 2.
Workload chain() {
    Workload w = empty();
    w.add_node(0, 10, 1, 10);
    w.add_node(1, 20, 2, 10);
    w.add_node(2, 30, 3, 10);
    w.add_edge(0, 1, 1.0);
    w.add_edge(1, 2, 2.0);
    return w;
}

double lat(const Workload& w, std::vector<int> dev) {
    return split_latency(w, Assignment{std::move(dev)});
}

TEST(TarnawskiLatency, ChainHandComputed) {
    const Workload w = chain();
    EXPECT_DOUBLE_EQ(lat(w, {C, C, C}), 60.0);  // 10 + 20 + 30 on the CPU pool
    // One invocation, no outside inputs or outputs: compute only.
    EXPECT_DOUBLE_EQ(lat(w, {A0, A0, A0}), 6.0);
    // a on the CPU (10), then {b, c}: in c_a = 1, compute 5, nothing leaves.
    EXPECT_DOUBLE_EQ(lat(w, {C, A0, A0}), 16.0);
    // {a, b}: compute 3, out c_b = 2 -> 5; c on the CPU: 5 + 30.
    EXPECT_DOUBLE_EQ(lat(w, {A0, A0, C}), 35.0);
    // Pipeline over two accelerators: {a} 1 + out 1 = 2; {b} in 1 + 2 + out 2 -> 7; {c} in 2 + 3.
    EXPECT_DOUBLE_EQ(lat(w, {A0, A1, A1}), 2.0 + 1.0 + 5.0);
    EXPECT_DOUBLE_EQ(lat(w, {A0, A1, C}), 2.0 + 1.0 + 2.0 + 2.0 + 30.0);
    // The CPU index is irrelevant (one pool of cores): devices 0..2 are CPUs here.
    Workload w2 = chain();
    w2.max_cpus = 3;
    EXPECT_DOUBLE_EQ(lat(w2, {0, 2, 1}), 60.0);
    EXPECT_DOUBLE_EQ(lat(w2, {2, 1, 3}), 10.0 + 20.0 + 2.0 + 3.0);
}

// s -> x, s -> y, x -> t, y -> t.
Workload diamond() {
    Workload w = empty();
    w.add_node(0, 10, 1, 10);  // s
    w.add_node(1, 40, 4, 10);  // x
    w.add_node(2, 40, 4, 10);  // y
    w.add_node(3, 5, 1, 10);   // t
    w.add_edge(0, 1, 1.0);
    w.add_edge(0, 2, 1.0);
    w.add_edge(1, 3, 2.0);
    w.add_edge(2, 3, 3.0);
    return w;
}

TEST(TarnawskiLatency, DiamondHandComputed) {
    const Workload w = diamond();
    // CPU cores run x and y in parallel: 10 + 40 + 5.
    EXPECT_DOUBLE_EQ(lat(w, {C, C, C, C}), 55.0);
    // {s, x}: compute 5, out c_s (y is outside) + c_x (t is outside) = 3 -> 8. s's output is
    // only in RAM when the whole subgraph has finished, so {y} starts at 8: in c_s = 1,
    // compute 4, out c_y = 3 -> 16. t on the CPU: 16 + 5.
    const LatencyReport r = evaluate_latency(w, Assignment{{A0, A0, A1, C}});
    EXPECT_DOUBLE_EQ(r.latency, 21.0);
    ASSERT_EQ(r.pieces.size(), 2u);
    EXPECT_DOUBLE_EQ(r.pieces[0].start, 0.0);
    EXPECT_DOUBLE_EQ(r.pieces[0].transfer_in, 0.0);
    EXPECT_DOUBLE_EQ(r.pieces[0].compute, 5.0);
    EXPECT_DOUBLE_EQ(r.pieces[0].transfer_out, 3.0);
    EXPECT_DOUBLE_EQ(r.pieces[0].finish, 8.0);
    EXPECT_DOUBLE_EQ(r.pieces[1].start, 8.0);
    EXPECT_DOUBLE_EQ(r.pieces[1].transfer_in, 1.0);
    EXPECT_DOUBLE_EQ(r.pieces[1].finish, 16.0);
    EXPECT_DOUBLE_EQ(r.node_finish[3], 21.0);
    EXPECT_TRUE(r.contiguous);
    // s on the CPU (10), x and y on two accelerators in parallel: each in 1 + 4 + out;
    // x done at 10 + 1 + 4 + 2 = 17, y at 10 + 1 + 4 + 3 = 18; t on the CPU: 18 + 5.
    EXPECT_DOUBLE_EQ(lat(w, {C, A0, A1, C}), 23.0);
    // Both branches on one accelerator: {x, y} in c_s once (one source), compute 8,
    // out c_x + c_y = 5: 10 + 1 + 8 + 5 + 5.
    EXPECT_DOUBLE_EQ(lat(w, {C, A0, A0, C}), 29.0);
}

TEST(TarnawskiLatency, NonContiguousContentsRunAsSerialPieces) {
    const Workload w = chain();
    // a and c on accelerator 0, b on accelerator 1: accelerator 0 holds two pieces (§4.1).
    // {a}: 1 + out 1 = 2; {b}: in 1, 2, out 2 -> 7; {c}: in c_b = 2, compute 3 -> 12.
    const LatencyReport r = evaluate_latency(w, Assignment{{A0, A1, A0}});
    EXPECT_DOUBLE_EQ(r.latency, 12.0);
    EXPECT_FALSE(r.contiguous);
    EXPECT_EQ(r.pieces_per_accelerator, (std::vector<int>{2, 1}));
    ASSERT_EQ(r.pieces.size(), 3u);
    EXPECT_EQ(r.pieces[0].nodes, (std::vector<int>{0}));
    EXPECT_EQ(r.pieces[1].nodes, (std::vector<int>{2}));
    EXPECT_EQ(r.pieces[1].layer, 1);
    EXPECT_DOUBLE_EQ(r.pieces[1].start, 7.0);
    // With b on the CPU: {a} 2, b 2 + 20, {c} in 2 + 3: an edge between two pieces of the same
    // accelerator also goes through RAM (no state between invocations, §3 footnote 2).
    EXPECT_DOUBLE_EQ(lat(w, {A0, C, A0}), 27.0);
    LatencyEvaluator evaluator(w);
    LatencyEvaluator::Options contiguous_only;
    contiguous_only.require_contiguous = true;
    EXPECT_EQ(evaluator.latency({A0, C, A0}, contiguous_only), kInf);
    EXPECT_FALSE(evaluator.contiguous());
    EXPECT_DOUBLE_EQ(evaluator.latency({A0, C, A0}), 27.0);

    // Pieces by earliest layer: p -> q -> r and p -> r, with q outside: {p} before {r}; an
    // independent node z on the accelerator joins the first piece.
    Workload v = empty();
    v.add_node(0, 1, 1, 1);  // p
    v.add_node(1, 1, 1, 1);  // q
    v.add_node(2, 1, 1, 1);  // r
    v.add_node(3, 1, 1, 1);  // z
    v.add_edge(0, 1, 1.0);
    v.add_edge(1, 2, 1.0);
    v.add_edge(0, 2, 1.0);
    const LatencyReport s = evaluate_latency(v, Assignment{{A0, C, A0, A0}});
    ASSERT_EQ(s.pieces.size(), 2u);
    EXPECT_EQ(s.pieces[0].nodes, (std::vector<int>{0, 3}));
    EXPECT_EQ(s.pieces[1].nodes, (std::vector<int>{2}));
    // {p, z}: compute 2, out c_p = 1 (paid once for q and r) -> 3; q: 3 + 1 = 4;
    // {r}: in c_p + c_q = 2, compute 1 -> 7.
    EXPECT_DOUBLE_EQ(s.latency, 7.0);
}

// u -> v1 (CPU), u -> v2 (accelerator 1), u on accelerator 0.
Workload fan(double cost1, double cost2) {
    Workload w = empty();
    w.add_node(0, 10, 1, 1);  // u
    w.add_node(1, 5, 1, 1);   // v1
    w.add_node(2, 20, 2, 1);  // v2
    w.add_node(3, 20, 2, 1);  // v3
    w.add_edge(0, 1, cost1);
    w.add_edge(0, 2, cost2);
    w.add_edge(0, 3, cost2);
    return w;
}

TEST(TarnawskiLatency, TransferConventions) {
    {
        // Uniform outgoing cost c_u = 2: paid once out of u's piece however many edges leave,
        // and once into each piece that reads it.
        const Workload w = fan(2.0, 2.0);
        const LatencyReport r = evaluate_latency(w, Assignment{{A0, C, A1, A1}});
        EXPECT_DOUBLE_EQ(r.pieces[0].transfer_out, 2.0);
        EXPECT_DOUBLE_EQ(r.pieces[1].transfer_in, 2.0);
        // {u}: 1 + 2 = 3; v1: 3 + 5 = 8; {v2, v3}: 3 + 2 + 4 = 9.
        EXPECT_DOUBLE_EQ(r.latency, 9.0);
        // The CPU reads RAM for free; a CPU source costs only the accelerator's read.
        EXPECT_DOUBLE_EQ(lat(w, {C, C, A1, A1}), 10.0 + 2.0 + 4.0);
    }
    {
        // Non-uniform costs (1 to v1, 3 to v2 and v3): App. B subdivides every edge, so each
        // crossing edge is paid on its own, out of u's piece and into the reader's piece.
        const Workload w = fan(1.0, 3.0);
        const LatencyReport r = evaluate_latency(w, Assignment{{A0, C, A1, A1}});
        EXPECT_DOUBLE_EQ(r.pieces[0].transfer_out, 1.0 + 3.0 + 3.0);
        EXPECT_DOUBLE_EQ(r.pieces[1].transfer_in, 3.0 + 3.0);
        // {u}: 1 + 7 = 8; v1: 13; {v2, v3}: 8 + 6 + 4 = 18.
        EXPECT_DOUBLE_EQ(r.latency, 18.0);
        // Edges inside a piece cost nothing.
        // {u, v2, v3}: compute 5, out 1 (to v1) -> 6; v1: 6 + 5.
        EXPECT_DOUBLE_EQ(lat(w, {A0, C, A0, A0}), 11.0);
        // The same items as evaluate_assignment, which charges them per device.
        const LoadReport load = evaluate_assignment(w, Assignment{{A0, C, A1, A1}});
        EXPECT_DOUBLE_EQ(load.accelerator_loads[0],
                         r.pieces[0].transfer_in + r.pieces[0].compute + r.pieces[0].transfer_out);
        EXPECT_DOUBLE_EQ(load.accelerator_loads[1],
                         r.pieces[1].transfer_in + r.pieces[1].compute + r.pieces[1].transfer_out);
    }
}

TEST(TarnawskiLatency, InfeasibleSplitsAreInfinite) {
    Workload w = chain();
    w.max_size_per_accelerator = 25.0;  // two nodes of 10 bytes fit, three do not
    EXPECT_DOUBLE_EQ(lat(w, {A0, A0, A1}), 3.0 + 2.0 + 2.0 + 3.0);
    LatencyReport r = evaluate_latency(w, Assignment{{A0, A0, A0}});
    EXPECT_EQ(r.latency, kInf);
    EXPECT_FALSE(r.memory_ok);
    EXPECT_DOUBLE_EQ(r.schedule_latency, 6.0);
    EXPECT_DOUBLE_EQ(r.memory_excess_bytes, 5.0);
    LatencyEvaluator evaluator(w);
    LatencyEvaluator::Options ignore_memory;
    ignore_memory.check_memory = false;
    EXPECT_DOUBLE_EQ(evaluator.latency({A0, A0, A0}, ignore_memory), 6.0);
    EXPECT_DOUBLE_EQ(evaluator.memory_excess_bytes(), 5.0);

    Workload u = empty();
    u.add_node(0, 1, 1, 1, false, /*supported=*/false);
    u.add_node(1, 1, 1, 1);
    u.add_edge(0, 1, 1.0);
    EXPECT_EQ(lat(u, {A0, A0}), kInf);
    EXPECT_FALSE(evaluate_latency(u, Assignment{{A0, A0}}).supported_ok);
    EXPECT_DOUBLE_EQ(lat(u, {C, A0}), 1.0 + 1.0 + 1.0);

    // Colour classes: one device, where all CPU cores count as one device.
    Workload c = empty(2, 2);
    c.add_node(0, 1, 1, 1, false, true, 7);
    c.add_node(1, 1, 1, 1);
    c.add_node(2, 1, 1, 1, false, true, 7);
    c.add_edge(0, 1, 1.0);
    c.add_edge(1, 2, 1.0);
    EXPECT_EQ(lat(c, {2, 2, 3}), kInf);
    EXPECT_FALSE(evaluate_latency(c, Assignment{{2, 2, 3}}).colocation_ok);
    EXPECT_DOUBLE_EQ(lat(c, {0, 2, 1}), 1.0 + (1.0 + 1.0 + 1.0) + 1.0);
    // A class member on the CPU with the node between them on an accelerator is legal: the
    // CPU pool need not hold a contiguous set.
    EXPECT_TRUE(std::isfinite(lat(c, {0, 3, 0})));

    // Deadlock: a1 -> b2 and b1 -> a2 with {a1, a2} and {b1, b2} on two accelerators. Each set
    // is contiguous, but each needs the other's output before it can be invoked.
    Workload d = empty();
    d.add_node(0, 1, 1, 1);  // a1
    d.add_node(1, 1, 1, 1);  // a2
    d.add_node(2, 1, 1, 1);  // b1
    d.add_node(3, 1, 1, 1);  // b2
    d.add_edge(0, 3, 1.0);
    d.add_edge(2, 1, 1.0);
    const LatencyReport dl = evaluate_latency(d, Assignment{{A0, A0, A1, A1}});
    EXPECT_EQ(dl.latency, kInf);
    EXPECT_FALSE(dl.deadlock_free);
    EXPECT_TRUE(dl.contiguous);
    // Pairing the other way keeps both edges inside: two independent invocations of 2.
    EXPECT_DOUBLE_EQ(lat(d, {A0, A1, A1, A0}), 2.0);

    // Malformed assignments throw.
    EXPECT_THROW(lat(chain(), {C, C}), WorkloadError);
    EXPECT_THROW(lat(chain(), {C, C, 3}), WorkloadError);
    EXPECT_DOUBLE_EQ(lat(empty(), {}), 0.0);
}

Workload random_dag(std::mt19937_64& rng, int n, int k) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Workload w = empty(k, 1, 0.0);
    double total = 0.0;
    for (int v = 0; v < n; ++v) {
        const double acc = 0.5 + 4.0 * u(rng);
        w.add_node(v, acc * (2.0 + 8.0 * u(rng)), acc, 1.0 + 9.0 * u(rng));
        total += w.size.back();
    }
    w.max_size_per_accelerator = total * (0.3 + 0.5 * u(rng));
    for (int a = 0; a < n; ++a) {
        const double base = 0.2 + 3.0 * u(rng);
        const bool uniform = u(rng) < 0.7;
        for (int b = a + 1; b < n; ++b)
            if (u(rng) < 0.35)
                w.add_edge(a, b, uniform ? base : 0.2 + 3.0 * u(rng));
    }
    return w;
}

// Every transfer item charged per piece sums, for contiguous splits, to evaluate_assignment's
// per-device loads; and the critical path is bounded by a chain of all devices' work.
TEST(TarnawskiLatency, PiecesAgreeWithMaxLoadLoadsOnContiguousSplits) {
    std::mt19937_64 rng(5);
    int contiguous_seen = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const Workload w = random_dag(rng, 7, 2);
        std::vector<int> dev(7);
        for (int& d : dev)
            d = static_cast<int>(rng() % 3);
        const Assignment a{dev};
        const LatencyReport r = evaluate_latency(w, a);
        const LoadReport load = evaluate_assignment(w, a);
        EXPECT_EQ(r.memory_ok, load.memory_ok);
        if (!r.contiguous || !r.deadlock_free)
            continue;
        ++contiguous_seen;
        double work = 0.0;
        for (const LatencyPiece& p : r.pieces) {
            const double piece = p.transfer_in + p.compute + p.transfer_out;
            EXPECT_NEAR(piece, load.accelerator_loads[p.accelerator], 1e-9);
            EXPECT_NEAR(p.finish - p.start, piece, 1e-9);
            work += piece;
        }
        work += load.cpu_loads[0];
        EXPECT_LE(r.schedule_latency, work + 1e-9);
        double heaviest = 0.0;
        for (double x : load.accelerator_loads)
            heaviest = std::max(heaviest, x);
        EXPECT_GE(r.schedule_latency, heaviest - 1e-9);
    }
    EXPECT_GT(contiguous_seen, 100);
}

TEST(TarnawskiLatency, SplitOverloadAndReportAgree) {
    const Workload w = diamond();
    Split s;
    s.cpus = {{0, 3}};
    s.accelerators = {{1}, {2}};
    EXPECT_DOUBLE_EQ(split_latency(w, s), 23.0);
    EXPECT_DOUBLE_EQ(evaluate_latency(w, to_assignment(w, s)).latency, 23.0);
}

// Table 4's baselines on the BERT-24 layer graph, recomputed with our latency: the max-load DP
// split (108.03) and the human-expert split (111.94; it uses 6 accelerators, so we score it
// with k = 6 as the paper evidently did).
TEST(TarnawskiLatency, Table4BaselinesOnBert24) {
    const auto path = kSharedWorkloads / "latency" / "layer_bert24_inference.json";
    const auto expert = kSharedWorkloads / "experts" / "bert24_inference_expert.json";
    if (!std::filesystem::exists(path) || !std::filesystem::exists(expert))
        GTEST_SKIP() << "shared workloads not found under " << kSharedWorkloads;
    Workload w = read_workload(path);
    const DpResult dp = solve_max_load(w);
    EXPECT_NEAR(split_latency(w, dp.split), 108.03, 0.005);
    w.max_accelerators = 6;
    const LatencyReport r = evaluate_latency(w, to_assignment(w, read_split(expert)));
    EXPECT_NEAR(r.latency, 111.94, 0.005);
    EXPECT_TRUE(r.memory_ok);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
