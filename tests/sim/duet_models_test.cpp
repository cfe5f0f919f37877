// DUET's workloads (zhang2021 Table I): compute ops and FLOPs by hand for small knobs, knob
// errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "sim/graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/model_zoo_fixtures.hpp"

namespace hetsim::sim::workloads {
namespace {

using ::testing::HasSubstr;

using hetsim::testing::build_error;
using hetsim::testing::compute_ops;

TEST(DuetModels, WideAndDeepHasTheResNetTheFfnAndTheLstm) {
    const Graph g = build_model("wide_and_deep", {{"image", 32},
                                                  {"rnn_seq_len", 3},
                                                  {"rnn_embed", 4},
                                                  {"rnn_vocab", 10},
                                                  {"rnn_layers", 1},
                                                  {"rnn_hidden", 4},
                                                  {"fused", 1}});
    const hetsim::testing::ComputeOps c = compute_ops(g);
    // ResNet-18: conv1, 8 basic blocks of 2 convs, 3 downsampling 1x1 convs.
    EXPECT_EQ(c.count.at("Conv"), 20);
    // 32x32 input: conv1 7x7/2 -> 16x16 (3 -> 64), maxpool -> 8x8; layer1 4 x (64 -> 64 3x3 at
    // 8x8); layers 2-4 each 2 359 296 + 3 x 4 718 592 + 262 144 (downsample) = 16 777 216.
    const double conv1 = 2.0 * 64 * 16 * 16 * 3 * 49;
    const double layer1 = 4.0 * (2.0 * 64 * 8 * 8 * 64 * 9);
    EXPECT_DOUBLE_EQ(c.flops.at("Conv"), conv1 + layer1 + 3 * 16777216.0);
    // Gemm: wide 363->1, deep 13->192->128->64->1, cnn head 512->1, rnn head 4->1
    // (2*M*N*K + M*N each).
    EXPECT_EQ(c.count.at("Gemm"), 7);
    EXPECT_DOUBLE_EQ(c.flops.at("Gemm"), 727.0 + 5184.0 + 49280.0 + 16448.0 + 129.0 + 1025.0 + 9.0);
    // One LSTM layer, 3 steps: 2*4H*(E + H) + 21 H per step with E = H = 4.
    EXPECT_EQ(c.count.at("LSTM"), 1);
    EXPECT_DOUBLE_EQ(c.flops.at("LSTM"), 3.0 * (2 * 16 * (4 + 4) + 21 * 4));
    EXPECT_EQ(c.count.count("MatMul"), 0u);
}

TEST(DuetModels, WideAndDeepBottleneckResNet) {
    // ResNet-50: conv1, 16 bottlenecks of 3 convs, 4 downsampling convs; features 2048.
    const Graph g = build_model("wide_and_deep", {{"image", 32}, {"resnet", 50}, {"fused", 1}});
    EXPECT_EQ(compute_ops(g).count.at("Conv"), 1 + 16 * 3 + 4);
    EXPECT_EQ(g.tensor(g.op(*g.find_op("/cnn/Gemm")).inputs[1]).shape, (Shape{1, 2048}));
}

TEST(DuetModels, SiameseBranchesAreIndependentStacks) {
    const Knobs small{{"layers", 1}, {"hidden", 4}, {"input", 3}, {"seq_len", 2}};
    Knobs fused = small;
    fused["fused"] = 1;
    const hetsim::testing::ComputeOps f = compute_ops(build_model("siamese_lstm", fused));
    EXPECT_EQ(f.count.at("LSTM"), 2);
    EXPECT_DOUBLE_EQ(f.flops.at("LSTM"), 2 * 2.0 * (2 * 16 * (3 + 4) + 21 * 4));
    // Unrolled: 2 branches x 2 steps x (x W, h R).
    const hetsim::testing::ComputeOps u = compute_ops(build_model("siamese_lstm", small));
    EXPECT_EQ(u.count.at("MatMul"), 8);
    EXPECT_DOUBLE_EQ(u.flops.at("MatMul"), 2 * 2 * (2.0 * 16 * 3 + 2.0 * 16 * 4));
}

TEST(DuetModels, MtDnnSharesTheEncoderAcrossTaskHeads) {
    const Graph g = build_model("mt_dnn", {{"layers", 1},
                                           {"hidden", 8},
                                           {"heads", 2},
                                           {"ffn", 16},
                                           {"seq_len", 4},
                                           {"vocab", 50},
                                           {"max_positions", 16},
                                           {"lstm_layers", 1},
                                           {"lstm_hidden", 4},
                                           {"tasks", 2},
                                           {"fused", 1}});
    const hetsim::testing::ComputeOps c = compute_ops(g);
    // Encoder: 6 projections + 2 attention matmuls; a per-token tag MatMul per task.
    EXPECT_EQ(c.count.at("MatMul"), 8 + 2);
    EXPECT_EQ(c.count.count("Gemm"), 0u);  // no pooler / classifier
    EXPECT_EQ(c.count.at("LSTM"), 2);
    // q, k, v, dense 4 x 2*4*8*8; scores and context 2 x 2*2*4*4*4; FFN 2 x 2*4*8*16;
    // heads 2*4*4*29 (task 0) and 2*4*4*3 (task 1).
    EXPECT_DOUBLE_EQ(c.flops.at("MatMul"), 2048.0 + 512.0 + 2048.0 + 928.0 + 96.0);
    EXPECT_DOUBLE_EQ(c.flops.at("LSTM"), 2 * 4.0 * (2 * 16 * (8 + 4) + 21 * 4));
    // Graph outputs: the two tasks' tag scores [seq, batch, tags], and each LSTM's unused Y_h
    // and Y_c (as in the export).
    std::multiset<Shape> outputs;
    for (const Tensor& t : g.tensors()) {
        if (t.is_graph_output)
            outputs.insert(t.shape);
    }
    EXPECT_EQ(outputs, (std::multiset<Shape>{
                           {4, 1, 29}, {4, 1, 3}, {1, 1, 4}, {1, 1, 4}, {1, 1, 4}, {1, 1, 4}}));
}

TEST(DuetModels, DefaultsFollowTableOne) {
    for (const auto& info : list_models()) {
        std::map<std::string, std::int64_t> d;
        for (const auto& k : info.knobs)
            d[k.name] = k.default_value;
        if (info.name == "wide_and_deep") {
            EXPECT_EQ(d.at("wide"), 363);
            EXPECT_EQ(d.at("deep_embed"), 192);
            EXPECT_EQ(d.at("rnn_hidden"), 64);
            EXPECT_EQ(d.at("resnet"), 18);
        } else if (info.name == "siamese_lstm") {
            EXPECT_EQ(d.at("seq_len"), 64);
            EXPECT_EQ(d.at("hidden"), 128);
        } else if (info.name == "mt_dnn") {
            EXPECT_EQ(d.at("seq_len"), 32);
            EXPECT_EQ(d.at("lstm_hidden"), 256);
            EXPECT_EQ(d.at("tasks"), 10);
            EXPECT_EQ(d.at("hidden"), 768);
        }
    }
}

TEST(DuetModels, KnobErrors) {
    EXPECT_THAT(build_error("mt_dnn", {{"tasks", 11}}),
                HasSubstr("model 'mt_dnn': knob 'tasks' must be in [1, 10], got 11"));
    EXPECT_THAT(build_error("mt_dnn", {{"hidden", 100}}),
                HasSubstr("hidden (100) must be divisible by heads (12)"));
    EXPECT_THAT(build_error("wide_and_deep", {{"resnet", 20}}),
                HasSubstr("knob 'resnet' must be one of 18, 34, 50, 101, 152, got 20"));
    EXPECT_THAT(build_error("wide_and_deep", {{"image", 16}}),
                HasSubstr("knob 'image' must be >= 32, got 16"));
    EXPECT_THAT(build_error("siamese_lstm", {{"fused", 2}}),
                HasSubstr("knob 'fused' must be 0 or 1, got 2"));
    EXPECT_THAT(build_error("siamese_lstm", {{"hiden", 2}}),
                HasSubstr("has no knob 'hiden' (did you mean 'hidden'?)"));
}

}  // namespace
}  // namespace hetsim::sim::workloads

namespace hetsim::sim::workloads {
namespace {

// Fig. 16's knob: deep_layers hidden layers, the first deep_hidden1 wide, the rest
// deep_hidden2; each extra layer is one Gemm and one Relu of 64 x 64.
TEST(DuetModels, FfnDepthAddsOneGemmAndReluPerLayer) {
    const Graph two = build_model("wide_and_deep", {{"fused", 1}});
    const Graph four = build_model("wide_and_deep", {{"fused", 1}, {"deep_layers", 4}});
    const Graph one = build_model("wide_and_deep", {{"fused", 1}, {"deep_layers", 1}});
    EXPECT_EQ(four.op_count(), two.op_count() + 4);
    EXPECT_EQ(one.op_count(), two.op_count() - 2);
    // 2 x 64 x 64 FLOPs and 64 bias adds per Gemm, 64 per Relu.
    EXPECT_DOUBLE_EQ(four.total_flops() - two.total_flops(), 2 * (2.0 * 64 * 64 + 64 + 64));
    ASSERT_TRUE(four.find_op("/deep/Gemm_4").has_value());
}

}  // namespace
}  // namespace hetsim::sim::workloads
