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

std::string inspect_workload(const std::string& workload,
                             const std::vector<std::string>& settings) {
    if (std::filesystem::exists(workload) &&
        (workload.ends_with(".yaml") || workload.ends_with(".yml"))) {
        StudyConfig study = load_study(workload, settings);
        return fmt::format("workload {}\n", study.workload_label) + describe_graph(*study.graph);
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
