// Graph passes: the rewrites a placer may apply to the study's graph before placing it
// (docs/DESIGN.md "Graph rewrites"). Each pass is one function in this folder and one line in
// the table of passes.cpp; apply() runs a list of RewriteStep and composes their provenance,
// so a placement file that records the steps replays to the same graph.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"

namespace hetsim::sim::passes {

using Arguments = std::map<std::string, std::string>;

struct PassResult {
    Graph graph;  // finalized
    // Per op of `graph`: the ids of the input graph's ops it came from (see Rewrite::origin).
    std::vector<std::vector<int>> origin;
};

using GraphPass = std::function<PassResult(const Graph& graph, const Arguments& args)>;

struct PassInfo {
    std::string name;
    std::string usage;  // "tensor=<name>"
    std::string description;
    GraphPass run;
};

// Every pass, in a stable order.
const std::vector<PassInfo>& all();

// The study graph after `steps`, with each op's origin in `original`. Throws GraphError naming
// the step for an unknown pass or bad arguments.
Rewrite apply(const Graph& original, const std::vector<RewriteStep>& steps);

// `replicate_input` (DUET §IV-A: a tensor read by several subgraphs becomes a placeholder per
// branch): graph input `tensor` becomes one input per consumer, "<tensor>#<k>", each read by
// its k-th consumer (in op id order). Ops, their FLOPs and their order are unchanged; the
// copies' bytes add up to k times the input's.
PassResult replicate_input(const Graph& graph, const Arguments& args);

}  // namespace hetsim::sim::passes
