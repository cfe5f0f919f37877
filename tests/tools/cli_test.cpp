// The `hetsim` command end to end: outputs of a run, the trace structure, and the exit code
// 2 + one clear message (no partial output) for each kind of bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "tests/fixtures/cli_fixtures.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using hetsim::testing::Outcome;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;

const std::string kPlatform =
    std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/zynq_silentpim.yaml";

std::string study_with(const std::string& platform, const std::string& extra = "",
                       const std::string& workload = "{ model: bert, layers: 1, seq_len: 8 }") {
    return "study: t\nplatform: " + platform + "\nworkload: " + workload +
           "\nevaluator: des\nsamples: 2\nbaseline: single:CPU_S\n"
           "placers: [priority:PIM,CPU_P,CPU_S]\n" +
           extra;
}

std::string read(const fs::path& p) {
    return hetsim::testing::read_file(p);
}

TEST(Cli, RunWritesEveryOutput) {
    TempDir dir;
    auto study = dir.write("s.yaml", study_with(kPlatform));
    auto out = dir.path() / "out";
    Outcome o = run_hetsim("run " + study.string() + " --trace --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("single:CPU_S"));
    EXPECT_THAT(o.output, HasSubstr("priority:PIM,CPU_P,CPU_S"));
    const std::string csv = read(out / "results.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n'))
                  .rfind("study,point,placer,objective,latency_s,throughput_per_s,speedup,"
                         "placer_time_s,profile_runs,evaluator",
                         0),
              0u);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);  // header + 2 placers
    auto results = nlohmann::json::parse(read(out / "results.json"));
    ASSERT_EQ(results["rows"].size(), 2u);
    EXPECT_DOUBLE_EQ(results["rows"][0]["speedup"].get<double>(), 1.0);
    EXPECT_GT(results["rows"][0]["latency_s"].get<double>(), 0.0);
    EXPECT_TRUE(fs::exists(out / "placement_single_CPU_S.json"));
    EXPECT_TRUE(fs::exists(out / "placement_priority_PIM_CPU_P_CPU_S.json"));
    EXPECT_TRUE(fs::exists(out / "study.resolved.yaml"));
    EXPECT_TRUE(fs::exists(out / "single_CPU_S.trace.json"));
    for (const auto& entry : fs::directory_iterator(out)) {
        EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
    }
}

// `hetsim --version` prints the version and commit, and every output records the same: the
// results, the resolved study, the traces and a sweep's manifest.
TEST(Cli, VersionIsRecordedInEveryOutput) {
    const Outcome v = run_hetsim("--version");
    ASSERT_EQ(v.exit_code, 0) << v.output;
    const std::regex line(
        R"(hetsim (\d+\.\d+(\.\d+)?) \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)\n)");
    std::smatch m;
    ASSERT_TRUE(std::regex_match(v.output, m, line)) << v.output;
    const std::string version = m[1], commit = m[3];

    TempDir dir;
    auto study = dir.write("s.yaml", study_with(kPlatform));
    auto out = dir.path() / "out";
    ASSERT_EQ(run_hetsim("run " + study.string() + " --trace --out " + out.string()).exit_code, 0);
    const auto results = nlohmann::json::parse(read(out / "results.json"));
    EXPECT_EQ(results["hetsim"]["version"], version);
    EXPECT_EQ(results["hetsim"]["commit"], commit);
    EXPECT_THAT(read(out / "study.resolved.yaml"), HasSubstr("# resolved by " + v.output));
    const auto trace = nlohmann::json::parse(read(out / "single_CPU_S.trace.json"));
    EXPECT_EQ(trace["otherData"]["hetsim_version"], version);
    EXPECT_EQ(trace["otherData"]["hetsim_commit"], commit);

    auto sweep = dir.write(
        "w.yaml", "sweep: w\nstudy: " + study.string() + "\naxes:\n  workload.seq_len: [8]\n");
    ASSERT_EQ(
        run_hetsim("sweep " + sweep.string() + " --out " + (dir.path() / "w").string()).exit_code,
        0);
    const auto manifest = nlohmann::json::parse(read(dir.path() / "w" / "sweep.json"));
    EXPECT_EQ(manifest["hetsim"]["version"], version);
    EXPECT_EQ(manifest["hetsim"]["commit"], commit);
}

// Structure of a real trace: a process/thread name for every track, slices never overlap on
// one track, timestamps monotonic per track, and every flow has both ends on existing slices.
TEST(Cli, TraceOfARealRunIsWellFormed) {
    TempDir dir;
    auto study = dir.write("s.yaml", study_with(kPlatform));
    auto out = dir.path() / "out";
    ASSERT_EQ(run_hetsim("run " + study.string() + " --trace --out " + out.string()).exit_code, 0);
    auto doc = nlohmann::json::parse(read(out / "priority_PIM_CPU_P_CPU_S.trace.json"));
    const auto& events = doc["traceEvents"];
    std::map<int, std::string> process_names;
    std::map<std::pair<int, int>, std::string> thread_names;
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
    std::map<long long, std::vector<std::pair<std::string, double>>> flow_phases;
    for (const auto& e : events) {
        const std::string ph = e["ph"];
        if (ph == "M" && e["name"] == "process_name")
            process_names[e["pid"]] = e["args"]["name"];
        if (ph == "M" && e["name"] == "thread_name") {
            thread_names[{e["pid"], e["tid"]}] = e["args"]["name"];
        }
        if (ph == "X")
            slices[{e["pid"], e["tid"]}].emplace_back(e["ts"], e["dur"]);
        if (ph == "s" || ph == "f")
            flow_phases[e["id"].get<long long>()].emplace_back(ph, e["ts"].get<double>());
    }
    EXPECT_TRUE(std::any_of(process_names.begin(), process_names.end(),
                            [](const auto& p) { return p.second == "pim"; }));
    EXPECT_TRUE(std::any_of(process_names.begin(), process_names.end(),
                            [](const auto& p) { return p.second == "dma"; }));
    ASSERT_FALSE(slices.empty());
    for (const auto& [track, list] : slices) {
        EXPECT_TRUE(process_names.count(track.first)) << "unnamed process " << track.first;
        EXPECT_TRUE(thread_names.count(track)) << "unnamed thread";
        for (std::size_t i = 1; i < list.size(); ++i) {
            EXPECT_LE(list[i - 1].first, list[i].first) << "timestamps go back on a track";
            EXPECT_LE(list[i - 1].first + list[i - 1].second, list[i].first + 1e-6)
                << "slices overlap on a track";
        }
    }
    ASSERT_FALSE(flow_phases.empty());
    // Each flow: one start and one end, and the arrow never points back in time.
    for (auto [id, phases] : flow_phases) {
        std::sort(phases.begin(), phases.end(), std::greater<>());
        ASSERT_EQ(phases.size(), 2u) << "flow " << id;
        EXPECT_EQ(phases[0].first, "s");
        EXPECT_EQ(phases[1].first, "f");
        EXPECT_LE(phases[0].second, phases[1].second) << "flow " << id;
    }
}

// Writes `study_text` into `dir` and runs it with --out <dir>/out.
Outcome run_study(const TempDir& dir, const std::string& study_text) {
    const fs::path study = dir.write("s.yaml", study_text);
    return run_hetsim("run " + study.string() + " --out " + (dir.path() / "out").string());
}

TEST(Cli, FlowListPriorityKeepsItsDevices) {
    TempDir dir;
    const auto out = dir.path() / "out";
    const Outcome o = run_study(dir, "study: t\nplatform: " + kPlatform +
                                         "\nworkload: {model: bert, layers: 1, seq_len: 8}\n"
                                         "evaluator: analytic\nbaseline: single:CPU_S\n"
                                         "placers: [priority:CPU_P,PIM,CPU_S, random]\n");
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("priority:CPU_P,PIM,CPU_S"));
    EXPECT_THAT(o.output, HasSubstr("random"));
    const std::string csv = read(out / "results.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header + baseline + 2 placers
}

// The same CPU and one of its accelerators: every memory pair is linked, so Algorithm 1
// applies; lee2022.als finds the host CPU (CPU0) and the GPU by role, profiles with DES runs
// and offloads, beating the CPU alone (its DP minimises the sum of task times, which bounds
// the dataflow latency; CPU0 alone runs one task at a time either way).
TEST(Cli, Lee2022AlsRunsOnAPcieAcceleratorOfTheHost) {
    TempDir dir;
    const std::string platform =
        read(fs::path(HETSIM_SOURCE_DIR) / "configs/platforms/pcie_accelerators.yaml");
    // Keep cpu, acc0 and pcie0: cut the file from acc1 to pcie0, and after pcie0.
    const auto acc1 = platform.find("  acc1:");
    const auto pcie0 = platform.find("  pcie0:");
    const auto pcie1 = platform.find("  pcie1:");
    ASSERT_NE(acc1, std::string::npos);
    ASSERT_NE(pcie1, std::string::npos);
    auto p =
        dir.write("one.yaml", platform.substr(0, acc1) + platform.substr(pcie0, pcie1 - pcie0));
    const auto out = dir.path() / "out";
    const Outcome o = run_study(dir, "study: t\nplatform: " + p.string() +
                                         "\nworkload: {model: bert, layers: 1, seq_len: 8}\n"
                                         "evaluator: des\nbaseline: single:CPU0\n"
                                         "placers: [lee2022.als]\n");
    ASSERT_EQ(o.exit_code, 0) << o.output;
    auto results = nlohmann::json::parse(read(out / "results.json"));
    ASSERT_EQ(results["rows"].size(), 2u);
    EXPECT_EQ(results["rows"][1]["placer"], "lee2022.als");
    EXPECT_LT(results["rows"][1]["latency_s"].get<double>(),
              results["rows"][0]["latency_s"].get<double>());
    EXPECT_GT(results["rows"][1]["profile_runs"].get<int>(), 5);  // 5 node runs + edge runs
    const auto placement = nlohmann::json::parse(read(out / "placement_lee2022.als.json"));
    EXPECT_THAT(placement.dump(), HasSubstr("ACC0"));
}

TEST(Cli, PointsRunEveryCombination) {
    TempDir dir;
    auto study = dir.write("s.yaml", study_with(kPlatform,
                                                "points: { workload.seq_len: [8, 16], "
                                                "workload.layers: [1, 2] }\n"));
    auto out = dir.path() / "out";
    Outcome o = run_hetsim("run " + study.string() + " --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("[seq_len=8,layers=1]"));
    EXPECT_THAT(o.output, HasSubstr("[seq_len=16,layers=2]"));
    const std::string csv = read(out / "results.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 4 * 2);  // 4 points x 2 placers
    EXPECT_THAT(csv, HasSubstr("\"seq_len=16,layers=1\""));
    EXPECT_TRUE(fs::exists(out / "placement_seq_len_16_layers_2_single_CPU_S.json"));
    auto results = nlohmann::json::parse(read(out / "results.json"));
    ASSERT_EQ(results["rows"].size(), 8u);
    // A longer sequence costs more on the same placer.
    EXPECT_LT(results["rows"][0]["latency_s"].get<double>(),
              results["rows"][4]["latency_s"].get<double>());
}

TEST(Cli, ListsAndInspects) {
    Outcome placers = run_hetsim("list placers");
    EXPECT_EQ(placers.exit_code, 0);
    for (const char* name : {"single", "priority", "random", "exhaustive"}) {
        EXPECT_THAT(placers.output, HasSubstr(name));
    }
    // Grouped by family, each under a header; an old name says it is going.
    EXPECT_EQ(placers.output.rfind("classic — ", 0), 0U) << placers.output;
    for (const char* family : {"\nlee2022 — ", "\ntarnawski — ", "\nmcm — "})
        EXPECT_THAT(placers.output, HasSubstr(family));
    EXPECT_THAT(placers.output, HasSubstr("  tarnawski.greedy "));
    EXPECT_THAT(placers.output,
                HasSubstr("(old name greedy: accepted with a warning until the next release)"));
    // A split solver's arguments, printed from their declarations.
    EXPECT_THAT(placers.output,
                HasSubstr("tarnawski.latency[:rounds=N,patience=N,orders=N,contiguous=0|1,dp=0|1,"
                          "both=0|1]"));
    EXPECT_THAT(placers.output,
                HasSubstr("    q=N  contiguous subgraphs per accelerator; an integer in 1..64, "
                          "default 1"));
    Outcome devices = run_hetsim("list devices");
    for (const char* name : {"cpu", "silent_pim", "dma"}) {
        EXPECT_THAT(devices.output, HasSubstr(name));
    }
    Outcome models = run_hetsim("list models");
    for (const char* name : {"bert", "roberta", "gpt2"})
        EXPECT_THAT(models.output, HasSubstr(name));
    Outcome ops = run_hetsim("list ops");
    EXPECT_EQ(ops.exit_code, 0);
    EXPECT_THAT(ops.output, HasSubstr("\nReshape" + std::string(17, ' ') + " view\n"));
    EXPECT_THAT(ops.output, HasSubstr("\nLSTM" + std::string(20, ' ') + " recurrent\n"));
    Outcome inspect = run_hetsim("inspect bert --set seq_len=32");
    EXPECT_EQ(inspect.exit_code, 0);
    EXPECT_THAT(inspect.output, HasSubstr("seq_len=32"));
    EXPECT_THAT(inspect.output, HasSubstr("MatMul"));
    EXPECT_THAT(inspect.output, HasSubstr("total FLOPs"));
}

// --- bad input: exit code 2, one message naming the file and YAML path, no output files ---

void expect_input_error(const TempDir& dir, const fs::path& study, const std::string& expected,
                        const std::string& extra_args = "") {
    auto out = dir.path() / "never";
    Outcome o = run_hetsim("run " + study.string() + " --out " + out.string() + " " + extra_args);
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("hetsim: error: "));
    EXPECT_THAT(o.output, HasSubstr(expected));
    EXPECT_FALSE(fs::exists(out)) << "partial output written";
    EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << o.output;
}

// pcie_accelerators links each accelerator to the host only, so a copy between two of them is
// staged through host memory and costs what earlier copies left: lee2022's DA edges (one link,
// one fixed cost per copy, §3.2.1) cannot describe it, and lee2022.als says so.
TEST(CliErrors, Lee2022AlsRefusesAcceleratorsWithoutADirectLink) {
    TempDir dir;
    auto study = dir.write("s.yaml", "study: t\nplatform: " + std::string(HETSIM_SOURCE_DIR) +
                                         "/configs/platforms/pcie_accelerators.yaml\n"
                                         "workload: {model: bert, layers: 1, seq_len: 8}\n"
                                         "evaluator: analytic\nbaseline: single:CPU0\n"
                                         "placers: [lee2022.als]\n");
    expect_input_error(dir, study,
                       "lee2022.als: platform 'pcie_accelerators' has no direct link between "
                       "memories 'acc0' and 'acc1'; lee2022's DA edges (§3.2.1) need every copy "
                       "to cross one link at a fixed cost");
}

TEST(CliErrors, UnknownKeySuggestsTheKnownOne) {
    TempDir dir;
    auto study = dir.write("s.yaml", "study: t\nplatform: " + kPlatform +
                                         "\nworkload: {model: bert}\nplacer: [random]\n");
    expect_input_error(dir, study, "s.yaml:4");
    expect_input_error(dir, study, "unknown key 'placer' (did you mean 'placers'?)");
}

std::string platform_text(const std::string& cpu_clock, const std::string& fwd_bandwidth) {
    return "name: p\ndispatch: sequential\nhost: cpu\ncomponents:\n"
           "  cpu:\n    type: cpu\n    devices: {CPU_S: serial, CPU_P: parallel}\n"
           "    cores: 4\n    clock: " +
           cpu_clock +
           "\n    flops_per_cycle: 2\n"
           "    gemm_n_half: 9\n    l1d: 32 KiB\n    l2: 1 MiB\n"
           "    dram_bandwidth: 4 GB/s\n    dram_bandwidth_all_cores: 8 GB/s\n"
           "    op_overhead: 1 us\n    fork_join_overhead: 10 us\n    memory: 2 GiB\n"
           "    convert_bandwidth: 2 GB/s\n    convert_overhead: 1 us\n"
           "  pim:\n    type: silent_pim\n    device: PIM\n    memspec: ddr4-2400\n"
           "    offload_overhead: 2 us\n    memory: 4 GiB\n"
           "  dma:\n    type: dma\n    endpoints: [cpu, pim]\n"
           "    forward: {bandwidth: " +
           fwd_bandwidth +
           ", latency: 5 us}\n"
           "    backward: {bandwidth: 1 GB/s, latency: 5 us}\n    convert_on: cpu\n";
}

// Writes p.yaml (platform_text) and s.yaml (a study on it) into `dir`; returns s.yaml.
fs::path write_study_on_platform(const TempDir& dir, const std::string& cpu_clock,
                                 const std::string& fwd_bandwidth) {
    auto platform = dir.write("p.yaml", platform_text(cpu_clock, fwd_bandwidth));
    return dir.write("s.yaml", study_with(platform.string()));
}

TEST(CliErrors, TheTestPlatformTextIsValid) {
    TempDir dir;
    auto study = write_study_on_platform(dir, "1.5 GHz", "2.5 GB/s");
    EXPECT_EQ(
        run_hetsim("run " + study.string() + " --out " + (dir.path() / "o").string()).exit_code, 0);
}

TEST(CliErrors, MissingUnitNamesThePath) {
    TempDir dir;
    auto study = write_study_on_platform(dir, "1.5", "2.5 GB/s");
    expect_input_error(dir, study, "p.yaml:9: components.cpu.clock: expected a frequency");
}

TEST(CliErrors, WrongUnitNamesThePath) {
    TempDir dir;
    auto study = write_study_on_platform(dir, "5 us", "2.5 GB/s");
    expect_input_error(dir, study, "components.cpu.clock");
}

TEST(CliErrors, NegativeBandwidthIsRejected) {
    TempDir dir;
    auto study = write_study_on_platform(dir, "1.5 GHz", "-2.5 GB/s");
    expect_input_error(dir, study, "components.dma.forward.bandwidth: must be > 0");
}

TEST(CliErrors, CyclicGraphNamesTheCycle) {
    TempDir dir;
    dir.write("g.json", R"({"tensors": [
        {"name": "x", "shape": [1, 8], "kind": "input"},
        {"name": "a_out", "shape": [1, 8]}, {"name": "b_out", "shape": [1, 8]}],
      "ops": [{"name": "a", "type": "Add", "inputs": ["x", "b_out"], "outputs": ["a_out"]},
              {"name": "b", "type": "Relu", "inputs": ["a_out"], "outputs": ["b_out"]}]})");
    auto study = dir.write("s.yaml", study_with(kPlatform, "", "{ json: g.json }"));
    expect_input_error(dir, study, "has a cycle: ");
}

TEST(CliErrors, UnknownOpTypeInAJsonGraphNamesFileNodeAndType) {
    // Without the check the op would run at zero cost and the study would exit 0.
    TempDir dir;
    dir.write("g.json", R"({"tensors": [
        {"name": "x", "shape": [1, 8], "kind": "input"},
        {"name": "y", "shape": [1, 8]}, {"name": "z", "shape": [1, 8]}],
      "ops": [{"name": "act", "type": "Relu", "inputs": ["x"], "outputs": ["y"]},
              {"name": "mystery", "type": "Frobnicate", "inputs": ["y"], "outputs": ["z"]}]})");
    auto study = dir.write("s.yaml", study_with(kPlatform, "", "{ json: g.json }"));
    expect_input_error(dir, study,
                       "g.json: /ops/1/type: op 'mystery': unknown op type 'Frobnicate'");
}

TEST(CliErrors, AnOpNoDeviceSupportsIsNamed) {
    TempDir dir;
    // A platform with the PIM only: BERT's embedding Gather has nowhere to run.
    auto platform = dir.write(
        "p.yaml",
        "name: pim_only\nhost: pim\ncomponents:\n  pim:\n    type: silent_pim\n    device: PIM\n"
        "    memspec: ddr4-2400\n    offload_overhead: 2 us\n    memory: 4 GiB\n");
    auto study = dir.write("s.yaml", "study: t\nplatform: " + platform.string() +
                                         "\nworkload: {model: bert, layers: 1}\n"
                                         "placers: [single:PIM]\n");
    expect_input_error(dir, study,
                       "op '/bert/embeddings/word_embeddings/Gather' (Gather) of graph 'bert' "
                       "cannot run on any device of platform 'pim_only'");
}

TEST(CliErrors, UnknownDeviceInAPlacerIsNamed) {
    TempDir dir;
    auto study = dir.write("s.yaml", study_with(kPlatform));
    expect_input_error(dir, study,
                       "names device 'CPU_Q', which platform 'zynq_silentpim' does not have",
                       "--set placers.0=priority:CPU_Q,PIM");
}

TEST(CliErrors, UnreadableFile) {
    TempDir dir;
    expect_input_error(dir, dir.path() / "missing.yaml", "missing.yaml: cannot read file");
}

TEST(CliErrors, BadOverride) {
    TempDir dir;
    auto study = dir.write("s.yaml", study_with(kPlatform));
    expect_input_error(dir, study, "expected PATH=VALUE", "--set workload.seq_len");
}

// A mistake in a --set value is reported against the --set argument, not against the line of
// the study or platform file whose value it replaced.
TEST(CliErrors, SetMistakesNameTheSetArgument) {
    const std::string study = std::string(HETSIM_SOURCE_DIR) + "/configs/studies/default.yaml";
    const auto expect_named = [&](const std::string& set, const std::string& message) {
        const Outcome o = run_hetsim("run " + study + " --set '" + set + "' --out /nonexistent/x");
        EXPECT_EQ(o.exit_code, 2) << o.output;
        EXPECT_THAT(o.output, HasSubstr("hetsim: error: --set " + set + ": " + message));
    };
    expect_named("workload.seqlen=32", "unknown key 'seqlen' (did you mean 'seq_len'?)");
    expect_named("workload.seq_len=abc", "expected an integer, got 'abc'");
    expect_named("objective=speed", "expected 'latency' or 'throughput', got 'speed'");
    expect_named("platform.components.dma.forward.bandwidth=fast", "expected a bandwidth");
    // A mistake of the file itself still names the file.
    TempDir dir;
    const auto bad = dir.write("s.yaml", study_with(kPlatform) + "objectiv: latency\n");
    const Outcome o = run_hetsim("run " + bad.string() + " --set workload.seq_len=8");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output, HasSubstr("s.yaml"));
    EXPECT_THAT(o.output, HasSubstr("unknown key 'objectiv'"));
}

// --- hetsim place ---------------------------------------------------------------------------

const std::string kTarnawski =
    std::string(HETSIM_SOURCE_DIR) + "/../shared/workloads/tarnawski2020";

TEST(CliPlace, DpOnThePapersWorkloadPrintsTable1AndWritesTheSplit) {
    const fs::path workload = fs::path(kTarnawski) / "throughput/op_bert_l-3_inference.json";
    if (!fs::exists(workload))
        GTEST_SKIP() << "shared tarnawski2020 workloads not present at " << kTarnawski;
    TempDir dir;
    const fs::path out = dir.path() / "split.json";
    const Outcome o =
        run_hetsim("place " + workload.string() + " --placer tarnawski.dp --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    // tarnawski2020 Table 1: BERT-3 inference, DP, 27.92.
    EXPECT_THAT(o.output, HasSubstr("placer tarnawski.dp (objective throughput): 27.9186"));
    const nlohmann::json split = nlohmann::json::parse(std::ifstream(out));
    EXPECT_EQ(split["cpus"].size(), 1u);
    EXPECT_EQ(split["fpgas"].size(), 3u);
    EXPECT_NEAR(split["objective"].get<double>(), 27.9186, 1e-4);
    std::size_t nodes = 0;
    for (const auto& device : split["cpus"])
        nodes += device["nodes"].size();
    for (const auto& device : split["fpgas"])
        nodes += device["nodes"].size();
    EXPECT_EQ(nodes, 235u);
}

TEST(CliPlace, StudyYamlIsConvertedSolvedAndSimulated) {
    TempDir dir;
    const fs::path study =
        dir.write("s.yaml", "study: t\nplatform: " + std::string(HETSIM_SOURCE_DIR) +
                                "/configs/platforms/pcie_accelerators.yaml\n"
                                "workload: {model: bert, layers: 1, seq_len: 16}\n"
                                "objective: throughput\nevaluator: des\n"
                                "baseline: single:CPU0\nplacers: [tarnawski.dpl]\n");
    const Outcome o = run_hetsim("place " + study.string() + " --placer tarnawski.dpl");
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("4 accelerators"));
    EXPECT_THAT(o.output, HasSubstr("4 CPUs"));
    EXPECT_THAT(o.output, HasSubstr("simulated (des): latency"));
}

TEST(CliPlace, ReplicationOptionWritesReplicaCounts) {
    // a -> b with p^acc 6 and 2, transfer 1, m_a = 4: unreplicated {a} | {b} = max(7, 3) = 7;
    // App. C.2 with up to 3 replicas and B = 2: {a, b} on 3 accelerators,
    // 8/3 + (3-1)·4 / (3·2) = 4.
    TempDir dir;
    const fs::path w = dir.write("w.json", R"({"maxSizePerFPGA": 100, "maxFPGAs": 3,
        "maxCPUs": 0, "nodes": [
          {"id": 1, "supportedOnFpga": 1, "cpuLatency": 60, "fpgaLatency": 6,
           "isBackwardNode": 0, "size": 4},
          {"id": 2, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 2,
           "isBackwardNode": 0, "size": 0}],
        "edges": [{"sourceId": 1, "destId": 2, "cost": 1}]})");
    const fs::path out = dir.path() / "split.json";
    Outcome o = run_hetsim("place " + w.string() + " --placer tarnawski.dp --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("(objective throughput): 7 "));
    o = run_hetsim("place " + w.string() + " --placer tarnawski.dp:replicas=3,bandwidth=2 --out " +
                   out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    const nlohmann::json split = nlohmann::json::parse(std::ifstream(out));
    EXPECT_NEAR(split["objective"].get<double>(), 4.0, 1e-9);
    EXPECT_EQ(split["fpgas"][0]["replicas"], 3);
    EXPECT_EQ(split["fpgas"][0]["nodes"], nlohmann::json::array({1, 2}));
    EXPECT_EQ(split["fpgas"][1]["replicas"], 0);
    o = run_hetsim("place " + w.string() + " --placer tarnawski.dp:replicas=x");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output, HasSubstr("placer 'tarnawski.dp': replicas=x: expected an integer in "
                                    "1..1024 (usage: tarnawski.dp[:replicas=N,"));
}

TEST(CliPlaceErrors, UnknownPlacerSuggestsTheKnownOne) {
    TempDir dir;
    const fs::path w = dir.write("w.json", R"({"maxSizePerFPGA": 10, "maxFPGAs": 1, "maxCPUs": 1,
        "nodes": [{"id": 1, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1,
                   "isBackwardNode": 0, "size": 1}], "edges": []})");
    const Outcome o = run_hetsim("place " + w.string() + " --placer tarnawski.dq");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output,
                HasSubstr("unknown placer 'tarnawski.dq' (did you mean 'tarnawski.dp'?)"));
}

TEST(CliPlaceErrors, BadWorkloadFieldIsNamed) {
    TempDir dir;
    const fs::path w = dir.write("w.json", R"({"maxSizePerFPGA": 10, "maxFPGAs": 1, "maxCPUs": 1,
        "nodes": [{"id": 1, "supportedOnFpga": 1, "cpuLatency": "fast", "fpgaLatency": 1,
                   "isBackwardNode": 0, "size": 1}], "edges": []})");
    const Outcome o = run_hetsim("place " + w.string() + " --placer tarnawski.dp");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output, HasSubstr("/nodes/0/cpuLatency"));
}

TEST(CliPlaceErrors, BadObjectiveIsRejected) {
    TempDir dir;
    const fs::path w = dir.write("w.json", R"({"maxSizePerFPGA": 10, "maxFPGAs": 1, "maxCPUs": 1,
        "nodes": [{"id": 1, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1,
                   "isBackwardNode": 0, "size": 1}], "edges": []})");
    const Outcome o =
        run_hetsim("place " + w.string() + " --placer tarnawski.dp --objective speed");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output, HasSubstr("expected 'throughput' or 'latency', got 'speed'"));
}

}  // namespace
