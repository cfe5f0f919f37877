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

#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/csv.hpp"
#include "sweep/results_store.hpp"
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
    std::vector<std::string> columns;  // results.csv's header
    // Its columns that hold numbers (every non-empty cell, at least one), but the `feasible`
    // flag: what --pareto accepts.
    std::vector<std::string> numeric_columns;
};

struct PlacerResult {
    std::string placer;
    double latency_s = 0.0;
    double throughput_per_s = 0.0;
    // results.csv's speedup over the study's baseline (tools/app/study.cpp computes it); absent
    // when the column is, or when it is 0 (the baseline is infeasible).
    std::optional<double> speedup;
};

struct PointSummary {
    std::string id;
    bool failed = false;
    std::string error;
    std::string objective;
    std::vector<std::string> axis_values;
    std::string baseline;               // the placer of its first row: the study's baseline
    std::vector<PlacerResult> results;  // its ok, feasible rows, in CSV order
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
    std::string note;            // plot.py's count of skipped rows
    std::string problem;         // why there are no plots, "" when there are
    std::string pareto_skipped;  // why there is no Pareto plot, "" when there is one
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
            // A sweep refuses an axis set twice; here it would be summarised and plotted twice.
            const std::string name = axis.get<std::string>();
            if (std::find(info.axes.begin(), info.axes.end(), name) != info.axes.end())
                throw sim::InputError(file.string(), "axes", 0,
                                      fmt::format("lists '{}' twice; a sweep's axes are "
                                                  "distinct",
                                                  name));
            info.axes.push_back(name);
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
    if (records.size() == 1)
        throw sim::InputError(file.string(), "", 0,
                              "a header and no rows: no point has finished, so there is nothing "
                              "to report yet");
    const std::vector<std::string>& header = records.front();
    const auto index = sim::csv_columns(header, file.string());
    info.columns = header;
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
    // A sweep writes each (point, placer) row once: a repeated one would count twice.
    std::map<std::pair<std::string, std::string>, std::size_t> first_record;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const auto& cells = records[r];
        if (cells.size() != header.size())
            throw sim::InputError(file.string(), "", 0,
                                  fmt::format("record {} has {} fields, the header {}", r + 1,
                                              cells.size(), header.size()));
        auto cell = [&](const std::string& column) -> const std::string& {
            return cells[index.at(column)];
        };
        const auto refuse = [&](const std::string& what) {
            throw sim::InputError(file.string(), "", 0, fmt::format("record {}: {}", r + 1, what));
        };
        if (const std::string problem = sweep::status_problem(cell("status")); !problem.empty())
            refuse(problem);
        if (const auto [first, added] =
                first_record.emplace(std::pair{cell("point"), cell("placer")}, r + 1);
            !added) {
            refuse(cell("placer").empty()
                       ? fmt::format("repeats the row of point {} of record {}", cell("point"),
                                     first->second)
                       : fmt::format("repeats the row of point {} and placer '{}' of record {}",
                                     cell("point"), cell("placer"), first->second));
        }
        auto [it, added] = by_id.emplace(cell("point"), points.size());
        if (added) {
            PointSummary p;
            p.id = cell("point");
            p.objective = cell("objective");
            p.baseline = cell("placer");
            for (const auto& axis : info.axes)
                p.axis_values.push_back(cell(axis));
            points.push_back(std::move(p));
        }
        PointSummary& point = points[it->second];
        ++point.rows;
        if (cell("status") != sweep::kStatusOk) {
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
        // A feasible run has both numbers, neither negative (a time and a rate), and a speedup
        // that is a ratio of two such (0 where the baseline is infeasible, empty when not
        // computed): anything else is a damaged file, not a result, and a negative latency
        // would be ranked best.
        const auto refuse_number = [&](const std::string& column) {
            refuse(fmt::format("column '{}' holds '{}', expected a finite number >= 0", column,
                               cell(column)));
        };
        for (const auto& [column, value] :
             {std::pair{"latency_s", latency_s}, std::pair{"throughput_per_s", throughput_per_s}}) {
            if (!value || *value < 0.0)
                refuse_number(column);
        }
        ++point.feasible_rows;
        PlacerResult result{cell("placer"), *latency_s, *throughput_per_s, std::nullopt};
        if (index.count("speedup") && !cell("speedup").empty()) {
            const auto speedup = sim::csv_number(cell("speedup"));
            if (!speedup || *speedup < 0.0)
                refuse_number("speedup");
            else if (*speedup > 0.0)
                result.speedup = speedup;
        }
        point.results.push_back(result);
        // Ties keep the first row (the study's baseline comes first).
        const bool better =
            !point.best || (point.objective == "throughput"
                                ? result.throughput_per_s > point.best->throughput_per_s
                                : result.latency_s < point.best->latency_s);
        if (better)
            point.best = result;
    }

    for (std::size_t c = 0; c < header.size(); ++c) {
        bool any = false, all = true;
        for (std::size_t r = 1; r < records.size() && all; ++r) {
            if (records[r][c].empty())
                continue;
            any = true;
            all = sim::csv_number(records[r][c]).has_value();
        }
        if (any && all && header[c] != "feasible")
            info.numeric_columns.push_back(header[c]);
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

// A family of design points and how its placers fared: the summary table's row.
struct FamilySummary {
    std::string name;  // "all points", or "sequence length = 8 tokens"
    int points = 0;    // its ok points
    int scored = 0;    // those with a feasible baseline: the speedups are over it
    struct Ranked {
        std::string placer;
        double speedup = 0.0;  // geometric mean over the scored points
        int wins = 0;          // points at which it is the best placer
    };
    // The placers feasible at every scored point, by speedup, highest first; a tie keeps the
    // order of the rows (the baseline first).
    std::vector<Ranked> ranked;
};

// An axis gets a summary row per value when it has at least two and at most this many values;
// more (a random or Latin-hypercube sample) would make the summary as long as the long table.
constexpr std::size_t kMaxFamiliesPerAxis = 8;

FamilySummary summarise_family(std::string name, const std::vector<const PointSummary*>& points) {
    FamilySummary family;
    family.name = std::move(name);
    std::vector<std::string> placers;  // in order of first appearance
    std::map<std::string, std::vector<double>> speedups;
    std::map<std::string, int> wins;
    for (const PointSummary* p : points) {
        ++family.points;
        if (p->best)
            ++wins[p->best->placer];
        const bool baseline_feasible =
            std::any_of(p->results.begin(), p->results.end(),
                        [&](const PlacerResult& r) { return r.placer == p->baseline; });
        if (baseline_feasible)
            ++family.scored;
        for (const auto& r : p->results) {
            if (std::find(placers.begin(), placers.end(), r.placer) == placers.end())
                placers.push_back(r.placer);
            if (baseline_feasible && r.speedup)
                speedups[r.placer].push_back(*r.speedup);
        }
    }
    for (const auto& placer : placers) {
        const auto& values = speedups[placer];
        // Over fewer points than the others a mean would flatter it: not ranked.
        if (family.scored == 0 || values.size() != static_cast<std::size_t>(family.scored))
            continue;
        double log_sum = 0.0;
        for (double v : values)
            log_sum += std::log(v);
        family.ranked.push_back(
            {placer, std::exp(log_sum / static_cast<double>(values.size())), wins[placer]});
    }
    std::stable_sort(family.ranked.begin(), family.ranked.end(),
                     [](const auto& a, const auto& b) { return a.speedup > b.speedup; });
    return family;
}

// A value of an axis as the summary shows it: the CSV's text, with the label's unit after a
// plain number ("8 tokens").
std::string axis_value_text(const std::string& axis, const std::string& value) {
    const ColumnLabel label = column_label(axis);
    return sim::csv_number(value) && !label.unit.empty() ? value + " " + label.unit : value;
}

// The rows of the summary: all ok points, then per axis with 2..kMaxFamiliesPerAxis values the
// points at each value (in order of first appearance: a grid's YAML order).
std::vector<FamilySummary> summarise(const SweepInfo& info,
                                     const std::vector<PointSummary>& points) {
    std::vector<const PointSummary*> ok;
    for (const auto& p : points) {
        if (!p.failed)
            ok.push_back(&p);
    }
    std::vector<FamilySummary> families;
    if (ok.empty())
        return families;
    families.push_back(summarise_family(
        ok.size() == 1 ? "the point" : fmt::format("all {} points", ok.size()), ok));
    if (ok.size() == 1)
        return families;
    for (std::size_t a = 0; a < info.axes.size(); ++a) {
        std::vector<std::string> values;
        for (const PointSummary* p : ok) {
            if (std::find(values.begin(), values.end(), p->axis_values[a]) == values.end())
                values.push_back(p->axis_values[a]);
        }
        if (values.size() < 2 || values.size() > kMaxFamiliesPerAxis)
            continue;
        for (const auto& value : values) {
            std::vector<const PointSummary*> members;
            for (const PointSummary* p : ok) {
                if (p->axis_values[a] == value)
                    members.push_back(p);
            }
            families.push_back(
                summarise_family(fmt::format("{} = {}", column_label(info.axes[a]).label,
                                             axis_value_text(info.axes[a], value)),
                                 members));
        }
    }
    return families;
}

std::string format_speedup(double speedup) {
    return fmt::format("{:.2f}\u00d7", speedup);
}

// The summary's cells of a family: best placer, its speedup, where it is best, the runner-up.
struct SummaryCells {
    std::string best, speedup, wins, runner_up;
};

SummaryCells summary_cells(const FamilySummary& f, const std::string& baseline) {
    SummaryCells c;
    if (f.scored == 0) {
        c.best = fmt::format("none: {} is infeasible at every point", baseline);
        return c;
    }
    if (f.ranked.empty()) {
        c.best = "none feasible at every point";
        return c;
    }
    const auto& best = f.ranked[0];
    c.best = best.placer;
    c.speedup = format_speedup(best.speedup);
    c.wins = fmt::format("{} of {}", best.wins, f.points);
    if (f.ranked.size() > 1) {
        const auto& second = f.ranked[1];
        const double gap_percent = (best.speedup / second.speedup - 1.0) * 100.0;
        c.runner_up = fmt::format("{} ({}, gap {:.1f} %)", second.placer,
                                  format_speedup(second.speedup), gap_percent);
    }
    return c;
}

// Which axes vary: those with at least two values among the points.
std::vector<std::string> varying_axes(const SweepInfo& info,
                                      const std::vector<PointSummary>& points) {
    std::vector<std::string> out;
    for (std::size_t a = 0; a < info.axes.size(); ++a) {
        for (const auto& p : points) {
            if (p.axis_values[a] != points.front().axis_values[a]) {
                out.push_back(info.axes[a]);
                break;
            }
        }
    }
    return out;
}

std::string join(const std::vector<std::string>& items) {
    return items.empty() ? "none" : fmt::format("{}", fmt::join(items, ", "));
}

// What plot.py draws, once the options are checked against the sweep.
struct PlotRequest {
    std::string x_axis;  // the only line figure, "" = every axis
    std::optional<std::pair<std::string, std::string>> heatmap;  // its x and y axes
    std::string pareto;                                          // "" = plot.py's default
};

PlotRequest plan_plots(const SweepInfo& info, const std::vector<PointSummary>& points,
                       const ReportOptions& options) {
    PlotRequest plan;
    for (const auto& [option, axis] :
         {std::pair{"--x", options.x_axis}, std::pair{"--y", options.y_axis}}) {
        if (!axis.empty() && std::find(info.axes.begin(), info.axes.end(), axis) == info.axes.end())
            throw sim::InputError(
                "", option, 0,
                fmt::format("unknown axis '{}'; the sweep's axes: {}", axis, join(info.axes)));
    }
    if (!options.x_axis.empty() && options.x_axis == options.y_axis)
        throw sim::InputError("", "--y", 0,
                              fmt::format("is --x's axis '{}'; a heatmap needs two different "
                                          "axes, from: {}",
                                          options.x_axis, join(info.axes)));
    plan.x_axis = options.x_axis;
    const std::vector<std::string> varying = varying_axes(info, points);
    const auto other_than = [&](const std::string& axis) -> std::string {
        for (const auto& v : varying) {
            if (v != axis)
                return v;
        }
        return "";
    };
    if (!options.x_axis.empty() || !options.y_axis.empty()) {
        std::string x = options.x_axis, y = options.y_axis;
        if (x.empty())
            x = other_than(y);
        if (y.empty())
            y = other_than(x);
        if (!x.empty() && !y.empty())
            plan.heatmap = {x, y};
        else if (!options.y_axis.empty())
            throw sim::InputError("", "--y", 0,
                                  fmt::format("no other axis varies to pair '{}' with in a "
                                              "heatmap; the sweep's axes: {}",
                                              options.y_axis, join(info.axes)));
    } else if (varying.size() == 2) {
        plan.heatmap = {varying[0], varying[1]};
    }

    if (!options.pareto.empty()) {
        const std::vector<std::string>& numeric = info.numeric_columns;
        std::vector<std::string> parts;
        std::stringstream in(options.pareto);
        for (std::string part; std::getline(in, part, ',');)
            parts.push_back(part);
        const std::string accepted =
            fmt::format("{} (each optionally prefixed min: or max:)", join(numeric));
        if (parts.size() != 2)
            throw sim::InputError("", "--pareto", 0,
                                  fmt::format("expected two columns COL_X,COL_Y, got '{}'; "
                                              "numeric columns: {}",
                                              options.pareto, accepted));
        std::vector<std::string> columns;
        for (std::string column : parts) {
            if (column.rfind("min:", 0) == 0 || column.rfind("max:", 0) == 0)
                column = column.substr(4);
            if (std::find(numeric.begin(), numeric.end(), column) == numeric.end())
                throw sim::InputError("", "--pareto", 0,
                                      fmt::format("unknown or non-numeric column '{}'; numeric "
                                                  "columns: {}",
                                                  column, accepted));
            columns.push_back(column);
        }
        // A column against itself is no trade-off (--x a --y a is refused the same way).
        if (columns[0] == columns[1])
            throw sim::InputError("", "--pareto", 0,
                                  fmt::format("'{}' twice: a Pareto plot needs two different "
                                              "columns",
                                              columns[0]));
        plan.pareto = options.pareto;
    }
    return plan;
}

// plot.py's --context: the labels of the columns and axes, and each point's best placer.
nlohmann::json plot_context(const SweepInfo& info, const std::vector<PointSummary>& points) {
    nlohmann::json context;
    context["labels"] = nlohmann::json::object();
    for (const auto& column : info.columns) {
        const ColumnLabel label = column_label(column);
        context["labels"][column] = {{"label", label.label}, {"unit", label.unit}};
    }
    context["best"] = nlohmann::json::object();
    for (const auto& p : points) {
        if (!p.best)
            continue;
        const bool throughput = p.objective == "throughput";
        context["best"][p.id] = {
            {"placer", p.best->placer},
            {"metric", throughput ? "throughput_per_s" : "latency_s"},
            {"value", throughput ? p.best->throughput_per_s : p.best->latency_s},
            {"speedup", p.best->speedup ? nlohmann::json(*p.best->speedup) : nlohmann::json()}};
    }
    return context;
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

// "latency" of latency_s: a column's label without its unit, for captions.
std::string label_of(const std::string& column) {
    return column_label(column).label;
}

Plots draw_plots(const fs::path& dir, const PlotRequest& request, const nlohmann::json& context,
                 std::ostream& log) {
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
    const fs::path context_file = plot_dir / "context.json";
    const fs::path log_file = plot_dir / "plot.log";
    std::error_code ec;
    fs::create_directories(plot_dir, ec);
    fs::remove(data_file, ec);  // a stale one would list figures this run did not draw
    try {
        write_file_atomically(context_file, context.dump(1) + "\n");
    } catch (const std::exception& e) {
        throw sim::InputError(dir.string(), "", 0,
                              fmt::format("cannot write the report: {}", e.what()));
    }
    std::vector<std::string> argv = {
        kSystemPython,        script->string(), dir.string(),       "--out",
        plot_dir.string(),    "--dump-data",    data_file.string(), "--context",
        context_file.string()};
    if (!request.x_axis.empty())
        argv.insert(argv.end(), {"--x", request.x_axis});
    if (request.heatmap)
        argv.insert(argv.end(),
                    {"--heatmap", request.heatmap->first + "," + request.heatmap->second});
    if (!request.pareto.empty())
        argv.insert(argv.end(), {"--pareto", request.pareto});
    const int code = run_program(argv, log_file);
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
        if (data.contains("pareto_skipped") && data["pareto_skipped"].is_object()) {
            const auto& skipped = data["pareto_skipped"];
            plots.pareto_skipped = fmt::format("No Pareto plot of {} against {}: {}.",
                                               label_of(skipped.at("y").get<std::string>()),
                                               label_of(skipped.at("x").get<std::string>()),
                                               skipped.at("reason").get<std::string>());
        }
        for (const auto& figure : data.at("figures")) {
            const std::string file = figure.at("file").get<std::string>();
            const std::string kind = figure.at("kind").get<std::string>();
            std::string caption;
            if (kind == "leaderboard") {
                caption =
                    fmt::format("{}: placers sorted by {}", figure.at("study").get<std::string>(),
                                figure.at("metric").get<std::string>());
            } else if (kind == "heatmap") {
                caption = fmt::format(
                    "Best placer per {} and {}: its {} and its speedup over the baseline",
                    label_of(figure.at("x").get<std::string>()),
                    label_of(figure.at("y").get<std::string>()),
                    label_of(figure.at("metric").get<std::string>()));
            } else if (kind == "axis") {
                caption = fmt::format("Latency and throughput against {}",
                                      label_of(figure.at("axis").get<std::string>()));
            } else {
                caption = fmt::format("Pareto front: {} {}, {} {}",
                                      figure.at("x_sense").get<std::string>(),
                                      label_of(figure.at("x").get<std::string>()),
                                      figure.at("y_sense").get<std::string>(),
                                      label_of(figure.at("y").get<std::string>()));
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

// The summary's opening sentence; the same in both formats but for the code markup.
std::string summary_intro(const std::string& baseline, const std::string& objective,
                          const std::string& code_open, const std::string& code_close) {
    return fmt::format(
        "Per family of design points: the placer with the highest speedup over the baseline "
        "{}{}{} ({}; the geometric mean over the family's points), at how many points it is the "
        "best, and the runner-up with its speedup and the gap: how much higher the best's "
        "speedup is. A placer infeasible at one of the points is not ranked.",
        code_open, baseline, code_close,
        objective == "throughput" ? "the placer's throughput / the baseline's"
                                  : "the baseline's latency / the placer's");
}

const std::vector<std::string> kSummaryHeader = {"point family", "points",  "best placer",
                                                 "speedup",      "best at", "runner-up"};

std::string summary_markdown(const std::vector<FamilySummary>& families,
                             const std::vector<PointSummary>& points) {
    if (families.empty())
        return "";
    const PointSummary& first =
        *std::find_if(points.begin(), points.end(), [](const auto& p) { return !p.failed; });
    std::ostringstream md;
    md << "## Summary\n\n" << summary_intro(first.baseline, first.objective, "`", "`") << "\n\n|";
    for (const auto& column : kSummaryHeader)
        md << " " << column << " |";
    md << "\n|---|--:|---|--:|--:|---|\n";
    for (const auto& f : families) {
        const SummaryCells c = summary_cells(f, first.baseline);
        md << "| " << md_cell(f.name) << " | " << f.points << " | "
           << (f.ranked.empty() ? md_cell(c.best) : "**" + md_cell(c.best) + "**") << " | "
           << c.speedup << " | " << c.wins << " | " << md_cell(c.runner_up) << " |\n";
    }
    md << "\n";
    return md.str();
}

std::string plots_markdown(const Plots& plots) {
    std::ostringstream md;
    md << "## Plots\n\n";
    if (!plots.problem.empty())
        md << "No plots: " << plots.problem << ".\n\n";
    if (!plots.note.empty())
        md << "Plotted: ok rows with a feasible placement (" << plots.note << ").\n\n";
    for (const auto& figure : plots.figures)
        md << "![" << figure.caption << "](" << url_path(figure.file) << ")\n\n";
    if (!plots.pareto_skipped.empty())
        md << plots.pareto_skipped << "\n\n";
    return md.str();
}

std::string render_markdown(const SweepInfo& info, const std::vector<PointSummary>& points,
                            const std::vector<FamilySummary>& families, const Plots& plots,
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
    // The answer first: the leaderboard of a compare, the summary of a sweep; then the plots.
    md << (leaderboard ? leaderboard_markdown(*leaderboard) : summary_markdown(families, points));
    md << plots_markdown(plots);

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

std::string summary_html(const std::vector<FamilySummary>& families,
                         const std::vector<PointSummary>& points) {
    if (families.empty())
        return "";
    const PointSummary& first =
        *std::find_if(points.begin(), points.end(), [](const auto& p) { return !p.failed; });
    std::ostringstream h;
    h << "<h2 id=\"summary\">Summary</h2>\n<p>"
      << summary_intro(html_escape(first.baseline), first.objective, "<code>", "</code>")
      << "</p>\n<table class=\"summary\">\n<tr>";
    for (const auto& column : kSummaryHeader)
        h << "<th>" << column << "</th>";
    h << "</tr>\n";
    for (const auto& f : families) {
        const SummaryCells c = summary_cells(f, first.baseline);
        h << "<tr><td>" << html_escape(f.name) << "</td><td class=\"num\">" << f.points
          << "</td><td>"
          << (f.ranked.empty() ? html_escape(c.best)
                               : "<strong>" + html_escape(c.best) + "</strong>")
          << "</td><td class=\"num\">" << html_escape(c.speedup) << "</td><td class=\"num\">"
          << html_escape(c.wins) << "</td><td>" << html_escape(c.runner_up) << "</td></tr>\n";
    }
    h << "</table>\n";
    return h.str();
}

std::string plots_html(const Plots& plots) {
    std::ostringstream h;
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
    if (!plots.pareto_skipped.empty())
        h << "<p>" << html_escape(plots.pareto_skipped) << "</p>\n";
    return h.str();
}

std::string render_html(const SweepInfo& info, const std::vector<PointSummary>& points,
                        const std::vector<FamilySummary>& families, const Plots& plots,
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
    h << (leaderboard ? leaderboard_html(*leaderboard) : summary_html(families, points));
    h << plots_html(plots);

    h << "<h2>Best placer per point</h2>\n<p>The lowest latency_s (objective <code>latency</code>) "
         "or the highest throughput_per_s (objective <code>throughput</code>) among the "
         "point's feasible placements.</p>\n";
    h << "<table id=\"results\">\n<tr><th>point</th>";
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

    h << "</body>\n</html>\n";
    return h.str();
}

}  // namespace

ColumnLabel column_label(const std::string& column) {
    // results.csv's own columns.
    static const std::map<std::string, ColumnLabel> kColumns = {
        {"latency_s", {"latency", "s"}},
        {"throughput_per_s", {"throughput", "1/s"}},
        {"speedup", {"speedup over the baseline", "\u00d7"}},
        {"placer_time_s", {"placer time", "s"}},
        {"profile_runs", {"profile runs", ""}},
    };
    // The last key of a swept YAML path, where a plain number has a unit or the key reads
    // better spelled out. A value written with its unit ("1 GB/s", "32 MiB") carries it itself:
    // plot.py reads it from the values.
    static const std::map<std::string, ColumnLabel> kKeys = {
        {"seq_len", {"sequence length", "tokens"}}, {"batch", {"batch size", "samples"}},
        {"heads", {"attention heads", ""}},         {"rnn_layers", {"RNN layers", ""}},
        {"memspec", {"memory standard", ""}},
    };
    if (const auto it = kColumns.find(column); it != kColumns.end())
        return it->second;
    // "platform.components.dma.forward.bandwidth" -> "dma forward bandwidth": the section is
    // implied by the key, the rest read as words.
    std::string path = column;
    for (const char* prefix :
         {"platform.components.", "platform.devices.", "platform.", "workload."}) {
        if (path.rfind(prefix, 0) == 0 && path.size() > std::strlen(prefix)) {
            path = path.substr(std::strlen(prefix));
            break;
        }
    }
    const auto dot = path.rfind('.');
    const std::string leaf = dot == std::string::npos ? path : path.substr(dot + 1);
    ColumnLabel out{path, ""};
    if (const auto it = kKeys.find(leaf); it != kKeys.end()) {
        out.label = (dot == std::string::npos ? "" : path.substr(0, dot + 1)) + it->second.label;
        out.unit = it->second.unit;
    }
    std::replace(out.label.begin(), out.label.end(), '.', ' ');
    std::replace(out.label.begin(), out.label.end(), '_', ' ');
    return out;
}

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

std::string write_report(const fs::path& dir, std::ostream& log, const ReportOptions& options) {
    if (!fs::is_regular_file(dir / "results.csv"))
        throw sim::InputError((dir / "results.csv").string(), "", 0,
                              fmt::format("no such file: '{}' is not a sweep output directory "
                                          "(hetsim sweep writes results.csv there)",
                                          dir.string()));
    SweepInfo info = read_sweep_json(dir);
    const std::vector<PointSummary> points = read_points(dir, info);
    // Options are checked before anything is written.
    const PlotRequest request = plan_plots(info, points, options);
    // `hetsim compare`'s output: its leaderboard leads the report, in place of the summary.
    const std::optional<std::vector<LeaderboardRow>> leaderboard = read_leaderboard(dir);
    const std::vector<FamilySummary> families =
        leaderboard ? std::vector<FamilySummary>{} : summarise(info, points);
    const fs::path md = dir / "report.md";
    const fs::path html = dir / "report.html";
    // The report's own files are checked before the plots are drawn: a report.md that cannot
    // be written (a folder of that name) leaves no new plots behind either.
    for (const fs::path& target : {md, html}) {
        try {
            (void)sim::output_target(target);
        } catch (const std::exception& e) {
            throw sim::InputError(
                dir.string(), "", 0,
                "cannot write the report: " + sim::write_failure_message(e, target));
        }
    }
    const Plots plots = draw_plots(dir, request, plot_context(info, points), log);
    try {
        write_file_atomically(md, render_markdown(info, points, families, plots, leaderboard));
        write_file_atomically(html, render_html(info, points, families, plots, leaderboard));
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
        "Report of sweep '{}' ({}) written to {} and {}: {}, {}, the best placer of each "
        "point with links to its traces and placement, and the failed points with "
        "their errors.\n",
        info.name, counts_line(counts), md.string(), html.string(),
        leaderboard ? "the leaderboard"
                    : fmt::format("a summary of {} point famil{}", families.size(),
                                  families.size() == 1 ? "y" : "ies"),
        plotted);
}

}  // namespace hetsim::app
