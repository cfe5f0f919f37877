// ONNX import: an .onnx file (as exported by PyTorch) becomes a hetsim graph (issue 12).
//
// The ONNX library (libonnx, protobuf) stays inside this one library: nothing here includes
// it, so the rest of hetsim compiles without protobuf headers.
//
// What the importer does, in order:
//  1. parses the protobuf (a corrupt or truncated file is an error naming it) and checks the
//     opset against the newest one the installed ONNX library knows;
//  2. binds the symbolic dimensions of the graph inputs from `dims` (an unbound one is an
//     error naming it) and runs onnx::shape_inference::InferShapes with data propagation;
//  3. folds what ONNX Runtime's constant folding removes at session start: Constant nodes and
//     the Shape/Gather/Unsqueeze/Concat/... subgraphs whose inputs are all known once the
//     shapes are static; then infers shapes again, until nothing more folds;
//  4. lifts constant operands that opset 13 passes as inputs (Reshape's shape, Unsqueeze's
//     axes, Slice's starts/ends, ...) into the attributes hetsim's op table reads, so that
//     Graph::finalize checks ONNX's shapes against hetsim's own formulas;
//  5. turns initializers into weight tensors (their bytes count toward the memory of the
//     device that holds them) and every remaining node into an op.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::importers {

// What to do with an op type the op table (sim/op_table.hpp) does not know.
enum class UnknownOps {
    error,      // an error naming the op type and node
    zero_cost,  // imported with zero FLOPs (its operands still move); one warning lists them
};

struct OnnxImportOptions {
    std::map<std::string, std::int64_t> dims;  // symbolic dimension name -> value
    UnknownOps unknown_ops = UnknownOps::error;
};

struct OnnxImportResult {
    sim::Graph graph;
    std::int64_t opset = 0;   // of the default (ai.onnx) domain
    int onnx_nodes = 0;       // nodes in the file's main graph
    int folded_nodes = 0;     // removed by constant folding (onnx_nodes = ops + folded)
    int lifted_operands = 0;  // constant inputs turned into attributes
    // Op types imported at zero cost (UnknownOps::zero_cost), with their node counts.
    std::map<std::string, int> zero_cost_ops;
};

// Thrown for every bad input; the message starts with the file name.
class OnnxImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The default (ai.onnx) opset the linked ONNX library supports, at most.
std::int64_t max_supported_opset();

OnnxImportResult import_onnx(const std::string& path, const OnnxImportOptions& options);

}  // namespace hetsim::importers
