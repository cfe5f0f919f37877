#include "sim/workloads/kernels.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace hetsim::sim::workloads {

namespace {

// The one-op graph: `op` of `type` reading `inputs` (an input, then a weight) into `output`.
Graph one_op_graph(const std::string& name, const std::string& type,
                   const std::vector<std::pair<std::string, Shape>>& operands, const Shape& output,
                   DType dtype, Attributes attrs) {
    Graph g(name);
    std::vector<int> inputs;
    for (std::size_t i = 0; i < operands.size(); ++i) {
        inputs.push_back(g.add_tensor(operands[i].first, operands[i].second, dtype,
                                      i == 0 ? TensorKind::input : TensorKind::weight));
    }
    const int y = g.add_tensor("y", output, dtype, TensorKind::activation);
    g.add_op("op", type, inputs, {y}, std::move(attrs));
    g.mark_output(y);
    g.finalize();
    return g;
}

}  // namespace

Graph build_matmul(const MatMulConfig& c) {
    const bool batched = c.batch > 1;
    auto shape = [&](std::int64_t rows, std::int64_t columns) {
        return batched ? Shape{c.batch, rows, columns} : Shape{rows, columns};
    };
    std::string name =
        fmt::format("matmul_{}_{}{}x{}x{}", to_string(c.dtype),
                    batched ? fmt::format("b{}_", c.batch) : std::string(), c.m, c.k, c.n);
    if (!c.trans_a && !c.trans_b) {
        return one_op_graph(name, "MatMul", {{"a", shape(c.m, c.k)}, {"b", shape(c.k, c.n)}},
                            shape(c.m, c.n), c.dtype, {});
    }
    if (batched) {
        throw std::invalid_argument(fmt::format(
            "model 'matmul': trans_a and trans_b need batch = 1 (ONNX Gemm is two-dimensional; "
            "got batch {})",
            c.batch));
    }
    // The suffix names what is stored transposed; a plain MatMul keeps gpu.py's name.
    name += fmt::format("_{}{}", c.trans_a ? "t" : "n", c.trans_b ? "t" : "n");
    Attributes attrs;
    attrs["transA"] = std::int64_t{c.trans_a ? 1 : 0};
    attrs["transB"] = std::int64_t{c.trans_b ? 1 : 0};
    return one_op_graph(name, "Gemm",
                        {{"a", c.trans_a ? Shape{c.k, c.m} : Shape{c.m, c.k}},
                         {"b", c.trans_b ? Shape{c.n, c.k} : Shape{c.k, c.n}}},
                        {c.m, c.n}, c.dtype, std::move(attrs));
}

Graph build_conv(const ConvConfig& c) {
    if (c.channels % c.group != 0 || c.out_channels % c.group != 0) {
        throw std::invalid_argument(
            fmt::format("model 'conv': group ({}) must divide channels ({}) and out_channels ({})",
                        c.group, c.channels, c.out_channels));
    }
    // ONNX Conv's output size: floor((in + 2 pad - dilation (kernel - 1) - 1) / stride) + 1.
    auto out_size = [&](const char* axis, std::int64_t in, std::int64_t kernel, std::int64_t pad) {
        const std::int64_t span = in + 2 * pad - c.dilation * (kernel - 1) - 1;
        if (span < 0) {
            throw std::invalid_argument(fmt::format(
                "model 'conv': the {} kernel ({}, dilation {}) is larger than the padded input "
                "({} + 2 x {})",
                axis, kernel, c.dilation, in, pad));
        }
        return span / c.stride + 1;
    };
    const std::int64_t out_h = out_size("kernel_h", c.height, c.kernel_h, c.pad_h);
    const std::int64_t out_w = out_size("kernel_w", c.width, c.kernel_w, c.pad_w);
    Attributes attrs;
    attrs["kernel_shape"] = std::vector<std::int64_t>{c.kernel_h, c.kernel_w};
    attrs["strides"] = std::vector<std::int64_t>{c.stride, c.stride};
    attrs["pads"] = std::vector<std::int64_t>{c.pad_h, c.pad_w, c.pad_h, c.pad_w};
    attrs["dilations"] = std::vector<std::int64_t>{c.dilation, c.dilation};
    attrs["group"] = c.group;
    // tools/measure/gpu.py's name, with what it never varies added only when it is set.
    std::string name = fmt::format("conv_b{}_{}x{}x{}_o{}_k{}x{}_s{}x{}_p{}x{}", c.batch,
                                   c.channels, c.height, c.width, c.out_channels, c.kernel_h,
                                   c.kernel_w, c.stride, c.stride, c.pad_h, c.pad_w);
    if (c.dilation != 1)
        name += fmt::format("_d{}", c.dilation);
    if (c.group != 1)
        name += fmt::format("_g{}", c.group);
    if (c.dtype != DType::f32)
        name += fmt::format("_{}", to_string(c.dtype));
    return one_op_graph(name, "Conv",
                        {{"x", {c.batch, c.channels, c.height, c.width}},
                         {"w", {c.out_channels, c.channels / c.group, c.kernel_h, c.kernel_w}}},
                        {c.batch, c.out_channels, out_h, out_w}, c.dtype, std::move(attrs));
}

}  // namespace hetsim::sim::workloads
