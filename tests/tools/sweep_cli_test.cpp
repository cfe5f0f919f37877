// `hetsim sweep` end to end: a sweep killed with SIGKILL and resumed gives the rows of an
// uninterrupted run; SIGINT finishes the points in flight; failed and timed-out points become
// rows with their reason and --retry-failed runs them again; an MPI run gives the rows of a -j 2
// run; progress lines when not on a terminal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/csv.hpp"
#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

// Arguments as one command line (test paths hold no spaces).
std::string fmt_args(const std::vector<std::string>& args) {
    std::string line;
    for (const auto& a : args)
        line += (line.empty() ? "" : " ") + a;
    return line;
}

// The default study (5 placers, ~0.1 s per point without sanitizers) at 10 design points.
std::string sweep_yaml(const std::string& extra = "") {
    return std::string("sweep: t\nstudy: ") + HETSIM_SOURCE_DIR +
           "/configs/studies/default.yaml\n"
           "axes:\n  workload.seq_len: [8, 16]\n"
           "  platform.components.dma.forward.bandwidth: [0.25 GB/s, 0.5 GB/s, 1 GB/s, 2 GB/s, "
           "4 GB/s]\n" +
           extra;
}

std::vector<sim::CsvRow> rows_of(const fs::path& csv) {
    std::istringstream in(read_file(csv));
    return sim::read_csv(in);
}

// The rows without the wall-clock column (placer_time_s), which no two runs share.
std::vector<sim::CsvRow> comparable_rows(const fs::path& csv) {
    std::vector<sim::CsvRow> rows = rows_of(csv);
    if (rows.empty())
        return rows;
    const auto col = sim::csv_column(rows.front(), "placer_time_s");
    for (auto& row : rows)
        row.erase(row.begin() + static_cast<std::ptrdiff_t>(*col));
    return rows;
}

std::set<std::string> points_in(const fs::path& csv) {
    std::set<std::string> ids;
    const auto rows = rows_of(csv);
    for (std::size_t i = 1; i < rows.size(); ++i)
        ids.insert(rows[i].at(1));
    return ids;
}

// Starts `hetsim <args>` without waiting (its output in `log`).
pid_t start_hetsim(const std::vector<std::string>& args, const fs::path& log) {
    const pid_t pid = fork();
    if (pid == 0) {
        freopen(log.c_str(), "w", stdout);
        dup2(fileno(stdout), STDERR_FILENO);
        std::vector<char*> argv{const_cast<char*>(HETSIM_BINARY)};
        for (const auto& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(HETSIM_BINARY, argv.data());
        _exit(127);
    }
    return pid;
}

// Waits until `csv` lists at least `points` design points (or `limit` passes).
void wait_for_points(const fs::path& csv, std::size_t points, std::chrono::seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
        if (fs::exists(csv) && points_in(csv).size() >= points)
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

int wait_exit(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void expect_no_duplicates(const fs::path& csv) {
    std::set<std::pair<std::string, std::string>> seen;
    const auto rows = rows_of(csv);
    for (std::size_t i = 1; i < rows.size(); ++i)
        EXPECT_TRUE(seen.insert({rows[i].at(1), rows[i].at(2)}).second)
            << "duplicate row " << rows[i].at(1) << " " << rows[i].at(2);
}

TEST(CliSweep, KilledAndResumedGivesTheRowsOfAnUninterruptedRun) {
    TempDir dir;
    const fs::path sweep = dir.write("sweep.yaml", sweep_yaml());
    const Outcome reference = run_hetsim(
        fmt_args({"sweep", sweep.string(), "-j", "2", "--out", (dir.path() / "ref").string()}));
    ASSERT_EQ(reference.exit_code, 0) << reference.output;
    ASSERT_EQ(points_in(dir.path() / "ref/results.csv").size(), 10u);

    const fs::path run = dir.path() / "run";
    const pid_t pid = start_hetsim({"sweep", sweep.string(), "-j", "1", "--out", run.string()},
                                   dir.path() / "killed.log");
    wait_for_points(run / "results.csv", 3, std::chrono::seconds(300));
    kill(pid, SIGKILL);
    EXPECT_EQ(wait_exit(pid), 128 + SIGKILL);
    const std::size_t before = points_in(run / "results.csv").size();
    ASSERT_GE(before, 3u);
    ASSERT_LT(before, 10u) << "the sweep finished before it was killed: nothing was tested";

    const Outcome resumed = run_hetsim(
        fmt_args({"sweep", sweep.string(), "--resume", "-j", "2", "--out", run.string()}));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_THAT(resumed.output, HasSubstr(std::to_string(before) + " of 10 points already in"));
    EXPECT_EQ(comparable_rows(run / "results.csv"),
              comparable_rows(dir.path() / "ref/results.csv"));
    expect_no_duplicates(run / "results.csv");
    // results.jsonl: one line per row, in the same order.
    EXPECT_EQ(read_file(run / "results.jsonl").size() > 0, true);
    const auto lines = [](const fs::path& f) {
        std::istringstream in(read_file(f));
        std::size_t n = 0;
        for (std::string line; std::getline(in, line);)
            ++n;
        return n;
    };
    EXPECT_EQ(lines(run / "results.jsonl"), lines(dir.path() / "ref/results.jsonl"));
    EXPECT_EQ(lines(run / "results.jsonl"), rows_of(run / "results.csv").size() - 1);
}

TEST(CliSweep, SigintFinishesThePointsInFlight) {
    TempDir dir;
    const fs::path sweep = dir.write("sweep.yaml", sweep_yaml());
    const fs::path run = dir.path() / "run";
    const pid_t pid = start_hetsim({"sweep", sweep.string(), "-j", "2", "--out", run.string()},
                                   dir.path() / "sweep.log");
    wait_for_points(run / "results.csv", 1, std::chrono::seconds(300));
    kill(pid, SIGINT);
    EXPECT_EQ(wait_exit(pid), 130);
    const std::string log = read_file(dir.path() / "sweep.log");
    EXPECT_THAT(log, HasSubstr("interrupted; finishing"));
    EXPECT_THAT(log, HasSubstr("--resume"));
    // Every point that started has its rows: the ones in flight finished, none was lost.
    std::size_t started = 0;
    for (const auto& entry : fs::directory_iterator(run / "points"))
        started += entry.is_directory() ? 1 : 0;
    const std::set<std::string> done = points_in(run / "results.csv");
    EXPECT_EQ(done.size(), started);
    EXPECT_LT(done.size(), 10u);
    const auto rows = rows_of(run / "results.csv");
    EXPECT_EQ(rows.size() - 1, done.size() * 5);  // 5 placers per point, whole points only
    const Outcome resumed =
        run_hetsim(fmt_args({"sweep", sweep.string(), "--resume", "--out", run.string()}));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_EQ(points_in(run / "results.csv").size(), 10u);
    expect_no_duplicates(run / "results.csv");
}

TEST(CliSweep, FailedAndTimedOutPointsAreRowsWithTheirReason) {
    TempDir dir;
    // A valid study whose baseline refuses the graph when it runs (exhaustive over more than 10
    // placements): the point fails, the sweep goes on.
    const fs::path sweep =
        dir.write("sweep.yaml", std::string("sweep: t\nstudy: ") + HETSIM_SOURCE_DIR +
                                    "/configs/studies/default.yaml\naxes:\n"
                                    "  baseline: [single:CPU_S, 'exhaustive:10', single:PIM]\n");
    const fs::path out = dir.path() / "out";
    const Outcome first = run_hetsim(fmt_args({"sweep", sweep.string(), "--out", out.string()}));
    EXPECT_EQ(first.exit_code, 1) << first.output;
    EXPECT_THAT(first.output, HasSubstr("3 points: 2 ran ok, 1 failed"));
    auto rows = rows_of(out / "results.csv");
    const auto status = *sim::csv_column(rows.front(), "status");
    const auto error = *sim::csv_column(rows.front(), "error");
    std::size_t failed = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        if (rows[i][status] == "failed") {
            ++failed;
            EXPECT_THAT(rows[i][error], HasSubstr("more than the limit of 10"));
            EXPECT_EQ(rows[i].back(), "exhaustive:10");  // the axis column
            EXPECT_EQ(rows[i][2], "");                   // no placer
        } else {
            EXPECT_EQ(rows[i][status], "ok");
        }
    }
    EXPECT_EQ(failed, 1u);
    EXPECT_EQ(rows.size() - 1, 2u * 5 + 1);
    // --resume keeps the failure; --retry-failed runs it again, and it replaces its old row.
    const Outcome resumed =
        run_hetsim(fmt_args({"sweep", sweep.string(), "--resume", "--out", out.string()}));
    EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_THAT(resumed.output, HasSubstr("0 ran ok, 0 failed, 3 already done"));
    const Outcome retried =
        run_hetsim(fmt_args({"sweep", sweep.string(), "--retry-failed", "--out", out.string()}));
    EXPECT_EQ(retried.exit_code, 1) << retried.output;
    EXPECT_THAT(retried.output, HasSubstr("0 ran ok, 1 failed, 2 already done"));
    EXPECT_EQ(rows_of(out / "results.csv").size() - 1, 2u * 5 + 1);
    expect_no_duplicates(out / "results.csv");

    // A timeout far below a point's run time: every point fails with it.
    const fs::path slow = dir.write(
        "slow.yaml", std::string("sweep: t\nstudy: ") + HETSIM_SOURCE_DIR +
                         "/configs/studies/default.yaml\naxes:\n  workload.seq_len: [8, 16]\n"
                         "timeout: 1 ms\n");
    const Outcome timed = run_hetsim(
        fmt_args({"sweep", slow.string(), "--out", (dir.path() / "slow").string(), "-j", "2"}));
    EXPECT_EQ(timed.exit_code, 1) << timed.output;
    rows = rows_of(dir.path() / "slow/results.csv");
    ASSERT_EQ(rows.size(), 3u);
    for (std::size_t i = 1; i < rows.size(); ++i)
        EXPECT_EQ(rows[i][error], "timed out after 0.001 s");
}

TEST(CliSweep, ProgressLinesAndBadInput) {
    TempDir dir;
    const fs::path sweep = dir.write(
        "sweep.yaml", std::string("sweep: t\nstudy: ") + HETSIM_SOURCE_DIR +
                          "/configs/studies/default.yaml\naxes:\n  workload.seq_len: [8, 16]\n");
    const Outcome ok =
        run_hetsim(fmt_args({"sweep", sweep.string(), "--out", (dir.path() / "o").string()}));
    ASSERT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_THAT(ok.output, HasSubstr("[1/2] p"));
    EXPECT_THAT(ok.output, HasSubstr("[2/2] p"));
    EXPECT_THAT(ok.output, HasSubstr("ETA"));
    EXPECT_TRUE(fs::exists(dir.path() / "o/sweep.json"));

    const fs::path bad_axis = dir.write(
        "bad.yaml", std::string("sweep: t\nstudy: ") + HETSIM_SOURCE_DIR +
                        "/configs/studies/default.yaml\naxes:\n  workload.seq_lenn: [8]\n");
    const Outcome bad =
        run_hetsim(fmt_args({"sweep", bad_axis.string(), "--out", (dir.path() / "b").string()}));
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_THAT(bad.output, HasSubstr("seq_lenn"));
    const fs::path typo = dir.write("typo.yaml", "sweep: t\nstudy: x.yaml\naxis: {}\n");
    const Outcome bad_key = run_hetsim(fmt_args({"sweep", typo.string()}));
    EXPECT_EQ(bad_key.exit_code, 2);
    EXPECT_THAT(bad_key.output, HasSubstr("typo.yaml"));
}

// Every point is built before any runs: a bad value on the last axis fails the whole sweep with
// exit 2, names the sweep file, the point and the assignment, and writes nothing.
TEST(CliSweep, EveryPointIsCheckedBeforeAnyRuns) {
    TempDir dir;
    const std::string head = std::string("sweep: t\nstudy: ") + HETSIM_SOURCE_DIR +
                             "/configs/studies/default.yaml\naxes:\n  workload.seq_len: [8, 16]\n";
    const fs::path bad = dir.write(
        "late.yaml", head + "  platform.components.dma.forward.bandwidth: [1 GB/s, fast]\n");
    const fs::path out = dir.path() / "o";
    const Outcome o = run_hetsim(fmt_args({"sweep", bad.string(), "--out", out.string()}));
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("late.yaml: axes: point 2 of 4"));
    EXPECT_THAT(o.output,
                HasSubstr("--set platform.components.dma.forward.bandwidth=fast: expected a "
                          "bandwidth"));
    EXPECT_THAT(o.output, Not(HasSubstr("[1/4]")));  // nothing ran
    EXPECT_FALSE(fs::exists(out));

    // --dry-run: every point listed and checked, nothing run or written.
    const fs::path good = dir.write(
        "good.yaml", head + "  platform.components.dma.forward.bandwidth: [1 GB/s, 2 GB/s]\n");
    const Outcome dry =
        run_hetsim(fmt_args({"sweep", good.string(), "--dry-run", "--out", out.string()}));
    ASSERT_EQ(dry.exit_code, 0) << dry.output;
    EXPECT_THAT(dry.output, HasSubstr("seq_len=16, bandwidth=2 GB/s"));
    EXPECT_THAT(dry.output, HasSubstr("4 points (grid)"));
    EXPECT_THAT(dry.output, HasSubstr("every one a valid study"));
    EXPECT_FALSE(fs::exists(out));
}

// A refused --resume (the folder holds another sweep's results) leaves the folder as it was: no
// sweep.json of this sweep, no lock file.
TEST(CliSweep, ARefusedResumeLeavesNoTrace) {
    TempDir dir;
    const fs::path out = dir.path() / "o";
    fs::create_directories(out);
    dir.write("o/results.csv", "some,other,columns\n1,2,3\n");
    const fs::path sweep =
        dir.write("s.yaml", std::string("sweep: t\nstudy: ") + HETSIM_SOURCE_DIR +
                                "/configs/studies/default.yaml\naxes:\n  workload.seq_len: [8]\n");
    const Outcome o =
        run_hetsim(fmt_args({"sweep", sweep.string(), "--resume", "--out", out.string()}));
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("has other columns than this sweep writes"));
    // One line: the banner waits until the results folder is open.
    EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << o.output;
    EXPECT_FALSE(fs::exists(out / "sweep.json"));
    EXPECT_FALSE(fs::exists(out / ".lock"));
    EXPECT_EQ(read_file(out / "results.csv"), "some,other,columns\n1,2,3\n");
    // An earlier manifest is put back as it was.
    dir.write("o/sweep.json", "{\"sweep\": \"earlier\"}\n");
    EXPECT_EQ(run_hetsim(fmt_args({"sweep", sweep.string(), "--resume", "--out", out.string()}))
                  .exit_code,
              2);
    EXPECT_EQ(read_file(out / "sweep.json"), "{\"sweep\": \"earlier\"}\n");
}

// Campaign 5 (sr08): the point ids hash the axes' values only, so after the base study changed
// (a placer added) --resume took the old rows for done and the new placer never ran. sweep.json
// records what each point runs; a resume whose points would now run something else is refused
// (exit 2, one line naming sweep.json), and one with nothing changed still resumes, writing the
// same sweep.json.
TEST(CliSweep, ResumeRefusesRowsOfAStudyThatChanged) {
    TempDir dir;
    const std::string study = std::string("study: s\nplatform: ") + HETSIM_SOURCE_DIR +
                              "/configs/platforms/zynq_silentpim.yaml\nworkload: {model: bert, "
                              "layers: 1, seq_len: 8}\nsamples: 1\nplacers: ";
    dir.write("s.yaml", study + "[heft]\n");
    const fs::path sweep =
        dir.write("w.yaml", "sweep: w\nstudy: s.yaml\naxes:\n  workload.seq_len: [8, 16]\n");
    const fs::path out = dir.path() / "o";
    const auto resume = [&](const fs::path& file) {
        return run_hetsim(fmt_args({"sweep", file.string(), "--resume", "--out", out.string()}));
    };
    ASSERT_EQ(run_hetsim(fmt_args({"sweep", sweep.string(), "--out", out.string()})).exit_code, 0);
    const std::string manifest = read_file(out / "sweep.json");
    EXPECT_THAT(manifest, HasSubstr("\"study_digests\": {"));
    Outcome same = resume(sweep);
    ASSERT_EQ(same.exit_code, 0) << same.output;
    EXPECT_THAT(same.output, HasSubstr("2 of 2 points already in"));
    EXPECT_EQ(read_file(out / "sweep.json"), manifest);
    const std::string results = read_file(out / "results.csv");

    const auto expect_refused = [&](const Outcome& o, const std::string& why) {
        EXPECT_EQ(o.exit_code, 2) << o.output;
        EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << o.output;
        EXPECT_THAT(o.output, HasSubstr("hetsim: error: " + (out / "sweep.json").string() + ": "));
        EXPECT_THAT(o.output, HasSubstr(why));
        EXPECT_THAT(o.output, HasSubstr("run without --resume to replace the results"));
        EXPECT_EQ(read_file(out / "results.csv"), results);
    };
    dir.write("s.yaml", study + "[heft, random]\n");
    const Outcome changed = resume(sweep);
    expect_refused(changed, "(seq_len=8) ran another study than it runs now: '" +
                                fs::absolute(dir.path() / "s.yaml").string() +
                                "' or its platform changed since");
    EXPECT_EQ(read_file(out / "sweep.json"), manifest);
    // Another study file with the first one's content is the same study.
    dir.write("s2.yaml", study + "[heft]\n");
    const fs::path moved =
        dir.write("w2.yaml", "sweep: w\nstudy: s2.yaml\naxes:\n  workload.seq_len: [8, 16]\n");
    const Outcome same_content = resume(moved);
    EXPECT_EQ(same_content.exit_code, 0) << same_content.output;
    EXPECT_EQ(read_file(out / "results.csv"), results);
    expect_refused(resume(sweep), "the sweep's study was '" +
                                      fs::absolute(dir.path() / "s2.yaml").string() + "', now '" +
                                      fs::absolute(dir.path() / "s.yaml").string() + "'");
    fs::remove(out / "sweep.json");
    expect_refused(resume(sweep), "sweep.json: is missing, so nothing says which study");
    // Without --resume the rows are replaced, with the new placer's.
    const Outcome fresh = run_hetsim(fmt_args({"sweep", sweep.string(), "--out", out.string()}));
    ASSERT_EQ(fresh.exit_code, 0) << fresh.output;
    EXPECT_EQ(rows_of(out / "results.csv").size(), 1u + 2 * 2);
}

TEST(CliSweep, MpiRanksGiveTheRowsOfAJobsRun) {
    if (run_command("command -v mpirun").exit_code != 0)
        GTEST_SKIP() << "mpirun not installed (tools/setup.sh installs openmpi-bin)";
    TempDir dir;
    const fs::path sweep = dir.write("sweep.yaml", sweep_yaml());
    const Outcome jobs = run_hetsim(
        fmt_args({"sweep", sweep.string(), "-j", "2", "--out", (dir.path() / "j2").string()}));
    ASSERT_EQ(jobs.exit_code, 0) << jobs.output;
    // OpenMPI refuses root unless told, and leaks at MPI_Finalize (LeakSanitizer would fail the
    // ranks of a sanitized build).
    const std::string root = geteuid() == 0 ? " --allow-run-as-root" : "";
    const Outcome mpi = run_command("ASAN_OPTIONS=detect_leaks=0 mpirun -np 2 --oversubscribe" +
                                    root + " " + HETSIM_BINARY + " sweep " + sweep.string() +
                                    " --out " + (dir.path() / "mpi").string());
    ASSERT_EQ(mpi.exit_code, 0) << mpi.output;
    EXPECT_THAT(mpi.output, HasSubstr("per MPI rank"));
    EXPECT_EQ(comparable_rows(dir.path() / "mpi/results.csv"),
              comparable_rows(dir.path() / "j2/results.csv"));
}

}  // namespace
}  // namespace hetsim::testing
