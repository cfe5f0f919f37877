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
// `mobilenet_v1` and `yolo_v3` have no torchvision model: they are checked against the
// published multiply-adds and parameters (Howard et al. 2017; Redmon and Farhadi 2018 / darknet).
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

// Howard et al. 2017, Table 1 (width 1.0, 224 x 224): 569 million multiply-adds and 4.2
// million parameters. The graph: the stem, 13 depthwise + 13 pointwise convs, each with a ReLU,
// then GlobalAveragePool, Flatten and the fc Gemm.
TEST(CnnModels, MobileNetV1MatchesHowardTableOne) {
    const Graph g = build_model("mobilenet_v1", {});
    const auto h = op_histogram(g);
    EXPECT_EQ(h.at("Conv"), 27);  // 1 + 13 * 2
    EXPECT_EQ(h.at("Relu"), 27);
    EXPECT_EQ(h.at("Gemm"), 1);
    EXPECT_EQ(h.at("GlobalAveragePool"), 1);
    EXPECT_EQ(h.at("Flatten"), 1);
    EXPECT_EQ(g.op_count(), 27 + 27 + 3);
    // Multiply-adds: the convs 567,716,352 and the fc 1024 * 1000 = 1,024,000, together
    // 568,740,352, Table 1's "569 million" (its Table 2 breakdown includes the fc layer).
    // hetsim counts 2 FLOPs per multiply-add and the Gemm bias (1000); the folded Conv biases
    // are not counted. So 2 * 568,740,352 + 1000, 0.05 % under 2 * 569e6.
    EXPECT_DOUBLE_EQ(conv_gemm_flops(g), 1'137'481'704.0);
    EXPECT_NEAR(conv_gemm_flops(g), 2 * 569e6, 0.01 * 2 * 569e6);
    // Parameters: conv weights 3,185,088, the fc 1,025,000 and the folded biases of the 27
    // convs' BatchNorms (10,944 channels): 4,221,032, Table 1's "4.2 million". With BN's
    // weight and bias instead of the folded bias it is 4,231,976, the trainable count of
    // Keras's MobileNet(alpha=1.0).
    EXPECT_EQ(parameters(g), 4'221'032);
    EXPECT_NEAR(static_cast<double>(parameters(g)), 4.2e6, 0.01 * 4.2e6);
    EXPECT_EQ(g.total_weight_bytes(), 4 * parameters(g));
    // Depthwise: group = channels, stride on the depthwise conv.
    const Op& dw = g.op(*g.find_op("/features/features.2/features.2.0/Conv"));
    EXPECT_EQ(dw.attr_int("group", 1), 64);
    EXPECT_EQ(dw.attr_ints("strides"), (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(g.tensor(*g.find_tensor("features.2.0.weight")).shape, (Shape{64, 1, 3, 3}));
    EXPECT_EQ(g.tensor(*g.find_tensor("features.2.3.weight")).shape, (Shape{128, 64, 1, 1}));
    EXPECT_TRUE(g.find_op("/features/features.0/features.0.2/Relu").has_value());
    EXPECT_TRUE(g.find_op("/features/features.13/features.13.5/Relu").has_value());
    const Op& last = g.op(*g.find_op("/features/features.13/features.13.3/Conv"));
    EXPECT_EQ(g.tensor(last.outputs[0]).shape, (Shape{1, 1024, 7, 7}));
    const Op& fc = g.op(*g.find_op("/fc/Gemm"));
    EXPECT_EQ(g.tensor(fc.outputs[0]).shape, (Shape{1, 1000}));
    EXPECT_TRUE(g.tensor(fc.outputs[0]).is_graph_output);
    const Graph small = build_model("mobilenet_v1", {{"batch", 2}, {"image", 96}, {"classes", 10}});
    const Op& small_fc = small.op(*small.find_op("/fc/Gemm"));
    EXPECT_EQ(small.tensor(small_fc.outputs[0]).shape, (Shape{2, 10}));
}

// The graph outputs in order.
std::vector<Shape> output_shapes(const Graph& g) {
    std::vector<Shape> shapes;
    for (const Tensor& t : g.tensors()) {
        if (t.is_graph_output)
            shapes.push_back(t.shape);
    }
    return shapes;
}

// Redmon and Farhadi 2018 (Table 2, and darknet's yolov3.cfg at 416 x 416: "65.86 Bn" FLOPs,
// a multiply-add counted as 2, bias and activations not counted).
TEST(CnnModels, YoloV3MatchesDarknetAt416) {
    const Graph g = build_model("yolo_v3", {{"image", 416}});
    const auto h = op_histogram(g);
    EXPECT_EQ(h.at("Conv"), 75);       // Darknet-53's 52 and the heads' 23
    EXPECT_EQ(h.at("LeakyRelu"), 72);  // all but the three heads' 1x1 convs
    EXPECT_EQ(h.at("Add"), 23);        // residual blocks: 1 + 2 + 8 + 8 + 4
    EXPECT_EQ(h.at("Resize"), 2);
    EXPECT_EQ(h.at("Concat"), 2);
    EXPECT_EQ(g.op_count(), 75 + 72 + 23 + 2 + 2);
    // hetsim's Conv FLOPs count 2 per multiply-add and no bias, as darknet does: exactly its
    // 65.86 Bn (the Adds, LeakyRelus and nearest Resizes are not in darknet's figure).
    double conv_flops = 0.0;
    for (const Op& op : g.ops())
        conv_flops += op.type == "Conv" ? op.flops : 0.0;
    EXPECT_DOUBLE_EQ(conv_flops, 65'864'075'264.0);
    EXPECT_NEAR(conv_flops, 65.86e9, 0.01 * 65.86e9);
    EXPECT_EQ(output_shapes(g),
              (std::vector<Shape>{{1, 255, 13, 13}, {1, 255, 26, 26}, {1, 255, 52, 52}}));
    // Parameters (the 4 upsample scales are a constant, not a parameter): weights and the
    // folded biases, 61,922,845. darknet's yolov3.weights holds 62,001,757 floats after its
    // 20-byte header (248,007,048 bytes): BN's 4 values per channel instead of the folded bias,
    // 3 * 26,304 more; ultralytics' yolov3 counts 61,949,149 (BN weight and bias: 26,304 more).
    EXPECT_EQ(parameters(g) - 4, 61'922'845);
    EXPECT_EQ(parameters(g) - 4 + 3 * 26'304, 62'001'757);
    // Layer numbering follows yolov3.cfg: 36 and 61 are the stages the heads concatenate.
    const Op& cat = g.op(*g.find_op("/Concat"));
    EXPECT_EQ(g.tensor(cat.outputs[0]).shape, (Shape{1, 768, 26, 26}));  // 256 up + layer 61
    EXPECT_EQ(g.tensor(cat.inputs[1]).shape, (Shape{1, 512, 26, 26}));
    const Op& cat2 = g.op(*g.find_op("/Concat_1"));
    EXPECT_EQ(g.tensor(cat2.outputs[0]).shape, (Shape{1, 384, 52, 52}));  // 128 up + layer 36
    const Op& up = g.op(*g.find_op("/module_list.85/upsample_85/Resize"));
    EXPECT_EQ(g.tensor(up.outputs[0]).shape, (Shape{1, 256, 26, 26}));
    EXPECT_EQ(up.flops, 0.0);  // nearest: a copy
    EXPECT_TRUE(g.find_op("/module_list.97/upsample_97/Resize").has_value());
    EXPECT_TRUE(g.find_op("/module_list.0/leaky_0/LeakyRelu").has_value());
    EXPECT_EQ(g.op(*g.find_op("/module_list.1/conv_1/Conv")).attr_ints("strides"),
              (std::vector<std::int64_t>{2, 2}));
    for (const char* head : {"/module_list.81/conv_81/Conv", "/module_list.93/conv_93/Conv",
                             "/module_list.105/conv_105/Conv"}) {
        const Op& op = g.op(*g.find_op(head));
        EXPECT_TRUE(g.tensor(op.outputs[0]).is_graph_output) << head;
        EXPECT_EQ(g.tensor(op.inputs[1]).shape[0], 255) << head;
    }
    EXPECT_FALSE(g.find_op("/module_list.81/leaky_81/LeakyRelu").has_value());
    // Darknet-53's last conv (layer 73; 74 is its shortcut).
    EXPECT_EQ(g.tensor(*g.find_tensor("module_list.73.conv_73.weight")).shape,
              (Shape{1024, 512, 3, 3}));
    EXPECT_FALSE(g.find_tensor("module_list.74.conv_74.weight").has_value());
}

TEST(CnnModels, YoloV3DefaultsToXu2022SizeAndScalesWithItsKnobs) {
    const Graph g = build_model("yolo_v3", {});  // xu2022 Table 3: 3 x 640 x 640, 80 classes
    EXPECT_EQ(g.tensor(*g.find_tensor("input")).shape, (Shape{1, 3, 640, 640}));
    EXPECT_EQ(output_shapes(g),
              (std::vector<Shape>{{1, 255, 20, 20}, {1, 255, 40, 40}, {1, 255, 80, 80}}));
    const Graph small = build_model("yolo_v3", {{"batch", 2}, {"image", 64}, {"classes", 20}});
    EXPECT_EQ(output_shapes(small),
              (std::vector<Shape>{{2, 75, 2, 2}, {2, 75, 4, 4}, {2, 75, 8, 8}}));
}

TEST(CnnModels, BadKnobsAreErrorsNamingTheKnob) {
    EXPECT_THAT(build_error("resnet", {{"depth", 20}}),
                ::testing::HasSubstr("knob 'depth' must be one of 18, 34, 50, 101, 152, got 20"));
    EXPECT_THAT(build_error("resnet", {{"width", 2}}), ::testing::HasSubstr("no knob 'width'"));
    EXPECT_THAT(build_error("mobilenet_v2", {{"image", 0}}), ::testing::HasSubstr("'image'"));
    EXPECT_THAT(build_error("inception_v3", {{"image", 74}}),
                ::testing::HasSubstr("knob 'image' must be >= 75, got 74"));
    EXPECT_EQ(build_error("inception_v3", {{"image", 75}}), "no error");
    EXPECT_THAT(
        build_error("yolo_v3", {{"image", 100}}),
        ::testing::HasSubstr("model 'yolo_v3': knob 'image' must be a positive multiple of 32"));
    EXPECT_THAT(build_error("yolo_v3", {{"image", 100}}), ::testing::HasSubstr("got 100"));
    EXPECT_THAT(build_error("yolo_v3", {{"image", 16}}),
                ::testing::HasSubstr("knob 'image' must be >= 32, got 16"));
    EXPECT_EQ(build_error("yolo_v3", {{"image", 32}}), "no error");
    EXPECT_THAT(build_error("mobilenet_v1", {{"image", 0}}), ::testing::HasSubstr("'image'"));
}

}  // namespace
}  // namespace hetsim::sim::workloads
