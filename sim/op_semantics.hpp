// The formulas behind the op table (sim/op_table.hpp): shape inference and FLOP counts of the
// ONNX operators, one function per family of operators. Consumers ask the table, never these
// functions by name; a new op type picks one of them (or adds one) in its table row.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/op_table.hpp"

namespace hetsim::sim {

// --- shape inference (InferShapesFn) ---------------------------------------------------------
std::optional<Shapes> infer_matmul_shapes(const Op& op, const Shapes& in);  // numpy matmul
std::optional<Shapes> infer_gemm_shapes(const Op& op, const Shapes& in);    // transA/transB, C
std::optional<Shapes> infer_einsum_shapes(const Op& op, const Shapes& in);  // by the equation
// Numpy broadcast of all inputs (>= 1, exactly 2, exactly 3 for Where).
std::optional<Shapes> infer_broadcast_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_binary_broadcast_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_where_shapes(const Op& op, const Shapes& in);
// Output(s) shaped as the first input (unary element-wise, Softmax, Identity, Dropout, ...).
std::optional<Shapes> infer_same_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_reduce_shapes(const Op& op, const Shapes& in);  // axes, keepdims
std::optional<Shapes> infer_argminmax_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_layernorm_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_batchnorm_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_transpose_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_reshape_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_gather_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_concat_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_split_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_slice_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_unsqueeze_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_squeeze_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_flatten_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_conv_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_pool_shapes(const Op& op, const Shapes& in);  // MaxPool, AveragePool
std::optional<Shapes> infer_global_pool_shapes(const Op& op, const Shapes& in);
std::optional<Shapes> infer_shape_op_shapes(const Op& op, const Shapes& in);  // ONNX Shape
std::optional<Shapes> infer_size_op_shapes(const Op& op, const Shapes& in);   // ONNX Size
// LSTM, GRU, RNN: Y [seq, dirs, batch, H], Y_h (and LSTM's Y_c) [dirs, batch, H].
std::optional<Shapes> infer_recurrent_shapes(const Op& op, const Shapes& in);

// --- FLOP counts (FlopsFn) -------------------------------------------------------------------
double flops_none(const OpOperands& operands);  // no floating-point work (or not modelled)
double flops_matmul(const OpOperands& operands);
double flops_gemm(const OpOperands& operands);
double flops_einsum(const OpOperands& operands);
double flops_conv(const OpOperands& operands);
double flops_window_pool(const OpOperands& operands);
double flops_global_pool(const OpOperands& operands);
double flops_softmax(const OpOperands& operands);
double flops_layernorm(const OpOperands& operands);
double flops_batchnorm(const OpOperands& operands);
double flops_per_output_element(const OpOperands& operands);  // element-wise
double flops_per_input_element(const OpOperands& operands);   // reductions
double flops_resize(const OpOperands& operands);              // by interpolation mode
double flops_recurrent(const OpOperands& operands);           // LSTM, GRU, RNN
double flops_fused(const OpOperands& operands);  // a fusion group: its `fused_flops` attribute

// The fused recurrent ops' FLOPs of one cell (one step of one direction) at batch `batch`:
// 2*batch*G*H*(input+H) for x_t W^T and h R^T, plus the element-wise gate work counted as
// hetsim's unrolled `lstm`/`gru` generators emit it (sim/workloads/recurrent.cpp).
double recurrent_cell_flops(std::string_view op_type, std::int64_t batch, std::int64_t input,
                            std::int64_t hidden, bool bias);

// --- the matrix products inside ops, for device models that cost them as kernels ----------

std::optional<GemmDims> matmul_dims(const Op& op, const Shapes& in);
// Conv as the implicit GEMM cuDNN and TVM lower it to: m = N x output pixels, n = Cout/group,
// k = Cin/group x kernel area, one product per group. `out` is the output shape.
std::optional<GemmDims> conv_gemm_dims(const Op& op, const Shapes& in, const Shape& out);

std::optional<RecurrentDims> recurrent_dims(const Op& op, const Shapes& in);

}  // namespace hetsim::sim
