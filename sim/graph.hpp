// The one graph IR of hetsim: ops with typed attributes and shaped, typed tensors.
// Every cost model reads FLOPs and bytes from here, never an op's name alone.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hetsim::sim {

// i8: the int8 of quantised inference accelerators (an Edge-TPU-class chiplet keeps float
// tensors as int8, mcm_ring/chiplet.hpp); last so that the other values keep their codes.
enum class DType : std::uint8_t { f32, bf16, f16, i64, i32, boolean, i8 };

std::string_view to_string(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);
std::int64_t dtype_size_bytes(DType dtype);
// Floating-point dtypes: the ones a device stores in its own compute dtype (lowering converts).
bool is_float(DType dtype);

using Shape = std::vector<std::int64_t>;
std::int64_t element_count(const Shape& shape);
std::string to_string(const Shape& shape);  // "[1,16,512]"

enum class TensorKind : std::uint8_t {
    activation,  // produced by an op
    input,       // a graph input (fed per sample)
    weight,      // an initializer / constant, resident on the device that uses it
};

struct Tensor {
    std::string name;
    Shape shape;
    DType dtype = DType::f32;
    TensorKind kind = TensorKind::activation;
    int producer = -1;           // op id; -1 for inputs and weights
    std::vector<int> consumers;  // op ids, in insertion order
    bool is_graph_output = false;

    std::int64_t elements() const { return element_count(shape); }
    std::int64_t size_bytes() const { return elements() * dtype_size_bytes(dtype); }
};

using AttrValue =
    std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>>;
using Attributes = std::map<std::string, AttrValue>;

struct Op {
    std::string name;
    std::string type;  // ONNX operator type: "MatMul", "Gemm", "Add", ...
    Attributes attrs;
    std::vector<int> inputs;   // tensor ids
    std::vector<int> outputs;  // tensor ids

    // Derived by Graph::finalize() from shapes (see op_table.hpp).
    double flops = 0.0;
    std::int64_t bytes_read = 0;     // all inputs, weights included
    std::int64_t bytes_written = 0;  // all outputs

    std::int64_t attr_int(const std::string& key, std::int64_t fallback) const;
    double attr_float(const std::string& key, double fallback) const;
    std::vector<std::int64_t> attr_ints(const std::string& key) const;  // empty when absent
};

// The most ops a graph may have. The largest published graphs have tens of thousands; the
// limit ends a runaway model size with a message instead of exhausting memory in lowering and
// the DES. Model knobs that repeat structure stop at it too (sim/workloads/model_zoo.cpp).
inline constexpr int kMaxGraphOps = 1'000'000;

// Thrown for structurally invalid graphs (dangling tensor, cycle, shape mismatch).
class GraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Graph {
public:
    explicit Graph(std::string name = "graph") : name_(std::move(name)) {}

    const std::string& name() const { return name_; }

    // Adds a tensor; names must be unique. Returns its id.
    int add_tensor(std::string name, Shape shape, DType dtype,
                   TensorKind kind = TensorKind::activation);
    // Adds an op reading and writing existing tensors. Returns its id.
    int add_op(std::string name, std::string type, std::vector<int> inputs,
               std::vector<int> outputs, Attributes attrs = {});
    void mark_output(int tensor_id);

    const std::vector<Op>& ops() const { return ops_; }
    const std::vector<Tensor>& tensors() const { return tensors_; }
    const Op& op(int id) const { return ops_.at(static_cast<std::size_t>(id)); }
    const Tensor& tensor(int id) const { return tensors_.at(static_cast<std::size_t>(id)); }
    Tensor& mutable_tensor(int id) { return tensors_.at(static_cast<std::size_t>(id)); }
    int op_count() const { return static_cast<int>(ops_.size()); }
    int tensor_count() const { return static_cast<int>(tensors_.size()); }
    std::optional<int> find_tensor(std::string_view name) const;
    std::optional<int> find_op(std::string_view name) const;

    // Validates (every activation has exactly one producer, every op input exists, no cycle,
    // shapes agree with op semantics), derives FLOPs/bytes and the topological order.
    // Throws GraphError with the offending names. Idempotent.
    void finalize();
    bool finalized() const { return finalized_; }

    // Ops in a deterministic topological order (Kahn's algorithm, ties by op id).
    const std::vector<int>& topo_order() const;
    // Position of each op in topo_order().
    const std::vector<int>& topo_position() const { return topo_position_; }
    // Ops feeding `op_id` through activations (deduplicated, ascending id).
    std::vector<int> predecessors(int op_id) const;
    std::vector<int> successors(int op_id) const;
    // Number of producer->consumer activation edges (one per (tensor, consumer) pair).
    int edge_count() const;

    double total_flops() const;
    std::int64_t total_weight_bytes() const;

private:
    std::string name_;
    std::vector<Op> ops_;
    std::vector<Tensor> tensors_;
    std::map<std::string, int, std::less<>> tensor_by_name_;
    std::map<std::string, int, std::less<>> op_by_name_;
    std::vector<int> topo_order_;
    std::vector<int> topo_position_;
    bool finalized_ = false;
};

}  // namespace hetsim::sim
