// PyTorch exports end to end (issue 12): tools/export_models.py exports a model at test time
// with an independent count of its compute ops made from the PyTorch modules' shapes
// (--reference); the import must have as many nodes as the file, the same Conv/Gemm/MatMul/
// LSTM/GRU ops with the same FLOPs one by one, and `hetsim run` must place and simulate it.
// Skipped, with a message, where /usr/bin/python3 has no torch (tools/setup.sh installs it).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "importers/onnx_import.hpp"
#include "tests/fixtures/cli_fixtures.hpp"
#include "tests/fixtures/model_zoo_fixtures.hpp"

namespace hetsim::importers {
namespace {

using ::testing::HasSubstr;

bool torch_available() {
    static const bool available =
        std::system("/usr/bin/python3 -c 'import torch, torchvision, onnx' >/dev/null 2>&1") == 0;
    return available;
}

struct ExportCase {
    std::string model;
    std::vector<std::string> knobs;  // --set key=value
};

std::ostream& operator<<(std::ostream& out, const ExportCase& c) {
    return out << c.model;
}

struct ComputeOp {
    std::string kind;
    double flops = 0.0;
    bool operator<(const ComputeOp& o) const {
        return kind != o.kind ? kind < o.kind : flops < o.flops;
    }
};

class PytorchExport : public ::testing::TestWithParam<ExportCase> {};

TEST_P(PytorchExport, ImportMatchesTheIndependentCountAndRuns) {
    if (!torch_available())
        GTEST_SKIP() << "/usr/bin/python3 lacks torch/torchvision/onnx (tools/setup.sh installs "
                        "python3-torch, python3-torchvision and python3-onnx)";
    const ExportCase& c = GetParam();
    hetsim::testing::TempDir dir;
    const auto onnx_file = dir.path() / (c.model + ".onnx");
    const auto ref_file = dir.path() / (c.model + ".ref.json");
    std::string command =
        fmt::format("/usr/bin/python3 {}/tools/export_models.py {} --out {} --reference {}",
                    HETSIM_SOURCE_DIR, c.model, onnx_file.string(), ref_file.string());
    for (const auto& k : c.knobs)
        command += " --set " + k;
    const auto exported = hetsim::testing::run_command(command);
    ASSERT_EQ(exported.exit_code, 0) << command << "\n" << exported.output;
    const auto reference = nlohmann::json::parse(hetsim::testing::read_file(ref_file));

    OnnxImportOptions options;
    // The file leaves the batch (and sequence) axes symbolic; the reference says which and
    // the values it counted at.
    for (const auto& name : reference.at("symbolic_dims"))
        options.dims[name] = reference.at("dims").at(name.get<std::string>()).get<std::int64_t>();
    const auto imported = import_onnx(onnx_file.string(), options);

    // Every node of the file is an op or was folded.
    EXPECT_EQ(imported.onnx_nodes, reference.at("onnx_nodes").get<int>());
    EXPECT_EQ(imported.graph.op_count() + imported.folded_nodes, imported.onnx_nodes);

    // The compute ops, one by one (sorted by kind and FLOPs: names differ between the module
    // tree and the exporter's node names).
    std::vector<ComputeOp> ours;
    for (const auto& op : imported.graph.ops()) {
        if (hetsim::testing::is_compute_op(op.type))
            ours.push_back({op.type, op.flops});
    }
    std::vector<ComputeOp> theirs;
    for (const auto& op : reference.at("compute_ops"))
        theirs.push_back({op.at("kind").get<std::string>(), op.at("flops").get<double>()});
    std::sort(ours.begin(), ours.end());
    std::sort(theirs.begin(), theirs.end());
    ASSERT_EQ(ours.size(), theirs.size()) << "compute op count";
    for (std::size_t i = 0; i < ours.size(); ++i) {
        EXPECT_EQ(ours[i].kind, theirs[i].kind) << "compute op " << i;
        EXPECT_NEAR(ours[i].flops, theirs[i].flops, 1e-9 * theirs[i].flops)
            << ours[i].kind << " #" << i;
    }

    // Placed and simulated from a study.
    std::string dims;
    for (const auto& [name, value] : options.dims)
        dims += fmt::format("{}{}: {}", dims.empty() ? "" : ", ", name, value);
    const auto study = dir.write(
        "study.yaml", fmt::format("study: export\n"
                                  "platform: {}/configs/platforms/pcie_accelerators.yaml\n"
                                  "workload: {{onnx: {}, dims: {{{}}}}}\n"
                                  "baseline: single:CPU0\n"
                                  "placers: [random]\n",
                                  HETSIM_SOURCE_DIR, onnx_file.string(), dims));
    const auto run = hetsim::testing::run_hetsim(
        fmt::format("run {} --out {}", study.string(), (dir.path() / "out").string()));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_THAT(run.output, HasSubstr(fmt::format("({} ops", imported.graph.op_count())));
}

// Small settings: every export takes a few seconds.
INSTANTIATE_TEST_SUITE_P(
    Models, PytorchExport,
    ::testing::Values(ExportCase{"resnet18", {"image=64"}},
                      ExportCase{"mobilenet_v2", {"image=64"}},
                      ExportCase{"squeezenet1_0", {"image=64"}},
                      ExportCase{"bert",
                                 {"layers=1", "hidden=64", "heads=2", "ffn=128", "seq_len=8",
                                  "vocab=100", "max_positions=16"}},
                      ExportCase{"lstm", {"layers=2", "hidden=32", "input=16", "seq_len=4"}},
                      ExportCase{"gru", {"layers=2", "hidden=32", "input=16", "seq_len=4"}},
                      ExportCase{"rnn", {"layers=2", "hidden=32", "input=16", "seq_len=4"}}),
    [](const ::testing::TestParamInfo<ExportCase>& info) { return info.param.model; });

// A dataset spec's `export:` source runs the exporter and imports the file.
TEST(PytorchExportDataset, ExportSourcesBecomeGraphs) {
    if (!torch_available())
        GTEST_SKIP() << "/usr/bin/python3 lacks torch/torchvision/onnx";
    hetsim::testing::TempDir dir;
    const auto spec = dir.write("spec.yaml",
                                "name: e\nseed: 1\nsplit: {train: 1}\n"
                                "sources:\n  - {export: squeezenet1_1, dims: {batch: 1}}\n");
    const auto out = hetsim::testing::run_hetsim(fmt::format(
        "dataset build --spec {} --out {}", spec.string(), (dir.path() / "ds").string()));
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto manifest =
        nlohmann::json::parse(hetsim::testing::read_file(dir.path() / "ds" / "manifest.json"));
    ASSERT_EQ(manifest.at("graphs").size(), 1U);
    // SqueezeNet 1.1: 26 Conv, 26 Relu, 3 MaxPool, 8 Concat, GlobalAveragePool and Flatten
    // once the exporter's Dropout is gone in eval mode.
    EXPECT_EQ(manifest.at("graphs")[0].at("nodes"), 65);
}

}  // namespace
}  // namespace hetsim::importers
