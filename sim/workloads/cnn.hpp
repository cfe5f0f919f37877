// `resnet`, `inception_v3` and `mobilenet_v2`: the torchvision 0.14 classifiers (issue 12; DUET's
// Wide-and-Deep uses a ResNet-18, EOP places Inception v3 and MobileNet) in the form
// torch.onnx.export(model.eval(), x, opset_version=13, do_constant_folding=True) writes with
// torch 1.13: every BatchNormalization is folded into the Conv before it, so a Conv has a bias.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

class GraphBuilder;

struct CnnConfig {
    std::int64_t batch = 1;
    std::int64_t image = 224;  // input height = width
    std::int64_t classes = 1000;
};

// The depths torchvision defines (resnet18 ... resnet152).
const std::vector<std::int64_t>& resnet_depths();

// The smallest image Inception v3's unpadded stem and grid reductions accept (torchvision
// documents 75 x 75); smaller images leave a 3x3 window larger than its input.
constexpr std::int64_t kInceptionV3MinImage = 75;

// Throws std::invalid_argument naming the knob and the allowed depths for any other depth.
Graph build_resnet(std::int64_t depth, const CnnConfig& config);
// ResNet's convolutional trunk (stem, max pool, the four stages) on the NCHW image `x`,
// returning layer4's output; parameters are named "<param_prefix>.layer1.0.conv1.weight"
// (no prefix: torchvision's names). DUET's Wide-and-Deep embeds it.
int add_resnet_trunk(GraphBuilder& b, int x, std::int64_t depth, const std::string& param_prefix);
Graph build_inception_v3(const CnnConfig& config);
Graph build_mobilenet_v2(const CnnConfig& config);

}  // namespace hetsim::sim::workloads
