#include "sim/workloads/recurrent.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/workloads/graph_builder.hpp"

namespace hetsim::sim::workloads {

namespace {

// What each cell is: its gates, its ONNX op type and the generator's name (the unrolled
// graph's weight prefix). Indexed by RecurrentCell.
struct CellInfo {
    std::int64_t gates;
    const char* onnx_type;
    const char* name;
};
const CellInfo& info_of(RecurrentCell cell) {
    static const CellInfo cells[] = {{4, "LSTM", "lstm"}, {3, "GRU", "gru"}, {1, "RNN", "rnn"}};
    return cells[static_cast<int>(cell)];
}

std::int64_t gates_of(RecurrentCell cell) {
    return info_of(cell).gates;
}

RecurrentStack unrolled_stack(GraphBuilder& b, RecurrentCell cell, int x, const RecurrentConfig& c,
                              const std::string& prefix) {
    const std::int64_t gates = gates_of(cell);
    const std::int64_t h = c.hidden;
    const std::int64_t batch = b.shape(x)[1];
    const std::int64_t seq_len = b.shape(x)[0];
    // One [batch, input] tensor per step.
    std::vector<int> steps;
    {
        auto scope = b.scope("input");
        const std::vector<int> parts =
            seq_len == 1
                ? std::vector<int>{x}
                : b.op_multi("Split", {x}, {{"axis", std::int64_t{0}}}, static_cast<int>(seq_len));
        for (int part : parts)
            steps.push_back(b.op("Squeeze", {part}, {{"axes", std::vector<std::int64_t>{0}}}));
    }
    const int one = b.scalar(1.0);
    RecurrentStack stack;
    for (std::int64_t l = 0; l < c.layers; ++l) {
        auto layer = b.scope(fmt::format("{}.{}", prefix, l));
        const std::int64_t in = l == 0 ? b.shape(x)[2] : h;
        const int w = b.weight(fmt::format("{}.weight_ih_l{}", prefix, l), {in, gates * h});
        const int r = b.weight(fmt::format("{}.weight_hh_l{}", prefix, l), {h, gates * h});
        const int bias_w = b.weight(fmt::format("{}.bias_ih_l{}", prefix, l), {gates * h});
        const int bias_r = b.weight(fmt::format("{}.bias_hh_l{}", prefix, l), {gates * h});
        int state_h = b.input(fmt::format("{}.h0_l{}", prefix, l), {batch, h}, DType::f32);
        int state_c = cell == RecurrentCell::lstm
                          ? b.input(fmt::format("{}.c0_l{}", prefix, l), {batch, h}, DType::f32)
                          : -1;
        for (auto& x_t : steps) {
            const int xw = b.op("Add", {b.op("MatMul", {x_t, w}), bias_w});
            const int hr = b.op("Add", {b.op("MatMul", {state_h, r}), bias_r});
            const Attributes split_gates{{"axis", std::int64_t{1}}};
            if (cell == RecurrentCell::rnn) {
                state_h = b.op("Tanh", {b.op("Add", {xw, hr})});
            } else if (cell == RecurrentCell::lstm) {
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
        stack.final_states.push_back(state_h);
        if (state_c >= 0)
            stack.final_states.push_back(state_c);
    }
    stack.steps = steps;
    return stack;
}

RecurrentStack fused_stack(GraphBuilder& b, RecurrentCell cell, int x, const RecurrentConfig& c,
                           const std::string& prefix) {
    const std::int64_t gates = gates_of(cell);
    const std::int64_t h = c.hidden;
    const std::string type = info_of(cell).onnx_type;
    Attributes attrs{{"hidden_size", h}};
    if (cell == RecurrentCell::gru)
        attrs["linear_before_reset"] = std::int64_t{1};
    RecurrentStack stack;
    int y = x;
    for (std::int64_t l = 0; l < c.layers; ++l) {
        const std::int64_t in = b.shape(y)[2];
        const int w = b.weight(fmt::format("{}.W_l{}", prefix, l), {1, gates * h, in});
        const int r = b.weight(fmt::format("{}.R_l{}", prefix, l), {1, gates * h, h});
        const int bias = b.weight(fmt::format("{}.B_l{}", prefix, l), {1, 2 * gates * h});
        const auto outs =
            b.op_multi(type, {y, w, r, bias}, attrs, cell == RecurrentCell::lstm ? 3 : 2);
        y = b.op("Squeeze", {outs[0]}, {{"axes", std::vector<std::int64_t>{1}}});
        stack.final_states.insert(stack.final_states.end(), outs.begin() + 1, outs.end());
    }
    stack.sequence = y;
    return stack;
}

Graph build(const RecurrentConfig& c, RecurrentCell cell) {
    const std::string name = info_of(cell).name;
    GraphBuilder b(name);
    const int x = b.input("x", {c.seq_len, c.batch, c.input}, DType::f32);
    RecurrentStack stack;
    if (c.fused) {
        auto scope = b.scope("rnn");  // torch.onnx names the ops "/rnn/LSTM", "/rnn/LSTM_1", ...
        stack = add_recurrent_stack(b, cell, x, c, "rnn");
    } else {
        stack = add_recurrent_stack(b, cell, x, c, name);
    }
    Graph& g = b.graph();
    if (c.fused) {
        g.mark_output(stack.sequence);
    } else {
        for (int t : stack.steps)
            g.mark_output(t);
    }
    for (int t : stack.final_states) {
        if (!g.tensor(t).is_graph_output)
            g.mark_output(t);
    }
    return std::move(g);
}

}  // namespace

RecurrentStack add_recurrent_stack(GraphBuilder& b, RecurrentCell cell, int x,
                                   const RecurrentConfig& config, const std::string& prefix) {
    return config.fused ? fused_stack(b, cell, x, config, prefix)
                        : unrolled_stack(b, cell, x, config, prefix);
}

int recurrent_sequence(GraphBuilder& b, const RecurrentStack& stack) {
    if (stack.sequence >= 0)
        return stack.sequence;
    std::vector<int> rows;
    for (int t : stack.steps)
        rows.push_back(b.op("Unsqueeze", {t}, {{"axes", std::vector<std::int64_t>{0}}}));
    return rows.size() == 1 ? rows.front() : b.op("Concat", rows, {{"axis", std::int64_t{0}}});
}

int recurrent_last(GraphBuilder& b, const RecurrentStack& stack) {
    if (stack.sequence < 0)
        return stack.steps.back();
    return b.op("Gather", {stack.sequence, b.scalar(-1.0, DType::i64)},
                {{"axis", std::int64_t{0}}});
}

Graph build_lstm(const RecurrentConfig& config) {
    return build(config, RecurrentCell::lstm);
}

Graph build_gru(const RecurrentConfig& config) {
    return build(config, RecurrentCell::gru);
}

Graph build_rnn(const RecurrentConfig& config) {
    return build(config, RecurrentCell::rnn);
}

}  // namespace hetsim::sim::workloads
