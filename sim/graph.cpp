#include "sim/graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <queue>
#include <set>

#include "sim/op_table.hpp"

namespace hetsim::sim {

std::string_view to_string(DType dtype) {
    switch (dtype) {
        case DType::f32:
            return "float32";
        case DType::bf16:
            return "bfloat16";
        case DType::f16:
            return "float16";
        case DType::i64:
            return "int64";
        case DType::i32:
            return "int32";
        case DType::boolean:
            return "bool";
        case DType::i8:
            return "int8";
    }
    return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
    if (text == "float32" || text == "fp32" || text == "f32" || text == "float")
        return DType::f32;
    if (text == "bfloat16" || text == "bf16")
        return DType::bf16;
    if (text == "float16" || text == "fp16" || text == "f16")
        return DType::f16;
    if (text == "int64" || text == "i64")
        return DType::i64;
    if (text == "int32" || text == "i32")
        return DType::i32;
    if (text == "bool")
        return DType::boolean;
    if (text == "int8" || text == "i8")
        return DType::i8;
    return std::nullopt;
}

std::int64_t dtype_size_bytes(DType dtype) {
    switch (dtype) {
        case DType::f32:
            return 4;
        case DType::bf16:
            return 2;
        case DType::f16:
            return 2;
        case DType::i64:
            return 8;
        case DType::i32:
            return 4;
        case DType::boolean:
            return 1;
        case DType::i8:
            return 1;
    }
    return 0;
}

bool is_float(DType dtype) {
    return dtype == DType::f32 || dtype == DType::bf16 || dtype == DType::f16;
}

std::int64_t element_count(const Shape& shape) {
    return std::accumulate(shape.begin(), shape.end(), std::int64_t{1},
                           [](std::int64_t a, std::int64_t b) { return a * b; });
}

std::string to_string(const Shape& shape) {
    return fmt::format("[{}]", fmt::join(shape, ","));
}

std::int64_t Op::attr_int(const std::string& key, std::int64_t fallback) const {
    auto it = attrs.find(key);
    if (it == attrs.end())
        return fallback;
    if (auto* v = std::get_if<std::int64_t>(&it->second))
        return *v;
    if (auto* d = std::get_if<double>(&it->second))
        return static_cast<std::int64_t>(*d);
    return fallback;
}

double Op::attr_float(const std::string& key, double fallback) const {
    auto it = attrs.find(key);
    if (it == attrs.end())
        return fallback;
    if (auto* d = std::get_if<double>(&it->second))
        return *d;
    if (auto* v = std::get_if<std::int64_t>(&it->second))
        return static_cast<double>(*v);
    return fallback;
}

std::vector<std::int64_t> Op::attr_ints(const std::string& key) const {
    auto it = attrs.find(key);
    if (it == attrs.end())
        return {};
    if (auto* v = std::get_if<std::vector<std::int64_t>>(&it->second))
        return *v;
    if (auto* s = std::get_if<std::int64_t>(&it->second))
        return {*s};
    return {};
}

int Graph::add_tensor(std::string name, Shape shape, DType dtype, TensorKind kind) {
    if (tensor_by_name_.count(name) != 0) {
        throw GraphError(fmt::format("graph '{}': tensor '{}' defined twice", name_, name));
    }
    // Sizes are 64-bit byte counts: keep every tensor far enough below 2^63 bytes that sums
    // of a graph's bytes cannot overflow either.
    constexpr std::int64_t kMaxElements = std::int64_t{1} << 50;
    std::int64_t elements = 1;
    for (auto d : shape) {
        if (d < 0) {
            throw GraphError(fmt::format("graph '{}': tensor '{}' has negative dimension in {}",
                                         name_, name, to_string(shape)));
        }
        if (d > 0 && elements > kMaxElements / d) {
            throw GraphError(fmt::format(
                "graph '{}': tensor '{}' of shape {} has more than 2^50 elements, hetsim's limit",
                name_, name, to_string(shape)));
        }
        elements *= d;
    }
    int id = tensor_count();
    tensor_by_name_.emplace(name, id);
    tensors_.push_back(Tensor{std::move(name), std::move(shape), dtype, kind, -1, {}, false});
    finalized_ = false;
    return id;
}

int Graph::add_op(std::string name, std::string type, std::vector<int> inputs,
                  std::vector<int> outputs, Attributes attrs) {
    if (op_by_name_.count(name) != 0) {
        throw GraphError(fmt::format("graph '{}': op '{}' defined twice", name_, name));
    }
    if (op_count() >= kMaxGraphOps) {  // sim/graph.hpp
        throw GraphError(
            fmt::format("graph '{}' has more than {} ops, hetsim's limit", name_, kMaxGraphOps));
    }
    int id = op_count();
    for (int t : inputs) {
        if (t < 0 || t >= tensor_count()) {
            throw GraphError(
                fmt::format("graph '{}': op '{}' reads unknown tensor id {}", name_, name, t));
        }
    }
    // Validate every output before recording the op as their producer, so that a rejected op
    // leaves the graph unchanged (and an output listed twice is reported, not looked up as an
    // op that does not exist yet).
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const int t = outputs[k];
        if (t < 0 || t >= tensor_count()) {
            throw GraphError(
                fmt::format("graph '{}': op '{}' writes unknown tensor id {}", name_, name, t));
        }
        const Tensor& out = tensors_[static_cast<std::size_t>(t)];
        if (out.kind != TensorKind::activation) {
            throw GraphError(
                fmt::format("graph '{}': op '{}' writes '{}', which is a graph input "
                            "or weight",
                            name_, name, out.name));
        }
        if (out.producer >= 0) {
            throw GraphError(fmt::format("graph '{}': tensor '{}' is written by both '{}' and '{}'",
                                         name_, out.name, op(out.producer).name, name));
        }
        if (std::find(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(k), t) !=
            outputs.begin() + static_cast<std::ptrdiff_t>(k)) {
            throw GraphError(
                fmt::format("graph '{}': op '{}' lists output '{}' twice", name_, name, out.name));
        }
    }
    for (int t : outputs)
        tensors_[static_cast<std::size_t>(t)].producer = id;
    for (int t : inputs)
        tensors_[static_cast<std::size_t>(t)].consumers.push_back(id);
    op_by_name_.emplace(name, id);
    ops_.push_back(Op{std::move(name), std::move(type), std::move(attrs), std::move(inputs),
                      std::move(outputs), 0.0, 0, 0});
    finalized_ = false;
    return id;
}

void Graph::mark_output(int tensor_id) {
    tensors_.at(static_cast<std::size_t>(tensor_id)).is_graph_output = true;
}

std::optional<int> Graph::find_tensor(std::string_view name) const {
    auto it = tensor_by_name_.find(name);
    if (it == tensor_by_name_.end())
        return std::nullopt;
    return it->second;
}

std::optional<int> Graph::find_op(std::string_view name) const {
    auto it = op_by_name_.find(name);
    if (it == op_by_name_.end())
        return std::nullopt;
    return it->second;
}

std::vector<int> Graph::predecessors(int op_id) const {
    std::set<int> preds;
    for (int t : op(op_id).inputs) {
        if (tensor(t).producer >= 0)
            preds.insert(tensor(t).producer);
    }
    return {preds.begin(), preds.end()};
}

std::vector<int> Graph::successors(int op_id) const {
    std::set<int> succs;
    for (int t : op(op_id).outputs) {
        for (int c : tensor(t).consumers)
            succs.insert(c);
    }
    return {succs.begin(), succs.end()};
}

int Graph::edge_count() const {
    int edges = 0;
    for (const auto& t : tensors_) {
        // An op reading the same tensor twice (Mul(x, x)) is one edge.
        if (t.producer >= 0) {
            edges += static_cast<int>(std::set<int>(t.consumers.begin(), t.consumers.end()).size());
        }
    }
    return edges;
}

double Graph::total_flops() const {
    double sum = 0.0;
    for (const auto& o : ops_)
        sum += o.flops;
    return sum;
}

std::int64_t Graph::total_weight_bytes() const {
    std::int64_t sum = 0;
    for (const auto& t : tensors_) {
        if (t.kind == TensorKind::weight)
            sum += t.size_bytes();
    }
    return sum;
}

const std::vector<int>& Graph::topo_order() const {
    if (!finalized_) {
        throw GraphError(fmt::format("graph '{}': topo_order() before finalize()", name_));
    }
    return topo_order_;
}

namespace {

// Finds one cycle among the ops left over by Kahn's algorithm and names its ops in order.
std::string describe_cycle(const Graph& g, const std::vector<int>& indegree) {
    // Every leftover op has a leftover predecessor; walk predecessors until a repeat.
    int start = -1;
    for (int i = 0; i < g.op_count(); ++i) {
        if (indegree[static_cast<std::size_t>(i)] > 0) {
            start = i;
            break;
        }
    }
    std::vector<int> walk;
    std::vector<int> seen_at(static_cast<std::size_t>(g.op_count()), -1);
    int cur = start;
    while (seen_at[static_cast<std::size_t>(cur)] < 0) {
        seen_at[static_cast<std::size_t>(cur)] = static_cast<int>(walk.size());
        walk.push_back(cur);
        for (int p : g.predecessors(cur)) {
            if (indegree[static_cast<std::size_t>(p)] > 0) {
                cur = p;
                break;
            }
        }
    }
    std::vector<std::string> names;
    for (auto i = static_cast<std::size_t>(seen_at[static_cast<std::size_t>(cur)]); i < walk.size();
         ++i) {
        names.push_back(g.op(walk[i]).name);
    }
    std::reverse(names.begin(), names.end());  // producer -> consumer order
    names.push_back(names.front());
    return fmt::format("{}", fmt::join(names, " -> "));
}

}  // namespace

void Graph::finalize() {
    if (finalized_)
        return;
    // Every activation read must be produced.
    for (const auto& o : ops_) {
        for (int t : o.inputs) {
            const Tensor& in = tensor(t);
            if (in.kind == TensorKind::activation && in.producer < 0) {
                throw GraphError(fmt::format(
                    "graph '{}': dangling tensor '{}': op '{}' reads it but no op produces it and "
                    "it is not a graph input or weight",
                    name_, in.name, o.name));
            }
        }
    }
    // Kahn's algorithm with a min-heap on op id: deterministic and close to insertion order.
    std::vector<int> indegree(ops_.size(), 0);
    for (int i = 0; i < op_count(); ++i) {
        indegree[static_cast<std::size_t>(i)] = static_cast<int>(predecessors(i).size());
    }
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (int i = 0; i < op_count(); ++i) {
        if (indegree[static_cast<std::size_t>(i)] == 0)
            ready.push(i);
    }
    std::vector<int> order;
    order.reserve(ops_.size());
    while (!ready.empty()) {
        int cur = ready.top();
        ready.pop();
        order.push_back(cur);
        for (int s : successors(cur)) {
            if (--indegree[static_cast<std::size_t>(s)] == 0)
                ready.push(s);
        }
    }
    if (order.size() != ops_.size()) {
        throw GraphError(
            fmt::format("graph '{}' has a cycle: {}", name_, describe_cycle(*this, indegree)));
    }
    // Shapes must agree with op semantics (unknown op types are trusted as declared).
    for (int id : order) {
        Op& o = ops_[static_cast<std::size_t>(id)];
        if (auto inferred = infer_output_shapes(*this, o)) {
            if (inferred->size() < o.outputs.size()) {
                throw GraphError(
                    fmt::format("graph '{}': op '{}' ({}) declares {} outputs, "
                                "expected {}",
                                name_, o.name, o.type, o.outputs.size(), inferred->size()));
            }
            for (std::size_t k = 0; k < o.outputs.size(); ++k) {
                const Tensor& out = tensor(o.outputs[k]);
                if (out.shape != (*inferred)[k]) {
                    throw GraphError(fmt::format(
                        "graph '{}': shape mismatch at op '{}' ({}): output '{}' is declared {} "
                        "but its inputs give {}",
                        name_, o.name, o.type, out.name, to_string(out.shape),
                        to_string((*inferred)[k])));
                }
            }
        }
        o.flops = op_flops(*this, o);
        const OpBytes bytes = op_bytes(*this, o);
        o.bytes_read = bytes.read;
        o.bytes_written = bytes.written;
    }
    // Ops with outputs nobody reads produce graph outputs unless marked otherwise.
    for (auto& t : tensors_) {
        if (t.producer >= 0 && t.consumers.empty())
            t.is_graph_output = true;
    }
    topo_order_ = std::move(order);
    topo_position_.assign(ops_.size(), 0);
    for (std::size_t i = 0; i < topo_order_.size(); ++i) {
        topo_position_[static_cast<std::size_t>(topo_order_[i])] = static_cast<int>(i);
    }
    finalized_ = true;
}

}  // namespace hetsim::sim
