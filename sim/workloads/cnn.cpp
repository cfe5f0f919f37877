// CNN classifiers as torchvision 0.14 defines them and torch 1.13 exports them in eval mode
// (opset 13, constant folding on):
//  * ResNet: He et al., "Deep Residual Learning for Image Recognition", CVPR 2016, Table 1;
//    torchvision/models/resnet.py (v1.5: a Bottleneck downsamples in its 3x3 conv).
//  * Inception v3: Szegedy et al., "Rethinking the Inception Architecture for Computer Vision",
//    CVPR 2016; torchvision/models/inception.py with aux_logits off (eval) and
//    transform_input=False.
//  * MobileNetV2: Sandler et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks",
//    CVPR 2018, Table 2; torchvision/models/mobilenetv2.py with width_mult 1.0.
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

}  // namespace hetsim::sim::workloads
