// `hetsim inspect`: op counts by type, FLOPs, bytes and edges of a workload.
#pragma once

#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::app {

// `workload` is a model name (knobs from `settings` "name=value") or a study YAML file
// (`settings` are --set overrides of it).
std::string inspect_workload(const std::string& workload, const std::vector<std::string>& settings);
std::string describe_graph(const sim::Graph& graph);

}  // namespace hetsim::app
