// A sweep's results.csv and results.jsonl, written so that a crash loses at most the points in
// flight: each finished point's rows go to the end of both files in one write(2) each, then
// fsync(2). A resumed sweep reads the files back, drops a torn last line (a crash inside the
// write) and any point present in one file but not the other (a crash between the two writes),
// and skips the points left.
//
// results.csv keeps the study's header (app::write_outputs), `point` holding the point id, and
// adds `status` (ok | failed), `error` (why a point failed) and one column per axis, named by
// its YAML path (axis_columns). A failed point is one row with an empty placer.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sweep/design_space.hpp"

namespace hetsim::sweep {

// The values of results.csv's `status` column: the only two a sweep writes.
inline constexpr const char* kStatusOk = "ok";
inline constexpr const char* kStatusFailed = "failed";
// "" for a status a sweep writes, else what is wrong: "status 'bogus', expected ok or failed".
std::string status_problem(const std::string& status);

// What running one point gave, as rows ready for the two files.
struct PointOutcome {
    std::size_t index = 0;
    std::string id;
    bool ok = false;
    std::string error;       // when !ok
    std::string csv_rows;    // complete lines, '\n'-terminated
    std::string jsonl_rows;  // one JSON object per line
    double seconds = 0.0;    // wall time of the point
    // For MPI: the outcome as one string and back.
    std::string serialize() const;
    static PointOutcome deserialize(const std::string& text);
};

// The results.csv column of each axis: its path, or "axis.<path>" when the study's header (or
// status, error) already has a column of that name (an `objective` axis).
std::vector<std::string> axis_columns(const std::vector<std::string>& study_header,
                                      const std::vector<std::string>& axes);

class ResultsStore {
public:
    // `study_header`: the study's results.csv columns; `axes`: the sweep's axis paths.
    ResultsStore(std::filesystem::path dir, std::vector<std::string> study_header,
                 std::vector<std::string> axes);

    // Why a resume may not reuse the rows of the points it would keep: the file to name and
    // the reason. `check` gets those points (id -> status) before any file is changed.
    struct Refusal {
        std::filesystem::path file;
        std::string why;
    };
    using ResumeCheck =
        std::function<std::optional<Refusal>(const std::map<std::string, std::string>& present)>;

    // Opens the files, after taking DIR/.lock (flock, held until the store is destroyed):
    // throws sim::InputError when another sweep is writing DIR. Without `resume` any previous
    // results are replaced. With it, the points
    // already present are returned (id -> "ok" | "failed"), and with `retry_failed` the failed
    // ones are dropped from the files (and not returned) so that they run again. A results.csv
    // that a sweep did not write as it is (other columns or widths, a status other than ok or
    // failed, a (point, placer) row twice), or a `check` that refuses, throws sim::InputError
    // and leaves the folder as it was.
    std::map<std::string, std::string> open(bool resume, bool retry_failed,
                                            const ResumeCheck& check = {});

    // Appends one point's rows to both files (one write each, then fsync).
    void append(const PointOutcome& outcome);

    // Rewrites both files (atomically) with the points in the sweep's order; points of the files
    // that are not in `points` (an earlier version of the sweep) stay, after them.
    void sort(const std::vector<DesignPoint>& points);

    // The rows of a point from its own `hetsim run` outputs (results.csv and results.json in
    // `point_dir`), with `point` set to its id and the status and axis columns added. Throws
    // std::runtime_error when the files are missing or have another header.
    PointOutcome read_point(const DesignPoint& point, const std::filesystem::path& point_dir,
                            double seconds) const;
    // The one row of a failed point.
    PointOutcome failed_point(const DesignPoint& point, const std::string& study_name,
                              const std::string& error, double seconds) const;

    std::filesystem::path csv_path() const { return dir_ / "results.csv"; }
    std::filesystem::path jsonl_path() const { return dir_ / "results.jsonl"; }
    std::string header_line() const;

    ~ResultsStore();
    ResultsStore(const ResultsStore&) = delete;
    ResultsStore& operator=(const ResultsStore&) = delete;

private:
    int lock_fd_ = -1;
    std::filesystem::path dir_;
    std::vector<std::string> study_header_;
    std::vector<std::string> axes_;
};

}  // namespace hetsim::sweep
