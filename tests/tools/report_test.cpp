// tools/plot.py and app::write_report on a synthetic sweep directory: two axes (a plain number
// and a quantity with a unit), three placers, a failed point, an infeasible row, a trace file.
// The plotted numbers are recomputed here from the CSV; the best placers are hand-computed.
// The plot parts are skipped when /usr/bin/python3 lacks matplotlib.
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
                const std::string& seq_len, const std::string& bandwidth) {
    return "s," + point + "," + placer + ",latency," + latency_s + "," + throughput +
           ",1,0.01,0,des,\"bert(seq_len=" + seq_len + ",layers=2)\",zynq," + feasible + "," +
           (feasible == "1" ? "\"\"" : "\"does not fit: \"\"PIM\"\" memory\"") + ",ok,\"\"," +
           seq_len + "," + bandwidth + "\n";
}

std::string results_csv() {
    const std::string g = "greedy", p = "\"priority:CPU_P,PIM\"", d = "tarnawski.dp";
    return kHeader +  //
           row("p000000000001", g, "0.002", "600", "1", "8", "1 GB/s") +
           row("p000000000001", p, "0.0015", "1200", "1", "8", "1 GB/s") +
           row("p000000000001", d, "0.0018", "650", "1", "8", "1 GB/s") +
           row("p000000000002", g, "0.0012", "900", "1", "8", "2 GB/s") +
           row("p000000000002", p, "0.0014", "800", "1", "8", "2 GB/s") +
           row("p000000000002", d, "0.001", "800", "1", "8", "2 GB/s") +
           row("p000000000003", g, "0.004", "300", "1", "16", "1 GB/s") +
           row("p000000000003", p, "0.003", "400", "1", "16", "1 GB/s") +
           row("p000000000003", d, "0.002", "5000", "0", "16", "1 GB/s") +
           row("p000000000004", g, "0.0025", "450", "1", "16", "2 GB/s") +
           row("p000000000004", p, "0.0028", "420", "1", "16", "2 GB/s") +
           row("p000000000004", d, "0.0026", "500", "1", "16", "2 GB/s") +
           row("p000000000005", g, "0.008", "150", "1", "32", "1 GB/s") +
           row("p000000000005", p, "0.006", "200", "1", "32", "1 GB/s") +
           row("p000000000005", d, "0.005", "210", "1", "32", "1 GB/s") +
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
    EXPECT_NE(summary.find("3 plots"), std::string::npos) << summary;
    const std::string md = read_file(dir.path() / "report.md");
    const std::string html = read_file(dir.path() / "report.html");
    const nlohmann::json dump =
        nlohmann::json::parse(read_file(dir.path() / "plots" / "plot_data.json"));
    ASSERT_EQ(dump.at("figures").size(), 3u);  // two axes and the Pareto front
    for (const auto& figure : dump.at("figures")) {
        const std::string file = "plots/" + figure.at("file").get<std::string>();
        EXPECT_TRUE(is_png(dir.path() / file)) << file;
        EXPECT_NE(md.find("](" + file + ")"), std::string::npos) << file;
        EXPECT_NE(html.find("<img src=\"" + file + "\""), std::string::npos) << file;
    }
    EXPECT_NE(md.find("1 failed point, 1 infeasible placement"), std::string::npos);
}

TEST(ReportTest, MissingResultsCsvIsAnInputError) {
    TempDir dir;
    std::ostringstream log;
    try {
        app::write_report(dir.path(), log);
        FAIL() << "expected sim::InputError";
    } catch (const sim::InputError& e) {
        EXPECT_EQ(e.file(), (dir.path() / "results.csv").string());
        EXPECT_NE(std::string(e.what()).find("not a sweep output directory"), std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(fs::exists(dir.path() / "report.md"));
    EXPECT_THROW(app::write_report(dir.path() / "absent", log), sim::InputError);
}

TEST(ReportTest, MissingColumnIsAnInputError) {
    TempDir dir;
    std::string csv = results_csv();
    csv.replace(csv.find(",feasible,"), 10, ",fits,");
    write_sweep(dir, csv);
    std::ostringstream log;
    try {
        app::write_report(dir.path(), log);
        FAIL() << "expected sim::InputError";
    } catch (const sim::InputError& e) {
        EXPECT_EQ(e.message(), "missing column 'feasible'");
    }
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
              "record 18: column 'latency_s' holds 'abc', expected a finite number");
    EXPECT_EQ(message_for(row("p000000000007", "x", "0.001", "nan", "1", "8", "1 GB/s")),
              "record 18: column 'throughput_per_s' holds 'nan', expected a finite number");
    EXPECT_EQ(message_for(row("p000000000007", "x", "0.001", "600", "yes", "8", "1 GB/s")),
              "record 18: column 'feasible' holds 'yes', expected 1 or 0");
    // An infeasible row may lack them.
    EXPECT_EQ(message_for(row("p000000000007", "x", "", "", "0", "8", "1 GB/s")), "no error");
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
