// The one table of what hetsim knows about each ONNX operator type: its category, how its
// output shapes follow from its inputs, its FLOPs and the bytes it moves. Every consumer (graph
// validation, importers, device cost models, placers) asks this table; a new op type is one
// row in sim/op_table.cpp (plus a formula in sim/op_semantics.cpp when no existing one fits).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::sim {

// The attribute of a `Task` op (a classic task-graph instance's task) that holds its time on
// each processor, seconds, one column per processor (devices/table.hpp reads it).
inline constexpr const char* kTaskCostsAttribute = "costs_s";

// Broad class of an op: what cost models pick their roofline and traffic model by, and what
// devices state their support in.
enum class OpCategory {
    matmul,         // MatMul, Gemm, ...: 2*M*N*K FLOPs, weight reuse
    conv,           // Conv, ConvTranspose
    elementwise,    // Add, Sub, Mul, Div, Pow, Sqrt, Erf, Tanh, Relu, Cast, ...
    reduction,      // ReduceMean, ReduceSum, ArgMax, Softmax, CumSum, pooling (windowed)
    normalization,  // LayerNormalization, BatchNormalization, InstanceNormalization
    view,           // Reshape, Squeeze, Flatten, Identity, Shape, ...: output aliases the input
    data_movement,  // Transpose, Gather, Concat, Split, Slice, Expand, ...: a copy
    recurrent,      // LSTM, GRU, RNN: one step per element of the sequence
    unknown,        // not in the table
    // A fusion group (sim/passes/fuse.hpp), costed as its anchor_type(). Last, so that the
    // categories before it keep their numbers (mcm.rl's trained feature columns).
    fused,
};

std::string_view to_string(OpCategory category);

using Shapes = std::vector<Shape>;

// What a FLOP formula reads: the op, its operand and result shapes, and whether any of them is
// floating point (integer and boolean arithmetic is bookkeeping, not floating-point work).
struct OpOperands {
    const Op& op;
    Shapes inputs;
    Shapes outputs;
    bool floating_point = false;
};

// Bytes an op reads (all inputs, weights included) and writes (all outputs).
struct OpBytes {
    std::int64_t read = 0;
    std::int64_t written = 0;
};

// Output shapes from input shapes and attributes; std::nullopt when the op's static form does
// not say (the caller then trusts the declared shapes). Throws GraphError naming the op when
// the inputs are incompatible.
using InferShapesFn = std::optional<Shapes> (*)(const Op& op, const Shapes& inputs);
// Floating-point operations of one execution (a multiply-add counts 2).
using FlopsFn = double (*)(const OpOperands& operands);
using BytesFn = OpBytes (*)(const Graph& graph, const Op& op);

// Every input read once and every output written once: what an op moves unless its row says
// otherwise (device models refine it by category, e.g. views move nothing on a CPU).
OpBytes all_operand_bytes(const Graph& graph, const Op& op);

struct OpInfo {
    std::string_view type;  // ONNX operator type (case-sensitive)
    OpCategory category = OpCategory::unknown;
    InferShapesFn infer_shapes = nullptr;  // nullptr: shapes are trusted as declared
    FlopsFn flops = nullptr;
    BytesFn bytes = all_operand_bytes;
};

// Every registered op type, in table order.
const std::vector<OpInfo>& op_table();
// The row of `type`, or nullptr when hetsim does not know the op type.
const OpInfo* find_op_info(std::string_view type);
// OpCategory::unknown for op types not in the table.
OpCategory op_category(std::string_view type);
// Whether the op's kernel combines values that different threads computed (a block-wide
// reduction: warp shuffles, shared memory, barriers) at inference: Softmax, the Reduce* and
// ArgMax families, global pooling, CumSum, and the normalizations that compute statistics
// (LayerNormalization, InstanceNormalization). Not windowed pooling (one thread per output)
// nor BatchNormalization, whose inference uses running statistics (element-wise).
bool reduces_across_threads(std::string_view type);
// The row of `type`; throws GraphError "unknown op type '<type>' (did you mean ...)" when
// hetsim does not know it (importers call this: an unknown op would silently cost nothing).
const OpInfo& require_op_info(std::string_view type);
// Registered op types, sorted (for "known: ..." and "did you mean" messages).
std::vector<std::string> known_op_types();

// Infers the output shapes of `op` from its input tensors' shapes and attributes (at most as
// many as the op declares). std::nullopt for op types the table does not know or cannot infer.
std::optional<Shapes> infer_output_shapes(const Graph& graph, const Op& op);
// FLOPs of one execution of `op`; 0 for op types the table does not know.
double op_flops(const Graph& graph, const Op& op);
// Bytes `op` reads and writes (every operand once for op types the table does not know).
OpBytes op_bytes(const Graph& graph, const Op& op);

// The op type that decides how an op is costed: a fusion group ("Fused", attribute `anchor`)
// is costed as its anchor (the Conv or MatMul it fused its epilogue into, or its first op);
// any other op as itself. cost_category() is that type's category.
std::string_view anchor_type(const Op& op);
OpCategory cost_category(const Op& op);

// The matrix products inside an op, for device models that cost ops as GEMM kernels:
// `batch` independent products of (m x k) by (k x n).
struct GemmDims {
    double batch = 1.0;
    double m = 0.0;
    double n = 0.0;
    double k = 0.0;
    // Elements in a row of A and of B as stored (their innermost, contiguous dimension: K or M
    // of A, N or K of B, as transA/transB say); 0 = not known (an implicit GEMM's operands are
    // laid out by the library). A device model reads the alignment of the rows from them.
    double a_row = 0.0;
    double b_row = 0.0;
};
// MatMul and Gemm as written; Conv as the implicit GEMM cuDNN and TVM lower it to (m = N x
// output pixels, n = Cout/group, k = Cin/group x kernel area, one product per group).
// nullopt for other ops and for shapes that do not say.
std::optional<GemmDims> gemm_dims(const Graph& graph, const Op& op);

// LSTM, GRU, RNN: the sizes behind one fused recurrent op.
struct RecurrentDims {
    std::int64_t seq = 0;
    std::int64_t batch = 0;
    std::int64_t input = 0;
    std::int64_t hidden = 0;
    std::int64_t directions = 1;
    std::int64_t gates = 1;  // LSTM 4, GRU 3, RNN 1
};
std::optional<RecurrentDims> recurrent_dims(const Graph& graph, const Op& op);

// Numpy-style broadcast of two shapes; throws GraphError(context) when impossible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& context);

}  // namespace hetsim::sim
