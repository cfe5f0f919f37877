// The `lstm`, `gru` and `rnn` generators, unrolled and fused: ops per cell, MatMul FLOPs,
// shapes and outputs; the LSTM/GRU/RNN rows of the op table (shape inference, FLOPs).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sim/graph.hpp"
#include "sim/op_table.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/model_zoo_fixtures.hpp"

namespace hetsim::sim::workloads {
namespace {

using hetsim::testing::op_histogram;

double flops_of(const Graph& g, const std::string& type) {
    double f = 0.0;
    for (const Op& op : g.ops())
        f += op.type == type ? op.flops : 0.0;
    return f;
}

double matmul_flops(const Graph& g) {
    return flops_of(g, "MatMul");
}

double total_flops(const Graph& g) {
    double f = 0.0;
    for (const Op& op : g.ops())
        f += op.flops;
    return f;
}

TEST(Recurrent, LstmCellsAreTwoMatMulsFourGatesAndTheStateUpdate) {
    // 3 layers x 5 steps = 15 cells; input 40, hidden 24, batch 2.
    const Graph g = build_model(
        "lstm", {{"layers", 3}, {"seq_len", 5}, {"input", 40}, {"hidden", 24}, {"batch", 2}});
    const auto h = op_histogram(g);
    const int cells = 15;
    EXPECT_EQ(h.at("MatMul"), 2 * cells);
    EXPECT_EQ(h.at("Add"), 4 * cells);  // two biases, x W + h R, the cell state
    EXPECT_EQ(h.at("Mul"), 3 * cells);
    EXPECT_EQ(h.at("Sigmoid"), 3 * cells);
    EXPECT_EQ(h.at("Tanh"), 2 * cells);
    EXPECT_EQ(h.at("Split"), cells + 1);  // the gates per cell, and x into steps
    EXPECT_EQ(h.at("Squeeze"), 5);
    EXPECT_EQ(g.op_count(),
              2 * cells + 4 * cells + 3 * cells + 3 * cells + 2 * cells + cells + 1 + 5);
    // MatMul FLOPs: per step and layer 2 B (in + H) 4H; in = 40 for layer 0, H after.
    const double expected = 5.0 * (2 * 2 * (40 + 24) * 4 * 24 + 2 * (2 * 2 * (24 + 24) * 4 * 24));
    EXPECT_DOUBLE_EQ(matmul_flops(g), expected);
    // Outputs: the top layer's h of every step, and every layer's last h and c.
    int outputs = 0;
    for (int t = 0; t < g.tensor_count(); ++t) {
        if (g.tensor(t).is_graph_output) {
            ++outputs;
            EXPECT_EQ(g.tensor(t).shape, (Shape{2, 24}));
        }
    }
    EXPECT_EQ(outputs, 5 + 2 * 3 - 1);  // the top layer's last h is both
}

TEST(Recurrent, GruCellsFollowLinearBeforeReset) {
    const Graph g =
        build_model("gru", {{"layers", 2}, {"seq_len", 3}, {"input", 16}, {"hidden", 8}});
    const auto h = op_histogram(g);
    const int cells = 6;
    EXPECT_EQ(h.at("MatMul"), 2 * cells);
    EXPECT_EQ(h.at("Add"), 6 * cells);  // two biases, z, r, n, h'
    EXPECT_EQ(h.at("Mul"), 3 * cells);  // r * hn, (1 - z) * n, z * h
    EXPECT_EQ(h.at("Sub"), cells);
    EXPECT_EQ(h.at("Sigmoid"), 2 * cells);
    EXPECT_EQ(h.at("Tanh"), cells);
    EXPECT_EQ(h.at("Split"), 2 * cells + 1);
    const double expected = 3.0 * (2 * 1 * (16 + 8) * 3 * 8 + 2 * 1 * (8 + 8) * 3 * 8);
    EXPECT_DOUBLE_EQ(matmul_flops(g), expected);
}

TEST(Recurrent, RnnCellsAreTwoMatMulsAndATanh) {
    // 2 layers x 3 steps; input 16, hidden 8, batch 4: h' = tanh(x W + b + h R + b).
    const Graph g = build_model(
        "rnn", {{"layers", 2}, {"seq_len", 3}, {"input", 16}, {"hidden", 8}, {"batch", 4}});
    const auto h = op_histogram(g);
    const int cells = 6;
    EXPECT_EQ(h.at("MatMul"), 2 * cells);
    EXPECT_EQ(h.at("Add"), 3 * cells);  // two biases, x W + h R
    EXPECT_EQ(h.at("Tanh"), cells);
    EXPECT_EQ(h.at("Split"), 1);  // x into steps; one gate needs no split
    EXPECT_EQ(h.at("Squeeze"), 3);
    EXPECT_EQ(g.op_count(), 2 * cells + 3 * cells + cells + 1 + 3);
    EXPECT_EQ(h.count("Sigmoid"), 0u);
    const double expected = 3.0 * (2 * 4 * (16 + 8) * 8 + 2 * 4 * (8 + 8) * 8);
    EXPECT_DOUBLE_EQ(matmul_flops(g), expected);
    // Fused: one ONNX RNN op per layer, Y and Y_h, W [1, H, I], R [1, H, H], B [1, 2H].
    const Graph fused = build_model(
        "rnn",
        {{"layers", 2}, {"seq_len", 3}, {"input", 16}, {"hidden", 8}, {"batch", 4}, {"fused", 1}});
    EXPECT_EQ(op_histogram(fused).at("RNN"), 2);
    const Op& first = fused.op(*fused.find_op("/rnn/RNN"));
    EXPECT_EQ(first.outputs.size(), 2u);
    EXPECT_EQ(fused.tensor(first.inputs[1]).shape, (Shape{1, 8, 16}));
    EXPECT_EQ(fused.tensor(first.inputs[2]).shape, (Shape{1, 8, 8}));
    EXPECT_EQ(fused.tensor(first.inputs[3]).shape, (Shape{1, 16}));
    EXPECT_EQ(fused.tensor(first.outputs[0]).shape, (Shape{3, 1, 4, 8}));
    // Per step 2 B H (I + H) for the products and 4 B H element-wise.
    EXPECT_DOUBLE_EQ(first.flops, 3.0 * (2 * 4 * 8 * (16 + 8) + 4 * 4 * 8));
}

TEST(Recurrent, OneStepNeedsNoSplitOfTheInput) {
    const Graph g = build_model("lstm", {{"seq_len", 1}, {"hidden", 8}, {"input", 8}});
    EXPECT_EQ(op_histogram(g).at("Split"), 1);
    EXPECT_EQ(op_histogram(g).at("Squeeze"), 1);
}

TEST(Recurrent, FusedLstmIsOneOpPerLayerWithTheExportersWeightShapes) {
    const Graph g = build_model(
        "lstm",
        {{"layers", 2}, {"seq_len", 5}, {"input", 40}, {"hidden", 24}, {"batch", 2}, {"fused", 1}});
    const auto h = op_histogram(g);
    EXPECT_EQ(h.at("LSTM"), 2);
    EXPECT_EQ(h.count("MatMul"), 0u);
    EXPECT_EQ(h.at("Squeeze"), 2);  // Y's direction axis, per layer
    const Op& first = g.op(*g.find_op("/rnn/LSTM"));
    EXPECT_EQ(g.tensor(first.inputs[1]).shape, (Shape{1, 96, 40}));  // W [1, 4H, I]
    EXPECT_EQ(g.tensor(first.inputs[2]).shape, (Shape{1, 96, 24}));  // R [1, 4H, H]
    EXPECT_EQ(g.tensor(first.inputs[3]).shape, (Shape{1, 192}));     // B [1, 8H]
    EXPECT_EQ(g.tensor(first.outputs[0]).shape, (Shape{5, 1, 2, 24}));
    EXPECT_EQ(g.tensor(first.outputs[1]).shape, (Shape{1, 2, 24}));
    EXPECT_EQ(g.tensor(first.outputs[2]).shape, (Shape{1, 2, 24}));
    // Per step: 2 B 4H (I + H) for the matmuls + 21 B H element-wise (recurrent.cpp's cell).
    const double layer0 = 5.0 * (2 * 2 * 96 * (40 + 24) + 21 * 2 * 24);
    const double layer1 = 5.0 * (2 * 2 * 96 * (24 + 24) + 21 * 2 * 24);
    EXPECT_DOUBLE_EQ(first.flops, layer0);
    EXPECT_DOUBLE_EQ(flops_of(g, "LSTM"), layer0 + layer1);
}

TEST(Recurrent, FusedAndUnrolledFormsCostTheSameFlops) {
    const std::map<std::string, std::string> op_type{
        {"lstm", "LSTM"}, {"gru", "GRU"}, {"rnn", "RNN"}};
    for (const auto& [model, type] : op_type) {
        const Knobs knobs{
            {"layers", 3}, {"seq_len", 7}, {"input", 20}, {"hidden", 12}, {"batch", 3}};
        Knobs fused_knobs = knobs;
        fused_knobs["fused"] = 1;
        const Graph unrolled = build_model(model, knobs);
        const Graph fused = build_model(model, fused_knobs);
        const double expected = total_flops(unrolled);
        EXPECT_NEAR(total_flops(fused), expected, 0.02 * expected) << model;
        // The fused ops carry all of it (Squeeze and Gather cost nothing).
        EXPECT_DOUBLE_EQ(flops_of(fused, type), total_flops(fused)) << model;
    }
    // GRU by hand: G = 3, 17 B H element-wise per cell; 2 layers x 3 steps, I = 16, H = 8.
    const Graph gru = build_model(
        "gru", {{"layers", 2}, {"seq_len", 3}, {"input", 16}, {"hidden", 8}, {"fused", 1}});
    EXPECT_DOUBLE_EQ(flops_of(gru, "GRU"),
                     3.0 * (2 * 24 * (16 + 8) + 17 * 8) + 3.0 * (2 * 24 * (8 + 8) + 17 * 8));
}

Graph recurrent_graph(const std::string& type, const Shape& x, const Shape& w, const Shape& r,
                      const Attributes& attrs, int outputs) {
    Graph g("rnn");
    const int xt = g.add_tensor("x", x, DType::f32, TensorKind::input);
    const int wt = g.add_tensor("W", w, DType::f32, TensorKind::weight);
    const int rt = g.add_tensor("R", r, DType::f32, TensorKind::weight);
    std::vector<int> outs;
    for (int k = 0; k < outputs; ++k)
        outs.push_back(g.add_tensor("y" + std::to_string(k), {}, DType::f32));
    g.add_op("rnn", type, {xt, wt, rt}, outs, attrs);
    return g;
}

TEST(Recurrent, LstmShapeInferenceFollowsTheOnnxSpecification) {
    // Bidirectional, H = 6 from hidden_size: Y [seq, 2, batch, H], Y_h = Y_c = [2, batch, H].
    Graph g = recurrent_graph(
        "LSTM", {9, 4, 5}, {2, 24, 5}, {2, 24, 6},
        {{"hidden_size", std::int64_t{6}}, {"direction", std::string("bidirectional")}}, 3);
    auto shapes = infer_output_shapes(g, g.op(0));
    ASSERT_TRUE(shapes.has_value());
    EXPECT_EQ(*shapes, (Shapes{{9, 2, 4, 6}, {2, 4, 6}, {2, 4, 6}}));
    // Without B: no bias adds (2 G H per row); two directions of 9 steps.
    EXPECT_DOUBLE_EQ(op_flops(g, g.op(0)),
                     2.0 * 9 * (2 * 4 * 24 * (5 + 6) + 4 * (21 * 6 - 2 * 24)));
    // layout = 1: batch first.
    Graph batch_first =
        recurrent_graph("GRU", {4, 9, 5}, {1, 18, 5}, {1, 18, 6}, {{"layout", std::int64_t{1}}}, 2);
    EXPECT_EQ(*infer_output_shapes(batch_first, batch_first.op(0)),
              (Shapes{{4, 9, 1, 6}, {4, 1, 6}}));
}

TEST(Recurrent, LstmShapeInferenceRejectsMismatchedWeights) {
    Graph g = recurrent_graph("LSTM", {9, 4, 5}, {1, 24, 7}, {1, 24, 6}, {}, 3);
    try {
        (void)infer_output_shapes(g, g.op(0));
        ADD_FAILURE() << "W of the wrong input size was accepted";
    } catch (const GraphError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("expects W [1,24,5] and R [1,24,6]"));
    }
    Graph bad_direction = recurrent_graph("GRU", {9, 4, 5}, {1, 18, 5}, {1, 18, 6},
                                          {{"direction", std::string("sideways")}}, 2);
    EXPECT_THROW((void)infer_output_shapes(bad_direction, bad_direction.op(0)), GraphError);
}

}  // namespace
}  // namespace hetsim::sim::workloads
