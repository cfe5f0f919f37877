// `hetsim inspect`: op counts by type, FLOPs, bytes and edges of a workload; for a study, also
// the cost of each op type on each device of its platform.
#pragma once

#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::app {

// `workload` is a model name (knobs from `settings` "name=value") or a study YAML file
// (`settings` are --set overrides of it).
std::string inspect_workload(const std::string& workload, const std::vector<std::string>& settings);
std::string describe_graph(const sim::Graph& graph);
// Summed op cost per op type and device (what each device would spend on each kind of op).
std::string describe_device_costs(const sim::Graph& graph, const sim::Platform& platform);

}  // namespace hetsim::app
