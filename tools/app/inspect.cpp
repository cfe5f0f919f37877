#include "tools/app/inspect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "placement/eop/analysis.hpp"
#include "placement/tarnawski/workload/graph_workload.hpp"
#include "sim/config.hpp"
#include "sim/passes/phases.hpp"
#include "sim/workloads/json_graph.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // keys in insertion order: "workload" and "name" first

std::int64_t peak_activation_bytes(const sim::Graph& graph) {
    // Difference array over topo steps: +bytes at the producer's step, -bytes after the last
    // consumer's (after the last step for graph outputs).
    const auto& position = graph.topo_position();
    const int steps = graph.op_count();
    std::vector<std::int64_t> delta(static_cast<std::size_t>(steps) + 1, 0);
    for (const auto& t : graph.tensors()) {
        if (t.kind != sim::TensorKind::activation || t.producer < 0)
            continue;
        const int first = position[static_cast<std::size_t>(t.producer)];
        int last = t.is_graph_output ? steps - 1 : first;
        for (int c : t.consumers)
            last = std::max(last, position[static_cast<std::size_t>(c)]);
        delta[static_cast<std::size_t>(first)] += t.size_bytes();
        delta[static_cast<std::size_t>(last) + 1] -= t.size_bytes();
    }
    std::int64_t live = 0, peak = 0;
    for (int i = 0; i < steps; ++i) {
        live += delta[static_cast<std::size_t>(i)];
        peak = std::max(peak, live);
    }
    return peak;
}

bool has_extension(const std::string& file, std::initializer_list<std::string_view> extensions) {
    const std::string ext = fs::path(file).extension().string();
    return std::find(extensions.begin(), extensions.end(), ext) != extensions.end();
}

// "name=value" of --dim as a YAML integer under `dims`.
void add_dim(YAML::Node& dims, const std::string& assignment) {
    const auto eq = assignment.find('=');
    std::int64_t value = 0;
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < assignment.size();
    if (ok) {
        const std::string text = assignment.substr(eq + 1);
        std::size_t used = 0;
        try {
            value = std::stoll(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        ok = used == text.size() && value > 0;
    }
    if (!ok) {
        throw sim::InputError(
            "", "--dim", 0,
            fmt::format("expected name=positive integer (e.g. batch=8), got '{}'", assignment));
    }
    dims[assignment.substr(0, eq)] = value;
}

std::string format_bytes(std::int64_t bytes) {
    return fmt::format("{:.4g} MB ({} bytes)", static_cast<double>(bytes) / 1e6, bytes);
}

std::string stats_json(const std::string& label, const sim::Graph& graph, const GraphStats& s) {
    json doc = {
        {"workload", label},
        {"name", graph.name()},
        {"nodes", s.nodes},
        {"edges", s.edges},
        {"tensors", graph.tensor_count()},
        {"ops_by_type", s.ops_by_type},
        {"flops", s.flops},
        {"flops_by_type", s.flops_by_type},
        {"param_bytes", s.param_bytes},
        {"peak_activation_bytes", s.peak_activation_bytes},
        {"critical_path", {{"flops", s.critical_path_flops}, {"ops", s.critical_path_ops}}}};
    if (s.ideals_counted) {
        doc["ideals"] = s.ideals ? json(*s.ideals) : json(nullptr);
        doc["ideals_limit"] = s.ideals_limit;
    }
    return doc.dump(2) + "\n";
}

}  // namespace

GraphStats graph_stats(const sim::Graph& graph, std::optional<std::size_t> ideals_limit) {
    GraphStats s;
    s.nodes = graph.op_count();
    s.edges = graph.edge_count();
    s.flops = graph.total_flops();
    s.param_bytes = graph.total_weight_bytes();
    s.peak_activation_bytes = peak_activation_bytes(graph);
    for (const auto& op : graph.ops()) {
        ++s.ops_by_type[op.type];
        s.flops_by_type[op.type] += op.flops;
    }
    // Longest paths in topological order: by FLOPs and, separately, by op count.
    std::vector<double> path_flops(static_cast<std::size_t>(graph.op_count()), 0.0);
    std::vector<int> path_ops(static_cast<std::size_t>(graph.op_count()), 0);
    for (int v : graph.topo_order()) {
        const auto i = static_cast<std::size_t>(v);
        double best_flops = 0.0;
        int best_ops = 0;
        for (int p : graph.predecessors(v)) {
            best_flops = std::max(best_flops, path_flops[static_cast<std::size_t>(p)]);
            best_ops = std::max(best_ops, path_ops[static_cast<std::size_t>(p)]);
        }
        path_flops[i] = best_flops + graph.op(v).flops;
        path_ops[i] = best_ops + 1;
        s.critical_path_flops = std::max(s.critical_path_flops, path_flops[i]);
        s.critical_path_ops = std::max(s.critical_path_ops, path_ops[i]);
    }
    if (ideals_limit) {
        s.ideals_counted = true;
        s.ideals_limit = *ideals_limit;
        s.ideals = placement::tarnawski::count_graph_ideals(graph, *ideals_limit);
    }
    return s;
}

std::string describe_graph(const sim::Graph& graph, const GraphStats& stats) {
    std::ostringstream out;
    out << fmt::format("graph {}: {} ops, {} edges, {} tensors\n", graph.name(), stats.nodes,
                       stats.edges, graph.tensor_count());
    out << fmt::format("total FLOPs {:.4g}\n", stats.flops);
    out << fmt::format("parameters {}\n", format_bytes(stats.param_bytes));
    out << fmt::format("peak activations {} (live from producer to last consumer, in topo order)\n",
                       format_bytes(stats.peak_activation_bytes));
    out << fmt::format(
        "critical path {:.4g} FLOPs (longest path by FLOPs), {} ops deep (longest "
        "path by op count)\n",
        stats.critical_path_flops, stats.critical_path_ops);
    if (stats.ideals_counted) {
        if (stats.ideals) {
            out << fmt::format("ideals {} (the search space of tarnawski.dp)\n", *stats.ideals);
        } else {
            out << fmt::format("ideals > {} (too many for tarnawski.dp; tarnawski.dpl is linear)\n",
                               stats.ideals_limit);
        }
    }
    out << "ops by type:\n";
    for (const auto& [type, count] : stats.ops_by_type)
        out << fmt::format("  {:<20} {:>6}\n", type, count);
    return out.str();
}

std::string describe_device_costs(const sim::Graph& graph, const sim::Platform& platform) {
    // Per op type: how many ops, and on each device the summed op_time_s of the ops it can
    // run (inputs already in its memory: no transfers or conversions), with "k/n" when it runs
    // only some of them and "-" when none. This is lee2022's node-cost profile in aggregate.
    struct Row {
        int count = 0;
        std::vector<double> time_s;
        std::vector<int> supported;
    };
    const int devices = platform.device_count();
    std::map<std::string, Row> rows;
    std::vector<double> total_s(static_cast<std::size_t>(devices), 0.0);
    for (const auto& op : graph.ops()) {
        Row& row = rows[op.type];
        row.time_s.resize(static_cast<std::size_t>(devices), 0.0);
        row.supported.resize(static_cast<std::size_t>(devices), 0);
        ++row.count;
        for (int d = 0; d < devices; ++d) {
            const auto& model = *platform.device(d).model;
            if (!model.supports(graph, op).ok)
                continue;
            const double t = model.op_time_s(graph, op);
            row.time_s[static_cast<std::size_t>(d)] += t;
            ++row.supported[static_cast<std::size_t>(d)];
            total_s[static_cast<std::size_t>(d)] += t;
        }
    }
    std::ostringstream out;
    out << fmt::format("op cost per device on {} (summed over ops, excluding transfers):\n",
                       platform.name);
    out << fmt::format("  {:<20} {:>6}", "type", "ops");
    for (const auto& name : platform.device_names())
        out << fmt::format(" {:>20}", name);
    out << "\n";
    for (const auto& [type, row] : rows) {
        out << fmt::format("  {:<20} {:>6}", type, row.count);
        for (int d = 0; d < devices; ++d) {
            const auto i = static_cast<std::size_t>(d);
            std::string cell = "-";
            if (row.supported[i] > 0) {
                cell = human_time(row.time_s[i]);
                if (row.supported[i] < row.count)
                    cell += fmt::format(" ({}/{})", row.supported[i], row.count);
            }
            out << fmt::format(" {:>20}", cell);
        }
        out << "\n";
    }
    out << fmt::format("  {:<20} {:>6}", "supported total", graph.op_count());
    for (double t : total_s)
        out << fmt::format(" {:>20}", human_time(t));
    out << "\n";
    return out.str();
}

std::string inspect(const InspectRequest& request) {
    const std::string& workload = request.workload;
    const bool is_study = has_extension(workload, {".yaml", ".yml"});
    const bool is_onnx = has_extension(workload, {".onnx"});
    const bool is_json = has_extension(workload, {".json"});
    if (!request.settings.empty() && (is_onnx || is_json)) {
        throw sim::InputError(
            "", "--set", 0,
            fmt::format("--set applies to model names and studies, not to '{}'", workload));
    }
    if (!request.dims.empty() && !is_onnx) {
        throw sim::InputError(
            "", "--dim", 0,
            fmt::format("--dim binds dimensions of an ONNX file, not of '{}'", workload));
    }
    if (request.patterns && !is_study) {
        throw sim::InputError("", "--patterns", 0,
                              fmt::format("--patterns needs a study (its platform's CPU and "
                                          "GPU), not '{}'",
                                          workload));
    }
    if (request.ideals_limit && *request.ideals_limit < 1)
        throw sim::InputError("", "--ideals-limit", 0, "must be >= 1");

    std::shared_ptr<sim::Graph> graph;
    std::string label;
    std::optional<StudyConfig> study;
    if (is_study) {
        study = load_study(workload, request.settings);
        graph = study->graph;
        label = study->workload_label;
    } else {
        // Everything else goes through the study's workload mapping, so a model, a JSON graph
        // and an ONNX file load here exactly as in a study's `workload:`.
        YAML::Node node;
        if (is_onnx) {
            node["onnx"] = workload;
            YAML::Node dims(YAML::NodeType::Map);
            for (const auto& d : request.dims)
                add_dim(dims, d);
            if (dims.size() > 0)
                node["dims"] = dims;
        } else if (is_json) {
            node["json"] = workload;
        } else {
            node["model"] = workload;
            for (const auto& s : request.settings)
                sim::apply_override(node, s);
        }
        graph = build_workload(sim::ConfigNode(node, "<command line>", "workload"), label);
    }

    const GraphStats stats = graph_stats(*graph, request.ideals_limit);
    if (!request.export_file.empty()) {
        try {
            write_file_atomically(request.export_file, sim::workloads::write_json_graph(*graph));
        } catch (const std::exception& e) {
            throw sim::InputError("", "--export", 0,
                                  sim::write_failure_message(e, request.export_file));
        }
    }
    if (request.json)
        return stats_json(label, *graph, stats);
    std::string text = fmt::format("workload {}\n", label) + describe_graph(*graph, stats);
    if (request.phases)
        text += sim::passes::describe_phases(*graph, sim::passes::partition_phases(*graph));
    if (study)
        text += describe_device_costs(*graph, study->platform);
    if (request.patterns) {
        const auto [cpu, gpu] = placement::cpu_and_gpu(study->platform, "EOP");
        placement::eop::AnalysisOptions options;
        options.dims.assign(std::begin(sim::passes::kSplitDims), std::end(sim::passes::kSplitDims));
        text += placement::eop::describe_patterns(
            *graph, placement::eop::analyse(*graph, study->platform, cpu, gpu, options),
            study->platform);
    }
    if (!request.export_file.empty())
        text += fmt::format("graph written to {}\n", request.export_file);
    return text;
}

}  // namespace hetsim::app
