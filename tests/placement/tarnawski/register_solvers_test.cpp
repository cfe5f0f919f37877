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

}  // namespace
}  // namespace hetsim::placement::tarnawski
