// hetsim's own JSON graph format (a graph written by hand or by another tool):
//   {"name": "g",
//    "tensors": [{"name": "x", "shape": [1, 512], "dtype": "float32",
//                 "kind": "input" | "weight" | "activation"}, ...],
//    "ops": [{"name": "a", "type": "MatMul", "inputs": ["x", "w"], "outputs": ["y"],
//             "attrs": {"transB": 1}}, ...],
//    "outputs": ["y", ...]}
// Every tensor is declared with its shape; Graph::finalize() checks them against the ops.
// "outputs" (optional) marks graph outputs; finalize() also makes every activation nobody reads
// one, so it only matters for tensors that are read and are outputs too (e.g. an LSTM's
// per-step hidden states). Attribute values keep their type: an integer is written without a
// decimal point, a double always with one.
#pragma once

#include <string>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

// Throws std::invalid_argument naming the file and the JSON location of a malformed entry, a
// key given twice in one object, a graph without ops or an op type the op table
// (sim/op_table.hpp) does not know, and GraphError (from finalize) for dangling tensors, cycles
// and shape mismatches. load_json_graph refuses, before opening it, a path that is not a
// regular file (symlinks followed) or is larger than sim::kMaxInputFileBytes.
Graph load_json_graph(const std::string& file);
Graph parse_json_graph(const std::string& text, const std::string& label);

// The graph in this format (tensors and ops in id order, attributes by key), so that
// parse_json_graph(write_json_graph(g)) has g's ops, tensors, shapes, attributes and outputs.
std::string write_json_graph(const Graph& graph);

}  // namespace hetsim::sim::workloads
