// tarnawski.latency (latency_placer.cpp) against Table 4's IP, the greedy, local search and
// exhaustive search on small graphs, and its time limit.
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

class TarnawskiLatencyTable4 : public SharedWorkloadTest<Table4Row> {
protected:
    TarnawskiLatencyTable4() : SharedWorkloadTest("latency") {}
};

// Progress: the seeds as they are built and polished, then the rounds, each out of its budget,
// with the best latency so far, for the search over any split and then over the contiguous
// ones; the last report is the answer. Listening changes nothing.
TEST(TarnawskiLatencyPlacer, ReportsSeedsThenRoundsWithTheBestSoFar) {
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 4; ++trial) {
        const Workload w = random_instance(rng, 12, 2);
        SolveOptions o = latency_options(5);
        std::vector<SearchProgress> reports;
        o.report = [&](const SearchProgress& p) { reports.push_back(p); };
        const SolveResult r = create("tarnawski.latency:rounds=20,orders=3")->solve(w, o);
        o.report = {};
        const SolveResult quiet = create("tarnawski.latency:rounds=20,orders=3")->solve(w, o);
        EXPECT_EQ(to_assignment(w, r.split).device_of_node,
                  to_assignment(w, quiet.split).device_of_node);
        ASSERT_FALSE(reports.empty());
        EXPECT_EQ(reports.front().unit, "seeds (any splits)");
        EXPECT_EQ(reports.front().total, 2 + 2 + 2 + 3 + 2 + 4);
        const double last =
            check_progress(reports, {"seeds (any splits)", "rounds (any splits)",
                                     "seeds (contiguous splits)", "rounds (contiguous splits)"});
        EXPECT_EQ(reports.back().unit, "rounds (contiguous splits)");
        EXPECT_EQ(reports.back().total, 20);
        if (std::isfinite(r.objective)) {
            EXPECT_NEAR(last, r.objective, 1e-5 * r.objective);
        }
    }
}

TEST_P(TarnawskiLatencyTable4, PlacerAtMostIp) {
    const auto row = GetParam();
    const Workload& w = workload();
    const SolveResult r = create("tarnawski.latency")->solve(w, latency_options());
    const SolveResult g = create("tarnawski.greedy")->solve(w, latency_options());
    // At most the IP's latency as printed (two decimals), and never worse than the greedy.
    EXPECT_LE(r.objective, row.ip + 0.005) << row.file << ": Table 4 IP " << row.ip;
    EXPECT_LE(r.objective, g.objective);
    const LatencyReport lat = check_result(w, r, SplitObjective::latency);
    EXPECT_TRUE(lat.memory_ok);
    EXPECT_TRUE(lat.colocation_ok);
    // The same within the IP's own space: the IP column of Table 4 is over contiguous splits.
    const SolveResult c = create("tarnawski.latency:contiguous=1")->solve(w, latency_options());
    EXPECT_LE(c.objective, row.ip + 0.005) << row.file << ": Table 4 IP " << row.ip;
    EXPECT_TRUE(check_result(w, c, SplitObjective::latency).contiguous);
    // Over any split the placer also runs the contiguous search and keeps the better result.
    EXPECT_LE(r.objective, c.objective);
    // Deterministic for a seed (a shorter run keeps the test fast).
    const SolveResult a =
        create("tarnawski.latency:rounds=5,orders=2")->solve(w, latency_options());
    const SolveResult b =
        create("tarnawski.latency:rounds=5,orders=2")->solve(w, latency_options());
    EXPECT_EQ(to_assignment(w, a.split).device_of_node, to_assignment(w, b.split).device_of_node);
}

INSTANTIATE_TEST_SUITE_P(Tarnawski, TarnawskiLatencyTable4, ::testing::ValuesIn(kTable4),
                         FileTestName());

// The throughput workloads double as held-out latency workloads (with their own k, ℓ and M).
class TarnawskiLatencyHeldOut : public SharedWorkloadTest<Table1Row> {
protected:
    TarnawskiLatencyHeldOut() : SharedWorkloadTest("throughput") {}
};

TEST_P(TarnawskiLatencyHeldOut, PlacerNeverWorseThanGreedy) {
    const Workload& w = workload();
    // A short search keeps the test fast; the seeds already include the greedy.
    const SolveResult g = create("tarnawski.greedy")->solve(w, latency_options());
    EXPECT_TRUE(std::isfinite(g.objective));
    for (const char* contiguous : {"0", "1"}) {
        const SolveResult r =
            create(std::string("tarnawski.latency:rounds=8,orders=4,contiguous=") + contiguous)
                ->solve(w, latency_options());
        EXPECT_LE(r.objective, g.objective) << "contiguous=" << contiguous;
        const LatencyReport lat = check_result(w, r, SplitObjective::latency);
        EXPECT_TRUE(lat.memory_ok);
        EXPECT_EQ(lat.contiguous || contiguous[0] == '0', true);
    }
}

INSTANTIATE_TEST_SUITE_P(Tarnawski, TarnawskiLatencyHeldOut, ::testing::ValuesIn(kTable1),
                         FileTestName());
TEST(TarnawskiLatencySolvers, PlacerMatchesExhaustiveSearchOnSmallGraphs) {
    std::mt19937_64 rng(11);
    int finite = 0;
    for (int trial = 0; trial < 25; ++trial) {
        const Workload w = random_instance(rng, 7, 2);
        const double contiguous = exhaustive_latency(w, true);
        const double any = exhaustive_latency(w, false);
        EXPECT_LE(any, contiguous);
        const SolveResult r =
            create("tarnawski.latency:rounds=60,contiguous=1")->solve(w, latency_options());
        const SolveResult nc = create("tarnawski.latency:rounds=60")->solve(w, latency_options());
        if (!std::isfinite(contiguous)) {
            EXPECT_EQ(r.objective, kInf) << "trial " << trial;
            continue;
        }
        ++finite;
        EXPECT_NEAR(r.objective, contiguous, 1e-9 * contiguous) << "trial " << trial;
        EXPECT_NEAR(nc.objective, any, 1e-9 * any) << "trial " << trial;
        EXPECT_TRUE(check_result(w, r, SplitObjective::latency).contiguous);
        check_result(w, nc, SplitObjective::latency);
        // one_accelerator (the latency placer's search, any split) against the exhaustive
        // search restricted to accelerator 0.
        const SolveResult one = create("tarnawski.one_accelerator")->solve(w, latency_options());
        EXPECT_NEAR(one.objective, exhaustive_latency(w, false, 1), 1e-9 * one.objective)
            << "trial " << trial;
        const Split s = one.split;
        EXPECT_TRUE(s.accelerators[1].empty());
    }
    EXPECT_GT(finite, 15);
}

TEST(TarnawskiLatencySolvers, LatencyPlacerIsNeverWorseThanLocalSearchOnTightMemory) {
    // tarnawski.latency takes local_search's first two starts (greedy, all-CPU; both steepest
    // descents, deterministic) as seeds, so over the same space it cannot end above them.
    std::mt19937_64 rng(31);
    int strictly_better = 0;
    for (int trial = 0; trial < 8; ++trial) {
        Workload w = random_instance(rng, 24, 3);
        w.max_size_per_accelerator *= 0.4;  // most of the graph cannot go to accelerators
        for (const char* contiguous : {"0", "1"}) {
            const SolveResult ours =
                create(std::string("tarnawski.latency:rounds=20,contiguous=") + contiguous)
                    ->solve(w, latency_options());
            const SolveResult local =
                create(std::string("tarnawski.local_search:restarts=2,contiguous=") + contiguous)
                    ->solve(w, latency_options());
            EXPECT_LE(ours.objective, local.objective * (1 + 1e-12))
                << "trial " << trial << ", contiguous=" << contiguous;
            strictly_better += ours.objective < local.objective * (1 - 1e-9);
            if (std::isfinite(ours.objective)) {
                EXPECT_TRUE(check_result(w, ours, SplitObjective::latency).memory_ok);
            }
        }
    }
    EXPECT_GT(strictly_better, 0);  // the seeds and the search add something
}

TEST(TarnawskiLatencySolvers, TimeLimitIsRespected) {
    const std::optional<Workload> loaded =
        shared_workload_or_skip("latency/op_bert_l-3_inference.json");
    if (!loaded)
        return;
    const Workload& w = *loaded;
    SolveOptions o = latency_options();
    o.time_limit_s = 0.5;
    // Many rounds, cut short by the limit; still a feasible split no worse than the greedy.
    const SolveResult r = create("tarnawski.latency:rounds=100000")->solve(w, o);
    EXPECT_LT(std::stoull(r.stats.at("rounds")), 100000u);
    EXPECT_LE(r.objective, 416.2044);
    EXPECT_TRUE(check_result(w, r, SplitObjective::latency).memory_ok);
}

// A time limit already over: every phase stops at once and the search still returns a valid,
// memory-feasible split no worse than the §7 greedy (its first seed), and says so.
TEST(TarnawskiLatencySolvers, AnExpiredTimeLimitReturnsTheBestSeed) {
    std::mt19937_64 rng(17);
    for (int trial = 0; trial < 5; ++trial) {
        const Workload w = random_instance(rng, 8, 2);
        SolveOptions o = latency_options();
        o.time_limit_s = 1e-9;
        const SolveResult r = create("tarnawski.latency")->solve(w, o);
        EXPECT_EQ(r.stats.at("time_limit_hit"), "1");
        EXPECT_EQ(r.stats.at("rounds"), "0");
        EXPECT_LE(r.objective, create("tarnawski.greedy")->solve(w, latency_options()).objective);
        EXPECT_TRUE(check_result(w, r, SplitObjective::latency).memory_ok);
    }
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
