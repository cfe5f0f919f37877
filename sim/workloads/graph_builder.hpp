// A small helper for the workload generators: adds ops whose output shapes and dtypes are
// inferred from their inputs (op_table.hpp), names ops and tensors uniquely in the style
// of the PyTorch ONNX exporter ("/bert/encoder/layer.0/attention/self/MatMul_1"), and shares
// scalar constants. Private to sim/workloads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

// ONNX TensorProto data types, for Cast's "to" attribute.
std::int64_t onnx_type_code(DType dtype);

class GraphBuilder {
public:
    explicit GraphBuilder(std::string graph_name) : graph_(std::move(graph_name)) {}

    // RAII scope: op names get "/<name>" appended while it lives.
    class Scope {
    public:
        Scope(GraphBuilder& builder, const std::string& name);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        GraphBuilder& builder_;
        std::size_t saved_size_;
    };
    Scope scope(const std::string& name) { return Scope(*this, name); }

    int input(const std::string& name, Shape shape, DType dtype);
    int weight(const std::string& name, Shape shape, DType dtype = DType::f32);
    // A shared rank-0 (or rank-1 when `vector`) constant holding `value`.
    int scalar(double value, DType dtype = DType::f32, bool vector = false);

    // Adds an op of `type` and returns its output tensor(s); shapes and dtypes are inferred.
    // `dtype` overrides the inferred output dtype.
    int op(const std::string& type, const std::vector<int>& inputs, const Attributes& attrs = {},
           std::optional<DType> dtype = std::nullopt);
    std::vector<int> op_multi(const std::string& type, const std::vector<int>& inputs,
                              const Attributes& attrs, int num_outputs);
    // For ops whose output shape depends on tensor values (Expand, Range): declared shape.
    int op_shaped(const std::string& type, const std::vector<int>& inputs, const Attributes& attrs,
                  Shape shape, DType dtype);

    const Shape& shape(int tensor) const { return graph_.tensor(tensor).shape; }
    DType dtype(int tensor) const { return graph_.tensor(tensor).dtype; }
    Graph& graph() { return graph_; }

private:
    std::string unique_op_name(const std::string& type);
    DType infer_dtype(const std::string& type, const std::vector<int>& inputs,
                      const Attributes& attrs) const;
    std::vector<int> add(const std::string& type, const std::vector<int>& inputs,
                         const Attributes& attrs, const std::vector<Shape>& shapes,
                         const std::vector<DType>& dtypes);

    Graph graph_;
    std::string scope_;
    std::map<std::string, int> name_uses_;
    std::map<std::string, int> scalars_;
};

// nn.Linear(in, out) as torch.onnx exports it: on a 3-D input MatMul with W^T [in, out] + Add
// (2*M*N*K FLOPs and an element-wise add); on a 2-D input Gemm with transB = 1 and bias
// (2*M*N*K + M*N). Weights "<prefix>.weight" and "<prefix>.bias".
int linear_matmul(GraphBuilder& b, int x, const std::string& weight_prefix, std::int64_t in,
                  std::int64_t out);
int linear_gemm(GraphBuilder& b, int x, const std::string& weight_prefix, std::int64_t in,
                std::int64_t out);

}  // namespace hetsim::sim::workloads
