// tools/plot.py and app::write_report on a synthetic sweep directory: two axes (a plain number
// and a quantity with a unit), three placers, a failed point, an infeasible row, a trace file.
// The plotted numbers are recomputed here from the CSV; the best placers and the summary are
// hand-computed. The plot parts are skipped when /usr/bin/python3 lacks matplotlib, the
// screenshot test when /usr/bin/chromium is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/config.hpp"
#include "sim/csv.hpp"
#include "tests/fixtures/cli_fixtures.hpp"
#include "tools/app/report.hpp"

namespace hetsim::tools {
namespace {

namespace fs = std::filesystem;
using hetsim::testing::read_file;
using hetsim::testing::run_command;
using hetsim::testing::TempDir;

const std::string python = "/usr/bin/python3";
const std::string plot_script = std::string(HETSIM_SOURCE_DIR) + "/tools/plot.py";

bool have_matplotlib() {
    static const bool ok = run_command(python + " -c 'import matplotlib'").exit_code == 0;
    return ok;
}

#define REQUIRE_MATPLOTLIB() \
    if (!have_matplotlib())  \
    GTEST_SKIP() << python   \
                 << " cannot import matplotlib (tools/setup.sh installs python3-matplotlib)"

const std::string kSeqLen = "workload.seq_len";
const std::string kBandwidth = "platform.components.dma.forward.bandwidth";

// Six points (seq_len 8/16/32 x 1/2 GB/s), placers greedy, "priority:CPU_P,PIM" (a comma, so
// quoted) and tarnawski.dp. p3's tarnawski.dp row is infeasible and would otherwise be the best
// and on the Pareto front; p6 failed. The latency_s of each point's rows, by placer:
//   p1 2.0 / 1.5 / 1.8 ms   p2 1.2 / 1.4 / 1.0   p3 4.0 / 3.0 / (2.0 infeasible)
//   p4 2.5 / 2.8 / 2.6      p5 8.0 / 6.0 / 5.0
const std::string kHeader =
    "study,point,placer,objective,latency_s,throughput_per_s,speedup,placer_time_s,profile_runs,"
    "evaluator,workload,platform,feasible,infeasible_reason,status,error,workload.seq_len,"
    "platform.components.dma.forward.bandwidth\n";

std::string row(const std::string& point, const std::string& placer, const std::string& latency_s,
                const std::string& throughput, const std::string& feasible,
                const std::string& seq_len, const std::string& bandwidth,
                const std::string& speedup = "1") {
    return "s," + point + "," + placer + ",latency," + latency_s + "," + throughput + "," +
           speedup + ",0.01,0,des,\"bert(seq_len=" + seq_len + ",layers=2)\",zynq," + feasible +
           "," + (feasible == "1" ? "\"\"" : "\"does not fit: \"\"PIM\"\" memory\"") + ",ok,\"\"," +
           seq_len + "," + bandwidth + "\n";
}

// The speedup column as the study runner writes it: the baseline's (greedy's) latency over the
// row's.
std::string over(double baseline_s, double latency_s) {
    return std::to_string(baseline_s / latency_s);
}

std::string results_csv() {
    const std::string g = "greedy", p = "\"priority:CPU_P,PIM\"", d = "tarnawski.dp";
    return kHeader +  //
           row("p000000000001", g, "0.002", "600", "1", "8", "1 GB/s") +
           row("p000000000001", p, "0.0015", "1200", "1", "8", "1 GB/s", over(2.0, 1.5)) +
           row("p000000000001", d, "0.0018", "650", "1", "8", "1 GB/s", over(2.0, 1.8)) +
           row("p000000000002", g, "0.0012", "900", "1", "8", "2 GB/s") +
           row("p000000000002", p, "0.0014", "800", "1", "8", "2 GB/s", over(1.2, 1.4)) +
           row("p000000000002", d, "0.001", "800", "1", "8", "2 GB/s", over(1.2, 1.0)) +
           row("p000000000003", g, "0.004", "300", "1", "16", "1 GB/s") +
           row("p000000000003", p, "0.003", "400", "1", "16", "1 GB/s", over(4.0, 3.0)) +
           row("p000000000003", d, "0.002", "5000", "0", "16", "1 GB/s", "0") +
           row("p000000000004", g, "0.0025", "450", "1", "16", "2 GB/s") +
           row("p000000000004", p, "0.0028", "420", "1", "16", "2 GB/s", over(2.5, 2.8)) +
           row("p000000000004", d, "0.0026", "500", "1", "16", "2 GB/s", over(2.5, 2.6)) +
           row("p000000000005", g, "0.008", "150", "1", "32", "1 GB/s") +
           row("p000000000005", p, "0.006", "200", "1", "32", "1 GB/s", over(8.0, 6.0)) +
           row("p000000000005", d, "0.005", "210", "1", "32", "1 GB/s", over(8.0, 5.0)) +
           "s,p000000000006,,latency,,,,,,des,\"bert(seq_len=32,layers=2)\",zynq,,\"\",failed,"
           "\"timed out after 600 s\",32,2 GB/s\n";
}

const std::string kTrace = "points/p000000000001/priority_CPU_P_PIM.trace.json";
const std::string kPlacement = "points/p000000000001/placement_priority_CPU_P_PIM.json";
const std::string kProtoTrace = "points/p000000000003/lee2022.als.pftrace";
const std::string kTracePart = "points/p000000000003/random.trace.part1.json";

// The synthetic sweep directory.
void write_sweep(const TempDir& dir, const std::string& csv) {
    dir.write("results.csv", csv);
    dir.write("sweep.json",
              R"({"sweep": "demo", "study": "configs/studies/demo.yaml", "axes": [")" + kSeqLen +
                  "\", \"" + kBandwidth + R"("], "points": 6, "sampling": "grid"})");
    fs::create_directories(dir.path() / "points/p000000000001");
    fs::create_directories(dir.path() / "points/p000000000006");
    dir.write(kTrace, R"({"traceEvents": []})");
    dir.write(kPlacement, "{}");
    // A protobuf trace and the parts of a split one are traces too; a log is not.
    fs::create_directories(dir.path() / "points/p000000000003");
    dir.write(kProtoTrace, "x");
    dir.write(kTracePart, "{}");
    dir.write("points/p000000000003/notes.json", "{}");
    dir.write("points/p000000000006/log.txt", "timed out\n");
}

// A results.csv row as the test reads it (through sim::read_csv).
struct Row {
    std::string point, placer;
    bool plotted = false;  // status ok and feasible
    double latency_s = 0.0, throughput_per_s = 0.0;
    double seq_len = 0.0, bandwidth_Bps = 0.0;
};

std::vector<Row> parse_rows(const std::string& csv) {
    std::istringstream in(csv);
    const auto records = sim::read_csv(in);
    const auto col = sim::csv_columns(records.at(0));
    // The unit conversion, spelled out for the two values the sweep uses.
    const std::map<std::string, double> bandwidths = {{"1 GB/s", 1e9}, {"2 GB/s", 2e9}};
    std::vector<Row> rows;
    for (std::size_t i = 1; i < records.size(); ++i) {
        const auto& r = records[i];
        Row out;
        out.point = r.at(col.at("point"));
        out.placer = r.at(col.at("placer"));
        out.plotted = r.at(col.at("status")) == "ok" && r.at(col.at("feasible")) == "1";
        if (out.plotted) {
            out.latency_s = std::stod(r.at(col.at("latency_s")));
            out.throughput_per_s = std::stod(r.at(col.at("throughput_per_s")));
        }
        out.seq_len = std::stod(r.at(col.at(kSeqLen)));
        out.bandwidth_Bps = bandwidths.at(r.at(col.at(kBandwidth)));
        rows.push_back(out);
    }
    return rows;
}

double geometric_mean(const std::vector<double>& values) {
    double log_sum = 0.0;
    for (double v : values)
        log_sum += std::log(v);
    return std::exp(log_sum / static_cast<double>(values.size()));
}

std::vector<double> doubles(const nlohmann::json& list) {
    std::vector<double> out;
    for (const auto& v : list)
        out.push_back(v.get<double>());
    return out;
}

// One plotted series, recomputed: per placer, the x values in order and the geometric mean of the
// plotted rows at each x; plus every row as an (x, y) pair.
struct Expected {
    std::vector<double> x, y;
    std::multiset<std::pair<double, double>> markers;
};

std::map<std::string, Expected> expected_series(const std::vector<Row>& rows, bool by_seq_len,
                                                bool latency) {
    std::map<std::string, std::map<double, std::vector<double>>> groups;
    std::map<std::string, Expected> out;
    for (const auto& r : rows) {
        if (!r.plotted)
            continue;
        const double x = by_seq_len ? r.seq_len : r.bandwidth_Bps;
        const double y = latency ? r.latency_s : r.throughput_per_s;
        groups[r.placer][x].push_back(y);
        out[r.placer].markers.insert({x, y});
    }
    for (const auto& [placer, by_x] : groups) {
        for (const auto& [x, ys] : by_x) {  // std::map: ascending x
            out[placer].x.push_back(x);
            out[placer].y.push_back(geometric_mean(ys));
        }
    }
    return out;
}

// The non-dominated (point, placer) pairs in (latency_s, throughput_per_s), by brute force.
std::set<std::pair<std::string, std::string>> expected_front(const std::vector<Row>& rows,
                                                             bool minimise_latency,
                                                             bool maximise_throughput) {
    auto no_worse = [](double a, double b, bool minimise) { return minimise ? a <= b : a >= b; };
    std::set<std::pair<std::string, std::string>> front;
    for (const auto& a : rows) {
        if (!a.plotted)
            continue;
        bool dominated = false;
        for (const auto& b : rows) {
            if (!b.plotted ||
                (b.latency_s == a.latency_s && b.throughput_per_s == a.throughput_per_s))
                continue;
            if (no_worse(b.latency_s, a.latency_s, minimise_latency) &&
                no_worse(b.throughput_per_s, a.throughput_per_s, !maximise_throughput))
                dominated = true;
        }
        if (!dominated)
            front.insert({a.point, a.placer});
    }
    return front;
}

bool is_png(const fs::path& file) {
    const std::string bytes = read_file(file);
    return bytes.size() > 100 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

nlohmann::json run_plot(const TempDir& dir, const std::string& extra = "") {
    const fs::path dump = dir.path() / "dump.json";
    const auto out = run_command(python + " " + plot_script + " " + dir.path().string() +
                                 " --dump-data " + dump.string() + extra);
    EXPECT_EQ(out.exit_code, 0) << out.output;
    const std::string text = read_file(dump);
    EXPECT_FALSE(text.empty()) << out.output;
    return text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
}

const nlohmann::json& figure_of(const nlohmann::json& dump, const std::string& kind,
                                const std::string& axis = "") {
    for (const auto& figure : dump.at("figures")) {
        if (figure.at("kind") == kind && (axis.empty() || figure.at("axis") == axis))
            return figure;
    }
    static const nlohmann::json none;
    ADD_FAILURE() << "no " << kind << " figure " << axis;
    return none;
}

TEST(ReportPlotTest, EverySeriesIsTheCsvData) {
    REQUIRE_MATPLOTLIB();
    TempDir dir;
    write_sweep(dir, results_csv());
    const auto rows = parse_rows(results_csv());
    const nlohmann::json dump = run_plot(dir);
    ASSERT_TRUE(dump.contains("figures"));
    EXPECT_EQ(dump.at("skipped").at("failed_points"), 1);
    EXPECT_EQ(dump.at("skipped").at("infeasible_rows"), 1);
    EXPECT_EQ(dump.at("skipped").at("rows"), 2);

    for (const bool by_seq_len : {true, false}) {
        const auto& figure = figure_of(dump, "axis", by_seq_len ? kSeqLen : kBandwidth);
        ASSERT_FALSE(figure.is_null());
        EXPECT_TRUE(figure.at("numeric"));
        EXPECT_EQ(figure.at("unit"), by_seq_len ? "" : "B/s");
        EXPECT_FALSE(figure.at("log_x"));  // 8..32 and 1..2 GB/s span less than 20x
        EXPECT_TRUE(figure.at("others_vary"));
        for (const bool latency : {true, false}) {
            SCOPED_TRACE(std::string(by_seq_len ? "seq_len " : "bandwidth ") +
                         (latency ? "latency" : "throughput"));
            const auto expected = expected_series(rows, by_seq_len, latency);
            const auto& series = figure.at("panels").at(latency ? "latency_s" : "throughput_per_s");
            ASSERT_EQ(series.size(), expected.size());
            for (const auto& s : series) {
                const std::string placer = s.at("placer");
                ASSERT_TRUE(expected.count(placer)) << placer;
                const Expected& e = expected.at(placer);
                EXPECT_EQ(doubles(s.at("x")), e.x) << placer;
                const auto y = doubles(s.at("y"));
                ASSERT_EQ(y.size(), e.y.size()) << placer;
                for (std::size_t i = 0; i < y.size(); ++i)
                    EXPECT_NEAR(y[i], e.y[i], 1e-12 * e.y[i]) << placer << " x=" << e.x[i];
                const auto mx = doubles(s.at("markers").at("x"));
                const auto my = doubles(s.at("markers").at("y"));
                ASSERT_EQ(mx.size(), my.size());
                std::multiset<std::pair<double, double>> markers;
                for (std::size_t i = 0; i < mx.size(); ++i)
                    markers.insert({mx[i], my[i]});
                EXPECT_EQ(markers, e.markers) << placer;
            }
        }
    }
    // tarnawski.dp at seq_len 16 is p4 alone: p3's infeasible row is not in the mean.
    const auto& dp = figure_of(dump, "axis", kSeqLen).at("panels").at("latency_s").at(2);
    EXPECT_EQ(dp.at("placer"), "tarnawski.dp");
    EXPECT_DOUBLE_EQ(dp.at("y").at(1).get<double>(), 0.0026);

    const auto& pareto = figure_of(dump, "pareto");
    ASSERT_FALSE(pareto.is_null());
    EXPECT_EQ(pareto.at("x"), "latency_s");
    EXPECT_EQ(pareto.at("y"), "throughput_per_s");
    EXPECT_EQ(pareto.at("x_sense"), "min");
    EXPECT_EQ(pareto.at("y_sense"), "max");
    EXPECT_EQ(pareto.at("points").size(), 14u);  // 5 ok points x 3 placers, less 1 infeasible
    std::set<std::pair<std::string, std::string>> front;
    for (const auto& p : pareto.at("front"))
        front.insert({p.at("point").get<std::string>(), p.at("placer").get<std::string>()});
    EXPECT_EQ(front, expected_front(rows, true, true));
    // ...which, by hand, is:
    const std::set<std::pair<std::string, std::string>> by_hand = {
        {"p000000000002", "tarnawski.dp"},
        {"p000000000002", "greedy"},
        {"p000000000001", "priority:CPU_P,PIM"}};
    EXPECT_EQ(front, by_hand);

    for (const auto& figure : dump.at("figures")) {
        const fs::path png = dir.path() / "plots" / figure.at("file").get<std::string>();
        EXPECT_TRUE(is_png(png)) << png;
    }
}

TEST(ReportPlotTest, ExplicitParetoSensesAndOutDir) {
    REQUIRE_MATPLOTLIB();
    TempDir dir;
    write_sweep(dir, results_csv());
    const fs::path out = dir.path() / "elsewhere";
    const nlohmann::json dump =
        run_plot(dir, " --out " + out.string() + " --pareto min:latency_s,min:throughput_per_s");
    const auto& pareto = figure_of(dump, "pareto");
    ASSERT_FALSE(pareto.is_null());
    EXPECT_EQ(pareto.at("y_sense"), "min");
    std::set<std::pair<std::string, std::string>> front;
    for (const auto& p : pareto.at("front"))
        front.insert({p.at("point").get<std::string>(), p.at("placer").get<std::string>()});
    EXPECT_EQ(front, expected_front(parse_rows(results_csv()), true, false));
    EXPECT_TRUE(is_png(out / pareto.at("file").get<std::string>()));
    EXPECT_FALSE(fs::exists(dir.path() / "plots"));
}

TEST(ReportPlotTest, BadInputExitsTwoWithOneLine) {
    REQUIRE_MATPLOTLIB();
    TempDir dir;
    auto missing = run_command(python + " " + plot_script + " " + dir.path().string());
    EXPECT_EQ(missing.exit_code, 2) << missing.output;
    EXPECT_NE(missing.output.find("results.csv"), std::string::npos) << missing.output;

    std::string no_status = results_csv();
    no_status.replace(no_status.find(",status,"), 8, ",state,");
    dir.write("results.csv", no_status);
    auto column = run_command(python + " " + plot_script + " " + dir.path().string());
    EXPECT_EQ(column.exit_code, 2);
    EXPECT_EQ(column.output,
              "plot.py: " + (dir.path() / "results.csv").string() + ": missing column 'status'\n");

    write_sweep(dir, results_csv());
    auto pareto = run_command(python + " " + plot_script + " " + dir.path().string() +
                              " --pareto latency_s,watts");
    EXPECT_EQ(pareto.exit_code, 2);
    EXPECT_NE(pareto.output.find("missing column 'watts'"), std::string::npos) << pareto.output;

    dir.write("results.csv", kHeader +
                                 "s,p9,,latency,,,,,,des,bert,zynq,,\"\",failed,\"killed\",8,"
                                 "1 GB/s\n");
    auto no_ok = run_command(python + " " + plot_script + " " + dir.path().string());
    EXPECT_EQ(no_ok.exit_code, 2);
    EXPECT_NE(no_ok.output.find("no rows with status ok"), std::string::npos) << no_ok.output;
}

// The Markdown row of a point in the best-placer table.
std::string md_row(const std::string& md, const std::string& point) {
    const auto begin = md.find("| " + point + " |");
    if (begin == std::string::npos)
        return "";
    return md.substr(begin, md.find('\n', begin) - begin);
}

TEST(ReportTest, BestPlacerPerPointFailedPointsAndLinks) {
    TempDir dir;
    write_sweep(dir, results_csv());
    std::ostringstream log;
    const std::string summary = app::write_report(dir.path(), log);
    EXPECT_NE(summary.find("report.md"), std::string::npos) << summary;
    EXPECT_NE(summary.find("report.html"), std::string::npos) << summary;
    // One line, ended (campaign 5, V33: the shell's next prompt continued it).
    EXPECT_EQ(summary.find('\n'), summary.size() - 1) << summary;
    const std::string md = read_file(dir.path() / "report.md");
    const std::string html = read_file(dir.path() / "report.html");
    EXPECT_NE(md.find("# Sweep demo"), std::string::npos);
    EXPECT_NE(md.find("6 points: 5 ok, 1 failed"), std::string::npos) << md;
    EXPECT_NE(html.find("6 points: 5 ok, 1 failed"), std::string::npos);

    // Lowest latency among feasible rows; p3's infeasible tarnawski.dp (2.0 ms) is not it.
    const std::map<std::string, std::string> best = {{"p000000000001", "priority:CPU_P,PIM"},
                                                     {"p000000000002", "tarnawski.dp"},
                                                     {"p000000000003", "priority:CPU_P,PIM"},
                                                     {"p000000000004", "greedy"},
                                                     {"p000000000005", "tarnawski.dp"}};
    for (const auto& [point, placer] : best) {
        const std::string line = md_row(md, point);
        EXPECT_NE(line.find("**" + placer + "**"), std::string::npos) << line;
        const auto at = html.find("<td>" + point + "</td>");
        ASSERT_NE(at, std::string::npos) << point;
        const std::string tr = html.substr(at, html.find("</tr>", at) - at);
        EXPECT_NE(tr.find("<strong>" + placer + "</strong>"), std::string::npos) << tr;
    }
    EXPECT_NE(md_row(md, "p000000000001").find("| 8 | 1 GB/s |"), std::string::npos);
    EXPECT_NE(md_row(md, "p000000000003").find("| 2/3 |"), std::string::npos);  // feasible rows
    EXPECT_NE(md_row(md, "p000000000003").find("| 3.000 ms | 400 /s |"), std::string::npos)
        << md_row(md, "p000000000003");

    // The trace and placement of p1 are linked, relative to the directory; p2 has none.
    EXPECT_NE(md_row(md, "p000000000001").find("(" + kTrace + ")"), std::string::npos) << md;
    EXPECT_NE(md_row(md, "p000000000001").find("(" + kPlacement + ")"), std::string::npos);
    EXPECT_EQ(md_row(md, "p000000000002").find(".trace.json"), std::string::npos);
    EXPECT_NE(md_row(md, "p000000000003").find("(" + kProtoTrace + ")"), std::string::npos);
    EXPECT_NE(md_row(md, "p000000000003").find("(" + kTracePart + ")"), std::string::npos);
    EXPECT_EQ(md_row(md, "p000000000003").find("notes.json"), std::string::npos);
    EXPECT_NE(html.find("<a href=\"" + kTrace + "\">"), std::string::npos);
    EXPECT_NE(html.find("<a href=\"" + kPlacement + "\">"), std::string::npos);

    // The failed point: in the failed table with its error and log, not in the best table.
    const auto failed_section = md.find("## Failed points");
    ASSERT_NE(failed_section, std::string::npos);
    const auto failed_row = md.find("| p000000000006 |");
    ASSERT_NE(failed_row, std::string::npos);
    EXPECT_GT(failed_row, failed_section);
    EXPECT_EQ(md.find("| p000000000006 |", failed_row + 1), std::string::npos);
    EXPECT_NE(md_row(md, "p000000000006").find("timed out after 600 s"), std::string::npos);
    EXPECT_NE(md_row(md, "p000000000006").find("(points/p000000000006/log.txt)"),
              std::string::npos);
    EXPECT_NE(html.find("<td class=\"error\">timed out after 600 s</td>"), std::string::npos);
}

TEST(ReportTest, ThroughputObjectivePicksTheHighestThroughput) {
    TempDir dir;
    std::string csv = results_csv();
    for (auto at = csv.find(",latency,"); at != std::string::npos; at = csv.find(",latency,", at))
        csv.replace(at, 9, ",throughput,");
    write_sweep(dir, csv);
    std::ostringstream log;
    app::write_report(dir.path(), log);
    const std::string md = read_file(dir.path() / "report.md");
    // Throughputs: p1 600/1200/650, p2 900/800/800, p3 300/400/(5000 infeasible),
    // p4 450/420/500, p5 150/200/210.
    const std::map<std::string, std::string> best = {{"p000000000001", "priority:CPU_P,PIM"},
                                                     {"p000000000002", "greedy"},
                                                     {"p000000000003", "priority:CPU_P,PIM"},
                                                     {"p000000000004", "tarnawski.dp"},
                                                     {"p000000000005", "tarnawski.dp"}};
    for (const auto& [point, placer] : best) {
        const std::string line = md_row(md, point);
        EXPECT_NE(line.find("**" + placer + "**"), std::string::npos) << line;
    }
}

TEST(ReportTest, EmbedsThePlots) {
    REQUIRE_MATPLOTLIB();
    TempDir dir;
    write_sweep(dir, results_csv());
    std::ostringstream log;
    const std::string summary = app::write_report(dir.path(), log);
    EXPECT_EQ(log.str(), "");
    EXPECT_NE(summary.find("4 plots"), std::string::npos) << summary;
    const std::string md = read_file(dir.path() / "report.md");
    const std::string html = read_file(dir.path() / "report.html");
    const nlohmann::json dump =
        nlohmann::json::parse(read_file(dir.path() / "plots" / "plot_data.json"));
    // The heatmap of the two axes, a line figure per axis and the Pareto front.
    ASSERT_EQ(dump.at("figures").size(), 4u);
    for (const auto& figure : dump.at("figures")) {
        const std::string file = "plots/" + figure.at("file").get<std::string>();
        EXPECT_TRUE(is_png(dir.path() / file)) << file;
        EXPECT_NE(md.find("](" + file + ")"), std::string::npos) << file;
        EXPECT_NE(html.find("<img src=\"" + file + "\""), std::string::npos) << file;
    }
    EXPECT_NE(md.find("1 failed point, 1 infeasible placement"), std::string::npos);
}

// The InputError that refuses a report of `dir` (a failure when there is none).
sim::InputError report_refusal(const fs::path& dir) {
    std::ostringstream log;
    try {
        app::write_report(dir, log);
    } catch (const sim::InputError& e) {
        return e;
    }
    ADD_FAILURE() << "expected sim::InputError";
    return sim::InputError("", "", 0, "no error");
}

TEST(ReportTest, MissingResultsCsvIsAnInputError) {
    TempDir dir;
    const sim::InputError e = report_refusal(dir.path());
    EXPECT_EQ(e.file(), (dir.path() / "results.csv").string());
    EXPECT_NE(std::string(e.what()).find("not a sweep output directory"), std::string::npos)
        << e.what();
    EXPECT_FALSE(fs::exists(dir.path() / "report.md"));
    (void)report_refusal(dir.path() / "absent");
}

TEST(ReportTest, MissingColumnIsAnInputError) {
    TempDir dir;
    std::string csv = results_csv();
    csv.replace(csv.find(",feasible,"), 10, ",fits,");
    write_sweep(dir, csv);
    const sim::InputError e = report_refusal(dir.path());
    EXPECT_EQ(e.message(), "missing column 'feasible'");
}

// A feasible row without its numbers is a damaged file: exit 2 naming the record and column, not a
// report that silently leaves the row out.
TEST(ReportTest, NonNumericCellsOfAFeasibleRowAreAnInputError) {
    const auto message_for = [](const std::string& bad_row) {
        TempDir dir;
        write_sweep(dir, results_csv() + bad_row);
        std::ostringstream log;
        try {
            app::write_report(dir.path(), log);
        } catch (const sim::InputError& e) {
            EXPECT_FALSE(fs::exists(dir.path() / "report.md"));
            return e.message();
        }
        return std::string("no error");
    };
    EXPECT_EQ(message_for(row("p000000000007", "x", "abc", "600", "1", "8", "1 GB/s")),
              "record 18: column 'latency_s' holds 'abc', expected a finite number >= 0");
    EXPECT_EQ(message_for(row("p000000000007", "x", "0.001", "nan", "1", "8", "1 GB/s")),
              "record 18: column 'throughput_per_s' holds 'nan', expected a finite number >= 0");
    EXPECT_EQ(message_for(row("p000000000007", "x", "0.001", "600", "yes", "8", "1 GB/s")),
              "record 18: column 'feasible' holds 'yes', expected 1 or 0");
    // Campaign 5 (rp07): a negative latency was ranked the best placer of its point.
    EXPECT_EQ(message_for(row("p000000000007", "x", "-1", "600", "1", "8", "1 GB/s")),
              "record 18: column 'latency_s' holds '-1', expected a finite number >= 0");
    EXPECT_EQ(message_for(row("p000000000007", "x", "0.001", "-600", "1", "8", "1 GB/s")),
              "record 18: column 'throughput_per_s' holds '-600', expected a finite number >= 0");
    EXPECT_EQ(message_for(row("p000000000007", "x", "0.001", "600", "1", "8", "1 GB/s", "-2")),
              "record 18: column 'speedup' holds '-2', expected a finite number >= 0");
    EXPECT_EQ(message_for(row("p000000000007", "x", "0.001", "600", "1", "8", "1 GB/s", "abc")),
              "record 18: column 'speedup' holds 'abc', expected a finite number >= 0");
    // An infeasible row may lack them.
    EXPECT_EQ(message_for(row("p000000000007", "x", "", "", "0", "8", "1 GB/s")), "no error");
    // Campaign 5: a status hetsim never writes was counted as failed (rp16), and a row pasted
    // twice counted twice (sr06).
    std::string bogus = row("p000000000007", "x", "0.001", "600", "1", "8", "1 GB/s");
    bogus.replace(bogus.find(",ok,"), 4, ",bogus,");
    EXPECT_EQ(message_for(bogus), "record 18: status 'bogus', expected ok or failed");
    EXPECT_EQ(message_for(row("p000000000001", "greedy", "0.002", "600", "1", "8", "1 GB/s")),
              "record 18: repeats the row of point p000000000001 and placer 'greedy' of record 2");
}

// Campaign 5 (rp28): a sweep.json listing an axis twice gave its summary rows and plot twice.
TEST(ReportTest, AnAxisListedTwiceInSweepJsonIsAnInputError) {
    TempDir dir;
    write_sweep(dir, results_csv());
    dir.write("sweep.json",
              R"({"sweep": "demo", "axes": [")" + kSeqLen + "\", \"" + kSeqLen + "\"]}");
    const sim::InputError e = report_refusal(dir.path());
    EXPECT_EQ(e.yaml_path(), "axes");
    EXPECT_EQ(e.message(), "lists '" + kSeqLen + "' twice; a sweep's axes are distinct");
    EXPECT_FALSE(fs::exists(dir.path() / "report.md"));
}

// Campaign 5 (oc03): a report.md that cannot be written (a folder of that name) was found only
// after tools/plot.py had drawn its figures into DIR/plots. The report's files are checked
// first: the refusal leaves no plots.
TEST(ReportTest, AReportThatCannotBeWrittenDrawsNoPlots) {
    TempDir dir;
    write_sweep(dir, results_csv());
    fs::create_directories(dir.path() / "report.md");
    const sim::InputError e = report_refusal(dir.path());
    EXPECT_NE(std::string(e.what()).find("cannot write the report: cannot write '" +
                                         (dir.path() / "report.md").string() + "': is a directory"),
              std::string::npos)
        << e.what();
    EXPECT_FALSE(fs::exists(dir.path() / "plots"));
    EXPECT_FALSE(fs::exists(dir.path() / "report.html"));
}

// The summary, hand-computed from the speedups over greedy (latency ratios):
//   p1 (8, 1 GB/s)  priority 4/3, dp 10/9     p2 (8, 2 GB/s)  priority 6/7, dp 1.2
//   p3 (16, 1 GB/s) priority 4/3, dp infeas.  p4 (16, 2 GB/s) priority 25/28, dp 25/26
//   p5 (32, 1 GB/s) priority 4/3, dp 1.6      p6 failed
// Geometric means; tarnawski.dp is not ranked where it is infeasible at a point (p3).
TEST(ReportTest, SummaryGivesTheBestPlacerItsSpeedupAndTheRunnerUp) {
    TempDir dir;
    write_sweep(dir, results_csv());
    std::ostringstream log;
    app::write_report(dir.path(), log);
    const std::string md = read_file(dir.path() / "report.md");
    const std::string html = read_file(dir.path() / "report.html");
    const std::string prio = "priority:CPU_P,PIM";
    // All five: priority (4/3)^(3/5) (6/7 * 25/28)^(1/5) = 1.1265, greedy 1; p1 and p3 are its.
    EXPECT_EQ(md_row(md, "all 5 points"), "| all 5 points | 5 | **" + prio +
                                              "** | 1.13× | 2 of 5 | greedy (1.00×, gap 12.6 %) |");
    // seq_len 8: dp sqrt(10/9 * 1.2) = 1.1547 over priority sqrt(4/3 * 6/7) = 1.0690.
    EXPECT_EQ(md_row(md, "sequence length = 8 tokens"),
              "| sequence length = 8 tokens | 2 | **tarnawski.dp** | 1.15× | 1 of 2 | " + prio +
                  " (1.07×, gap 8.0 %) |");
    // seq_len 16: dp is infeasible at p3, so priority sqrt(4/3 * 25/28) = 1.0911 leads greedy.
    EXPECT_EQ(md_row(md, "sequence length = 16 tokens"),
              "| sequence length = 16 tokens | 2 | **" + prio +
                  "** | 1.09× | 1 of 2 | greedy (1.00×, gap 9.1 %) |");
    // seq_len 32: p6 failed, p5 alone.
    EXPECT_EQ(md_row(md, "sequence length = 32 tokens"),
              "| sequence length = 32 tokens | 1 | **tarnawski.dp** | 1.60× | 1 of 1 | " + prio +
                  " (1.33×, gap 20.0 %) |");
    EXPECT_EQ(md_row(md, "dma forward bandwidth = 1 GB/s"),
              "| dma forward bandwidth = 1 GB/s | 3 | **" + prio +
                  "** | 1.33× | 2 of 3 | greedy (1.00×, gap 33.3 %) |");
    // 2 GB/s: dp sqrt(1.2 * 25/26) = 1.0742; priority sqrt(6/7 * 25/28) = 0.8748 is below greedy.
    EXPECT_EQ(md_row(md, "dma forward bandwidth = 2 GB/s"),
              "| dma forward bandwidth = 2 GB/s | 2 | **tarnawski.dp** | 1.07× | 1 of 2 | "
              "greedy (1.00×, gap 7.4 %) |");
    EXPECT_NE(md.find("baseline `greedy`"), std::string::npos);

    // The answer first: summary, then the plots, then the long tables, in both formats.
    const auto md_summary = md.find("## Summary"), md_plots = md.find("## Plots"),
               md_long = md.find("## Best placer per point");
    ASSERT_NE(md_summary, std::string::npos);
    EXPECT_LT(md_summary, md_plots);
    EXPECT_LT(md_plots, md_long);
    const auto html_summary = html.find("<h2 id=\"summary\">"),
               html_plots = html.find("<h2>Plots</h2>"), html_long = html.find("id=\"results\"");
    ASSERT_NE(html_summary, std::string::npos);
    EXPECT_LT(html_summary, html_plots);
    EXPECT_LT(html_plots, html_long);
    EXPECT_EQ(html.find("<table"), html.find("<table class=\"summary\">"));
    EXPECT_NE(html.find("<td><strong>tarnawski.dp</strong></td><td class=\"num\">1.60×</td>"),
              std::string::npos);
}

TEST(ReportTest, ColumnLabelsNameTheUnit) {
    const auto label = [](const std::string& column) {
        const app::ColumnLabel l = app::column_label(column);
        return l.unit.empty() ? l.label : l.label + " (" + l.unit + ")";
    };
    EXPECT_EQ(label("latency_s"), "latency (s)");
    EXPECT_EQ(label("throughput_per_s"), "throughput (1/s)");
    EXPECT_EQ(label("workload.seq_len"), "sequence length (tokens)");
    EXPECT_EQ(label("workload.batch"), "batch size (samples)");
    // The values carry the unit ("1 GB/s"); plot.py labels the axis with it.
    EXPECT_EQ(label(kBandwidth), "dma forward bandwidth");
    EXPECT_EQ(label("platform.devices.pim.channels"), "pim channels");
    EXPECT_EQ(label("platform.components.pim.memspec"), "pim memory standard");
    EXPECT_EQ(label("chips"), "chips");  // a named axis, not a YAML path
}

// A two-axis sweep gets the heatmap of its axes: per cell, the point's best placer, its latency
// and speedup; the failed point's cell has none. The plots are labelled from column_label.
TEST(ReportTest, TwoAxisSweepGetsAHeatmapOfTheBestPlacer) {
    REQUIRE_MATPLOTLIB();
    TempDir dir;
    write_sweep(dir, results_csv());
    std::ostringstream log;
    app::write_report(dir.path(), log);
    EXPECT_EQ(log.str(), "");
    const nlohmann::json dump =
        nlohmann::json::parse(read_file(dir.path() / "plots" / "plot_data.json"));
    EXPECT_EQ(dump.at("figures").at(0).at("kind"), "heatmap");  // first of the plots
    const auto& heatmap = figure_of(dump, "heatmap");
    ASSERT_FALSE(heatmap.is_null());
    EXPECT_EQ(heatmap.at("x"), kSeqLen);
    EXPECT_EQ(heatmap.at("y"), kBandwidth);
    EXPECT_EQ(heatmap.at("metric"), "latency_s");
    EXPECT_FALSE(heatmap.at("others_vary"));
    EXPECT_EQ(doubles(heatmap.at("x_values")), (std::vector<double>{8, 16, 32}));
    EXPECT_EQ(doubles(heatmap.at("y_values")), (std::vector<double>{1e9, 2e9}));
    std::map<std::pair<double, double>, nlohmann::json> cells;
    for (const auto& c : heatmap.at("cells"))
        cells[{c.at("x").get<double>(), c.at("y").get<double>()}] = c;
    ASSERT_EQ(cells.size(), 6u);
    EXPECT_EQ(cells.at({8, 1e9}).at("placer"), "priority:CPU_P,PIM");
    EXPECT_DOUBLE_EQ(cells.at({8, 1e9}).at("value").get<double>(), 0.0015);
    EXPECT_NEAR(cells.at({8, 1e9}).at("speedup").get<double>(), 4.0 / 3.0, 1e-6);
    EXPECT_EQ(cells.at({16, 2e9}).at("placer"), "greedy");  // the baseline: speedup 1
    EXPECT_NEAR(cells.at({16, 2e9}).at("speedup").get<double>(), 1.0, 1e-12);
    EXPECT_EQ(cells.at({32, 1e9}).at("placer"), "tarnawski.dp");
    EXPECT_TRUE(cells.at({32, 2e9}).at("value").is_null());  // p6 failed
    EXPECT_EQ(cells.at({32, 2e9}).at("points"), 1);
    EXPECT_TRUE(is_png(dir.path() / "plots" / heatmap.at("file").get<std::string>()));

    // plot.py got the labels: the context file holds column_label's.
    const nlohmann::json context =
        nlohmann::json::parse(read_file(dir.path() / "plots" / "context.json"));
    EXPECT_EQ(context.at("labels").at(kSeqLen).at("label"), "sequence length");
    EXPECT_EQ(context.at("labels").at(kSeqLen).at("unit"), "tokens");
    EXPECT_EQ(context.at("best").at("p000000000004").at("placer"), "greedy");
    const std::string md = read_file(dir.path() / "report.md");
    EXPECT_NE(md.find("![Best placer per sequence length and dma forward bandwidth"),
              std::string::npos)
        << md;
}

// --x draws that axis's line figure only and is the heatmap's x; --y alone picks the other.
TEST(ReportTest, XAndYChooseTheAxes) {
    REQUIRE_MATPLOTLIB();
    TempDir dir;
    write_sweep(dir, results_csv());
    std::ostringstream log;
    app::ReportOptions options;
    options.x_axis = kBandwidth;
    app::write_report(dir.path(), log, options);
    nlohmann::json dump = nlohmann::json::parse(read_file(dir.path() / "plots" / "plot_data.json"));
    std::vector<std::string> axes;
    for (const auto& figure : dump.at("figures")) {
        if (figure.at("kind") == "axis")
            axes.push_back(figure.at("axis"));
    }
    EXPECT_EQ(axes, std::vector<std::string>{kBandwidth});
    EXPECT_EQ(figure_of(dump, "heatmap").at("x"), kBandwidth);
    EXPECT_EQ(figure_of(dump, "heatmap").at("y"), kSeqLen);

    options = {};
    options.y_axis = kSeqLen;
    app::write_report(dir.path(), log, options);
    dump = nlohmann::json::parse(read_file(dir.path() / "plots" / "plot_data.json"));
    EXPECT_EQ(figure_of(dump, "heatmap").at("x"), kBandwidth);
    EXPECT_EQ(figure_of(dump, "heatmap").at("y"), kSeqLen);
}

// An unknown axis or column: exit 2, one line naming the option and what it accepts, nothing
// written.
TEST(ReportTest, UnknownAxisOrColumnNamesTheOptionAndTheAccepted) {
    TempDir dir;
    write_sweep(dir, results_csv());
    const auto error_of =
        [&](const app::ReportOptions& options) -> std::pair<std::string, std::string> {
        std::ostringstream log;
        try {
            app::write_report(dir.path(), log, options);
        } catch (const sim::InputError& e) {
            return {e.yaml_path(), e.message()};
        }
        return {"", "no error"};
    };
    app::ReportOptions x;
    x.x_axis = "workload.seqlen";
    EXPECT_EQ(error_of(x), (std::pair<std::string, std::string>{
                               "--x", "unknown axis 'workload.seqlen'; the sweep's axes: " +
                                          kSeqLen + ", " + kBandwidth}));
    app::ReportOptions y;
    y.y_axis = "latency_s";
    EXPECT_EQ(error_of(y).first, "--y");
    app::ReportOptions same;
    same.x_axis = same.y_axis = kSeqLen;
    EXPECT_EQ(error_of(same).first, "--y");
    app::ReportOptions pareto;
    pareto.pareto = "latency_s,max:watts";
    const auto [option, message] = error_of(pareto);
    EXPECT_EQ(option, "--pareto");
    EXPECT_EQ(message,
              "unknown or non-numeric column 'watts'; numeric columns: latency_s, "
              "throughput_per_s, speedup, placer_time_s, profile_runs, workload.seq_len (each "
              "optionally prefixed min: or max:)");
    pareto.pareto = "latency_s";
    EXPECT_EQ(error_of(pareto).first, "--pareto");
    pareto.pareto = "min:latency_s,latency_s";
    EXPECT_EQ(error_of(pareto),
              (std::pair<std::string, std::string>{"--pareto",
                                                   "'latency_s' twice: a Pareto plot needs two "
                                                   "different columns"}));
    EXPECT_FALSE(fs::exists(dir.path() / "report.md"));
    EXPECT_FALSE(fs::exists(dir.path() / "plots"));

    // Through the command line: exit 2 and one line.
    const auto out = hetsim::testing::run_hetsim("report " + dir.path().string() + " --x nope");
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
    EXPECT_NE(out.output.find("--x: unknown axis 'nope'; the sweep's axes: " + kSeqLen),
              std::string::npos)
        << out.output;
}

// A results.csv of the given (latency_s, throughput_per_s) rows, one placer per point.
std::string rows_csv(const std::vector<std::pair<std::string, std::string>>& rows) {
    std::string csv = kHeader;
    const std::vector<std::string> seq_lens = {"8", "16", "32", "64"};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        csv += row("p" + std::to_string(i + 1), "greedy", rows[i].first, rows[i].second, "1",
                   seq_lens.at(i), "1 GB/s");
    }
    return csv;
}

// A Pareto plot only where the rows trade one column against the other.
TEST(ReportPlotTest, NoParetoPlotWithoutATradeOff) {
    REQUIRE_MATPLOTLIB();
    const auto reason_for = [](const std::string& csv) {
        TempDir dir;
        write_sweep(dir, csv);
        std::ostringstream log;
        app::write_report(dir.path(), log);
        const nlohmann::json dump =
            nlohmann::json::parse(read_file(dir.path() / "plots" / "plot_data.json"));
        const bool drawn = std::any_of(dump.at("figures").begin(), dump.at("figures").end(),
                                       [](const auto& f) { return f.at("kind") == "pareto"; });
        const std::string md = read_file(dir.path() / "report.md");
        if (drawn) {
            EXPECT_TRUE(dump.at("pareto_skipped").is_null());
            return std::string("drawn");
        }
        const std::string reason = dump.at("pareto_skipped").at("reason");
        EXPECT_NE(md.find("No Pareto plot of throughput against latency: " + reason),
                  std::string::npos)
            << md;
        return reason;
    };
    // throughput = 1/latency: a curve, not a trade-off.
    EXPECT_NE(reason_for(rows_csv({{"0.001", "1000"}, {"0.002", "500"}, {"0.004", "250"}}))
                  .find("throughput is a monotone function of latency over the 3 plotted rows"),
              std::string::npos);
    // Not monotone (500 < 600 after 1000), but p1 beats both others in both columns.
    EXPECT_EQ(reason_for(rows_csv({{"0.001", "1000"}, {"0.002", "500"}, {"0.004", "600"}})),
              "greedy at point p1 is at least as good as every other row in both latency and "
              "throughput");
    // p1 is the fastest, p2 has the highest throughput (a pipelined placement): a trade-off.
    EXPECT_EQ(reason_for(rows_csv({{"0.001", "800"}, {"0.002", "1200"}, {"0.003", "1000"}})),
              "drawn");
}

// The HTML in headless Chromium at 1280x900: the summary is on the first screen, whole, and
// narrower than it; the screenshot is that size and not blank.
TEST(ReportScreenshotTest, SummaryIsOnTheFirstScreen) {
    const std::string chromium = "/usr/bin/chromium";
    if (!fs::exists(chromium))
        GTEST_SKIP() << chromium << " is missing (tools/setup.sh installs Debian's chromium)";
    REQUIRE_MATPLOTLIB();
    TempDir dir;
    write_sweep(dir, results_csv());
    std::ostringstream log;
    app::write_report(dir.path(), log);
    const std::string html = read_file(dir.path() / "report.html");
    // The summary comes before the first plot and before the long table, in the source.
    const auto summary_at = html.find("<table class=\"summary\">");
    ASSERT_NE(summary_at, std::string::npos);
    EXPECT_LT(summary_at, html.find("<img"));
    EXPECT_LT(summary_at, html.find("<table id=\"results\">"));

    const std::string flags =
        " --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,900 "
        "--user-data-dir=" +
        (dir.path() / "chromium-profile").string();
    // The layout, measured by a probe script in a copy of the page (the report itself has no
    // script): where the summary table ends and the first figure starts.
    std::string probe = html;
    probe.replace(probe.rfind("</body>"), 7,
                  "<script>const s = document.querySelector('table.summary')"
                  ".getBoundingClientRect(); const f = document.querySelector('figure');"
                  "document.body.setAttribute('data-layout', [s.top, s.bottom, s.right, "
                  "f ? f.getBoundingClientRect().top : -1].map(Math.round).join(' '));"
                  "</script></body>");
    const fs::path probe_file = dir.write("probe.html", probe);
    const auto dom = run_command("timeout 120 " + chromium + flags + " --dump-dom file://" +
                                 probe_file.string() + " 2>/dev/null");
    ASSERT_EQ(dom.exit_code, 0) << dom.output;
    const auto at = dom.output.find("data-layout=\"");
    ASSERT_NE(at, std::string::npos) << dom.output.substr(0, 2000);
    std::istringstream layout(dom.output.substr(at + 13));
    double top = 0, bottom = 0, right = 0, figure_top = 0;
    layout >> top >> bottom >> right >> figure_top;
    EXPECT_GT(bottom, top);
    EXPECT_LE(bottom, 900) << "the summary table ends below the first screen";
    EXPECT_LE(right, 1280) << "the summary table is wider than the screen";
    if (have_matplotlib()) {
        EXPECT_GT(figure_top, bottom) << "the plots come after the summary";
    }

    const fs::path png = dir.path() / "shot.png";
    const auto shot =
        run_command("timeout 120 " + chromium + flags + " --screenshot=" + png.string() +
                    " file://" + (dir.path() / "report.html").string());
    ASSERT_EQ(shot.exit_code, 0) << shot.output;
    // The IHDR chunk: width and height, big-endian, at bytes 16..23.
    const std::string bytes = read_file(png);
    ASSERT_TRUE(is_png(png));
    const auto be32 = [&](std::size_t offset) {
        std::uint32_t v = 0;
        for (std::size_t i = 0; i < 4; ++i)
            v = (v << 8) | static_cast<unsigned char>(bytes[offset + i]);
        return v;
    };
    EXPECT_EQ(bytes.substr(12, 4), "IHDR");
    EXPECT_EQ(be32(16), 1280u);
    EXPECT_EQ(be32(20), 900u);
    // Not blank: the summary's rows, between its top and bottom, hold dark pixels (its text).
    REQUIRE_MATPLOTLIB();
    const auto dark = run_command(
        python + " -c \"import matplotlib.image as m; a = m.imread('" + png.string() +
        "'); b = a[" + std::to_string(static_cast<int>(top)) + ":" +
        std::to_string(static_cast<int>(bottom)) +
        ", :, :3]; print(int((b.max(axis=2) < 0.3).sum()), int((a[:, :, :3].min(axis=2) "
        "< 0.98).sum()))\"");
    ASSERT_EQ(dark.exit_code, 0) << dark.output;
    std::istringstream counts(dark.output);
    long dark_in_summary = 0, non_white = 0;
    counts >> dark_in_summary >> non_white;
    EXPECT_GT(dark_in_summary, 1000) << "no text where the summary table is";
    EXPECT_GT(non_white, 1280 * 900 / 20) << "the first screen is nearly blank";
}

TEST(CsvTest, ReadsTheSweepHeader) {
    std::istringstream in(results_csv());
    const auto records = sim::read_csv(in);
    ASSERT_EQ(records.size(), 17u);
    for (const auto& r : records)
        EXPECT_EQ(r.size(), 18u);
    const auto col = sim::csv_columns(records[0]);
    EXPECT_EQ(records[2][col.at("placer")], "priority:CPU_P,PIM");
    EXPECT_EQ(records[9][col.at("infeasible_reason")], "does not fit: \"PIM\" memory");
    EXPECT_EQ(records[16][col.at("error")], "timed out after 600 s");
    EXPECT_EQ(records[16][col.at(kBandwidth)], "2 GB/s");
}

}  // namespace
}  // namespace hetsim::tools
