// `hetsim compare COMPARE.yaml`: every listed placer on every listed study, one leaderboard
// (issue 28). A compare file:
//
//   compare: all
//   timeout: 2 min              # per (study, placer) run; past it the run is `timeout`
//   placers: all                # default: every registered placer that runs without arguments,
//                               # plus single:<device> for each device of the study's platform;
//                               # or a list of placer specs
//   exclude: [mcm.rl]           # placer names (or specs) left out of `all`
//   args: {mcmc: samples=200}   # arguments `all` gives a placer that it lists by name
//   studies:                    # study files, relative to this file
//     - ../studies/default.yaml
//     - study: ../studies/duet_wide_and_deep.yaml
//       paper: duet             # the family of the paper the workload comes from (summary)
//       set: [seed=2]           # --set overrides of this study
//       placers: [heft, peft]   # this study's own list (else the file's)
//       exclude: [duet.exhaustive]
//
// It runs on the sweep runner (sweep/runner.hpp): each (study, placer) pair is one point, run as
// `hetsim run STUDY --set placers=[P] --set baseline=P --keep-infeasible` in its own worker
// process, -j at a time, resumable (--resume) and under mpirun. DIR/results.csv is the sweep's,
// with the axes `compare.study` and `compare.placer`; from it DIR/leaderboard.csv and
// DIR/leaderboard.md.
//
// A run that ends with exit 2 (bad input: the placer refuses this platform or graph, e.g. a ring
// placer on a platform without chiplets) is `n/a` with the placer's own reason; a placement that
// overflows a memory or breaks the platform's rules is `infeasible`; a run past the timeout is
// `timeout`; anything else (a crash, an internal error) is `failed`. A placer that `all` cannot
// list without arguments (priority, replay, tarnawski.expert) is `not run`, with its usage. None
// is dropped silently.
//
// The best-known result of a study is the best feasible result of any placer. It is labelled
// `optimum` when `exhaustive` (every assignment under the study's own evaluator) found it; a
// list scheduler's schedule can still beat exhaustive's placements, whose order is the
// simulator's, and is then the best-known.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace hetsim::app {

struct CompareRequest {
    std::string file;
    std::string out;  // default out/<compare name>
    int jobs = 1;
    bool resume = false;
    bool dry_run = false;  // list the runs and the placers not run; run nothing, write nothing
    bool deterministic = false;  // workers run with --deterministic (no placer times)
};

// Loads and checks the compare file and every study in it (exit 2 before anything runs), runs
// the points, writes DIR/leaderboard.csv and DIR/leaderboard.md, and returns the leaderboard's
// summary table with where the files are. `exit_code`: 0 when every point ran (n/a and
// infeasible included), 1 when some failed or timed out, 130 when interrupted.
std::string run_compare(const CompareRequest& request, std::ostream& progress, bool terminal,
                        int& exit_code);

// One line of the leaderboard.
struct LeaderboardRow {
    std::string study, platform, objective, paper;  // paper: the study's `paper:` family
    int rank = 0;                                   // 1 = best; 0 when not ok
    std::string placer, family;
    std::string status;  // ok | infeasible | n/a | not run | timeout | failed
    std::optional<double> latency_s, throughput_per_s;
    std::optional<double> speedup;      // over the study's baseline, in its objective
    std::optional<double> gap_to_best;  // relative: 0 = the best-known
    std::optional<double> placer_time_s;
    std::string best_kind;  // on the best row: "optimum (exhaustive)" or "best found"
    std::string reason;     // why it is not ok
};

// DIR/leaderboard.csv, read back (std::nullopt when DIR has none).
std::optional<std::vector<LeaderboardRow>> read_leaderboard(const std::filesystem::path& dir);
// Per study, a table of placers sorted by result, then the summary; `hetsim report` puts them
// at the top of report.md and report.html.
std::string leaderboard_markdown(const std::vector<LeaderboardRow>& rows);
std::string leaderboard_html(const std::vector<LeaderboardRow>& rows);

}  // namespace hetsim::app
