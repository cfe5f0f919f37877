// What each ONNX operator means for shapes and work: output-shape inference (used to
// validate graphs and by importers) and FLOP counts (used by every cost model).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::sim {

// Broad class of an op, which cost models use to pick their roofline parameters.
enum class OpClass {
    matmul,         // MatMul, Gemm: 2*M*N*K FLOPs, weight reuse
    elementwise,    // Add, Sub, Mul, Div, Pow, Sqrt, Erf, Tanh, Relu, Cast, ...
    reduction,      // ReduceMean, ReduceSum, Softmax (reduce + elementwise)
    data_movement,  // Transpose, Reshape, Gather, Concat, Split, Slice, Unsqueeze, ...
    conv,           // Conv
    other,
};

OpClass classify(const std::string& op_type);

// Infers the output shapes of `op` from its input tensors' shapes and attributes.
// Returns std::nullopt for op types it does not know (the caller then trusts the
// declared shapes). Throws GraphError naming the op when input shapes are incompatible
// (e.g. MatMul inner dimensions differ, non-broadcastable element-wise operands).
std::optional<std::vector<Shape>> infer_output_shapes(const Graph& graph, const Op& op);

// Floating-point operations of one execution of `op` (a multiply-add counts 2).
double op_flops(const Graph& graph, const Op& op);

// Numpy-style broadcast of two shapes; throws GraphError(context) when impossible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& context);

}  // namespace hetsim::sim
