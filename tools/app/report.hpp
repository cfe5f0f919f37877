// `hetsim report DIR`: a readable summary of a `hetsim sweep` output directory (results.csv,
// sweep.json, points/<id>/...): plots drawn by tools/plot.py into DIR/plots/, then
// DIR/report.md and DIR/report.html. They lead with the answer: the counts, a summary per point
// family (the best placer, its speedup over the baseline, the runner-up; a `hetsim compare`
// output has its leaderboard instead), then the plots, then the long tables: the best placer per
// design point (with links to its traces and placement), the failed points and their errors.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

namespace hetsim::app {

// What `hetsim report` draws; empty fields take the defaults.
struct ReportOptions {
    // --x / --y: sweep axes. --x draws the line figure of that axis only; either draws a heatmap
    // of the two (the other one defaults to the first other axis whose values vary). Without
    // both, a sweep whose points vary along exactly two axes gets their heatmap.
    std::string x_axis;
    std::string y_axis;
    // --pareto COL_X,COL_Y (each optionally min:/max:), numeric columns of results.csv; default
    // latency_s,throughput_per_s.
    std::string pareto;
};

// A column of results.csv or a sweep axis (a YAML path) as a reader would name it.
struct ColumnLabel {
    std::string label;  // "latency", "sequence length", "dma forward bandwidth"
    std::string unit;   // "s", "tokens"; "" when unitless or when the values carry it ("1 GB/s")
};
// The one place that names columns: the summary and, through plot.py's --context, the plots.
ColumnLabel column_label(const std::string& column);

// Writes DIR/plots/*.png (when /usr/bin/python3 has matplotlib; the report says why not
// otherwise), DIR/report.md and DIR/report.html, each file atomically. The best placer of a
// point is the lowest latency_s among its ok, feasible rows when its objective is `latency`, the
// highest throughput_per_s when it is `throughput`. plot.py's own output goes to
// DIR/plots/plot.log; `log` gets a line when the plots could not be drawn.
// Returns a one-paragraph summary of what was written, a line ending in '\n'.
// Throws sim::InputError when DIR has no readable results.csv of the sweep format (a status
// other than ok or failed, a (point, placer) row twice, a negative or non-finite number where a
// feasible row has a time, rate or speedup, an axis twice in sweep.json included), when an
// option names an axis or column that it lacks (the message lists those it has), or when
// report.md or report.html cannot be written (checked before the plots are drawn).
std::string write_report(const std::filesystem::path& dir, std::ostream& log,
                         const ReportOptions& options = {});

// `text` as one Markdown table cell: '|' escaped, line breaks as spaces.
std::string md_cell(const std::string& text);
// `text` with &, <, >, " and ' as HTML entities.
std::string html_escape(const std::string& text);

}  // namespace hetsim::app
