// Generated workloads end to end: `hetsim run` places and simulates a random DAG, and
// `hetsim list models` shows its knobs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/fixtures/cli_fixtures.hpp"

namespace {

using hetsim::testing::read_file;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;

// `hetsim run` of a study on configs/platforms/<platform>.yaml; `rest` is the study after its
// platform line. Outputs go to dir/out.
hetsim::testing::Outcome run_study(const TempDir& dir, const std::string& platform,
                                   const std::string& rest) {
    const auto study = dir.write("s.yaml", "study: s\nplatform: " + std::string(HETSIM_SOURCE_DIR) +
                                               "/configs/platforms/" + platform + ".yaml\n" + rest);
    return run_hetsim("run " + study.string() + " --out " + (dir.path() / "out").string());
}

TEST(CliWorkloads, ARandomDagIsPlacedAndSimulated) {
    TempDir dir;
    const auto out = dir.path() / "out";
    const auto o = run_study(dir, "pcie_accelerators",
                             "workload: { model: random_dag, nodes: 40, hidden: 64, seed: 3 }\n"
                             "objective: throughput\nsamples: 4\nbaseline: single:CPU0\n"
                             "placers: [tarnawski.dp, round_robin]\n");
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

TEST(CliWorkloads, AnUnrolledLstmRunsOnTheZynqWithLee2022) {
    TempDir dir;
    const auto o = run_study(dir, "zynq_silentpim",
                             "workload: { model: lstm, seq_len: 4, hidden: 64, input: 32 }\n"
                             "samples: 2\nbaseline: single:CPU_S\n"
                             "placers: [priority:PIM,CPU_P,CPU_S, lee2022.als]\n");
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("lstm(layers=1,hidden=64,input=32,seq_len=4,batch=1,fused=0)"));
    EXPECT_THAT(o.output, HasSubstr("lee2022.als"));
    EXPECT_THAT(o.output, ::testing::Not(HasSubstr("infeasible")));
}

TEST(CliWorkloads, DuetModelsArePlacedAndSimulated) {
    // Fused and unrolled recurrent forms, each model small.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"model: wide_and_deep, image: 64, rnn_seq_len: 8, fused: 1", "(68 ops"},
        {"model: siamese_lstm, seq_len: 4, fused: 1", "(22 ops"},
        {"model: mt_dnn, layers: 1, hidden: 64, heads: 2, ffn: 128, seq_len: 4, tasks: 2",
         "mt_dnn(layers=1,"},
    };
    for (const auto& [workload, expected] : cases) {
        TempDir dir;
        const auto o = run_study(dir, "pcie_accelerators",
                                 "workload: { " + workload +
                                     " }\nsamples: 2\nbaseline: single:CPU0\n"
                                     "placers: [round_robin]\n");
        ASSERT_EQ(o.exit_code, 0) << o.output;
        EXPECT_THAT(o.output, HasSubstr(expected)) << workload;
        EXPECT_THAT(o.output, HasSubstr("round_robin")) << workload;
        EXPECT_THAT(o.output, ::testing::Not(HasSubstr("infeasible"))) << workload;
    }
}

}  // namespace
