// `resnet`, `inception_v3` and `mobilenet_v2`: the torchvision 0.14 classifiers (issue 12; DUET's
// Wide-and-Deep uses a ResNet-18, EOP places Inception v3 and MobileNet) in the form
// torch.onnx.export(model.eval(), x, opset_version=13, do_constant_folding=True) writes with
// torch 1.13: every BatchNormalization is folded into the Conv before it, so a Conv has a bias.
// `mobilenet_v1` (Howard et al. 2017, the MobileNet of TVM's testing zoo that EOP places) and
// `yolo_v3` (Redmon and Farhadi 2018, Darknet-53 and three detection heads; xu2022 Table 3) are
// built in the same exported form.
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
Graph build_mobilenet_v1(const CnnConfig& config);

// YOLOv3 downsamples by 32 (five stride-2 convs), and its heads concatenate upsampled maps
// with backbone maps, so the image must be a multiple of this.
constexpr std::int64_t kYoloV3Stride = 32;
// The three raw head outputs [N, 3 * (5 + classes), image / s, image / s] for s = 32, 16, 8;
// `config.classes` is the number of object classes (COCO: 80). Throws std::invalid_argument
// when the image is not a positive multiple of kYoloV3Stride.
Graph build_yolo_v3(const CnnConfig& config);

}  // namespace hetsim::sim::workloads
