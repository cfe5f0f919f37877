// The §7 greedy (latency_greedy_solver.cpp): Table 4's greedy values.
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

class TarnawskiGreedyTable4 : public SharedWorkloadTest<Table4Row> {
protected:
    TarnawskiGreedyTable4() : SharedWorkloadTest("latency") {}
};

TEST_P(TarnawskiGreedyTable4, GreedyMatchesPaper) {
    const auto row = GetParam();
    const Workload& w = workload();
    const SolveResult r = create("tarnawski.greedy")->solve(w, latency_options());
    // Table 4 prints two decimals: the latency must round to it.
    EXPECT_LT(std::fabs(r.objective * 100.0 - row.greedy * 100.0), 0.5)
        << row.file << ": greedy gives " << r.objective << ", Table 4 says " << row.greedy;
    const LatencyReport lat = check_result(w, r, SplitObjective::latency);
    EXPECT_TRUE(lat.memory_ok);
    EXPECT_TRUE(lat.contiguous);
    // §7: "For all our test workloads, it is able to place all nodes on accelerators".
    for (const auto& cpu : r.split.cpus)
        EXPECT_TRUE(cpu.empty());
}

INSTANTIATE_TEST_SUITE_P(Tarnawski, TarnawskiGreedyTable4, ::testing::ValuesIn(kTable4),
                         FileTestName());

}  // namespace
}  // namespace hetsim::placement::tarnawski
