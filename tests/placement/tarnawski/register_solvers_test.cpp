// The family's one registration site (register_solvers.cpp): every solver registered and
// described, specs parsed against the declared keys.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
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

TEST(TarnawskiLatencySolvers, Registration) {
    register_split_solvers();
    const SplitSolverRegistry& registry = SplitSolverRegistry::instance();
    for (const char* name : {"tarnawski.dp", "tarnawski.dpl", "tarnawski.ip_throughput",
                             "tarnawski.ip_latency", "tarnawski.latency", "tarnawski.greedy",
                             "tarnawski.local_search", "tarnawski.one_accelerator",
                             "tarnawski.expert", "tarnawski.scotch", "tarnawski.pipedream"}) {
        ASSERT_TRUE(registry.has(name)) << name;
    }
    for (const SplitSolverInfo* info : registry.all())
        EXPECT_FALSE(info->description.empty()) << info->name();
    EXPECT_EQ(registry.create("tarnawski.latency:rounds=3")->name(), "tarnawski.latency:rounds=3");
    EXPECT_EQ(registry.create("tarnawski.latency")->name(), "tarnawski.latency");
    EXPECT_EQ(registry.create("tarnawski.greedy")->name(), "tarnawski.greedy");
    // Each bad spec is refused with one line naming the solver, the key and what it expects.
    const std::pair<const char*, const char*> bad[] = {
        {"tarnawski.expert", "placer 'tarnawski.expert': missing argument 'file'"},
        {"tarnawski.greedy:3", "placer 'tarnawski.greedy': takes no arguments, got '3'"},
        {"tarnawski.latency:round=3",
         "placer 'tarnawski.latency': unknown argument 'round' (did you mean 'rounds'?)"},
        {"tarnawski.latency:rounds=-1",
         "placer 'tarnawski.latency': rounds=-1: expected an integer >= 0"},
        {"tarnawski.local_search:contiguous=maybe",
         "placer 'tarnawski.local_search': contiguous=maybe: expected 0, 1, true, false, on or "
         "off"},
        {"tarnawski.local_search:restarts=0",
         "placer 'tarnawski.local_search': restarts=0: expected an integer >= 1"},
        {"tarnawski.dp:replicas=2000",
         "placer 'tarnawski.dp': replicas=2000: expected an integer in 1..1024"},
        {"tarnawski.dpl:bandwidth=0", "placer 'tarnawski.dpl': bandwidth=0: expected a number > 0"},
        {"tarnawski.pipedream:replicate",
         "placer 'tarnawski.pipedream': expected key=value, got 'replicate'"},
        {"tarnawski.scotch:preset=best",
         "placer 'tarnawski.scotch': preset=best: expected one of default, standard, quality, "
         "speed, "
         "balance"},
    };
    for (const auto& [spec, message] : bad) {
        try {
            registry.create(spec);
            ADD_FAILURE() << spec << " was accepted";
        } catch (const PlacementError& e) {
            EXPECT_THAT(e.what(), ::testing::StartsWith(message)) << spec;
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << spec;
        }
    }
}

// ---- scotch and pipedream ----
TEST(TarnawskiBaselines, RegistryCreatesBothSolvers) {
    register_split_solvers();
    const SplitSolverRegistry& registry = SplitSolverRegistry::instance();
    EXPECT_EQ(registry.create("tarnawski.scotch")->name(), "tarnawski.scotch");
    EXPECT_EQ(registry.create("tarnawski.scotch:preset=quality,repair=off")->name(),
              "tarnawski.scotch:preset=quality,repair=off");
    EXPECT_NO_THROW(registry.create(
        "tarnawski.scotch:seed=3,strategy=r{sep=m{vert=80,low=h{pass=10},asc=f{bal=0.05}}}"));
    EXPECT_THROW(registry.create("tarnawski.scotch:preset=best"), PlacementError);
    EXPECT_THROW(registry.create("tarnawski.scotch:imbalance=x"), PlacementError);
    EXPECT_THROW(registry.create("tarnawski.scotch:speed"), PlacementError);
    EXPECT_EQ(registry.create("tarnawski.pipedream:branches=off")->name(),
              "tarnawski.pipedream:branches=off");
    EXPECT_THROW(registry.create("tarnawski.pipedream:replicate"), PlacementError);

    // Both run through the interface and report the §3 max-load (and the §4 latency).
    const Workload w = hand_chain(2, 1, 100.0);
    for (const char* spec :
         {"tarnawski.scotch", "tarnawski.pipedream",
          "tarnawski.scotch:preset=quality,imbalance=0.05",
          "tarnawski.scotch:strategy=r{sep=m{vert=80,low=h{pass=10},asc=f{bal=0.05}}}"}) {
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
    EXPECT_DOUBLE_EQ(registry.create("tarnawski.pipedream")->solve(w, SolveOptions{}).objective,
                     7.5);
    // A strategy Scotch cannot parse is a SolverError when solving.
    EXPECT_THROW(registry.create("tarnawski.scotch:strategy=%%%")->solve(w, SolveOptions{}),
                 SolverError);
}

// Every time-limited split solver also takes a work budget (docs/DESIGN.md "Time limits and
// work budgets"); a run it stops returns the same split on every run. Two runs per solver with
// a small budget and a time limit far away.
TEST(TarnawskiWorkBudgets, ASearchStoppedByItsBudgetGivesTheSameSplitTwice) {
    // The DP's budget binds on 3x3x3 blocks (54 ideals); the MIPs' root takes seconds there,
    // so they run on a smaller graph.
    const Workload w = make_branching_workload(3, 3, 3, 4);
    const Workload small = make_branching_workload(2, 2, 2, 4);
    struct Case {
        const char* spec;
        SplitObjective objective;
        const char* limit_stat;  // "1" when the budget stopped the search ("" = not reported)
    };
    for (const Case& c :
         {Case{"tarnawski.dp:states=20", SplitObjective::throughput, "state_limit_hit"},
          Case{"tarnawski.ip_throughput:nodes=1,warm=dpl,time=60", SplitObjective::throughput, ""},
          Case{"tarnawski.ip_latency:nodes=1,warm=greedy,time=60", SplitObjective::latency, ""},
          Case{"tarnawski.local_search:restarts=2,steps=3,time=60", SplitObjective::latency, ""},
          Case{"tarnawski.latency:rounds=3,orders=2", SplitObjective::latency, ""}}) {
        SCOPED_TRACE(c.spec);
        SolveOptions options;
        options.objective = c.objective;
        options.seed = 7;
        const auto solver = solver_test::create(c.spec);
        const Workload& on = std::string(c.spec).find(".ip_") != std::string::npos ? small : w;
        const SolveResult a = solver->solve(on, options);
        const SolveResult b = solver->solve(on, options);
        EXPECT_EQ(a.split.cpus, b.split.cpus);
        EXPECT_EQ(a.split.accelerators, b.split.accelerators);
        EXPECT_EQ(a.objective, b.objective);
        EXPECT_EQ(a.stats.count("time_limit_hit") ? a.stats.at("time_limit_hit") : "0", "0");
        if (*c.limit_stat) {
            EXPECT_EQ(a.stats.at(c.limit_stat), "1");
        }
        if (a.stats.count("nodes")) {
            EXPECT_EQ(a.stats.at("nodes"), b.stats.at("nodes"));
        }
    }
    // The DP's budget returns DPL's split.
    const auto dpl = solver_test::create("tarnawski.dpl")->solve(w, {});
    const auto capped = solver_test::create("tarnawski.dp:states=20")->solve(w, {});
    EXPECT_EQ(capped.split.accelerators, dpl.split.accelerators);
    EXPECT_EQ(
        solver_test::create("tarnawski.dp:states=0")->solve(w, {}).stats.at("state_limit_hit"),
        "0");
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
