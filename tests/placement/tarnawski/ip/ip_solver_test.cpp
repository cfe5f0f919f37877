// The IPs as SplitSolvers (ip_solver.cpp): the registered specs parse, bad ones are refused,
// and a solve reports the requested objective with the IP's bound and gap.
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
#include "placement/tarnawski/tarnawski_placer.hpp"
#include "tests/placement/tarnawski/ip/ip_test_support.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

using namespace ip_test;

TEST(TarnawskiIpRegistry, SpecsParseAndSolve) {
    register_split_solvers();
    const SplitSolverRegistry& registry = SplitSolverRegistry::instance();
    ASSERT_TRUE(registry.has("tarnawski.ip_throughput"));
    ASSERT_TRUE(registry.has("tarnawski.ip_latency"));
    for (const char* good : {"tarnawski.ip_throughput", "tarnawski.ip_throughput:noncontiguous",
                             "tarnawski.ip_throughput:acyclic,time=5,gap=0.01,warm=dpl",
                             "tarnawski.ip_throughput:symmetry=off,log=0,warm=none",
                             "tarnawski.ip_latency", "tarnawski.ip_latency:q=2,time=60,gap=0.01",
                             "tarnawski.ip_latency:warm=greedy,symmetry=on"}) {
        EXPECT_NO_THROW(registry.create(good)) << good;
        EXPECT_EQ(registry.create(good)->name(), good);
    }
    for (const char* bad :
         {"tarnawski.ip_throughput:sideways", "tarnawski.ip_throughput:time=-1",
          "tarnawski.ip_throughput:warm=greedy", "tarnawski.ip_latency:q=0",
          "tarnawski.ip_latency:q=two", "tarnawski.ip_latency:gap=x", "tarnawski.ip_latency:z=1"})
        EXPECT_THROW(registry.create(bad), PlacementError) << bad;

    // Through the interface: the split is complete, the objective is the requested one, and
    // the stats carry the IP's bound and gap.
    std::mt19937_64 rng(9);
    const Instance t = random_instance(rng, false, true);
    const Workload& w = t.w;
    SolveOptions options;
    options.time_limit_s = 30.0;
    const SolveResult thr = registry.create("tarnawski.ip_throughput:gap=0")->solve(w, options);
    if (std::isfinite(thr.objective)) {
        EXPECT_NEAR(evaluate_split(w, thr.split).max_load, thr.objective, 1e-9);
        EXPECT_EQ(thr.stats.at("status"), "optimal");
        EXPECT_EQ(thr.stats.count("bound"), 1u);
        EXPECT_EQ(thr.stats.at("contiguity"), "contiguous");
    }
    options.objective = SplitObjective::latency;
    const SolveResult lat = registry.create("tarnawski.ip_latency:q=1")->solve(w, options);
    if (std::isfinite(lat.objective)) {
        EXPECT_NEAR(split_latency(w, lat.split), lat.objective, 1e-9 * (1 + lat.objective));
        EXPECT_EQ(lat.stats.at("q"), "1");
        EXPECT_EQ(lat.stats.count("gap"), 1u);
    }
    // Unsatisfiable: no CPU and a node that cannot run on the accelerator.
    Workload none;
    none.max_accelerators = 1;
    none.max_cpus = 0;
    none.max_size_per_accelerator = 10;
    none.add_node(0, 1.0, 1.0, 1.0, false, /*supported=*/false);
    EXPECT_THROW(registry.create("tarnawski.ip_throughput")->solve(none, {}), SolverError);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
