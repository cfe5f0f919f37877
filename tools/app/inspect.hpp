// `hetsim inspect`: the statistics of a workload graph (ops by type, FLOPs, bytes, peak
// activation bytes, critical path, ideals); for a study, also the cost of each op type on each
// device of its platform. The same statistics fill `hetsim dataset build`'s manifest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::app {

struct GraphStats {
    int nodes = 0;  // ops
    int edges = 0;  // producer -> consumer activation edges (Graph::edge_count)
    std::map<std::string, int> ops_by_type;
    std::map<std::string, double> flops_by_type;
    double flops = 0.0;
    std::int64_t param_bytes = 0;  // weight tensors (initializers)
    // The peak, over the graph's topological order (Graph::topo_order), of the bytes of the
    // activations live while an op runs: an activation is live from the step of its producer to
    // the step of its last consumer, a graph output to the end; inputs and weights are not
    // counted. It is the activation memory of running the graph op by op on one device in that
    // order, with no buffer reuse inside an op.
    std::int64_t peak_activation_bytes = 0;
    double critical_path_flops = 0.0;  // the longest path by summed op FLOPs
    int critical_path_ops = 0;         // the longest path by op count (the graph's depth)
    // Ideals of the op DAG (placement/tarnawski/workload/graph_workload.hpp), when asked:
    // nullopt = not counted or more than ideals_limit.
    bool ideals_counted = false;
    std::size_t ideals_limit = 0;
    std::optional<std::size_t> ideals;
};

// Statistics of a finalized graph; ideals are counted up to `ideals_limit` when given.
GraphStats graph_stats(const sim::Graph& graph, std::optional<std::size_t> ideals_limit);

struct InspectRequest {
    // A model name, a study YAML (.yaml/.yml), a hetsim JSON graph (.json) or an ONNX file
    // (.onnx).
    std::string workload;
    std::vector<std::string> settings;  // --set: model knobs, or overrides of a study
    std::vector<std::string> dims;      // --dim name=value: symbolic dimensions of an ONNX file
    bool json = false;
    std::optional<std::size_t> ideals_limit;  // --ideals [--ideals-limit N]
    std::string export_file;                  // --export: write the graph as a JSON graph
    bool phases = false;  // --phases: DUET's phases and subgraphs (placement/duet/phases.hpp)
    // --patterns: EOP's key operators and the pattern fitted to each on the study's CPU and
    // GPU (placement/eop/analysis.hpp); needs a study.
    bool patterns = false;
};

constexpr std::size_t kDefaultIdealsLimit = 1'000'000;

// Runs `hetsim inspect`: returns the text (or JSON) to print and writes --export.
// Throws sim::InputError for bad input.
std::string inspect(const InspectRequest& request);

std::string describe_graph(const sim::Graph& graph, const GraphStats& stats);
// Summed op cost per op type and device (what each device would spend on each kind of op).
std::string describe_device_costs(const sim::Graph& graph, const sim::Platform& platform);

}  // namespace hetsim::app
