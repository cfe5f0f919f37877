// Hostile ONNX files end as one-line input errors (exit 2) naming the node, the attribute or
// operand and what is accepted, never as a crash, a hang or an internal error: attributes and
// constant operands that ONNX 1.12's shape inference divides by, allocates from, loops on or
// indexes with are checked before inference sees them, and what is not a regular file of at
// most 2 GiB is refused before it is opened. The models come from
// tests/importers/make_hostile_onnx.py (run at test time; skipped without python3-onnx), and
// a few are written here with the protobuf API so that the checks run everywhere.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "importers/onnx_import.hpp"
#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::importers {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// `hetsim <args>` under a time limit: a hang fails the test (exit 124) instead of stalling it.
hetsim::testing::Outcome run_bounded(const std::string& args) {
    return hetsim::testing::run_command(fmt::format("timeout 60 {} {}", HETSIM_BINARY, args));
}

std::string import_error(const std::string& file, const OnnxImportOptions& options) {
    try {
        (void)import_onnx(file, options);
    } catch (const OnnxImportError& e) {
        return e.what();
    }
    return "imported";
}

// Conv(x[1,1,8,8], w[2,1,3,3]) with `strides` and `auto_pad`.
onnx::ModelProto conv_model(const std::vector<std::int64_t>& strides, const std::string& auto_pad,
                            std::int64_t height = 8) {
    onnx::ModelProto m;
    m.set_ir_version(8);
    auto* opset = m.add_opset_import();
    opset->set_domain("");
    opset->set_version(13);
    auto* g = m.mutable_graph();
    g->set_name("g");
    auto* x = g->add_input();
    x->set_name("x");
    x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    for (const std::int64_t d : {std::int64_t{1}, std::int64_t{1}, height, std::int64_t{8}})
        x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    auto* w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    for (const std::int64_t d : {2, 1, 3, 3})
        w->add_dims(d);
    w->set_raw_data(std::string(2 * 9 * 4, '\0'));
    auto* conv = g->add_node();
    conv->set_op_type("Conv");
    conv->set_name("conv0");
    conv->add_input("x");
    conv->add_input("w");
    conv->add_output("y");
    auto* s = conv->add_attribute();
    s->set_name("strides");
    s->set_type(onnx::AttributeProto::INTS);
    for (const std::int64_t v : strides)
        s->add_ints(v);
    if (!auto_pad.empty()) {
        auto* a = conv->add_attribute();
        a->set_name("auto_pad");
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s(auto_pad);
    }
    auto* y = g->add_output();
    y->set_name("y");
    y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    y->mutable_type()->mutable_tensor_type()->mutable_shape();
    return m;
}

std::string save(const onnx::ModelProto& m, const fs::path& file) {
    std::ofstream out(file, std::ios::binary);
    m.SerializeToOstream(&out);
    return file.string();
}

// The campaign's reproduction: a stride of 0 was a SIGFPE inside onnx::convPoolShapeInference.
TEST(HostileOnnx, AZeroStrideIsRefusedBeforeShapeInference) {
    hetsim::testing::TempDir dir;
    const std::string file = save(conv_model({0, 0}, ""), dir.path() / "m.onnx");
    EXPECT_EQ(import_error(file, {}),
              file +
                  ": node 'conv0' (Conv): attribute 'strides' [0,0]: expected integers from 1 "
                  "to 2147483647");
    const auto out = run_bounded("inspect " + file);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
    EXPECT_THAT(out.output, HasSubstr("attribute 'strides' [0,0]"));
}

// SAME padding is handed to ONNX's inference as an equivalent 1-wide window (ONNX would count
// the input size down one stride at a time): the shapes stay ONNX's, ceil(input / stride).
TEST(HostileOnnx, SamePaddingKeepsOnnxShapesWithoutCountingDownTheInput) {
    hetsim::testing::TempDir dir;
    for (const std::int64_t height : {7, 8, 9}) {
        for (const std::string pad : {"SAME_UPPER", "SAME_LOWER"}) {
            const auto r =
                import_onnx(save(conv_model({2, 3}, pad, height), dir.path() / "same.onnx"), {});
            const sim::Graph& g = r.graph;
            EXPECT_EQ(g.tensor(*g.find_tensor("y")).shape, (sim::Shape{1, 2, (height + 1) / 2, 3}))
                << pad << " " << height;
            // The file's attributes reach the graph unchanged.
            EXPECT_EQ(std::get<std::string>(g.op(*g.find_op("conv0")).attrs.at("auto_pad")), pad);
        }
    }
    // 2^40 rows: ONNX's own SAME padding loop takes minutes (2^39 subtractions).
    const auto start = std::chrono::steady_clock::now();
    const auto r = import_onnx(
        save(conv_model({2, 1}, "SAME_UPPER", std::int64_t{1} << 40), dir.path() / "tall.onnx"),
        {});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
    EXPECT_EQ(r.graph.tensor(*r.graph.find_tensor("y")).shape,
              (sim::Shape{1, 2, std::int64_t{1} << 39, 8}));
}

// What is not a regular file is refused before it is opened: a FIFO used to block forever.
TEST(HostileOnnx, OnlyRegularFilesOfAtMost2GiBAreOpened) {
    hetsim::testing::TempDir dir;
    const fs::path fifo = dir.path() / "fifo.onnx";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(import_error(fifo.string(), {}),
              fifo.string() +
                  ": is a FIFO (named pipe), not a regular file, expected an ONNX model file");
    fs::create_symlink(fifo, dir.path() / "link.onnx");
    EXPECT_THAT(import_error((dir.path() / "link.onnx").string(), {}),
                HasSubstr("link.onnx: is a FIFO (named pipe), not a regular file"));
    fs::create_directories(dir.path() / "folder.onnx");
    EXPECT_EQ(
        import_error((dir.path() / "folder.onnx").string(), {}),
        (dir.path() / "folder.onnx").string() + ": is a directory, expected an ONNX model file");
    // Sparse: no disk space is used, and nothing is read.
    const fs::path big = dir.path() / "big.onnx";
    std::ofstream(big).put('x');
    fs::resize_file(big, std::uintmax_t{3} << 30);
    EXPECT_EQ(import_error(big.string(), {}),
              big.string() +
                  ": is 3221225472 bytes (3.0 GiB), more than the 2.0 GiB limit hetsim reads, "
                  "expected an ONNX model file (a model over 2 GiB keeps its weights as external "
                  "data)");
    for (const fs::path& file : {fifo, big}) {
        const auto out = run_bounded("inspect " + file.string());
        EXPECT_EQ(out.exit_code, 2) << out.output;
        EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
    }
}

bool onnx_python_available() {
    static const bool available =
        std::system("/usr/bin/python3 -c 'import onnx, numpy' >/dev/null 2>&1") == 0;
    return available;
}

// Every model of make_hostile_onnx.py: the import fails with the manifest's text (or imports
// with the manifest's output shape), and `hetsim inspect` exits 2 with that one line (or 0).
TEST(HostileOnnx, EveryGeneratedModelIsOneLineErrorOrImports) {
    if (!onnx_python_available())
        GTEST_SKIP() << "/usr/bin/python3 lacks onnx (tools/setup.sh installs python3-onnx)";
    hetsim::testing::TempDir dir;
    const auto made = hetsim::testing::run_command(
        fmt::format("/usr/bin/python3 {}/tests/importers/make_hostile_onnx.py {}",
                    HETSIM_SOURCE_DIR, dir.path().string()));
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const auto manifest =
        nlohmann::json::parse(hetsim::testing::read_file(dir.path() / "manifest.json"));
    ASSERT_GE(manifest.size(), 40U);
    for (const auto& entry : manifest) {
        const std::string file = (dir.path() / entry.at("file").get<std::string>()).string();
        OnnxImportOptions options;
        std::string dims;
        for (const auto& [name, value] : entry.at("dims").items()) {
            options.dims[name] = value.get<std::int64_t>();
            dims += fmt::format(" --dim {}={}", name, value.get<std::int64_t>());
        }
        const auto out = run_bounded("inspect " + file + dims);
        if (entry.contains("error")) {
            const std::string expected = entry.at("error").get<std::string>();
            EXPECT_THAT(import_error(file, options), HasSubstr(file + ": " + expected));
            EXPECT_EQ(out.exit_code, 2) << file << "\n" << out.output;
            EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
            EXPECT_THAT(out.output, HasSubstr(expected));
            continue;
        }
        try {
            const auto r = import_onnx(file, options);
            const auto tensor = r.graph.find_tensor(entry.at("output").get<std::string>());
            ASSERT_TRUE(tensor.has_value()) << file;
            EXPECT_EQ(r.graph.tensor(*tensor).shape, entry.at("shape").get<sim::Shape>()) << file;
        } catch (const OnnxImportError& e) {
            ADD_FAILURE() << file << ": " << e.what();
        }
        EXPECT_EQ(out.exit_code, 0) << file << "\n" << out.output;
    }
}

}  // namespace
}  // namespace hetsim::importers
