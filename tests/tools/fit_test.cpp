// `hetsim calibrate --fit` / `--check` (tools/app/fit.hpp): a fit recovers the constants that
// generated its measurements, writes the platform back with only the fitted numbers changed
// and tagged, predicts ratio rows, and refuses bad measurement files with one line naming the
// file, row and column. The shipped H100 platform is exactly what its fit command writes.
#include "tools/app/fit.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sim/config.hpp"
#include "sim/csv.hpp"
#include "sim/workloads/json_graph.hpp"
#include "tests/fixtures/calibrate_fixtures.hpp"
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

using hetsim::testing::platform_yaml;

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

// The value of `column` in calibration.csv's row that starts with `prefix`.
std::string check_cell(const std::string& table, const std::string& prefix,
                       const std::string& column) {
    const sim::CsvRow header = sim::parse_csv_line(table.substr(0, table.find('\n')));
    const auto at = table.find("\n" + prefix);
    EXPECT_NE(at, std::string::npos) << prefix;
    if (at == std::string::npos)
        return "";
    const sim::CsvRow row =
        sim::parse_csv_line(table.substr(at + 1, table.find('\n', at + 1) - at - 1));
    const auto index = sim::csv_column(header, column);
    EXPECT_TRUE(index.has_value()) << column;
    return index && *index < row.size() ? row[*index] : "";
}

// Pinned and pageable copies tell the PCIe link's DMA rate from the host's staging rate
// (host_staging_bandwidth): a fit on both recovers each; host_memory=pinned rows cost the DMA
// alone, pageable ones and those that do not say both.
TEST(CalibrateFit, PinnedAndPageableCopiesFitTheDmaAndTheStagingRates) {
    register_all();
    TempDir tmp;
    auto yaml = [](const std::string& dma, const std::string& staging) {
        return platform_yaml(0.7, 0.8, "4 us", dma) +
               fmt::format("    host_staging_bandwidth: {}\n", staging);
    };
    std::string rows = "device,workload,knobs,scope,time_s\n";
    for (const char* memory : {"pinned", "pageable"}) {
        for (std::int64_t bytes : {4096, 1 << 20, 1 << 26})
            rows +=
                fmt::format("G,copy,bytes={};direction=host_to_device;host_memory={},transfer,1\n",
                            bytes, memory);
    }
    rows += "G,copy,bytes=67108864;direction=device_to_host,transfer,1\n";
    const fs::path placeholder = tmp.write("placeholder.csv", rows);
    const fs::path truth = tmp.write("truth.yaml", yaml("12 GB/s", "4 GB/s"));
    const sim::Platform platform = sim::load_platform(truth.string());
    const MeasurementFile file = load_measurements(placeholder.string(), platform);
    ASSERT_EQ(file.rows.size(), 7u);
    // 10 us + 64 MiB / 12 GB/s pinned; + 64 MiB / 4 GB/s pageable or unsaid.
    const double mib64 = 67108864.0;
    EXPECT_DOUBLE_EQ(predict(platform, file.rows[2]), 10e-6 + mib64 / 12e9);
    EXPECT_DOUBLE_EQ(predict(platform, file.rows[5]), 10e-6 + mib64 / 12e9 + mib64 / 4e9);
    EXPECT_DOUBLE_EQ(predict(platform, file.rows[6]), predict(platform, file.rows[5]));
    std::string measured = "device,workload,knobs,scope,time_s\n";
    for (const Measurement& m : file.rows)
        measured += fmt::format("G,copy,{},transfer,{:.17g}\n", m.knobs, predict(platform, m));
    FitRequest request;
    request.platform_file = tmp.write("start.yaml", yaml("30 GB/s", "10 GB/s")).string();
    request.measurements_file = tmp.write("measured.csv", measured).string();
    request.folds = 0;
    const FitReport report = fit_platform(request);
    std::map<std::string, double> by_key;
    for (const auto& p : report.parameters)
        by_key[p.component + "." + p.key] = p.value;
    EXPECT_NEAR(by_key.at("link.bandwidth"), 12e9, 1e4);
    EXPECT_NEAR(by_key.at("link.host_staging_bandwidth"), 4e9, 1e4);
    EXPECT_NEAR(by_key.at("link.latency"), 10e-6, 1e-11);
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
    // Issue 25's five columns first, then what tells the rows apart and a ratio's values.
    EXPECT_EQ(table.substr(0, table.find('\n')),
              "device,workload,measured_s,predicted_s,relative_error,knobs,scope,"
              "reference_device,reference_workload,reference_knobs,measured_speedup,"
              "predicted_speedup");
    EXPECT_EQ(fmt::format("{}", fmt::join(check_csv_columns(), ",")),
              table.substr(0, table.find('\n')));
    EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 13);  // header + 12 rows
    // Halving the compute efficiency doubles the compute-bound 1024^3 GEMM's body: its row
    // is off by about 100 %, the Adds (memory-bound) by 0.
    EXPECT_EQ(check_cell(table, "G,add_16777216.json,", "relative_error"), "0");
    EXPECT_EQ(check_cell(table, "G,add_16777216.json,", "scope"), "kernel");
    EXPECT_EQ(check_cell(table, "G,add_16777216.json,", "measured_speedup"), "");
    // Copies of three sizes: each row says which.
    EXPECT_EQ(check_cell(table, "G,copy,", "knobs"), "bytes=4096;direction=host_to_device");
    EXPECT_EQ(check_cell(table, "G,copy,", "scope"), "transfer");

    // A ratio row's values are no seconds: they go under the speedup columns.
    write_graphs(tmp.path());
    const fs::path ratios = tmp.write("ratios.csv",
                                      "device,workload,scope,reference_device,speedup\n"
                                      "G,mm_1024x1024x1024.json,compute,CPU,2\n");
    const auto ratio_out =
        run_hetsim(fmt::format("calibrate {} --check {} --out {}", other.string(), ratios.string(),
                               (tmp.path() / "ratio").string()));
    ASSERT_EQ(ratio_out.exit_code, 0) << ratio_out.output;
    const std::string ratio_table = read_file(tmp.path() / "ratio" / "calibration.csv");
    const std::string row = "G,mm_1024x1024x1024.json,";
    EXPECT_EQ(check_cell(ratio_table, row, "measured_s"), "");
    EXPECT_EQ(check_cell(ratio_table, row, "predicted_s"), "");
    EXPECT_EQ(check_cell(ratio_table, row, "measured_speedup"), "2");
    EXPECT_FALSE(check_cell(ratio_table, row, "predicted_speedup").empty());
    EXPECT_EQ(check_cell(ratio_table, row, "reference_device"), "CPU");
    EXPECT_EQ(check_cell(ratio_table, row, "scope"), "compute");
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
    const std::string knobbed = "device,workload,knobs,scope,time_s\n";
    const std::string copy = knobbed + "G,copy,direction=host_to_device;";
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
        {"bad_scope.csv", "device,workload,time_s,scope\nG,add_1024.json,1e-5,launch\n",
         "bad_scope.csv:2: scope: unknown scope 'launch'"},
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
        // A copy's bytes: a whole number up to 2^53 (1e30 once became a negative time).
        {"bytes_huge.csv", copy + "bytes=1e30,transfer,1\n",
         "bytes_huge.csv:2: knobs: bytes must be a whole number from 1 to 2^53 "
         "(9007199254740992), got '1e30'"},
        {"bytes_digits.csv", copy + "bytes=99999999999999999999,transfer,1\n",
         "bytes_digits.csv:2: knobs: bytes must be a whole number"},
        {"bytes_int64.csv", copy + "bytes=9223372036854775807,transfer,1\n",
         "bytes_int64.csv:2: knobs: bytes must be a whole number"},
        {"bytes_half.csv", copy + "bytes=0.5,transfer,1\n",
         "bytes_half.csv:2: knobs: bytes must be a whole number from 1 to 2^53 "
         "(9007199254740992), got '0.5'"},
        // Knobs that change nothing are refused, not ignored.
        {"copy_extra.csv", copy + "bytes=4096;extra=1,transfer,1e-5\n",
         "copy_extra.csv:2: knobs: 'extra' is not a knob of this row: a copy takes bytes, "
         "direction and host_memory"},
        {"copy_swap.csv", copy + "bytes=4096;host_memory=swap,transfer,1e-5\n",
         "copy_swap.csv:2: knobs: host_memory must be pinned or pageable, got 'swap'"},
        {"graph_knob.csv", knobbed + "G,add_1024.json,seq_len=16,kernel,1e-5\n",
         "graph_knob.csv:2: knobs: 'seq_len' is not a knob of this row: a graph file takes "
         "l2=cold|hot only"},
        {"graph_l2.csv", knobbed + "G,add_1024.json,l2=warm,kernel,1e-5\n",
         "graph_l2.csv:2: knobs: l2 must be cold or hot, got 'warm'"},
        // Knobs a model refuses together are the knobs column's error; an unknown model the
        // workload column's.
        {"model_knobs.csv", knobbed + "G,conv,height=2;pad_h=0;kernel_h=5,kernel,1e-5\n",
         "model_knobs.csv:2: knobs: model 'conv': the kernel_h kernel (5, dilation 1) is larger "
         "than the padded input (2 + 2 x 0)"},
        {"unknown_model.csv", knobbed + "G,matmull,m=4,kernel,1e-5\n",
         "unknown_model.csv:2: workload: unknown model 'matmull'"},
        {"dispatch_no_ops.csv", knobbed + "G,add_1024.json,,dispatch,1e-5\n",
         "dispatch_no_ops.csv:2: knobs: a dispatch row needs ops=N"},
        {"dispatch_model.csv", knobbed + "G,bert,layers=1;ops=10,dispatch,1e-5\n",
         "dispatch_model.csv:2: workload: a dispatch row times one op launched ops=10 times"},
        // Numbers are decimal, without spaces, and times within the simulator's range.
        {"hex_time.csv", header + "G,add_1024.json,0x10\n",
         "hex_time.csv:2: time_s: expected a decimal number such as 2, 0.5 or 4.5e-06, got "
         "'0x10'"},
        {"huge_time.csv", header + "G,add_1024.json,1e300\n",
         "huge_time.csv:2: time_s: '1e300' is out of range: expected seconds from 1e-12 (1 ps) "
         "to 4.61e+06 (2^62 ps)"},
        {"tiny_time.csv", header + "G,add_1024.json,1e-300\n",
         "tiny_time.csv:2: time_s: '1e-300' is out of range"},
        {"past_double.csv", header + "G,add_1024.json,1e309\n",
         "past_double.csv:2: time_s: '1e309' is out of range"},
        {"subnormal.csv", header + "G,add_1024.json,1e-320\n",
         "subnormal.csv:2: time_s: '1e-320' is out of range"},
        {"leading_space.csv", header + "G,add_1024.json, 5e-6\n",
         "leading_space.csv:2: time_s: expected a decimal number without spaces, got ' 5e-6'"},
        {"trailing_space.csv", header + "G,add_1024.json,5e-6 \n",
         "trailing_space.csv:2: time_s: expected a decimal number without spaces, got '5e-6 '"},
        {"weight_spread.csv",
         "device,workload,time_s,weight\nG,add_1024.json,1e-5,1e300\nG,mm_64x64x64.json,1e-5,1\n",
         "weight_spread.csv:3: weight: 1 is 1e+300 times less than line 2's 1e+300"},
        // Rows: the same one twice, one short of the header's columns.
        {"duplicate.csv",
         knobbed + "G,add_1024.json,l2=cold,kernel,1e-5\nG,mm_64x64x64.json,,kernel,1e-5\n"
                   "G,./add_1024.json,l2=cold,kernel,2e-5\n",
         "duplicate.csv:4: the same measurement as line 2 (device, workload, knobs, scope and "
         "reference)"},
        {"short_row.csv", header + "G,add_1024.json\n",
         "short_row.csv:2: 2 cells, but the header names 3 columns"},
        // Framing: RFC 4180 quotes, encodings, NUL bytes.
        {"mid_quote.csv", header + "\"G\"0,add_1024.json,1e-5\n",
         "mid_quote.csv:2: text after the closing quote of a quoted field ('\"G\"0')"},
        {"utf16.csv", std::string("\xFF\xFE", 2) + "d\0e\0v\0",
         "utf16.csv:1: the file starts with a UTF-16 or UTF-32 byte-order mark; save it as UTF-8"},
        {"nul.csv", header + std::string("G,add_1024.json,1e-5\0\n", 22), "nul.csv:2: a NUL byte"},
        {"tabs.csv", "device\tworkload\ttime_s\nG\tadd_1024.json\t1e-5\n",
         "tabs.csv:1: the header 'device\\x09workload\\x09time_s' has no commas"},
        {"tab_device.csv", header + "G\t,add_1024.json,1e-5\n",
         "tab_device.csv:2: device: unknown device 'G\\x09'"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const auto out = run(c.name, c.text);
        EXPECT_EQ(out.exit_code, 2);
        EXPECT_THAT(out.output, ::testing::HasSubstr(c.expected));
        EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
    }
}

// Options given that cannot be done: the same --fix twice, --folds that leave a fold fewer rows
// than parameters. Refused before the fit, so nothing is written.
TEST(CalibrateFit, OptionsThatCannotBeDoneAreRefused) {
    register_all();
    TempDir tmp;
    write_graphs(tmp.path());
    const fs::path platform = tmp.write("p.yaml", platform_yaml(0.7, 0.8, "4 us", "12 GB/s"));
    // Three parameters move these rows (compute and bandwidth efficiency, kernel latency).
    const fs::path csv = tmp.write("m.csv",
                                   "device,workload,scope,time_s\n"
                                   "G,mm_64x64x64.json,kernel,1e-5\n"
                                   "G,mm_1024x1024x1024.json,kernel,1e-3\n"
                                   "G,add_1048576.json,kernel,5e-5\n"
                                   "G,add_16777216.json,kernel,5e-4\n");
    const fs::path fitted = tmp.path() / "f.yaml";
    const auto fit = [&](const std::string& options) {
        return run_hetsim(fmt::format("calibrate {} --fit {} --out {} {}", platform.string(),
                                      csv.string(), fitted.string(), options));
    };
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--fix gpu.kernel_latency --fix gpu.kernel_latency",
         "hetsim: error: --fix: 'gpu.kernel_latency' is given twice"},
        {"--folds 1",
         "hetsim: error: --folds 1: cross-validation needs at least 2 folds (0 for "
         "none)"},
        {"--folds 2",
         "hetsim: error: --folds 2: each fold is fitted on as few as 2 of the 4 rows, fewer than "
         "the 3 free parameters; use at least 4 folds (0 for none)"},
    };
    for (const auto& [options, expected] : cases) {
        SCOPED_TRACE(options);
        const auto out = fit(options);
        EXPECT_EQ(out.exit_code, 2);
        EXPECT_EQ(out.output, expected + "\n");
        EXPECT_FALSE(fs::exists(fitted));
    }
    // Given and possible (leave-one-out), it is done.
    const auto out = fit("--folds 4");
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_THAT(out.output, ::testing::HasSubstr("4-fold cross-validation (each row predicted"));
}

// --starts N keeps the best of N descents: the first from the file's values, so never worse
// than one start. From rough values on the H100 GEMMs, one descent stops in a local minimum
// of the tile and round model's staircase that more starts get below.
TEST(CalibrateFit, MoreStartsNeverFitWorse) {
    register_all();
    TempDir tmp;
    const fs::path root = HETSIM_SOURCE_DIR;
    std::string text = read_file(root / "configs/platforms/h100.yaml");
    // Rough starts for the GEMM kernel constants, whatever the file's fitted values are.
    const std::vector<std::pair<std::string, std::string>> rough = {
        {"compute_efficiency", "0.3"},       {"tile_load_Bpc", "200"},
        {"block_overhead_cycles", "1e4"},    {"k_tile_latency_cycles", "100"},
        {"chained_kernel_latency", "20 us"}, {"gemm_bandwidth_efficiency", "0.1"}};
    for (const auto& [key, start] : rough) {
        const auto at = text.find("    " + key + ": ");
        ASSERT_NE(at, std::string::npos) << key;
        const auto value = at + 4 + key.size() + 2;
        text.replace(value, text.find(" #", value) - value, start);
    }
    const fs::path platform = tmp.write("h100.yaml", text);
    // The GEMM rows only (the copies fit alone), as a file beside the graphs it names.
    const std::string csv = read_file(root / "configs/calibration/h100/fit.csv");
    std::string gemms;
    std::size_t line_start = 0;
    while (line_start < csv.size()) {
        const std::size_t end = csv.find('\n', line_start);
        const std::string line = csv.substr(line_start, end - line_start);
        if (line_start == 0 || line.find("matmul") != std::string::npos)
            gemms += line + "\n";
        line_start = end == std::string::npos ? csv.size() : end + 1;
    }
    const fs::path measurements = tmp.write("gemms.csv", gemms);
    fs::create_directory_symlink(root / "configs/calibration/h100/graphs", tmp.path() / "graphs");
    FitRequest request;
    request.platform_file = platform.string();
    request.measurements_file = measurements.string();
    request.folds = 0;
    const FitReport one = fit_platform(request);
    request.starts = 4;
    const FitReport four = fit_platform(request);
    EXPECT_EQ(one.starts, 1);
    EXPECT_EQ(four.starts, 4);
    EXPECT_LT(four.objective, one.objective);
    EXPECT_THAT(format_fit(four), ::testing::HasSubstr("best of 4 starts"));
    EXPECT_THAT(format_fit(one), ::testing::Not(::testing::HasSubstr(" starts, ")));
    // One descent of a GPU's kernel constants says that its type wants more; four do not.
    const std::string more =
        "note: gpu: its model's discrete choices give the error surface local minima; "
        "--starts 8 keeps the best of 8 descents";
    EXPECT_THAT(format_fit(one), ::testing::HasSubstr(more));
    EXPECT_THAT(format_fit(four), ::testing::Not(::testing::HasSubstr(more)));
    // The same call twice gives the same fit: the starts come from a fixed seed.
    EXPECT_EQ(fit_platform(request).fitted_text, four.fitted_text);
    // Zero starts is refused on the command line.
    const auto out = run_hetsim(
        fmt::format("calibrate {} --fit {} --starts 0", platform.string(), measurements.string()));
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_THAT(out.output, ::testing::HasSubstr("--starts"));
}

// Weights are relative: the same file with every weight scaled by 1e-5 or 1e-300 fits to the
// same constants (the fit divides them by their mean).
TEST(CalibrateFit, WeightsAreRelative) {
    register_all();
    TempDir tmp;
    const fs::path exact = write_measurements(tmp, platform_yaml(0.7, 0.8, "4 us", "12 GB/s"));
    const fs::path start = tmp.write("start.yaml", platform_yaml(0.95, 0.5, "1 us", "30 GB/s"));
    // Measurements off the truth by up to 20 %, so that the weights decide the compromise.
    std::vector<sim::CsvRecord> records = sim::read_csv_records(read_file(exact));
    const auto fit_scaled = [&](double scale) {
        std::string text = "device,workload,knobs,scope,time_s,weight\n";
        for (std::size_t i = 1; i < records.size(); ++i) {
            const sim::CsvRow& r = records[i].cells;
            const double noise = 1.0 + 0.2 * std::sin(3.0 * static_cast<double>(i));
            text += fmt::format("{},{},{},{},{:.17g},{:.17g}\n", r[0], r[1], r[2], r[3],
                                std::stod(r[4]) * noise, (i % 3 == 0 ? 4.0 : 1.0) * scale);
        }
        FitRequest request;
        request.platform_file = start.string();
        request.measurements_file = tmp.write(fmt::format("scaled_{}.csv", scale), text).string();
        request.folds = 0;
        return fit_platform(request);
    };
    const FitReport one = fit_scaled(1.0);
    for (const double scale : {1e-5, 1e-300, 1e300}) {
        SCOPED_TRACE(scale);
        const FitReport scaled = fit_scaled(scale);
        ASSERT_EQ(scaled.parameters.size(), one.parameters.size());
        for (std::size_t p = 0; p < one.parameters.size(); ++p) {
            EXPECT_EQ(scaled.parameters[p].fitted, one.parameters[p].fitted);
            EXPECT_NEAR(scaled.parameters[p].value / one.parameters[p].value, 1.0, 1e-9)
                << one.parameters[p].key;
        }
        EXPECT_NEAR(scaled.in_sample.median, one.in_sample.median, 1e-9);
    }
}

// `scope=dispatch`: the wall time per op of `ops` launches of one op queued back to back, the
// host's launch overhead overlapping the device's kernel (configs/calibration/h100/launch.csv).
TEST(CalibrateFit, DispatchRowsArePacedByTheSlowerOfHostAndDevice) {
    register_all();
    TempDir tmp;
    write_graphs(tmp.path());
    const fs::path yaml = tmp.write("p.yaml", platform_yaml(0.7, 0.8, "4 us", "12 GB/s"));
    const sim::Platform platform = sim::load_platform(yaml.string());
    const MeasurementFile file =
        load_measurements(tmp.write("m.csv",
                                    "device,workload,knobs,scope,time_s\n"
                                    "G,add_1024.json,ops=1000,dispatch,1e-5\n"
                                    "G,add_1024.json,ops=1,dispatch,1e-5\n"
                                    "G,add_16777216.json,ops=1000,dispatch,1e-5\n"
                                    "G,add_1024.json,,compute,1e-5\n")
                              .string(),
                          platform);
    const sim::Device& g = platform.device(*platform.find_device("G"));
    const auto per_op = [&](const Measurement& m, double ops) {
        const sim::Op& op = m.graph->op(0);
        const double device_s = g.model->kernel_time_s(*m.graph, op);
        const double host_s = g.model->op_time_s(*m.graph, op) - device_s;
        return (host_s + device_s + (ops - 1.0) * std::max(host_s, device_s)) / ops;
    };
    // A small Add: the host's 5 us launch sets the pace, not the 4 us kernel.
    EXPECT_DOUBLE_EQ(predict(platform, file.rows[0]), per_op(file.rows[0], 1000));
    EXPECT_NEAR(predict(platform, file.rows[0]), 5e-6, 2e-8);
    // One op alone is its launch and its kernel: the compute scope's time.
    EXPECT_DOUBLE_EQ(predict(platform, file.rows[1]), predict(platform, file.rows[3]));
    // A 64 MB Add: its kernel, longer than a launch, sets the pace.
    EXPECT_DOUBLE_EQ(predict(platform, file.rows[2]), per_op(file.rows[2], 1000));
    EXPECT_GT(predict(platform, file.rows[2]), 100e-6);
}

// A UTF-8 byte-order mark (spreadsheets write one) is dropped, and old Mac line ends (CR
// alone) end rows; each row keeps its line.
TEST(CalibrateFit, ByteOrderMarkAndCarriageReturnLineEndsLoad) {
    register_all();
    TempDir tmp;
    write_graphs(tmp.path());
    const sim::Platform platform = sim::load_platform(
        tmp.write("p.yaml", platform_yaml(0.7, 0.8, "4 us", "12 GB/s")).string());
    const MeasurementFile file = load_measurements(
        tmp.write("m.csv",
                  "\xEF\xBB\xBF"
                  "device,workload,time_s\rG,add_1024.json,1e-5\r\rG,mm_64x64x64.json,2e-5\r")
            .string(),
        platform);
    ASSERT_EQ(file.rows.size(), 2u);
    EXPECT_EQ(file.rows[0].device, "G");
    EXPECT_EQ(file.rows[0].line, 2);
    EXPECT_EQ(file.rows[1].workload, "mm_64x64x64.json");
    EXPECT_EQ(file.rows[1].line, 4);
}

// A prediction past the simulator's time range (2^62 ps) is refused, naming the row, instead
// of printing a meaningless (once negative) time; nothing is written.
TEST(CalibrateFit, CheckRefusesAPredictionPastTheTimeRange) {
    register_all();
    TempDir tmp;
    const fs::path slow = tmp.write("slow.yaml", platform_yaml(0.7, 0.8, "4 us", "1 B/s"));
    const fs::path csv = tmp.write("m.csv",
                                   "device,workload,knobs,scope,time_s\n"
                                   "G,copy,bytes=4096;direction=host_to_device,transfer,1\n"
                                   "G,copy,bytes=9007199254740992;direction=host_to_device,"
                                   "transfer,1\n");
    const auto out = run_hetsim(fmt::format("calibrate {} --check {} --out {}", slow.string(),
                                            csv.string(), (tmp.path() / "chk").string()));
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_EQ(out.output, fmt::format("hetsim: error: {}:3: the platform predicts 9.01e+15 s on "
                                      "G, beyond the simulator's time range (4.61e+06 s = 2^62 "
                                      "ps)\n",
                                      csv.string()));
    EXPECT_FALSE(fs::exists(tmp.path() / "chk"));
}

// usage.md's calibrate section names every column a measurement file may have and every scope,
// and its output table every column of calibration.csv.
TEST(CalibrateFit, UsageNamesEveryMeasurementColumnScopeAndCheckColumn) {
    const std::string doc = read_file(fs::path(HETSIM_SOURCE_DIR) / "docs/usage.md");
    const auto section = [&](const std::string& heading) {
        const auto start = doc.find("\n" + heading + "\n");
        EXPECT_NE(start, std::string::npos) << heading;
        const auto end = doc.find("\n## ", start + 1);
        const auto next = doc.find("\n### ", start + 1);
        return doc.substr(start, std::min(end, next) - start);
    };
    const std::string calibrate = section("### `hetsim calibrate`");
    for (const std::string& column : measurement_columns())
        EXPECT_THAT(calibrate, ::testing::HasSubstr("`" + column + "`")) << column;
    for (const std::string& scope : measurement_scopes())
        EXPECT_THAT(calibrate, ::testing::HasSubstr("`" + scope + "`")) << scope;
    const std::string outputs = section("### Other commands");
    for (const std::string& column : check_csv_columns())
        EXPECT_THAT(outputs, ::testing::HasSubstr("`" + column + "`")) << column;
}

// Re-runs a GPU platform's documented fit (`--fit <csv> --starts 8`, no cross-validation: the
// file does not depend on it) and returns the report.
FitReport refit_gpu_platform(const std::string& platform, const std::string& csv) {
    register_all();
    const fs::path root = HETSIM_SOURCE_DIR;
    FitRequest request;
    request.platform_file = (root / "configs/platforms" / platform).string();
    request.measurements_file = (root / "configs/calibration" / csv).string();
    request.starts = 8;  // the header's --starts 8
    request.folds = 0;
    return fit_platform(request);
}

// The shipped H100 platform is what its documented fit command writes (configs/platforms/
// h100.yaml, header): re-running the fit from it lands on the same constants.
TEST(CalibrateFit, ShippedH100PlatformIsItsFitOutput) {
    const FitReport report = refit_gpu_platform("h100.yaml", "h100/fit.csv");
    EXPECT_EQ(report.fitted_text,
              read_file(fs::path(HETSIM_SOURCE_DIR) / "configs/platforms/h100.yaml"));
    for (const auto& p : report.parameters) {
        if (p.fitted) {
            EXPECT_NEAR(p.value / p.initial, 1.0, 5e-4) << p.component << "." << p.key;
        }
    }
}

// Re-runs one of h100.yaml's later fit commands (its header): `csv` with --starts 8 and the
// GPU constants `fixed` held; expects the shipped file back and returns the names of the
// constants it fitted.
std::vector<std::string> refit_h100_stage(const std::string& csv,
                                          const std::vector<std::string>& fixed, std::size_t rows) {
    register_all();
    const fs::path root = HETSIM_SOURCE_DIR;
    FitRequest request;
    request.platform_file = (root / "configs/platforms/h100.yaml").string();
    request.measurements_file = (root / "configs/calibration" / csv).string();
    request.starts = 8;
    request.folds = 0;
    for (const std::string& key : fixed)
        request.fixed.push_back("gpu." + key);
    const FitReport report = fit_platform(request);
    EXPECT_EQ(report.fitted_text, read_file(root / "configs/platforms/h100.yaml"));
    EXPECT_EQ(report.in_sample.rows, rows);
    std::vector<std::string> fitted;
    for (const auto& p : report.parameters) {
        if (p.fitted)
            fitted.push_back(p.component + "." + p.key);
    }
    return fitted;
}

// Its second command, the tensor-core kernels' constants on every other bf16 GEMM with every
// fp32 constant fixed, also lands on the shipped file and fits those three alone.
TEST(CalibrateFit, ShippedH100TensorCoreConstantIsItsSecondFitOutput) {
    EXPECT_THAT(
        refit_h100_stage("h100/fit_bf16.csv",
                         {"compute_efficiency", "bandwidth_efficiency", "gemm_bandwidth_efficiency",
                          "tile_load_Bpc", "block_overhead_cycles", "k_tile_latency_cycles",
                          "chained_kernel_latency", "kernel_latency", "reduction_latency"},
                         80u),
        ::testing::ElementsAre("gpu.tensor_k_tile_latency_cycles",
                               "gpu.tensor_block_overhead_cycles",
                               "gpu.legacy_tensor_k_tile_latency_cycles"));
}

// Its third command, cuDNN's persistent RNN kernel's step latency and two weight-load rates on
// LSTM/GRU layers at the kernel's template sizes and between them, every GEMM constant fixed,
// also lands on the shipped file and fits those three alone.
TEST(CalibrateFit, ShippedH100PersistentRnnConstantsAreItsThirdFitOutput) {
    EXPECT_THAT(
        refit_h100_stage("h100_persist_odd/fit_rnn_persist.csv",
                         {"compute_efficiency", "bandwidth_efficiency", "gemm_bandwidth_efficiency",
                          "tile_load_Bpc", "block_overhead_cycles", "k_tile_latency_cycles",
                          "tensor_k_tile_latency_cycles", "tensor_block_overhead_cycles",
                          "legacy_tensor_k_tile_latency_cycles", "chained_kernel_latency",
                          "kernel_latency", "reduction_latency"},
                         139u),
        ::testing::ElementsAre("gpu.recurrent_step_latency", "gpu.persistent_rnn_weight_load",
                               "gpu.persistent_rnn_weight_load_conflicting"));
}

// configs/platforms/h200.yaml is what its header's command writes (fp32 GEMMs only).
TEST(CalibrateFit, ShippedH200PlatformIsItsFitOutput) {
    const FitReport report = refit_gpu_platform("h200.yaml", "h200/fit.csv");
    EXPECT_EQ(report.fitted_text,
              read_file(fs::path(HETSIM_SOURCE_DIR) / "configs/platforms/h200.yaml"));
    EXPECT_EQ(report.in_sample.rows, 80u);
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
    const fs::path fresh = root / "configs/calibration/h100_fresh";
    fs::create_directories(tmp.path() / "h100");
    fs::create_directories(tmp.path() / "h100_fresh");
    for (const char* raw : {"gemm_fp32.csv", "gemm_bf16.csv", "conv.csv", "rnn.csv", "memory.csv",
                            "copy.csv", "end_to_end.csv"})
        fs::copy_file(shipped / raw, tmp.path() / "h100" / raw);
    fs::copy_file(fresh / "gemm_fp32_fresh.csv", tmp.path() / "h100_fresh/gemm_fp32_fresh.csv");
    const auto out = hetsim::testing::run_command(
        fmt::format("python3 {} --dir {}", (root / "tools/measure/h100_fit_sets.py").string(),
                    (tmp.path() / "h100").string()));
    ASSERT_EQ(out.exit_code, 0) << out.output;
    for (const char* derived :
         {"fit.csv", "check_gemm_fp32.csv", "fit_bf16.csv", "check_gemm_bf16.csv", "check_conv.csv",
          "check_rnn.csv", "check_memory.csv", "check_end_to_end.csv", "check_copy.csv"})
        EXPECT_EQ(read_file(tmp.path() / "h100" / derived), read_file(shipped / derived))
            << derived;
    EXPECT_EQ(read_file(tmp.path() / "h100_fresh/check_gemm_fp32_fresh.csv"),
              read_file(fresh / "check_gemm_fp32_fresh.csv"));
    // The H200 folder holds the fp32 GEMMs alone: the script writes the three files it can.
    const fs::path h200 = root / "configs/calibration/h200";
    fs::create_directories(tmp.path() / "h200");
    for (const char* raw : {"gemm_fp32.csv", "gemm_fp32_fresh.csv"})
        fs::copy_file(h200 / raw, tmp.path() / "h200" / raw);
    const auto h200_out = hetsim::testing::run_command(
        fmt::format("python3 {} --dir {}", (root / "tools/measure/h100_fit_sets.py").string(),
                    (tmp.path() / "h200").string()));
    ASSERT_EQ(h200_out.exit_code, 0) << h200_out.output;
    for (const char* derived : {"fit.csv", "check_gemm_fp32.csv", "check_gemm_fp32_fresh.csv"})
        EXPECT_EQ(read_file(tmp.path() / "h200" / derived), read_file(h200 / derived)) << derived;
    EXPECT_FALSE(fs::exists(tmp.path() / "h200/check_conv.csv"));
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

namespace hetsim::app {
namespace {

// configs/platforms/v100.yaml is the starting point its header describes: measurement rows
// name the one-op `matmul` model, and every kernel-model constant a fit frees is stated, so a
// fit on fp32 GEMMs moves them all (rows generated by the same file with a slower inner loop,
// a larger block overhead and a later floor: the fit lands on them).
TEST(CalibrateFit, TheV100StartingPlatformFitsMatMulRows) {
    register_all();
    TempDir tmp;
    const fs::path root = HETSIM_SOURCE_DIR;
    std::string truth_text = read_file(root / "configs/platforms/v100.yaml");
    auto set = [&](const std::string& from, const std::string& to) {
        const auto at = truth_text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        truth_text.replace(at, from.size(), to);
    };
    set("compute_efficiency: 0.9 ", "compute_efficiency: 0.75");
    set("block_overhead_cycles: 3900", "block_overhead_cycles: 2500");
    set("kernel_latency: 4.9 us", "kernel_latency: 6 us");
    const fs::path truth = tmp.write("truth.yaml", truth_text);
    std::string rows = "device,workload,knobs,scope,time_s\n";
    for (const char* shape : {"m=1760;k=1760;n=16", "m=1760;k=1760;n=128", "m=2048;k=2048;n=2048",
                              "m=4096;k=4096;n=4096", "m=35;k=2560;n=700", "m=5124;k=2560;n=9124",
                              "m=1;k=4096;n=4096", "m=64;k=64;n=64", "m=512;k=8192;n=512",
                              "m=7680;k=2560;n=32", "m=256;k=256;n=256", "m=3072;k=128;n=1024"})
        rows += fmt::format("v100,matmul,{},kernel,1\n", shape);
    const fs::path placeholder = tmp.write("placeholder.csv", rows);
    const sim::Platform truth_platform = sim::load_platform(truth.string());
    const MeasurementFile file = load_measurements(placeholder.string(), truth_platform);
    std::string measured = "device,workload,knobs,scope,time_s\n";
    for (const Measurement& m : file.rows)
        measured +=
            fmt::format("v100,matmul,{},kernel,{:.17g}\n", m.knobs, predict(truth_platform, m));
    FitRequest request;
    request.platform_file = (root / "configs/platforms/v100.yaml").string();
    request.measurements_file = tmp.write("measured.csv", measured).string();
    request.folds = 0;
    request.starts = 4;
    const FitReport report = fit_platform(request);
    std::set<std::string> fitted;
    for (const auto& p : report.parameters) {
        if (p.fitted)
            fitted.insert(p.key);
    }
    for (const char* key : {"compute_efficiency", "gemm_bandwidth_efficiency", "tile_load_Bpc",
                            "block_overhead_cycles", "k_tile_latency_cycles",
                            "chained_kernel_latency", "kernel_latency"})
        EXPECT_TRUE(fitted.count(key)) << key;
    EXPECT_LT(report.in_sample.median, 0.01);
}

}  // namespace
}  // namespace hetsim::app
