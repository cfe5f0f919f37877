// `hetsim dataset build`: a set of hetsim JSON graphs from a spec (configs/datasets/*.yaml), with
// a manifest and a seeded train/validation/test split, for training placers (mcm2022 §5.1's
// pre-training set) and for stress runs.
//
// Spec:
//   name: mcm_pretrain
//   seed: 1
//   nodes: [10, 1000]                             # optional: every graph's op count in range
//   split: {train: 66, validation: 5, test: 16}   # whole numbers adding up to the graph count,
//                                                 # or fractions: proportions (largest-remainder
//                                                 # rounding)
//   sources:
//     - {model: lstm, knobs: {layers: [1, 2], hidden: 128}}   # every combination, one graph each
//     - {random_dag: {count: 20, knobs: {nodes: [20, 300], width: [2, 8]}}}  # [min, max] draws
//     - {onnx: model.onnx, dims: {batch: 1}}                  # relative to the spec
//     - {export: resnet18, dims: {batch: 1}}                  # tools/export_models.py, then ONNX
// Output: DIR/graphs/<name>.json and DIR/manifest.json (per graph: name, file, source, nodes,
// edges, flops, param_bytes, ideals up to kDatasetIdealsLimit or null, split). The same spec and
// seed give the same manifest and graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace hetsim::app {

struct DatasetRequest {
    std::string spec;                  // dataset YAML
    std::string out;                   // output directory
    std::optional<std::int64_t> seed;  // overrides the spec's seed
};

// Ideals are counted "where cheap": up to this many, null in the manifest beyond.
constexpr std::size_t kDatasetIdealsLimit = 100'000;

// The most graphs a spec may make, counted from the sources (a random_dag's count, the product
// of a model's knob value lists) before any graph is built: a thousand times mcm2022's 87; of
// 20-40 ops, 13 minutes and 800 MB (a count of 10^9 wrote files until the disk filled).
constexpr std::int64_t kDatasetGraphLimit = 100'000;

// Builds the dataset; returns a summary to print. Skipped sources (an export without
// tools/export_models.py or torch) are reported on `warnings`. Throws sim::InputError naming
// the spec file and YAML path for a bad spec.
std::string build_dataset(const DatasetRequest& request, std::ostream& warnings);

}  // namespace hetsim::app
