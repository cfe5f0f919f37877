// Bad input to the JSON graph loader (sim/workloads/json_graph.*) ends as one line naming the
// file, exit 2 from the CLI: a path that is not a regular file (a FIFO used to block `hetsim
// inspect` and studies forever), a file above sim::kMaxInputFileBytes (5 GB used to be read for
// 10 s and end in std::bad_alloc), a graph without ops (used to simulate to "speedup 0.00x") and
// a key given twice in one object (nlohmann::json used to keep the last value silently).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "sim/atomic_file.hpp"
#include "sim/workloads/json_graph.hpp"
#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::sim::workloads {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const char* kOneOp = R"({"name": "g",
 "tensors": [{"name": "x", "shape": [1, 4], "kind": "input"}, {"name": "y", "shape": [1, 4]}],
 "ops": [{"name": "act", "type": "Relu", "inputs": ["x"], "outputs": ["y"]}],
 "outputs": ["y"]})";

std::string parse_error(const std::string& text) {
    try {
        (void)parse_json_graph(text, "g.json");
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

std::string load_error(const fs::path& file) {
    try {
        (void)load_json_graph(file.string());
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

// `hetsim <args>` under a time limit: a hang fails the test (exit 124) instead of stalling it.
hetsim::testing::Outcome run_bounded(const std::string& args) {
    return hetsim::testing::run_command(fmt::format("timeout 60 {} {}", HETSIM_BINARY, args));
}

void expect_one_line_exit_2(const hetsim::testing::Outcome& out, const std::string& text) {
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
    EXPECT_THAT(out.output, HasSubstr(text));
}

TEST(JsonGraphInput, AOneOpGraphLoads) {
    EXPECT_EQ(parse_json_graph(kOneOp, "g.json").op_count(), 1);
}

TEST(JsonGraphInput, AFifoIsRefusedWithoutBlocking) {
    hetsim::testing::TempDir dir;
    const fs::path fifo = dir.path() / "g.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    fs::create_symlink(fifo, dir.path() / "link.json");
    // The CLI first: it runs under a time limit, where a blocked open is exit 124.
    expect_one_line_exit_2(run_bounded("inspect " + fifo.string()),
                           "g.json: is a FIFO (named pipe), not a regular file");
    const fs::path study = dir.write(
        "s.yaml", fmt::format("study: s\nplatform: {}/configs/platforms/zynq_silentpim.yaml\n"
                              "workload: {{json: g.json}}\nsamples: 1\n"
                              "baseline: single:CPU_S\nplacers: [single:CPU_S]\n",
                              HETSIM_SOURCE_DIR));
    expect_one_line_exit_2(
        run_bounded(fmt::format("run {} --out {}", study.string(), (dir.path() / "out").string())),
        "s.yaml:3: workload.json: ");
    EXPECT_FALSE(fs::exists(dir.path() / "out" / "results.json"));
    EXPECT_EQ(load_error(fifo), fifo.string() +
                                    ": is a FIFO (named pipe), not a regular file, expected a JSON "
                                    "graph file");
    EXPECT_THAT(load_error(dir.path() / "link.json"), HasSubstr("link.json: is a FIFO"));
}

TEST(JsonGraphInput, ADirectoryAndADeviceAreRefused) {
    hetsim::testing::TempDir dir;
    EXPECT_EQ(load_error(dir.path()),
              dir.path().string() + ": is a directory, expected a JSON graph file");
    EXPECT_EQ(load_error("/dev/null"),
              "/dev/null: is a character device, not a regular file, expected a JSON graph file");
}

// A regular file whose read fails (EIO): it used to escape as basic_filebuf::underflow's
// exception, "internal error".
TEST(JsonGraphInput, AFileThatCannotBeReadIsRefusedWithTheReason) {
    if (!fs::exists("/proc/self/mem"))
        GTEST_SKIP() << "no /proc";
    hetsim::testing::TempDir dir;
    fs::create_symlink("/proc/self/mem", dir.path() / "mem.json");
    EXPECT_EQ(load_error(dir.path() / "mem.json"),
              (dir.path() / "mem.json").string() + ": cannot read file: Input/output error");
    expect_one_line_exit_2(run_bounded("inspect " + (dir.path() / "mem.json").string()),
                           "mem.json: cannot read file: Input/output error");
    EXPECT_EQ(
        load_error(dir.path() / "missing.json"),
        (dir.path() / "missing.json").string() + ": cannot read file: No such file or directory");
}

TEST(JsonGraphInput, AFileAboveTheLimitIsRefusedBeforeItIsRead) {
    hetsim::testing::TempDir dir;
    // Sparse, 5 GB as in the campaign: no disk space is used, and nothing is read.
    const fs::path big = dir.path() / "g.json";
    std::ofstream(big).put('{');
    fs::resize_file(big, std::uintmax_t{5} << 30);
    const std::string expected =
        "g.json: is 5368709120 bytes (5.0 GiB), more than the 1.0 GiB limit hetsim reads, "
        "expected a JSON graph file";
    EXPECT_THAT(load_error(big), HasSubstr(expected));
    expect_one_line_exit_2(run_bounded("inspect " + big.string()), expected);
}

// The largest shipped graphs are far below the limit.
TEST(JsonGraphInput, ShippedGraphsAreFarBelowTheLimit) {
    std::uintmax_t largest = 0;
    for (const char* folder : {"configs", "../shared/workloads"}) {
        const fs::path root = fs::path(HETSIM_SOURCE_DIR) / folder;
        if (!fs::exists(root))
            continue;
        for (const auto& entry : fs::recursive_directory_iterator(root)) {
            if (entry.is_regular_file() && entry.path().extension() == ".json")
                largest = std::max(largest, entry.file_size());
        }
    }
    EXPECT_GT(largest, 0U);
    EXPECT_LT(largest, sim::kMaxInputFileBytes / 1000);
}

TEST(JsonGraphInput, AGraphWithoutOpsIsRefused) {
    EXPECT_EQ(parse_error(R"({"name":"g","tensors":[],"ops":[],"outputs":[]})"),
              "g.json: /ops: the graph has no ops; a JSON graph needs at least one op");
    hetsim::testing::TempDir dir;
    const fs::path file =
        dir.write("empty.json", R"({"name":"g","tensors":[],"ops":[],"outputs":[]})");
    expect_one_line_exit_2(run_bounded("inspect " + file.string()),
                           "empty.json: /ops: the graph has no ops");
}

TEST(JsonGraphInput, AKeyGivenTwiceInOneObjectIsRefusedNamingItAndWhere) {
    const std::string tensors = R"("tensors": [{"name": "x", "shape": [1, 4], "kind": "input"},
                                               {"name": "y", "shape": [1, 4]}])";
    const std::string ops = R"("ops": [{"name": "act", "type": "Relu", "inputs": ["x"],
                                        "outputs": ["y"]}])";
    EXPECT_EQ(parse_error(R"({"name": "g", "name": "h", )" + tensors + ", " + ops + "}"),
              "g.json: /: key \"name\" is given twice; each key may appear once in an object");
    EXPECT_EQ(parse_error("{" + tensors + ", " + ops + R"(, "outputs": ["y"], "outputs": []})"),
              "g.json: /: key \"outputs\" is given twice; each key may appear once in an object");
    EXPECT_THAT(parse_error(R"({"tensors": [{"name": "x", "shape": [1, 4], "kind": "input"},
                                    {"name": "y", "shape": [1, 4], "shape": [2, 2]}], )" +
                            ops + "}"),
                HasSubstr("g.json: /tensors/1: key \"shape\" is given twice"));
    EXPECT_THAT(parse_error("{" + tensors + R"(, "ops": [{"name": "act", "type": "Relu",
                 "inputs": ["x"], "outputs": ["y"], "attrs": {"k": 1, "k": 2}}]})"),
                HasSubstr("g.json: /ops/0/attrs: key \"k\" is given twice"));
    // The same key in two objects is no duplicate.
    EXPECT_EQ(parse_error(kOneOp), "accepted");
    hetsim::testing::TempDir dir;
    const fs::path file =
        dir.write("dup.json", R"({"name": "g", "name": "h", )" + tensors + ", " + ops + "}");
    expect_one_line_exit_2(run_bounded("inspect " + file.string()),
                           "dup.json: /: key \"name\" is given twice");
}

TEST(JsonGraphInput, AttributesMustBeAnObject) {
    EXPECT_THAT(parse_error(R"({"tensors": [{"name": "x", "shape": [1, 4], "kind": "input"},
                                            {"name": "y", "shape": [1, 4]}],
                  "ops": [{"name": "act", "type": "Relu", "inputs": ["x"], "outputs": ["y"],
                           "attrs": [1, 2]}]})"),
                HasSubstr("g.json: /ops/0/attrs: expected an object of attribute values"));
}

}  // namespace
}  // namespace hetsim::sim::workloads
