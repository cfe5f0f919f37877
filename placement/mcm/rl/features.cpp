#include "placement/mcm/rl/features.hpp"

#include <algorithm>
#include <cmath>

#include "sim/op_table.hpp"

namespace hetsim::placement::mcm::rl {

namespace {

// Columns 0-8 follow sim::OpCategory's declaration order (features.hpp lists it).
int category_column(sim::OpCategory category) {
    static_assert(static_cast<int>(sim::OpCategory::unknown) == 8);
    // Callers pass cost_category(), which resolves a fusion group to its anchor.
    return category == sim::OpCategory::fused ? 8 : static_cast<int>(category);
}

float clipped(double value, double high) {
    return static_cast<float>(std::clamp(value, 0.0, high));
}

}  // namespace

GraphFeatures make_features(const McmProblem& problem) {
    const sim::Graph& graph = problem.graph();
    const int n = graph.op_count();
    const int chips = problem.chip_count();
    GraphFeatures f;
    f.nodes = n;
    f.values.assign(static_cast<std::size_t>(n) * kStaticFeatureCount, 0.0f);
    auto at = [&](int op, int column) -> float& {
        return f.values[static_cast<std::size_t>(op) * kStaticFeatureCount +
                        static_cast<std::size_t>(column)];
    };

    for (const McmProblem::Edge& e : problem.edges()) {
        f.edge_from.push_back(e.from);
        f.edge_to.push_back(e.to);
    }
    // Predecessor ops (fan-in is their count) and fan-out.
    std::vector<std::vector<int>> preds(static_cast<std::size_t>(n));
    std::vector<int> fan_out(static_cast<std::size_t>(n), 0);
    for (const McmProblem::Edge& e : problem.edges()) {
        preds[static_cast<std::size_t>(e.to)].push_back(e.from);
        ++fan_out[static_cast<std::size_t>(e.from)];
    }

    // One chip's weight capacity (the smallest; 0 = unlimited, then weights never bind).
    double capacity = 0.0;
    for (std::int64_t c : problem.capacity_bytes()) {
        if (c > 0)
            capacity = capacity > 0.0 ? std::min(capacity, static_cast<double>(c))
                                      : static_cast<double>(c);
    }
    const auto in_chips = [&](double bytes) { return capacity > 0.0 ? bytes / capacity : 0.0; };

    double total_s = 0.0;
    for (int op = 0; op < n; ++op)
        total_s += problem.op_time_s(op, 0);
    double total_weights = 0.0;
    for (const WeightUse& w : problem.weights())
        total_weights += static_cast<double>(w.bytes);

    // Depth: longest path from a source, in ops, along the topological order.
    std::vector<int> depth(static_cast<std::size_t>(n), 0);
    int max_depth = 0;
    for (int op : graph.topo_order()) {
        int d = 0;
        for (int p : preds[static_cast<std::size_t>(op)])
            d = std::max(d, depth[static_cast<std::size_t>(p)] + 1);
        depth[static_cast<std::size_t>(op)] = d;
        max_depth = std::max(max_depth, d);
    }

    std::vector<bool> reads_input(static_cast<std::size_t>(n), false);
    std::vector<bool> writes_output(static_cast<std::size_t>(n), false);
    for (const Flow& flow : problem.flows()) {
        if (flow.producer < 0) {
            for (int c : flow.consumers)
                reads_input[static_cast<std::size_t>(c)] = true;
        }
        if (flow.graph_output && flow.producer >= 0)
            writes_output[static_cast<std::size_t>(flow.producer)] = true;
    }
    std::vector<std::int64_t> out_bytes(static_cast<std::size_t>(n), 0);
    for (int op = 0; op < n; ++op) {
        for (int t : graph.op(op).outputs)
            out_bytes[static_cast<std::size_t>(op)] += problem.tensor_bytes(t);
    }

    // Weights before u in topological order, each tensor counted at its first reader.
    std::vector<bool> weight_seen(static_cast<std::size_t>(graph.tensor_count()), false);
    double prefix_s = 0.0, prefix_weights = 0.0;
    const double size_feature = std::log10(std::max(n, 1)) / 4.0;
    const float graph_weights = clipped(in_chips(total_weights) / chips, 4.0);
    for (int op : graph.topo_order()) {
        const sim::Op& o = graph.op(op);
        const double t = problem.op_time_s(op, 0);
        at(op, category_column(sim::cost_category(o))) = 1.0f;
        at(op, 9) = total_s > 0.0 ? clipped(t * chips / total_s, 8.0) : 0.0f;
        at(op, 10) = static_cast<float>(std::log10(1.0 + o.flops) / 12.0);
        at(op, 11) = static_cast<float>(
            std::log10(1.0 + static_cast<double>(out_bytes[static_cast<std::size_t>(op)])) / 9.0);
        at(op, 12) = clipped(in_chips(static_cast<double>(problem.op_weight_bytes(op))), 4.0);
        at(op, 13) = max_depth > 0 ? static_cast<float>(depth[static_cast<std::size_t>(op)]) /
                                         static_cast<float>(max_depth)
                                   : 0.0f;
        const int position = graph.topo_position()[static_cast<std::size_t>(op)];
        at(op, 14) = n > 1 ? static_cast<float>(position) / static_cast<float>(n - 1) : 0.0f;
        at(op, 15) = total_s > 0.0 ? static_cast<float>(prefix_s / total_s) : 0.0f;
        at(op, 16) = clipped(in_chips(prefix_weights) / chips, 4.0);
        at(op, 17) = static_cast<float>(
            std::log2(1.0 + static_cast<double>(preds[static_cast<std::size_t>(op)].size())) / 4.0);
        at(op, 18) =
            static_cast<float>(std::log2(1.0 + fan_out[static_cast<std::size_t>(op)]) / 4.0);
        at(op, 19) = reads_input[static_cast<std::size_t>(op)] ? 1.0f : 0.0f;
        at(op, 20) = writes_output[static_cast<std::size_t>(op)] ? 1.0f : 0.0f;
        at(op, 21) = static_cast<float>(size_feature);
        at(op, 22) = graph_weights;
        prefix_s += t;
        for (int input : o.inputs) {
            const sim::Tensor& tensor = graph.tensor(input);
            if (tensor.kind == sim::TensorKind::weight &&
                !weight_seen[static_cast<std::size_t>(input)]) {
                weight_seen[static_cast<std::size_t>(input)] = true;
                prefix_weights += static_cast<double>(problem.tensor_bytes(input));
            }
        }
    }
    return f;
}

}  // namespace hetsim::placement::mcm::rl
