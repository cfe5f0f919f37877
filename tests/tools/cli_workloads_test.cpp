// Generated workloads end to end: `hetsim run` places and simulates a random DAG, and
// `hetsim list models` shows its knobs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/fixtures/cli_fixtures.hpp"

namespace {

using hetsim::testing::read_file;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;

TEST(CliWorkloads, ARandomDagIsPlacedAndSimulated) {
    TempDir dir;
    const auto study =
        dir.write("s.yaml", "study: dag\nplatform: " + std::string(HETSIM_SOURCE_DIR) +
                                "/configs/platforms/pcie_accelerators.yaml\n"
                                "workload: { model: random_dag, nodes: 40, hidden: 64, seed: 3 }\n"
                                "objective: throughput\nsamples: 4\nbaseline: single:CPU0\n"
                                "placers: [tarnawski.dp, round_robin]\n");
    const auto out = dir.path() / "out";
    const auto o = run_hetsim("run " + study.string() + " --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("random_dag(seed=3,nodes=40,width=8,skip_percent=20,"
                                    "matmul_percent=30,hidden=64,batch=1)"));
    EXPECT_THAT(o.output, HasSubstr("(40 ops"));
    const std::string csv = read_file(out / "results.csv");
    EXPECT_THAT(csv, HasSubstr("\"tarnawski.dp\",throughput"));
    const auto list = run_hetsim("list models");
    EXPECT_THAT(list.output, HasSubstr("random_dag"));
    EXPECT_THAT(list.output, HasSubstr("skip_percent=20"));
}

}  // namespace
