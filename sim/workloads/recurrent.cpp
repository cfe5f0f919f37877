#include "sim/workloads/recurrent.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/workloads/graph_builder.hpp"

namespace hetsim::sim::workloads {

namespace {

enum class Cell { lstm, gru };

Graph build(const RecurrentConfig& c, Cell cell) {
    const std::string name = cell == Cell::lstm ? "lstm" : "gru";
    const std::int64_t gates = cell == Cell::lstm ? 4 : 3;
    const std::int64_t h = c.hidden;
    GraphBuilder b(name);
    const int x = b.input("x", {c.seq_len, c.batch, c.input}, DType::f32);
    // One [batch, input] tensor per step.
    std::vector<int> steps;
    {
        auto scope = b.scope("input");
        const std::vector<int> parts = c.seq_len == 1
                                           ? std::vector<int>{x}
                                           : b.op_multi("Split", {x}, {{"axis", std::int64_t{0}}},
                                                        static_cast<int>(c.seq_len));
        for (int part : parts)
            steps.push_back(b.op("Squeeze", {part}, {{"axes", std::vector<std::int64_t>{0}}}));
    }
    const int one = b.scalar(1.0);
    std::vector<int> final_states;
    for (std::int64_t l = 0; l < c.layers; ++l) {
        auto layer = b.scope(fmt::format("{}.{}", name, l));
        const std::int64_t in = l == 0 ? c.input : h;
        const int w = b.weight(fmt::format("{}.weight_ih_l{}", name, l), {in, gates * h});
        const int r = b.weight(fmt::format("{}.weight_hh_l{}", name, l), {h, gates * h});
        const int bias_w = b.weight(fmt::format("{}.bias_ih_l{}", name, l), {gates * h});
        const int bias_r = b.weight(fmt::format("{}.bias_hh_l{}", name, l), {gates * h});
        int state_h = b.input(fmt::format("h0_l{}", l), {c.batch, h}, DType::f32);
        int state_c =
            cell == Cell::lstm ? b.input(fmt::format("c0_l{}", l), {c.batch, h}, DType::f32) : -1;
        for (auto& x_t : steps) {
            const int xw = b.op("Add", {b.op("MatMul", {x_t, w}), bias_w});
            const int hr = b.op("Add", {b.op("MatMul", {state_h, r}), bias_r});
            const Attributes split_gates{{"axis", std::int64_t{1}}};
            if (cell == Cell::lstm) {
                const auto g = b.op_multi("Split", {b.op("Add", {xw, hr})}, split_gates, 4);
                const int i = b.op("Sigmoid", {g[0]});
                const int o = b.op("Sigmoid", {g[1]});
                const int f = b.op("Sigmoid", {g[2]});
                const int cand = b.op("Tanh", {g[3]});
                state_c = b.op("Add", {b.op("Mul", {f, state_c}), b.op("Mul", {i, cand})});
                state_h = b.op("Mul", {o, b.op("Tanh", {state_c})});
            } else {
                const auto xs = b.op_multi("Split", {xw}, split_gates, 3);
                const auto hs = b.op_multi("Split", {hr}, split_gates, 3);
                const int z = b.op("Sigmoid", {b.op("Add", {xs[0], hs[0]})});
                const int reset = b.op("Sigmoid", {b.op("Add", {xs[1], hs[1]})});
                const int n = b.op("Tanh", {b.op("Add", {xs[2], b.op("Mul", {reset, hs[2]})})});
                state_h = b.op(
                    "Add", {b.op("Mul", {b.op("Sub", {one, z}), n}), b.op("Mul", {z, state_h})});
            }
            x_t = state_h;  // this layer's output at the step feeds the next layer
        }
        final_states.push_back(state_h);
        if (state_c >= 0)
            final_states.push_back(state_c);
    }
    Graph& g = b.graph();
    for (int t : steps)
        g.mark_output(t);
    for (int t : final_states) {
        if (!g.tensor(t).is_graph_output)
            g.mark_output(t);
    }
    return std::move(g);
}

}  // namespace

Graph build_lstm(const RecurrentConfig& config) {
    return build(config, Cell::lstm);
}

Graph build_gru(const RecurrentConfig& config) {
    return build(config, Cell::gru);
}

}  // namespace hetsim::sim::workloads
