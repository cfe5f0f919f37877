// The CBC wrapper (cbc_mip.hpp) on a knapsack: optimum, warm start, infeasibility, no stdout.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/ip/cbc_mip.hpp"
#include "placement/tarnawski/ip/ip_solvers.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

TEST(TarnawskiIpCbc, SolvesAKnapsackWithWarmStartAndWritesNothingToStdout) {
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<int> weight(1, 30), value(1, 40);
    const int n = 18;
    MipModel m;
    std::vector<int> w(n), v(n);
    MipModel::Terms capacity;
    for (int i = 0; i < n; ++i) {
        w[i] = weight(rng);
        v[i] = value(rng);
        const int x = m.add_binary("item", -v[i]);  // maximise value = minimise -value
        capacity.emplace_back(x, w[i]);
    }
    const int limit = 100;
    m.add_le(capacity, limit);
    int best = 0;
    for (int mask = 0; mask < (1 << n); ++mask) {
        int weight_sum = 0, value_sum = 0;
        for (int i = 0; i < n; ++i)
            if (mask >> i & 1) {
                weight_sum += w[i];
                value_sum += v[i];
            }
        if (weight_sum <= limit)
            best = std::max(best, value_sum);
    }
    MipOptions options;
    options.warm_start.assign(n, 0.0);
    options.warm_start[0] = 1.0;  // one item: feasible (weights <= 30)
    std::ostringstream log;
    options.progress = &log;
    testing::internal::CaptureStdout();
    const MipResult r = solve_mip(m, options);
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_TRUE(out.empty()) << "CBC wrote to stdout:\n" << out;
    EXPECT_NE(log.str().find("cbc: "), std::string::npos) << "no CBC log on the progress stream";
    EXPECT_EQ(r.status, MipStatus::optimal);
    EXPECT_TRUE(r.warm_start_accepted);
    EXPECT_NEAR(r.objective, -best, 1e-6);
    EXPECT_NEAR(r.best_bound, -best, 1e-6);
    EXPECT_NEAR(r.gap, 0.0, 1e-9);
    ASSERT_EQ(r.solution.size(), static_cast<std::size_t>(n));
    EXPECT_LE(m.max_violation(r.solution), 1e-6);

    // An infeasible warm start is refused by our own check, the solve still works.
    MipOptions bad;
    bad.warm_start.assign(n, 1.0);
    const MipResult r2 = solve_mip(m, bad);
    EXPECT_FALSE(r2.warm_start_accepted);
    EXPECT_NEAR(r2.objective, -best, 1e-6);

    // x0 + x1 >= 3 with binaries: infeasible.
    MipModel infeasible;
    const int a = infeasible.add_binary("a", 1.0), b = infeasible.add_binary("b", 1.0);
    infeasible.add_ge({{a, 1.0}, {b, 1.0}}, 3.0);
    const MipResult r3 = solve_mip(infeasible);
    EXPECT_EQ(r3.status, MipStatus::infeasible);
    EXPECT_FALSE(r3.has_solution());
}

// With a time limit CBC runs in a child process (its root LP cannot be interrupted): the
// result, the solution and the log come back exactly as from a run in this process.
TEST(TarnawskiIpCbc, ATimeLimitedRunReturnsTheSameResultThroughItsChildProcess) {
    MipModel m;
    MipModel::Terms capacity;
    const int weights[] = {5, 4, 3, 2}, values[] = {10, 7, 5, 3};
    for (int i = 0; i < 4; ++i)
        capacity.emplace_back(m.add_binary("item", -values[i]), weights[i]);
    m.add_le(capacity, 7);  // best: items 0 and 3 (weight 7, value 13)
    MipOptions here;
    MipOptions child = here;
    child.time_limit_s = 60.0;
    std::ostringstream log;
    child.progress = &log;
    const MipResult a = solve_mip(m, here);
    const MipResult b = solve_mip(m, child);
    EXPECT_EQ(a.status, MipStatus::optimal);
    EXPECT_EQ(b.status, MipStatus::optimal);
    EXPECT_FALSE(b.stopped_at_deadline);
    EXPECT_DOUBLE_EQ(b.objective, -13.0);
    EXPECT_EQ(b.solution, a.solution);
    EXPECT_EQ(b.solution, (std::vector<double>{1.0, 0.0, 0.0, 1.0}));
    EXPECT_NE(log.str().find("cbc: status optimal objective -13"), std::string::npos) << log.str();
}

// Three knapsack rows over 40 binaries with cuts, heuristics and preprocessing off: CBC cannot
// close it at its root, so a small node budget ends the search.
MipModel three_knapsacks() {
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> weight(10, 60), value(5, 50);
    MipModel m;
    std::vector<MipModel::Terms> rows(3);
    for (int i = 0; i < 40; ++i) {
        const int x = m.add_binary("item", -value(rng));
        for (auto& row : rows)
            row.emplace_back(x, weight(rng));
    }
    for (const auto& row : rows)
        m.add_le(row, 400);
    return m;
}

// The node budget (MipOptions::max_nodes) is the reproducible stop: the same incumbent, bound
// and node count on every run, in this process or through the child of a time-limited run,
// and the progress reports count nodes up to it.
TEST(TarnawskiIpCbc, ANodeBudgetStopsTheSearchAtTheSameNodeOnEveryRun) {
    const MipModel m = three_knapsacks();
    MipOptions here;
    here.max_nodes = 25;
    here.extra_arguments = {"-cuts", "off", "-heuristicsOnOff", "off", "-preprocess", "off"};
    here.warm_start.assign(static_cast<std::size_t>(m.columns()), 0.0);  // empty knapsacks
    std::vector<long> seen_here, seen_child;
    here.on_progress = [&](long nodes, double) { seen_here.push_back(nodes); };
    MipOptions child = here;
    child.time_limit_s = 60.0;  // runs CBC in a child process; never reached here
    child.on_progress = [&](long nodes, double) { seen_child.push_back(nodes); };

    const MipResult a = solve_mip(m, here);
    const MipResult b = solve_mip(m, child);
    const MipResult c = solve_mip(m, child);
    ASSERT_TRUE(a.stopped_at_node_limit);
    EXPECT_EQ(a.status, MipStatus::feasible);
    EXPECT_GT(a.gap, 0.0);
    EXPECT_LE(a.nodes, 25);
    for (const MipResult* r : {&b, &c}) {
        EXPECT_TRUE(r->stopped_at_node_limit);
        EXPECT_FALSE(r->stopped_at_deadline);
        EXPECT_EQ(r->nodes, a.nodes);
        EXPECT_EQ(r->objective, a.objective);
        EXPECT_EQ(r->best_bound, a.best_bound);
        EXPECT_EQ(r->solution, a.solution);
    }
    for (const auto* seen : {&seen_here, &seen_child}) {
        ASSERT_FALSE(seen->empty());
        EXPECT_TRUE(std::is_sorted(seen->begin(), seen->end()));
        EXPECT_LE(seen->back(), 25);
    }

    // Without the budget the search goes on past it (the budget, not the model, stopped it).
    MipOptions unbounded = here;
    unbounded.max_nodes = 0;
    unbounded.on_progress = nullptr;
    const MipResult d = solve_mip(m, unbounded);
    EXPECT_FALSE(d.stopped_at_node_limit);
    EXPECT_GT(d.nodes, 25);
    EXPECT_LE(d.objective, a.objective);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
