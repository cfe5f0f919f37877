#include "sim/passes/passes.hpp"

#include "sim/passes/fuse.hpp"
#include "sim/passes/split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace hetsim::sim::passes {

namespace {

const std::string& required(const Arguments& args, const std::string& pass,
                            const std::string& key) {
    const auto it = args.find(key);
    if (it == args.end() || it->second.empty())
        throw GraphError(fmt::format("pass '{}' needs the argument '{}'", pass, key));
    return it->second;
}

std::vector<std::vector<int>> identity_origin(int ops) {
    std::vector<std::vector<int>> origin(static_cast<std::size_t>(ops));
    for (int op = 0; op < ops; ++op)
        origin[static_cast<std::size_t>(op)] = {op};
    return origin;
}

}  // namespace

const std::vector<PassInfo>& all() {
    static const std::vector<PassInfo> table = {
        {"replicate_input", "tensor=<name>",
         "a graph input read by several ops becomes one input per reader (DUET §IV-A)",
         &replicate_input},
        {"fuse", "rules=tvm,within=graph|subgraphs",
         "compiler fusion: element-wise epilogues into Conv/MatMul, injective chains, a "
         "reduction ending a chain; one Fused op per group (TVM FuseOps)",
         &fuse},
        {"split",
         "op=<name>,dim=batch|hw|hw1w2,share=<part 0's share in (0,1)> | "
         "ops=<name>:<dim>:<share>;...",
         "EOP's operator partition: one op as two parts along a dimension, its inputs cut by "
         "Split (or halo Slices) and its outputs joined by Concat (xu2022 §3.1)",
         &split_op},
    };
    return table;
}

PassResult replicate_input(const Graph& graph, const Arguments& args) {
    const std::string& name = required(args, "replicate_input", "tensor");
    const std::optional<int> id = graph.find_tensor(name);
    if (!id)
        throw GraphError(
            fmt::format("replicate_input: graph '{}' has no tensor '{}'", graph.name(), name));
    const Tensor& source = graph.tensor(*id);
    if (source.kind != TensorKind::input) {
        throw GraphError(fmt::format("replicate_input: '{}' is not a graph input", name));
    }
    std::vector<int> readers = source.consumers;
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    if (readers.size() < 2) {
        throw GraphError(
            fmt::format("replicate_input: '{}' has {} reader(s); nothing to "
                        "replicate",
                        name, readers.size()));
    }
    PassResult out{Graph(graph.name()), identity_origin(graph.op_count())};
    // Tensors in id order, the input replaced by its copies at its place.
    std::vector<int> new_id(static_cast<std::size_t>(graph.tensor_count()), -1);
    std::map<int, int> copy_for_reader;
    for (int t = 0; t < graph.tensor_count(); ++t) {
        const Tensor& tensor = graph.tensor(t);
        if (t == *id) {
            for (std::size_t k = 0; k < readers.size(); ++k) {
                copy_for_reader[readers[k]] = out.graph.add_tensor(
                    fmt::format("{}#{}", name, k), tensor.shape, tensor.dtype, tensor.kind);
            }
            continue;
        }
        new_id[static_cast<std::size_t>(t)] =
            out.graph.add_tensor(tensor.name, tensor.shape, tensor.dtype, tensor.kind);
    }
    for (int o = 0; o < graph.op_count(); ++o) {
        const Op& op = graph.op(o);
        std::vector<int> inputs, outputs;
        for (int t : op.inputs)
            inputs.push_back(t == *id ? copy_for_reader.at(o)
                                      : new_id[static_cast<std::size_t>(t)]);
        for (int t : op.outputs)
            outputs.push_back(new_id[static_cast<std::size_t>(t)]);
        out.graph.add_op(op.name, op.type, inputs, outputs, op.attrs);
    }
    for (int t = 0; t < graph.tensor_count(); ++t) {
        if (graph.tensor(t).is_graph_output && t != *id)
            out.graph.mark_output(new_id[static_cast<std::size_t>(t)]);
    }
    out.graph.finalize();
    return out;
}

Rewrite apply(const Graph& original, const std::vector<RewriteStep>& steps) {
    Rewrite rewrite;
    if (steps.empty())
        return rewrite;
    auto graph = std::make_shared<Graph>(original);
    std::vector<std::vector<int>> origin = identity_origin(original.op_count());
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const RewriteStep& step = steps[k];
        const auto& table = all();
        const auto it = std::find_if(table.begin(), table.end(),
                                     [&](const PassInfo& p) { return p.name == step.pass; });
        if (it == table.end()) {
            std::vector<std::string> names;
            for (const PassInfo& p : table)
                names.push_back(p.name);
            throw GraphError(fmt::format("rewrite step {}: unknown pass '{}'; passes: {}", k,
                                         step.pass, fmt::join(names, ", ")));
        }
        PassResult result;
        try {
            result = it->run(*graph, step.args);
        } catch (const GraphError& e) {
            throw GraphError(fmt::format("rewrite step {}: {}", k, e.what()));
        }
        // Compose: an op of this step's output comes from the ops its sources came from.
        std::vector<std::vector<int>> composed(result.origin.size());
        for (std::size_t op = 0; op < result.origin.size(); ++op) {
            for (int from : result.origin[op]) {
                const auto& earlier = origin.at(static_cast<std::size_t>(from));
                composed[op].insert(composed[op].end(), earlier.begin(), earlier.end());
            }
            std::sort(composed[op].begin(), composed[op].end());
            composed[op].erase(std::unique(composed[op].begin(), composed[op].end()),
                               composed[op].end());
        }
        origin = std::move(composed);
        graph = std::make_shared<Graph>(std::move(result.graph));
    }
    rewrite.graph = std::move(graph);
    rewrite.origin = std::move(origin);
    rewrite.steps = steps;
    return rewrite;
}

}  // namespace hetsim::sim::passes
