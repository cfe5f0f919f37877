#include "tools/app/inspect.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "sim/config.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

std::string describe_graph(const sim::Graph& graph) {
    std::map<std::string, int> by_type;
    std::int64_t activation_bytes = 0;
    for (const auto& op : graph.ops())
        ++by_type[op.type];
    for (const auto& t : graph.tensors()) {
        if (t.kind == sim::TensorKind::activation)
            activation_bytes += t.size_bytes();
    }
    std::ostringstream out;
    out << fmt::format("graph {}: {} ops, {} edges, {} tensors\n", graph.name(), graph.op_count(),
                       graph.edge_count(), graph.tensor_count());
    out << fmt::format("total FLOPs {:.4g}, weights {:.4g} MB, activations {:.4g} MB\n",
                       graph.total_flops(), static_cast<double>(graph.total_weight_bytes()) / 1e6,
                       static_cast<double>(activation_bytes) / 1e6);
    out << "ops by type:\n";
    for (const auto& [type, count] : by_type)
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

std::string inspect_workload(const std::string& workload,
                             const std::vector<std::string>& settings) {
    if (std::filesystem::exists(workload) &&
        (workload.ends_with(".yaml") || workload.ends_with(".yml"))) {
        StudyConfig study = load_study(workload, settings);
        return fmt::format("workload {}\n", study.workload_label) + describe_graph(*study.graph) +
               describe_device_costs(*study.graph, study.platform);
    }
    YAML::Node node;
    node["model"] = workload;
    for (const auto& s : settings)
        sim::apply_override(node, s);
    std::string label;
    auto graph = build_workload(sim::ConfigNode(node, "<command line>", "workload"), label);
    return fmt::format("workload {}\n", label) + describe_graph(*graph);
}

}  // namespace hetsim::app
