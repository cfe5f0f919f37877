// `hetsim calibrate --fit` / `--check` (tools/app/fit.hpp): a fit recovers the constants that
// generated its measurements, writes the platform back with only the fitted numbers changed
// and tagged, predicts ratio rows, and refuses bad measurement files with one line naming the
// file, row and column. The shipped H100 platform is exactly what its fit command writes.
#include "tools/app/fit.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/config.hpp"
#include "sim/workloads/json_graph.hpp"
#include "tests/fixtures/cli_fixtures.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::app {
namespace {

namespace fs = std::filesystem;
using hetsim::testing::binary;
using hetsim::testing::read_file;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;

std::string platform_yaml(double compute_efficiency, double bandwidth_efficiency,
                          const std::string& kernel_latency, const std::string& pcie_bandwidth) {
    return fmt::format(R"(name: fit_test
host: cpu
components:
  cpu:
    type: cpu
    devices: {{CPU: serial}}
    cores: 1
    clock: 1 GHz
    flops_per_cycle: 8
    l1d: 32 KiB
    l2: 1 MiB
    dram_bandwidth: 10 GB/s
  gpu:
    type: gpu
    device: G
    sms: 8
    clock: 1 GHz
    fp32_flops_per_cycle_per_sm: 128
    memory_bandwidth: 200 GB/s
    compute_efficiency: {}   # [assumption] the starting value
    bandwidth_efficiency: {} # [assumption]
    kernel_latency: {}
    launch_overhead: 5 us    # [datasheet] not fitted by kernel rows
  link:
    type: pcie
    endpoints: [cpu, gpu]
    bandwidth: {}
    latency: 10 us
)",
                       compute_efficiency, bandwidth_efficiency, kernel_latency, pcie_bandwidth);
}

// One-op JSON graphs of GEMMs and Adds of several shapes in `dir`; returns their file names.
std::vector<std::string> write_graphs(const fs::path& dir) {
    std::vector<std::string> names;
    const std::vector<std::array<std::int64_t, 3>> gemms = {{64, 64, 64},       {256, 256, 256},
                                                            {1024, 1024, 1024}, {1, 2048, 2048},
                                                            {4096, 512, 8},     {300, 700, 90}};
    for (const auto& [m, k, n] : gemms) {
        const auto g = binary("MatMul", {m, k}, {k, n}, {m, n});
        const std::string name = fmt::format("mm_{}x{}x{}.json", m, k, n);
        std::ofstream(dir / name) << sim::workloads::write_json_graph(g.graph);
        names.push_back(name);
    }
    for (std::int64_t elements : {1024, 1 << 20, 1 << 24}) {
        const auto g =
            binary("Add", {elements}, {elements}, {elements}, {}, sim::TensorKind::input);
        const std::string name = fmt::format("add_{}.json", elements);
        std::ofstream(dir / name) << sim::workloads::write_json_graph(g.graph);
        names.push_back(name);
    }
    return names;
}

// Measurements the platform `truth` predicts exactly: kernel rows for every graph, and copies.
fs::path write_measurements(const TempDir& tmp, const std::string& truth_yaml) {
    const std::vector<std::string> graphs = write_graphs(tmp.path());
    std::string rows = "device,workload,knobs,scope,time_s\n";
    for (const auto& g : graphs)
        rows += fmt::format("G,{},,kernel,1\n", g);
    for (std::int64_t bytes : {4096, 1 << 20, 1 << 26})
        rows += fmt::format("G,copy,bytes={};direction=host_to_device,transfer,1\n", bytes);
    const fs::path placeholder = tmp.write("placeholder.csv", rows);
    const fs::path truth = tmp.write("truth.yaml", truth_yaml);
    const sim::Platform platform = sim::load_platform(truth.string());
    const MeasurementFile file = load_measurements(placeholder.string(), platform);
    std::string measured = "device,workload,knobs,scope,time_s\n";
    for (const Measurement& m : file.rows) {
        measured +=
            fmt::format("G,{},{},{},{:.17g}\n", m.workload, m.knobs, m.scope, predict(platform, m));
    }
    return tmp.write("measured.csv", measured);
}

TEST(CalibrateFit, RecoversTheConstantsThatGeneratedTheMeasurements) {
    register_all();
    TempDir tmp;
    const fs::path csv = write_measurements(tmp, platform_yaml(0.7, 0.8, "4 us", "12 GB/s"));
    const fs::path start = tmp.write("start.yaml", platform_yaml(0.95, 0.5, "1 us", "30 GB/s"));
    FitRequest request;
    request.platform_file = start.string();
    request.measurements_file = csv.string();
    request.out = (tmp.path() / "fitted.yaml").string();
    const FitReport report = fit_platform(request);
    std::map<std::string, FittedParameter> by_key;
    for (const auto& p : report.parameters)
        by_key[p.component + "." + p.key] = p;
    ASSERT_EQ(by_key.size(), 6u);  // 4 of the GPU, 2 of the link
    EXPECT_NEAR(by_key["gpu.compute_efficiency"].value, 0.7, 1e-4);
    EXPECT_NEAR(by_key["gpu.bandwidth_efficiency"].value, 0.8, 1e-4);
    EXPECT_NEAR(by_key["gpu.kernel_latency"].value, 4e-6, 1e-10);
    EXPECT_NEAR(by_key["link.bandwidth"].value, 12e9, 1e3);
    EXPECT_NEAR(by_key["link.latency"].value, 10e-6, 1e-10);
    // Kernel rows never see the host's launch cost: left as written, and said so.
    EXPECT_FALSE(by_key["gpu.launch_overhead"].fitted);
    EXPECT_THAT(fmt::format("{}", fmt::join(report.notes, "\n")),
                ::testing::HasSubstr("gpu.launch_overhead: no row depends on it"));
    EXPECT_LT(report.in_sample.max, 1e-6);
    ASSERT_TRUE(report.cross_validated.has_value());
    EXPECT_LT(report.cross_validated->max, 1e-3);  // every fold recovers the same truth

    // The written platform differs from the start only in the fitted values, each tagged
    // with the measurement file and its row count; it loads and predicts the measurements.
    const std::string fitted = read_file(tmp.path() / "fitted.yaml");
    EXPECT_THAT(fitted, ::testing::HasSubstr("compute_efficiency: 0.7    # [fit: measured.csv, "
                                             "12 rows] the starting value"));
    EXPECT_THAT(fitted, ::testing::HasSubstr("kernel_latency: 4 us # [fit: measured.csv, 12 "
                                             "rows]"));
    EXPECT_THAT(fitted, ::testing::HasSubstr("launch_overhead: 5 us    # [datasheet]"));
    const CheckReport check =
        check_platform((tmp.path() / "fitted.yaml").string(), csv.string(), "");
    EXPECT_LT(check.errors.max, 1e-3);
}

TEST(CalibrateFit, RatioRowsFitASpeedupBetweenTwoDevices) {
    register_all();
    TempDir tmp;
    write_graphs(tmp.path());
    // Only the GPU's compute efficiency and launch overhead are stated, so only they are free.
    const auto yaml = [](double efficiency, const std::string& launch) {
        std::string y = platform_yaml(efficiency, 0.8, "4 us", "12 GB/s");
        for (const std::string line :
             {"    bandwidth_efficiency: 0.8 # [assumption]\n", "    kernel_latency: 4 us\n"})
            y.erase(y.find(line), line.size());
        const std::string lo = "launch_overhead: 5 us";
        return y.replace(y.find(lo), lo.size(), "launch_overhead: " + launch);
    };
    const fs::path truth = tmp.write("truth.yaml", yaml(0.5, "7 us"));
    const sim::Platform platform = sim::load_platform(truth.string());
    // Each row: the CPU takes `speedup` times as long as the GPU for the same graph.
    std::string placeholder = "device,workload,scope,time_s\n";
    for (const char* g : {"mm_64x64x64.json", "mm_256x256x256.json", "mm_1024x1024x1024.json"})
        placeholder += fmt::format("G,{},compute,1\nCPU,{},compute,1\n", g, g);
    const MeasurementFile file =
        load_measurements(tmp.write("p.csv", placeholder).string(), platform);
    std::string rows = "device,workload,reference_device,speedup,scope,source\n";
    for (std::size_t i = 0; i < file.rows.size(); i += 2) {
        const double ratio = predict(platform, file.rows[i + 1]) / predict(platform, file.rows[i]);
        rows += fmt::format("G,{},CPU,{:.17g},compute,computed\n", file.rows[i].workload, ratio);
    }
    const fs::path csv = tmp.write("ratios.csv", rows);
    const fs::path start = tmp.write("start.yaml", yaml(0.9, "2 us"));
    FitRequest request;
    request.platform_file = start.string();
    request.measurements_file = csv.string();
    request.devices = {"G"};
    request.folds = 0;
    const FitReport report = fit_platform(request);
    ASSERT_EQ(report.parameters.size(), 2u);
    EXPECT_EQ(report.parameters[0].key, "compute_efficiency");
    EXPECT_NEAR(report.parameters[0].value, 0.5, 1e-4);
    EXPECT_EQ(report.parameters[1].key, "launch_overhead");
    EXPECT_NEAR(report.parameters[1].value, 7e-6, 1e-9);
    EXPECT_EQ(report.cross_validation_note, "not asked for");
}

TEST(CalibrateFit, CheckWritesOneRowPerMeasurement) {
    register_all();
    TempDir tmp;
    const fs::path csv = write_measurements(tmp, platform_yaml(0.7, 0.8, "4 us", "12 GB/s"));
    const fs::path other = tmp.write("other.yaml", platform_yaml(0.35, 0.8, "4 us", "12 GB/s"));
    const auto out = run_hetsim(fmt::format("calibrate {} --check {} --out {}", other.string(),
                                            csv.string(), (tmp.path() / "chk").string()));
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const std::string table = read_file(tmp.path() / "chk" / "calibration.csv");
    EXPECT_EQ(table.substr(0, table.find('\n')),
              "device,workload,measured_s,predicted_s,relative_error");
    EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 13);  // header + 12 rows
    // Halving the compute efficiency doubles the compute-bound 1024^3 GEMM's body: its row
    // is off by about 100 %, the Adds (memory-bound) by 0.
    EXPECT_THAT(table, ::testing::HasSubstr("G,add_16777216.json,"));
    const auto add_row = table.substr(table.find("G,add_16777216.json,"));
    EXPECT_EQ(add_row.substr(add_row.rfind(',', add_row.find('\n')) + 1, 2), "0\n");
}

TEST(CalibrateFit, BadMeasurementFilesAreOneLineErrorsNamingRowAndColumn) {
    register_all();
    TempDir tmp;
    write_graphs(tmp.path());
    const fs::path platform = tmp.write("p.yaml", platform_yaml(0.7, 0.8, "4 us", "12 GB/s"));
    const auto run = [&](const std::string& name, const std::string& text) {
        const fs::path csv = tmp.write(name, text);
        return run_hetsim(fmt::format("calibrate {} --fit {}", platform.string(), csv.string()));
    };
    const std::string header = "device,workload,time_s\n";
    struct Case {
        std::string name, text, expected;
    };
    const std::vector<Case> cases = {
        {"unknown_device.csv", header + "G,add_1024.json,1e-5\nGPU9,add_1024.json,1e-5\n",
         "unknown_device.csv:3: device: unknown device 'GPU9'"},
        {"missing_file.csv", header + "G,nope.json,1e-5\n",
         "missing_file.csv:2: workload: no such file"},
        {"negative_time.csv", header + "G,add_1024.json,-1e-5\n",
         "negative_time.csv:2: time_s: must be > 0, got -1e-5"},
        {"zero_time.csv", header + "G,add_1024.json,0\n", "zero_time.csv:2: time_s: must be > 0"},
        {"few_rows.csv", header + "G,add_1024.json,1e-5\n",
         "few_rows.csv:2: 4 free parameters but 1 measurement"},
        {"bad_scope.csv", "device,workload,time_s,scope\nG,add_1024.json,1e-5,dispatch\n",
         "bad_scope.csv:2: scope: unknown scope 'dispatch'"},
        {"bad_column.csv", "device,workload,time_ms\nG,add_1024.json,1e-5\n",
         "bad_column.csv:1: time_ms: unknown column"},
        {"orphan_reference.csv",
         "device,workload,time_s,reference_workload\nG,add_1024.json,1e-5,add_1024.json\n",
         "orphan_reference.csv:2: reference_workload: a reference workload needs a "
         "reference_device"},
        {"missing_reference.csv",
         "device,workload,reference_device,reference_workload,speedup\n"
         "G,add_1024.json,G,nope.json,1\n",
         "missing_reference.csv:2: reference_workload: no such file"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const auto out = run(c.name, c.text);
        EXPECT_EQ(out.exit_code, 2);
        EXPECT_THAT(out.output, ::testing::HasSubstr(c.expected));
        EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
    }
}

// The shipped H100 platform is what its documented fit command writes (configs/platforms/
// h100.yaml, header): re-running the fit from it lands on the same constants.
TEST(CalibrateFit, ShippedH100PlatformIsItsFitOutput) {
    register_all();
    const fs::path root = HETSIM_SOURCE_DIR;
    const fs::path platform = root / "configs/platforms/h100.yaml";
    const fs::path csv = root / "configs/calibration/h100/fit.csv";
    FitRequest request;
    request.platform_file = platform.string();
    request.measurements_file = csv.string();
    const FitReport report = fit_platform(request);
    const std::string shipped = read_file(platform);
    EXPECT_EQ(report.fitted_text, shipped);
    for (const auto& p : report.parameters) {
        if (p.fitted) {
            EXPECT_NEAR(p.value / p.initial, 1.0, 5e-4) << p.component << "." << p.key;
        }
    }
}

}  // namespace
}  // namespace hetsim::app

namespace hetsim::app {
namespace {

// configs/platforms/xeon_titanv.yaml is what its header's command writes (the --fix list is
// the header's): re-running the fit from it reproduces the file.
TEST(CalibrateFit, ShippedXeonTitanVIsItsFitOutput) {
    register_all();
    const fs::path root = HETSIM_SOURCE_DIR;
    const fs::path platform = root / "configs/platforms/xeon_titanv.yaml";
    FitRequest request{platform.string(),
                       (root / "configs/calibration/duet/fit.csv").string(),
                       {},
                       "",
                       4,
                       {"cpu.flops_per_cycle", "cpu.dram_bandwidth_all_cores", "gpu.kernel_latency",
                        "gpu.bandwidth_efficiency"}};
    const FitReport report = fit_platform(request);
    EXPECT_EQ(report.fitted_text, read_file(platform));
    EXPECT_EQ(report.in_sample.rows, 16u);
}

// configs/platforms/i7_rtx2060.yaml is what its header's command writes: three global
// constants fitted to xu2022 Table 5's ratio rows, each row timing the CPU and the GPU on the
// two parts of a split op (reference_workload), which are equal at the published ratio.
TEST(CalibrateFit, ShippedI7Rtx2060IsItsFitOutput) {
    register_all();
    const fs::path root = HETSIM_SOURCE_DIR;
    const fs::path platform = root / "configs/platforms/i7_rtx2060.yaml";
    FitRequest request;
    request.platform_file = platform.string();
    request.measurements_file = (root / "configs/calibration/eop/fit.csv").string();
    request.folds = 0;
    request.fixed = {"cpu.flops_per_cycle",          "cpu.efficiency.conv",
                     "cpu.efficiency.recurrent",     "cpu.dram_bandwidth",
                     "cpu.dram_bandwidth_all_cores", "cpu.recurrent_step_overhead",
                     "gpu.bandwidth_efficiency",     "gpu.kernel_latency",
                     "gpu.launch_overhead",          "gpu.recurrent_step_latency"};
    const FitReport report = fit_platform(request);
    EXPECT_EQ(report.fitted_text, read_file(platform));
    EXPECT_EQ(report.in_sample.rows, 3u);
    // A ratio row with a reference workload predicts t_reference(other graph) / t_device(graph).
    const sim::Platform fitted = sim::load_platform(platform.string());
    const MeasurementFile data = load_measurements(request.measurements_file, fitted);
    const Measurement& dense = data.rows.front();
    ASSERT_NE(dense.graph, dense.reference_graph);
    const sim::Device& cpu = fitted.device(*fitted.find_device("CPU"));
    const sim::Device& gpu = fitted.device(*fitted.find_device("GPU"));
    const double t_cpu = cpu.model->op_time_s(*dense.graph, dense.graph->op(0));
    const double t_gpu = gpu.model->op_time_s(*dense.reference_graph, dense.reference_graph->op(0));
    EXPECT_DOUBLE_EQ(predict(fitted, dense), t_gpu / t_cpu);
}

// configs/platforms/zynq_silentpim.yaml is what its header's command writes.
TEST(CalibrateFit, ShippedZynqSilentPimIsItsFitOutput) {
    register_all();
    const fs::path root = HETSIM_SOURCE_DIR;
    const fs::path platform = root / "configs/platforms/zynq_silentpim.yaml";
    FitRequest request;
    request.platform_file = platform.string();
    request.measurements_file = (root / "configs/calibration/lee2022/fit.csv").string();
    request.fixed = {"cpu.op_overhead"};
    const FitReport report = fit_platform(request);
    EXPECT_EQ(report.fitted_text, read_file(platform));
}

// The H100 fit and check sets are what tools/measure/h100_fit_sets.py derives from the raw
// measurement files (which it only selects from and relabels).
TEST(CalibrateFit, H100FitSetsAreWhatTheirScriptDerives) {
    TempDir tmp;
    const fs::path root = HETSIM_SOURCE_DIR;
    const fs::path shipped = root / "configs/calibration/h100";
    for (const char* raw : {"gemm_fp32.csv", "gemm_bf16.csv", "conv.csv", "rnn.csv", "memory.csv",
                            "copy.csv", "end_to_end.csv"})
        fs::copy_file(shipped / raw, tmp.path() / raw);
    const auto out = hetsim::testing::run_command(
        fmt::format("python3 {} --dir {}", (root / "tools/measure/h100_fit_sets.py").string(),
                    tmp.path().string()));
    ASSERT_EQ(out.exit_code, 0) << out.output;
    for (const char* derived :
         {"fit.csv", "check_gemm_fp32.csv", "check_gemm_bf16.csv", "check_conv.csv",
          "check_rnn.csv", "check_memory.csv", "check_end_to_end.csv"})
        EXPECT_EQ(read_file(tmp.path() / derived), read_file(shipped / derived)) << derived;
}

// Runs a fit-set script into a temporary folder and compares every file it writes with the
// shipped copy under configs/calibration/<set>; returns how many files it wrote.
int expect_script_reproduces(const std::string& script, const std::string& set) {
    TempDir tmp;
    const fs::path root = HETSIM_SOURCE_DIR;
    const auto out = hetsim::testing::run_command(fmt::format(
        "python3 {} --out {}", (root / "tools/measure" / script).string(), tmp.path().string()));
    EXPECT_EQ(out.exit_code, 0) << out.output;
    int files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(tmp.path())) {
        if (!entry.is_regular_file())
            continue;
        const fs::path relative = fs::relative(entry.path(), tmp.path());
        EXPECT_EQ(read_file(entry.path()), read_file(root / "configs/calibration" / set / relative))
            << relative;
        ++files;
    }
    return files;
}

// lee2022's fit set is what tools/measure/lee2022_fit_set.py writes.
TEST(CalibrateFit, Lee2022FitSetIsWhatItsScriptWrites) {
    EXPECT_EQ(expect_script_reproduces("lee2022_fit_set.py", "lee2022"), 7);  // fit.csv, 6 graphs
}

// EOP's Table 5 rows are what tools/measure/eop_fit_set.py writes.
TEST(CalibrateFit, EopFitSetIsWhatItsScriptWrites) {
    EXPECT_EQ(expect_script_reproduces("eop_fit_set.py", "eop"), 7);  // fit.csv, 6 graphs
}

// The DUET subgraphs and the Table II/III rows are what tools/measure/duet_subgraphs.py cuts
// out of hetsim's own models: re-running it reproduces configs/calibration/duet/ exactly.
TEST(CalibrateFit, DuetFitSetIsWhatItsScriptWrites) {
    TempDir tmp;
    const fs::path root = HETSIM_SOURCE_DIR;
    const auto out = hetsim::testing::run_command(fmt::format(
        "python3 {} --hetsim {} --out {}", (root / "tools/measure/duet_subgraphs.py").string(),
        HETSIM_BINARY, tmp.path().string()));
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const fs::path shipped = root / "configs/calibration/duet";
    for (const auto& entry : fs::recursive_directory_iterator(tmp.path())) {
        if (!entry.is_regular_file())
            continue;
        const fs::path relative = fs::relative(entry.path(), tmp.path());
        EXPECT_EQ(read_file(entry.path()), read_file(shipped / relative)) << relative;
    }
    EXPECT_TRUE(fs::exists(tmp.path() / "graphs" / "wd_cnn.json"));
}

}  // namespace
}  // namespace hetsim::app
