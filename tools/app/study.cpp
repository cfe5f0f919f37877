#include "tools/app/study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "importers/onnx_import.hpp"
#include "placement/eop/eop_placer.hpp"
#include "placement/placer_args.hpp"
#include "sim/csv.hpp"
#include "sim/device_role.hpp"
#include "sim/exec_graph.hpp"
#include "sim/passes/fuse.hpp"
#include "sim/placement_file.hpp"
#include "sim/placement_rules.hpp"
#include "sim/progress.hpp"
#include "sim/units.hpp"
#include "sim/version.hpp"
#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tools/app/registration.hpp"
#include "traces/trace_writer.hpp"

namespace hetsim::app {

namespace {
// Internal study key: the file a platform mapping was inlined from (see inline_platform_for).
const std::string kInlinedPlatformFileKey = "platform_file (inlined)";
}  // namespace

namespace fs = std::filesystem;

std::string file_safe(const std::string& spec) {
    std::string out;
    for (char c : spec) {
        bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
        out += keep ? c : '_';
    }
    return out;
}

std::optional<fs::path> find_tool_script(const std::string& name) {
    const fs::path local = fs::path("tools") / name;
    if (fs::exists(local))
        return local;
#ifdef HETSIM_SOURCE_DIR
    const fs::path source = fs::path(HETSIM_SOURCE_DIR) / "tools" / name;
    if (fs::exists(source))
        return source;
#endif
    return std::nullopt;
}

namespace {

// A file a config names, relative to the config file's folder (as given when the config came
// from the command line, "<command line>").
std::filesystem::path file_beside_config(const sim::ConfigNode& node) {
    std::filesystem::path file = node.as_string();
    if (file.is_relative() && !node.file().empty() && node.file().front() != '<')
        file = std::filesystem::path(node.file()).parent_path() / file;
    return file;
}

}  // namespace

std::shared_ptr<sim::Graph> build_workload(const sim::ConfigNode& node, std::string& label) {
    node.expect_map();
    // One source: `model:` (with its knobs), `onnx:` or `json:`.
    std::vector<std::string> sources;
    for (const char* key : {"model", "onnx", "json"})
        if (node.has(key))
            sources.push_back(key);
    if (sources.size() > 1) {
        node[sources[1]].fail(fmt::format(
            "a workload is one of `model:`, `onnx:` or `json:`, got both `{}:` and `{}:`",
            sources[0], sources[1]));
    }
    if (node.has("onnx")) {
        node.expect_keys({"onnx", "dims", "unknown_ops"});
        const std::filesystem::path file = file_beside_config(node.at("onnx"));
        importers::OnnxImportOptions options;
        if (node.has("dims")) {
            const sim::ConfigNode dims = node.at("dims");
            dims.expect_map();
            for (const auto& key : dims.keys())
                options.dims[key] = dims.at(key).as_int();
        }
        const std::string unknown = node.get_string("unknown_ops", "error");
        if (unknown == "zero-cost") {
            options.unknown_ops = importers::UnknownOps::zero_cost;
        } else if (unknown != "error") {
            node["unknown_ops"].fail(
                fmt::format("expected 'error' or 'zero-cost', got '{}'", unknown));
        }
        try {
            auto imported = importers::import_onnx(file.string(), options);
            if (!imported.zero_cost_ops.empty()) {
                std::vector<std::string> listed;
                for (const auto& [type, count] : imported.zero_cost_ops)
                    listed.push_back(
                        fmt::format("{} ({} node{})", type, count, count > 1 ? "s" : ""));
                fmt::print(stderr, "warning: {}: op types imported at zero cost: {}\n",
                           file.string(), fmt::join(listed, ", "));
            }
            label = fmt::format("onnx({})", file.filename().string());
            return std::make_shared<sim::Graph>(std::move(imported.graph));
        } catch (const importers::OnnxImportError& e) {
            node["onnx"].fail(e.what());
        }
    }
    if (node.has("json")) {
        node.expect_keys({"json"});
        const std::filesystem::path file = file_beside_config(node.at("json"));
        try {
            auto graph = std::make_shared<sim::Graph>(sim::workloads::load_json_graph(file));
            label = fmt::format("json({})", file.filename().string());
            return graph;
        } catch (const std::invalid_argument& e) {
            node["json"].fail(e.what());
        } catch (const sim::GraphError& e) {
            node["json"].fail(fmt::format("{}: {}", file.string(), e.what()));
        }
    }
    const std::string model = node.at("model").as_string();
    std::vector<std::string> model_names;
    const sim::workloads::ModelInfo* info = nullptr;
    for (const auto& m : sim::workloads::list_models()) {
        model_names.push_back(m.name);
        if (m.name == model)
            info = &m;
    }
    if (info == nullptr) {
        std::string hint = sim::did_you_mean(model, model_names);
        node["model"].fail(
            fmt::format("unknown model '{}'{}; known: {}", model,
                        hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                        fmt::join(model_names, ", ")));
    }
    std::vector<std::string> allowed{"model"};
    for (const auto& k : info->knobs)
        allowed.push_back(k.name);
    node.expect_keys(allowed);
    sim::workloads::Knobs knobs;
    for (const auto& k : info->knobs) {
        if (!node.has(k.name))
            continue;
        // Checked at the knob's own node, so a --set or points: value is blamed, not the
        // workload's line.
        const std::int64_t value = node.at(k.name).as_int();
        if (const std::string problem = sim::workloads::knob_value_problem(k, value);
            !problem.empty())
            node.at(k.name).fail(fmt::format("model '{}': knob '{}' {}", model, k.name, problem));
        knobs[k.name] = value;
    }
    std::shared_ptr<sim::Graph> graph;
    try {
        graph = std::make_shared<sim::Graph>(sim::workloads::build_model(model, knobs));
    } catch (const std::invalid_argument& e) {
        node.fail(e.what());
    } catch (const sim::GraphError& e) {
        node.fail(e.what());
    }
    std::vector<std::string> parts;
    for (const auto& k : info->knobs) {
        auto it = knobs.find(k.name);
        const std::int64_t value = it == knobs.end() ? k.default_value : it->second;
        if (!k.labelled_at_default && value == k.default_value)
            continue;
        parts.push_back(fmt::format("{}={}", k.name, value));
    }
    label = fmt::format("{}({})", model, fmt::join(parts, ","));
    return graph;
}

StudyConfig parse_study(const sim::ConfigNode& root) {
    register_all();
    root.expect_map();
    // The inlined platform's file is hetsim's own key: accepted, never offered in a message.
    root.expect_keys({"study", "description", "platform", "workload", "objective", "evaluator",
                      "placers", "baseline", "seed", "samples", "point", "points"},
                     {kInlinedPlatformFileKey});
    root.get_string("description", "");  // free text, but text: not a list or a map
    StudyConfig study;
    study.file = root.file();
    study.name = root.at("study").as_folder_name();
    // Platform: a file path relative to the study file, or an inline mapping.
    sim::ConfigNode platform_node = root.at("platform");
    if (root.has(kInlinedPlatformFileKey)) {
        // A platform file inlined so that `platform.*` overrides could apply: its nodes keep
        // their line numbers, so errors name the platform file.
        const std::string platform_file = root.at(kInlinedPlatformFileKey).as_string();
        study.platform =
            sim::parse_platform(sim::ConfigNode(platform_node.raw(), platform_file, ""));
        study.resolved = YAML::Clone(root.raw());
        study.resolved.remove(kInlinedPlatformFileKey);
    } else if (platform_node.is_scalar()) {
        fs::path p = platform_node.as_string();
        if (p.is_relative() && !root.file().empty())
            p = fs::path(root.file()).parent_path() / p;
        if (!fs::exists(p)) {
            platform_node.fail(fmt::format("platform file '{}' does not exist", p.string()));
        }
        sim::ConfigNode loaded = sim::ConfigNode::load_file(p);
        study.platform = sim::parse_platform(loaded);
        study.resolved = YAML::Clone(root.raw());
        study.resolved["platform"] = YAML::Clone(loaded.raw());
    } else {
        study.platform = sim::parse_platform(platform_node);
        study.resolved = YAML::Clone(root.raw());
    }
    study.graph = build_workload(root.at("workload"), study.workload_label);
    // Devices that compile with TVM run the graph fused (sim/passes/fuse.hpp). A placement
    // places one graph, so every device must agree on it.
    if (study.platform.device_count() > 0) {
        const sim::Compiler compiler = study.platform.device(0).compiler;
        for (const sim::Device& d : study.platform.devices()) {
            if (d.compiler != compiler) {
                throw sim::InputError(
                    study.file, "platform", 0,
                    fmt::format("devices {} and {} name different compilers: hetsim fuses the "
                                "study graph for every device or for none",
                                study.platform.device(0).name, d.name));
            }
        }
        if (compiler == sim::Compiler::tvm) {
            study.graph =
                std::make_shared<sim::Graph>(sim::passes::compile_for(*study.graph, compiler));
            study.workload_label += " fused(tvm)";
        }
    }

    const std::string objective = root.get_string("objective", "latency");
    if (objective == "latency") {
        study.objective = placement::Objective::latency;
    } else if (objective == "throughput") {
        study.objective = placement::Objective::throughput;
    } else {
        root["objective"].fail(
            fmt::format("expected 'latency' or 'throughput', got '{}'", objective));
    }
    study.evaluator = root.get_string("evaluator", "des");
    if (study.evaluator != "des" && study.evaluator != "analytic") {
        root["evaluator"].fail(
            fmt::format("expected 'des' or 'analytic', got '{}'", study.evaluator));
    }
    const std::int64_t seed = root.get_int("seed", 1);
    if (seed < 0)
        root["seed"].fail(fmt::format("expected an integer >= 0, got {}", seed));
    study.seed = static_cast<std::uint64_t>(seed);
    // Past 2^31 - 1 the count would wrap in the int that holds it (2^32 + 1 became 1); below it,
    // the evaluator's memory limit decides.
    constexpr std::int64_t kMaxSamples = std::numeric_limits<int>::max();
    const std::int64_t samples = root.get_int("samples", 8);
    if (samples > kMaxSamples)
        root["samples"].fail(fmt::format("expected at most {}, got {}", kMaxSamples, samples));
    study.samples = static_cast<int>(samples);
    if (study.samples < 1)
        root["samples"].fail("must be >= 1");
    study.point = root.get_string("point", "default");
    if (study.point.empty())
        root.at("point").fail("expected a non-empty label for the design point");
    // In a YAML flow list `[priority:CPU_P,PIM,CPU_S, random]` the commas of a priority
    // spec split it into items; an item that is a device name (and no placer) continues
    // the spec before it, as usage.md writes it.
    const std::vector<std::string> device_names = study.platform.device_names();
    for (const auto& item : root.at("placers").as_string_list()) {
        const bool is_device =
            std::find(device_names.begin(), device_names.end(), item) != device_names.end();
        if (is_device && !study.placers.empty() &&
            study.placers.back().find(':') != std::string::npos) {
            study.placers.back() += "," + item;
        } else {
            study.placers.push_back(item);
        }
    }
    if (study.placers.empty())
        root["placers"].fail("a study needs at least one placer");
    // A spec listed twice ran twice and wrote two rows for one placer (a sweep's --resume then
    // refuses the duplicate rows).
    for (std::size_t i = 0; i < study.placers.size(); ++i) {
        if (std::find(study.placers.begin(), study.placers.begin() + static_cast<long>(i),
                      study.placers[i]) != study.placers.begin() + static_cast<long>(i))
            root["placers"].fail(
                fmt::format("placer '{}' is listed twice; each runs once", study.placers[i]));
    }
    study.baseline = root.get_string("baseline", study.placers.front());
    // Every placer spec must parse now, before anything runs or is written: the listed ones in
    // order, then a baseline the study names (one it does not name is the first placer, whose
    // mistake is reported at its own place in the list).
    auto& registry = placement::PlacerRegistry::instance();
    std::vector<std::string> all = study.placers;
    const bool named_baseline = root.has("baseline");
    if (named_baseline)
        all.push_back(study.baseline);
    const std::vector<std::string> devices = study.platform.device_names();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const sim::ConfigNode where =
            i == study.placers.size() ? root["baseline"] : root["placers"].at(i);
        try {
            registry.create(all[i]);
        } catch (const placement::PlacementError& e) {
            where.fail(e.what());
        }
        // Placers whose arguments are device names: check them against this platform now.
        const placement::PlacerSpec spec = placement::split_placer_spec(all[i]);
        if (spec.arguments.empty() || (spec.name != "single" && spec.name != "priority"))
            continue;
        std::stringstream args(spec.arguments);
        for (std::string device; std::getline(args, device, ',');) {
            if (std::find(devices.begin(), devices.end(), device) != devices.end())
                continue;
            std::string hint = sim::did_you_mean(device, devices);
            where.fail(
                fmt::format("placer '{}' names device '{}', which platform '{}' does not "
                            "have{}; devices: {}",
                            all[i], device, study.platform.name,
                            hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                            fmt::join(devices, ", ")));
        }
    }
    return study;
}

namespace {

// Before a `platform.<key>=value` override (from --set or a `points:` axis) can apply to a
// study whose platform is a file path, the file's mapping replaces the path in the study;
// kInlinedPlatformFileKey remembers the file for error messages.
void inline_platform_for(YAML::Node& raw, const std::string& study_file,
                         const std::string& assignment) {
    if (!assignment.starts_with("platform."))
        return;
    YAML::Node platform = raw["platform"];
    if (!platform.IsScalar())
        return;
    const sim::ConfigNode path_node(platform, study_file, "platform");
    fs::path p = platform.as<std::string>();
    if (p.is_relative() && !study_file.empty())
        p = fs::path(study_file).parent_path() / p;
    if (!fs::exists(p))
        path_node.fail(fmt::format("platform file '{}' does not exist", p.string()));
    raw["platform"] = sim::ConfigNode::load_file(p).raw();
    raw[kInlinedPlatformFileKey] = p.string();
}

void apply_study_override(YAML::Node& raw, const std::string& study_file,
                          const std::string& assignment) {
    inline_platform_for(raw, study_file, assignment);
    sim::apply_override(raw, assignment);
}

// The study file with the command-line overrides applied in place, so every node that was
// not overridden keeps its line number for error messages (a YAML::Clone would lose them).
YAML::Node load_with_overrides(const std::string& file, const std::vector<std::string>& overrides) {
    YAML::Node raw = sim::ConfigNode::load_file(file).raw();
    for (const auto& o : overrides)
        apply_study_override(raw, file, o);
    return raw;
}

}  // namespace

namespace {

std::vector<StudyConfig> load_points(const std::string& file,
                                     const std::vector<std::string>& overrides) {
    YAML::Node raw = load_with_overrides(file, overrides);
    const sim::ConfigNode base(raw, file, "");
    if (!base.has("points"))
        return {parse_study(base)};
    // With `points:` each point is labelled by its axis values; a `point:` label beside them
    // was silently dropped.
    if (base.has("point"))
        base.at("point").fail(
            "`point:` labels a study without `points:`; with `points:` each "
            "point's label is its axis values");

    // Grid over the axes, the last axis changing fastest.
    const sim::ConfigNode axes = base.at("points");
    axes.expect_map();
    if (axes.size() == 0)
        axes.fail("`points:` needs at least one axis: {YAML.path: [values], ...}");
    std::vector<std::pair<std::string, std::vector<std::string>>> grid;
    for (const auto& path : axes.keys()) {
        const sim::ConfigNode values = axes.at(path);
        // `points` and `point` are the grid and its labels: an axis setting them ran points
        // labelled `points=a`.
        if (path == "points" || path == "point" || path.starts_with("points."))
            values.fail(fmt::format("an axis cannot set '{}': it is the grid itself", path));
        values.expect_sequence();
        if (values.size() == 0)
            values.fail("an axis needs at least one value");
        std::vector<std::string> list;
        for (std::size_t i = 0; i < values.size(); ++i) {
            YAML::Emitter value;
            value << values.at(i).raw();
            // As in a sweep's axes: a repeated value would run the same point twice.
            if (std::find(list.begin(), list.end(), value.c_str()) != list.end())
                values.at(i).fail(fmt::format("the axis lists '{}' twice", value.c_str()));
            list.emplace_back(value.c_str());
        }
        grid.emplace_back(path, std::move(list));
    }
    // Counted before it is expanded: every point is loaded and checked before the first runs,
    // in one process. Larger design spaces are what sweeps (workers, resume) are for.
    constexpr double kMaxStudyPoints = 10'000;
    double count = 1.0;
    std::vector<std::string> sizes;
    for (const auto& [path, values] : grid) {
        count *= static_cast<double>(values.size());
        sizes.push_back(std::to_string(values.size()));
    }
    if (count > kMaxStudyPoints) {
        axes.fail(
            fmt::format("the grid has {:.0f} points ({}), more than a study's limit of "
                        "{:.0f}; run larger design spaces as a sweep (hetsim sweep)",
                        count, fmt::join(sizes, " x "), kMaxStudyPoints));
    }
    std::vector<StudyConfig> points;
    std::vector<std::size_t> index(grid.size(), 0);
    while (true) {
        YAML::Node point = load_with_overrides(file, overrides);
        point.remove("points");
        std::vector<std::string> label;
        for (std::size_t a = 0; a < grid.size(); ++a) {
            const std::string& value = grid[a].second[index[a]];
            apply_study_override(point, file, grid[a].first + "=" + value);
            const auto dot = grid[a].first.rfind('.');
            label.push_back(fmt::format("{}={}", grid[a].first.substr(dot + 1), value));
        }
        point["point"] = fmt::format("{}", fmt::join(label, ","));
        try {
            points.push_back(parse_study(sim::ConfigNode(point, file, "")));
        } catch (const sim::InputError& e) {
            // A mistake that an axis value brought in is the value's, at its line under
            // `points:`, not the line of the key it replaced.
            std::vector<std::string> assignments;
            for (std::size_t a = 0; a < grid.size(); ++a)
                assignments.push_back(grid[a].first + "=" + grid[a].second[index[a]]);
            const auto behind = sim::assignment_behind(e, assignments, {"platform"});
            if (!behind)
                throw;
            const auto a = static_cast<std::size_t>(
                std::find(assignments.begin(), assignments.end(), *behind) - assignments.begin());
            axes.at(grid[a].first)
                .at(index[a])
                .fail(fmt::format("point {}: {}", fmt::join(label, ","), e.message()));
        }
        points.back().resolved["points"] = YAML::Clone(axes.raw());
        std::size_t a = grid.size();
        while (a > 0 && ++index[a - 1] == grid[a - 1].second.size())
            index[--a] = 0;
        if (a == 0)
            break;
    }
    return points;
}

}  // namespace

std::vector<StudyConfig> load_study_points(const std::string& file,
                                           const std::vector<std::string>& overrides) {
    try {
        return load_points(file, overrides);
    } catch (const sim::InputError& e) {
        // A mistake in a --set value is the --set argument's, not the line of the study or
        // platform file that its value replaced: name the argument.
        if (const auto assignment = sim::assignment_behind(e, overrides, {"platform"}))
            throw sim::InputError("--set " + *assignment, "", 0, e.message());
        throw;
    }
}

StudyConfig load_study(const std::string& file, const std::vector<std::string>& overrides) {
    std::vector<StudyConfig> points = load_study_points(file, overrides);
    // agree, check-partition, inspect and place run one point: the others of `points:` were
    // silently dropped.
    if (points.size() > 1) {
        throw sim::InputError(
            file, "points", 0,
            fmt::format("this command runs one design point, and `points:` makes {}; run them "
                        "with `hetsim run` (or as a sweep), or give each axis one value with "
                        "--set",
                        points.size()));
    }
    return std::move(points.front());
}

StudyResult run_study(const StudyConfig& study, bool record_traces, std::ostream* progress,
                      bool terminal) {
    sim::EvalOptions options;
    options.samples = study.samples;
    // A throughput study's trace is its pipelined stream: every sample on every resource.
    options.trace_stream = study.objective == placement::Objective::throughput;
    auto evaluator = sim::make_evaluator(study.evaluator, study.platform, options);
    auto& registry = placement::PlacerRegistry::instance();

    std::vector<std::string> specs{study.baseline};
    for (const auto& p : study.placers) {
        if (p != study.baseline)
            specs.push_back(p);
    }
    StudyResult result;
    // A study that runs an EOP placer reports EOP's own metric (AT, Eq. 4) for every placer.
    const auto placers = registry.all();
    const bool eop_study = std::any_of(specs.begin(), specs.end(), [&](const std::string& spec) {
        const std::string name = placement::split_placer_spec(spec).name;
        return std::any_of(placers.begin(), placers.end(), [&](const placement::PlacerInfo* p) {
            return p->name == name && p->family == "eop";
        });
    });
    // On a terminal one status line, redrawn in place and cleared at the end; elsewhere (a log,
    // a sweep's worker) a line for each step that took a second or more, so that a quick run
    // (or one that fails on bad input) prints nothing but its result or its one error line.
    const std::string who = fmt::format("run {}{}", study.name,
                                        study.point == "default" ? "" : " (" + study.point + ")");
    const auto say = [&](const std::string& line, double step_s) {
        if (!progress)
            return;
        if (terminal)
            *progress << "\r\033[K" << who << ": " << line << std::flush;
        else if (step_s >= 1.0)
            *progress << who << ": " << line << "\n" << std::flush;
    };
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const std::string& spec = specs[i];
        say(fmt::format("[{}/{}] {}: placing {} ops", i + 1, specs.size(), spec,
                        study.graph->op_count()),
            0.0);
        auto placer = registry.create(spec);
        placement::PlacementContext context{*study.graph, study.platform, *evaluator,
                                            study.objective, study.seed};
        // A search that has run for 2 s shows how far it is on a terminal: a bar, the units
        // done, the best so far and an ETA, redrawn at most 5 times a second.
        if (progress && terminal) {
            const auto step_start = std::chrono::steady_clock::now();
            auto last_drawn = step_start;
            context.progress = [&, step_start, last_drawn,
                                i](const placement::SearchProgress& p) mutable {
                const auto now = std::chrono::steady_clock::now();
                const double elapsed = std::chrono::duration<double>(now - step_start).count();
                if (elapsed < 2.0 || std::chrono::duration<double>(now - last_drawn).count() < 0.2)
                    return;
                last_drawn = now;
                const double by_units = p.total > 0 ? static_cast<double>(p.done) / p.total : 0.0;
                const double fraction = std::clamp(std::max(by_units, p.time_fraction), 0.0, 1.0);
                const std::string eta =
                    fraction > 0.0 ? sim::duration_text(elapsed * (1.0 - fraction) / fraction)
                                   : "?";
                *progress << "\r\033[K" << who << ": "
                          << fmt::format("[{}/{}] {} {} {}/{} {}, best {}, ETA {}", i + 1,
                                         specs.size(), spec, sim::progress_bar(fraction, 16),
                                         p.done, p.total, p.unit,
                                         p.best.empty() ? "none yet" : p.best, eta)
                          << std::flush;
            };
        }
        PlacerRow row;
        row.placer = spec;
        const auto t0 = std::chrono::steady_clock::now();
        placement::PlacementResult placed = placer->place(context);
        row.placer_time_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        row.placement = std::move(placed.placement);
        row.profile_runs = placed.profile_runs;
        row.stats = std::move(placed.stats);
        row.tables = std::move(placed.tables);
        row.summary = std::move(placed.summary);
        // The platform's placement rules (sim/placement_rules.hpp; on a chiplet ring mcm2022's
        // Eq. 2-4 and H(G, f)): a placement that breaks one is reported invalid with the first
        // violation, and is not simulated: the hardware could not run it.
        const sim::Graph& placed_graph = sim::placed_graph(*study.graph, row.placement);
        if (const std::string invalid =
                sim::placement_violation(placed_graph, study.platform, row.placement);
            !invalid.empty()) {
            row.metrics.feasible = false;
            row.metrics.infeasible_reason = "invalid partition: " + invalid;
            result.rows.push_back(std::move(row));
            continue;
        }
        if (eop_study)
            row.eop_at_s = placement::eop::at_seconds(*study.graph, row.placement, study.platform);
        sim::ExecGraph exec = sim::lower(*study.graph, row.placement, study.platform);
        row.trace.title = fmt::format("{} / {} / {}", study.name, spec, study.evaluator);
        say(fmt::format("[{}/{}] {}: placed in {:.2f} s, simulating ({} evaluator, {} samples)",
                        i + 1, specs.size(), spec, row.placer_time_s, study.evaluator,
                        study.samples),
            row.placer_time_s);
        const auto t1 = std::chrono::steady_clock::now();
        row.metrics = evaluator->evaluate(exec, record_traces ? &row.trace : nullptr);
        const double simulated_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
        if (!terminal)
            say(fmt::format("[{}/{}] {}: simulated in {:.2f} s", i + 1, specs.size(), spec,
                            simulated_s),
                simulated_s);
        result.rows.push_back(std::move(row));
    }
    if (progress && terminal)
        *progress << "\r\033[K" << std::flush;
    // Speedup over the baseline in the study's objective: latency ratio, or throughput ratio.
    // An infeasible placement (a memory overflows) has no speedup.
    const sim::Metrics& base = result.rows.front().metrics;
    for (auto& row : result.rows) {
        if (!row.metrics.feasible || !base.feasible) {
            row.speedup = 0.0;
            continue;
        }
        if (study.objective == placement::Objective::throughput) {
            row.speedup = base.throughput_per_s > 0.0
                              ? row.metrics.throughput_per_s / base.throughput_per_s
                              : 0.0;
        } else {
            row.speedup =
                row.metrics.latency_s > 0.0 ? base.latency_s / row.metrics.latency_s : 0.0;
        }
    }
    return result;
}

namespace {

std::string objective_name(placement::Objective o) {
    return o == placement::Objective::latency ? "latency" : "throughput";
}

}  // namespace

std::string human_time(double s) {
    if (s >= 1.0)
        return fmt::format("{:.3f} s", s);
    if (s >= 1e-3)
        return fmt::format("{:.3f} ms", s * 1e3);
    return fmt::format("{:.2f} us", s * 1e6);
}

std::string format_table(const StudyConfig& study, const StudyResult& result) {
    std::ostringstream out;
    out << fmt::format("study {}{}: {} on {} ({} ops, {} evaluator, objective {})\n", study.name,
                       study.point == "default" ? "" : fmt::format(" [{}]", study.point),
                       study.workload_label, study.platform.name, study.graph->op_count(),
                       study.evaluator, objective_name(study.objective));
    std::size_t width = 6;
    for (const auto& r : result.rows)
        width = std::max(width, r.placer.size());
    // compute / data moves: summed task durations (lee2022 Fig. 11), conversions counted as
    // data movement as in the paper's edge costs.
    out << fmt::format("{:<{}}  {:>12}  {:>14}  {:>8}  {:>12}  {:>12}  {:>11}  {:>7}\n", "placer",
                       width, "latency", "throughput/s", "speedup", "compute", "data moves",
                       "placer time", "profile");
    for (const auto& r : result.rows) {
        const auto& kinds = r.metrics.time_by_kind_s;
        auto kind_s = [&](const char* kind) {
            auto it = kinds.find(kind);
            return it == kinds.end() ? 0.0 : it->second;
        };
        if (!r.metrics.feasible) {
            out << fmt::format("{:<{}}  infeasible: {}\n", r.placer, width,
                               r.metrics.infeasible_reason);
            continue;
        }
        out << fmt::format("{:<{}}  {:>12}  {:>14.2f}  {:>7.2f}x  {:>12}  {:>12}  {:>11}  {:>7}\n",
                           r.placer, width, human_time(r.metrics.latency_s),
                           r.metrics.throughput_per_s, r.speedup, human_time(kind_s("compute")),
                           human_time(kind_s("convert") + kind_s("transfer")),
                           human_time(r.placer_time_s), r.profile_runs);
    }
    // The placers' own reports (mcm2022's searches: samples, their model's best, the bound).
    for (const auto& r : result.rows) {
        if (!r.summary.empty())
            out << fmt::format("  {}: {}\n", r.placer, r.summary);
    }
    // A placer that plans a schedule: its planned makespan next to the simulated latency.
    for (const auto& r : result.rows) {
        if (!r.placement.schedule.has_plan() || !r.metrics.feasible)
            continue;
        const double planned = r.placement.schedule.planned_makespan_s();
        out << fmt::format("  {}: planned makespan {}, simulated {} ({:+.2f} %)\n", r.placer,
                           human_time(planned), human_time(r.metrics.latency_s),
                           planned > 0.0 ? 100.0 * (r.metrics.latency_s - planned) / planned : 0.0);
    }
    return out.str();
}

const std::vector<std::string>& results_csv_columns() {
    static const std::vector<std::string> columns{"study",        "point",
                                                  "placer",       "objective",
                                                  "latency_s",    "throughput_per_s",
                                                  "speedup",      "placer_time_s",
                                                  "profile_runs", "evaluator",
                                                  "workload",     "platform",
                                                  "feasible",     "infeasible_reason",
                                                  "eop_at_s"};
    return columns;
}

bool is_wall_clock_stat(const std::string& name) {
    return name.ends_with("wall_s");
}

void write_outputs(const std::vector<PointRun>& runs, const fs::path& out_dir, bool traces,
                   std::size_t trace_limit_bytes, std::ostream* warnings,
                   const std::string& trace_format, bool deterministic) {
    // Render everything first: a failure here leaves no file behind.
    std::map<fs::path, std::string> files;
    std::ostringstream csv;
    csv << fmt::format("{}\n", fmt::join(results_csv_columns(), ","));
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& [study, result] : runs) {
        // With several points, every per-placer file carries the point in its name.
        const std::string prefix = runs.size() > 1 ? file_safe(study.point) + "_" : "";
        for (const auto& r : result.rows) {
            const std::string placer_time =
                deterministic ? std::string() : fmt::format("{:.6g}", r.placer_time_s);
            csv << fmt::format(
                "{},\"{}\",\"{}\",{},{:.9g},{:.9g},{:.6g},{},{},{},\"{}\",{},{},\"{}\",{}\n",
                study.name, study.point, r.placer, objective_name(study.objective),
                r.metrics.latency_s, r.metrics.throughput_per_s, r.speedup, placer_time,
                r.profile_runs, study.evaluator, study.workload_label, study.platform.name,
                r.metrics.feasible ? 1 : 0, r.metrics.infeasible_reason,
                std::isnan(r.eop_at_s) ? std::string() : fmt::format("{:.9g}", r.eop_at_s));
            nlohmann::ordered_json row;
            row["study"] = study.name;
            row["point"] = study.point;
            row["placer"] = r.placer;
            row["objective"] = objective_name(study.objective);
            row["latency_s"] = r.metrics.latency_s;
            row["throughput_per_s"] = r.metrics.throughput_per_s;
            row["speedup"] = r.speedup;
            if (!deterministic)
                row["placer_time_s"] = r.placer_time_s;
            row["profile_runs"] = r.profile_runs;
            row["evaluator"] = study.evaluator;
            row["workload"] = study.workload_label;
            row["platform"] = study.platform.name;
            row["ops"] = study.graph->op_count();
            row["samples"] = r.metrics.samples;
            row["resource_busy_s"] = r.metrics.resource_busy_s;
            row["link_bytes"] = r.metrics.link_bytes;
            row["time_by_kind_s"] = r.metrics.time_by_kind_s;
            nlohmann::ordered_json stats = nlohmann::ordered_json::object();
            for (const auto& [name, value] : r.stats) {
                if (!deterministic || !is_wall_clock_stat(name))
                    stats[name] = sim::typed_json_value<nlohmann::ordered_json>(value);
            }
            row["stats"] = stats;
            if (!std::isnan(r.eop_at_s))
                row["eop_at_s"] = r.eop_at_s;
            if (!r.summary.empty())
                row["summary"] = r.summary;
            if (r.placement.schedule.has_plan())
                row["planned_makespan_s"] = r.placement.schedule.planned_makespan_s();
            row["feasible"] = r.metrics.feasible;
            if (!r.metrics.feasible)
                row["infeasible_reason"] = r.metrics.infeasible_reason;
            // Per device: the peak bytes resident in the memory it works from.
            nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
            for (const auto& device : study.platform.devices()) {
                for (const auto& use : r.metrics.memory) {
                    if (use.component == device.component)
                        peaks[device.name] = use.peak_bytes;
                }
            }
            row["peak_memory_bytes"] = peaks;
            // Where the placement put the work: ops and FLOPs per device (a sweep shows how the
            // split shifts across design points).
            nlohmann::ordered_json ops_by_device = nlohmann::ordered_json::object();
            nlohmann::ordered_json flops_by_device = nlohmann::ordered_json::object();
            for (const auto& device : study.platform.devices()) {
                ops_by_device[device.name] = 0;
                flops_by_device[device.name] = 0.0;
            }
            // The placed graph: the placer's rewrite of the study's, if it made one.
            const sim::Graph& placed = sim::placed_graph(*study.graph, r.placement);
            for (int op = 0; op < placed.op_count(); ++op) {
                const auto i = static_cast<std::size_t>(op);
                if (i >= r.placement.device_of_op.size())
                    break;
                const auto& name = study.platform.device(r.placement.device_of_op[i]).name;
                ops_by_device[name] = ops_by_device[name].get<int>() + 1;
                flops_by_device[name] = flops_by_device[name].get<double>() + placed.op(op).flops;
            }
            if (!r.placement.rewrite.empty()) {
                row["rewritten_ops"] = placed.op_count();
                nlohmann::ordered_json steps = nlohmann::ordered_json::array();
                for (const auto& step : r.placement.rewrite.steps)
                    steps.push_back(step.pass);
                row["rewrite"] = steps;
            }
            row["ops_by_device"] = ops_by_device;
            row["flops_by_device"] = flops_by_device;
            rows.push_back(row);

            for (const auto& [kind, table] : r.tables) {
                files[out_dir / fmt::format("{}_{}{}.csv", kind, prefix, file_safe(r.placer))] =
                    table;
            }
            files[out_dir / fmt::format("placement_{}{}.json", prefix, file_safe(r.placer))] =
                sim::write_placement_file({r.placer, study.point, study.workload_label},
                                          *study.graph, study.platform, r.placement);
            if (traces) {
                const auto writer = traces::make_trace_writer(trace_format);
                std::vector<std::string> parts =
                    traces::render_within(*writer, r.trace, trace_limit_bytes);
                const std::string stem = prefix + file_safe(r.placer);
                if (parts.size() == 1) {
                    files[out_dir / (stem + ".trace" + writer->extension())] =
                        std::move(parts.front());
                } else {
                    for (std::size_t k = 0; k < parts.size(); ++k)
                        files[out_dir / fmt::format("{}.trace.part{}{}", stem, k,
                                                    writer->extension())] = std::move(parts[k]);
                    if (warnings) {
                        *warnings << fmt::format(
                            "hetsim: warning: the trace of {} is above {} (the Perfetto UI "
                            "fails near 1 GB): split by time into {}.trace.part0 .. part{}\n",
                            r.placer,
                            sim::format_quantity(static_cast<double>(trace_limit_bytes),
                                                 sim::Quantity::data_size),
                            stem, parts.size() - 1);
                    }
                }
            }
        }
    }
    nlohmann::ordered_json doc;
    doc["study"] = runs.front().config.name;
    doc["hetsim"] = {{"version", sim::version()}, {"commit", sim::git_commit()}};
    doc["rows"] = rows;
    files[out_dir / "results.csv"] = csv.str();
    files[out_dir / "results.json"] = doc.dump(2) + "\n";
    YAML::Emitter emitter;
    emitter << runs.front().config.resolved;
    files[out_dir / "study.resolved.yaml"] =
        "# resolved by " + sim::version_line() + "\n" + std::string(emitter.c_str()) + "\n";

    try {
        // Every target is checked before the first is written: one that cannot be (a folder
        // named results.csv) leaves no placement file behind either.
        for (const auto& [path, content] : files)
            (void)sim::output_target(path);
        sim::create_output_folder(out_dir);
        for (const auto& [path, content] : files)
            write_file_atomically(path, content);
    } catch (const std::exception& e) {
        throw sim::InputError("", "--out", 0, sim::write_failure_message(e, out_dir));
    }
}

}  // namespace hetsim::app
