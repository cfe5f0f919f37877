// `hetsim run configs/studies/mcm_small.yaml`: the mcm36 platform runs a study end to end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::testing {
namespace {

using ::testing::HasSubstr;

TEST(McmSmallStudy, RunsWithEveryOpOnChipletsNeverOnTheHost) {
    TempDir dir;
    const auto out = dir.path() / "out";
    const Outcome o = run_hetsim("run " + std::string(HETSIM_SOURCE_DIR) +
                                 "/configs/studies/mcm_small.yaml --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("on mcm36"));
    EXPECT_THAT(o.output, HasSubstr("single:chip0"));
    EXPECT_THAT(o.output, HasSubstr("random"));
    EXPECT_THAT(o.output, ::testing::Not(HasSubstr("infeasible")));
    // The random placement uses chiplets only: the ring_host supports no op.
    const std::string random = read_file(out / "placement_random.json");
    EXPECT_THAT(random, HasSubstr("\"chip"));
    EXPECT_THAT(random, ::testing::Not(HasSubstr("\"host\"")));
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
