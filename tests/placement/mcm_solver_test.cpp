// mcm2022 §4.2's constraint solver (placement/mcm/solver.hpp): every partition SAMPLE
// (Algorithm 1) and FIX (Algorithm 2) return passes the independent checker
// (check_static_constraints) and AnalyticModel::weights_fit; SAMPLE with a uniform p reaches
// every valid partition the enumerator lists on tiny graphs (so the propagators never remove a
// valid value); FIX keeps what it can; the same seed gives the same partitions; an instance with
// no valid partition gives nullopt.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/constraints.hpp"
#include "placement/mcm/enumerate.hpp"
#include "placement/mcm/problem.hpp"
#include "placement/mcm/solver.hpp"
#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/mcm_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::placement::mcm {
namespace {

using Partition = std::vector<int>;

sim::Graph figure2() {
    return sim::workloads::parse_json_graph(hetsim::testing::kMcmFigure2, "figure2");
}

sim::Graph random_dag(std::int64_t seed, std::int64_t nodes, std::int64_t width = 3) {
    return sim::workloads::build_model(
        "random_dag", {{"seed", seed}, {"nodes", nodes}, {"width", width}, {"hidden", 4}});
}

sim::Platform ring(int chips, const std::string& sram = "32 MiB") {
    return hetsim::testing::parse_platform_yaml(
        hetsim::testing::mcm_ring_platform_yaml(chips, sram));
}

// Seven ops; the [4,4] fp32 weight w (64 B) is read by n1 and n4, v (64 B) by n2 and n5. With
// 100 B of SRAM a chip holds one of them: n1 and n4 fit together (w counted once), n1 and n2
// do not.
constexpr const char* kSharedWeights = R"({"name": "shared",
 "tensors": [
  {"name": "x", "shape": [1, 4], "kind": "input"},
  {"name": "w", "shape": [4, 4], "kind": "weight"},
  {"name": "v", "shape": [4, 4], "kind": "weight"},
  {"name": "t0", "shape": [1, 4]}, {"name": "t1", "shape": [1, 4]},
  {"name": "t2", "shape": [1, 4]}, {"name": "t3", "shape": [1, 4]},
  {"name": "t4", "shape": [1, 4]}, {"name": "t5", "shape": [1, 4]},
  {"name": "t6", "shape": [1, 4]}],
 "ops": [
  {"name": "n0", "type": "Relu", "inputs": ["x"], "outputs": ["t0"]},
  {"name": "n1", "type": "MatMul", "inputs": ["t0", "w"], "outputs": ["t1"]},
  {"name": "n2", "type": "MatMul", "inputs": ["t0", "v"], "outputs": ["t2"]},
  {"name": "n3", "type": "Add", "inputs": ["t1", "t2"], "outputs": ["t3"]},
  {"name": "n4", "type": "MatMul", "inputs": ["t3", "w"], "outputs": ["t4"]},
  {"name": "n5", "type": "MatMul", "inputs": ["t3", "v"], "outputs": ["t5"]},
  {"name": "n6", "type": "Add", "inputs": ["t4", "t5"], "outputs": ["t6"]}],
 "outputs": ["t6"]})";

sim::Graph shared_weights() {
    return sim::workloads::parse_json_graph(kSharedWeights, "shared");
}

// Independent verdicts: the reference checker with messages, and the analytical model's SRAM
// check of resident weights.
void expect_valid(const McmProblem& problem, const Partition& f, bool weights = true) {
    const auto violations = check_static_constraints(problem.graph(), f, problem.chip_count());
    ASSERT_TRUE(violations.empty()) << violations.front().message;
    if (weights) {
        AnalyticModel model(problem);
        ASSERT_TRUE(model.weights_fit(f));
    }
}

std::vector<double> uniform_p() {
    return {};
}

TEST(McmSolver, SampleAndFixSatisfyTheStaticConstraintsOnRandomDags) {
    int samples = 0;
    std::set<int> chips_used;
    for (std::int64_t seed = 1; seed <= 4; ++seed) {
        for (std::int64_t nodes : {10, 25, 40, 60}) {
            const sim::Graph g = random_dag(seed, nodes);
            for (int chips : {2, 5, 8}) {
                const sim::Platform p = ring(chips);
                const McmProblem problem(g, p);
                SolverOptions options;
                options.fail_limit = 200;
                options.max_attempts = 20;
                PartitionSolver solver(problem, options);
                std::mt19937_64 rng(static_cast<std::uint64_t>(seed * 1000 + nodes + chips));
                std::uniform_int_distribution<int> chip(0, chips - 1);
                for (int trial = 0; trial < 4; ++trial) {
                    const auto s = solver.sample(uniform_p(), rng);
                    ASSERT_TRUE(s.has_value()) << "seed " << seed << " nodes " << nodes;
                    expect_valid(problem, *s);
                    chips_used.insert(*std::max_element(s->begin(), s->end()) + 1);
                    Partition candidate(static_cast<std::size_t>(g.op_count()));
                    for (int& c : candidate)
                        c = chip(rng);
                    const auto f = solver.fix(candidate, rng);
                    ASSERT_TRUE(f.has_value());
                    expect_valid(problem, *f);
                    samples += 2;
                }
                EXPECT_EQ(solver.stats().solutions, 8);
            }
        }
    }
    EXPECT_EQ(samples, 4 * 4 * 3 * 8);
    // Not every sample collapses onto one chip: the property was tested on real cuts.
    EXPECT_GE(chips_used.size(), 5u);
}

TEST(McmSolver, TightSramOutputsFitTheirWeights) {
    // hidden 4: every MatMul has its own 64 B weight; 150 B of SRAM holds two per chip.
    int checked = 0;
    for (std::int64_t seed = 1; seed <= 4; ++seed) {
        const sim::Graph g = random_dag(seed, 30);
        const sim::Platform p = ring(8, "150 B");
        const McmProblem problem(g, p);
        int weights = static_cast<int>(problem.weights().size());
        if (weights > 16)
            continue;  // cannot fit on 8 chips at all
        SolverOptions options;
        options.fail_limit = 500;
        PartitionSolver solver(problem, options);
        std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
        for (int trial = 0; trial < 5; ++trial) {
            const auto s = solver.sample(uniform_p(), rng);
            if (!s)
                continue;
            expect_valid(problem, *s);
            Partition candidate(static_cast<std::size_t>(g.op_count()), 0);  // all on chip 0
            const auto f = solver.fix(candidate, rng);
            ASSERT_TRUE(f.has_value());
            expect_valid(problem, *f);
            checked += 2;
        }
    }
    EXPECT_GE(checked, 10);
}

// Samples until the set of partitions seen equals `expected` (or a budget runs out) and
// returns what it saw.
std::set<Partition> sample_until(PartitionSolver& solver, const std::set<Partition>& expected,
                                 std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::set<Partition> seen;
    const std::size_t budget = 400 * expected.size() + 2000;
    for (std::size_t i = 0; i < budget && seen.size() < expected.size(); ++i) {
        const auto s = solver.sample(uniform_p(), rng);
        if (!s)
            break;
        seen.insert(*s);
        if (!expected.contains(*s))
            break;  // an invalid one: the caller's comparison shows it
    }
    return seen;
}

std::set<Partition> enumerated(const McmProblem& problem, bool weights) {
    AnalyticModel model(problem);
    std::set<Partition> out;
    for (const Partition& f : enumerate_valid_partitions(problem.graph(), problem.chip_count())) {
        if (!weights || model.weights_fit(f))
            out.insert(f);
    }
    return out;
}

TEST(McmSolver, SampleReachesEveryValidPartitionOfTinyGraphs) {
    std::vector<sim::Graph> graphs;
    graphs.push_back(figure2());
    graphs.push_back(shared_weights());
    for (std::int64_t seed = 1; seed <= 5; ++seed)
        graphs.push_back(random_dag(seed, 6 + seed % 3));
    std::size_t total = 0;
    for (const sim::Graph& g : graphs) {
        ASSERT_LE(g.op_count(), 8);
        const sim::Platform p = ring(3);
        const McmProblem problem(g, p);
        const std::set<Partition> expected = enumerated(problem, false);
        PartitionSolver solver(problem);
        EXPECT_EQ(sample_until(solver, expected, 11), expected) << g.name();
        total += expected.size();
    }
    EXPECT_GT(total, 100u);  // enough partitions that the equality says something
}

TEST(McmSolver, SampleReachesEveryPartitionThatFitsATightSram) {
    // Figure 2 with 64 B of SRAM (its one weight just fits), the shared-weight graph with 100 B
    // (one weight per chip, shared ones counted once) and random DAGs with 64 B (one MatMul per
    // chip).
    struct Case {
        sim::Graph graph;
        std::string sram;
    };
    std::vector<Case> cases;
    cases.push_back({figure2(), "64 B"});
    cases.push_back({shared_weights(), "100 B"});
    for (std::int64_t seed = 1; seed <= 4; ++seed)
        cases.push_back({random_dag(seed, 8), "64 B"});
    int restricted = 0;
    for (const Case& c : cases) {
        const sim::Platform p = ring(3, c.sram);
        const McmProblem problem(c.graph, p);
        const std::set<Partition> all = enumerated(problem, false);
        const std::set<Partition> expected = enumerated(problem, true);
        restricted += expected.size() < all.size() ? 1 : 0;
        PartitionSolver solver(problem);
        if (expected.empty()) {
            std::mt19937_64 rng(3);
            EXPECT_FALSE(solver.sample(uniform_p(), rng).has_value());
            continue;
        }
        EXPECT_EQ(sample_until(solver, expected, 13), expected) << c.graph.name();
    }
    EXPECT_GE(restricted, 3);  // the capacity really removed partitions
}

TEST(McmSolver, SharedWeightIsResidentOncePerChip) {
    // n0..n6 on 0, 1, 0, 1, 1, 2, 2: chip 1 runs n1 and n4, which both read w; w is resident
    // once (64 B <= 100 B). Counting it per op (128 B) would rule this partition out.
    const sim::Graph g = shared_weights();
    const sim::Platform p = ring(3, "100 B");
    const McmProblem problem(g, p);
    const Partition f{0, 1, 0, 1, 1, 2, 2};
    expect_valid(problem, f);
    AnalyticModel model(problem);
    EXPECT_FALSE(model.weights_fit({0, 0, 0, 1, 1, 1, 1}));  // chip 0: w and v
    PartitionSolver solver(problem);
    std::mt19937_64 rng(5);
    bool found = false;
    for (int i = 0; i < 2000 && !found; ++i) {
        const auto s = solver.sample(uniform_p(), rng);
        ASSERT_TRUE(s.has_value());
        expect_valid(problem, *s);
        found = *s == f;
    }
    EXPECT_TRUE(found);
}

TEST(McmSolver, FixReturnsAValidCandidateUnchanged) {
    for (std::int64_t seed = 1; seed <= 3; ++seed) {
        const sim::Graph g = random_dag(seed, 9);
        const sim::Platform p = ring(4);
        const McmProblem problem(g, p);
        PartitionSolver solver(problem);
        std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
        const auto valid = enumerate_valid_partitions(g, 4);
        ASSERT_FALSE(valid.empty());
        for (std::size_t i = 0; i < valid.size(); i += 1 + valid.size() / 40) {
            const auto f = solver.fix(valid[i], rng);
            ASSERT_TRUE(f.has_value());
            EXPECT_EQ(*f, valid[i]);
        }
        // No propagation ever failed: a valid candidate survives every step.
        EXPECT_EQ(solver.stats().failures, 0);
    }
}

TEST(McmSolver, FixChangesOnlyWhatItMust) {
    // Figure 2 on 3 chips: n3 on chip 0 below its producer n1 on chip 1 breaks Eq. 2. In the
    // node order n0..n4 the first pass keeps n0, n1, n2 and n4; n3's chip 0 is gone from its
    // domain [1, 2] by then, so only n3 changes, to 1 or 2 (both valid).
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3);
    const McmProblem problem(g, p);
    PartitionSolver solver(problem);
    const Partition candidate{0, 1, 1, 0, 2};
    std::set<int> n3;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        std::mt19937_64 rng(seed);
        const auto f = solver.fix(candidate, rng, {0, 1, 2, 3, 4});
        ASSERT_TRUE(f.has_value());
        expect_valid(problem, *f);
        EXPECT_EQ((*f)[0], 0);
        EXPECT_EQ((*f)[1], 1);
        EXPECT_EQ((*f)[2], 1);
        EXPECT_EQ((*f)[4], 2);
        n3.insert((*f)[3]);
    }
    EXPECT_EQ(n3, (std::set<int>{1, 2}));  // the second pass draws from the whole domain
    EXPECT_EQ(solver.stats().failures, 0);
}

TEST(McmSolver, SampleFollowsP) {
    // All weight on chip 0: every op's draw is chip 0 (a valid partition).
    const sim::Graph g = random_dag(2, 20);
    const sim::Platform p = ring(4);
    const McmProblem problem(g, p);
    PartitionSolver solver(problem);
    std::vector<double> on_zero(static_cast<std::size_t>(g.op_count() * 4), 0.0);
    for (int op = 0; op < g.op_count(); ++op)
        on_zero[static_cast<std::size_t>(op * 4)] = 1.0;
    std::mt19937_64 rng(1);
    const auto s = solver.sample(on_zero, rng);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(*s, Partition(static_cast<std::size_t>(g.op_count()), 0));
    // Weight on chips 0 and 1 only: no op lands on 2 or 3.
    std::vector<double> low(static_cast<std::size_t>(g.op_count() * 4), 0.0);
    for (int op = 0; op < g.op_count(); ++op)
        low[static_cast<std::size_t>(op * 4)] = low[static_cast<std::size_t>(op * 4 + 1)] = 1.0;
    bool two_chips = false;
    for (int i = 0; i < 20; ++i) {
        const auto t = solver.sample(low, rng);
        ASSERT_TRUE(t.has_value());
        expect_valid(problem, *t);
        EXPECT_LE(*std::max_element(t->begin(), t->end()), 1);
        two_chips = two_chips || *std::max_element(t->begin(), t->end()) == 1;
    }
    EXPECT_TRUE(two_chips);
}

TEST(McmSolver, SameSeedSameOutputs) {
    const sim::Graph g = random_dag(3, 40);
    const sim::Platform p = ring(6);
    const McmProblem problem(g, p);
    auto run = [&](std::uint64_t seed) {
        PartitionSolver solver(problem);
        std::mt19937_64 rng(seed);
        std::vector<Partition> out;
        Partition candidate(static_cast<std::size_t>(g.op_count()));
        for (int i = 0; i < 5; ++i) {
            out.push_back(solver.sample(uniform_p(), rng).value());
            for (std::size_t op = 0; op < candidate.size(); ++op)
                candidate[op] = static_cast<int>((op * 7 + static_cast<std::size_t>(i)) % 6);
            out.push_back(solver.fix(candidate, rng).value());
        }
        return out;
    };
    EXPECT_EQ(run(42), run(42));
    EXPECT_NE(run(42), run(43));
}

TEST(McmSolver, NoValidPartitionGivesNullopt) {
    // Figure 2's 64 B weight fits no chip of 48 B: the root space fails at once.
    {
        const sim::Graph g = figure2();
        const sim::Platform p = ring(3, "48 B");
        const McmProblem problem(g, p);
        PartitionSolver solver(problem);
        std::mt19937_64 rng(1);
        EXPECT_FALSE(solver.sample(uniform_p(), rng).has_value());
        EXPECT_FALSE(solver.fix({0, 0, 0, 0, 0}, rng).has_value());
        EXPECT_EQ(solver.stats().solutions, 0);
        // Without the capacity constraint both succeed.
        SolverOptions off;
        off.weight_capacity = false;
        PartitionSolver relaxed(problem, off);
        EXPECT_TRUE(relaxed.sample(uniform_p(), rng).has_value());
    }
    // The shared-weight graph on 2 chips of 100 B (one weight per chip): n1 (w) and n2 (v)
    // need different chips, so n3 and then n4 (w) and n5 (v) are all on chip 1, which cannot
    // hold both. The search proves there is no partition within one attempt.
    {
        const sim::Graph g = shared_weights();
        const sim::Platform p = ring(2, "100 B");
        const McmProblem problem(g, p);
        ASSERT_TRUE(enumerated(problem, true).empty());
        SolverOptions options;
        options.fail_limit = 100000;
        PartitionSolver solver(problem, options);
        std::mt19937_64 rng(1);
        EXPECT_FALSE(solver.sample(uniform_p(), rng).has_value());
        EXPECT_EQ(solver.stats().restarts, 0);
        EXPECT_EQ(solver.stats().attempts, 1);
    }
}

TEST(McmSolver, DeadlineInThePastReturnsNullopt) {
    const sim::Graph g = random_dag(1, 30);
    const sim::Platform p = ring(4);
    const McmProblem problem(g, p);
    SolverOptions options;
    options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    PartitionSolver solver(problem, options);
    std::mt19937_64 rng(1);
    EXPECT_FALSE(solver.sample(uniform_p(), rng).has_value());
    EXPECT_EQ(solver.stats().attempts, 0);
}

TEST(McmSolver, RefusesMalformedInputs) {
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3);
    const McmProblem problem(g, p);
    PartitionSolver solver(problem);
    std::mt19937_64 rng(1);
    EXPECT_THROW(solver.sample(std::vector<double>(3, 1.0), rng), std::invalid_argument);
    EXPECT_THROW(solver.sample(std::vector<double>(15, -1.0), rng), std::invalid_argument);
    EXPECT_THROW(solver.sample(uniform_p(), rng, {0, 1, 2, 3, 3}), std::invalid_argument);
    EXPECT_THROW(solver.fix({0, 0, 0}, rng), std::invalid_argument);
    EXPECT_THROW(solver.fix({0, 0, 0, 0, 3}, rng), std::invalid_argument);
}

}  // namespace
}  // namespace hetsim::placement::mcm
