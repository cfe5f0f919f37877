// mcm.optimal's exact branch and bound (placement/mcm/optimal.hpp): its optimum equals the
// minimum of AnalyticModel::time_per_sample_s over the enumerated valid (and weight-fitting)
// partitions on Figure 2 and on random DAGs of up to 9 ops on 2-4 chips, proven; an incumbent
// that meets the lower bound returns at once; a deadline in the past keeps the incumbent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/constraints.hpp"
#include "placement/mcm/enumerate.hpp"
#include "placement/mcm/optimal.hpp"
#include "placement/mcm/problem.hpp"
#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/mcm_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::placement::mcm {
namespace {

sim::Graph figure2() {
    return sim::workloads::parse_json_graph(hetsim::testing::kMcmFigure2, "figure2");
}

sim::Platform ring(int chips, const std::string& sram = "32 MiB") {
    return hetsim::testing::parse_platform_yaml(
        hetsim::testing::mcm_ring_platform_yaml(chips, sram));
}

// The brute-force optimum: min time over the enumerated valid, weight-fitting partitions
// (infinity when there is none), and how many partitions attain it.
struct Brute {
    double best_s = std::numeric_limits<double>::infinity();
    std::vector<std::vector<int>> argmin;
    std::size_t valid = 0;
};

Brute brute_force(const McmProblem& problem) {
    AnalyticModel model(problem);
    Brute b;
    for (const auto& f : enumerate_valid_partitions(problem.graph(), problem.chip_count())) {
        if (!model.weights_fit(f))
            continue;
        ++b.valid;
        const double t = model.time_per_sample_s(f);
        if (t < b.best_s) {
            b.best_s = t;
            b.argmin = {f};
        } else if (t == b.best_s) {
            b.argmin.push_back(f);
        }
    }
    return b;
}

void expect_optimal(const McmProblem& problem, const std::string& what) {
    const Brute b = brute_force(problem);
    const OptimalResult r = solve_optimal(problem);
    EXPECT_TRUE(r.proven) << what;
    ASSERT_EQ(r.found, b.valid > 0) << what;
    if (!r.found)
        return;
    EXPECT_EQ(r.time_per_sample_s, b.best_s) << what;
    EXPECT_TRUE(
        check_static_constraints(problem.graph(), r.chip_of_op, problem.chip_count()).empty())
        << what;
    AnalyticModel model(problem);
    EXPECT_TRUE(model.weights_fit(r.chip_of_op)) << what;
    EXPECT_EQ(model.time_per_sample_s(r.chip_of_op), r.time_per_sample_s) << what;
}

TEST(McmOptimal, Figure2MatchesTheEnumeratedMinimum) {
    const sim::Graph g = figure2();
    for (int chips : {1, 2, 3, 4}) {
        const sim::Platform p = ring(chips);
        const McmProblem problem(g, p);
        expect_optimal(problem, "figure2 on " + std::to_string(chips));
    }
}

TEST(McmOptimal, RandomDagsMatchTheEnumeratedMinimum) {
    int cases = 0, multi_chip = 0;
    for (std::int64_t seed = 1; seed <= 8; ++seed) {
        for (std::int64_t nodes : {5, 7, 9}) {
            // hidden 64: a MatMul (2·64·64 ops at 1 TOPS, 8 ns) weighs against a ring hop
            // (100 ns + 256 B at 1 GB/s): optima use one chip or several depending on the graph.
            const sim::Graph g =
                sim::workloads::build_model("random_dag", {{"seed", seed},
                                                           {"nodes", nodes},
                                                           {"width", 3},
                                                           {"hidden", 64},
                                                           {"matmul_percent", 60}});
            for (int chips : {2, 3, 4}) {
                const sim::Platform p = ring(chips);
                const McmProblem problem(g, p);
                const std::string what = "seed " + std::to_string(seed) + " nodes " +
                                         std::to_string(nodes) + " chips " + std::to_string(chips);
                expect_optimal(problem, what);
                const OptimalResult r = solve_optimal(problem);
                if (r.found && *std::max_element(r.chip_of_op.begin(), r.chip_of_op.end()) > 0)
                    ++multi_chip;
                ++cases;
            }
        }
    }
    EXPECT_EQ(cases, 72);
    EXPECT_GT(multi_chip, 5);  // the optimum is not always "everything on chip 0"
}

TEST(McmOptimal, TightSramMatchesTheEnumeratedMinimum) {
    // 16 KiB weights ([64, 64] fp32) against 20 KB of SRAM: one MatMul per chip.
    int restricted = 0;
    for (std::int64_t seed = 1; seed <= 6; ++seed) {
        const sim::Graph g = sim::workloads::build_model(
            "random_dag", {{"seed", seed}, {"nodes", 8}, {"width", 3}, {"hidden", 64}});
        const sim::Platform p = ring(4, "20 KB");
        const McmProblem problem(g, p);
        expect_optimal(problem, "seed " + std::to_string(seed));
        restricted += problem.weights().size() > 1 ? 1 : 0;
    }
    EXPECT_GE(restricted, 3);
}

TEST(McmOptimal, NoFittingPartitionIsProvenInfeasible) {
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3, "48 B");  // the 64 B weight fits no chip
    const McmProblem problem(g, p);
    const OptimalResult r = solve_optimal(problem);
    EXPECT_FALSE(r.found);
    EXPECT_TRUE(r.proven);
}

TEST(McmOptimal, IncumbentAtTheLowerBoundReturnsAtOnce) {
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3);
    const McmProblem problem(g, p);
    const Brute b = brute_force(problem);
    OptimalOptions options;
    options.incumbent = b.argmin.front();
    options.lower_bound_s = b.best_s;
    const OptimalResult r = solve_optimal(problem, options);
    EXPECT_TRUE(r.found);
    EXPECT_TRUE(r.proven);
    EXPECT_EQ(r.nodes, 0);
    EXPECT_EQ(r.chip_of_op, options.incumbent);
    EXPECT_EQ(r.time_per_sample_s, b.best_s);
}

TEST(McmOptimal, StartsFromAWorseIncumbentAndImprovesIt) {
    const sim::Graph g = sim::workloads::build_model(
        "random_dag",
        {{"seed", 3}, {"nodes", 9}, {"width", 3}, {"hidden", 64}, {"matmul_percent", 60}});
    const sim::Platform p = ring(3);
    const McmProblem problem(g, p);
    const Brute b = brute_force(problem);
    AnalyticModel model(problem);
    // The worst valid partition as the incumbent.
    std::vector<int> worst;
    double worst_s = -1.0;
    for (const auto& f : enumerate_valid_partitions(g, 3)) {
        const double t = model.time_per_sample_s(f);
        if (t > worst_s) {
            worst_s = t;
            worst = f;
        }
    }
    ASSERT_GT(worst_s, b.best_s);
    OptimalOptions options;
    options.incumbent = worst;
    const OptimalResult r = solve_optimal(problem, options);
    EXPECT_TRUE(r.proven);
    EXPECT_EQ(r.time_per_sample_s, b.best_s);
    // An incumbent already optimal is returned as is, proven by exhausting the search.
    options.incumbent = b.argmin.front();
    const OptimalResult same = solve_optimal(problem, options);
    EXPECT_TRUE(same.proven);
    EXPECT_EQ(same.time_per_sample_s, b.best_s);
    EXPECT_EQ(same.chip_of_op, b.argmin.front());
}

TEST(McmOptimal, DeadlineInThePastKeepsTheIncumbentUnproven) {
    const sim::Graph g = sim::workloads::build_model(
        "random_dag", {{"seed", 2}, {"nodes", 40}, {"width", 4}, {"hidden", 64}});
    const sim::Platform p = ring(8);
    const McmProblem problem(g, p);
    OptimalOptions options;
    options.incumbent.assign(static_cast<std::size_t>(g.op_count()), 0);  // all on chip 0
    options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const OptimalResult r = solve_optimal(problem, options);
    EXPECT_TRUE(r.found);
    EXPECT_FALSE(r.proven);
    AnalyticModel model(problem);
    EXPECT_LE(r.time_per_sample_s, model.time_per_sample_s(options.incumbent));
}

TEST(McmOptimal, RefusesAnInvalidIncumbent) {
    const sim::Graph g = figure2();
    const sim::Platform p = ring(3);
    const McmProblem problem(g, p);
    OptimalOptions options;
    options.incumbent = {0, 0, 1, 0, 0};  // Eq. 2: n2 (chip 1) -> n4 (chip 0)
    EXPECT_THROW(solve_optimal(problem, options), std::invalid_argument);
    options.incumbent = {0, 0};
    EXPECT_THROW(solve_optimal(problem, options), std::invalid_argument);
}

// The node budget (OptimalOptions::node_limit, `mcm.optimal:nodes=N`) is the reproducible stop:
// a search it ends returns the same partition on every run, and the progress reports count
// nodes up to it.
TEST(McmOptimal, ANodeBudgetStopsAtTheSamePartitionOnEveryRun) {
    const sim::Graph g = sim::workloads::build_model(
        "random_dag",
        {{"seed", 3}, {"nodes", 16}, {"width", 4}, {"hidden", 64}, {"matmul_percent", 60}});
    const sim::Platform p = ring(4);
    const McmProblem problem(g, p);
    OptimalOptions options;
    options.node_limit = 9000;
    std::vector<std::int64_t> seen;
    options.on_progress = [&](std::int64_t nodes, double) { seen.push_back(nodes); };
    const OptimalResult a = solve_optimal(problem, options);
    options.on_progress = nullptr;
    const OptimalResult b = solve_optimal(problem, options);
    ASSERT_TRUE(a.node_limit_hit) << a.nodes << " nodes";
    EXPECT_FALSE(a.proven);
    EXPECT_LE(a.nodes, 9000);
    ASSERT_TRUE(a.found);
    EXPECT_EQ(b.nodes, a.nodes);
    EXPECT_EQ(b.chip_of_op, a.chip_of_op);
    EXPECT_EQ(b.time_per_sample_s, a.time_per_sample_s);
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_LE(seen.back(), 9000);
}

}  // namespace
}  // namespace hetsim::placement::mcm
