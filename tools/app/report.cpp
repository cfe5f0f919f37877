#include "tools/app/report.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/config.hpp"
#include "sim/csv.hpp"
#include "tools/app/compare.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace {

namespace fs = std::filesystem;

// The results.csv columns the report reads; the axis columns come from sweep.json or follow
// `error`.
const std::vector<std::string> kRequiredColumns = {
    "point", "placer", "objective", "latency_s", "throughput_per_s", "feasible", "status", "error"};

struct SweepInfo {
    std::string name;
    std::string study;
    std::string sampling;
    std::optional<long> total_points;  // sweep.json's count; the CSV may hold fewer (interrupted)
    std::vector<std::string> axes;
};

struct PlacerResult {
    std::string placer;
    double latency_s = 0.0;
    double throughput_per_s = 0.0;
};

struct PointSummary {
    std::string id;
    bool failed = false;
    std::string error;
    std::string objective;
    std::vector<std::string> axis_values;
    int rows = 0;
    int feasible_rows = 0;
    std::optional<PlacerResult> best;
    std::vector<std::string> traces;  // relative to DIR: points/<id>/<placer>.trace.json, ...
    std::string placement;            // the best placer's placement JSON, "" when absent
    std::string log;                  // points/<id>/log.txt, "" when absent
};

struct Figure {
    std::string file;     // relative to DIR: plots/<name>.png
    std::string caption;  // what it shows
};

struct Plots {
    std::vector<Figure> figures;
    std::string note;     // plot.py's count of skipped rows
    std::string problem;  // why there are no plots, "" when there are
};

SweepInfo read_sweep_json(const fs::path& dir) {
    SweepInfo info;
    info.name = fs::absolute(dir).lexically_normal().filename().string();
    if (info.name.empty())  // "out/sweep/" ends with an empty filename
        info.name = fs::absolute(dir).lexically_normal().parent_path().filename().string();
    const fs::path file = dir / "sweep.json";
    if (!fs::exists(file))
        return info;
    std::ifstream in(file);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw sim::InputError(file.string(), "", 0, fmt::format("not valid JSON: {}", e.what()));
    }
    if (!j.is_object())
        throw sim::InputError(file.string(), "", 0, "expected a JSON object");
    if (j.contains("sweep") && j["sweep"].is_string())
        info.name = j["sweep"].get<std::string>();
    if (j.contains("study") && j["study"].is_string())
        info.study = j["study"].get<std::string>();
    if (j.contains("sampling") && j["sampling"].is_string())
        info.sampling = j["sampling"].get<std::string>();
    if (j.contains("points") && j["points"].is_number_integer())
        info.total_points = j["points"].get<long>();
    if (j.contains("axes")) {
        if (!j["axes"].is_array())
            throw sim::InputError(file.string(), "axes", 0, "expected a list of column names");
        for (const auto& axis : j["axes"]) {
            if (!axis.is_string())
                throw sim::InputError(file.string(), "axes", 0, "expected a list of column names");
            info.axes.push_back(axis.get<std::string>());
        }
    }
    return info;
}

// Files of `folder` ending in `suffix`, as paths relative to `dir`, sorted.
// The trace files of a point: <placer>.trace.json, <placer>.pftrace (--trace-format
// perfetto_proto) and the parts of a split trace (<placer>.trace.part<k>.json / .pftrace).
std::vector<std::string> trace_files(const fs::path& dir, const fs::path& folder) {
    const auto ends_with = [](const std::string& name, const std::string& suffix) {
        return name.size() > suffix.size() &&
               name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    std::vector<std::string> found;
    std::error_code ec;
    for (fs::directory_iterator it(dir / folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const bool trace =
            ends_with(name, ".trace.json") || ends_with(name, ".pftrace") ||
            (name.find(".trace.part") != std::string::npos && ends_with(name, ".json"));
        if (it->is_regular_file() && trace)
            found.push_back((folder / name).generic_string());
    }
    std::sort(found.begin(), found.end());
    return found;
}

// Reads results.csv into one summary per point, in the order the points first appear.
std::vector<PointSummary> read_points(const fs::path& dir, SweepInfo& info) {
    const fs::path file = dir / "results.csv";
    std::ifstream in(file);
    if (!in)
        throw sim::InputError(file.string(), "", 0, "cannot read it");
    std::vector<std::vector<std::string>> records;
    try {
        records = sim::read_csv(in);
    } catch (const std::runtime_error& e) {
        throw sim::InputError(file.string(), "", 0, e.what());
    }
    if (records.empty())
        throw sim::InputError(file.string(), "", 0, "empty file, expected a header");
    const std::vector<std::string>& header = records.front();
    const auto index = sim::csv_columns(header);
    for (const auto& column : kRequiredColumns) {
        if (!index.count(column))
            throw sim::InputError(file.string(), "", 0, fmt::format("missing column '{}'", column));
    }
    if (info.axes.empty()) {
        const auto after_error = header.begin() + static_cast<long>(index.at("error")) + 1;
        info.axes.assign(after_error, header.end());
    }
    for (const auto& axis : info.axes) {
        if (!index.count(axis))
            throw sim::InputError(file.string(), "", 0,
                                  fmt::format("missing column '{}' (an axis of sweep.json)", axis));
    }

    std::vector<PointSummary> points;
    std::map<std::string, std::size_t> by_id;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const auto& cells = records[r];
        if (cells.size() != header.size())
            throw sim::InputError(file.string(), "", 0,
                                  fmt::format("record {} has {} fields, the header {}", r + 1,
                                              cells.size(), header.size()));
        auto cell = [&](const std::string& column) -> const std::string& {
            return cells[index.at(column)];
        };
        auto [it, added] = by_id.emplace(cell("point"), points.size());
        if (added) {
            PointSummary p;
            p.id = cell("point");
            p.objective = cell("objective");
            for (const auto& axis : info.axes)
                p.axis_values.push_back(cell(axis));
            points.push_back(std::move(p));
        }
        PointSummary& point = points[it->second];
        ++point.rows;
        if (cell("status") != "ok") {
            point.failed = true;
            point.error = cell("error").empty() ? cell("status") : cell("error");
            continue;
        }
        const auto latency_s = sim::csv_number(cell("latency_s"));
        const auto throughput_per_s = sim::csv_number(cell("throughput_per_s"));
        if (cell("feasible") != "1" && cell("feasible") != "0")
            throw sim::InputError(file.string(), "", 0,
                                  fmt::format("record {}: column 'feasible' holds '{}', expected "
                                              "1 or 0",
                                              r + 1, cell("feasible")));
        if (cell("feasible") != "1")
            continue;
        // A feasible run has both numbers: anything else is a damaged file, not a result.
        for (const auto& [column, value] :
             {std::pair{"latency_s", latency_s}, std::pair{"throughput_per_s", throughput_per_s}}) {
            if (!value)
                throw sim::InputError(
                    file.string(), "", 0,
                    fmt::format("record {}: column '{}' holds '{}', expected a finite number",
                                r + 1, column, cell(column)));
        }
        ++point.feasible_rows;
        const PlacerResult result{cell("placer"), *latency_s, *throughput_per_s};
        // Ties keep the first row (the study's baseline comes first).
        const bool better =
            !point.best || (point.objective == "throughput"
                                ? result.throughput_per_s > point.best->throughput_per_s
                                : result.latency_s < point.best->latency_s);
        if (better)
            point.best = result;
    }

    for (auto& point : points) {
        const fs::path folder = fs::path("points") / point.id;
        point.traces = trace_files(dir, folder);
        if (point.best) {
            const fs::path placement =
                folder / ("placement_" + file_safe(point.best->placer) + ".json");
            if (fs::exists(dir / placement))
                point.placement = placement.generic_string();
        }
        if (fs::exists(dir / folder / "log.txt"))
            point.log = (folder / "log.txt").generic_string();
    }
    return points;
}

// Runs `argv` without a shell (no quoting of paths), stdout and stderr into `output`.
// Returns the exit code, -1 when it could not start or did not exit normally.
int run_program(const std::vector<std::string>& argv, const fs::path& output) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& arg : argv)
        args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Plots draw_plots(const fs::path& dir, std::ostream& log) {
    Plots plots;
    const auto script = find_tool_script("plot.py");
    if (!fs::exists(kSystemPython)) {
        plots.problem = fmt::format("{} is missing", kSystemPython);
    } else if (!script) {
        plots.problem = "tools/plot.py not found";
    }
    if (!plots.problem.empty()) {
        log << "report: no plots: " << plots.problem << "\n";
        return plots;
    }
    const fs::path plot_dir = dir / "plots";
    const fs::path data_file = plot_dir / "plot_data.json";
    const fs::path log_file = plot_dir / "plot.log";
    std::error_code ec;
    fs::create_directories(plot_dir, ec);
    fs::remove(data_file, ec);  // a stale one would list figures this run did not draw
    const int code = run_program({kSystemPython, script->string(), dir.string(), "--out",
                                  plot_dir.string(), "--dump-data", data_file.string()},
                                 log_file);
    if (code != 0 || !fs::exists(data_file)) {
        const std::string why = sim::last_nonblank_line(log_file);
        plots.problem = fmt::format("tools/plot.py failed (exit code {}){}{}", code,
                                    why.empty() ? "" : ": ", why);
        log << "report: no plots: " << plots.problem << " (see " << log_file.string() << ")\n";
        return plots;
    }
    try {
        std::ifstream in(data_file);
        const nlohmann::json data = nlohmann::json::parse(in);
        plots.note = data.value("note", "");
        for (const auto& figure : data.at("figures")) {
            const std::string file = figure.at("file").get<std::string>();
            std::string caption;
            if (figure.at("kind") == "leaderboard") {
                caption =
                    fmt::format("{}: placers sorted by {}", figure.at("study").get<std::string>(),
                                figure.at("metric").get<std::string>());
            } else if (figure.at("kind") == "axis") {
                caption = fmt::format("latency_s and throughput_per_s against {}",
                                      figure.at("axis").get<std::string>());
            } else {
                caption = fmt::format(
                    "Pareto front: {} {}, {} {}", figure.at("x_sense").get<std::string>(),
                    figure.at("x").get<std::string>(), figure.at("y_sense").get<std::string>(),
                    figure.at("y").get<std::string>());
            }
            plots.figures.push_back({"plots/" + file, caption});
        }
    } catch (const nlohmann::json::exception& e) {
        plots.figures.clear();
        plots.problem = fmt::format("cannot read {}: {}", data_file.string(), e.what());
        log << "report: no plots: " << plots.problem << "\n";
    }
    return plots;
}

// Relative link targets: percent-encode what is not safe in a Markdown or HTML URL.
std::string url_path(const std::string& path) {
    std::string out;
    for (unsigned char c : path) {
        if (std::isalnum(c) || std::strchr("/._-~", c) != nullptr)
            out += static_cast<char>(c);
        else
            out += fmt::format("%{:02X}", c);
    }
    return out;
}

// A Markdown table cell: no line breaks, '|' escaped.

std::string base_name(const std::string& path) {
    return fs::path(path).filename().string();
}

std::string format_throughput(double per_s) {
    return fmt::format("{:.4g} /s", per_s);
}

struct Counts {
    int ok = 0;
    int failed = 0;
    long total = 0;
    long not_run = 0;  // sweep.json's total minus the points in results.csv
};

Counts count_points(const std::vector<PointSummary>& points, const SweepInfo& info) {
    Counts c;
    for (const auto& p : points)
        ++(p.failed ? c.failed : c.ok);
    const long seen = c.ok + c.failed;
    c.total = info.total_points.value_or(seen);
    c.not_run = std::max(0L, c.total - seen);
    return c;
}

std::string counts_line(const Counts& c) {
    std::string line = fmt::format("{} points: {} ok, {} failed", c.total, c.ok, c.failed);
    if (c.not_run > 0)
        line += fmt::format(", {} not run", c.not_run);
    return line;
}

std::string render_markdown(const SweepInfo& info, const std::vector<PointSummary>& points,
                            const Plots& plots,
                            const std::optional<std::vector<LeaderboardRow>>& leaderboard) {
    const Counts counts = count_points(points, info);
    std::ostringstream md;
    md << "# Sweep " << info.name << "\n\n";
    if (!info.study.empty())
        md << "Study: `" << info.study << "`";
    if (!info.sampling.empty())
        md << (info.study.empty() ? "" : ", ") << "sampling: " << info.sampling;
    if (!info.study.empty() || !info.sampling.empty())
        md << ".\n\n";
    md << "**" << counts_line(counts) << "**\n\n";
    if (leaderboard)
        md << leaderboard_markdown(*leaderboard);

    md << "## Best placer per point\n\n"
       << "The lowest latency_s (objective `latency`) or the highest throughput_per_s (objective "
          "`throughput`) among the point's feasible placements.\n\n";
    md << "| point |";
    for (const auto& axis : info.axes)
        md << " " << md_cell(axis) << " |";
    md << " objective | best placer | latency | throughput | feasible | traces | placement |\n|";
    for (std::size_t i = 0; i < info.axes.size() + 8; ++i)
        md << "---|";
    md << "\n";
    for (const auto& p : points) {
        if (p.failed)
            continue;
        md << "| " << md_cell(p.id) << " |";
        for (const auto& value : p.axis_values)
            md << " " << md_cell(value) << " |";
        md << " " << md_cell(p.objective) << " |";
        if (p.best) {
            md << " **" << md_cell(p.best->placer) << "** | " << human_time(p.best->latency_s)
               << " | " << format_throughput(p.best->throughput_per_s) << " |";
        } else {
            md << " none feasible | | |";
        }
        md << " " << p.feasible_rows << "/" << p.rows << " |";
        std::vector<std::string> links;
        for (const auto& trace : p.traces)
            links.push_back(fmt::format("[{}]({})", md_cell(base_name(trace)), url_path(trace)));
        md << " " << fmt::format("{}", fmt::join(links, ", ")) << " |";
        if (!p.placement.empty())
            md << " [" << md_cell(base_name(p.placement)) << "](" << url_path(p.placement) << ")";
        md << " |\n";
    }
    md << "\n";

    md << "## Failed points\n\n";
    if (counts.failed == 0) {
        md << "None.\n\n";
    } else {
        md << "| point |";
        for (const auto& axis : info.axes)
            md << " " << md_cell(axis) << " |";
        md << " error | log |\n|";
        for (std::size_t i = 0; i < info.axes.size() + 3; ++i)
            md << "---|";
        md << "\n";
        for (const auto& p : points) {
            if (!p.failed)
                continue;
            md << "| " << md_cell(p.id) << " |";
            for (const auto& value : p.axis_values)
                md << " " << md_cell(value) << " |";
            md << " " << md_cell(p.error) << " |";
            if (!p.log.empty())
                md << " [log.txt](" << url_path(p.log) << ")";
            md << " |\n";
        }
        md << "\n";
    }

    md << "## Plots\n\n";
    if (!plots.problem.empty())
        md << "No plots: " << plots.problem << ".\n\n";
    if (!plots.note.empty())
        md << "Plotted: ok rows with a feasible placement (" << plots.note << ").\n\n";
    for (const auto& figure : plots.figures)
        md << "![" << figure.caption << "](" << url_path(figure.file) << ")\n\n";
    return md.str();
}

constexpr const char* kCss = R"(body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }
th { background: #f0f0f0; }
tr:nth-child(even) td { background: #fafafa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.error { color: #a00; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #555; font-size: 0.9em; }
code { background: #f4f4f4; padding: 0 0.2em; }
)";

std::string html_link(const std::string& target, const std::string& text) {
    return fmt::format("<a href=\"{}\">{}</a>", html_escape(url_path(target)), html_escape(text));
}

std::string render_html(const SweepInfo& info, const std::vector<PointSummary>& points,
                        const Plots& plots,
                        const std::optional<std::vector<LeaderboardRow>>& leaderboard) {
    const Counts counts = count_points(points, info);
    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>Sweep " << html_escape(info.name) << "</title>\n<style>\n"
      << kCss << "</style>\n</head>\n<body>\n";
    h << "<h1>Sweep " << html_escape(info.name) << "</h1>\n";
    if (!info.study.empty() || !info.sampling.empty()) {
        h << "<p>";
        if (!info.study.empty())
            h << "Study: <code>" << html_escape(info.study) << "</code>";
        if (!info.sampling.empty())
            h << (info.study.empty() ? "" : ", ") << "sampling: " << html_escape(info.sampling);
        h << ".</p>\n";
    }
    h << "<p><strong>" << html_escape(counts_line(counts)) << "</strong></p>\n";
    if (leaderboard)
        h << leaderboard_html(*leaderboard);

    h << "<h2>Best placer per point</h2>\n<p>The lowest latency_s (objective <code>latency</code>) "
         "or the highest throughput_per_s (objective <code>throughput</code>) among the "
         "point's feasible placements.</p>\n";
    h << "<table>\n<tr><th>point</th>";
    for (const auto& axis : info.axes)
        h << "<th>" << html_escape(axis) << "</th>";
    h << "<th>objective</th><th>best placer</th><th>latency</th><th>throughput</th>"
         "<th>feasible</th><th>traces</th><th>placement</th></tr>\n";
    for (const auto& p : points) {
        if (p.failed)
            continue;
        h << "<tr><td>" << html_escape(p.id) << "</td>";
        for (const auto& value : p.axis_values)
            h << "<td>" << html_escape(value) << "</td>";
        h << "<td>" << html_escape(p.objective) << "</td>";
        if (p.best) {
            h << "<td><strong>" << html_escape(p.best->placer) << "</strong></td><td class=\"num\">"
              << html_escape(human_time(p.best->latency_s)) << "</td><td class=\"num\">"
              << html_escape(format_throughput(p.best->throughput_per_s)) << "</td>";
        } else {
            h << "<td>none feasible</td><td></td><td></td>";
        }
        h << "<td class=\"num\">" << p.feasible_rows << "/" << p.rows << "</td><td>";
        for (std::size_t i = 0; i < p.traces.size(); ++i)
            h << (i ? ", " : "") << html_link(p.traces[i], base_name(p.traces[i]));
        h << "</td><td>";
        if (!p.placement.empty())
            h << html_link(p.placement, base_name(p.placement));
        h << "</td></tr>\n";
    }
    h << "</table>\n";

    h << "<h2>Failed points</h2>\n";
    if (counts.failed == 0) {
        h << "<p>None.</p>\n";
    } else {
        h << "<table>\n<tr><th>point</th>";
        for (const auto& axis : info.axes)
            h << "<th>" << html_escape(axis) << "</th>";
        h << "<th>error</th><th>log</th></tr>\n";
        for (const auto& p : points) {
            if (!p.failed)
                continue;
            h << "<tr><td>" << html_escape(p.id) << "</td>";
            for (const auto& value : p.axis_values)
                h << "<td>" << html_escape(value) << "</td>";
            h << "<td class=\"error\">" << html_escape(p.error) << "</td><td>";
            if (!p.log.empty())
                h << html_link(p.log, "log.txt");
            h << "</td></tr>\n";
        }
        h << "</table>\n";
    }

    h << "<h2>Plots</h2>\n";
    if (!plots.problem.empty())
        h << "<p>No plots: " << html_escape(plots.problem) << ".</p>\n";
    if (!plots.note.empty())
        h << "<p>Plotted: ok rows with a feasible placement (" << html_escape(plots.note)
          << ").</p>\n";
    for (const auto& figure : plots.figures) {
        h << "<figure><img src=\"" << html_escape(url_path(figure.file)) << "\" alt=\""
          << html_escape(figure.caption) << "\"><figcaption>" << html_escape(figure.caption)
          << "</figcaption></figure>\n";
    }
    h << "</body>\n</html>\n";
    return h.str();
}

}  // namespace

std::string md_cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n' || c == '\r')
            out += ' ';
        else
            out += c;
    }
    return out;
}

std::string html_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string write_report(const fs::path& dir, std::ostream& log) {
    if (!fs::is_regular_file(dir / "results.csv"))
        throw sim::InputError((dir / "results.csv").string(), "", 0,
                              fmt::format("no such file: '{}' is not a sweep output directory "
                                          "(hetsim sweep writes results.csv there)",
                                          dir.string()));
    SweepInfo info = read_sweep_json(dir);
    const std::vector<PointSummary> points = read_points(dir, info);
    const Plots plots = draw_plots(dir, log);
    // `hetsim compare`'s output: its leaderboard leads the report.
    const std::optional<std::vector<LeaderboardRow>> leaderboard = read_leaderboard(dir);
    const fs::path md = dir / "report.md";
    const fs::path html = dir / "report.html";
    try {
        write_file_atomically(md, render_markdown(info, points, plots, leaderboard));
        write_file_atomically(html, render_html(info, points, plots, leaderboard));
    } catch (const std::exception& e) {
        throw sim::InputError(dir.string(), "", 0,
                              fmt::format("cannot write the report: {}", e.what()));
    }
    const Counts counts = count_points(points, info);
    const std::string plotted =
        plots.problem.empty()
            ? fmt::format("{} plot{} in {}", plots.figures.size(),
                          plots.figures.size() == 1 ? "" : "s", (dir / "plots").string())
            : fmt::format("no plots ({})", plots.problem);
    return fmt::format(
        "Report of sweep '{}' ({}) written to {} and {}: the best placer of each "
        "point with links to its traces and placement, the failed points with "
        "their errors, and {}.",
        info.name, counts_line(counts), md.string(), html.string(), plotted);
}

}  // namespace hetsim::app
