// `hetsim run configs/studies/mcm_small.yaml`: the mcm36 platform runs a study end to end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::testing {
namespace {

using ::testing::HasSubstr;

TEST(McmSmallStudy, RunsTheMcmPlacersAndRefusesAnInvalidPartition) {
    TempDir dir;
    const auto out = dir.path() / "out";
    const Outcome o = run_hetsim("run " + std::string(HETSIM_SOURCE_DIR) +
                                 "/configs/studies/mcm_small.yaml --trace --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("on mcm36"));
    // Every mcm placer reports its samples and its gap to the relaxed DP's bound.
    for (const char* placer : {"mcm.greedy", "mcm.random:samples=100", "mcm.sa:samples=100"}) {
        EXPECT_THAT(o.output, HasSubstr(std::string("  ") + placer + ": ")) << placer;
    }
    EXPECT_THAT(o.output, HasSubstr("100 sample(s)"));
    EXPECT_THAT(o.output, HasSubstr("gap"));
    EXPECT_THAT(o.output, HasSubstr("bound: throughput <="));
    // `random` ignores mcm2022's constraints: its partition is reported invalid, not simulated.
    EXPECT_THAT(o.output, HasSubstr("random                  infeasible: invalid partition: "));
    // The random placement uses chiplets only: the ring_host supports no op.
    const std::string random = read_file(out / "placement_random.json");
    EXPECT_THAT(random, HasSubstr("\"chip"));
    EXPECT_THAT(random, ::testing::Not(HasSubstr("\"host\"")));
    // Best-so-far against samples.
    const std::string convergence = read_file(out / "convergence_mcm.random_samples_100.csv");
    EXPECT_THAT(convergence, ::testing::StartsWith("sample,throughput_per_s,valid\n1,"));
    EXPECT_THAT(convergence, HasSubstr("\n100,"));
    // Perfetto: a process per chip, one "ring" process with a thread per link, and the
    // pipelined stream (slices of samples after the first, "#k").
    const std::string trace = read_file(out / "mcm.greedy.trace.json");
    EXPECT_THAT(trace, HasSubstr("\"name\":\"chip0\""));
    EXPECT_THAT(trace, HasSubstr("\"name\":\"ring\""));
    EXPECT_THAT(trace, HasSubstr("\"name\":\"ring0 chip0->chip1\""));
    EXPECT_THAT(trace, HasSubstr(" #3\""));
}

TEST(McmSmallStudy, AgreeMeasuresTheAnalyticalModelAgainstTheDes) {
    TempDir dir;
    const Outcome o = run_hetsim("agree " + std::string(HETSIM_SOURCE_DIR) +
                                 "/configs/studies/mcm_small.yaml --samples 20 --out " +
                                 (dir.path() / "agree").string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("the §5.1 analytical model against the DES on 20 uniform "
                                    "SAMPLE partitions"));
    EXPECT_THAT(o.output, HasSubstr("refused by the DES"));
    EXPECT_THAT(o.output, HasSubstr("Pearson r"));
    const std::string csv = read_file(dir.path() / "agree" / "agreement.csv");
    EXPECT_THAT(csv, ::testing::StartsWith(
                         "placement,analytic_s,des_s,feasible,relative_difference,reason\n"));
}

TEST(McmSmallStudy, ABadChipParameterIsOneLineNamingThePath) {
    TempDir dir;
    const std::string platform =
        read_file(std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/mcm36.yaml");
    std::string bad = platform;
    const std::string from = "matmul_rate: 4 TOPS";
    bad.replace(bad.find(from), from.size(), "matmul_rate: 4 GB/s");
    const auto platform_file = dir.write("mcm36.yaml", bad);
    const auto study = dir.write("study.yaml", "study: s\nplatform: " + platform_file.string() +
                                                   "\nworkload: {model: lstm, layers: 1, "
                                                   "seq_len: 2}\nplacers: [single:chip0]\n");
    const Outcome o = run_hetsim("run " + study.string() + " --out " + (dir.path() / "o").string());
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("mcm36.yaml"));
    EXPECT_THAT(o.output, HasSubstr("components.chip0.matmul_rate"));
}

}  // namespace
}  // namespace hetsim::testing
