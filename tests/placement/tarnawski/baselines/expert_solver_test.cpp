// expert (expert_solver.cpp): scores a split file, Table 4's "Expert" value.
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

TEST(TarnawskiLatencySolvers, ExpertScoresTheFileSplit) {
    const auto path = kSharedWorkloads / "latency" / "layer_bert24_inference.json";
    const auto expert = kSharedWorkloads / "experts" / "bert24_inference_expert.json";
    if (!std::filesystem::exists(path) || !std::filesystem::exists(expert))
        GTEST_SKIP() << "shared workloads not found under " << kSharedWorkloads;
    Workload w = read_workload(path);
    // The expert split uses 6 accelerators; the latency instance has k = 5.
    EXPECT_THROW(create("tarnawski.expert:" + expert.string())->solve(w, latency_options()),
                 SolverError);
    w.max_accelerators = 6;
    const SolveResult r =
        create("tarnawski.expert:" + expert.string())->solve(w, latency_options());
    EXPECT_NEAR(r.objective, 111.94, 0.005);  // Table 4, "Expert"
    EXPECT_EQ(r.stats.at("memory_ok"), "1");
    SolveOptions throughput;
    const SolveResult t = create("tarnawski.expert:" + expert.string())->solve(w, throughput);
    EXPECT_NEAR(t.objective, evaluate_split(w, read_split(expert)).max_load, 1e-9);
    EXPECT_THROW(create("tarnawski.expert:/nonexistent/split.json")->solve(w, throughput),
                 SolverError);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
