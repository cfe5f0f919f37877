// The same inputs and seed give the same bytes (issue 29): a study with seeded and profiling
// placers run twice, and a sweep run at -j 1 and at -j 2, with --deterministic (which leaves
// the wall-clock fields out) write byte-identical files: results, placements, traces, the
// resolved study, the sweep's results and manifest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::testing {
namespace {

namespace fs = std::filesystem;

// Every regular file below `dir`, by its path relative to `dir`, with its bytes; the workers'
// logs (log.txt: progress lines with wall times, not results) are left out.
std::map<std::string, std::string> files_below(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (entry.is_regular_file() && entry.path().filename() != "log.txt")
            files[fs::relative(entry.path(), dir).string()] = read_file(entry.path());
    }
    return files;
}

void expect_same_files(const fs::path& a, const fs::path& b) {
    const auto first = files_below(a);
    const auto second = files_below(b);
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(first.size(), second.size());
    for (const auto& [name, bytes] : first) {
        const auto it = second.find(name);
        ASSERT_NE(it, second.end()) << name << " is missing from the second run";
        EXPECT_TRUE(bytes == it->second) << name << " differs between the runs";
    }
}

const std::string kStudy = std::string(HETSIM_SOURCE_DIR) + "/configs/studies/default.yaml";
// Exact, seeded, profiling and list-scheduling placers, each stopped by a budget in work.
const std::string kPlacers =
    "--set workload.layers=1 --set 'placers=[lee2022.als, heft, random, mcmc:samples=40, "
    "baechi.m_sct, tarnawski.dp]'";

TEST(Determinism, AStudyRunTwiceWritesTheSameBytes) {
    TempDir dir;
    for (const char* run : {"a", "b"}) {
        const Outcome o =
            run_hetsim("run " + kStudy + " " + kPlacers + " --deterministic --trace " + "--out " +
                       (dir.path() / run).string());
        ASSERT_EQ(o.exit_code, 0) << o.output;
    }
    expect_same_files(dir.path() / "a", dir.path() / "b");
    // The wall-clock fields are what the flag leaves out.
    const std::string csv = read_file(dir.path() / "a" / "results.csv");
    EXPECT_THAT(csv, ::testing::HasSubstr(",1,,0,des,"));  // speedup 1, no placer time, 0 runs
    const std::string results = read_file(dir.path() / "a" / "results.json");
    EXPECT_THAT(results, ::testing::Not(::testing::HasSubstr("wall_s")));
    // Stats are JSON numbers where they hold numbers, text otherwise.
    const auto doc = nlohmann::json::parse(results);
    bool checked = false;
    for (const auto& row : doc["rows"]) {
        if (row["placer"] != "tarnawski.dp")
            continue;
        EXPECT_TRUE(row["stats"]["groups"].is_number_integer()) << row["stats"];
        EXPECT_TRUE(row["stats"]["max_load"].is_number_float()) << row["stats"];
        checked = true;
    }
    EXPECT_TRUE(checked);
}

// The chiplet placers too: their searches stop on sample and node budgets, and mcm.bound's DP
// time is a wall-clock stat (dp_wall_s), out of its summary.
TEST(Determinism, AChipletStudyRunTwiceWritesTheSameBytes) {
    const std::string study = std::string(HETSIM_SOURCE_DIR) + "/configs/studies/mcm_small.yaml";
    TempDir dir;
    for (const char* run : {"a", "b"}) {
        const Outcome o = run_hetsim(
            "run " + study +
            " --set workload.layers=1 --set 'placers=[mcm.greedy, mcm.random:samples=20, "
            "mcm.sa:samples=20, mcm.optimal:nodes=200, mcm.bound]' --deterministic --out " +
            (dir.path() / run).string());
        ASSERT_EQ(o.exit_code, 0) << o.output;
    }
    expect_same_files(dir.path() / "a", dir.path() / "b");
    const std::string results = read_file(dir.path() / "a" / "results.json");
    EXPECT_THAT(results, ::testing::Not(::testing::HasSubstr("wall_s")));
    EXPECT_THAT(results, ::testing::HasSubstr("bound: throughput <="));
}

TEST(Determinism, ASweepAtOneAndTwoJobsWritesTheSameBytes) {
    TempDir dir;
    const fs::path sweep =
        dir.write("s.yaml", "sweep: d\nstudy: " + kStudy +
                                "\naxes:\n  workload.seq_len: [8, 16]\n"
                                "  placers: [[heft, random], [peft, 'mcmc:samples=20']]\n");
    for (const auto& [jobs, out] : {std::pair{"1", "j1"}, std::pair{"2", "j2"}}) {
        const Outcome s = run_hetsim("sweep " + sweep.string() + " -j " + jobs +
                                     " --deterministic --out " + (dir.path() / out).string());
        ASSERT_EQ(s.exit_code, 0) << s.output;
    }
    expect_same_files(dir.path() / "j1", dir.path() / "j2");
}

}  // namespace
}  // namespace hetsim::testing
