// mcm2022's placers (placement/mcm/mcm_placers.hpp) through the registry, as a study runs them:
// every result is a valid partition, mcm.optimal is the enumerated optimum and mcm.bound never
// above it, the greedy fill is balanced and contiguous by hand, the convergence table is the
// best so far after each sample, and the same seed gives the same partition.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/constraints.hpp"
#include "placement/mcm/enumerate.hpp"
#include "placement/mcm/problem.hpp"
#include "placement/placer.hpp"
#include "sim/evaluator.hpp"
#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/mcm_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::placement::mcm {
namespace {

using ::testing::HasSubstr;

sim::Platform ring(int chips, const std::string& sram = "32 MiB") {
    return hetsim::testing::parse_platform_yaml(
        hetsim::testing::mcm_ring_platform_yaml(chips, sram));
}

PlacementResult run(const std::string& spec, const sim::Graph& graph, const sim::Platform& platform,
                    std::uint64_t seed = 1) {
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{2});
    const PlacementContext context{graph, platform, evaluator, Objective::throughput, seed};
    return PlacerRegistry::instance().create(spec)->place(context);
}

sim::Graph random_dag(std::int64_t seed, std::int64_t nodes) {
    return sim::workloads::build_model(
        "random_dag", {{"seed", seed}, {"nodes", nodes}, {"width", 3}, {"hidden", 16}});
}

TEST(McmPlacers, EveryPlacerReturnsAValidPartition) {
    for (std::int64_t seed = 1; seed <= 3; ++seed) {
        const sim::Graph g = random_dag(seed, 24);
        const sim::Platform p = ring(5);
        const McmProblem problem(g, p);
        for (const std::string spec :
             {"mcm.greedy", "mcm.random:samples=20", "mcm.sa:samples=20", "mcm.optimal:time=20"}) {
            const PlacementResult r = run(spec, g, p, static_cast<std::uint64_t>(seed));
            const std::vector<int> f = problem.from_placement(r.placement);
            EXPECT_TRUE(
                check_partition(g, f, problem.capacity_bytes(), problem.tensor_bytes_all()).empty())
                << spec << " seed " << seed;
            EXPECT_FALSE(r.summary.empty());
            EXPECT_EQ(r.stats.at("analytic_valid"), "1") << spec;
        }
    }
}

TEST(McmPlacers, OptimalIsTheEnumeratedOptimumAndTheBoundIsBelowIt) {
    for (std::int64_t seed = 1; seed <= 4; ++seed) {
        const sim::Graph g = random_dag(seed, 8);
        for (int chips : {2, 3}) {
            const sim::Platform p = ring(chips);
            const McmProblem problem(g, p);
            AnalyticModel model(problem);
            double best_s = std::numeric_limits<double>::infinity();
            for (const auto& f : enumerate_valid_partitions(g, chips)) {
                if (model.weights_fit(f))
                    best_s = std::min(best_s, model.time_per_sample_s(f));
            }
            const PlacementResult optimal = run("mcm.optimal:time=30", g, p);
            const std::vector<int> f = problem.from_placement(optimal.placement);
            EXPECT_DOUBLE_EQ(model.time_per_sample_s(f), best_s) << "seed " << seed;
            EXPECT_EQ(optimal.stats.at("proven_optimal"), "1");
            const PlacementResult bound = run("mcm.bound", g, p);
            EXPECT_LE(std::stod(bound.stats.at("bound_time_per_sample_s")), best_s * (1 + 1e-12));
            // The gap every search reports is against that bound: never negative.
            EXPECT_GE(std::stod(optimal.stats.at("gap_to_bound")), -1e-9);
        }
    }
}

// A chain of eight Relu ops of equal size: on four chips the balanced fill is two per chip.
constexpr const char* kChain8 = R"({"name": "chain8",
 "tensors": [{"name": "x", "shape": [1, 8], "kind": "input"},
  {"name": "t0", "shape": [1, 8]}, {"name": "t1", "shape": [1, 8]}, {"name": "t2", "shape": [1, 8]},
  {"name": "t3", "shape": [1, 8]}, {"name": "t4", "shape": [1, 8]}, {"name": "t5", "shape": [1, 8]},
  {"name": "t6", "shape": [1, 8]}, {"name": "t7", "shape": [1, 8]}],
 "ops": [
  {"name": "n0", "type": "Relu", "inputs": ["x"], "outputs": ["t0"]},
  {"name": "n1", "type": "Relu", "inputs": ["t0"], "outputs": ["t1"]},
  {"name": "n2", "type": "Relu", "inputs": ["t1"], "outputs": ["t2"]},
  {"name": "n3", "type": "Relu", "inputs": ["t2"], "outputs": ["t3"]},
  {"name": "n4", "type": "Relu", "inputs": ["t3"], "outputs": ["t4"]},
  {"name": "n5", "type": "Relu", "inputs": ["t4"], "outputs": ["t5"]},
  {"name": "n6", "type": "Relu", "inputs": ["t5"], "outputs": ["t6"]},
  {"name": "n7", "type": "Relu", "inputs": ["t6"], "outputs": ["t7"]}],
 "outputs": ["t7"]})";

TEST(McmPlacers, GreedyFillsTheChipsBalancedAndContiguous) {
    const sim::Graph g = sim::workloads::parse_json_graph(kChain8, "chain8");
    const sim::Platform p = ring(4);
    const McmProblem problem(g, p);
    const PlacementResult r = run("mcm.greedy", g, p);
    EXPECT_EQ(problem.from_placement(r.placement), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
    EXPECT_EQ(r.stats.at("repaired_ops"), "0");
    EXPECT_EQ(r.stats.at("samples"), "1");
}

// Four MatMuls in a chain, each with a [8,8] fp32 weight (256 B).
constexpr const char* kMatMulChain4 = R"({"name": "mm4",
 "tensors": [{"name": "x", "shape": [1, 8], "kind": "input"},
  {"name": "w0", "shape": [8, 8], "kind": "weight"}, {"name": "w1", "shape": [8, 8], "kind": "weight"},
  {"name": "w2", "shape": [8, 8], "kind": "weight"}, {"name": "w3", "shape": [8, 8], "kind": "weight"},
  {"name": "t0", "shape": [1, 8]}, {"name": "t1", "shape": [1, 8]}, {"name": "t2", "shape": [1, 8]},
  {"name": "t3", "shape": [1, 8]}],
 "ops": [
  {"name": "m0", "type": "MatMul", "inputs": ["x", "w0"], "outputs": ["t0"]},
  {"name": "m1", "type": "MatMul", "inputs": ["t0", "w1"], "outputs": ["t1"]},
  {"name": "m2", "type": "MatMul", "inputs": ["t1", "w2"], "outputs": ["t2"]},
  {"name": "m3", "type": "MatMul", "inputs": ["t2", "w3"], "outputs": ["t3"]}],
 "outputs": ["t3"]})";

TEST(McmPlacers, GreedyMemoryFillPacksEachSramInTurn) {
    const sim::Graph g = sim::workloads::parse_json_graph(kMatMulChain4, "mm4");
    // 600 B per chip: two 256 B weights fit, a third does not.
    const sim::Platform p = ring(4, "600 B");
    const McmProblem problem(g, p);
    const PlacementResult packed = run("mcm.greedy:fill=memory,reserve=0,bound=0", g, p);
    EXPECT_EQ(problem.from_placement(packed.placement), (std::vector<int>{0, 0, 1, 1}));
    // With 20 % reserved (480 B) a chip takes one weight once it holds one.
    const PlacementResult reserved = run("mcm.greedy:fill=memory,reserve=0.2,bound=0", g, p);
    EXPECT_EQ(problem.from_placement(reserved.placement), (std::vector<int>{0, 1, 2, 3}));
    // The compute-balanced fill spreads the four equal ops over the four chips.
    const PlacementResult balanced = run("mcm.greedy:reserve=0,bound=0", g, p);
    EXPECT_EQ(problem.from_placement(balanced.placement), (std::vector<int>{0, 1, 2, 3}));
}

// No fill can be repaired when the memory is too small; the message says which limit to raise.
TEST(McmPlacers, GreedyNamesTheMemoryThatLeavesNoPartition) {
    const sim::Graph g = sim::workloads::parse_json_graph(kMatMulChain4, "mm4");
    const auto refusal = [&](int chips, const std::string& sram) {
        try {
            (void)run("mcm.greedy:reserve=0,bound=0", g, ring(chips, sram));
        } catch (const PlacementError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    // 200 B per chip: no chip holds one 256 B weight.
    EXPECT_THAT(refusal(4, "200 B"),
                HasSubstr("any number of chips: op 'm0' reads 256 B of weights, and no chiplet "
                          "has room for more than 200 B ('chip0'); raise the chiplets' memory"));
    // 300 B per chip holds any one weight, but three chips hold 900 B of the 1024 B.
    EXPECT_THAT(refusal(3, "300 B"), HasSubstr("the weights take 1024 B, more than the 900 B the "
                                               "3 chiplets have for them; raise the chiplets' "
                                               "memory"));
}

TEST(McmPlacers, ConvergenceIsTheBestSoFarAfterEverySample) {
    const sim::Graph g = random_dag(5, 20);
    const sim::Platform p = ring(4);
    const McmProblem problem(g, p);
    AnalyticModel model(problem);
    const PlacementResult r = run("mcm.random:samples=25,bound=0", g, p);
    std::istringstream csv(r.tables.at("convergence"));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "sample,throughput_per_s,valid");
    double previous = 0.0;
    int rows = 0;
    while (std::getline(csv, line)) {
        ++rows;
        const auto first = line.find(',');
        const auto second = line.find(',', first + 1);
        EXPECT_EQ(std::stoi(line.substr(0, first)), rows);
        const double throughput = std::stod(line.substr(first + 1, second - first - 1));
        EXPECT_GE(throughput, previous);
        previous = throughput;
    }
    EXPECT_EQ(rows, 25);
    const double best = 1.0 / model.time_per_sample_s(problem.from_placement(r.placement));
    EXPECT_NEAR(previous, best, best * 1e-8);
    EXPECT_EQ(r.stats.at("samples"), "25");
}

TEST(McmPlacers, TheSameSeedGivesTheSamePartition) {
    const sim::Graph g = random_dag(2, 30);
    const sim::Platform p = ring(6);
    for (const std::string spec : {"mcm.random:samples=10,bound=0", "mcm.sa:samples=10,bound=0"}) {
        EXPECT_EQ(run(spec, g, p, 9).placement.device_of_op,
                  run(spec, g, p, 9).placement.device_of_op)
            << spec;
    }
}

// mcm.optimal's node budget: a search it stops gives the same partition on every run (the
// time limit, far away here, would not).
TEST(McmPlacers, OptimalStoppedByItsNodeBudgetGivesTheSamePartitionTwice) {
    const sim::Graph g = sim::workloads::build_model(
        "random_dag",
        {{"seed", 5}, {"nodes", 24}, {"width", 4}, {"hidden", 64}, {"matmul_percent", 60}});
    const sim::Platform p = ring(6);
    const PlacementResult a = run("mcm.optimal:nodes=50,time=60", g, p);
    const PlacementResult b = run("mcm.optimal:nodes=50,time=60", g, p);
    EXPECT_EQ(a.placement.device_of_op, b.placement.device_of_op);
    EXPECT_EQ(a.stats.at("search_nodes"), b.stats.at("search_nodes"));
    EXPECT_EQ(a.stats.at("node_limit_hit"), "1");
    EXPECT_EQ(a.stats.at("proven_optimal"), "0");
    EXPECT_THROW(run("mcm.optimal:nodes=-1", g, p), PlacementError);
}

TEST(McmPlacers, BadArgumentsAndPlatformsAreRefused) {
    try {
        (void)PlacerRegistry::instance().create("mcm.sa:fraction=2");
        FAIL() << "expected a PlacementError";
    } catch (const PlacementError& e) {
        EXPECT_THAT(e.what(), HasSubstr("fraction"));
    }
    EXPECT_THROW((void)PlacerRegistry::instance().create("mcm.random:samples=0"), PlacementError);
    const sim::Graph g = random_dag(1, 6);
    const sim::Platform host_only =
        hetsim::testing::parse_platform_yaml(hetsim::testing::kHostWithoutChips);
    try {
        (void)run("mcm.random:samples=2", g, host_only);
        FAIL() << "expected an InputError";
    } catch (const sim::InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("no device has role chiplet"));
    }
}

}  // namespace
}  // namespace hetsim::placement::mcm
