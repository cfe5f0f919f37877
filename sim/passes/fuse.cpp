#include "sim/passes/fuse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "sim/op_table.hpp"
#include "sim/passes/phases.hpp"

namespace hetsim::sim::passes {

namespace {

// TVM's operator patterns (relay OpPatternKind), as hetsim's categories map onto them.
enum class Pattern { anchor, elementwise, injective, reduction, opaque };

Pattern pattern_of(const Op& op) {
    if (op.outputs.size() != 1)
        return Pattern::opaque;  // Split and other multi-output ops
    switch (op_category(op.type)) {
        case OpCategory::conv:
            return op.type == "Conv" ? Pattern::anchor : Pattern::opaque;
        case OpCategory::matmul:
            return op.type == "MatMul" || op.type == "Gemm" ? Pattern::anchor : Pattern::opaque;
        case OpCategory::elementwise:
            return Pattern::elementwise;
        case OpCategory::normalization:
            return op.type == "BatchNormalization" ? Pattern::elementwise : Pattern::reduction;
        case OpCategory::view:
        case OpCategory::data_movement:
            return op.type == "Task" ? Pattern::opaque : Pattern::injective;
        case OpCategory::reduction:
            return Pattern::reduction;
        case OpCategory::recurrent:
        case OpCategory::fused:
        case OpCategory::unknown:
            return Pattern::opaque;
    }
    return Pattern::opaque;
}

// What a group still accepts after its last op.
enum class Open { epilogue, chain, closed };

}  // namespace

std::vector<int> tvm_fusion_groups(const Graph& graph, const std::vector<int>* region) {
    std::vector<int> group(static_cast<std::size_t>(graph.op_count()), -1);
    std::vector<Open> open;  // per group
    std::vector<int> tail;   // per group: its last op
    for (int u : graph.topo_order()) {
        const Op& op = graph.op(u);
        const Pattern p = pattern_of(op);
        int joined = -1;
        if (p == Pattern::elementwise || p == Pattern::injective || p == Pattern::reduction) {
            for (int t : op.inputs) {
                const Tensor& tensor = graph.tensor(t);
                if (tensor.producer < 0 || tensor.consumers.size() != 1 || tensor.is_graph_output)
                    continue;
                const int g = group[static_cast<std::size_t>(tensor.producer)];
                if (tail[static_cast<std::size_t>(g)] != tensor.producer)
                    continue;
                if (region != nullptr && (*region)[static_cast<std::size_t>(tensor.producer)] !=
                                             (*region)[static_cast<std::size_t>(u)])
                    continue;
                const Open state = open[static_cast<std::size_t>(g)];
                const bool accepts =
                    (state == Open::epilogue && p == Pattern::elementwise) || state == Open::chain;
                if (accepts) {
                    joined = g;
                    break;
                }
            }
        }
        if (joined >= 0) {
            group[static_cast<std::size_t>(u)] = joined;
            tail[static_cast<std::size_t>(joined)] = u;
            if (p == Pattern::reduction)
                open[static_cast<std::size_t>(joined)] = Open::closed;
            continue;
        }
        group[static_cast<std::size_t>(u)] = static_cast<int>(open.size());
        tail.push_back(u);
        open.push_back(p == Pattern::anchor                                   ? Open::epilogue
                       : p == Pattern::elementwise || p == Pattern::injective ? Open::chain
                                                                              : Open::closed);
    }
    return group;
}

PassResult fuse(const Graph& graph, const Arguments& args) {
    const auto rules = args.find("rules");
    if (rules != args.end() && rules->second != "tvm") {
        throw GraphError(fmt::format("fuse: unknown rules '{}' (known: tvm)", rules->second));
    }
    for (const auto& [key, value] : args) {
        if (key != "rules" && key != "within")
            throw GraphError(
                fmt::format("fuse: unknown argument '{}' (arguments: rules, within)", key));
    }
    std::vector<int> region;
    if (const auto within = args.find("within"); within != args.end()) {
        if (within->second == "subgraphs") {
            region.assign(static_cast<std::size_t>(graph.op_count()), -1);
            int label = 0;
            for (const Phase& phase : partition_phases(graph)) {
                for (const Subgraph& s : phase.subgraphs) {
                    for (int op : s.ops)
                        region[static_cast<std::size_t>(op)] = label;
                    ++label;
                }
            }
        } else if (within->second != "graph") {
            throw GraphError(
                fmt::format("fuse: within must be graph or subgraphs, got '{}'", within->second));
        }
    }
    const std::vector<int> group = tvm_fusion_groups(graph, region.empty() ? nullptr : &region);
    const int groups = group.empty() ? 0 : *std::max_element(group.begin(), group.end()) + 1;
    std::vector<std::vector<int>> members(static_cast<std::size_t>(groups));
    for (int u : graph.topo_order())
        members[static_cast<std::size_t>(group[static_cast<std::size_t>(u)])].push_back(u);

    // Tensors that stay inside a group disappear; the rest keep their names.
    std::vector<bool> internal(static_cast<std::size_t>(graph.tensor_count()), false);
    for (int t = 0; t < graph.tensor_count(); ++t) {
        const Tensor& tensor = graph.tensor(t);
        if (tensor.producer < 0 || tensor.is_graph_output || tensor.consumers.size() != 1)
            continue;
        internal[static_cast<std::size_t>(t)] =
            group[static_cast<std::size_t>(tensor.producer)] ==
            group[static_cast<std::size_t>(tensor.consumers[0])];
    }
    PassResult out{Graph(graph.name()), {}};
    std::vector<int> new_id(static_cast<std::size_t>(graph.tensor_count()), -1);
    for (int t = 0; t < graph.tensor_count(); ++t) {
        if (internal[static_cast<std::size_t>(t)])
            continue;
        const Tensor& tensor = graph.tensor(t);
        new_id[static_cast<std::size_t>(t)] =
            out.graph.add_tensor(tensor.name, tensor.shape, tensor.dtype, tensor.kind);
    }
    auto mapped = [&](const std::vector<int>& ids) {
        std::vector<int> result;
        for (int t : ids)
            result.push_back(new_id[static_cast<std::size_t>(t)]);
        return result;
    };
    for (const std::vector<int>& m : members) {
        if (m.size() == 1) {
            const Op& op = graph.op(m[0]);
            out.graph.add_op(op.name, op.type, mapped(op.inputs), mapped(op.outputs), op.attrs);
            out.origin.push_back({m[0]});
            continue;
        }
        // The anchor is the group's first op when it is a Conv/MatMul/Gemm (only a group's
        // first op can be one); otherwise the group is costed as its first op.
        const Op& head = graph.op(m[0]);
        std::vector<int> inputs;
        auto add_input = [&](int t) {
            if (internal[static_cast<std::size_t>(t)])
                return;
            const int id = new_id[static_cast<std::size_t>(t)];
            if (std::find(inputs.begin(), inputs.end(), id) == inputs.end())
                inputs.push_back(id);
        };
        double flops = 0.0;
        std::vector<std::string> types;
        for (int u : m) {
            for (int t : graph.op(u).inputs)
                add_input(t);
            flops += graph.op(u).flops;
            types.push_back(graph.op(u).type);
        }
        Attributes attrs = head.attrs;
        attrs["anchor"] = head.type;
        attrs["fused_ops"] = fmt::format("{}", fmt::join(types, "+"));
        attrs["fused_flops"] = flops;
        const Op& last = graph.op(m.back());
        out.graph.add_op(fmt::format("{}+{}", head.name, m.size() - 1), "Fused", inputs,
                         mapped(last.outputs), std::move(attrs));
        std::vector<int> origin = m;
        std::sort(origin.begin(), origin.end());
        out.origin.push_back(std::move(origin));
    }
    for (int t = 0; t < graph.tensor_count(); ++t) {
        if (graph.tensor(t).is_graph_output)
            out.graph.mark_output(new_id[static_cast<std::size_t>(t)]);
    }
    out.graph.finalize();
    return out;
}

Graph compile_for(const Graph& graph, Compiler compiler) {
    if (compiler == Compiler::none)
        return graph;
    return fuse(graph, {{"rules", "tvm"}, {"within", "subgraphs"}}).graph;
}

}  // namespace hetsim::sim::passes
