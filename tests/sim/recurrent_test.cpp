// The unrolled `lstm` and `gru` generators: ops per cell, MatMul FLOPs, shapes and outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sim/graph.hpp"
#include "sim/workloads/model_zoo.hpp"

namespace hetsim::sim::workloads {
namespace {

std::map<std::string, int> histogram(const Graph& g) {
    std::map<std::string, int> h;
    for (const Op& op : g.ops())
        ++h[op.type];
    return h;
}

double matmul_flops(const Graph& g) {
    double f = 0.0;
    for (const Op& op : g.ops())
        f += op.type == "MatMul" ? op.flops : 0.0;
    return f;
}

TEST(Recurrent, LstmCellsAreTwoMatMulsFourGatesAndTheStateUpdate) {
    // 3 layers x 5 steps = 15 cells; input 40, hidden 24, batch 2.
    const Graph g = build_model(
        "lstm", {{"layers", 3}, {"seq_len", 5}, {"input", 40}, {"hidden", 24}, {"batch", 2}});
    const auto h = histogram(g);
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
    const auto h = histogram(g);
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

TEST(Recurrent, OneStepNeedsNoSplitOfTheInput) {
    const Graph g = build_model("lstm", {{"seq_len", 1}, {"hidden", 8}, {"input", 8}});
    EXPECT_EQ(histogram(g).at("Split"), 1);
    EXPECT_EQ(histogram(g).at("Squeeze"), 1);
}

}  // namespace
}  // namespace hetsim::sim::workloads
