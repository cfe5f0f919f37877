// local_search (local_search_solver.cpp): seeded, improves on the greedy, ends at a local
// optimum of the max-load.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/latency/latency_search.hpp"
#include "placement/tarnawski/latency/latency_solvers.hpp"
#include "tests/placement/tarnawski/solver_test_support.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

using namespace solver_test;

TEST(TarnawskiLatencySolvers, LocalSearchIsSeededAndImprovesOnTheGreedy) {
    std::mt19937_64 rng(21);
    for (int trial = 0; trial < 6; ++trial) {
        const Workload w = random_instance(rng, 12, 3);
        for (SplitObjective objective : {SplitObjective::latency, SplitObjective::throughput}) {
            SolveOptions o;
            o.objective = objective;
            o.seed = 7;
            const SolveResult r = create("tarnawski.local_search:restarts=4")->solve(w, o);
            const SolveResult again = create("tarnawski.local_search:restarts=4")->solve(w, o);
            EXPECT_EQ(r.objective, again.objective);
            EXPECT_EQ(to_assignment(w, r.split).device_of_node,
                      to_assignment(w, again.split).device_of_node);
            const double greedy = split_objective(w, latency_greedy(w), objective);
            EXPECT_LE(r.objective, greedy);
            check_result(w, r, objective);
            if (std::isfinite(r.objective)) {
                EXPECT_TRUE(evaluate_latency(w, to_assignment(w, r.split)).memory_ok);
            }
        }
    }
}

// Progress: a report after each improving move and each restart, out of the restarts, with the
// best score so far; the last one is the answer. Listening changes nothing.
TEST(TarnawskiLatencySolvers, LocalSearchReportsRestartsAndTheBestSoFar) {
    std::mt19937_64 rng(21);
    for (int trial = 0; trial < 4; ++trial) {
        const Workload w = random_instance(rng, 12, 3);
        for (SplitObjective objective : {SplitObjective::latency, SplitObjective::throughput}) {
            SolveOptions o;
            o.objective = objective;
            o.seed = 7;
            std::vector<SearchProgress> reports;
            o.report = [&](const SearchProgress& p) { reports.push_back(p); };
            const SolveResult r = create("tarnawski.local_search:restarts=4")->solve(w, o);
            o.report = {};
            const SolveResult quiet = create("tarnawski.local_search:restarts=4")->solve(w, o);
            EXPECT_EQ(to_assignment(w, r.split).device_of_node,
                      to_assignment(w, quiet.split).device_of_node);
            ASSERT_GE(reports.size(), 4u);
            const double last = check_progress(reports, {"restarts"});
            EXPECT_EQ(reports.back().done, 4);
            EXPECT_EQ(reports.back().total, 4);
            if (std::isfinite(r.objective)) {
                EXPECT_NEAR(last, r.objective, 1e-5 * r.objective);
            } else {
                EXPECT_TRUE(reports.back().best.empty());
            }
        }
    }
}

TEST(TarnawskiLatencySolvers, LocalSearchOnBert3) {
    const std::optional<Workload> loaded =
        shared_workload_or_skip("latency/op_bert_l-3_inference.json");
    if (!loaded)
        return;
    const Workload& w = *loaded;
    const SolveResult r = create("tarnawski.local_search:restarts=2")->solve(w, latency_options());
    EXPECT_LE(r.objective, 416.2044);  // starts from the greedy
    EXPECT_TRUE(check_result(w, r, SplitObjective::latency).memory_ok);
}

// §6: local search stops at a local optimum of the max-load: no move of one colour class (a
// node without a class is its own) to another device lowers it, checked here by brute force
// independently of the solver's own neighbourhood code.
void expect_max_load_local_optimum(const Workload& w, const SolveResult& r) {
    const std::vector<int> dev = to_assignment(w, r.split).device_of_node;
    const double found = evaluate_assignment(w, Assignment{dev}).max_load;
    ASSERT_TRUE(std::isfinite(found));
    EXPECT_NEAR(r.objective, found, 1e-9 * found);
    const int devices = w.max_cpus + w.max_accelerators;
    for (int v = 0; v < static_cast<int>(w.node_count()); ++v) {
        for (int d = 0; d < devices; ++d) {
            if (d == dev[v])
                continue;
            std::vector<int> moved = dev;
            for (int u = 0; u < static_cast<int>(w.node_count()); ++u) {
                const bool same_class = w.has_color_class[u] && w.has_color_class[v] &&
                                        w.color_class[u] == w.color_class[v];
                if (u == v || same_class)
                    moved[u] = d;
            }
            EXPECT_GE(evaluate_assignment(w, Assignment{moved}).max_load, found * (1 - 1e-12))
                << "moving node " << v << " to device " << d << " improves the split";
        }
    }
}

TEST(TarnawskiLatencySolvers, LocalSearchForThroughputEndsAtALocalOptimum) {
    std::mt19937_64 rng(5);
    SolveOptions o;
    o.objective = SplitObjective::throughput;
    for (int trial = 0; trial < 5; ++trial) {
        const Workload w = random_instance(rng, 12, 3);
        o.seed = 3 + static_cast<std::uint64_t>(trial);
        const SolveResult r = create("tarnawski.local_search")->solve(w, o);
        if (std::isfinite(r.objective))
            expect_max_load_local_optimum(w, r);
    }
    const std::optional<Workload> bert =
        shared_workload_or_skip("throughput/op_bert_l-3_inference.json");
    if (!bert)
        return;
    o.seed = 1;
    const SolveResult r = create("tarnawski.local_search:restarts=3")->solve(*bert, o);
    expect_max_load_local_optimum(*bert, r);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
