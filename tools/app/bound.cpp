#include "tools/app/bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

#include "devices/gpu.hpp"
#include "sim/config.hpp"
#include "sim/op_table.hpp"
#include "sim/units.hpp"

namespace hetsim::app {

namespace {

using Sizes = std::array<double, 4>;

bool dominated(const Sizes& a, const Sizes& b) {  // a <= b in every dimension
    for (std::size_t d = 0; d < a.size(); ++d) {
        if (a[d] > b[d])
            return false;
    }
    return true;
}

// Ordered pairs (i, j), i != j, with sizes[i] <= sizes[j] (and, with classes, of one class).
std::vector<std::pair<std::size_t, std::size_t>> ordered_pairs(const std::vector<Sizes>& sizes,
                                                               const std::vector<int>& classes) {
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        for (std::size_t j = 0; j < sizes.size(); ++j) {
            const bool same_class = classes.empty() || classes[i] == classes[j];
            if (i != j && same_class && dominated(sizes[i], sizes[j]))
                pairs.emplace_back(i, j);
        }
    }
    return pairs;
}

// The relative error from which rows measured t_smaller and t_larger, the first no larger in
// any size, stop conflicting: t_s (1 - x) > t_l (1 + x) exactly while x is below it (bound.hpp).
// Conflicts are decided by comparing x with this one number, so that at x equal to a threshold
// every test agrees with the bisection over thresholds (the product form may round either way).
double threshold(double t_smaller, double t_larger) {
    return (t_smaller - t_larger) / (t_smaller + t_larger);
}
bool conflict(double t_smaller, double t_larger, double x) {
    return threshold(t_smaller, t_larger) > x;
}

std::size_t must_exceed(const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                        const std::vector<double>& times, double x) {
    // The bipartite graph of the conflict order: row i on the left (i), row j on the right
    // (n + j). Its maximum matching is the fewest rows a monotone model must get wrong by more
    // than x (bound.hpp); Edmonds' algorithm is for general graphs and so for this one.
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    const std::size_t n = times.size();
    Graph graph(2 * n);
    bool any = false;
    for (const auto& [i, j] : pairs) {
        if (conflict(times[i], times[j], x)) {
            boost::add_edge(i, n + j, graph);
            any = true;
        }
    }
    if (!any)
        return 0;
    std::vector<boost::graph_traits<Graph>::vertex_descriptor> mate(2 * n);
    boost::edmonds_maximum_cardinality_matching(graph, mate.data());
    return boost::matching_size(graph, mate.data());
}

// The smallest relative error x such that a monotone model can keep all but `allowed` rows
// within x: 0, or one of the inverted pairs' thresholds (`thresholds`, ascending), where the
// count changes. must_exceed does not grow with x, so bisection finds it.
double smallest_error(const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                      const std::vector<double>& times, const std::vector<double>& thresholds,
                      std::size_t allowed) {
    if (must_exceed(pairs, times, 0.0) <= allowed)
        return 0.0;
    std::size_t lo = 0, hi = thresholds.size() - 1;  // at the largest, no pair conflicts
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (must_exceed(pairs, times, thresholds[mid]) <= allowed)
            hi = mid;
        else
            lo = mid + 1;
    }
    return thresholds[lo];
}

// The most rows that may err above a percentile's value: summarize_errors() interpolates
// between the sorted errors at floor(q (n - 1)) and the next, so the percentile is at least the
// error of rank floor(q (n - 1)), which is at most x only if that many rows and one more are
// within x.
std::size_t allowed_above(std::size_t n, double q) {
    const auto rank = static_cast<std::size_t>(std::floor(q * static_cast<double>(n - 1)));
    return n - rank - 1;
}

std::string shape_text(const Sizes& s) {
    const std::string mnk = fmt::format("{:g}x{:g}x{:g}", s[1], s[2], s[3]);
    return s[0] == 1.0 ? mnk : fmt::format("{:g}*{}", s[0], mnk);
}

std::string rows_text(std::size_t n) {
    return fmt::format("{} row{}", n, n == 1 ? "" : "s");
}

std::string percent(double x) {
    return fmt::format("{:.1f} %", 100.0 * x);
}

}  // namespace

std::size_t monotone_must_exceed(const std::vector<std::array<double, 4>>& sizes,
                                 const std::vector<double>& times, double x,
                                 const std::vector<int>& classes) {
    return must_exceed(ordered_pairs(sizes, classes), times, x);
}

MonotoneFloor monotone_floor(const std::vector<std::array<double, 4>>& sizes,
                             const std::vector<double>& times, const std::vector<int>& classes) {
    MonotoneFloor f;
    const std::size_t n = times.size();
    f.floor.rows = n;
    if (n == 0)
        return f;
    const auto pairs = ordered_pairs(sizes, classes);
    f.ordered_pairs = pairs.size();
    std::vector<double> thresholds;
    for (const auto& [i, j] : pairs) {
        if (times[i] > times[j]) {
            ++f.inverted_pairs;
            thresholds.push_back(threshold(times[i], times[j]));
            f.worst.push_back({i, j, times[i] / times[j]});
        }
    }
    std::sort(thresholds.begin(), thresholds.end());
    thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
    f.floor.median = smallest_error(pairs, times, thresholds, allowed_above(n, 0.5));
    f.floor.p90 = smallest_error(pairs, times, thresholds, allowed_above(n, 0.9));
    f.floor.max = thresholds.empty() ? 0.0 : thresholds.back();
    f.must_exceed_5 = must_exceed(pairs, times, 0.05);
    f.must_exceed_15 = must_exceed(pairs, times, 0.15);
    std::stable_sort(
        f.worst.begin(), f.worst.end(),
        [](const InvertedPair& a, const InvertedPair& b) { return a.ratio > b.ratio; });
    if (f.worst.size() > 5)
        f.worst.resize(5);
    return f;
}

BoundReport bound_platform(const std::string& platform_file, const std::string& measurements_file) {
    BoundReport report;
    report.check = check_platform(platform_file, measurements_file, "");
    const MeasurementFile& file = report.check.measurements;
    std::map<std::tuple<std::string, std::string, std::string>, BoundGroup> groups;
    for (std::size_t r = 0; r < file.rows.size(); ++r) {
        const Measurement& m = file.rows[r];
        const sim::Op* gemm = nullptr;
        std::size_t ops = 0;
        if (!m.is_ratio() && m.graph) {
            for (const sim::Op& op : m.graph->ops()) {
                if (sim::op_category(op.type) == sim::OpCategory::view)
                    continue;
                ++ops;
                if (sim::op_category(op.type) == sim::OpCategory::matmul)
                    gemm = &op;
            }
        }
        const auto dims = gemm && ops == 1 ? sim::gemm_dims(*m.graph, *gemm) : std::nullopt;
        if (!dims || gemm->inputs.empty()) {
            ++report.skipped;
            continue;
        }
        const sim::DType element = m.graph->tensor(gemm->inputs[0]).dtype;
        const std::string dtype{sim::to_string(element)};
        BoundGroup& g = groups[{m.device, m.scope, dtype}];
        g.device = m.device;
        g.scope = m.scope;
        g.dtype = dtype;
        g.rows.push_back(r);
        g.sizes.push_back({dims->batch, dims->m, dims->n, dims->k});
        g.measured_s.push_back(m.time_s);
        // One class per pair of access widths (each a power of two up to 16 bytes).
        const devices::GemmAlignment widths =
            devices::gemm_alignment(dims->a_row, dims->b_row, element);
        g.alignment.push_back(static_cast<int>(widths.a_bytes) * 32 +
                              static_cast<int>(widths.b_bytes));
    }
    if (groups.empty()) {
        throw sim::InputError(measurements_file, "", 0,
                              "no row times a one-op GEMM (a graph of one MatMul or Gemm): "
                              "--bound compares GEMM sizes");
    }
    for (auto& [key, g] : groups) {
        g.any = monotone_floor(g.sizes, g.measured_s);
        g.within_alignment = monotone_floor(g.sizes, g.measured_s, g.alignment);
        std::vector<double> errors;
        for (std::size_t r : g.rows)  // check_platform() predicts every row, in file order
            errors.push_back(report.check.rows.at(r).relative_error);
        g.platform = summarize_errors(errors);
        report.groups.push_back(std::move(g));
    }
    return report;
}

std::string format_bound(const BoundReport& report) {
    const MeasurementFile& file = report.check.measurements;
    std::ostringstream out;
    out << fmt::format(
        "monotone floor of {}: {} of {} rows time a one-op GEMM, compared on (batch, M, N, K) "
        "within each device, scope and operand type\n",
        file.path, file.rows.size() - report.skipped, file.rows.size());
    for (const BoundGroup& g : report.groups) {
        const std::size_t n = g.rows.size();
        out << fmt::format(
            "  {}, {}, {}: {} rows, {} ordered pairs, {} measured slower for the smaller size\n",
            g.device, g.scope, g.dtype, n, g.any.ordered_pairs, g.any.inverted_pairs);
        const auto floor_line = [&](const MonotoneFloor& f) {
            return fmt::format(
                "median >= {}, p90 >= {}, max >= {}; at least {} more than 15 % "
                "off, {} more than 5 %",
                percent(f.floor.median), percent(f.floor.p90), percent(f.floor.max),
                rows_text(f.must_exceed_15), f.must_exceed_5);
        };
        out << fmt::format("    any model whose time never falls as batch, M, N or K grows: {}\n",
                           floor_line(g.any));
        out << fmt::format(
            "    any such model within each row alignment of A and B ({} of the "
            "pairs, {} inverted): {}\n",
            g.within_alignment.ordered_pairs, g.within_alignment.inverted_pairs,
            floor_line(g.within_alignment));
        out << fmt::format("    {} predicts: median {}, p90 {}, max {}\n",
                           report.check.platform_file, percent(g.platform.median),
                           percent(g.platform.p90), percent(g.platform.max));
        if (!g.any.worst.empty())
            out << "    most inverted pairs (the smaller size measured slower):\n";
        for (const InvertedPair& p : g.any.worst) {
            const Measurement& a = file.rows[g.rows[p.smaller]];
            const Measurement& b = file.rows[g.rows[p.larger]];
            out << fmt::format(
                "      {} {} (line {}) vs {} {} (line {}): x{:.2f}\n",
                shape_text(g.sizes[p.smaller]), sim::format_quantity(a.time_s, sim::Quantity::time),
                a.line, shape_text(g.sizes[p.larger]),
                sim::format_quantity(b.time_s, sim::Quantity::time), b.line, p.ratio);
        }
    }
    return out.str();
}

}  // namespace hetsim::app
