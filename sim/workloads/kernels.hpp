// One-op kernel benchmarks (issue 25): the single MatMul or Conv a GEMM or convolution
// benchmark times (cuBLAS and cuDNN rows, DeepBench, a vendor's tables), built from its
// dimensions, so that a measurement file for `hetsim calibrate --fit/--check` names a row by
// model and knobs (`gpu,matmul,m=512;k=1024;n=256,1.2e-05`) instead of one JSON graph per
// row. They are the graphs tools/measure/gpu.py writes: one op named `op` reading an input
// and a weight (`a`, `b` -> `y`; `x`, `w` -> `y`), so both forms cost the same.
#pragma once

#include <cstdint>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

// y = a b: a [m, k] (an input), b [k, n] (a weight); with batch > 1 both carry a leading
// batch dimension (a batched GEMM). trans_a stores a as [k, m] and trans_b stores b as [n, k]
// (BLAS's op(A) = A^T, DeepBench's a_t / b_t): an ONNX Gemm with transA / transB instead of a
// MatMul, so the operands' stored rows, which set their alignment, are what the benchmark had.
// Gemm is two-dimensional: a transposed operand with batch > 1 throws std::invalid_argument.
struct MatMulConfig {
    std::int64_t batch = 1;
    std::int64_t m = 1024;
    std::int64_t k = 1024;
    std::int64_t n = 1024;
    DType dtype = DType::f32;
    bool trans_a = false;
    bool trans_b = false;
};
Graph build_matmul(const MatMulConfig& config);

// y = conv(x, w): x [batch, channels, height, width], w [out_channels, channels / group,
// kernel_h, kernel_w], symmetric padding, the same stride and dilation on both axes, no bias
// (ONNX Conv, NCHW). Throws std::invalid_argument when the output would be empty or the
// groups do not divide the channels.
struct ConvConfig {
    std::int64_t batch = 1;
    std::int64_t channels = 64;
    std::int64_t height = 56;
    std::int64_t width = 56;
    std::int64_t out_channels = 64;
    std::int64_t kernel_h = 3;
    std::int64_t kernel_w = 3;
    std::int64_t stride = 1;
    std::int64_t pad_h = 1;
    std::int64_t pad_w = 1;
    std::int64_t dilation = 1;
    std::int64_t group = 1;
    DType dtype = DType::f32;
};
Graph build_conv(const ConvConfig& config);

}  // namespace hetsim::sim::workloads
