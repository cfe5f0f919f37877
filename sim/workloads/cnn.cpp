// CNN classifiers as torchvision 0.14 defines them and torch 1.13 exports them in eval mode
// (opset 13, constant folding on):
//  * ResNet: He et al., "Deep Residual Learning for Image Recognition", CVPR 2016, Table 1;
//    torchvision/models/resnet.py (v1.5: a Bottleneck downsamples in its 3x3 conv).
//  * Inception v3: Szegedy et al., "Rethinking the Inception Architecture for Computer Vision",
//    CVPR 2016; torchvision/models/inception.py with aux_logits off (eval) and
//    transform_input=False.
//  * MobileNetV2: Sandler et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks",
//    CVPR 2018, Table 2; torchvision/models/mobilenetv2.py with width_mult 1.0.
//  * MobileNet (v1): Howard et al., "MobileNets: Efficient Convolutional Neural Networks for
//    Mobile Vision Applications", 2017, Table 1, width multiplier 1.0; the layers and ReLU (not
//    ReLU6) of tvm.relay.testing.mobilenet, the MobileNet EOP places, written as a torch module
//    (below) since torchvision has no v1.
//  * YOLOv3: Redmon and Farhadi, "YOLOv3: An Incremental Improvement", 2018 (Darknet-53 and
//    three detection scales), layer for layer as darknet's yolov3.cfg, in the module form the
//    cfg-parsing PyTorch port eriklindernoren/PyTorch-YOLOv3 gives it (below).
//
// What the eval-mode export looks like, and so what is emitted here:
//  * BatchNormalization is folded into the Conv before it: the Conv gains a bias of Cout, and
//    BN's weight, bias, running mean and running variance (4 C values) disappear. The parameter
//    count is therefore torchvision's minus the sum of BN channels (weight + bias = 2 C go, the
//    conv bias C comes).
//  * Dropout is gone; torch.flatten is Flatten(axis 1); nn.Linear on [N, C] is Gemm(transB 1);
//    adaptive_avg_pool2d to 1x1 is GlobalAveragePool; ReLU6 is Clip(x, 0, 6).
//  * avg_pool2d(3, stride 1, padding 1) with count_include_pad is Pad + AveragePool (no pads).
//  * Not emitted: the Identity nodes a random-weight export adds when folded BN biases are
//    equal (the exporter deduplicates equal initializers), and the Constant nodes holding
//    Clip's bounds and Pad's pads, which are shared weight tensors here.
// Ops are named as the exporter names them ("/layer1/layer1.0/conv1/Conv"); weights carry the
// module's state-dict name ("layer1.0.conv1.weight", the folded bias "layer1.0.conv1.bias").
#include "sim/workloads/cnn.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/workloads/graph_builder.hpp"

namespace hetsim::sim::workloads {

namespace {

using Ints = std::vector<std::int64_t>;

struct ConvSpec {
    std::int64_t out_channels;
    std::int64_t kernel_h;
    std::int64_t kernel_w;
    std::int64_t stride = 1;
    std::int64_t pad_h = 0;
    std::int64_t pad_w = 0;
    std::int64_t groups = 1;
};

// A square kernel with torchvision's usual "same" padding (k - 1) / 2.
ConvSpec square(std::int64_t out_channels, std::int64_t kernel, std::int64_t stride = 1,
                std::int64_t groups = 1) {
    const std::int64_t pad = (kernel - 1) / 2;
    return {out_channels, kernel, kernel, stride, pad, pad, groups};
}

// Conv with the following BatchNormalization folded in: weight [Cout, Cin/groups, kh, kw] and
// bias [Cout], named after the module `param` ("layer1.0.conv1"). Emitted in the caller's scope
// plus `scope` (the module's exporter scope, "conv1").
int conv(GraphBuilder& b, int x, const std::string& scope, const std::string& param,
         const ConvSpec& s) {
    auto sc = b.scope(scope);
    const std::int64_t in_channels = b.shape(x)[1];
    const int w = b.weight(param + ".weight",
                           {s.out_channels, in_channels / s.groups, s.kernel_h, s.kernel_w});
    const int bias = b.weight(param + ".bias", {s.out_channels});
    return b.op("Conv", {x, w, bias},
                {{"dilations", Ints{1, 1}},
                 {"group", s.groups},
                 {"kernel_shape", Ints{s.kernel_h, s.kernel_w}},
                 {"pads", Ints{s.pad_h, s.pad_w, s.pad_h, s.pad_w}},
                 {"strides", Ints{s.stride, s.stride}}});
}

int scoped_op(GraphBuilder& b, const std::string& scope, const std::string& type,
              const std::vector<int>& inputs, const Attributes& attrs = {}) {
    auto sc = b.scope(scope);
    return b.op(type, inputs, attrs);
}

int max_pool(GraphBuilder& b, int x, std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
    return b.op("MaxPool", {x},
                {{"ceil_mode", std::int64_t{0}},
                 {"kernel_shape", Ints{kernel, kernel}},
                 {"pads", Ints{pad, pad, pad, pad}},
                 {"strides", Ints{stride, stride}}});
}

// GlobalAveragePool (in `pool_scope`, empty for the functional form), Flatten and the Linear
// classifier `fc_param` as Gemm in scope `fc_scope` (nested in `fc_outer_scope` unless empty);
// marks the logits as the graph output.
void classifier_head(GraphBuilder& b, int x, const std::string& pool_scope,
                     const std::string& fc_outer_scope, const std::string& fc_scope,
                     const std::string& fc_param, std::int64_t classes) {
    const int pooled = pool_scope.empty() ? b.op("GlobalAveragePool", {x})
                                          : scoped_op(b, pool_scope, "GlobalAveragePool", {x});
    const int flat = b.op("Flatten", {pooled}, {{"axis", std::int64_t{1}}});
    const std::int64_t features = b.shape(flat)[1];
    std::optional<GraphBuilder::Scope> outer;
    if (!fc_outer_scope.empty())
        outer.emplace(b, fc_outer_scope);
    auto inner = b.scope(fc_scope);
    const int logits = b.op("Gemm",
                            {flat, b.weight(fc_param + ".weight", {classes, features}),
                             b.weight(fc_param + ".bias", {classes})},
                            {{"alpha", 1.0}, {"beta", 1.0}, {"transB", std::int64_t{1}}});
    b.graph().mark_output(logits);
}

// --- ResNet ----------------------------------------------------------------------------------

struct ResNetLayout {
    std::int64_t depth;
    bool bottleneck;                     // Bottleneck (1x1, 3x3, 1x1; expansion 4) or BasicBlock
    std::array<std::int64_t, 4> blocks;  // per stage (He et al. Table 1)
};

constexpr std::array<ResNetLayout, 5> kResNets{{{18, false, {2, 2, 2, 2}},
                                                {34, false, {3, 4, 6, 3}},
                                                {50, true, {3, 4, 6, 3}},
                                                {101, true, {3, 4, 23, 3}},
                                                {152, true, {3, 8, 36, 3}}}};

}  // namespace

const std::vector<std::int64_t>& resnet_depths() {
    static const std::vector<std::int64_t> depths = [] {
        std::vector<std::int64_t> d;
        for (const auto& r : kResNets)
            d.push_back(r.depth);
        return d;
    }();
    return depths;
}

int add_resnet_trunk(GraphBuilder& b, int x, std::int64_t depth, const std::string& param_prefix) {
    const auto* layout = std::find_if(kResNets.begin(), kResNets.end(),
                                      [&](const ResNetLayout& r) { return r.depth == depth; });
    if (layout == kResNets.end()) {
        throw std::invalid_argument(
            fmt::format("model 'resnet': knob 'depth' must be one of {}, got {}",
                        fmt::join(resnet_depths(), ", "), depth));
    }
    const std::string pp = param_prefix.empty() ? std::string() : param_prefix + ".";
    const std::int64_t expansion = layout->bottleneck ? 4 : 1;
    x = conv(b, x, "conv1", pp + "conv1", square(64, 7, 2));
    x = scoped_op(b, "relu", "Relu", {x});
    {
        auto sc = b.scope("maxpool");
        x = max_pool(b, x, 3, 2, 1);
    }
    std::int64_t in_channels = 64;
    for (std::size_t stage = 0; stage < layout->blocks.size(); ++stage) {
        const std::string layer = fmt::format("layer{}", stage + 1);
        auto layer_scope = b.scope(layer);
        const std::int64_t planes = std::int64_t{64} << stage;
        for (std::int64_t i = 0; i < layout->blocks[stage]; ++i) {
            const std::string block = fmt::format("{}.{}", layer, i);
            auto block_scope = b.scope(block);
            const std::int64_t stride = stage > 0 && i == 0 ? 2 : 1;
            // The block's one ReLU module runs after each conv but the last and after the add.
            int relu_uses = 0;
            auto relu = [&](int t) {
                const std::string name =
                    relu_uses == 0 ? std::string("relu") : fmt::format("relu_{}", relu_uses);
                ++relu_uses;
                return scoped_op(b, name, "Relu", {t});
            };
            const std::string param = pp + block;
            int y = x;
            if (layout->bottleneck) {
                y = relu(conv(b, y, "conv1", param + ".conv1", square(planes, 1)));
                y = relu(conv(b, y, "conv2", param + ".conv2", square(planes, 3, stride)));
                y = conv(b, y, "conv3", param + ".conv3", square(planes * expansion, 1));
            } else {
                y = relu(conv(b, y, "conv1", param + ".conv1", square(planes, 3, stride)));
                y = conv(b, y, "conv2", param + ".conv2", square(planes, 3));
            }
            int identity = x;
            if (stride != 1 || in_channels != planes * expansion) {
                auto ds = b.scope("downsample");
                identity = conv(b, x, "downsample.0", param + ".downsample.0",
                                square(planes * expansion, 1, stride));
            }
            x = relu(b.op("Add", {y, identity}));
            in_channels = planes * expansion;
        }
    }
    return x;
}

Graph build_resnet(std::int64_t depth, const CnnConfig& c) {
    GraphBuilder b(fmt::format("resnet{}", depth));
    const int x = b.input("input", {c.batch, 3, c.image, c.image}, DType::f32);
    classifier_head(b, add_resnet_trunk(b, x, depth, ""), "avgpool", "", "fc", "fc", c.classes);
    return std::move(b.graph());
}

// --- Inception v3 ----------------------------------------------------------------------------

namespace {

class Inception {
public:
    explicit Inception(const CnnConfig& c) : c_(c), b_("inception_v3") {}

    Graph build() {
        int x = b_.input("input", {c_.batch, 3, c_.image, c_.image}, DType::f32);
        x = basic({}, x, "Conv2d_1a_3x3", {32, 3, 3, 2});
        x = basic({}, x, "Conv2d_2a_3x3", {32, 3, 3});
        x = basic({}, x, "Conv2d_2b_3x3", square(64, 3));
        x = scoped_max_pool(x, "maxpool1");
        x = basic({}, x, "Conv2d_3b_1x1", {80, 1, 1});
        x = basic({}, x, "Conv2d_4a_3x3", {192, 3, 3});
        x = scoped_max_pool(x, "maxpool2");
        x = inception_a(x, "Mixed_5b", 32);
        x = inception_a(x, "Mixed_5c", 64);
        x = inception_a(x, "Mixed_5d", 64);
        x = inception_b(x, "Mixed_6a");
        x = inception_c(x, "Mixed_6b", 128);
        x = inception_c(x, "Mixed_6c", 160);
        x = inception_c(x, "Mixed_6d", 160);
        x = inception_c(x, "Mixed_6e", 192);
        x = inception_d(x, "Mixed_7a");
        x = inception_e(x, "Mixed_7b");
        x = inception_e(x, "Mixed_7c");
        classifier_head(b_, x, "avgpool", "", "fc", "fc", c_.classes);
        return std::move(b_.graph());
    }

private:
    // BasicConv2d: conv (BN folded, eps 0.001) then F.relu in the module's own scope.
    int basic(const std::string& parent, int x, const std::string& name, const ConvSpec& s) {
        auto sc = b_.scope(name);
        const std::string param = parent.empty() ? name : parent + "." + name;
        return b_.op("Relu", {conv(b_, x, "conv", param + ".conv", s)});
    }

    int scoped_max_pool(int x, const std::string& scope) {
        auto sc = b_.scope(scope);
        return max_pool(b_, x, 3, 2, 0);
    }

    // F.avg_pool2d(x, 3, stride 1, padding 1) with count_include_pad: the exporter pads
    // explicitly with zeros and pools without pads.
    int avg_pool_3x3(int x) {
        if (pads_ < 0)
            pads_ = b_.weight("avg_pool2d.pads", {8}, DType::i64);
        Shape padded = b_.shape(x);
        padded[2] += 2;
        padded[3] += 2;
        const int p = b_.op_shaped("Pad", {x, pads_}, {{"mode", std::string("constant")}}, padded,
                                   b_.dtype(x));
        return b_.op("AveragePool", {p},
                     {{"ceil_mode", std::int64_t{0}},
                      {"kernel_shape", Ints{3, 3}},
                      {"pads", Ints{0, 0, 0, 0}},
                      {"strides", Ints{1, 1}}});
    }

    int concat(const std::vector<int>& parts) {
        return b_.op("Concat", parts, {{"axis", std::int64_t{1}}});
    }

    int inception_a(int x, const std::string& m, std::int64_t pool_features) {
        auto sc = b_.scope(m);
        const int b1 = basic(m, x, "branch1x1", {64, 1, 1});
        int b5 = basic(m, x, "branch5x5_1", {48, 1, 1});
        b5 = basic(m, b5, "branch5x5_2", square(64, 5));
        int b3 = basic(m, x, "branch3x3dbl_1", {64, 1, 1});
        b3 = basic(m, b3, "branch3x3dbl_2", square(96, 3));
        b3 = basic(m, b3, "branch3x3dbl_3", square(96, 3));
        const int bp = basic(m, avg_pool_3x3(x), "branch_pool", {pool_features, 1, 1});
        return concat({b1, b5, b3, bp});
    }

    int inception_b(int x, const std::string& m) {
        auto sc = b_.scope(m);
        const int b3 = basic(m, x, "branch3x3", {384, 3, 3, 2});
        int bd = basic(m, x, "branch3x3dbl_1", {64, 1, 1});
        bd = basic(m, bd, "branch3x3dbl_2", square(96, 3));
        bd = basic(m, bd, "branch3x3dbl_3", {96, 3, 3, 2});
        const int bp = max_pool(b_, x, 3, 2, 0);
        return concat({b3, bd, bp});
    }

    // Factorized 7x7: (1, 7) and (7, 1) kernels padded to keep the 17 x 17 grid.
    static ConvSpec row7(std::int64_t out) { return {out, 1, 7, 1, 0, 3}; }
    static ConvSpec col7(std::int64_t out) { return {out, 7, 1, 1, 3, 0}; }
    static ConvSpec row3(std::int64_t out) { return {out, 1, 3, 1, 0, 1}; }
    static ConvSpec col3(std::int64_t out) { return {out, 3, 1, 1, 1, 0}; }

    int inception_c(int x, const std::string& m, std::int64_t c7) {
        auto sc = b_.scope(m);
        const int b1 = basic(m, x, "branch1x1", {192, 1, 1});
        int b7 = basic(m, x, "branch7x7_1", {c7, 1, 1});
        b7 = basic(m, b7, "branch7x7_2", row7(c7));
        b7 = basic(m, b7, "branch7x7_3", col7(192));
        int bd = basic(m, x, "branch7x7dbl_1", {c7, 1, 1});
        bd = basic(m, bd, "branch7x7dbl_2", col7(c7));
        bd = basic(m, bd, "branch7x7dbl_3", row7(c7));
        bd = basic(m, bd, "branch7x7dbl_4", col7(c7));
        bd = basic(m, bd, "branch7x7dbl_5", row7(192));
        const int bp = basic(m, avg_pool_3x3(x), "branch_pool", {192, 1, 1});
        return concat({b1, b7, bd, bp});
    }

    int inception_d(int x, const std::string& m) {
        auto sc = b_.scope(m);
        int b3 = basic(m, x, "branch3x3_1", {192, 1, 1});
        b3 = basic(m, b3, "branch3x3_2", {320, 3, 3, 2});
        int b7 = basic(m, x, "branch7x7x3_1", {192, 1, 1});
        b7 = basic(m, b7, "branch7x7x3_2", row7(192));
        b7 = basic(m, b7, "branch7x7x3_3", col7(192));
        b7 = basic(m, b7, "branch7x7x3_4", {192, 3, 3, 2});
        const int bp = max_pool(b_, x, 3, 2, 0);
        return concat({b3, b7, bp});
    }

    // The module concatenates [b1, cat(2a, 2b), cat(3a, 3b), pool]; the exporter's peephole
    // pass flattens the nested torch.cat into one six-input Concat.
    int inception_e(int x, const std::string& m) {
        auto sc = b_.scope(m);
        const int b1 = basic(m, x, "branch1x1", {320, 1, 1});
        const int b3 = basic(m, x, "branch3x3_1", {384, 1, 1});
        const int b3a = basic(m, b3, "branch3x3_2a", row3(384));
        const int b3b = basic(m, b3, "branch3x3_2b", col3(384));
        int bd = basic(m, x, "branch3x3dbl_1", {448, 1, 1});
        bd = basic(m, bd, "branch3x3dbl_2", square(384, 3));
        const int bd3a = basic(m, bd, "branch3x3dbl_3a", row3(384));
        const int bd3b = basic(m, bd, "branch3x3dbl_3b", col3(384));
        const int bp = basic(m, avg_pool_3x3(x), "branch_pool", {192, 1, 1});
        return concat({b1, b3a, b3b, bd3a, bd3b, bp});
    }

    CnnConfig c_;
    GraphBuilder b_;
    int pads_ = -1;  // the shared [0, 0, 1, 1, 0, 0, 1, 1] of every avg_pool2d's Pad
};

}  // namespace

Graph build_inception_v3(const CnnConfig& config) {
    if (config.image < kInceptionV3MinImage) {
        throw std::invalid_argument(
            fmt::format("model 'inception_v3': knob 'image' must be >= {}, got {}",
                        kInceptionV3MinImage, config.image));
    }
    return Inception(config).build();
}

// --- MobileNetV2 -----------------------------------------------------------------------------

Graph build_mobilenet_v2(const CnnConfig& c) {
    GraphBuilder b("mobilenet_v2");
    const int relu6_min = b.scalar(0.0);
    const int relu6_max = b.scalar(6.0);
    // Conv2dNormActivation = Sequential(conv "0", bn "1", ReLU6 "2"), with scope `name`.
    auto conv_bn_relu6 = [&](int x, const std::string& name, const std::string& param,
                             const ConvSpec& s) {
        auto sc = b.scope(name);
        const int y = conv(b, x, name + ".0", param + ".0", s);
        return scoped_op(b, name + ".2", "Clip", {y, relu6_min, relu6_max});
    };
    int x = b.input("input", {c.batch, 3, c.image, c.image}, DType::f32);
    {
        auto features = b.scope("features");
        x = conv_bn_relu6(x, "features.0", "features.0", square(32, 3, 2));
        // Sandler et al. Table 2: expansion t, output channels c, repeats n, first stride s.
        struct Stage {
            std::int64_t t, c, n, s;
        };
        constexpr std::array<Stage, 7> kStages{{{1, 16, 1, 1},
                                                {6, 24, 2, 2},
                                                {6, 32, 3, 2},
                                                {6, 64, 4, 2},
                                                {6, 96, 3, 1},
                                                {6, 160, 3, 2},
                                                {6, 320, 1, 1}}};
        std::int64_t in_channels = 32;
        int index = 1;
        for (const Stage& st : kStages) {
            for (std::int64_t i = 0; i < st.n; ++i) {
                const std::string block = fmt::format("features.{}", index++);
                auto block_scope = b.scope(block);
                const std::int64_t stride = i == 0 ? st.s : 1;
                const std::int64_t hidden = in_channels * st.t;
                int y = x;
                {
                    // InvertedResidual.conv = Sequential([pw expand,] dw, pw-linear conv, bn).
                    auto conv_scope = b.scope("conv");
                    const std::string seq = block + ".conv";
                    int k = 0;
                    if (st.t != 1) {
                        y = conv_bn_relu6(y, fmt::format("conv.{}", k),
                                          fmt::format("{}.{}", seq, k), square(hidden, 1));
                        ++k;
                    }
                    y = conv_bn_relu6(y, fmt::format("conv.{}", k), fmt::format("{}.{}", seq, k),
                                      square(hidden, 3, stride, hidden));
                    ++k;
                    y = conv(b, y, fmt::format("conv.{}", k), fmt::format("{}.{}", seq, k),
                             square(st.c, 1));
                }
                if (stride == 1 && in_channels == st.c)
                    y = b.op("Add", {x, y});
                x = y;
                in_channels = st.c;
            }
        }
        const std::string last = fmt::format("features.{}", index);
        x = conv_bn_relu6(x, last, last, square(1280, 1));
    }
    classifier_head(b, x, "", "classifier", "classifier.1", "classifier.1", c.classes);
    return std::move(b.graph());
}

// --- MobileNet v1 ----------------------------------------------------------------------------

// As the torch module
//   features = Sequential(
//       Sequential(Conv2d(3, 32, 3, 2, 1, bias=False), BatchNorm2d(32), ReLU()),     # features.0
//       Sequential(Conv2d(c, c, 3, s, 1, groups=c, bias=False), BatchNorm2d(c), ReLU(),
//                  Conv2d(c, c', 1, bias=False), BatchNorm2d(c'), ReLU()) x 13)       #
//                  features.1-13
//   avgpool = AdaptiveAvgPool2d(1); torch.flatten(x, 1); fc = Linear(1024, classes)
// exports it: "/features/features.1/features.1.0/Conv" (depthwise), ".../features.1.3/Conv"
// (pointwise), weights "features.1.0.weight". tvm.relay.testing.mobilenet ends in a softmax;
// like the torchvision classifiers here, the graph ends at the logits.
Graph build_mobilenet_v1(const CnnConfig& c) {
    GraphBuilder b("mobilenet_v1");
    int x = b.input("input", {c.batch, 3, c.image, c.image}, DType::f32);
    {
        auto features = b.scope("features");
        auto conv_relu = [&](int t, const std::string& seq, int index, const ConvSpec& s) {
            const std::string conv_name = fmt::format("{}.{}", seq, index);
            t = conv(b, t, conv_name, conv_name, s);
            return scoped_op(b, fmt::format("{}.{}", seq, index + 2), "Relu", {t});
        };
        {
            auto stem = b.scope("features.0");
            x = conv_relu(x, "features.0", 0, square(32, 3, 2));
        }
        // Howard et al. Table 1: the depthwise separable layers' output channels and strides
        // (the stride is the depthwise conv's).
        struct Layer {
            std::int64_t out, stride;
        };
        constexpr std::array<Layer, 13> kLayers{{{64, 1},
                                                 {128, 2},
                                                 {128, 1},
                                                 {256, 2},
                                                 {256, 1},
                                                 {512, 2},
                                                 {512, 1},
                                                 {512, 1},
                                                 {512, 1},
                                                 {512, 1},
                                                 {512, 1},
                                                 {1024, 2},
                                                 {1024, 1}}};
        std::int64_t channels = 32;
        int index = 1;
        for (const Layer& l : kLayers) {
            const std::string block = fmt::format("features.{}", index++);
            auto block_scope = b.scope(block);
            x = conv_relu(x, block, 0, square(channels, 3, l.stride, channels));
            x = conv_relu(x, block, 3, square(l.out, 1));
            channels = l.out;
        }
    }
    classifier_head(b, x, "avgpool", "", "fc", "fc", c.classes);
    return std::move(b.graph());
}

// --- YOLOv3 ----------------------------------------------------------------------------------

namespace {

// darknet's yolov3.cfg (107 layers, numbered from 0) as eriklindernoren/PyTorch-YOLOv3 builds
// it: module_list[i] is a Sequential per cfg layer, a [convolutional] one holding conv_<i>,
// batch_norm_<i> and leaky_<i> (LeakyReLU(0.1)), an [upsample] one upsample_<i>
// (F.interpolate(scale_factor=2, mode="nearest")). Emitted as the export names it:
// "/module_list.0/conv_0/Conv", "/module_list.0/leaky_0/LeakyRelu", weights
// "module_list.0.conv_0.weight" and the folded "module_list.0.conv_0.bias". The forward does
// [shortcut] (x + an earlier output) and a two-layer [route] (torch.cat on channels) itself, so
// their Add and Concat are top-level ("/Add", "/Concat"); a one-layer [route] is just an
// earlier tensor and emits nothing. The graph ends at the three heads' raw 1x1 convs (layers
// 81, 93, 105: [N, 3 * (5 + classes), h, w], bias, no activation); the [yolo] layers' box
// decoding (sigmoid, exp, grid offsets) is left out.
//
// Darknet-53 (layers 0-74): a 3x3 conv to 32, then five stages of a stride-2 3x3 conv and
// residual blocks (1x1 to c/2, 3x3 to c, Add). Every 3x3 conv pads 1, so a stride-2 conv
// halves the map exactly when the image is a multiple of 32.
class YoloV3 {
public:
    explicit YoloV3(const CnnConfig& c) : c_(c), b_("yolo_v3") {}

    Graph build() {
        int x = b_.input("input", {c_.batch, 3, c_.image, c_.image}, DType::f32);
        x = conv_leaky(x, square(32, 3));  // layer 0
        struct Stage {
            std::int64_t channels, blocks;
        };
        constexpr std::array<Stage, 5> kStages{{{64, 1}, {128, 2}, {256, 8}, {512, 8}, {1024, 4}}};
        std::vector<int> stage_outputs;
        for (const Stage& st : kStages) {
            x = conv_leaky(x, square(st.channels, 3, 2));
            for (std::int64_t i = 0; i < st.blocks; ++i) {
                int y = conv_leaky(x, square(st.channels / 2, 1));
                y = conv_leaky(y, square(st.channels, 3));
                x = b_.op("Add", {y, x});  // [shortcut] from=-3
                ++layer_;
            }
            stage_outputs.push_back(x);  // layers 4, 11, 36, 61, 74
        }
        // Three scales: on the 1024-channel map (stride 32), then on the upsampled neck
        // concatenated with layer 61 (512 channels, stride 16) and with layer 36 (256, stride 8).
        const std::int64_t head_channels = 3 * (5 + c_.classes);
        for (int scale = 0; scale < 3; ++scale) {
            const std::int64_t width = std::int64_t{512} >> scale;
            if (scale > 0) {
                ++layer_;  // [route] layers=-4: the previous neck's fifth conv, `x`
                x = conv_leaky(x, square(width, 1));
                x = upsample(x);
                x = b_.op("Concat", {x, stage_outputs[4 - static_cast<std::size_t>(scale)]},
                          {{"axis", std::int64_t{1}}});  // [route] layers=-1, 61 (or 36)
                ++layer_;
            }
            // The neck: 1x1 to `width`, 3x3 to 2 * width, alternating, five convs.
            for (int i = 0; i < 5; ++i)
                x = conv_leaky(x, i % 2 == 0 ? square(width, 1) : square(2 * width, 3));
            const int y = conv_leaky(x, square(2 * width, 3));
            const int head = conv_layer(y, square(head_channels, 1), false);
            b_.graph().mark_output(head);
            ++layer_;  // [yolo]
        }
        return std::move(b_.graph());
    }

private:
    // The cfg's [convolutional] layer `layer_` (BatchNorm folded); LeakyReLU(0.1) when `leaky`.
    int conv_layer(int x, const ConvSpec& s, bool leaky) {
        const std::string module = fmt::format("module_list.{}", layer_);
        auto sc = b_.scope(module);
        const std::string name = fmt::format("conv_{}", layer_);
        int y = conv(b_, x, name, module + "." + name, s);
        if (leaky)
            y = scoped_op(b_, fmt::format("leaky_{}", layer_), "LeakyRelu", {y}, {{"alpha", 0.1}});
        ++layer_;
        return y;
    }
    int conv_leaky(int x, const ConvSpec& s) { return conv_layer(x, s, true); }

    // [upsample] stride=2: F.interpolate(scale_factor=2, mode="nearest") exports (opset 13) as
    // Resize(X, roi absent, scales [1, 1, 2, 2]). Resize's op-table row has no shape rule (its
    // output depends on the values of scales or sizes), so the output shape is declared, as
    // Inception's Pad is. The absent roi is the zero-element placeholder the ONNX importer
    // gives an absent optional input; scales is a shared constant, not a parameter.
    int upsample(int x) {
        if (scales_ < 0) {
            roi_ = b_.weight("<absent>", {0});
            scales_ = b_.weight("upsample.scales", {4});
        }
        const std::string module = fmt::format("module_list.{}", layer_);
        auto sc = b_.scope(module);
        auto up = b_.scope(fmt::format("upsample_{}", layer_));
        Shape shape = b_.shape(x);
        shape[2] *= 2;
        shape[3] *= 2;
        const int y = b_.op_shaped("Resize", {x, roi_, scales_},
                                   {{"coordinate_transformation_mode", std::string("asymmetric")},
                                    {"cubic_coeff_a", -0.75},
                                    {"mode", std::string("nearest")},
                                    {"nearest_mode", std::string("floor")}},
                                   shape, b_.dtype(x));
        ++layer_;
        return y;
    }

    CnnConfig c_;
    GraphBuilder b_;
    int layer_ = 0;  // the cfg layer the next op belongs to
    int roi_ = -1;
    int scales_ = -1;
};

}  // namespace

Graph build_yolo_v3(const CnnConfig& config) {
    if (config.image < kYoloV3Stride || config.image % kYoloV3Stride != 0) {
        throw std::invalid_argument(
            fmt::format("model 'yolo_v3': knob 'image' must be a positive multiple of {} (the "
                        "backbone's total stride), got {}",
                        kYoloV3Stride, config.image));
    }
    return YoloV3(config).build();
}

}  // namespace hetsim::sim::workloads
