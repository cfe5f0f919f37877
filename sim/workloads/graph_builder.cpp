#include "sim/workloads/graph_builder.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "sim/op_table.hpp"

namespace hetsim::sim::workloads {

std::int64_t onnx_type_code(DType dtype) {
    switch (dtype) {
        case DType::f32:
            return 1;
        case DType::i32:
            return 6;
        case DType::i64:
            return 7;
        case DType::boolean:
            return 9;
        case DType::f16:
            return 10;
        case DType::bf16:
            return 16;
        case DType::i8:
            return 3;
    }
    return 0;
}

namespace {

std::optional<DType> dtype_from_code(std::int64_t code) {
    for (DType d :
         {DType::f32, DType::i32, DType::i64, DType::boolean, DType::f16, DType::bf16, DType::i8}) {
        if (onnx_type_code(d) == code)
            return d;
    }
    return std::nullopt;
}

}  // namespace

GraphBuilder::Scope::Scope(GraphBuilder& builder, const std::string& name)
    : builder_(builder), saved_size_(builder.scope_.size()) {
    builder_.scope_ += "/" + name;
}

GraphBuilder::Scope::~Scope() {
    builder_.scope_.resize(saved_size_);
}

int GraphBuilder::input(const std::string& name, Shape shape, DType dtype) {
    return graph_.add_tensor(name, std::move(shape), dtype, TensorKind::input);
}

int GraphBuilder::weight(const std::string& name, Shape shape, DType dtype) {
    return graph_.add_tensor(name, std::move(shape), dtype, TensorKind::weight);
}

int GraphBuilder::scalar(double value, DType dtype, bool vector) {
    // Shared like the exporter's deduplicated initializers; the name carries value and type.
    const std::string name =
        fmt::format("const_{}_{}{}", value, to_string(dtype), vector ? "_vec" : "");
    if (auto it = scalars_.find(name); it != scalars_.end())
        return it->second;
    int id = weight(name, vector ? Shape{1} : Shape{}, dtype);
    scalars_.emplace(name, id);
    return id;
}

std::string GraphBuilder::unique_op_name(const std::string& type) {
    // Same scheme as torch.onnx: "/scope/Type", then "/scope/Type_1", "/scope/Type_2", ...
    const std::string base = scope_ + "/" + type;
    int& uses = name_uses_[base];
    std::string name = uses == 0 ? base : fmt::format("{}_{}", base, uses);
    ++uses;
    return name;
}

DType GraphBuilder::infer_dtype(const std::string& type, const std::vector<int>& inputs,
                                const Attributes& attrs) const {
    if (type == "Shape" || type == "Size" || type == "ArgMax" || type == "ArgMin") {
        return DType::i64;
    }
    if (type == "Equal" || type == "Less" || type == "Greater" || type == "LessOrEqual" ||
        type == "GreaterOrEqual" || type == "Not" || type == "And" || type == "Or" ||
        type == "Xor" || type == "IsNaN") {
        return DType::boolean;
    }
    if (type == "Cast") {
        auto it = attrs.find("to");
        const auto* code = it == attrs.end() ? nullptr : std::get_if<std::int64_t>(&it->second);
        auto d = code ? dtype_from_code(*code) : std::nullopt;
        if (!d)
            throw std::logic_error("GraphBuilder: Cast needs a known 'to' attribute");
        return *d;
    }
    if (type == "Where" && inputs.size() == 3)
        return dtype(inputs[1]);
    return inputs.empty() ? DType::f32 : dtype(inputs[0]);
}

std::vector<int> GraphBuilder::add(const std::string& type, const std::vector<int>& inputs,
                                   const Attributes& attrs, const std::vector<Shape>& shapes,
                                   const std::vector<DType>& dtypes) {
    const std::string name = unique_op_name(type);
    std::vector<int> outputs;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        outputs.push_back(graph_.add_tensor(fmt::format("{}_output_{}", name, k), shapes[k],
                                            dtypes[k], TensorKind::activation));
    }
    graph_.add_op(name, type, inputs, outputs, attrs);
    return outputs;
}

std::vector<int> GraphBuilder::op_multi(const std::string& type, const std::vector<int>& inputs,
                                        const Attributes& attrs, int num_outputs) {
    // Infer on a detached op whose outputs are placeholders: inference only reads the inputs
    // and the number of outputs.
    Op probe{scope_ + "/" + type,
             type,
             attrs,
             inputs,
             std::vector<int>(static_cast<std::size_t>(num_outputs), -1),
             0.0,
             0,
             0};
    auto shapes = infer_output_shapes(graph_, probe);
    if (!shapes || static_cast<int>(shapes->size()) != num_outputs) {
        throw std::logic_error(
            fmt::format("GraphBuilder: cannot infer {} output(s) of '{}' ({}); use op_shaped",
                        num_outputs, probe.name, type));
    }
    const DType dt = infer_dtype(type, inputs, attrs);
    return add(type, inputs, attrs, *shapes, std::vector<DType>(shapes->size(), dt));
}

int GraphBuilder::op(const std::string& type, const std::vector<int>& inputs,
                     const Attributes& attrs, std::optional<DType> dtype) {
    Op probe{scope_ + "/" + type, type, attrs, inputs, {-1}, 0.0, 0, 0};
    auto shapes = infer_output_shapes(graph_, probe);
    if (!shapes || shapes->empty()) {
        throw std::logic_error(fmt::format(
            "GraphBuilder: cannot infer the output of '{}' ({}); use op_shaped", probe.name, type));
    }
    const DType dt = dtype.value_or(infer_dtype(type, inputs, attrs));
    return add(type, inputs, attrs, {shapes->front()}, {dt}).front();
}

int GraphBuilder::op_shaped(const std::string& type, const std::vector<int>& inputs,
                            const Attributes& attrs, Shape shape, DType dtype) {
    return add(type, inputs, attrs, {std::move(shape)}, {dtype}).front();
}

// nn.Linear on a 3-D input exports as MatMul + Add (Table 2 MatMul (1): (p,q)x(q,r)).
int linear_matmul(GraphBuilder& b, int x, const std::string& weight_prefix, std::int64_t in,
                  std::int64_t out) {
    int y = b.op("MatMul", {x, b.weight(weight_prefix + ".weight", {in, out})});
    return b.op("Add", {y, b.weight(weight_prefix + ".bias", {out})});
}

// nn.Linear on a 2-D input exports as Gemm with transB=1 (Table 2 Gemm (2):
// (p,q)x(r,q)^T+(r), the BERT/RoBERTa pooler and classifier).
int linear_gemm(GraphBuilder& b, int x, const std::string& weight_prefix, std::int64_t in,
                std::int64_t out) {
    return b.op("Gemm",
                {x, b.weight(weight_prefix + ".weight", {out, in}),
                 b.weight(weight_prefix + ".bias", {out})},
                {{"transB", std::int64_t{1}}});
}

}  // namespace hetsim::sim::workloads
