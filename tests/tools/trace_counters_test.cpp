// The trace's counter tracks (sim/run_recorder.cpp) against the run's own metrics: a link's
// bytes-per-second counter integrates to the bytes the link carried, its utilisation stays in
// [0, 1], and a component's memory-occupancy counter peaks at the peak the run reports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::testing {
namespace {

struct Sample {
    double time_us, value;
};

TEST(TraceCounters, AgreeWithTheRunsBytesAndPeaks) {
    TempDir dir;
    const Outcome run = run_hetsim(
        std::string("run ") + HETSIM_SOURCE_DIR +
        "/configs/studies/default.yaml --set samples=1 --set placers=[lee2022.als] --trace "
        "--out " +
        dir.path().string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto trace = nlohmann::json::parse(read_file(dir.path() / "lee2022.als.trace.json"));
    const auto results = nlohmann::json::parse(read_file(dir.path() / "results.json"));
    nlohmann::json row;
    for (const auto& r : results["rows"])
        if (r["placer"] == "lee2022.als")
            row = r;
    ASSERT_FALSE(row.is_null());

    std::map<int, std::string> process;
    std::map<std::pair<std::string, std::string>, std::vector<Sample>> counters;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "process_name")
            process[e["pid"].get<int>()] = e["args"]["name"].get<std::string>();
    }
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "C") {
            counters[{process.at(e["pid"].get<int>()), e["name"].get<std::string>()}].push_back(
                {e["ts"].get<double>(), e["args"]["value"].get<double>()});
        }
    }
    // Links: bytes = ∫ B/s dt over the step function the samples draw.
    ASSERT_FALSE(row["link_bytes"].empty());
    for (const auto& [key, bytes] : row["link_bytes"].items()) {
        const auto colon = key.find(':');
        const std::string proc = key.substr(0, colon), dir_name = key.substr(colon + 1);
        const auto& rate = counters[{proc, dir_name + " B/s"}];
        const auto& util = counters[{proc, dir_name + " utilisation"}];
        ASSERT_GE(rate.size(), 2u) << key;
        ASSERT_EQ(util.size(), rate.size()) << key;
        double integral = 0.0;
        for (std::size_t i = 0; i + 1 < rate.size(); ++i) {
            EXPECT_LE(rate[i].time_us, rate[i + 1].time_us);
            integral += rate[i].value * (rate[i + 1].time_us - rate[i].time_us) * 1e-6;
        }
        EXPECT_EQ(rate.back().value, 0.0) << key;  // idle after the last transfer
        EXPECT_NEAR(integral, bytes.get<double>(), 1e-6 * bytes.get<double>()) << key;
        for (const auto& s : util) {
            EXPECT_GE(s.value, 0.0);
            EXPECT_LE(s.value, 1.0);
        }
    }
    // Memory: the counter's maximum per component is the peak the run reports for its devices.
    const std::map<std::string, std::string> component_of{{"CPU_S", "cpu"}, {"PIM", "pim"}};
    for (const auto& [device, component] : component_of) {
        const auto& occupancy = counters[{component, "memory occupancy (bytes)"}];
        ASSERT_FALSE(occupancy.empty()) << component;
        double peak = 0.0;
        for (const auto& s : occupancy)
            peak = std::max(peak, s.value);
        EXPECT_EQ(peak, row["peak_memory_bytes"][device].get<double>()) << component;
        EXPECT_EQ(occupancy.front().time_us, 0.0);  // the weights, resident from the start
        EXPECT_GT(occupancy.front().value, 0.0);
    }
}

}  // namespace
}  // namespace hetsim::testing
