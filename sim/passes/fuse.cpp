#include "sim/passes/fuse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "sim/op_table.hpp"
#include "sim/passes/phases.hpp"

namespace hetsim::sim::passes {

namespace {

// TVM's operator patterns (relay OpPatternKind, include/tvm/relay/op_attr_types.h), with its
// values: FuseOps compares them by order.
enum Pattern : int {
    elementwise = 0,  // kElemWise
    broadcast = 1,    // kBroadcast
    injective = 2,    // kInjective
    reduction = 3,    // kCommReduce
    anchor = 4,       // kOutEWiseFusable
    opaque = 8,       // kOpaque
};

// TVM's relay.FuseOps.max_depth default: no group grows past this many ops.
constexpr int max_fuse_depth = 256;

// The pattern relay registers for the op hetsim's type names (python/tvm/relay/op/*/_*.py, as
// of TVM 0.8, the release DUET and EOP compiled with).
Pattern pattern_of(const Op& op) {
    if (op.outputs.size() != 1)
        return opaque;  // Split and other multi-output ops (relay returns a tuple)
    switch (op_category(op.type)) {
        case OpCategory::conv:
            return op.type == "Conv" ? anchor : opaque;
        case OpCategory::matmul:
            return op.type == "MatMul" || op.type == "Gemm" ? anchor : opaque;
        case OpCategory::elementwise:
            // add, multiply, ... are kBroadcast and relu, tanh, ... kElemWise; they differ
            // only on an edge, where build_edges() tells them apart.
            return broadcast;
        case OpCategory::normalization:
            // Inference folds BatchNormalization into a scale and a shift (SimplifyInference);
            // a layer norm becomes mean and variance reductions.
            return op.type == "BatchNormalization" ? broadcast : reduction;
        case OpCategory::view:
        case OpCategory::data_movement:
            return op.type == "Task" ? opaque : injective;
        case OpCategory::reduction:
            // nn.softmax and nn.log_softmax are OPAQUE; pooling is OUT_ELEMWISE_FUSABLE.
            if (op.type == "Softmax" || op.type == "LogSoftmax")
                return opaque;
            if (op.type.find("Pool") != std::string::npos)
                return anchor;
            return reduction;
        case OpCategory::recurrent:
        case OpCategory::fused:
        case OpCategory::unknown:
            return opaque;
    }
    return opaque;
}

// TVM's FuseOps (src/relay/transforms/fuse_ops.cc) over hetsim's op graph: each op fuses into
// the group of its immediate post-dominator when every op on every path between them allows
// it, in two phases (anchors and element-wise ops first, so that convolutions finish fusing
// before injective ops do).
class Partitioner {
public:
    Partitioner(const Graph& graph, const std::vector<int>* region)
        : graph_(graph), region_(region), ops_(static_cast<std::size_t>(graph.op_count())) {
        for (int u = 0; u < graph.op_count(); ++u) {
            Node& node = at(u);
            node.pattern = pattern_of(graph.op(u));
            node.group = Group{u, node.pattern, node.pattern == anchor, 1};
        }
        build_edges();
        build_post_dominators();
    }

    std::vector<int> groups() {
        for (int phase = 0; phase < 2; ++phase)
            run_fuse(phase);
        // TVM's phase 2 fuses injective ops into tuples; hetsim has no tuple nodes.
        std::vector<int> number(ops_.size(), -1), group(ops_.size(), -1);
        int next = 0;
        for (int u : graph_.topo_order()) {
            int& n = number[static_cast<std::size_t>(find(u))];
            if (n < 0)
                n = next++;
            group[static_cast<std::size_t>(u)] = n;
        }
        return group;
    }

private:
    struct Edge {
        int consumer;
        Pattern pattern;
    };
    // Groups are a union-find forest over the ops; an op's own entry keeps the pattern it
    // started with, a root the group's (TVM's Group).
    struct Group {
        int parent;
        Pattern pattern;
        bool anchored;
        int ops;
    };
    struct Node {
        Pattern pattern = opaque;
        std::vector<Edge> outputs;
        bool external = false;  // its result leaves the graph or the region: fuses into nothing
        int dominator = -1;     // immediate post-dominator
        int depth = 1;
        Pattern dominator_pattern = elementwise;  // the widest edge on the way there
        Group group{};
    };

    Node& at(int u) { return ops_[static_cast<std::size_t>(u)]; }
    bool same_region(int a, int b) const {
        return region_ == nullptr ||
               (*region_)[static_cast<std::size_t>(a)] == (*region_)[static_cast<std::size_t>(b)];
    }

    // An edge has its consumer's pattern, but a broadcast op's operand of the result's shape
    // is element-wise on that edge (IndexedForwardGraph::Creator).
    void build_edges() {
        for (int u = 0; u < graph_.op_count(); ++u) {
            Node& node = at(u);
            for (int t : graph_.op(u).outputs) {
                const Tensor& tensor = graph_.tensor(t);
                node.external = node.external || tensor.is_graph_output;
                for (int v : tensor.consumers) {
                    if (!same_region(u, v)) {
                        node.external = true;
                        continue;
                    }
                    Pattern p = at(v).pattern;
                    const Op& consumer = graph_.op(v);
                    if (p == broadcast && !consumer.outputs.empty() &&
                        graph_.tensor(consumer.outputs[0]).shape == tensor.shape)
                        p = elementwise;
                    node.outputs.push_back(Edge{v, p});
                }
            }
            node.external = node.external || node.outputs.empty();
        }
    }

    // DominatorTree::LeastCommonAncestor: climb the deeper side, widening the pattern by every
    // node passed.
    int common_ancestor(int a, int b, Pattern& pattern) {
        while (a != b) {
            if (a < 0 || b < 0)
                return -1;
            const int depth_a = at(a).depth, depth_b = at(b).depth;
            if (depth_a <= depth_b) {
                pattern = std::max(pattern, at(b).dominator_pattern);
                b = at(b).dominator;
            }
            if (depth_b <= depth_a) {
                pattern = std::max(pattern, at(a).dominator_pattern);
                a = at(a).dominator;
            }
        }
        return a;
    }

    void build_post_dominators() {
        const std::vector<int>& order = graph_.topo_order();
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            Node& node = at(*it);
            if (node.external) {
                node.dominator_pattern = opaque;
                continue;
            }
            Pattern pattern = elementwise;
            int parent = node.outputs.front().consumer;
            pattern = std::max(pattern, node.outputs.front().pattern);
            for (std::size_t e = 1; e < node.outputs.size(); ++e) {
                parent = common_ancestor(parent, node.outputs[e].consumer, pattern);
                pattern = std::max(pattern, node.outputs[e].pattern);
            }
            node.dominator = parent;
            node.depth = parent < 0 ? 1 : at(parent).depth + 1;
            node.dominator_pattern = pattern;
        }
    }

    int find(int u) {
        while (at(u).group.parent != u) {
            Group& g = at(u).group;
            g.parent = at(g.parent).group.parent;  // path halving
            u = g.parent;
        }
        return u;
    }
    Group& root(int u) { return at(find(u)).group; }

    // GraphPartitioner::MergeFromTo: an anchor's pattern goes with it.
    void merge(int child, int parent) {
        child = find(child);
        parent = find(parent);
        if (child == parent)
            return;
        Group& from = at(child).group;
        Group& to = at(parent).group;
        to.ops += from.ops;
        from.parent = parent;
        if (from.anchored) {
            to.anchored = true;
            to.pattern = std::max(from.pattern, to.pattern);
        }
    }

    // Visits src and every op on a path from it to sink (its post-dominator), each once, then
    // the sink (is_sink), whose consumers it does not follow; stops when visit returns false
    // and says whether it got to the end. Every path from src meets the sink.
    template <typename Visit>
    bool walk_to(int src, int sink, Visit visit) {
        std::vector<bool> visited(ops_.size(), false);
        std::vector<int> stack{src};
        while (!stack.empty()) {
            const int u = stack.back();
            stack.pop_back();
            if (visited[static_cast<std::size_t>(u)])
                continue;
            visited[static_cast<std::size_t>(u)] = true;
            if (!visit(u, u == sink))
                return false;
            if (u == sink)
                continue;
            for (const Edge& e : at(u).outputs)
                stack.push_back(e.consumer);
        }
        return true;
    }

    // Every op after src up to sink, sink included, satisfies `allowed(pattern of its group,
    // is the sink)` (CheckPath).
    template <typename Allowed>
    bool check_path(int src, int sink, Allowed allowed) {
        return walk_to(src, sink, [&](int u, bool is_sink) {
            return u == src || allowed(root(u).pattern, is_sink);
        });
    }

    // The ops on the paths from src up to sink, each group counted as TVM counts it (its own
    // entry's size), plus the sink's group (CountFusedNodesWithNewChild).
    int fused_size(int src, int sink) {
        int ops = root(sink).ops;
        walk_to(src, sink, [&](int u, bool is_sink) {
            ops += is_sink ? 0 : at(u).group.ops;
            return true;
        });
        return ops;
    }

    // Merge src and every op between it and sink into sink's group (CommitFuse).
    void commit(int src, int sink) {
        walk_to(src, sink, [&](int u, bool is_sink) {
            if (!is_sink)
                merge(u, sink);
            return true;
        });
    }

    // GraphPartitioner::RunFuse for phases 0 and 1.
    void run_fuse(int phase) {
        for (int u : graph_.topo_order()) {
            const Node& node = at(u);
            const Pattern own = node.group.pattern;
            const int sink = node.dominator;
            if (own == opaque || sink < 0 || fused_size(u, sink) > max_fuse_depth ||
                find(u) == find(sink))
                continue;
            if (own == anchor) {
                // A conv or dense takes an element-wise epilogue, in phase 0.
                if (phase == 0 && node.dominator_pattern == elementwise &&
                    check_path(u, sink, [](Pattern p, bool) { return p <= broadcast; }))
                    commit(u, sink);
            } else if (own <= broadcast) {
                // Into an injective or reducing post-dominator, or a group already anchored
                // there, through element-wise, broadcast and injective ops.
                if ((node.dominator_pattern <= injective || node.dominator_pattern == reduction) &&
                    check_path(u, sink, [](Pattern p, bool is_sink) {
                        return is_sink ? p <= injective || p == reduction || p == anchor
                                       : p <= injective;
                    }))
                    commit(u, sink);
            } else if (own == injective) {
                // Deferred to phase 1, so that convolutions finish fusing first.
                if (phase == 1 &&
                    check_path(u, sink, [](Pattern p, bool) { return p <= injective; }))
                    commit(u, sink);
            }
            // A reduction fuses into nothing after it.
        }
    }

    const Graph& graph_;
    const std::vector<int>* region_;
    std::vector<Node> ops_;
};

}  // namespace

std::vector<int> tvm_fusion_groups(const Graph& graph, const std::vector<int>* region) {
    return Partitioner(graph, region).groups();
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
        if (tensor.producer < 0 || tensor.is_graph_output || tensor.consumers.empty())
            continue;
        const int g = group[static_cast<std::size_t>(tensor.producer)];
        internal[static_cast<std::size_t>(t)] =
            std::all_of(tensor.consumers.begin(), tensor.consumers.end(),
                        [&](int c) { return group[static_cast<std::size_t>(c)] == g; });
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
        // The group is costed as its master op: the last of those with the widest pattern (the
        // conv or dense of an anchored group, else a reduction), as TVM's compile engine picks
        // the op whose schedule the fused kernel takes.
        int master = m[0];
        for (int u : m) {
            if (pattern_of(graph.op(u)) >= pattern_of(graph.op(master)))
                master = u;
        }
        const Op& head = graph.op(master);
        std::vector<int> inputs;
        auto add_input = [&](int t) {
            if (internal[static_cast<std::size_t>(t)])
                return;
            const int id = new_id[static_cast<std::size_t>(t)];
            if (std::find(inputs.begin(), inputs.end(), id) == inputs.end())
                inputs.push_back(id);
        };
        for (int t : head.inputs)  // the master's operands first
            add_input(t);
        double flops = 0.0;
        std::vector<std::string> types;
        std::vector<int> outputs;
        for (int u : m) {
            for (int t : graph.op(u).outputs) {
                if (!internal[static_cast<std::size_t>(t)])
                    outputs.push_back(t);
            }
            for (int t : graph.op(u).inputs)
                add_input(t);
            flops += graph.op(u).flops;
            types.push_back(graph.op(u).type);
        }
        Attributes attrs = head.attrs;
        attrs["anchor"] = head.type;
        attrs["fused_ops"] = fmt::format("{}", fmt::join(types, "+"));
        attrs["fused_flops"] = flops;
        out.graph.add_op(fmt::format("{}+{}", head.name, m.size() - 1), "Fused", inputs,
                         mapped(outputs), std::move(attrs));
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
