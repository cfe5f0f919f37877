// The op table: one row per ONNX operator type hetsim knows. A row names the op's category,
// its shape inference and its FLOP formula (sim/op_semantics.cpp); bytes default to every
// operand once. Formulas follow the ONNX operator specification.
#include "sim/op_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "sim/config.hpp"
#include "sim/op_semantics.hpp"

namespace hetsim::sim {

namespace {

using C = OpCategory;

// clang-format off
const std::vector<OpInfo>& rows() {
    static const std::vector<OpInfo> table = {
        // --- matrix products ---
        {"MatMul",                C::matmul,        infer_matmul_shapes,           flops_matmul},
        {"Gemm",                  C::matmul,        infer_gemm_shapes,             flops_gemm},
        // Quantised and fused forms: known to be matmuls, their FLOPs are not modelled yet.
        {"MatMulInteger",         C::matmul,        nullptr,                       flops_none},
        {"QLinearMatMul",         C::matmul,        nullptr,                       flops_none},
        {"FusedMatMul",           C::matmul,        nullptr,                       flops_none},
        {"Einsum",                C::matmul,        infer_einsum_shapes,           flops_einsum},
        // --- convolution ---
        {"Conv",                  C::conv,          infer_conv_shapes,             flops_conv},
        {"ConvTranspose",         C::conv,          nullptr,                       flops_none},
        // --- element-wise, broadcasting their inputs (numpy rules) ---
        {"Add",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Sub",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Mul",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Div",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Pow",                   C::elementwise,   infer_binary_broadcast_shapes, flops_per_output_element},
        {"Mod",                   C::elementwise,   infer_binary_broadcast_shapes, flops_per_output_element},
        {"PRelu",                 C::elementwise,   infer_binary_broadcast_shapes, flops_per_output_element},
        {"Where",                 C::elementwise,   infer_where_shapes,            flops_per_output_element},
        {"Equal",                 C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Less",                  C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Greater",               C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"LessOrEqual",           C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"GreaterOrEqual",        C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"And",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Or",                    C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Xor",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Max",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Min",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Sum",                   C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"Mean",                  C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        {"BiasGelu",              C::elementwise,   infer_broadcast_shapes,        flops_per_output_element},
        // --- element-wise, one input's shape ---
        {"Sqrt",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Erf",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Tanh",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Relu",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Sigmoid",               C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Exp",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Log",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Cast",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Neg",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Gelu",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"FastGelu",              C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Abs",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Reciprocal",            C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Floor",                 C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Ceil",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Round",                 C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Sign",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Sin",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Cos",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Not",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Clip",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"LeakyRelu",             C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Elu",                   C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Selu",                  C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"HardSigmoid",           C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"HardSwish",             C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Softplus",              C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"Softsign",              C::elementwise,   infer_same_shapes,             flops_per_output_element},
        {"IsNaN",                 C::elementwise,   infer_same_shapes,             flops_per_output_element},
        // --- reductions (pooling is a windowed reduction) ---
        {"ReduceMean",            C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceSum",             C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceMax",             C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceMin",             C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceProd",            C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceL1",              C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceL2",              C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceSumSquare",       C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceLogSum",          C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ReduceLogSumExp",       C::reduction,     infer_reduce_shapes,           flops_per_input_element},
        {"ArgMax",                C::reduction,     infer_argminmax_shapes,        flops_per_input_element},
        {"ArgMin",                C::reduction,     infer_argminmax_shapes,        flops_per_input_element},
        {"CumSum",                C::reduction,     infer_same_shapes,             flops_per_input_element},
        {"Softmax",               C::reduction,     infer_same_shapes,             flops_softmax},
        {"LogSoftmax",            C::reduction,     infer_same_shapes,             flops_softmax},
        {"MaxPool",               C::reduction,     infer_pool_shapes,             flops_window_pool},
        {"AveragePool",           C::reduction,     infer_pool_shapes,             flops_window_pool},
        {"GlobalAveragePool",     C::reduction,     infer_global_pool_shapes,      flops_global_pool},
        {"GlobalMaxPool",         C::reduction,     infer_global_pool_shapes,      flops_global_pool},
        // --- normalisations ---
        {"LayerNormalization",    C::normalization, infer_layernorm_shapes,        flops_layernorm},
        {"BatchNormalization",    C::normalization, infer_batchnorm_shapes,        flops_batchnorm},
        {"InstanceNormalization", C::normalization, infer_same_shapes,             flops_per_input_element},
        // --- views: the output aliases the input, nothing is copied ---
        {"Reshape",               C::view,          infer_reshape_shapes,          flops_none},
        {"Squeeze",               C::view,          infer_squeeze_shapes,          flops_none},
        {"Unsqueeze",             C::view,          infer_unsqueeze_shapes,        flops_none},
        {"Flatten",               C::view,          infer_flatten_shapes,          flops_none},
        {"Identity",              C::view,          infer_same_shapes,             flops_none},
        {"Shape",                 C::view,          infer_shape_op_shapes,         flops_none},
        {"Size",                  C::view,          infer_size_op_shapes,          flops_none},
        // --- data movement: a copy of (part of) the input ---
        {"Transpose",             C::data_movement, infer_transpose_shapes,        flops_none},
        {"Gather",                C::data_movement, infer_gather_shapes,           flops_none},
        {"GatherElements",        C::data_movement, nullptr,                       flops_none},
        {"GatherND",              C::data_movement, nullptr,                       flops_none},
        {"Concat",                C::data_movement, infer_concat_shapes,           flops_none},
        {"Split",                 C::data_movement, infer_split_shapes,            flops_none},
        {"Slice",                 C::data_movement, infer_slice_shapes,            flops_none},
        {"Expand",                C::data_movement, nullptr,                       flops_none},
        {"Tile",                  C::data_movement, nullptr,                       flops_none},
        {"Pad",                   C::data_movement, nullptr,                       flops_none},
        {"Resize",                C::data_movement, nullptr,                       flops_resize},
        {"Dropout",               C::data_movement, infer_same_shapes,             flops_none},
        {"Constant",              C::data_movement, nullptr,                       flops_none},
        {"ConstantOfShape",       C::data_movement, nullptr,                       flops_none},
        {"Range",                 C::data_movement, nullptr,                       flops_none},
        {"ScatterND",             C::data_movement, nullptr,                       flops_none},
        {"ScatterElements",       C::data_movement, nullptr,                       flops_none},
        {"DepthToSpace",          C::data_movement, nullptr,                       flops_none},
        {"SpaceToDepth",          C::data_movement, nullptr,                       flops_none},
        // A task of a classic task-graph instance: any inputs and outputs, its time given per
        // processor (`costs_s`, devices/table.hpp); no FLOPs, no shape rule.
        {"Task",                  C::data_movement, nullptr,                       flops_none},
        // --- recurrent: one cell per step and direction ---
        {"LSTM",                  C::recurrent,     infer_recurrent_shapes,        flops_recurrent},
        {"GRU",                   C::recurrent,     infer_recurrent_shapes,        flops_recurrent},
        {"RNN",                   C::recurrent,     infer_recurrent_shapes,        flops_recurrent},
        // --- a fusion group (sim/passes/fuse.cpp): one kernel for several ops; its shapes
        // are its members', its FLOPs their sum, its bytes only what crosses the group ---
        {"Fused",                 C::fused,        nullptr,                       flops_fused},
    };
    return table;
}
// clang-format on

const std::unordered_map<std::string_view, const OpInfo*>& index() {
    static const std::unordered_map<std::string_view, const OpInfo*> by_type = [] {
        std::unordered_map<std::string_view, const OpInfo*> m;
        for (const OpInfo& row : rows()) {
            if (!m.emplace(row.type, &row).second) {
                throw std::logic_error(fmt::format("op table: '{}' has two rows", row.type));
            }
        }
        return m;
    }();
    return by_type;
}

}  // namespace

std::string_view to_string(OpCategory category) {
    switch (category) {
        case OpCategory::matmul:
            return "matmul";
        case OpCategory::conv:
            return "conv";
        case OpCategory::elementwise:
            return "elementwise";
        case OpCategory::reduction:
            return "reduction";
        case OpCategory::normalization:
            return "normalization";
        case OpCategory::view:
            return "view";
        case OpCategory::data_movement:
            return "data_movement";
        case OpCategory::recurrent:
            return "recurrent";
        case OpCategory::fused:
            return "fused";
        case OpCategory::unknown:
            return "unknown";
    }
    return "unknown";
}

const std::vector<OpInfo>& op_table() {
    return rows();
}

const OpInfo* find_op_info(std::string_view type) {
    const auto& by_type = index();
    auto it = by_type.find(type);
    return it == by_type.end() ? nullptr : it->second;
}

OpCategory op_category(std::string_view type) {
    const OpInfo* info = find_op_info(type);
    return info == nullptr ? OpCategory::unknown : info->category;
}

bool reduces_across_threads(std::string_view type) {
    const OpCategory category = op_category(type);
    if (category == OpCategory::reduction)
        return type != "MaxPool" && type != "AveragePool";
    return category == OpCategory::normalization && type != "BatchNormalization";
}

std::vector<std::string> known_op_types() {
    std::vector<std::string> types;
    types.reserve(rows().size());
    for (const OpInfo& row : rows())
        types.emplace_back(row.type);
    std::sort(types.begin(), types.end());
    return types;
}

const OpInfo& require_op_info(std::string_view type) {
    if (const OpInfo* info = find_op_info(type))
        return *info;
    const std::string hint = type.empty() ? std::string() : did_you_mean(type, known_op_types());
    throw GraphError(
        fmt::format("unknown op type '{}'{}; `hetsim list ops` lists the {} known types", type,
                    hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint), rows().size()));
}

std::optional<Shapes> infer_output_shapes(const Graph& graph, const Op& op) {
    const OpInfo* info = find_op_info(op.type);
    if (info == nullptr || info->infer_shapes == nullptr)
        return std::nullopt;
    Shapes in;
    in.reserve(op.inputs.size());
    for (int t : op.inputs)
        in.push_back(graph.tensor(t).shape);
    auto shapes = info->infer_shapes(op, in);
    if (!shapes)
        return std::nullopt;
    // Ops with optional outputs (Dropout mask, LayerNormalization statistics, MaxPool
    // indices) report only the outputs the op declares.
    if (shapes->size() > op.outputs.size()) {
        shapes->resize(std::max<std::size_t>(op.outputs.size(), 1));
    }
    return shapes;
}

double op_flops(const Graph& graph, const Op& op) {
    const OpInfo* info = find_op_info(op.type);
    if (info == nullptr || info->flops == nullptr)
        return 0.0;
    OpOperands operands{op, {}, {}, false};
    operands.inputs.reserve(op.inputs.size());
    for (int id : op.inputs) {
        const Tensor& t = graph.tensor(id);
        operands.inputs.push_back(t.shape);
        operands.floating_point = operands.floating_point || is_float(t.dtype);
    }
    operands.outputs.reserve(op.outputs.size());
    for (int id : op.outputs) {
        const Tensor& t = graph.tensor(id);
        operands.outputs.push_back(t.shape);
        operands.floating_point = operands.floating_point || is_float(t.dtype);
    }
    return info->flops(operands);
}

OpBytes op_bytes(const Graph& graph, const Op& op) {
    const OpInfo* info = find_op_info(op.type);
    if (info == nullptr || info->bytes == nullptr)
        return all_operand_bytes(graph, op);
    return info->bytes(graph, op);
}

namespace {
Shapes input_shapes(const Graph& graph, const Op& op) {
    Shapes shapes;
    shapes.reserve(op.inputs.size());
    for (int id : op.inputs)
        shapes.push_back(graph.tensor(id).shape);
    return shapes;
}
}  // namespace

std::string_view anchor_type(const Op& op) {
    if (op.type != "Fused")
        return op.type;
    const auto it = op.attrs.find("anchor");
    const auto* anchor = it == op.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
    return anchor != nullptr ? std::string_view(*anchor) : std::string_view(op.type);
}

OpCategory cost_category(const Op& op) {
    return op_category(anchor_type(op));
}

std::optional<GemmDims> gemm_dims(const Graph& graph, const Op& op) {
    const std::string_view type = anchor_type(op);
    if (type == "Einsum" || (op_category(type) != OpCategory::matmul && type != "Conv"))
        return std::nullopt;
    // A fusion group anchored at a GEMM or Conv lists the anchor's operands first, with its
    // attributes, and writes the anchor's output shape (an element-wise epilogue keeps it).
    Op anchor = op;
    anchor.type = std::string(type);
    if (type == "Conv") {
        if (op.outputs.empty())
            return std::nullopt;
        return conv_gemm_dims(anchor, input_shapes(graph, op), graph.tensor(op.outputs[0]).shape);
    }
    return matmul_dims(anchor, input_shapes(graph, op));
}

std::optional<RecurrentDims> recurrent_dims(const Graph& graph, const Op& op) {
    if (op_category(op.type) != OpCategory::recurrent)
        return std::nullopt;
    return recurrent_dims(op, input_shapes(graph, op));
}

}  // namespace hetsim::sim
