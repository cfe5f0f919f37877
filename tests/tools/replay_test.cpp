// `replay:<file>` and the placement file (issue 24 items 1 and 3): every placement of the
// default study replays to the same latency and throughput, to the picosecond; a schedule in
// the file is followed, its planned makespan printed beside the simulated one, and late ops
// marked in the trace; a file that does not fit the study is exit 2 with one line naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/fixtures/cli_fixtures.hpp"

namespace {

namespace fs = std::filesystem;
using hetsim::testing::read_file;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;

const std::string kSource = HETSIM_SOURCE_DIR;

TEST(Replay, EveryPlacementOfTheDefaultStudyReplaysToThePicosecond) {
    TempDir dir;
    const fs::path first = dir.path() / "first";
    const auto run =
        run_hetsim("run " + kSource + "/configs/studies/default.yaml --out " + first.string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto original = nlohmann::json::parse(read_file(first / "results.json"))["rows"];
    std::vector<std::string> files;
    for (const auto& row : original) {
        std::string name = row["placer"].get<std::string>();
        for (char& c : name) {
            if (c == ':' || c == ',')
                c = '_';
        }
        files.push_back((first / ("placement_" + name + ".json")).string());
        ASSERT_TRUE(fs::exists(files.back())) << files.back();
    }
    std::string study = "study: replayed\nplatform: " + kSource +
                        "/configs/platforms/zynq_silentpim.yaml\n"
                        "workload: { model: bert, seq_len: 16 }\nobjective: latency\n"
                        "evaluator: des\nseed: 1\nsamples: 8\nbaseline: replay:" +
                        files.front() + "\nplacers:\n";
    for (const auto& f : files)
        study += "  - replay:" + f + "\n";
    const fs::path second = dir.path() / "second";
    const auto replay =
        run_hetsim("run " + dir.write("replay.yaml", study).string() + " --out " + second.string());
    ASSERT_EQ(replay.exit_code, 0) << replay.output;
    const auto replayed = nlohmann::json::parse(read_file(second / "results.json"))["rows"];
    ASSERT_EQ(replayed.size(), original.size());
    for (std::size_t i = 0; i < original.size(); ++i) {
        // The DES counts integer picoseconds, so equal doubles are equal picoseconds.
        EXPECT_EQ(replayed[i]["latency_s"].get<double>(), original[i]["latency_s"].get<double>())
            << original[i]["placer"];
        EXPECT_EQ(replayed[i]["throughput_per_s"].get<double>(),
                  original[i]["throughput_per_s"].get<double>())
            << original[i]["placer"];
        EXPECT_EQ(replayed[i]["ops_by_device"], original[i]["ops_by_device"]);
    }
}

// Two independent Relus on CPU_S and one on PIM's other side: x -> A, x -> B.
const char* kGraph = R"({"name": "two",
 "tensors": [{"name": "x", "shape": [1, 4096], "dtype": "float32", "kind": "input"},
             {"name": "a", "shape": [1, 4096], "dtype": "float32", "kind": "activation"},
             {"name": "b", "shape": [1, 4096], "dtype": "float32", "kind": "activation"}],
 "ops": [{"name": "A", "type": "Relu", "inputs": ["x"], "outputs": ["a"]},
         {"name": "B", "type": "Relu", "inputs": ["x"], "outputs": ["b"]}]})";

std::string placement_file(const std::string& order, const std::string& planned) {
    return R"({"placer": "hand", "ops": [{"op": "A", "device": "CPU_S"}, {"op": "B", "device": "CPU_S"}],
 "schedule": {"order": )" +
           order + planned + "}}";
}

// A study of kGraph on the Zynq whose one placer replays `placement_text`, in its own
// folder below the test's temporary directory (several may share one test).
struct Study {
    TempDir dir;
    fs::path root;
    fs::path yaml;
    explicit Study(const std::string& placement_text) : Study(placement_text, nullptr) {}
    Study(const std::string& placement_text, const Study* beside)
        : root((beside != nullptr ? beside->dir.path() : dir.path()) /
               fmt::format("study{}", counter()++)) {
        fs::create_directories(root);
        write("g.json", kGraph);
        write("p.json", placement_text);
        yaml = write("s.yaml", "study: s\nplatform: " + kSource +
                                   "/configs/platforms/zynq_silentpim.yaml\n"
                                   "workload: {json: g.json}\nevaluator: des\nsamples: 1\n"
                                   "baseline: single:CPU_S\nplacers: [replay:" +
                                   (root / "p.json").string() + "]\n");
    }
    fs::path write(const std::string& name, const std::string& text) const {
        std::ofstream(root / name) << text;
        return root / name;
    }
    fs::path out() const { return root / "out"; }
    hetsim::testing::Outcome run(const std::string& extra = "") const {
        return run_hetsim("run " + yaml.string() + " --out " + out().string() + extra);
    }
    static int& counter() {
        static int n = 0;
        return n;
    }
};

double start_in_trace(const fs::path& trace, const std::string& slice, std::string* category) {
    const auto doc = nlohmann::json::parse(read_file(trace));
    for (const auto& e : doc["traceEvents"]) {
        if (e.value("ph", "") == "X" && e.value("name", "") == slice) {
            if (category != nullptr)
                *category = e.value("cat", "");
            return e["ts"].get<double>();
        }
    }
    return -1.0;
}

TEST(Replay, AScheduleIsFollowedItsPlanPrintedAndLateOpsMarked) {
    const Study study(placement_file(R"({"cpu": ["B", "A"], "pim": []})",
                                     R"(, "planned": {"ops": [
          {"op": "A", "start_s": 0.0, "finish_s": 1e-5},
          {"op": "B", "start_s": 1e-5, "finish_s": 2e-5}]})"));
    const auto out = study.run(" --trace");
    ASSERT_EQ(out.exit_code, 0) << out.output;
    EXPECT_THAT(out.output, HasSubstr(": planned makespan 20.00 us, simulated "));
    fs::path trace;
    for (const auto& e : fs::directory_iterator(study.out())) {
        if (e.path().filename().string().rfind("replay", 0) == 0 &&
            e.path().extension() == ".json" &&
            e.path().filename().string().find(".trace") != std::string::npos)
            trace = e.path();
    }
    ASSERT_FALSE(trace.empty());
    std::string category_a, category_b;
    const double a = start_in_trace(trace, "A", &category_a);
    const double b = start_in_trace(trace, "B", &category_b);
    ASSERT_GE(a, 0.0);
    ASSERT_GE(b, 0.0);
    EXPECT_LT(b, a);  // B first, as ordered, though A comes first in the graph
    EXPECT_EQ(category_a, "compute,late");  // planned at 0, ran after B
    EXPECT_EQ(category_b, "compute");       // planned at 10 us, ran at once
    // The file written for the replayed placer carries the same schedule.
    const auto written = nlohmann::json::parse(read_file(trace.parent_path() / "results.json"));
    EXPECT_DOUBLE_EQ(written["rows"][1]["planned_makespan_s"].get<double>(), 2e-5);
}

TEST(Replay, AFileThatDoesNotFitIsExit2NamingTheOpDeviceOrResource) {
    struct Case {
        std::string placement, message;
    };
    const std::vector<Case> cases = {
        {R"({"ops": [{"op": "A", "device": "CPU_S"}, {"op": "C", "device": "CPU_S"}]})",
         "ops[1]: op 'C' is not in graph 'two'"},
        {R"({"ops": [{"op": "A", "device": "CPU_S"}, {"op": "B", "device": "GPU"}]})",
         "ops[1].device: op 'B' is on device 'GPU', which platform 'zynq_silentpim' does not "
         "have"},
        {R"({"ops": [{"op": "A", "device": "CPU_S"}]})", "are not placed: 'B'"},
        {placement_file(R"({"cpu": ["B", "A"]})", ""),
         "schedule.order: no order for execution resource 'pim'"},
        {placement_file(R"({"cpu": ["B", "A"], "gpu": []})", ""),
         "schedule.order.gpu: platform 'zynq_silentpim' has no execution resource 'gpu'; it has "
         "cpu, pim"},
        {placement_file(R"({"cpu": ["B"], "pim": []})", ""), "the schedule leaves op 'A' out"},
    };
    for (const auto& c : cases) {
        const Study study(c.placement);
        const auto out = study.run();
        EXPECT_EQ(out.exit_code, 2) << out.output;
        EXPECT_THAT(out.output, HasSubstr(c.message));
        EXPECT_FALSE(fs::exists(study.out() / "results.json"));
    }
}

TEST(Replay, ARewrittenGraphIsPlacedRecordedAndReplayed) {
    // x, read by A and B, replicated per reader (sim/passes: replicate_input); A and B then
    // each read their own copy, x#0 and x#1.
    const Study study(R"({"placer": "hand",
 "rewrite": {"steps": [{"pass": "replicate_input", "args": {"tensor": "x"}}]},
 "ops": [{"op": "A", "device": "CPU_S"}, {"op": "B", "device": "CPU_P"}]})");
    const auto out = study.run();
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const fs::path dir = study.out();
    const auto results = nlohmann::json::parse(read_file(dir / "results.json"));
    const auto& row = results["rows"][1];
    EXPECT_EQ(row["rewritten_ops"].get<int>(), 2);
    EXPECT_EQ(row["rewrite"], nlohmann::json::array({"replicate_input"}));
    fs::path written;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("placement_replay", 0) == 0)
            written = e.path();
    }
    ASSERT_FALSE(written.empty());
    const auto file = nlohmann::json::parse(read_file(written));
    EXPECT_EQ(file["rewrite"]["steps"][0]["pass"], "replicate_input");
    EXPECT_EQ(file["rewrite"]["steps"][0]["args"]["tensor"], "x");
    EXPECT_EQ(file["rewrite"]["provenance"][1]["op"], "B");
    EXPECT_EQ(file["rewrite"]["provenance"][1]["from"], nlohmann::json::array({"B"}));
    // The written file replays to the same latency.
    const Study again(read_file(written), &study);
    const auto second = again.run();
    ASSERT_EQ(second.exit_code, 0) << second.output;
    const auto replayed = nlohmann::json::parse(read_file(again.out() / "results.json"));
    EXPECT_EQ(replayed["rows"][1]["latency_s"].get<double>(), row["latency_s"].get<double>());
    // A step that does not apply is exit 2 naming the file and the step.
    const Study bad(
        R"({"rewrite": {"steps": [{"pass": "replicate_input", "args": {"tensor": "a"}}]},
 "ops": [{"op": "A", "device": "CPU_S"}, {"op": "B", "device": "CPU_S"}]})",
        &study);
    const auto refused = bad.run();
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_THAT(refused.output, HasSubstr("p.json: rewrite: rewrite step 0: replicate_input: 'a' "
                                          "is not a graph input"));
}

}  // namespace
