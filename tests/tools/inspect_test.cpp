// `hetsim inspect` on JSON graphs, models and studies: hand-computed critical paths, peak
// activation bytes and ideal counts; --json keys; --export round trips through the JSON graph
// format; bad input.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/cli_fixtures.hpp"
#include "tools/app/inspect.hpp"

namespace {

using hetsim::testing::read_file;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;
namespace sim = hetsim::sim;

// a = x·w1 [1,8] (64 FLOPs); b = a·w2 (128); c = Relu(a) (8); d = b + c (8).
// Topo order a, b, c, d; every activation is [1,8] float32 = 32 bytes.
constexpr const char* kDiamond = R"({"name": "diamond",
 "tensors": [
  {"name": "x", "shape": [1, 4], "kind": "input"},
  {"name": "w1", "shape": [4, 8], "kind": "weight"},
  {"name": "w2", "shape": [8, 8], "kind": "weight"},
  {"name": "ta", "shape": [1, 8]}, {"name": "tb", "shape": [1, 8]},
  {"name": "tc", "shape": [1, 8]}, {"name": "td", "shape": [1, 8]}],
 "ops": [
  {"name": "a", "type": "MatMul", "inputs": ["x", "w1"], "outputs": ["ta"]},
  {"name": "b", "type": "MatMul", "inputs": ["ta", "w2"], "outputs": ["tb"]},
  {"name": "c", "type": "Relu", "inputs": ["ta"], "outputs": ["tc"]},
  {"name": "d", "type": "Add", "inputs": ["tb", "tc"], "outputs": ["td"]}]})";

// A chain of `n` Relu ops on [1,4] float32 (16 bytes per activation).
std::string chain(int n) {
    std::string tensors = R"({"name": "t0", "shape": [1, 4], "kind": "input"})";
    std::string ops;
    for (int i = 1; i <= n; ++i) {
        tensors += fmt::format(R"(, {{"name": "t{}", "shape": [1, 4]}})", i);
        ops += fmt::format(
            R"({}{{"name": "r{}", "type": "Relu", "inputs": ["t{}"], "outputs": ["t{}"]}})",
            i == 1 ? "" : ", ", i, i - 1, i);
    }
    return fmt::format(R"({{"name": "chain", "tensors": [{}], "ops": [{}]}})", tensors, ops);
}

TEST(GraphStats, DiamondByHand) {
    const sim::Graph g = sim::workloads::parse_json_graph(kDiamond, "diamond");
    const hetsim::app::GraphStats s = hetsim::app::graph_stats(g, 1000);
    EXPECT_EQ(s.nodes, 4);
    EXPECT_EQ(s.edges, 4);  // a->b, a->c, b->d, c->d
    EXPECT_DOUBLE_EQ(s.flops, 64 + 128 + 8 + 8);
    EXPECT_EQ(s.param_bytes, (4 * 8 + 8 * 8) * 4);
    // Step a: ta; b: ta tb; c: ta tb tc (ta's last use); d: tb tc td -> 3 x 32 bytes.
    EXPECT_EQ(s.peak_activation_bytes, 96);
    EXPECT_DOUBLE_EQ(s.critical_path_flops, 64 + 128 + 8);  // a b d, not a c d (80)
    EXPECT_EQ(s.critical_path_ops, 3);
    // {}, {a}, {a,b}, {a,c}, {a,b,c}, {a,b,c,d}.
    ASSERT_TRUE(s.ideals.has_value());
    EXPECT_EQ(*s.ideals, 6u);
}

TEST(GraphStats, AChainOfNHasNPlusOneIdealsAndTheLimitStopsTheCount) {
    const sim::Graph g = sim::workloads::parse_json_graph(chain(7), "chain");
    const auto s = hetsim::app::graph_stats(g, 1000);
    ASSERT_TRUE(s.ideals.has_value());
    EXPECT_EQ(*s.ideals, 8u);
    EXPECT_EQ(s.critical_path_ops, 7);
    EXPECT_DOUBLE_EQ(s.critical_path_flops, 7 * 4);
    // Each activation lives from its producer to its consumer: two at a time, the last (a
    // graph output) alone at the end.
    EXPECT_EQ(s.peak_activation_bytes, 32);
    EXPECT_EQ(hetsim::app::graph_stats(g, 8).ideals, std::optional<std::size_t>(8));
    EXPECT_EQ(hetsim::app::graph_stats(g, 7).ideals, std::nullopt);
    EXPECT_EQ(hetsim::app::graph_stats(g, std::nullopt).ideals_counted, false);
}

TEST(GraphStats, AWideLevelIsOverTheLimitWithoutEnumerating) {
    // 20 independent ops from one input: 2^20 + ... ideals, far over 1000.
    std::string tensors = R"({"name": "x", "shape": [1, 4], "kind": "input"})";
    std::string ops;
    for (int i = 0; i < 20; ++i) {
        tensors += fmt::format(R"(, {{"name": "y{}", "shape": [1, 4]}})", i);
        ops += fmt::format(
            R"({}{{"name": "r{}", "type": "Relu", "inputs": ["x"], "outputs": ["y{}"]}})",
            i == 0 ? "" : ", ", i, i);
    }
    const sim::Graph g = sim::workloads::parse_json_graph(
        fmt::format(R"({{"name": "wide", "tensors": [{}], "ops": [{}]}})", tensors, ops), "wide");
    EXPECT_EQ(hetsim::app::graph_stats(g, 1000).ideals, std::nullopt);
    // Every output is live to the end: 20 x 16 bytes.
    EXPECT_EQ(hetsim::app::graph_stats(g, std::nullopt).peak_activation_bytes, 20 * 16);
}

TEST(CliInspect, JsonGraphTextAndJson) {
    TempDir dir;
    const auto file = dir.write("diamond.json", kDiamond);
    const auto text = run_hetsim("inspect " + file.string() + " --ideals");
    ASSERT_EQ(text.exit_code, 0) << text.output;
    EXPECT_THAT(text.output, HasSubstr("graph diamond: 4 ops, 4 edges"));
    EXPECT_THAT(text.output, HasSubstr("(96 bytes)"));
    EXPECT_THAT(text.output, HasSubstr("critical path 200 FLOPs (longest path by FLOPs), 3 ops"));
    EXPECT_THAT(text.output, HasSubstr("ideals 6 "));

    const auto out = run_hetsim("inspect " + file.string() + " --json --ideals");
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto doc = nlohmann::json::parse(out.output);
    EXPECT_EQ(doc.at("nodes"), 4);
    EXPECT_EQ(doc.at("edges"), 4);
    EXPECT_EQ(doc.at("ops_by_type"), nlohmann::json({{"Add", 1}, {"MatMul", 2}, {"Relu", 1}}));
    EXPECT_EQ(doc.at("flops"), 208.0);
    // MatMuls 2*1*8*4 + 2*1*8*8, one FLOP per element of Relu and Add.
    EXPECT_EQ(doc.at("flops_by_type"),
              nlohmann::json({{"Add", 8.0}, {"MatMul", 192.0}, {"Relu", 8.0}}));
    EXPECT_EQ(doc.at("param_bytes"), 384);
    EXPECT_EQ(doc.at("peak_activation_bytes"), 96);
    EXPECT_EQ(doc.at("critical_path").at("flops"), 200.0);
    EXPECT_EQ(doc.at("critical_path").at("ops"), 3);
    EXPECT_EQ(doc.at("ideals"), 6);
    EXPECT_EQ(doc.at("ideals_limit"), 1000000);

    const auto plain =
        nlohmann::json::parse(run_hetsim("inspect " + file.string() + " --json").output);
    EXPECT_FALSE(plain.contains("ideals"));
}

TEST(CliInspect, IdealsOverTheLimit) {
    TempDir dir;
    const auto file = dir.write("chain.json", chain(5));
    const auto text = run_hetsim("inspect " + file.string() + " --ideals --ideals-limit 5");
    ASSERT_EQ(text.exit_code, 0) << text.output;
    EXPECT_THAT(text.output, HasSubstr("ideals > 5"));
    const auto doc = nlohmann::json::parse(
        run_hetsim("inspect " + file.string() + " --json --ideals-limit 6").output);
    EXPECT_EQ(doc.at("ideals"), 6);
    const auto over = nlohmann::json::parse(
        run_hetsim("inspect " + file.string() + " --json --ideals-limit 5").output);
    EXPECT_TRUE(over.at("ideals").is_null());
}

// Every op and tensor of `b` equals `a`'s: names, types, wiring, attributes, shapes, FLOPs.
void expect_same_graph(const sim::Graph& a, const sim::Graph& b) {
    EXPECT_EQ(a.name(), b.name());
    ASSERT_EQ(a.tensor_count(), b.tensor_count());
    for (int t = 0; t < a.tensor_count(); ++t) {
        const auto &x = a.tensor(t), &y = b.tensor(t);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.shape, y.shape) << x.name;
        EXPECT_EQ(x.dtype, y.dtype) << x.name;
        EXPECT_EQ(x.kind, y.kind) << x.name;
        EXPECT_EQ(x.is_graph_output, y.is_graph_output) << x.name;
    }
    ASSERT_EQ(a.op_count(), b.op_count());
    for (int o = 0; o < a.op_count(); ++o) {
        const auto &x = a.op(o), &y = b.op(o);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.type, y.type);
        EXPECT_EQ(x.inputs, y.inputs) << x.name;
        EXPECT_EQ(x.outputs, y.outputs) << x.name;
        EXPECT_EQ(x.attrs, y.attrs) << x.name;
        EXPECT_EQ(x.flops, y.flops) << x.name;
        EXPECT_EQ(x.bytes_read, y.bytes_read) << x.name;
    }
}

TEST(JsonGraphWriter, RoundTripKeepsEveryAttributeType) {
    sim::Graph g("attrs");
    const int x = g.add_tensor("x", {2, 3}, sim::DType::f16, sim::TensorKind::input);
    const int y = g.add_tensor("y", {2, 3}, sim::DType::f16);
    const int z = g.add_tensor("z", {2, 3}, sim::DType::f16);
    g.add_op("r", "Relu", {x}, {y},
             {{"i", std::int64_t{3}},
              {"d", 1.0},  // a whole double stays a double
              {"s", std::string("text")},
              {"is", std::vector<std::int64_t>{1, -2}},
              {"ds", std::vector<double>{0.5, 2.0}}});
    g.add_op("t", "Tanh", {y}, {z});
    g.mark_output(y);  // read by t and an output too
    g.finalize();
    const std::string text = sim::workloads::write_json_graph(g);
    expect_same_graph(g, sim::workloads::parse_json_graph(text, "round trip"));
}

TEST(CliInspect, ExportRoundTripsAGeneratedLstm) {
    TempDir dir;
    const auto file = dir.path() / "lstm.json";
    const auto o = run_hetsim(
        "inspect lstm --set seq_len=3 --set layers=2 --set hidden=16 "
        "--export " +
        file.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("graph written to"));
    const sim::Graph built =
        sim::workloads::build_model("lstm", {{"seq_len", 3}, {"layers", 2}, {"hidden", 16}});
    expect_same_graph(built, sim::workloads::load_json_graph(file.string()));
    // And inspect reads it back with the same statistics.
    const auto a = nlohmann::json::parse(
        run_hetsim("inspect lstm --set seq_len=3 --set layers=2 --set hidden=16 --json").output);
    const auto b = nlohmann::json::parse(run_hetsim("inspect " + file.string() + " --json").output);
    for (const char* key : {"nodes", "edges", "ops_by_type", "flops", "param_bytes",
                            "peak_activation_bytes", "critical_path"})
        EXPECT_EQ(a.at(key), b.at(key)) << key;
}

TEST(CliInspect, AStudyShowsItsWorkloadAndDeviceCosts) {
    TempDir dir;
    const auto study =
        dir.write("s.yaml", "study: s\nplatform: " + std::string(HETSIM_SOURCE_DIR) +
                                "/configs/platforms/zynq_silentpim.yaml\n"
                                "workload: { model: gru, seq_len: 2, hidden: 16, input: 8 }\n"
                                "placers: [single:CPU_S]\n");
    const auto o = run_hetsim("inspect " + study.string() + " --ideals");
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("gru(layers=1,hidden=16,input=8,seq_len=2,batch=1,fused=0)"));
    EXPECT_THAT(o.output, HasSubstr("op cost per device"));
    EXPECT_THAT(o.output, HasSubstr("ideals "));
}

TEST(CliInspect, BadInputIsOneLineAndExitTwo) {
    struct Case {
        std::string args;
        std::string message;
    };
    const Case cases[] = {
        {"/nonexistent/graph.json", "/nonexistent/graph.json: cannot read file"},
        {"/nonexistent/study.yaml", "/nonexistent/study.yaml"},
        {"lstmm", "unknown model 'lstmm' (did you mean 'lstm'?)"},
        // ONNX files go through the study's workload mapping (the importer answers there).
        {"/nonexistent/model.onnx --dim batch=1", "workload.onnx"},
        {"/nonexistent/model.onnx --dim batch", "--dim: expected name=positive integer"},
        {"lstm --dim batch=2", "--dim binds dimensions of an ONNX file"},
        {"g.json --set seq_len=2", "--set applies to model names and studies"},
        {"lstm --ideals --ideals-limit 0", "--ideals-limit: Value 0 not in range 1 to 1000000000"},
        {"lstm --ideals --ideals-limit -1",
         "--ideals-limit: Value -1 not in range 1 to 1000000000"},
    };
    for (const Case& c : cases) {
        const auto o = run_hetsim("inspect " + c.args);
        EXPECT_EQ(o.exit_code, 2) << c.args << o.output;
        EXPECT_THAT(o.output, HasSubstr(c.message)) << c.args;
    }
}

}  // namespace
