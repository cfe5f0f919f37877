// A partition on the simulated package (placement/mcm/des_check.hpp): the static constraints
// and H(G, f) refuse partitions before any simulation; the DES with several samples in flight
// refuses one whose chip fits one sample's activations but not four.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/des_check.hpp"
#include "placement/mcm/problem.hpp"
#include "sim/evaluator.hpp"
#include "sim/workloads/json_graph.hpp"
#include "tests/fixtures/mcm_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::placement::mcm {
namespace {

using ::testing::HasSubstr;

// x [1,64] -> n0 -> n1 -> n2 (Relu), every tensor 256 B in fp32.
constexpr const char* kChain = R"({"name": "chain",
 "tensors": [{"name": "x", "shape": [1, 64], "kind": "input"},
  {"name": "t0", "shape": [1, 64]}, {"name": "t1", "shape": [1, 64]},
  {"name": "t2", "shape": [1, 64]}],
 "ops": [
  {"name": "n0", "type": "Relu", "inputs": ["x"], "outputs": ["t0"]},
  {"name": "n1", "type": "Relu", "inputs": ["t0"], "outputs": ["t1"]},
  {"name": "n2", "type": "Relu", "inputs": ["t1"], "outputs": ["t2"]}],
 "outputs": ["t2"]})";

struct Fixture {
    explicit Fixture(const std::string& sram, int samples = 4)
        : graph(sim::workloads::parse_json_graph(kChain, "chain")),
          platform(hetsim::testing::parse_platform_yaml(
              hetsim::testing::mcm_ring_platform_yaml(3, sram))),
          problem(graph, platform),
          evaluator(sim::EvalOptions{samples}) {}
    sim::Graph graph;
    sim::Platform platform;
    McmProblem problem;
    sim::AnalyticEvaluator evaluator;  // contention-free: the tests need only its memory check
};

TEST(McmDesCheck, StaticViolationsAreNeverSimulated) {
    Fixture f("1 MiB");
    const SimulatedPartition run = simulate_partition(f.problem, {1, 0, 2}, f.evaluator);
    EXPECT_EQ(run.verdict, DesVerdict::static_constraints);
    EXPECT_THAT(run.reason, HasSubstr("acyclic (Eq. 2)"));
    EXPECT_EQ(f.evaluator.evaluations(), 0);
    EXPECT_FALSE(run.valid());
}

TEST(McmDesCheck, ScheduleMemoryFailsBeforeTheRun) {
    // One op per chip: each holds its input and its output (kept to the end of the stage), 512 B.
    Fixture f("500 B");
    const SimulatedPartition run = simulate_partition(f.problem, {0, 1, 2}, f.evaluator);
    EXPECT_EQ(run.verdict, DesVerdict::memory_schedule);
    EXPECT_THAT(run.reason, HasSubstr("memory (H): chip 0 needs 512 B"));
    EXPECT_EQ(f.evaluator.evaluations(), 0);
}

TEST(McmDesCheck, SamplesInFlightOverflowWhatOneSampleFits) {
    // H: 512 B per chip for one sample. With four samples in flight the inputs of all four reach
    // chip 0 before it has finished the first, so its SRAM must hold more than 600 B.
    Fixture f("600 B", 4);
    const SimulatedPartition run = simulate_partition(f.problem, {0, 1, 2}, f.evaluator);
    EXPECT_EQ(run.verdict, DesVerdict::memory_in_flight);
    EXPECT_THAT(run.reason, HasSubstr("chip0"));
    EXPECT_EQ(f.evaluator.evaluations(), 1);
    // One sample in flight fits.
    Fixture one("600 B", 1);
    const SimulatedPartition alone = simulate_partition(one.problem, {0, 1, 2}, one.evaluator);
    EXPECT_TRUE(alone.valid()) << alone.reason;
}

TEST(McmDesCheck, ValidPartitionsReportTheSimulatedThroughput) {
    Fixture f("1 MiB");
    const SimulatedPartition run = simulate_partition(f.problem, {0, 0, 1}, f.evaluator);
    ASSERT_TRUE(run.valid()) << run.reason;
    EXPECT_EQ(run.verdict, DesVerdict::valid);
    EXPECT_GT(run.throughput_per_s, 0.0);
    EXPECT_DOUBLE_EQ(run.throughput_per_s, run.metrics.throughput_per_s);
    EXPECT_DOUBLE_EQ(run.time_per_sample_s, 1.0 / run.throughput_per_s);
    EXPECT_EQ(to_string(run.verdict), "valid");
}

}  // namespace
}  // namespace hetsim::placement::mcm
