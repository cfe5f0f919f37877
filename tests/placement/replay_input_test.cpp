// `replay:<file>` on a path that is no placement file hetsim can read ends as one line naming
// the file, exit 2: a directory and /proc/self/mem used to escape as "internal error:
// basic_filebuf::underflow error reading the file" (exit 1), a FIFO blocked the run forever,
// and a file of gigabytes was read whole before the JSON parser said anything.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/fixtures/cli_fixtures.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const char* kGraph = R"({"name": "one",
 "tensors": [{"name": "x", "shape": [1, 4096], "kind": "input"}, {"name": "a", "shape": [1, 4096]}],
 "ops": [{"name": "A", "type": "Relu", "inputs": ["x"], "outputs": ["a"]}]})";

// Runs a study of kGraph whose one placer replays `placement`, under a time limit (a hang is
// exit 124, not a stalled test).
hetsim::testing::Outcome run_replay(const hetsim::testing::TempDir& dir,
                                    const std::string& placement) {
    dir.write("g.json", kGraph);
    const fs::path study = dir.write(
        "s.yaml", fmt::format("study: s\nplatform: {}/configs/platforms/zynq_silentpim.yaml\n"
                              "workload: {{json: g.json}}\nsamples: 1\n"
                              "baseline: single:CPU_S\nplacers: [replay:{}]\n",
                              HETSIM_SOURCE_DIR, placement));
    return hetsim::testing::run_command(fmt::format("timeout 60 {} run {} --out {}", HETSIM_BINARY,
                                                    study.string(), (dir.path() / "out").string()));
}

void expect_refused(const hetsim::testing::TempDir& dir, const std::string& placement,
                    const std::string& message) {
    const auto out = run_replay(dir, placement);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
    EXPECT_THAT(out.output, HasSubstr(message));
    EXPECT_FALSE(fs::exists(dir.path() / "out" / "results.json"));
}

const std::string kExpected = "expected a placement_<placer>.json written by hetsim";

TEST(ReplayInput, ADirectoryIsRefused) {
    hetsim::testing::TempDir dir;
    expect_refused(dir, dir.path().string(),
                   dir.path().string() + ": is a directory, " + kExpected);
}

TEST(ReplayInput, AFifoIsRefusedWithoutBlocking) {
    hetsim::testing::TempDir dir;
    const fs::path fifo = dir.path() / "p.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_refused(dir, fifo.string(),
                   fifo.string() + ": is a FIFO (named pipe), not a regular file, " + kExpected);
}

TEST(ReplayInput, AFileThatCannotBeReadIsRefused) {
    if (!fs::exists("/proc/self/mem"))
        GTEST_SKIP() << "no /proc";
    hetsim::testing::TempDir dir;
    expect_refused(dir, "/proc/self/mem",
                   "/proc/self/mem: cannot read the file (Input/output error), " + kExpected);
}

TEST(ReplayInput, AFileAboveTheLimitIsRefusedBeforeItIsRead) {
    hetsim::testing::TempDir dir;
    // Sparse: no disk space is used, and nothing is read.
    const fs::path big = dir.path() / "p.json";
    std::ofstream(big).put('{');
    fs::resize_file(big, std::uintmax_t{5} << 30);
    expect_refused(dir, big.string(),
                   big.string() +
                       ": is 5368709120 bytes (5.0 GiB), more than the 1.0 GiB "
                       "limit hetsim reads, " +
                       kExpected);
}

}  // namespace
