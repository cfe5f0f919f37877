// A study: one platform, one workload, several placers, one evaluator. Parsing, running and
// writing its outputs (table, results.csv, results.json, placements, traces, resolved config).
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "placement/placer.hpp"
#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/evaluator.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "sim/trace.hpp"
#include "traces/trace_writer.hpp"

namespace hetsim::app {

struct StudyConfig {
    std::string name;
    std::string file;  // the study file ("" for inline)
    sim::Platform platform;
    std::shared_ptr<sim::Graph> graph;
    std::string workload_label;  // "bert(layers=4,seq_len=16,...)"
    std::vector<std::string> placers;
    std::string baseline;  // placer spec; run first, its latency is the speedup reference
    placement::Objective objective = placement::Objective::latency;
    std::string evaluator = "des";
    std::uint64_t seed = 1;
    int samples = 8;
    std::string point = "default";  // design-point label
    YAML::Node resolved;            // the study after --set overrides, platform inlined
};

// Reads a study file, applies `overrides` ("a.b=c"), resolves the platform file relative to
// the study and builds the workload graph. Throws sim::InputError for any bad input.
// A study may list design points as axes, every combination one point:
//   points: { workload.seq_len: [8, 16, 32, 64] }
// load_study_points returns one StudyConfig per point (one when there is no `points:`),
// labelled "seq_len=8"; load_study returns the first.
std::vector<StudyConfig> load_study_points(const std::string& file,
                                           const std::vector<std::string>& overrides);
StudyConfig load_study(const std::string& file, const std::vector<std::string>& overrides);
StudyConfig parse_study(const sim::ConfigNode& root);

// Builds a workload from its YAML mapping ({model: bert, seq_len: 16, ...} or {json: f}).
std::shared_ptr<sim::Graph> build_workload(const sim::ConfigNode& node, std::string& label);

struct PlacerRow {
    std::string placer;
    sim::Placement placement;
    sim::Metrics metrics;
    double speedup = 1.0;  // baseline latency / this latency
    double placer_time_s = 0.0;
    int profile_runs = 0;
    std::map<std::string, std::string> stats;
    std::map<std::string, std::string> tables;  // placer CSVs by kind: <kind>_<placer>.csv
    std::string summary;                        // the placer's own one-line report
    // EOP's AT (xu2022 Eq. 4, placement/eop/eop_placer.hpp), for every row of a study that
    // runs an eop-family placer; NaN otherwise (an empty results.csv cell).
    double eop_at_s = std::numeric_limits<double>::quiet_NaN();
    sim::Trace trace;
};

struct StudyResult {
    std::vector<PlacerRow> rows;  // baseline first
};

// With `progress`, what the study is doing: on a `terminal` a status line redrawn in place,
// else a line per placement or simulation that took a second or more.
StudyResult run_study(const StudyConfig& study, bool record_traces,
                      std::ostream* progress = nullptr, bool terminal = false);

// "12.345 ms", "3.21 us", "1.234 s".
std::string human_time(double seconds);

// The terminal table.
std::string format_table(const StudyConfig& study, const StudyResult& result);

struct PointRun {
    StudyConfig config;
    StudyResult result;
};

// The columns of results.csv, in order (a sweep keeps them and adds its own).
const std::vector<std::string>& results_csv_columns();

// Writes results.csv, results.json, placement_<placer>.json, study.resolved.yaml, the placers'
// tables (convergence_<placer>.csv, ...) and (with traces) <placer>.trace.json into `out_dir` (file
// names prefixed by the point when a study has several), each through a temporary file and a
// rename, after everything is rendered.
// Traces in `trace_format` (traces/trace_writer.hpp): <placer>.trace.json, or
// <placer>.trace.pftrace for perfetto_proto. A trace above `trace_limit_bytes` is split by time
// into <placer>.trace.part<k>.json (.pftrace) files, with a warning on `warnings`.
void write_outputs(const std::vector<PointRun>& runs, const std::filesystem::path& out_dir,
                   bool traces, std::size_t trace_limit_bytes = traces::kDefaultTraceLimitBytes,
                   std::ostream* warnings = nullptr,
                   const std::string& trace_format = "perfetto_json", bool deterministic = false);
// With `deterministic`, the wall-clock quantities are left out: results.csv's placer_time_s cells
// are empty, results.json has no placer_time_s, and every placer stat whose name ends in
// "wall_s" (the only names wall-clock stats may have) is dropped. What is left is the same
// bytes in every run with the same inputs and seed.
bool is_wall_clock_stat(const std::string& name);

// A placer spec as a file-name part: "priority:CPU_P,PIM" -> "priority_CPU_P_PIM".
std::string file_safe(const std::string& spec);

// Writes `content` to `file` atomically (temporary name, then rename).
using sim::write_file_atomically;

// Debian's Python, which has matplotlib, torch, torchvision and onnx (tools/setup.sh); never the
// first python3 on PATH.
inline constexpr const char* kSystemPython = "/usr/bin/python3";
// tools/<name> of the working directory, else of the source tree; nullopt when neither exists.
std::optional<std::filesystem::path> find_tool_script(const std::string& name);

}  // namespace hetsim::app
