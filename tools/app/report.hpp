// `hetsim report DIR`: a readable summary of a `hetsim sweep` output directory (results.csv,
// sweep.json, points/<id>/...): plots drawn by tools/plot.py into DIR/plots/, then
// DIR/report.md and DIR/report.html with the counts, the best placer per design point (with
// links to its traces and placement), the failed points and their errors, and the plots.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

namespace hetsim::app {

// Writes DIR/plots/*.png (when /usr/bin/python3 has matplotlib; the report says why not
// otherwise), DIR/report.md and DIR/report.html, each file atomically. The best placer of a
// point is the lowest latency_s among its ok, feasible rows when its objective is `latency`, the
// highest throughput_per_s when it is `throughput`. plot.py's own output goes to
// DIR/plots/plot.log; `log` gets a line when the plots could not be drawn.
// Returns a one-paragraph summary of what was written.
// Throws sim::InputError when DIR has no readable results.csv of the sweep format.
std::string write_report(const std::filesystem::path& dir, std::ostream& log);

// `text` as one Markdown table cell: '|' escaped, line breaks as spaces.
std::string md_cell(const std::string& text);
// `text` with &, <, >, " and ' as HTML entities.
std::string html_escape(const std::string& text);

}  // namespace hetsim::app
