// ONNX import on models written here with the ONNX protobuf API: exact shapes, FLOPs and
// weight bytes by hand, constant folding, dims binding, unknown ops, external data and every
// bad-file error. (PyTorch exports are checked end to end in tests/tools/.)
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "importers/onnx_import.hpp"
#include "sim/op_table.hpp"
#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::importers {
namespace {

namespace fs = std::filesystem;

using ::testing::HasSubstr;
using Dim = std::variant<std::int64_t, std::string>;

onnx::ModelProto new_model(std::int64_t opset = 13) {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("hetsim-test");
    auto* imp = m.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    m.mutable_graph()->set_name("g");
    return m;
}

void set_type(onnx::ValueInfoProto* v, const std::string& name, const std::vector<Dim>& dims,
              int elem = onnx::TensorProto::FLOAT) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* shape = t->mutable_shape();
    for (const auto& d : dims) {
        auto* dim = shape->add_dim();
        if (std::holds_alternative<std::int64_t>(d))
            dim->set_dim_value(std::get<std::int64_t>(d));
        else
            dim->set_dim_param(std::get<std::string>(d));
    }
}

void add_input(onnx::ModelProto& m, const std::string& name, const std::vector<Dim>& dims) {
    set_type(m.mutable_graph()->add_input(), name, dims);
}

void add_output(onnx::ModelProto& m, const std::string& name) {
    auto* v = m.mutable_graph()->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    v->mutable_type()->mutable_tensor_type()->mutable_shape();  // rank unknown until inferred
}

onnx::TensorProto* add_weight(onnx::ModelProto& m, const std::string& name,
                              const std::vector<std::int64_t>& dims) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    std::int64_t n = 1;
    for (auto d : dims) {
        t->add_dims(d);
        n *= d;
    }
    t->set_raw_data(std::string(static_cast<std::size_t>(n) * 4, '\0'));
    return t;
}

onnx::NodeProto* add_node(onnx::ModelProto& m, const std::string& type,
                          const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name) {
    auto* n = m.mutable_graph()->add_node();
    n->set_op_type(type);
    n->set_name(name);
    for (const auto& i : inputs)
        n->add_input(i);
    for (const auto& o : outputs)
        n->add_output(o);
    return n;
}

// A Constant node holding int64 values (rank 0 when `scalar`).
void add_int_constant(onnx::ModelProto& m, const std::string& out,
                      const std::vector<std::int64_t>& values, bool scalar = false) {
    auto* n = add_node(m, "Constant", {}, {out}, out + "_node");
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar)
        t->add_dims(static_cast<std::int64_t>(values.size()));
    for (auto v : values)
        t->add_int64_data(v);
}

std::string save(const onnx::ModelProto& m, const std::filesystem::path& file) {
    std::ofstream out(file, std::ios::binary);
    m.SerializeToOstream(&out);
    return file.string();
}

// y = Relu(x[batch,16] W[16,8] + b[8])
onnx::ModelProto dense_model() {
    auto m = new_model();
    add_input(m, "x", {std::string("batch"), std::int64_t{16}});
    add_weight(m, "W", {16, 8});
    add_weight(m, "b", {8});
    add_node(m, "MatMul", {"x", "W"}, {"xw"}, "/fc/MatMul");
    add_node(m, "Add", {"xw", "b"}, {"xwb"}, "/fc/Add");
    add_node(m, "Relu", {"xwb"}, {"y"}, "/act/Relu");
    add_output(m, "y");
    return m;
}

TEST(OnnxImport, BindsDimsAndCountsFlopsAndWeightsExactly) {
    hetsim::testing::TempDir dir;
    const auto file = save(dense_model(), dir.path() / "dense.onnx");
    const auto r = import_onnx(file, {{{"batch", 4}}, UnknownOps::error});
    const sim::Graph& g = r.graph;
    ASSERT_EQ(g.op_count(), 3);
    EXPECT_EQ(r.onnx_nodes, 3);
    EXPECT_EQ(r.folded_nodes, 0);
    EXPECT_EQ(r.opset, 13);
    EXPECT_EQ(g.name(), "dense");
    const auto& mm = g.op(*g.find_op("/fc/MatMul"));
    EXPECT_DOUBLE_EQ(mm.flops, 2.0 * 4 * 8 * 16);
    EXPECT_DOUBLE_EQ(g.op(*g.find_op("/fc/Add")).flops, 4.0 * 8);
    EXPECT_EQ(g.tensor(*g.find_tensor("y")).shape, (sim::Shape{4, 8}));
    EXPECT_TRUE(g.tensor(*g.find_tensor("y")).is_graph_output);
    EXPECT_EQ(g.tensor(*g.find_tensor("x")).kind, sim::TensorKind::input);
    EXPECT_EQ(g.tensor(*g.find_tensor("W")).kind, sim::TensorKind::weight);
    EXPECT_EQ(g.total_weight_bytes(), (16 * 8 + 8) * 4);
    // MatMul reads x (4x16) and W (16x8) and writes 4x8 floats.
    EXPECT_EQ(mm.bytes_read, (4 * 16 + 16 * 8) * 4);
    EXPECT_EQ(mm.bytes_written, 4 * 8 * 4);
}

TEST(OnnxImport, UnboundAndUnknownDimsAreErrorsNamingThem) {
    hetsim::testing::TempDir dir;
    const auto file = save(dense_model(), dir.path() / "dense.onnx");
    try {
        import_onnx(file, {});
        FAIL() << "expected an error";
    } catch (const OnnxImportError& e) {
        EXPECT_THAT(e.what(), HasSubstr("dense.onnx"));
        EXPECT_THAT(e.what(), HasSubstr("symbolic dimension 'batch' (input 'x', axis 0)"));
    }
    try {
        import_onnx(file, {{{"batch", 2}, {"seq", 8}}, UnknownOps::error});
        FAIL() << "expected an error";
    } catch (const OnnxImportError& e) {
        EXPECT_THAT(e.what(), HasSubstr("'seq' is not a symbolic dimension"));
        EXPECT_THAT(e.what(), HasSubstr("they have: batch"));
    }
    EXPECT_THROW(import_onnx(file, {{{"batch", 0}}, UnknownOps::error}), OnnxImportError);
}

// PyTorch's dynamic-shape pattern: Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [2, 3])).
TEST(OnnxImport, FoldsShapeArithmeticAndLiftsReshapeTarget) {
    auto m = new_model();
    add_input(m, "x", {std::string("batch"), std::int64_t{6}});
    add_node(m, "Shape", {"x"}, {"s"}, "/Shape");
    add_int_constant(m, "zero", {0}, /*scalar=*/true);
    add_node(m, "Gather", {"s", "zero"}, {"n"}, "/Gather");
    add_int_constant(m, "axes0", {0});
    add_node(m, "Unsqueeze", {"n", "axes0"}, {"n1"}, "/Unsqueeze");
    add_int_constant(m, "rest", {2, 3});
    add_node(m, "Concat", {"n1", "rest"}, {"target"}, "/Concat")->add_attribute()->CopyFrom([] {
        onnx::AttributeProto a;
        a.set_name("axis");
        a.set_type(onnx::AttributeProto::INT);
        a.set_i(0);
        return a;
    }());
    add_node(m, "Reshape", {"x", "target"}, {"r"}, "/Reshape");
    add_node(m, "Relu", {"r"}, {"y"}, "/Relu");
    add_output(m, "y");
    hetsim::testing::TempDir dir;
    const auto r = import_onnx(save(m, dir.path() / "fold.onnx"), {{{"batch", 5}}, {}});
    const sim::Graph& g = r.graph;
    EXPECT_EQ(r.onnx_nodes, 9);
    EXPECT_EQ(r.folded_nodes, 7);  // Shape, Gather, Unsqueeze, Concat and 3 Constants
    ASSERT_EQ(g.op_count(), 2);
    const auto& reshape = g.op(*g.find_op("/Reshape"));
    EXPECT_EQ(reshape.attr_ints("shape"), (std::vector<std::int64_t>{5, 2, 3}));
    EXPECT_EQ(reshape.inputs.size(), 1U);  // the target is now an attribute
    EXPECT_EQ(r.lifted_operands, 1);
    EXPECT_EQ(g.tensor(*g.find_tensor("y")).shape, (sim::Shape{5, 2, 3}));
}

// A Slice of a ConstantOfShape (PyTorch's per-layer initial LSTM state) folds to a weight.
TEST(OnnxImport, FoldsMultiDimensionalSlices) {
    auto m = new_model();
    add_input(m, "x", {std::int64_t{1}, std::int64_t{4}});
    add_int_constant(m, "dims", {3, 1, 4});
    add_node(m, "ConstantOfShape", {"dims"}, {"zeros"}, "/ConstantOfShape");
    add_int_constant(m, "starts", {1});
    add_int_constant(m, "ends", {3});
    add_int_constant(m, "axes", {0});
    add_node(m, "Slice", {"zeros", "starts", "ends", "axes"}, {"h0"}, "/Slice");
    add_node(m, "Squeeze", {"h0"}, {"h"}, "/Squeeze");  // [2,1,4] -> [2,4]
    add_node(m, "Add", {"x", "h"}, {"y"}, "/Add");
    add_output(m, "y");
    hetsim::testing::TempDir dir;
    const auto r = import_onnx(save(m, dir.path() / "slice.onnx"), {});
    ASSERT_EQ(r.graph.op_count(), 1);
    const auto& h = r.graph.tensor(*r.graph.find_tensor("h"));
    EXPECT_EQ(h.kind, sim::TensorKind::weight);
    EXPECT_EQ(h.shape, (sim::Shape{2, 4}));
    EXPECT_EQ(r.graph.tensor(*r.graph.find_tensor("y")).shape, (sim::Shape{2, 4}));
}

TEST(OnnxImport, UnknownOpTypesAreErrorsOrOneZeroCostList) {
    auto m = dense_model();
    // Hardmax is standard ONNX (so the checker and shape inference know it) but not in
    // hetsim's op table.
    ASSERT_EQ(sim::find_op_info("Hardmax"), nullptr);
    m.mutable_graph()->mutable_output(0)->set_name("z");
    add_node(m, "Hardmax", {"y"}, {"z"}, "/head/Hardmax");
    hetsim::testing::TempDir dir;
    const auto file = save(m, dir.path() / "unknown.onnx");
    try {
        import_onnx(file, {{{"batch", 1}}, UnknownOps::error});
        FAIL() << "expected an error";
    } catch (const OnnxImportError& e) {
        EXPECT_THAT(e.what(), HasSubstr("unknown.onnx"));
        EXPECT_THAT(e.what(), HasSubstr("'Hardmax' (node '/head/Hardmax')"));
        EXPECT_THAT(e.what(), HasSubstr("unknown_ops: zero-cost"));
    }
    const auto r = import_onnx(file, {{{"batch", 1}}, UnknownOps::zero_cost});
    ASSERT_EQ(r.zero_cost_ops.size(), 1U);
    EXPECT_EQ(r.zero_cost_ops.at("Hardmax"), 1);
    EXPECT_EQ(r.graph.op(*r.graph.find_op("/head/Hardmax")).flops, 0.0);
    EXPECT_EQ(r.graph.tensor(*r.graph.find_tensor("z")).shape, (sim::Shape{1, 8}));
}

TEST(OnnxImport, LoadsExternalData) {
    auto m = dense_model();
    hetsim::testing::TempDir dir;
    // W's 512 bytes live in dense.data, as onnx.save_model(save_as_external_data=True) writes.
    auto* w = m.mutable_graph()->mutable_initializer(0);
    {
        std::ofstream data(dir.path() / "dense.data", std::ios::binary);
        data << w->raw_data();
    }
    w->clear_raw_data();
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = w->add_external_data();
    kv->set_key("location");
    kv->set_value("dense.data");
    const auto r = import_onnx(save(m, dir.path() / "dense.onnx"), {{{"batch", 2}}, {}});
    EXPECT_EQ(r.graph.total_weight_bytes(), (16 * 8 + 8) * 4);
    EXPECT_EQ(r.graph.op_count(), 3);
}

// An external-data location may only name a file inside the model's folder, symlinks followed;
// offsets and lengths are checked against the file before anything is allocated or read.
TEST(OnnxImport, ExternalDataStaysInsideTheModelFolder) {
    hetsim::testing::TempDir dir;
    const fs::path models = dir.path() / "models";
    fs::create_directories(models);
    std::string weights;
    {
        const auto m = dense_model();
        weights = m.graph().initializer(0).raw_data();
    }
    std::ofstream(dir.path() / "outside.data", std::ios::binary) << weights;
    std::ofstream(models / "inside.data", std::ios::binary) << weights;
    fs::create_symlink(dir.path() / "outside.data", models / "link.data");
    const auto import_with = [&](const std::vector<std::pair<std::string, std::string>>& keys) {
        auto m = dense_model();
        auto* w = m.mutable_graph()->mutable_initializer(0);
        w->clear_raw_data();
        w->set_data_location(onnx::TensorProto::EXTERNAL);
        for (const auto& [key, value] : keys) {
            auto* kv = w->add_external_data();
            kv->set_key(key);
            kv->set_value(value);
        }
        return import_onnx(save(m, models / "m.onnx"), {{{"batch", 1}}, {}});
    };
    const auto expect_refused = [&](const std::vector<std::pair<std::string, std::string>>& keys,
                                    const std::string& what) {
        try {
            import_with(keys);
            FAIL() << "expected a refusal: " << what;
        } catch (const OnnxImportError& e) {
            EXPECT_THAT(e.what(), HasSubstr("m.onnx"));
            EXPECT_THAT(e.what(), HasSubstr(what));
        }
    };
    EXPECT_EQ(import_with({{"location", "inside.data"}}).graph.total_weight_bytes(),
              (16 * 8 + 8) * 4);
    expect_refused({{"location", "../outside.data"}}, "outside the model's folder");
    expect_refused({{"location", "link.data"}}, "outside the model's folder");
    // ONNX's checker joins an absolute location to the model's folder, and refuses a file that is
    // not there, before hetsim's own check (which refuses absolute paths too) is reached.
    expect_refused({{"location", (dir.path() / "outside.data").string()}}, "not accessible");
    expect_refused({{"location", "/etc/hostname"}}, "not accessible");
    expect_refused({{"location", "missing.data"}}, "not accessible");
    expect_refused({{"location", "."}}, "not a regular file");
    expect_refused({{"location", "inside.data"}, {"length", "12abc"}}, "is not a byte count");
    expect_refused({{"location", "inside.data"}, {"offset", "-4"}}, "is not a byte count");
    expect_refused({{"location", "inside.data"}, {"length", "99999999999999999"}}, "truncated");
    expect_refused({{"location", "inside.data"}, {"offset", "600"}}, "truncated");
}

TEST(OnnxImport, BadFilesAreClearErrorsNamingTheFile) {
    hetsim::testing::TempDir dir;
    const std::string good = save(dense_model(), dir.path() / "good.onnx");
    const std::string bytes = hetsim::testing::read_file(good);
    auto expect_error = [&](const std::string& file, const std::string& what) {
        try {
            import_onnx(file, {{{"batch", 1}}, {}});
            FAIL() << "expected an error for " << file;
        } catch (const OnnxImportError& e) {
            EXPECT_THAT(e.what(), HasSubstr(file));
            EXPECT_THAT(e.what(), HasSubstr(what));
        }
    };
    expect_error((dir.path() / "missing.onnx").string(), "no such file");
    {
        std::ofstream out(dir.path() / "truncated.onnx", std::ios::binary);
        out << bytes.substr(0, bytes.size() / 2);
    }
    expect_error((dir.path() / "truncated.onnx").string(), "corrupt or truncated");
    {
        std::ofstream out(dir.path() / "garbage.onnx", std::ios::binary);
        out << "this is not a protobuf \xff\xff\xff\xff";
    }
    expect_error((dir.path() / "garbage.onnx").string(), "not a valid ONNX model");
    { std::ofstream out(dir.path() / "empty.onnx", std::ios::binary); }
    expect_error((dir.path() / "empty.onnx").string(), "not a valid ONNX model");

    auto future = dense_model();
    future.mutable_opset_import(0)->set_version(max_supported_opset() + 1);
    expect_error(save(future, dir.path() / "future.onnx"),
                 fmt::format("opset {} is newer than the installed ONNX library supports",
                             max_supported_opset() + 1));
}

}  // namespace
}  // namespace hetsim::importers

namespace hetsim::importers {
namespace {

std::string onnx_study(const std::string& onnx_file, const std::string& extra) {
    return fmt::format(
        "study: onnx\n"
        "platform: {}/configs/platforms/pcie_accelerators.yaml\n"
        "workload: {{onnx: {}, dims: {{batch: 2}}{}}}\n"
        "baseline: single:CPU0\n"
        "placers: [priority:ACC0,CPU0]\n",
        HETSIM_SOURCE_DIR, onnx_file, extra);
}

TEST(OnnxImportCli, RunsAStudyOnAnOnnxFile) {
    hetsim::testing::TempDir dir;
    save(dense_model(), dir.path() / "dense.onnx");
    const auto study = dir.write("study.yaml", onnx_study("dense.onnx", ""));
    const auto out = hetsim::testing::run_hetsim(
        fmt::format("run {} --out {}", study.string(), (dir.path() / "out").string()));
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_THAT(out.output, HasSubstr("onnx(dense.onnx)"));
    EXPECT_THAT(out.output, HasSubstr("(3 ops"));
}

TEST(OnnxImportCli, BadFileAndUnknownOpsAreOneLineErrorsWithExitCode2) {
    hetsim::testing::TempDir dir;
    dir.write("broken.onnx", "\x08\x07garbage that is not a model");
    const auto broken = dir.write("broken.yaml", onnx_study("broken.onnx", ""));
    auto out = hetsim::testing::run_hetsim("run " + broken.string());
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_THAT(out.output, HasSubstr("broken.yaml:3: workload.onnx: "));
    EXPECT_THAT(out.output, HasSubstr("broken.onnx: not a valid ONNX model"));

    auto m = dense_model();
    m.mutable_graph()->mutable_output(0)->set_name("z");
    add_node(m, "Hardmax", {"y"}, {"z"}, "/head/Hardmax");
    save(m, dir.path() / "unknown.onnx");
    const auto strict = dir.write("strict.yaml", onnx_study("unknown.onnx", ""));
    out = hetsim::testing::run_hetsim("run " + strict.string());
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_THAT(out.output, HasSubstr("'Hardmax' (node '/head/Hardmax')"));

    const auto lenient =
        dir.write("lenient.yaml", onnx_study("unknown.onnx", ", unknown_ops: zero-cost"));
    out = hetsim::testing::run_hetsim(
        fmt::format("run {} --out {}", lenient.string(), (dir.path() / "out").string()));
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_THAT(out.output, HasSubstr("op types imported at zero cost: Hardmax (1 node)"));

    const auto typo = dir.write("typo.yaml", onnx_study("unknown.onnx", ", unknown_ops: skip"));
    out = hetsim::testing::run_hetsim("run " + typo.string());
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_THAT(out.output, HasSubstr("expected 'error' or 'zero-cost', got 'skip'"));
}

// `hetsim inspect` and `hetsim dataset build` read ONNX files through the same import.
TEST(OnnxImportCli, InspectAndDatasetReadOnnxFiles) {
    hetsim::testing::TempDir dir;
    const auto file = save(dense_model(), dir.path() / "dense.onnx");
    auto out = hetsim::testing::run_hetsim("inspect " + file + " --dim batch=2 --json");
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto doc = nlohmann::json::parse(out.output);
    EXPECT_EQ(doc.at("nodes"), 3);
    EXPECT_EQ(doc.at("param_bytes"), (16 * 8 + 8) * 4);
    EXPECT_EQ(doc.at("flops_by_type").at("MatMul"), 2.0 * 2 * 8 * 16);

    out = hetsim::testing::run_hetsim("inspect " + file);
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_THAT(out.output, HasSubstr("hetsim inspect: --dim batch=1"));

    const auto spec = dir.write("spec.yaml",
                                "name: d\nseed: 1\nsplit: {train: 1}\n"
                                "sources:\n  - {onnx: dense.onnx, dims: {batch: 4}}\n");
    out = hetsim::testing::run_hetsim(fmt::format("dataset build --spec {} --out {}", spec.string(),
                                                  (dir.path() / "ds").string()));
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto manifest =
        nlohmann::json::parse(hetsim::testing::read_file(dir.path() / "ds" / "manifest.json"));
    ASSERT_EQ(manifest.at("graphs").size(), 1U);
    EXPECT_EQ(manifest.at("graphs")[0].at("nodes"), 3);
    EXPECT_EQ(manifest.at("graphs")[0].at("flops"), 2.0 * 4 * 8 * 16 + 4 * 8 + 4 * 8);
}

}  // namespace
}  // namespace hetsim::importers
