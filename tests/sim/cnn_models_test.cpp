// The `resnet`, `inception_v3` and `mobilenet_v2` generators against torchvision 0.14 exported
// in eval mode by torch 1.13 (opset 13, constant folding, so BatchNormalization folded into
// Conv): op counts, Conv + Gemm FLOPs (multiply-add = 2 FLOPs, Conv bias not counted, Gemm
// bias M*N), parameter counts and knob errors.
//
// Parameter counts: torchvision's count (sum of model.parameters()) minus the BatchNorm
// channels C_bn. Folding removes BN's weight and bias (2 C, parameters; the running mean and
// variance are buffers) and gives the Conv a bias of C, so the net change is -C per BN.
// C_bn summed is half of the model's buffer count without num_batches_tracked:
//   resnet18  11,689,512 - 4,800  = 11,684,712  (derived below from the layer table)
//   resnet50  25,557,032 - 26,560 = 25,530,472
//   mobilenet_v2  3,504,872 - 17,056 = 3,487,816
//   inception_v3 (no aux)  23,834,568 - 17,216 = 23,817,352
// (torchvision counts and buffer counts as printed by PyTorch 1.13 / torchvision 0.14.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/model_zoo_fixtures.hpp"

namespace hetsim::sim::workloads {
namespace {

using hetsim::testing::op_histogram;

double conv_gemm_flops(const Graph& g) {
    double f = 0.0;
    for (const Op& op : g.ops())
        f += op.type == "Conv" || op.type == "Gemm" ? op.flops : 0.0;
    return f;
}

// Model parameters: the f32 weights of rank >= 1. The rank-0 Clip bounds and the i64 Pad
// pads stand for the exporter's Constant nodes, which are not parameters.
std::int64_t parameters(const Graph& g) {
    std::int64_t n = 0;
    for (const Tensor& t : g.tensors()) {
        if (t.kind != TensorKind::weight || t.dtype != DType::f32 || t.shape.empty())
            continue;
        std::int64_t e = 1;
        for (auto d : t.shape)
            e *= d;
        n += e;
    }
    return n;
}

std::string build_error(const std::string& model, const Knobs& knobs) {
    try {
        build_model(model, knobs);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no error";
}

// One row of ResNet-18's layer table at a 224 x 224 input (He et al. 2016, Table 1).
struct ConvRow {
    std::int64_t in, out, kernel, out_hw, count;
};

TEST(CnnModels, ResNet18MatchesTheLayerTable) {
    const Graph g = build_model("resnet", {{"depth", 18}});
    const std::vector<ConvRow> table{{3, 64, 7, 112, 1},    // conv1, stride 2
                                     {64, 64, 3, 56, 4},    // layer1: 2 blocks x 2 convs
                                     {64, 128, 3, 28, 1},   // layer2.0.conv1, stride 2
                                     {128, 128, 3, 28, 3},  // layer2.0.conv2, layer2.1.conv1/conv2
                                     {64, 128, 1, 28, 1},   // layer2.0.downsample
                                     {128, 256, 3, 14, 1},  // layer3
                                     {256, 256, 3, 14, 3},  //
                                     {128, 256, 1, 14, 1},  //
                                     {256, 512, 3, 7, 1},   // layer4
                                     {512, 512, 3, 7, 3},   //
                                     {256, 512, 1, 7, 1}};  //
    std::int64_t convs = 0;
    double flops = 0.0;
    std::int64_t params = 0;
    std::int64_t bn_channels = 0;
    for (const auto& r : table) {
        convs += r.count;
        flops += static_cast<double>(r.count * 2 * r.out * r.out_hw * r.out_hw * r.in * r.kernel *
                                     r.kernel);
        params += r.count * (r.out * r.in * r.kernel * r.kernel + r.out);  // + folded bias
        bn_channels += r.count * r.out;
    }
    const std::int64_t fc = 512 * 1000 + 1000;
    flops += 2.0 * 1000 * 512 + 1000;  // Gemm: 2 M N K plus the bias M N
    params += fc;

    const auto h = op_histogram(g);
    EXPECT_EQ(h.at("Conv"), convs);
    EXPECT_EQ(convs, 20);
    EXPECT_EQ(h.at("Gemm"), 1);
    EXPECT_EQ(h.at("Relu"), 17);  // the stem, and 2 per block
    EXPECT_EQ(h.at("Add"), 8);
    EXPECT_EQ(h.at("MaxPool"), 1);
    EXPECT_EQ(h.at("GlobalAveragePool"), 1);
    EXPECT_EQ(h.at("Flatten"), 1);
    EXPECT_EQ(g.op_count(), 20 + 1 + 17 + 8 + 3);
    EXPECT_DOUBLE_EQ(conv_gemm_flops(g), flops);
    EXPECT_DOUBLE_EQ(flops, 3'628'147'688.0);  // the torch 1.13 export counted the same way
    EXPECT_EQ(bn_channels, 4'800);
    EXPECT_EQ(params, 11'689'512 - bn_channels);
    EXPECT_EQ(parameters(g), params);
    EXPECT_EQ(g.total_weight_bytes(), 4 * params);  // no constants besides the parameters
}

TEST(CnnModels, ResNetNamesOpsAndWeightsLikeTheExporter) {
    const Graph g = build_model("resnet", {{"depth", 50}});
    for (const char* name :
         {"/conv1/Conv", "/relu/Relu", "/maxpool/MaxPool", "/layer1/layer1.0/conv1/Conv",
          "/layer1/layer1.0/downsample/downsample.0/Conv", "/layer1/layer1.0/Add",
          "/layer1/layer1.0/relu_2/Relu", "/layer4/layer4.2/conv3/Conv",
          "/avgpool/GlobalAveragePool", "/Flatten", "/fc/Gemm"}) {
        EXPECT_TRUE(g.find_op(name).has_value()) << name;
    }
    // Bottleneck v1.5: the stride is on the 3x3 conv.
    const Op& conv2 = g.op(*g.find_op("/layer2/layer2.0/conv2/Conv"));
    EXPECT_EQ(conv2.attr_ints("strides"), (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(g.tensor(*g.find_tensor("layer2.0.conv2.weight")).shape, (Shape{128, 128, 3, 3}));
    EXPECT_EQ(g.tensor(*g.find_tensor("layer2.0.conv2.bias")).shape, (Shape{128}));
}

TEST(CnnModels, EveryResNetDepthBuilds) {
    // depth -> Conv and Add counts of the torch 1.13 export: the stem, 2 (BasicBlock) or 3
    // (Bottleneck) convs per block, and the downsample convs (3 with BasicBlock, 4 with
    // Bottleneck, whose layer1 changes width 64 -> 256).
    const std::map<std::int64_t, std::pair<int, int>> expected{
        {18, {20, 8}}, {34, {36, 16}}, {50, {53, 16}}, {101, {104, 33}}, {152, {155, 50}}};
    for (const auto& [depth, counts] : expected) {
        SCOPED_TRACE(depth);
        const Graph g =
            build_model("resnet", {{"depth", depth}, {"batch", 2}, {"image", 64}, {"classes", 10}});
        const auto h = op_histogram(g);
        EXPECT_EQ(h.at("Conv"), counts.first);
        EXPECT_EQ(h.at("Add"), counts.second);
        // The stem's ReLU, then one after every conv of a block but the last, and one after
        // the Add (one Add per block).
        EXPECT_EQ(h.at("Relu"), 1 + (depth >= 50 ? 3 : 2) * counts.second);
        const Op& fc = g.op(*g.find_op("/fc/Gemm"));
        EXPECT_EQ(g.tensor(fc.outputs[0]).shape, (Shape{2, 10}));
        EXPECT_TRUE(g.tensor(fc.outputs[0]).is_graph_output);
    }
}

TEST(CnnModels, ResNetFlopsAndParametersMatchTheExportAtEveryDepth) {
    // depth -> Conv + Gemm FLOPs of the torch 1.13 export at batch 1, 224 x 224, and
    // torchvision's parameter count minus the BatchNorm channels.
    struct Reference {
        std::int64_t depth;
        double flops;
        std::int64_t params;
    };
    for (const auto& r : {Reference{18, 3'628'147'688.0, 11'689'512 - 4'800},
                          Reference{34, 7'327'523'816.0, 21'797'672 - 8'512},
                          Reference{50, 8'178'369'512.0, 25'557'032 - 26'560},
                          Reference{101, 15'602'811'880.0, 44'549'160 - 52'672},
                          Reference{152, 23'027'254'248.0, 60'192'808 - 75'712}}) {
        SCOPED_TRACE(r.depth);
        const Graph g = build_model("resnet", {{"depth", r.depth}});
        EXPECT_DOUBLE_EQ(conv_gemm_flops(g), r.flops);
        EXPECT_EQ(parameters(g), r.params);
    }
}

TEST(CnnModels, MobileNetV2MatchesTheExport) {
    const Graph g = build_model("mobilenet_v2", {});
    const auto h = op_histogram(g);
    // 17 inverted residual blocks: 2 convs for the first (t = 1), 3 for the others, plus the
    // stem and the last 1x1: 1 + 2 + 16 * 3 + 1 = 52. Every conv but the 17 linear
    // bottlenecks is followed by a ReLU6 (Clip). 10 blocks keep stride 1 and width.
    EXPECT_EQ(h.at("Conv"), 52);
    EXPECT_EQ(h.at("Clip"), 35);
    EXPECT_EQ(h.at("Add"), 10);
    EXPECT_EQ(h.at("Gemm"), 1);
    EXPECT_EQ(h.at("GlobalAveragePool"), 1);
    EXPECT_EQ(h.at("Flatten"), 1);
    EXPECT_EQ(g.op_count(), 52 + 35 + 10 + 3);
    EXPECT_DOUBLE_EQ(conv_gemm_flops(g), 601'549'544.0);  // torch 1.13 export
    EXPECT_EQ(parameters(g), 3'504'872 - 17'056);
    // The depthwise conv of block 2 (24 -> 144 channels, stride 2).
    const Op& dw = g.op(*g.find_op("/features/features.2/conv/conv.1/conv.1.0/Conv"));
    EXPECT_EQ(dw.attr_int("group", 1), 96);
    EXPECT_TRUE(g.find_op("/features/features.18/features.18.2/Clip").has_value());
    EXPECT_TRUE(g.find_op("/classifier/classifier.1/Gemm").has_value());
}

TEST(CnnModels, InceptionV3MatchesTheExport) {
    const Graph g = build_model("inception_v3", {});
    const auto h = op_histogram(g);
    EXPECT_EQ(h.at("Conv"), 94);
    EXPECT_EQ(h.at("Relu"), 94);
    EXPECT_EQ(h.at("Concat"), 11);  // one per Mixed block (the exporter flattens 7b/7c's)
    EXPECT_EQ(h.at("Pad"), 9);      // avg_pool2d(3, 1, 1) in Mixed_5*, 6b-6e, 7b, 7c
    EXPECT_EQ(h.at("AveragePool"), 9);
    EXPECT_EQ(h.at("MaxPool"), 4);
    EXPECT_EQ(h.at("Gemm"), 1);
    EXPECT_DOUBLE_EQ(conv_gemm_flops(g), 11'426'433'192.0);  // torch 1.13 export at 299
    EXPECT_EQ(parameters(g), 23'834'568 - 17'216);
    const Op& cat = g.op(*g.find_op("/Mixed_7c/Concat"));
    EXPECT_EQ(cat.inputs.size(), 6U);
    EXPECT_EQ(g.tensor(cat.outputs[0]).shape, (Shape{1, 2048, 8, 8}));
    EXPECT_TRUE(g.find_op("/Mixed_6b/branch7x7_2/conv/Conv").has_value());
    const Op& fc = g.op(*g.find_op("/fc/Gemm"));
    EXPECT_EQ(g.tensor(fc.inputs[0]).shape, (Shape{1, 2048}));
}

TEST(CnnModels, BadKnobsAreErrorsNamingTheKnob) {
    EXPECT_THAT(build_error("resnet", {{"depth", 20}}),
                ::testing::HasSubstr("knob 'depth' must be one of 18, 34, 50, 101, 152, got 20"));
    EXPECT_THAT(build_error("resnet", {{"width", 2}}), ::testing::HasSubstr("no knob 'width'"));
    EXPECT_THAT(build_error("mobilenet_v2", {{"image", 0}}), ::testing::HasSubstr("'image'"));
    EXPECT_THAT(build_error("inception_v3", {{"image", 74}}),
                ::testing::HasSubstr("knob 'image' must be >= 75, got 74"));
    EXPECT_EQ(build_error("inception_v3", {{"image", 75}}), "no error");
}

}  // namespace
}  // namespace hetsim::sim::workloads
