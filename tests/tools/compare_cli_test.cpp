// `hetsim compare` end to end: every run classified (ok, infeasible, n/a with the placer's
// reason, not run), ranks, gaps and speedups computed from the runs' own results, the dry run
// listing what `all` expands to, bad compare files refused with exit 2 before anything runs,
// and `hetsim report` leading with the leaderboard.
#include <gmock/gmock.h>

#include <gtest/gtest.h>
#include <algorithm>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/csv.hpp"
#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

const std::string kStudies = std::string(HETSIM_SOURCE_DIR) + "/configs/studies/";

// leaderboard.csv as maps (column -> cell), in file order.
std::vector<std::map<std::string, std::string>> leaderboard(const fs::path& dir) {
    std::istringstream in(read_file(dir / "leaderboard.csv"));
    const std::vector<sim::CsvRow> csv = sim::read_csv(in);
    std::vector<std::map<std::string, std::string>> rows;
    for (std::size_t i = 1; i < csv.size(); ++i) {
        std::map<std::string, std::string> row;
        for (std::size_t c = 0; c < csv.front().size(); ++c)
            row[csv.front()[c]] = csv[i].at(c);
        rows.push_back(row);
    }
    return rows;
}

const std::map<std::string, std::string>& row_of(
    const std::vector<std::map<std::string, std::string>>& rows, const std::string& study,
    const std::string& placer) {
    for (const auto& r : rows) {
        if (r.at("study") == study && r.at("placer") == placer)
            return r;
    }
    ADD_FAILURE() << "no row for " << study << " / " << placer;
    static const std::map<std::string, std::string> none;
    return none;
}

TEST(CompareCli, LeaderboardClassifiesRanksAndReportsEveryRun) {
    TempDir dir;
    const fs::path file = dir.write(
        "c.yaml", "compare: t\nstudies:\n  - study: " + kStudies +
                      "duet_wide_and_deep.yaml\n    paper: duet\n"
                      "    placers: [single:CPU, heft, peft, duet.greedy_correction, mcm.greedy, "
                      "exhaustive:10, 'priority:GPU,CPU']\n"
                      "  - study: " +
                      kStudies +
                      "mcm_small.yaml\n    paper: mcm\n    placers: [heft, mcm.greedy]\n");
    const fs::path out = dir.path() / "out";
    const Outcome o = run_hetsim("compare " + file.string() + " -j 2 --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("leaderboard in"));
    const auto rows = leaderboard(out);
    // The study's baseline (single:GPU) runs too, first.
    ASSERT_EQ(rows.size(), 8u + 2u);

    const std::string duet = "duet_wide_and_deep";
    const auto& na_ring = row_of(rows, duet, "mcm.greedy");
    EXPECT_EQ(na_ring.at("status"), "n/a");
    EXPECT_THAT(na_ring.at("reason"), HasSubstr("chiplet"));
    EXPECT_EQ(na_ring.at("family"), "mcm");
    const auto& na_size = row_of(rows, duet, "exhaustive:10");
    EXPECT_EQ(na_size.at("status"), "n/a");
    EXPECT_THAT(na_size.at("reason"), HasSubstr("more than the limit of 10"));

    // Ranks follow latency; gap and speedup are the rows' own ratios.
    const double base = std::stod(row_of(rows, duet, "single:GPU").at("latency_s"));
    std::vector<double> latencies;
    double best = 0.0;
    for (const auto& r : rows) {
        if (r.at("study") != duet || r.at("status") != "ok")
            continue;
        const double latency = std::stod(r.at("latency_s"));
        EXPECT_EQ(std::stoi(r.at("rank")), static_cast<int>(latencies.size()) + 1);
        if (latencies.empty()) {
            best = latency;
            EXPECT_EQ(r.at("best_known"), "best found");  // no exhaustive ran here
        } else {
            EXPECT_GE(latency, latencies.back());
            EXPECT_EQ(r.at("best_known"), "");
        }
        latencies.push_back(latency);
        EXPECT_NEAR(std::stod(r.at("gap_to_best")), latency / best - 1.0, 1e-6);
        EXPECT_NEAR(std::stod(r.at("speedup")), base / latency, 1e-6);
    }
    EXPECT_EQ(latencies.size(), 6u);  // single:GPU, single:CPU, heft, peft, greedy, priority

    // The leaderboard's numbers are the run's: heft's row in results.csv.
    std::istringstream in(read_file(out / "results.csv"));
    const std::vector<sim::CsvRow> results = sim::read_csv(in);
    const std::size_t placer_col = *sim::csv_column(results.front(), "placer");
    const std::size_t study_col = *sim::csv_column(results.front(), "study");
    const std::size_t latency_col = *sim::csv_column(results.front(), "latency_s");
    bool found = false;
    for (std::size_t i = 1; i < results.size(); ++i) {
        if (results[i][placer_col] == "heft" && results[i][study_col] == duet) {
            EXPECT_NEAR(std::stod(results[i][latency_col]),
                        std::stod(row_of(rows, duet, "heft").at("latency_s")), 1e-12);
            found = true;
        }
    }
    EXPECT_TRUE(found);

    // On the ring, HEFT's schedule breaks mcm2022's partition rules: infeasible, with the rule.
    const auto& ring_heft = row_of(rows, "mcm_small", "heft");
    EXPECT_EQ(ring_heft.at("status"), "infeasible");
    EXPECT_THAT(ring_heft.at("reason"), HasSubstr("invalid partition"));
    const auto& ring_greedy = row_of(rows, "mcm_small", "mcm.greedy");
    EXPECT_EQ(ring_greedy.at("status"), "ok");
    EXPECT_EQ(ring_greedy.at("rank"), "1");
    EXPECT_NEAR(std::stod(ring_greedy.at("speedup")), 1.0, 1e-12);  // it is the baseline

    const std::string md = read_file(out / "leaderboard.md");
    EXPECT_THAT(md, HasSubstr("## Summary"));
    EXPECT_THAT(md, HasSubstr("## duet_wide_and_deep (xeon_titanv, latency)"));

    // `hetsim report` on it: the leaderboard first, a plot per study when matplotlib is there.
    const Outcome report = run_hetsim("report " + out.string());
    ASSERT_EQ(report.exit_code, 0) << report.output;
    const std::string report_md = read_file(out / "report.md");
    EXPECT_LT(report_md.find("## Summary"), report_md.find("## Best placer per point"));
    EXPECT_THAT(read_file(out / "report.html"), HasSubstr("<h2>Summary</h2>"));
    if (run_command("/usr/bin/python3 -c 'import matplotlib'").exit_code == 0) {
        EXPECT_TRUE(fs::exists(out / "plots" / "leaderboard_duet_wide_and_deep.png"));
        EXPECT_TRUE(fs::exists(out / "plots" / "leaderboard_mcm_small.png"));
    }
}

TEST(CompareCli, ExhaustiveOptimumIsLabelledOnlyWhenItIsTheBest) {
    TempDir dir;
    const fs::path file =
        dir.write("c.yaml", "compare: t\nstudies:\n  - study: " + kStudies +
                                "random_taskgraph.yaml\n    set: [workload.tasks=6, "
                                "workload.processors=2]\n"
                                "    placers: [exhaustive, heft, peft, single:P0]\n");
    const fs::path out = dir.path() / "out";
    const Outcome o = run_hetsim("compare " + file.string() + " --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    const auto rows = leaderboard(out);
    const auto& exhaustive = row_of(rows, "random_taskgraph", "exhaustive");
    ASSERT_EQ(exhaustive.at("status"), "ok");
    const bool attains = std::stod(exhaustive.at("gap_to_best")) <= 1e-9;
    EXPECT_EQ(rows.front().at("rank"), "1");
    EXPECT_EQ(rows.front().at("best_known"), attains ? "optimum (exhaustive)" : "best found");
}

TEST(CompareCli, DryRunListsWhatAllExpandsTo) {
    TempDir dir;
    const fs::path file = dir.write("c.yaml",
                                    "compare: t\nplacers: all\nexclude: [exhaustive]\n"
                                    "args: {mcmc: samples=5}\nstudies: [" +
                                        kStudies + "duet_wide_and_deep.yaml]\n");
    const fs::path out = dir.path() / "out";
    const Outcome o = run_hetsim("compare " + file.string() + " --dry-run --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("  run      heft\n"));
    EXPECT_THAT(o.output, HasSubstr("  run      single:CPU\n"));  // one per device
    EXPECT_THAT(o.output, HasSubstr("  run      single:GPU\n"));
    EXPECT_THAT(o.output, HasSubstr("  run      mcmc:samples=5\n"));
    EXPECT_THAT(o.output, HasSubstr("  run      mcm.greedy\n"));  // n/a is decided by running
    EXPECT_THAT(o.output, HasSubstr("  not run  replay: needs arguments (replay:<file>)"));
    EXPECT_THAT(o.output, Not(HasSubstr("run      exhaustive")));
    EXPECT_FALSE(fs::exists(out));
}

// A resumed compare kept the rows of a study whose file had changed since (the run ids name the
// study and placer, not its content); sweep.json records what each run ran, as a sweep's does.
TEST(CompareCli, ResumeRefusesRunsOfAStudyThatChanged) {
    TempDir dir;
    const std::string study_text =
        "study: rt\nplatform: " + kStudies +
        "../platforms/table4.yaml\nworkload: {model: random_taskgraph, tasks: 6, processors: "
        "2, seed: 1}\nobjective: latency\nplacers: [heft]\n";
    const fs::path study = dir.write("rt.yaml", study_text);
    const fs::path file = dir.write(
        "c.yaml", "compare: t\nstudies:\n  - study: " + study.string() + "\n    placers: [heft]\n");
    const fs::path out = dir.path() / "out";
    const std::string command = "compare " + file.string() + " --out " + out.string();
    ASSERT_EQ(run_hetsim(command).exit_code, 0);
    const Outcome same = run_hetsim(command + " --resume");
    EXPECT_EQ(same.exit_code, 0) << same.output;
    dir.write("rt.yaml", study_text.substr(0, study_text.find("seed: 1")) + "seed: 2}\n" +
                             study_text.substr(study_text.find("objective")));
    const Outcome changed = run_hetsim(command + " --resume");
    EXPECT_EQ(changed.exit_code, 2) << changed.output;
    EXPECT_THAT(changed.output, HasSubstr((out / "sweep.json").string()));
    EXPECT_THAT(changed.output, HasSubstr("'" + study.string() + "' or its platform changed"));
    EXPECT_EQ(std::count(changed.output.begin(), changed.output.end(), '\n'), 1) << changed.output;
}

TEST(CompareCli, BadCompareFilesExitTwoBeforeAnythingRuns) {
    TempDir dir;
    const fs::path out = dir.path() / "out";
    const auto expect_refused = [&](const std::string& text, const std::string& message) {
        const fs::path file = dir.write("bad.yaml", text);
        const Outcome o = run_hetsim("compare " + file.string() + " --out " + out.string());
        EXPECT_EQ(o.exit_code, 2) << o.output;
        EXPECT_THAT(o.output, HasSubstr("bad.yaml")) << text;
        EXPECT_THAT(o.output, HasSubstr(message)) << text;
        EXPECT_FALSE(fs::exists(out));
    };
    const std::string study = kStudies + "duet_wide_and_deep.yaml";
    expect_refused("compare: t\nstudies:\n  - study: " + study + "\n    placers: [hfet]\n",
                   "did you mean 'heft'");
    expect_refused("compare: t\nstudy: x\nstudies: [" + study + "]\n", "study");
    expect_refused("compare: t\nstudies: [" + study + ", " + study + "]\n", "listed twice");
    expect_refused("compare: t\nstudies: [nowhere.yaml]\n", "no such study file");
    expect_refused("compare: t\nstudies: []\n", "at least one study");
    expect_refused("compare: t\ntimeout: -1 s\nstudies: [" + study + "]\n", "positive");
    expect_refused("compare: t\nargs: {mcmc: samples=-3}\nstudies: [" + study + "]\n", "samples");
    // A study's paper is a placer family (the summary compares that family's best).
    expect_refused("compare: t\nstudies:\n  - {study: " + study + ", paper: dute}\n",
                   "no placer family 'dute' (did you mean 'duet'?)");
    const fs::path points = dir.write(
        "points.yaml", "study: p\nplatform: " + std::string(HETSIM_SOURCE_DIR) +
                           "/configs/platforms/zynq_silentpim.yaml\n"
                           "workload: {model: bert, layers: 1}\npoints: {workload.seq_len: [8, "
                           "16]}\nplacers: [single:CPU_S]\n");
    expect_refused("compare: t\nstudies: [" + points.string() + "]\n", "one design point");
}

}  // namespace
}  // namespace hetsim::testing
