// one_accelerator (one_accelerator_solver.cpp): the DP with one accelerator for throughput,
// the latency search with one accelerator for latency.
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

TEST(TarnawskiLatencySolvers, OneAcceleratorForThroughputIsTheDpWithOneAccelerator) {
    std::mt19937_64 rng(8);
    const Workload w = random_instance(rng, 10, 3);
    SolveOptions o;
    o.objective = SplitObjective::throughput;
    const SolveResult r = create("tarnawski.one_accelerator")->solve(w, o);
    Workload one = w;
    one.max_accelerators = 1;
    EXPECT_NEAR(r.objective, solve_max_load(one).objective, 1e-9);
    EXPECT_TRUE(r.split.accelerators[1].empty());
    EXPECT_TRUE(r.split.accelerators[2].empty());
}

TEST(TarnawskiLatencySolvers, OneAcceleratorOnBert24) {
    const std::optional<Workload> loaded =
        shared_workload_or_skip("latency/layer_bert24_inference.json");
    if (!loaded)
        return;
    const Workload& w = *loaded;
    const SolveResult r = create("tarnawski.one_accelerator")->solve(w, latency_options());
    const LatencyReport lat = check_result(w, r, SplitObjective::latency);
    EXPECT_TRUE(lat.memory_ok);
    for (std::size_t a = 1; a < r.split.accelerators.size(); ++a)
        EXPECT_TRUE(r.split.accelerators[a].empty());
    // The model does not fit one accelerator (§7), so part of it runs on the slow CPUs.
    EXPECT_FALSE(r.split.cpus[0].empty());
    EXPECT_GT(r.objective, 100.22);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
