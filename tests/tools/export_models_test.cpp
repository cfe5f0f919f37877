// tools/export_models.py, run at test time: its reference count of compute ops agrees with the
// ONNX graph it exported, and hetsim's generators agree with it (issue 12: compute-op count
// exactly, FLOPs within 2 %). Skipped when /usr/bin/python3 lacks torch, torchvision or onnx.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/cli_fixtures.hpp"
#include "tests/fixtures/model_zoo_fixtures.hpp"

namespace hetsim::tools {
namespace {

using hetsim::testing::read_file;
using hetsim::testing::run_command;
using hetsim::testing::TempDir;
using Knobs = sim::workloads::Knobs;

const std::string python = "/usr/bin/python3";
const std::string script = std::string(HETSIM_SOURCE_DIR) + "/tools/export_models.py";

bool have_torch() {
    static const bool ok =
        run_command(python + " -c 'import torch, torchvision, onnx'").exit_code == 0;
    return ok;
}

#define REQUIRE_TORCH()                                                            \
    if (!have_torch())                                                             \
    GTEST_SKIP() << python                                                         \
                 << " cannot import torch, torchvision and onnx "                  \
                    "(tools/setup.sh installs python3-torch, python3-torchvision " \
                    "and python3-onnx)"

std::string set_args(const Knobs& knobs) {
    std::string args;
    for (const auto& [k, v] : knobs)
        args += " --set " + k + "=" + std::to_string(v);
    return args;
}

struct Export {
    nlohmann::json reference;
    std::map<std::string, int> onnx_ops;  // node count by op type, read back from the file
};

// Exports `name` into `dir` with --reference and counts the ONNX nodes by op type.
Export export_model(const TempDir& dir, const std::string& name, const Knobs& knobs,
                    const std::string& extra = "") {
    const auto onnx_path = dir.path() / (name + ".onnx");
    const auto ref_path = dir.path() / (name + ".json");
    const auto out = run_command(python + " " + script + " " + name + set_args(knobs) + " --out " +
                                 onnx_path.string() + " --reference " + ref_path.string() + extra);
    EXPECT_EQ(out.exit_code, 0) << out.output;
    Export e;
    const std::string ref_text = read_file(ref_path);
    EXPECT_FALSE(ref_text.empty()) << "no reference JSON at " << ref_path;
    if (ref_text.empty())
        return e;
    e.reference = nlohmann::json::parse(ref_text);
    const auto counted = run_command(
        python +
        " -c 'import collections, json, onnx, sys; g = onnx.load(sys.argv[1], "
        "load_external_data=False).graph; print(json.dumps(collections.Counter(n.op_type for n "
        "in g.node)))' " +
        onnx_path.string());
    EXPECT_EQ(counted.exit_code, 0) << counted.output;
    const nlohmann::json by_type = nlohmann::json::parse(counted.output);
    for (const auto& [type, n] : by_type.items())
        e.onnx_ops[type] = n.get<int>();
    return e;
}

// The reference's compute kinds are exactly the export's compute nodes; its node count is the
// file's.
void expect_reference_matches_onnx(const Export& e) {
    std::map<std::string, int> reference_kinds;
    double sum = 0.0;
    for (const auto& op : e.reference.at("compute_ops")) {
        ++reference_kinds[op.at("kind").get<std::string>()];
        sum += op.at("flops").get<double>();
    }
    std::map<std::string, int> onnx_kinds;
    int nodes = 0;
    for (const auto& [type, n] : e.onnx_ops) {
        nodes += n;
        if (hetsim::testing::is_compute_op(type))
            onnx_kinds[type] = n;
    }
    EXPECT_EQ(reference_kinds, onnx_kinds);
    EXPECT_EQ(e.reference.at("onnx_nodes").get<int>(), nodes);
    EXPECT_DOUBLE_EQ(e.reference.at("compute_flops").get<double>(), sum);
    EXPECT_GT(e.reference.at("param_bytes").get<double>(), 0.0);
}

// hetsim's generator with the same knobs agrees with the reference: compute ops exactly,
// compute FLOPs within 2 %.
void expect_generator_matches(const std::string& model, Knobs knobs, const Export& e) {
    const auto c = hetsim::testing::compute_ops(sim::workloads::build_model(model, knobs));
    const double reference = e.reference.at("compute_flops").get<double>();
    EXPECT_EQ(c.total_count, static_cast<int>(e.reference.at("compute_ops").size())) << model;
    EXPECT_NEAR(c.total_flops, reference, 0.02 * reference) << model;
}

void check_recurrent(const std::string& model) {
    TempDir dir;
    const Knobs knobs{{"layers", 2}, {"hidden", 16}, {"input", 8}, {"seq_len", 4}, {"batch", 2}};
    const Export e = export_model(dir, model, knobs);
    expect_reference_matches_onnx(e);
    EXPECT_EQ(e.reference.at("dims").at("seq").get<int>(), 4);
    EXPECT_EQ(e.reference.at("dims").at("batch").get<int>(), 2);
    Knobs fused = knobs;
    fused["fused"] = 1;
    expect_generator_matches(model, fused, e);
    // Unrolled, the same FLOPs (within 2 %) spread over 2 MatMuls per cell.
    const sim::Graph unrolled = sim::workloads::build_model(model, knobs);
    double flops = 0.0;
    for (const sim::Op& op : unrolled.ops())
        flops += op.flops;
    const double reference = e.reference.at("compute_flops").get<double>();
    EXPECT_NEAR(flops, reference, 0.02 * reference);
}

TEST(ExportModels, Lstm) {
    REQUIRE_TORCH();
    check_recurrent("lstm");
}

TEST(ExportModels, Gru) {
    REQUIRE_TORCH();
    check_recurrent("gru");
}

TEST(ExportModels, Rnn) {
    REQUIRE_TORCH();
    check_recurrent("rnn");
}

TEST(ExportModels, Bert) {
    REQUIRE_TORCH();
    TempDir dir;
    const Knobs knobs{{"layers", 1}, {"hidden", 64}, {"heads", 2}, {"ffn", 128}, {"seq_len", 8}};
    const Export e = export_model(dir, "bert", knobs);
    expect_reference_matches_onnx(e);
    EXPECT_EQ(e.onnx_ops.at("MatMul"), 8);  // 6 projections, 2 attention products
    EXPECT_EQ(e.onnx_ops.at("Gemm"), 2);    // pooler, classifier
    expect_generator_matches("bert", knobs, e);
}

// At opset 17 torch exports each nn.LayerNorm as one LayerNormalization; the generator's
// opset=17 graph has the same compute ops, type by type.
TEST(ExportModels, BertAtOpsetSeventeen) {
    REQUIRE_TORCH();
    TempDir dir;
    const Knobs knobs{{"layers", 1}, {"hidden", 64}, {"heads", 2}, {"ffn", 128}, {"seq_len", 8}};
    const Export e = export_model(dir, "bert", knobs, " --opset 17");
    Knobs with_opset = knobs;
    with_opset["opset"] = 17;
    const sim::Graph graph = sim::workloads::build_model("bert", with_opset);
    std::map<std::string, int> generated;
    for (const sim::Op& op : graph.ops())
        ++generated[op.type];
    EXPECT_EQ(e.onnx_ops.at("LayerNormalization"), 3);  // embeddings, attention, output
    for (const char* type : {"LayerNormalization", "MatMul", "Gemm", "Add", "Mul", "Div", "Sub",
                             "Erf", "Softmax", "Tanh"})
        EXPECT_EQ(generated[type], e.onnx_ops.at(type)) << type;
    EXPECT_EQ(generated.count("ReduceMean"), 0u);
    EXPECT_EQ(e.onnx_ops.count("ReduceMean"), 0u);
}

// Exports a DUET model and compares it with the generator at the same knobs, fused.
Export check_duet(const TempDir& dir, const std::string& model, const Knobs& knobs) {
    Export e = export_model(dir, model, knobs);
    expect_reference_matches_onnx(e);
    Knobs fused = knobs;
    fused["fused"] = 1;
    expect_generator_matches(model, fused, e);
    return e;
}

TEST(ExportModels, WideAndDeep) {
    REQUIRE_TORCH();
    TempDir dir;
    const Export e =
        check_duet(dir, "wide_and_deep",
                   {{"image", 32}, {"rnn_seq_len", 4}, {"rnn_embed", 8}, {"rnn_hidden", 16}});
    EXPECT_EQ(e.onnx_ops.at("Conv"), 20);  // ResNet-18
}

TEST(ExportModels, SiameseLstm) {
    REQUIRE_TORCH();
    TempDir dir;
    const Export e =
        check_duet(dir, "siamese_lstm", {{"seq_len", 4}, {"hidden", 16}, {"input", 8}});
    EXPECT_EQ(e.onnx_ops.at("LSTM"), 4);  // 2 branches x 2 layers
}

TEST(ExportModels, MtDnn) {
    REQUIRE_TORCH();
    TempDir dir;
    const Export e = check_duet(dir, "mt_dnn",
                                {{"layers", 1},
                                 {"hidden", 64},
                                 {"heads", 2},
                                 {"ffn", 128},
                                 {"seq_len", 8},
                                 {"vocab", 100},
                                 {"lstm_hidden", 16},
                                 {"tasks", 3}});
    EXPECT_EQ(e.onnx_ops.at("LSTM"), 6);     // 3 tasks x 2 layers
    EXPECT_EQ(e.onnx_ops.at("MatMul"), 11);  // 8 in the encoder layer, a tag scorer per task
}

TEST(ExportModels, TorchvisionResNet18FoldsBatchNormIntoConv) {
    REQUIRE_TORCH();
    TempDir dir;
    const Export e = export_model(dir, "resnet18", {{"image", 64}});
    expect_reference_matches_onnx(e);
    EXPECT_EQ(e.onnx_ops.at("Conv"), 20);
    EXPECT_EQ(e.onnx_ops.count("BatchNormalization"), 0u);
}

// The CNN generators against torchvision's exports (issue 12 item 3): compute ops exactly,
// compute FLOPs within 2 % (with BatchNorm folded the Conv FLOPs agree exactly).
TEST(ExportModels, CnnGeneratorsMatchTorchvisionExports) {
    REQUIRE_TORCH();
    TempDir dir;
    struct Pair {
        std::string generator;
        Knobs generator_knobs;
        std::string export_name;
        Knobs export_knobs;
    };
    const std::vector<Pair> pairs{
        {"resnet", {{"depth", 18}, {"image", 64}}, "resnet18", {{"image", 64}}},
        {"resnet",
         {{"depth", 50}, {"image", 64}, {"batch", 2}},
         "resnet50",
         {{"image", 64}, {"batch", 2}}},
        {"mobilenet_v2", {{"image", 96}}, "mobilenet_v2", {{"image", 96}}},
        {"inception_v3", {}, "inception_v3", {}},
    };
    for (const auto& p : pairs) {
        SCOPED_TRACE(p.export_name);
        const Export e = export_model(dir, p.export_name, p.export_knobs);
        expect_reference_matches_onnx(e);
        expect_generator_matches(p.generator, p.generator_knobs, e);
    }
}

// The first graph input's dimensions as the file declares them: "seq" for a symbolic one.
std::string input_dims(const std::filesystem::path& onnx_path) {
    return run_command(python +
                       " -c 'import onnx, sys; g = onnx.load(sys.argv[1], "
                       "load_external_data=False).graph; print(\",\".join(d.dim_param or "
                       "str(d.dim_value) for d in g.input[0].type.tensor_type.shape.dim))' " +
                       onnx_path.string())
        .output;
}

TEST(ExportModels, SymbolicDimsStaticAndExternalData) {
    REQUIRE_TORCH();
    TempDir dir;
    const Knobs knobs{{"hidden", 32}, {"input", 4}, {"seq_len", 2}};
    const Export dynamic = export_model(dir, "gru", knobs);
    EXPECT_EQ(input_dims(dir.path() / "gru.onnx"), "seq,batch,4\n");
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "gru.onnx.data"));
    const Export fixed = export_model(dir, "gru", knobs, " --static --external-data");
    expect_reference_matches_onnx(fixed);
    EXPECT_EQ(input_dims(dir.path() / "gru.onnx"), "2,1,4\n");
    // R [1, 96, 32] (12 KiB) is over onnx's 1 KiB threshold for external tensors.
    EXPECT_GT(std::filesystem::file_size(dir.path() / "gru.onnx.data"), 12000u);
    EXPECT_EQ(dynamic.reference.at("compute_flops"), fixed.reference.at("compute_flops"));
}

TEST(ExportModels, ListsEveryModelAndRejectsBadKnobs) {
    REQUIRE_TORCH();
    const auto list = run_command(python + " " + script + " --list");
    ASSERT_EQ(list.exit_code, 0) << list.output;
    for (const char* name : {"resnet18\t", "mobilenet_v2\t", "inception_v3\t", "bert\t", "lstm\t",
                             "gru\t", "rnn\t", "wide_and_deep\t", "siamese_lstm\t", "mt_dnn\t"})
        EXPECT_THAT(list.output, ::testing::HasSubstr(name));
    TempDir dir;
    const auto bad = run_command(python + " " + script + " lstm --set hiden=3 --out " +
                                 (dir.path() / "x.onnx").string());
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_THAT(bad.output, ::testing::HasSubstr("--set hiden=3: model 'lstm' knobs are"));
}

}  // namespace
}  // namespace hetsim::tools
