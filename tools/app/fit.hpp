// `hetsim calibrate PLATFORM --fit MEASUREMENTS.csv` and `--check`: fit a platform's free
// constants to measured times, or predict measured times without fitting (issue 25).
//
// A measurement file is CSV with the header `device,workload,time_s` and optionally `knobs`,
// `scope`, `reference_device` + `speedup` (a ratio instead of a time), `reference_workload`,
// `reference_knobs`, `weight` and `source` (measurement_columns(); usage.md, `hetsim
// calibrate`, says what each holds). Scopes (measurement_scopes()): `compute` (every op of the
// graph on the device, its operands already there: the sum of the ops' times, host dispatch
// included; fused as the device's `compiler:` fuses), `kernel` (the same, device side only: what
// CUDA events around kernels issued ahead of time measure), `end_to_end` (a DES run of the graph on
// the device from the host, transfers included), `transfer` (workload `copy`, knobs
// `bytes=N;direction=host_to_device|device_to_host[;host_memory=pinned|pageable]`: one copy
// over the route) and `dispatch` (knob `ops=N`: the wall time per op of N launches of a one-op
// graph queued back to back, the host's per-op cost overlapping the device's).
//
// The fit is weighted nonlinear least squares on log time (a relative error: a 10 us kernel
// counts as much as a 10 ms one), solved by Eigen's Levenberg-Marquardt (MINPACK's lmder),
// over the free parameters each component type declares (sim::FreeParameter) that the
// platform file states. Each parameter is fitted on its logarithm through a logistic map onto
// its bounds, so the solver never leaves them. Weights are relative: divided by their mean.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "sim/units.hpp"

namespace hetsim::app {

struct Measurement {
    int line = 0;  // in the CSV file, 1-based (the header is line 1)
    std::string device;
    std::string workload;  // as written
    std::string knobs;     // as written
    std::string scope = "compute";
    double time_s = 0.0;           // measured time (0 for a ratio row)
    std::string reference_device;  // a ratio row: time on reference_device / time on device
    // A ratio row may time the reference device on another workload (EOP's Table 5: the two
    // parts of a split op, whose times are equal at the published ratio); empty: `workload`.
    std::string reference_workload;
    std::string reference_knobs;
    double speedup = 0.0;
    double weight = 1.0;
    std::string source;                       // e.g. "read off lee2022 Fig. 8a"
    std::shared_ptr<const sim::Graph> graph;  // null for a transfer
    std::shared_ptr<const sim::Graph> fused;  // the graph as TVM fuses it (sim/passes/fuse.hpp)
    // The reference device's graphs: reference_workload's, else the same as graph and fused.
    std::shared_ptr<const sim::Graph> reference_graph;
    std::shared_ptr<const sim::Graph> reference_fused;
    std::int64_t transfer_bytes = 0;
    bool host_to_device = true;
    bool page_locked = false;       // host_memory=pinned: the link's page-locked rate
    std::int64_t dispatch_ops = 0;  // a dispatch row: the launches queued back to back

    bool is_ratio() const { return !reference_device.empty(); }
    double measured() const { return is_ratio() ? speedup : time_s; }
};

struct MeasurementFile {
    std::string path;
    std::vector<Measurement> rows;
};

// The columns a measurement file may have, and the scopes a row may name.
const std::vector<std::string>& measurement_columns();
const std::vector<std::string>& measurement_scopes();

// Reads and validates a measurement file against a platform: devices exist and run every op,
// workloads load, every knob is one the row's workload takes, times are decimal numbers in the
// simulator's range, no row repeats another. Bad input throws sim::InputError naming the
// file, the line and the column (exit 2).
MeasurementFile load_measurements(const std::string& csv_path, const sim::Platform& platform);

// What the platform predicts for a row: a time in seconds, or the speedup of a ratio row.
double predict(const sim::Platform& platform, const Measurement& row);

struct FittedParameter {
    std::string component;
    std::string key;
    std::optional<sim::Quantity> quantity;  // nullopt: a plain number
    double lower = 0.0, upper = 0.0;
    double initial = 0.0;
    double value = 0.0;
    double std_error = 0.0;  // NaN when the rows cannot say (as many rows as parameters)
    bool fitted = true;      // false: no row depends on it, kept as it was
    bool at_bound = false;
    std::string describe(double v) const;  // "4.93 us", "0.812"
};

struct ErrorSummary {
    std::size_t rows = 0;
    double median = 0.0;  // relative errors |predicted - measured| / measured
    double p90 = 0.0;
    double max = 0.0;
};
ErrorSummary summarize_errors(std::vector<double> relative_errors);

struct FitRequest {
    std::string platform_file;
    std::string measurements_file;
    std::vector<std::string> devices;  // empty: every device the rows name
    std::string out;                   // the fitted platform file; empty: not written
    int folds = 5;                     // cross-validation folds; 0: none
    std::vector<std::string> fixed;    // "component.key": kept as written, not fitted
    bool folds_given = false;          // --folds was on the command line (else the default)
    // Levenberg-Marquardt runs from the file's values and from starts - 1 more points around
    // them; the best is kept (a tile and wave model's error surface has steps and local minima).
    int starts = 1;
};

struct FitReport {
    std::string platform_file;
    std::string measurements_file;
    std::vector<FittedParameter> parameters;
    std::vector<std::string> notes;  // parameters left out, and why
    ErrorSummary in_sample;
    int folds = 5;
    std::optional<ErrorSummary> cross_validated;
    std::string cross_validation_note;  // why there is none
    int evaluations = 0;
    int starts = 1;
    double objective = 0.0;  // the fit's sum of squared weighted log errors
    std::string solver_status;
    std::string fitted_text;  // the platform file with the fitted values
};

FitReport fit_platform(const FitRequest& request);
std::string format_fit(const FitReport& report);

struct CheckRow {
    std::size_t row = 0;  // index into CheckReport::measurements.rows
    double predicted = 0.0;
    double relative_error = 0.0;
};
struct CheckReport {
    std::string platform_file;
    MeasurementFile measurements;
    std::vector<CheckRow> rows;
    ErrorSummary errors;
};
// The columns of calibration.csv, one row per measurement: a time row fills measured_s and
// predicted_s, a ratio row measured_speedup and predicted_speedup (the other pair empty).
const std::vector<std::string>& check_csv_columns();
// Predicts every row without fitting; with `out_dir`, writes out_dir/calibration.csv. A
// prediction beyond the simulator's time range is an InputError naming the row.
CheckReport check_platform(const std::string& platform_file, const std::string& measurements_file,
                           const std::string& out_dir);
std::string format_check(const CheckReport& report);

// The measurement sets a shipped platform is calibrated against (configs/calibration/), by
// platform name: {label, path under configs/}. `hetsim calibrate PLATFORM` prints each,
// measured against predicted. Empty for a platform without any.
struct MeasurementSet {
    std::string label;
    std::string path;
};
std::vector<MeasurementSet> measurement_sets(const std::string& platform_name);

}  // namespace hetsim::app
