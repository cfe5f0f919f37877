#include "sweep/design_space.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <unordered_set>

#include "sim/config.hpp"
#include "sim/digest.hpp"
#include "sim/random.hpp"
#include "sim/units.hpp"

namespace hetsim::sweep {

namespace fs = std::filesystem;

std::string to_string(Sampling sampling) {
    switch (sampling) {
        case Sampling::grid:
            return "grid";
        case Sampling::random:
            return "random";
        case Sampling::latin_hypercube:
            return "latin_hypercube";
    }
    return "?";
}

namespace {

// Beyond this many grid points, `random` draws combinations instead of listing the grid.
constexpr double kListableGrid = 1e6;
// At most this many points run: each is loaded and checked before the first runs (about 4 ms a
// point for a BERT study, so the check stays under 7 minutes), and each is a worker run.
constexpr std::size_t kMaxSweepPoints = 100'000;
// A random sweep gives up after this many draws per wanted point (a `where` that almost nothing
// satisfies).
constexpr std::size_t kDrawsPerPoint = 1000;

std::string yaml_text(const YAML::Node& node) {
    YAML::Emitter out;
    out << node;
    return out.c_str();
}

// "2.5 GB/s" -> {2.5, "GB/s"}, "16" -> {16, ""}; nullopt when it does not start with a number.
std::optional<std::pair<double, std::string>> split_number(const std::string& text) {
    std::size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    std::string unit = text.substr(used);
    unit.erase(0, unit.find_first_not_of(' '));
    unit.erase(unit.find_last_not_of(' ') + 1);
    return std::make_pair(v, unit);
}

bool is_integer_text(const std::string& text) {
    const auto s = split_number(text);
    return s && s->second.empty() && text.find_first_of(".eE") == std::string::npos;
}

Axis parse_axis(const sim::ConfigNode& node, const std::string& path) {
    Axis axis;
    axis.path = path;
    if (node.is_sequence()) {
        if (node.size() == 0)
            node.fail("an axis needs at least one value");
        std::set<std::string> seen;
        for (std::size_t i = 0; i < node.size(); ++i) {
            std::string text = yaml_text(node.at(i).raw());
            if (!seen.insert(text).second)
                node.at(i).fail(fmt::format("the axis lists '{}' twice", text));
            axis.values.push_back(std::move(text));
        }
        return axis;
    }
    if (!node.is_map())
        node.fail(
            "an axis is a list of values, a range {min: X, max: Y}, or {values: {label: "
            "{path: value, ...}, ...}}");
    if (node.has("values")) {
        // A bundle axis: each label sets several paths at once (a platform with k
        // accelerators removes the others and their links).
        node.expect_keys({"values"});
        const sim::ConfigNode labels = node.at("values");
        labels.expect_map();
        if (labels.size() == 0)
            labels.fail("an axis needs at least one value");
        for (const std::string& label : labels.keys()) {
            const sim::ConfigNode set = labels.at(label);
            if (set.defined())
                set.expect_map();
            std::vector<std::string> assignments;
            if (set.defined()) {
                for (const std::string& target : set.keys())
                    assignments.push_back(target + "=" + yaml_text(set.at(target).raw()));
            }
            axis.values.push_back(label);
            axis.bundles.push_back(std::move(assignments));
        }
        return axis;
    }
    node.expect_keys({"min", "max", "log", "integer"});
    axis.range = true;
    const std::string lo = node.at("min").as_string(), hi = node.at("max").as_string();
    const auto a = split_number(lo), b = split_number(hi);
    if (!a)
        node.at("min").fail(fmt::format("expected a number with an optional unit, got '{}'", lo));
    if (!b)
        node.at("max").fail(fmt::format("expected a number with an optional unit, got '{}'", hi));
    axis.unit = a->second;
    axis.min = a->first;
    axis.max = b->first;
    if (b->second != a->second) {
        // Another prefix of the same unit ("512 MiB" .. "2 GiB"): max in min's unit.
        // Of the same kind: "1 GB/s" .. "5 GHz" would sample a bandwidth axis in hertz.
        const Value one_min = axis_value("1 " + a->second), vb = axis_value(hi);
        const auto kind_min = quantity_kind("1 " + a->second), kind_max = quantity_kind(hi);
        if (a->second.empty() || b->second.empty() || !kind_min || kind_min != kind_max) {
            node.fail(fmt::format(
                "min '{}' and max '{}' have different units; give both as the same kind of "
                "quantity{}",
                lo, hi, kind_min ? fmt::format(" ({})", sim::to_string(*kind_min)) : ""));
        }
        axis.max = std::get<double>(vb) / std::get<double>(one_min);
    }
    if (!(axis.max > axis.min))
        node.fail(fmt::format("max ({}) must be above min ({})", hi, lo));
    axis.log = node.get_bool("log", false);
    if (axis.log && axis.min <= 0.0)
        node.at("min").fail("a log-scale range needs min > 0");
    axis.integer = node.get_bool("integer", is_integer_text(lo) && is_integer_text(hi));
    return axis;
}

// The YAML text of a range axis at u in [0, 1).
std::string range_value(const Axis& axis, double u) {
    double v = axis.log ? axis.min * std::pow(axis.max / axis.min, u)
                        : axis.min + u * (axis.max - axis.min);
    if (axis.integer)
        return fmt::format("{}", std::llround(v));
    // Four significant digits: readable in a CSV, and the same text (so the same point id)
    // everywhere.
    const std::string number = fmt::format("{:.4g}", v);
    return axis.unit.empty() ? number : number + " " + axis.unit;
}

std::string value_at(const Axis& axis, double u) {
    if (axis.range)
        return range_value(axis, u);
    const auto k = axis.values.size();
    return axis.values[std::min(k - 1, static_cast<std::size_t>(u * static_cast<double>(k)))];
}

}  // namespace

std::vector<std::string> SweepSpec::axis_paths() const {
    std::vector<std::string> paths;
    for (const Axis& a : axes)
        paths.push_back(a.path);
    return paths;
}

std::string DesignPoint::label() const {
    std::vector<std::string> parts;
    for (const auto& [path, value] : values)
        parts.push_back(fmt::format("{}={}", path.substr(path.rfind('.') + 1), value));
    return fmt::format("{}", fmt::join(parts, ", "));
}

std::string point_id(const std::vector<std::string>& assignments) {
    std::uint64_t h = sim::kFnv1aOffset;
    for (const std::string& a : assignments) {
        h = sim::fnv1a_64(a, h);
        h = sim::fnv1a_64(std::string_view("\n", 1), h);
    }
    return fmt::format("p{:012x}", h >> 16);
}

SweepSpec load_sweep(const fs::path& file) {
    if (!fs::exists(file))
        throw sim::InputError(file.string(), "", 0, "the sweep file does not exist");
    const sim::ConfigNode root = sim::ConfigNode::load_file(file);
    root.expect_map();
    root.expect_keys(
        {"sweep", "study", "axes", "where", "random", "latin_hypercube", "timeout", "trace"});
    SweepSpec spec;
    spec.file = file;
    spec.name = root.at("sweep").as_folder_name();
    const sim::ConfigNode study = root.at("study");
    fs::path study_path = study.as_string();
    if (study_path.is_relative())
        study_path = file.parent_path() / study_path;
    if (!fs::exists(study_path))
        study.fail(fmt::format("the study '{}' does not exist", study_path.string()));
    spec.study = study_path;

    const sim::ConfigNode axes = root.at("axes");
    axes.expect_map();
    if (axes.size() == 0)
        axes.fail("a sweep needs at least one axis");
    for (const std::string& path : axes.keys()) {
        if (path == "points" || path.starts_with("points."))
            axes.at(path).fail("a sweep's axes cannot set the study's `points:`");
        spec.axes.push_back(parse_axis(axes.at(path), path));
    }
    // No YAML path may be set by two axes (a bundle's assignments included), nor inside a path
    // an earlier axis sets: the later assignment would win at every point while results.csv
    // labelled the point with the earlier axis's value. A later axis may remove (set to null) a
    // map an earlier one sets inside, e.g. an accelerator whose memory an earlier axis sets.
    struct SetPath {
        std::string path, axis;
        bool only_null;  // every value the axis gives it is null
    };
    std::vector<SetPath> set_before;
    const auto is_null = [](const std::string& value) {
        return value == "~" || value == "null" || value == "Null" || value == "NULL";
    };
    for (const Axis& axis : spec.axes) {
        std::map<std::string, bool> paths;  // path -> only null
        if (axis.bundles.empty())
            paths[axis.path] =
                !axis.range && std::all_of(axis.values.begin(), axis.values.end(), is_null);
        for (const auto& bundle : axis.bundles) {
            for (const std::string& assignment : bundle) {
                const std::size_t eq = assignment.find('=');
                const bool null = is_null(assignment.substr(eq + 1));
                const auto [it, inserted] = paths.emplace(assignment.substr(0, eq), null);
                if (!inserted)
                    it->second = it->second && null;
            }
        }
        for (const auto& [path, only_null] : paths) {
            for (const SetPath& earlier : set_before) {
                const bool clash = path == earlier.path || path.starts_with(earlier.path + ".") ||
                                   (earlier.path.starts_with(path + ".") && !only_null);
                if (clash) {
                    axes.at(axis.path).fail(fmt::format(
                        "sets '{}', which axis '{}' sets too ('{}'): each path is one axis's (a "
                        "later axis may only remove, with ~, a map an earlier one sets inside)",
                        path, earlier.axis, earlier.path));
                }
            }
        }
        for (const auto& [path, only_null] : paths)
            set_before.push_back({path, axis.path, only_null});
    }

    if (root.has("random") && root.has("latin_hypercube"))
        root.fail("a sweep samples with `random` or `latin_hypercube`, not both");
    for (const char* key : {"random", "latin_hypercube"}) {
        if (!root.has(key))
            continue;
        const sim::ConfigNode s = root.at(key);
        s.expect_keys({"n", "seed"});
        const std::int64_t n = s.at("n").as_int();
        if (n < 1)
            s.at("n").fail("n must be at least 1");
        // The points are listed and checked, each a worker run: past the limit that is a typo,
        // and past the memory it would be a crash (n = 10^11 ended in bad_alloc).
        if (n > static_cast<std::int64_t>(kMaxSweepPoints))
            s.at("n").fail(fmt::format("n must be at most {}, got {}", kMaxSweepPoints, n));
        spec.samples = static_cast<std::size_t>(n);
        const std::int64_t seed = s.get_int("seed", 1);
        if (seed < 0)
            s.at("seed").fail(fmt::format("expected an integer >= 0, got {}", seed));
        spec.seed = static_cast<std::uint64_t>(seed);
        spec.sampling = std::string(key) == "random" ? Sampling::random : Sampling::latin_hypercube;
    }
    for (const Axis& axis : spec.axes) {
        if (axis.range && spec.sampling == Sampling::grid)
            axes.at(axis.path).fail(
                "a range axis needs `random:` or `latin_hypercube:` sampling; a grid takes lists");
    }
    if (root.has("where")) {
        const sim::ConfigNode where = root.at("where");
        for (const std::string& text : where.as_string_list()) {
            try {
                spec.where.push_back(Expression::parse(text));
            } catch (const ExpressionError& e) {
                where.fail(e.what());
            }
        }
    }
    if (root.has("timeout")) {
        spec.timeout_s = root.at("timeout").as_quantity(sim::Quantity::time);
        if (!(spec.timeout_s > 0.0))
            root.at("timeout").fail("the timeout must be positive");
    }
    spec.trace = root.get_bool("trace", false);
    return spec;
}

namespace {

class Builder {
public:
    explicit Builder(const SweepSpec& spec) : spec_(spec) {}

    // Adds a candidate; false when a constraint removes it or it repeats a point.
    bool offer(std::vector<std::pair<std::string, std::string>> values) {
        std::map<std::string, Value> variables;
        std::map<std::string, sim::Quantity> kinds;
        for (const auto& [path, value] : values) {
            variables[path] = axis_value(value);
            if (spec_.where.empty())
                continue;
            if (const auto kind = quantity_kind(value))
                kinds[path] = *kind;
        }
        for (const Expression& e : spec_.where) {
            bool holds = false;
            try {
                holds = e.holds(variables, kinds);
            } catch (const ExpressionError& error) {
                throw sim::InputError(spec_.file.string(), "where", 0, error.what());
            }
            if (!holds) {
                ++space.skipped;
                return false;
            }
        }
        DesignPoint p;
        for (std::size_t a = 0; a < values.size(); ++a) {
            const Axis& axis = spec_.axes[a];
            if (axis.bundles.empty()) {
                p.assignments.push_back(values[a].first + "=" + values[a].second);
                continue;
            }
            const auto label = std::find(axis.values.begin(), axis.values.end(), values[a].second);
            const auto& set = axis.bundles[static_cast<std::size_t>(label - axis.values.begin())];
            p.assignments.insert(p.assignments.end(), set.begin(), set.end());
        }
        p.id = point_id(p.assignments);
        if (!ids_.insert(p.id).second)
            return false;
        p.index = space.points.size();
        p.values = std::move(values);
        space.points.push_back(std::move(p));
        return true;
    }

    DesignSpace space;

private:
    const SweepSpec& spec_;
    std::unordered_set<std::string> ids_;  // hashed: a 10^6-point grid offers each once
};

std::vector<std::pair<std::string, std::string>> grid_values(const SweepSpec& spec,
                                                             std::size_t flat) {
    std::vector<std::pair<std::string, std::string>> values(spec.axes.size());
    for (std::size_t a = spec.axes.size(); a-- > 0;) {
        const auto& list = spec.axes[a].values;
        values[a] = {spec.axes[a].path, list[flat % list.size()]};
        flat /= list.size();
    }
    return values;
}

}  // namespace

DesignSpace enumerate_points(const SweepSpec& spec) {
    Builder builder(spec);
    double grid_size = 1.0;
    bool all_lists = true;
    for (const Axis& axis : spec.axes) {
        grid_size *= axis.range ? 0.0 : static_cast<double>(axis.values.size());
        all_lists = all_lists && !axis.range;
    }
    std::mt19937_64 rng(spec.seed);
    switch (spec.sampling) {
        case Sampling::grid:
            // Counted before it is listed: a grid of billions of points would hang here.
            if (grid_size > kListableGrid) {
                std::vector<std::string> sizes;
                for (const Axis& axis : spec.axes)
                    sizes.push_back(std::to_string(axis.values.size()));
                throw sim::InputError(
                    spec.file.string(), "axes", 0,
                    fmt::format(
                        "the grid has {:.0f} points ({}), more than the limit of {:.0f}; "
                        "use `random: {{n: N}}` or `latin_hypercube: {{n: N}}` to sample it",
                        grid_size, fmt::join(sizes, " x "), kListableGrid));
            }
            for (std::size_t i = 0; i < static_cast<std::size_t>(grid_size); ++i)
                builder.offer(grid_values(spec, i));
            // Listed, a grid may be larger as long as `where` keeps few enough to run.
            if (builder.space.points.size() > kMaxSweepPoints) {
                throw sim::InputError(
                    spec.file.string(), "axes", 0,
                    fmt::format("the grid keeps {} points{}, more than the {} a sweep runs; use "
                                "`random: {{n: N}}` or `latin_hypercube: {{n: N}}` to sample it",
                                builder.space.points.size(),
                                builder.space.skipped
                                    ? fmt::format(" of {:.0f} after `where`", grid_size)
                                    : "",
                                kMaxSweepPoints));
            }
            break;
        case Sampling::random:
            if (all_lists && grid_size <= kListableGrid) {
                // n distinct grid points that satisfy the constraints: a partial Fisher-Yates
                // shuffle of the grid, so that no point is drawn twice.
                std::vector<std::size_t> order(static_cast<std::size_t>(grid_size));
                std::iota(order.begin(), order.end(), 0);
                for (std::size_t i = 0;
                     i < order.size() && builder.space.points.size() < spec.samples; ++i) {
                    std::swap(order[i], order[i + sim::uniform_index(rng, order.size() - i)]);
                    builder.offer(grid_values(spec, order[i]));
                }
            } else {
                for (std::size_t draws = 0; builder.space.points.size() < spec.samples &&
                                            draws < kDrawsPerPoint * spec.samples;
                     ++draws) {
                    std::vector<std::pair<std::string, std::string>> values;
                    for (const Axis& axis : spec.axes)
                        values.emplace_back(axis.path, value_at(axis, sim::uniform_unit(rng)));
                    builder.offer(std::move(values));
                }
            }
            break;
        case Sampling::latin_hypercube: {
            const std::size_t n = spec.samples;
            std::vector<std::vector<std::size_t>> strata;
            for (std::size_t a = 0; a < spec.axes.size(); ++a) {
                std::vector<std::size_t> perm(n);
                std::iota(perm.begin(), perm.end(), 0);
                for (std::size_t i = n; i > 1; --i)
                    std::swap(perm[i - 1], perm[sim::uniform_index(rng, i)]);
                strata.push_back(std::move(perm));
            }
            for (std::size_t i = 0; i < n; ++i) {
                std::vector<std::pair<std::string, std::string>> values;
                for (std::size_t a = 0; a < spec.axes.size(); ++a) {
                    const double u = (static_cast<double>(strata[a][i]) + sim::uniform_unit(rng)) /
                                     static_cast<double>(n);
                    values.emplace_back(spec.axes[a].path, value_at(spec.axes[a], u));
                }
                builder.offer(std::move(values));
            }
            break;
        }
    }
    if (builder.space.points.empty()) {
        throw sim::InputError(
            spec.file.string(), "where", 0,
            fmt::format("no design point is left ({} removed by `where`)", builder.space.skipped));
    }
    if (spec.sampling == Sampling::random && builder.space.points.size() < spec.samples &&
        !(all_lists && grid_size <= kListableGrid)) {
        // Without a `where`, the draws repeat: the axes hold fewer distinct points than n (an
        // integer range of a few values).
        throw sim::InputError(
            spec.file.string(), "random", 0,
            spec.where.empty()
                ? fmt::format("the axes gave only {} distinct point(s) in {} draws, fewer than n "
                              "= {}: lower n or widen the axes (an integer range holds only its "
                              "integers)",
                              builder.space.points.size(), kDrawsPerPoint * spec.samples,
                              spec.samples)
                : fmt::format("only {} of {} points satisfy `where` after {} draws",
                              builder.space.points.size(), spec.samples,
                              kDrawsPerPoint * spec.samples));
    }
    return std::move(builder.space);
}

}  // namespace hetsim::sweep
