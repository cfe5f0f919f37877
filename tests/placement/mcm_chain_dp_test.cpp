// The chain DPs (placement/mcm/chain_dp.hpp) against hand-computed optima on mcm2022's Figure 2a
// graph and against brute force over every chip assignment of small random DAGs (shared
// weights, several graph inputs and outputs, homogeneous and heterogeneous rings, roomy and
// tight SRAM), plus the infeasible, max_ideals and deadline exits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/chain_dp.hpp"
#include "placement/mcm/constraints.hpp"
#include "placement/mcm/enumerate.hpp"
#include "placement/mcm/problem.hpp"
#include "sim/workloads/json_graph.hpp"
#include "tests/fixtures/mcm_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::placement::mcm {
namespace {

using ::testing::HasSubstr;

constexpr double kNs = 1e-9;
constexpr double kInf = std::numeric_limits<double>::infinity();

// A closed one-way ring like mcm_ring_platform_yaml, with every rate chosen by the test: chip c
// runs MatMul at matmul_gops[c] and other ops at elementwise_gops, ring link c has
// ring_gbps[c] and ring_latency_ns, the host feeds chip 0 and chip c returns outputs over
// host_out_gbps[c], both with host_latency_ns.
struct RingSpec {
    std::string sram = "32 MiB";
    std::vector<double> matmul_gops;
    double elementwise_gops = 1.0;
    std::vector<double> ring_gbps;
    double ring_latency_ns = 10.0;
    double host_in_gbps = 10.0;
    std::vector<double> host_out_gbps;
    double host_latency_ns = 0.0;
    int chips() const { return static_cast<int>(matmul_gops.size()); }
};

std::string ring_yaml(const RingSpec& s) {
    const int chips = s.chips();
    std::string yaml = fmt::format(
        "name: test_ring\ndispatch: dataflow\nhost: host\nrelays: [{}]\ncomponents:\n"
        "  host: {{type: ring_host}}\n"
        "  host_in: {{type: pcie, endpoints: [host, chip0], one_way: true, bandwidth: {} GB/s, "
        "latency: {} ns}}\n",
        hetsim::testing::chip_names(chips), s.host_in_gbps, s.host_latency_ns);
    for (int c = 0; c < chips; ++c) {
        yaml += fmt::format(
            "  chip{}: {{type: chiplet, matmul_rate: {} GOPS, elementwise_rate: {} GOPS, "
            "op_overhead: 0 s, memory: {}}}\n",
            c, s.matmul_gops[static_cast<std::size_t>(c)], s.elementwise_gops, s.sram);
        yaml += fmt::format(
            "  out{0}: {{type: pcie, endpoints: [chip{0}, host], one_way: true, bandwidth: {1} "
            "GB/s, latency: {2} ns}}\n",
            c, s.host_out_gbps[static_cast<std::size_t>(c)], s.host_latency_ns);
        yaml += fmt::format(
            "  ring{}: {{type: ring_link, endpoints: [chip{}, chip{}], bandwidth: {} GB/s, "
            "latency: {} ns}}\n",
            c, c, (c + 1) % chips, s.ring_gbps[static_cast<std::size_t>(c)], s.ring_latency_ns);
    }
    return yaml;
}

RingSpec uniform_ring(int chips, double gops, double ring_gbps, double ring_latency_ns,
                      double host_gbps) {
    RingSpec s;
    s.matmul_gops.assign(static_cast<std::size_t>(chips), gops);
    s.elementwise_gops = gops;
    s.ring_gbps.assign(static_cast<std::size_t>(chips), ring_gbps);
    s.ring_latency_ns = ring_latency_ns;
    s.host_in_gbps = host_gbps;
    s.host_out_gbps.assign(static_cast<std::size_t>(chips), host_gbps);
    return s;
}

sim::Platform platform(const RingSpec& spec) {
    return hetsim::testing::parse_platform_yaml(ring_yaml(spec));
}

sim::Graph figure2() {
    return sim::workloads::parse_json_graph(hetsim::testing::kMcmFigure2, "figure2");
}

ChainDpResult solve(const McmProblem& problem, ChainSpace space, bool linearized_cap = true) {
    ChainDpOptions options;
    options.space = space;
    options.linearized_cap = linearized_cap;
    return solve_chain_dp(problem, options);
}

// Figure 2a on three chips at 1 GOPS (Relu and Add of 4 elements: 4 ns, the MatMul: 32 ns),
// ring hops of 1 ns + 16 B at 16 GB/s (2 ns per tensor), host links at 16 GB/s (1 ns per tensor).
// The chip holding n3 carries at least 32 ns plus n3's output t3 on its link:
//  * relaxed: {n0,n1,n2} | {n3} | {n4}: chip 0 = 12 + t1, t2 (4) = 16; chip 1 = 32 + t3 and t2
//    relayed (4) = 36; chip 2 = 4 + t4 to the host (1) = 5. Nothing reaches 34 = 32 + t3 alone
//    (n2 would share n3's chip or its tensor would be relayed), so the optimum is 36 ns — with a
//    chip triangle (t2 goes 0 -> 2 while 0 -> 1 -> 2 exists);
//  * adjacent cuts: n4 must then join n3 ({n0,n1,n2} | {n3,n4}: 16 and 32 + 4 + 1 = 37 ns),
//    every other chain is worse, and 37 ns is also the best valid partition.
TEST(McmChainDp, Figure2ByHand) {
    const sim::Graph g = figure2();
    const sim::Platform p = platform(uniform_ring(3, 1.0, 16.0, 1.0, 16.0));
    const McmProblem problem(g, p);
    AnalyticModel model(problem);
    ASSERT_NEAR(problem.ring_hop(0).time_s(16), 2 * kNs, 1e-18);
    ASSERT_NEAR(problem.op_time_s(3, 1), 32 * kNs, 1e-18);

    const ChainDpResult relaxed = solve(problem, ChainSpace::kRelaxed);
    ASSERT_TRUE(relaxed.feasible);
    EXPECT_FALSE(relaxed.stopped);
    EXPECT_NEAR(relaxed.time_per_sample_s, 36 * kNs, 1e-18);
    EXPECT_EQ(relaxed.chips_used, 3);
    ASSERT_EQ(relaxed.chip_of_op.size(), 5u);
    EXPECT_EQ(relaxed.chip_of_op[3], 1);  // n3 alone on chip 1
    EXPECT_NEAR(model.time_per_sample_s(relaxed.chip_of_op), 36 * kNs, 1e-18);
    const AnalyticResult relaxed_eval = model.evaluate(relaxed.chip_of_op);
    EXPECT_FALSE(relaxed_eval.valid);
    EXPECT_THAT(relaxed_eval.reason, HasSubstr("triangle"));

    const ChainDpResult adjacent = solve(problem, ChainSpace::kAdjacentCuts);
    ASSERT_TRUE(adjacent.feasible);
    EXPECT_NEAR(adjacent.time_per_sample_s, 37 * kNs, 1e-18);
    EXPECT_EQ(adjacent.chip_of_op, (std::vector<int>{0, 0, 0, 1, 1}));
    EXPECT_EQ(adjacent.chips_used, 2);
    EXPECT_TRUE(model.evaluate(adjacent.chip_of_op).valid);
}

// The ideals of Figure 2a (n0 -> n1, n2; n1 -> n3; n2, n3 -> n4), counted by hand.
TEST(McmChainDp, Figure2IdealCount) {
    const sim::Graph g = figure2();
    const sim::Platform p = platform(uniform_ring(2, 1.0, 16.0, 1.0, 16.0));
    const McmProblem problem(g, p);
    // ∅, {0}, {0,1}, {0,2}, {0,1,2}, {0,1,3}, {0,1,2,3}, {0,1,2,3,4}: 8.
    EXPECT_EQ(solve(problem, ChainSpace::kRelaxed).ideals, 8u);
}

// A weight read by several ops is resident once per chip (mcm2022 Fig. 2f): three MatMuls of
// one 64 B weight fit a 64 B SRAM together; on separate chips each holds a copy.
TEST(McmChainDp, SharedWeightsCountOncePerChip) {
    const sim::Graph g = sim::workloads::parse_json_graph(R"({"name": "shared",
 "tensors": [{"name": "x", "shape": [1, 4], "kind": "input"},
  {"name": "w", "shape": [4, 4], "kind": "weight"},
  {"name": "a", "shape": [1, 4]}, {"name": "b", "shape": [1, 4]}, {"name": "c", "shape": [1, 4]}],
 "ops": [{"name": "m0", "type": "MatMul", "inputs": ["x", "w"], "outputs": ["a"]},
  {"name": "m1", "type": "MatMul", "inputs": ["a", "w"], "outputs": ["b"]},
  {"name": "m2", "type": "MatMul", "inputs": ["b", "w"], "outputs": ["c"]}]})",
                                                          "shared");
    RingSpec spec = uniform_ring(3, 1.0, 16.0, 1.0, 16.0);
    spec.sram = "64 B";
    const sim::Platform p = platform(spec);
    const McmProblem problem(g, p);
    // On one chip: 3 x 32 ns + c to the host (1 ns) = 97 ns. Split 1 | 2 ops: 32 + a (2) = 34
    // and 64 + 1 = 65; 2 | 1: 64 + 2 = 66 and 33; 1 | 1 | 1: 34, 34, 33 -> 34 ns.
    for (ChainSpace space : {ChainSpace::kRelaxed, ChainSpace::kAdjacentCuts}) {
        const ChainDpResult r = solve(problem, space);
        ASSERT_TRUE(r.feasible);
        EXPECT_NEAR(r.time_per_sample_s, 34 * kNs, 1e-18);
        EXPECT_EQ(r.chip_of_op, (std::vector<int>{0, 1, 2}));
    }
    // With two chips the 1 | 2 split (65 ns) beats one chip (97 ns).
    const sim::Platform p2 = platform([] {
        RingSpec s = uniform_ring(2, 1.0, 16.0, 1.0, 16.0);
        s.sram = "64 B";
        return s;
    }());
    const McmProblem two(g, p2);
    const ChainDpResult r2 = solve(two, ChainSpace::kRelaxed);
    ASSERT_TRUE(r2.feasible);
    EXPECT_NEAR(r2.time_per_sample_s, 65 * kNs, 1e-18);
    EXPECT_EQ(r2.chip_of_op, (std::vector<int>{0, 1, 1}));
}

// x -> n0 (Relu, 4 ns) -> n1 (MatMul, 32 ns, its output to the host: 1 ns): n1 alone on chip 1
// (33 ns; chip 0: 4 + t0 on the ring (2) = 6) meets the floor (the largest op with its host
// output), so the linearized DP's chain is proven optimal and the lattice is not built.
TEST(McmChainDp, LinearizedChainMeetingTheFloorSkipsTheLattice) {
    const sim::Graph g = sim::workloads::parse_json_graph(R"({"name": "two",
 "tensors": [{"name": "x", "shape": [1, 4], "kind": "input"},
  {"name": "w", "shape": [4, 4], "kind": "weight"},
  {"name": "a", "shape": [1, 4]}, {"name": "b", "shape": [1, 4]}],
 "ops": [{"name": "n0", "type": "Relu", "inputs": ["x"], "outputs": ["a"]},
  {"name": "n1", "type": "MatMul", "inputs": ["a", "w"], "outputs": ["b"]}]})",
                                                          "two");
    const sim::Platform p = platform(uniform_ring(3, 1.0, 16.0, 1.0, 16.0));
    const McmProblem problem(g, p);
    const ChainDpResult capped = solve(problem, ChainSpace::kRelaxed);
    ASSERT_TRUE(capped.feasible);
    EXPECT_NEAR(capped.time_per_sample_s, 33 * kNs, 1e-18);
    EXPECT_EQ(capped.linearized_time_per_sample_s, capped.time_per_sample_s);
    EXPECT_EQ(capped.chip_of_op, (std::vector<int>{0, 1}));
    EXPECT_EQ(capped.ideals, 0u);
    const ChainDpResult full = solve(problem, ChainSpace::kRelaxed, false);
    EXPECT_EQ(full.ideals, 3u);
    EXPECT_EQ(full.time_per_sample_s, capped.time_per_sample_s);
    EXPECT_EQ(full.chip_of_op, capped.chip_of_op);
}

TEST(McmChainDp, InfeasibleWhenWeightsNeverFit) {
    const sim::Graph g = figure2();  // n3's weight is 64 B
    RingSpec spec = uniform_ring(3, 1.0, 16.0, 1.0, 16.0);
    spec.sram = "48 B";
    const sim::Platform p = platform(spec);
    const McmProblem problem(g, p);
    for (ChainSpace space : {ChainSpace::kRelaxed, ChainSpace::kAdjacentCuts}) {
        for (bool cap : {true, false}) {
            const ChainDpResult r = solve(problem, space, cap);
            EXPECT_FALSE(r.feasible);
            EXPECT_FALSE(r.stopped);
            EXPECT_TRUE(r.chip_of_op.empty());
            EXPECT_EQ(r.time_per_sample_s, kInf);
        }
    }
}

TEST(McmChainDp, TooManyIdealsIsAnErrorNamingTheGraph) {
    const sim::Graph g = figure2();
    const sim::Platform p = platform(uniform_ring(3, 1.0, 16.0, 1.0, 16.0));
    const McmProblem problem(g, p);
    ChainDpOptions options;
    options.max_ideals = 7;  // Figure 2a has 8
    try {
        (void)solve_chain_dp(problem, options);
        FAIL() << "expected ChainDpError";
    } catch (const ChainDpError& e) {
        EXPECT_THAT(e.what(), HasSubstr("graph 'figure2'"));
        EXPECT_THAT(e.what(), HasSubstr("more than 7 ideals"));
    }
    options.max_ideals = 8;
    EXPECT_TRUE(solve_chain_dp(problem, options).feasible);
}

TEST(McmChainDp, DeadlineStopsWithoutAResult) {
    const sim::Graph g = figure2();
    const sim::Platform p = platform(uniform_ring(3, 1.0, 16.0, 1.0, 16.0));
    const McmProblem problem(g, p);
    ChainDpOptions options;
    options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const ChainDpResult r = solve_chain_dp(problem, options);
    EXPECT_TRUE(r.stopped);
    EXPECT_FALSE(r.feasible);
    EXPECT_TRUE(r.chip_of_op.empty());
}

// Progress: every 1024th ideal of the full DP, out of the lattice's ideals, in order; listening
// changes nothing. Four independent chains of six Relus have 7^4 = 2401 ideals.
TEST(McmChainDp, ReportsTheIdealsItWalks) {
    std::string tensors = R"({"name": "x", "shape": [1, 8], "kind": "input"})", ops, outputs;
    for (int chain = 0; chain < 4; ++chain) {
        for (int i = 0; i < 6; ++i) {
            const std::string in = i == 0 ? "x" : fmt::format("c{}_{}", chain, i - 1);
            const std::string out = fmt::format("c{}_{}", chain, i);
            tensors += fmt::format(R"(, {{"name": "{}", "shape": [1, 8]}})", out);
            ops += fmt::format(R"({}{{"name": "n{}_{}", "type": "Relu", "inputs": ["{}"], )"
                               R"("outputs": ["{}"]}})",
                               ops.empty() ? "" : ", ", chain, i, in, out);
        }
        outputs += fmt::format(R"({}"c{}_5")", chain == 0 ? "" : ", ", chain);
    }
    const sim::Graph g = sim::workloads::parse_json_graph(
        fmt::format(R"({{"name": "chains", "tensors": [{}], "ops": [{}], "outputs": [{}]}})",
                    tensors, ops, outputs),
        "chains");
    const McmProblem problem(g, platform(uniform_ring(4, 1.0, 16.0, 1.0, 16.0)));
    ChainDpOptions options;
    options.linearized_cap = false;  // the lattice is walked whatever the linearized DP finds
    std::vector<std::pair<std::size_t, std::size_t>> seen;
    options.on_progress = [&](std::size_t done, std::size_t total) {
        seen.emplace_back(done, total);
    };
    const ChainDpResult r = solve_chain_dp(problem, options);
    EXPECT_EQ(r.ideals, 2401u);
    EXPECT_EQ(seen, (std::vector<std::pair<std::size_t, std::size_t>>{{1024, 2401}, {2048, 2401}}));
    options.on_progress = {};
    const ChainDpResult quiet = solve_chain_dp(problem, options);
    EXPECT_EQ(quiet.time_per_sample_s, r.time_per_sample_s);
    EXPECT_EQ(quiet.chip_of_op, r.chip_of_op);
}

// A random DAG of `ops` ops on [1, 8] activations: MatMuls reading one of three shared [8, 8]
// weights, Adds of two tensors, Relus; inputs drawn mostly from recent tensors (depth) and
// from two graph inputs (so that inputs reach several chips); some read tensors are graph
// outputs too.
sim::Graph random_graph(std::uint64_t seed, int ops) {
    std::mt19937_64 rng(seed);
    auto below = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    std::vector<std::string> available{"x", "y"};
    std::vector<bool> weight_used(3, false);
    std::string op_json, tensor_json;
    std::vector<std::string> outputs;
    bool y_used = false;
    auto pick = [&]() {
        const std::size_t n = available.size();
        const std::size_t i = below(10) < 7 ? n - 1 - below(std::min<std::size_t>(n, 3)) : below(n);
        if (available[i] == "y")
            y_used = true;
        return available[i];
    };
    for (int i = 0; i < ops; ++i) {
        const std::string out = fmt::format("t{}", i);
        const std::size_t kind = below(10);
        std::string inputs, type;
        if (kind < 4) {
            const std::size_t w = below(3);
            weight_used[w] = true;
            type = "MatMul";
            inputs = fmt::format(R"("{}", "w{}")", pick(), w);
        } else if (kind < 7) {
            type = "Add";
            std::string a = pick(), b = pick();
            inputs = fmt::format(R"("{}", "{}")", a, b);
        } else {
            type = "Relu";
            inputs = fmt::format(R"("{}")", pick());
        }
        op_json +=
            fmt::format(R"({}{{"name": "n{}", "type": "{}", "inputs": [{}], "outputs": ["{}"]}})",
                        i == 0 ? "" : ", ", i, type, inputs, out);
        tensor_json += fmt::format(R"(, {{"name": "{}", "shape": [1, 8]}})", out);
        available.push_back(out);
        if (below(100) < 15)
            outputs.push_back(fmt::format(R"("{}")", out));
    }
    std::string tensors = R"({"name": "x", "shape": [1, 8], "kind": "input"})";
    if (y_used)
        tensors += R"(, {"name": "y", "shape": [1, 8], "kind": "input"})";
    for (int w = 0; w < 3; ++w)
        if (weight_used[static_cast<std::size_t>(w)])
            tensors += fmt::format(R"(, {{"name": "w{}", "shape": [8, 8], "kind": "weight"}})", w);
    std::string joined;
    for (const std::string& o : outputs)
        joined += (joined.empty() ? "" : ", ") + o;
    const std::string json =
        fmt::format(R"({{"name": "random{}", "tensors": [{}{}], "ops": [{}], "outputs": [{}]}})",
                    seed, tensors, tensor_json, op_json, joined);
    return sim::workloads::parse_json_graph(json, fmt::format("random{}", seed));
}

// Brute force over all C^n assignments: the least analytic time per sample among those with
// Eq. 2, Eq. 3 and the weights in SRAM (Eq. 4 ignored), and among those whose every cut edge
// reaches the next chip (f(v) - f(u) <= 1: the adjacent-cut chains). ∞ when there are none.
struct BruteForce {
    double relaxed = kInf;
    double adjacent = kInf;
    int relaxed_count = 0;
};

BruteForce brute_force(const McmProblem& problem, AnalyticModel& model) {
    const int n = problem.op_count();
    const int chips = problem.chip_count();
    BruteForce best;
    std::vector<int> f(static_cast<std::size_t>(n), 0);
    std::vector<int> used(static_cast<std::size_t>(chips), 0);
    while (true) {
        bool ok = true, adjacent = true;
        for (const McmProblem::Edge& e : problem.edges()) {
            const int d = f[static_cast<std::size_t>(e.to)] - f[static_cast<std::size_t>(e.from)];
            ok &= d >= 0;
            adjacent &= d <= 1;
        }
        if (ok) {
            std::fill(used.begin(), used.end(), 0);
            int highest = 0;
            for (int c : f) {
                used[static_cast<std::size_t>(c)] = 1;
                highest = std::max(highest, c);
            }
            for (int c = 0; c < highest; ++c)
                ok &= used[static_cast<std::size_t>(c)] == 1;
        }
        if (ok && model.weights_fit(f)) {
            const double t = model.time_per_sample_s(f);
            best.relaxed = std::min(best.relaxed, t);
            ++best.relaxed_count;
            if (adjacent)
                best.adjacent = std::min(best.adjacent, t);
        }
        int i = 0;
        while (i < n && ++f[static_cast<std::size_t>(i)] == chips)
            f[static_cast<std::size_t>(i++)] = 0;
        if (i == n)
            break;
    }
    return best;
}

// The least analytic time over enumerate_valid_partitions (Eq. 2-4) whose weights fit.
double valid_optimum(const McmProblem& problem, AnalyticModel& model) {
    double best = kInf;
    for (const std::vector<int>& f :
         enumerate_valid_partitions(problem.graph(), problem.chip_count()))
        if (model.weights_fit(f))
            best = std::min(best, model.time_per_sample_s(f));
    return best;
}

bool eq2_eq3_hold(const McmProblem& problem, const std::vector<int>& f) {
    for (const Violation& v : check_static_constraints(problem.graph(), f, problem.chip_count()))
        if (v.constraint != Constraint::triangle)
            return false;
    return true;
}

void expect_same_time(double got, double want, const std::string& what) {
    if (std::isinf(want)) {
        EXPECT_EQ(got, want) << what;
    } else {
        EXPECT_NEAR(got, want, want * 1e-12) << what;
    }
}

struct RandomCase {
    int ops;
    int chips;
};

TEST(McmChainDp, MatchesBruteForceOnRandomDags) {
    int relaxed_below_valid = 0, adjacent_above_valid = 0, infeasible = 0, checked = 0;
    for (const RandomCase rc : {RandomCase{10, 2}, RandomCase{9, 3}, RandomCase{8, 4}}) {
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            const sim::Graph g =
                random_graph(seed * 100 + static_cast<std::uint64_t>(rc.chips), rc.ops);
            for (int variant = 0; variant < 4; ++variant) {
                const bool heterogeneous = variant % 2 == 1;
                const bool tight = variant >= 2;
                // Ring hops of 10 ns + 32 B at 1 GB/s (42 ns) against MatMuls of 128 ns and
                // element-wise ops of 8 ns at 1 GOPS: cuts and compute both matter.
                RingSpec spec = uniform_ring(rc.chips, 1.0, 1.0, 10.0, 10.0);
                if (heterogeneous) {
                    for (int c = 0; c < rc.chips; ++c) {
                        spec.matmul_gops[static_cast<std::size_t>(c)] = 0.5 + 0.75 * c;
                        spec.ring_gbps[static_cast<std::size_t>(c)] = 1.0 + (c % 2);
                        spec.host_out_gbps[static_cast<std::size_t>(c)] = 1.0 + c;
                    }
                }
                // Tight: room for two of the three 256 B weights per chip, or one.
                if (tight)
                    spec.sram = seed % 2 == 0 ? "512 B" : "256 B";
                const sim::Platform p = platform(spec);
                const McmProblem problem(g, p);
                AnalyticModel model(problem);
                const std::string what =
                    fmt::format("graph {} on {} chips, {}{}", g.name(), rc.chips,
                                heterogeneous ? "hetero" : "homo", tight ? ", tight SRAM" : "");
                const BruteForce brute = brute_force(problem, model);
                const double valid = valid_optimum(problem, model);

                const ChainDpResult relaxed = solve(problem, ChainSpace::kRelaxed);
                ASSERT_FALSE(relaxed.stopped) << what;
                ASSERT_EQ(relaxed.feasible, brute.relaxed_count > 0) << what;
                expect_same_time(relaxed.time_per_sample_s, brute.relaxed, what + ", relaxed");
                EXPECT_LE(relaxed.time_per_sample_s, valid * (1 + 1e-12)) << what;
                if (relaxed.feasible) {
                    ASSERT_EQ(relaxed.chip_of_op.size(), static_cast<std::size_t>(g.op_count()));
                    EXPECT_TRUE(eq2_eq3_hold(problem, relaxed.chip_of_op)) << what;
                    EXPECT_TRUE(model.weights_fit(relaxed.chip_of_op)) << what;
                    expect_same_time(model.time_per_sample_s(relaxed.chip_of_op),
                                     relaxed.time_per_sample_s, what + ", relaxed partition");
                    EXPECT_EQ(model.evaluate(relaxed.chip_of_op).chips_used, relaxed.chips_used);
                } else {
                    ++infeasible;
                }

                const ChainDpResult adjacent = solve(problem, ChainSpace::kAdjacentCuts);
                ASSERT_FALSE(adjacent.stopped) << what;
                ASSERT_EQ(adjacent.feasible, !std::isinf(brute.adjacent)) << what;
                expect_same_time(adjacent.time_per_sample_s, brute.adjacent, what + ", adjacent");
                if (adjacent.feasible) {
                    EXPECT_GE(adjacent.time_per_sample_s, valid * (1 - 1e-12)) << what;
                    const AnalyticResult eval = model.evaluate(adjacent.chip_of_op);
                    EXPECT_TRUE(eval.valid) << what << ": " << eval.reason;
                    EXPECT_TRUE(check_static_constraints(g, adjacent.chip_of_op, rc.chips).empty())
                        << what;
                    expect_same_time(eval.time_per_sample_s, adjacent.time_per_sample_s,
                                     what + ", adjacent partition");
                }

                // The linearized cap only saves work: the same optima without it.
                expect_same_time(solve(problem, ChainSpace::kRelaxed, false).time_per_sample_s,
                                 relaxed.time_per_sample_s, what + ", relaxed without cap");
                expect_same_time(solve(problem, ChainSpace::kAdjacentCuts, false).time_per_sample_s,
                                 adjacent.time_per_sample_s, what + ", adjacent without cap");

                ++checked;
                relaxed_below_valid += relaxed.time_per_sample_s < valid * (1 - 1e-9);
                adjacent_above_valid +=
                    adjacent.feasible && adjacent.time_per_sample_s > valid * (1 + 1e-9);
            }
        }
    }
    EXPECT_EQ(checked, 48);
    // The three spaces differ on these graphs: the properties were not checked vacuously.
    EXPECT_GT(relaxed_below_valid, 0);
    EXPECT_GT(adjacent_above_valid, 0);
    EXPECT_LT(infeasible, checked);
}

}  // namespace
}  // namespace hetsim::placement::mcm
