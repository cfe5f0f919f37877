// `hetsim sweep SWEEP.yaml`: the app side of a design-space sweep (sweep/ runs it).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sweep/runner.hpp"

namespace hetsim::app {

struct StudyConfig;

struct SweepRequest {
    std::string file;
    std::string out;  // default out/<sweep name>
    int jobs = 1;
    bool resume = false;
    bool retry_failed = false;
    bool dry_run = false;        // check every point and list them; run nothing, write nothing
    bool deterministic = false;  // workers run with --deterministic (no wall-clock fields)
};

// DIR/sweep.json, which `hetsim report` and tools/plot.py read: `axes` are the results.csv
// columns of the axes, `axis_paths` their YAML paths.
struct SweepManifest {
    std::string name;
    std::string file, study;  // made absolute
    std::vector<std::string> axis_paths;
    std::size_t points = 0, removed_by_where = 0;
    std::string sampling;
    bool compare = false;  // written by `hetsim compare` (the report adds its leaderboard)
    // `study_digests`: point id -> the digest of the study it runs (study_digest), in the
    // sweep's order; what `--resume` checks. Left out of the file when empty.
    std::vector<std::pair<std::string, std::string>> study_digests = {};
};
void write_sweep_manifest(const std::filesystem::path& out, const SweepManifest& manifest);

// A point's study as sweep.json records it: a digest of the resolved study (the point's axis
// values set, the platform inlined, as study.resolved.yaml shows it). A file the study names by
// path (a JSON or ONNX workload) counts by its path, not by its content.
std::string study_digest(const StudyConfig& config);

// What DIR/sweep.json recorded before this run (the runner's --resume check); `found` is false
// when it is missing or not a JSON object.
sweep::RunOptions::Recorded read_recorded_studies(const std::filesystem::path& out);

// The study digests of a run's manifest: each of `points`'s, and with `resume` (read before
// this run's manifest replaces DIR/sweep.json) the recorded ones of points no longer run, whose
// rows stay in results.csv. Returns what was recorded when resuming (RunOptions::recorded).
std::optional<sweep::RunOptions::Recorded> record_study_digests(
    const std::filesystem::path& out, const std::vector<sweep::DesignPoint>& points, bool resume,
    SweepManifest& manifest);

// Writes DIR/sweep.json and, unless kept, puts back what was there (the old file, or none) when
// it goes out of scope: a sweep refused after the manifest was written leaves no trace.
class ManifestWrite {
public:
    ManifestWrite(const std::filesystem::path& out, const SweepManifest& manifest);
    ~ManifestWrite();
    ManifestWrite(const ManifestWrite&) = delete;
    ManifestWrite& operator=(const ManifestWrite&) = delete;
    void keep() { kept_ = true; }

private:
    std::filesystem::path file_;
    std::optional<std::string> old_;  // the file's previous content
    bool created_dir_ = false;
    bool kept_ = false;
};

// The runner's options for points run as `hetsim run` workers of this executable, whose rows
// have the study's results.csv columns.
sweep::RunOptions worker_options(const std::filesystem::path& out, int jobs, bool resume,
                                 const std::string& study_name, std::ostream& progress,
                                 bool terminal);

// Loads and checks the sweep (its base study at every point, so that a typo or a bad value fails
// here with exit 2 naming the point, not in its workers), writes DIR/sweep.json, runs the points
// and returns the closing summary. Returns the exit code through `exit_code`: 0 when every point
// ran, 1 when some failed, 130 when interrupted.
std::string run_sweep(const SweepRequest& request, std::ostream& progress, bool terminal,
                      int& exit_code);

}  // namespace hetsim::app
