// Runs a sweep's points, each in its own worker process (`hetsim run STUDY --set ... --out
// DIR/points/<id>`: SystemC elaborates once per process, and a crash or a hang takes down one
// point, not the sweep), -j at a time, under a per-point timeout, appending each point's rows as
// it finishes (results_store.hpp).
//
// Interrupts: the first SIGINT or SIGTERM stops starting points and lets those in flight finish
// (workers run in their own process groups, so a terminal's Ctrl-C reaches only the sweep); a
// second one kills them. Either way the sweep exits cleanly and `--resume` continues it.
//
// Under `mpirun -np N` (OpenMPI) rank 0 owns the results and hands points out one at a time to
// every rank's workers (its own included); the other ranks send their rows back to it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sweep/design_space.hpp"

namespace hetsim::sweep {

struct RunOptions {
    std::filesystem::path out_dir;
    int jobs = 1;  // workers per process (per rank under MPI)
    bool resume = false;
    bool retry_failed = false;
    std::filesystem::path program;              // the hetsim executable that runs a point
    std::vector<std::string> worker_arguments;  // appended to every `hetsim run` of a point
    std::string study_name;  // the base study's name (a failed point's `study` column)
    std::vector<std::string> study_header;  // the study's results.csv columns
    std::ostream* log = nullptr;            // progress and messages (stderr)
    // Printed to `log` once the results folder is open: a refused --resume then prints its one
    // error line and nothing before it.
    std::string banner;
    bool terminal = false;  // `log` is a terminal: a redrawn bar, else lines
    // With `resume`: what DIR/sweep.json recorded before this run of the study each point ran
    // (DesignPoint::study_digest). A point whose rows the resume would keep must have run the
    // study it runs now, else the resume is refused (exit 2) naming `manifest`. Absent: not
    // checked (a caller that records no digests).
    struct Recorded {
        std::filesystem::path manifest;  // DIR/sweep.json
        bool found = false;              // it existed and was a sweep's manifest
        std::string study;               // its base study's path
        std::string current_study;       // the path this run's manifest records (same form)
        std::map<std::string, std::string> digests;  // point id -> study digest
    };
    std::optional<Recorded> recorded;
};

struct SweepSummary {
    std::size_t total = 0;    // points of the sweep
    std::size_t skipped = 0;  // already in the results (--resume)
    std::size_t ok = 0;       // run now, successfully
    std::size_t failed = 0;   // run now, failed
    std::size_t not_run = 0;  // left by an interrupt
    bool interrupted = false;
    double seconds = 0.0;
    bool writer = true;  // false on MPI ranks other than 0 (they write nothing)
};

// Runs the points not yet in the results. Throws sim::InputError for unusable results (another
// sweep's columns) and std::runtime_error when a worker cannot be started at all.
SweepSummary run_sweep(const SweepSpec& spec, const DesignSpace& space, const RunOptions& options);

// True when this process was started by mpirun (OpenMPI's environment).
bool under_mpi();
// True for the process that writes a sweep's files: rank 0 under mpirun, else this one.
bool writes_results();

}  // namespace hetsim::sweep
