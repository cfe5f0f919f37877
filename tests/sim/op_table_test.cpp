// The op table (sim/op_table.hpp): every row is complete, categories are what the cost models
// rely on, and an op type the table does not know is reported, not silently costed as zero.
#include "sim/op_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"

namespace hetsim::sim {
namespace {

using ::testing::HasSubstr;

TEST(OpTable, EveryRowHasACategoryAndCostFunctions) {
    ASSERT_GE(op_table().size(), 100u);
    std::set<std::string_view> seen;
    for (const OpInfo& row : op_table()) {
        EXPECT_FALSE(row.type.empty());
        EXPECT_TRUE(seen.insert(row.type).second) << row.type << " has two rows";
        EXPECT_NE(row.category, OpCategory::unknown) << row.type;
        EXPECT_NE(to_string(row.category), "unknown") << row.type;
        EXPECT_NE(row.flops, nullptr) << row.type;
        EXPECT_NE(row.bytes, nullptr) << row.type;
        EXPECT_EQ(find_op_info(row.type), &row) << row.type;
        EXPECT_EQ(op_category(row.type), row.category) << row.type;
    }
    const std::vector<std::string> known = known_op_types();
    EXPECT_EQ(known.size(), op_table().size());
    EXPECT_TRUE(std::is_sorted(known.begin(), known.end()));
}

TEST(OpTable, CategoriesOfTheOpsCostModelsTreatDifferently) {
    const std::vector<std::pair<std::string, OpCategory>> expected = {
        {"MatMul", OpCategory::matmul},
        {"Gemm", OpCategory::matmul},
        {"Einsum", OpCategory::matmul},
        {"Conv", OpCategory::conv},
        {"ConvTranspose", OpCategory::conv},
        {"Add", OpCategory::elementwise},
        {"Pow", OpCategory::elementwise},
        {"Erf", OpCategory::elementwise},
        {"Cast", OpCategory::elementwise},
        {"Where", OpCategory::elementwise},
        {"Not", OpCategory::elementwise},
        {"ReduceMean", OpCategory::reduction},
        {"ArgMax", OpCategory::reduction},
        {"Softmax", OpCategory::reduction},
        {"MaxPool", OpCategory::reduction},
        {"GlobalAveragePool", OpCategory::reduction},
        {"LayerNormalization", OpCategory::normalization},
        {"BatchNormalization", OpCategory::normalization},
        {"InstanceNormalization", OpCategory::normalization},
        // Views: no copy on a CPU (zero DRAM traffic), no kernel on a GPU.
        {"Reshape", OpCategory::view},
        {"Squeeze", OpCategory::view},
        {"Unsqueeze", OpCategory::view},
        {"Flatten", OpCategory::view},
        {"Identity", OpCategory::view},
        {"Shape", OpCategory::view},
        {"Size", OpCategory::view},
        // Copies.
        {"Transpose", OpCategory::data_movement},
        {"Gather", OpCategory::data_movement},
        {"Concat", OpCategory::data_movement},
        {"Split", OpCategory::data_movement},
        {"Slice", OpCategory::data_movement},
        {"Expand", OpCategory::data_movement},
        {"Dropout", OpCategory::data_movement},
        // One GPU kernel per time step.
        {"LSTM", OpCategory::recurrent},
        {"GRU", OpCategory::recurrent},
        {"RNN", OpCategory::recurrent},
    };
    for (const auto& [type, category] : expected) {
        EXPECT_EQ(op_category(type), category) << type;
    }
}

TEST(OpTable, ReductionsAcrossThreadsAreTheRowReductionsAndStatisticNorms) {
    for (const char* type : {"Softmax", "LogSoftmax", "ReduceMean", "ReduceSum", "ArgMax", "CumSum",
                             "GlobalAveragePool", "LayerNormalization", "InstanceNormalization"})
        EXPECT_TRUE(reduces_across_threads(type)) << type;
    // Windowed pooling computes an output per thread; BatchNormalization at inference applies
    // running statistics element-wise.
    for (const char* type : {"MaxPool", "AveragePool", "BatchNormalization", "Add", "Relu",
                             "MatMul", "Conv", "Transpose", "LSTM", "NoSuchOp"})
        EXPECT_FALSE(reduces_across_threads(type)) << type;
}

TEST(OpTable, UnknownOpTypesAreReported) {
    struct Case {
        std::string type;
        std::string hint;  // expected "did you mean" suggestion, empty for none
    };
    const std::vector<Case> cases = {
        {"Mystery", ""},
        {"NonMaxSuppression", ""},
        {"matmul", "MatMul"},  // ONNX op types are case-sensitive
        {"Matmul", "MatMul"},
        {"Softmx", "Softmax"},
        {"SkipLayerNormalization", "LayerNormalization"},
        {"", ""},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(find_op_info(c.type), nullptr) << c.type;
        EXPECT_EQ(op_category(c.type), OpCategory::unknown) << c.type;
        try {
            (void)require_op_info(c.type);
            ADD_FAILURE() << "'" << c.type << "' was accepted";
        } catch (const GraphError& e) {
            const std::string what = e.what();
            EXPECT_THAT(what, HasSubstr("unknown op type '" + c.type + "'"));
            EXPECT_THAT(what, HasSubstr("hetsim list ops"));
            if (c.hint.empty()) {
                EXPECT_THAT(what, ::testing::Not(HasSubstr("did you mean"))) << what;
            } else {
                EXPECT_THAT(what, HasSubstr("(did you mean '" + c.hint + "'?)")) << what;
            }
        }
    }
    EXPECT_EQ(&require_op_info("MatMul"), find_op_info("MatMul"));
}

TEST(OpTable, UnknownOpTypesAreTrustedAndCostNothingInsideAGraph) {
    // Hand-built graphs (tests, placers' fixtures) may hold op types the table does not know:
    // their declared shapes are kept and they have no FLOPs; only importers reject them.
    Graph g("g");
    const int x = g.add_tensor("x", {2, 3}, DType::f32, TensorKind::input);
    const int y = g.add_tensor("y", {7}, DType::f32);
    const int op = g.add_op("m", "Mystery", {x}, {y});
    g.finalize();
    EXPECT_FALSE(infer_output_shapes(g, g.op(op)).has_value());
    EXPECT_EQ(op_flops(g, g.op(op)), 0.0);
    EXPECT_EQ(g.op(op).bytes_read, 2 * 3 * 4);
    EXPECT_EQ(g.op(op).bytes_written, 7 * 4);
}

TEST(OpTable, ModelZooUsesOnlyRegisteredOps) {
    for (const auto& model : workloads::list_models()) {
        const Graph g = workloads::build_model(model.name, {});
        for (const Op& op : g.ops()) {
            EXPECT_NE(find_op_info(op.type), nullptr) << model.name << ": " << op.type;
        }
    }
}

TEST(OpTable, JsonGraphWithAnUnknownOpTypeNamesFileNodeAndType) {
    const std::string text = R"({"tensors": [
        {"name": "x", "shape": [1, 8], "kind": "input"}, {"name": "y", "shape": [1, 8]},
        {"name": "z", "shape": [1, 8]}],
      "ops": [{"name": "act", "type": "Relu", "inputs": ["x"], "outputs": ["y"]},
              {"name": "mystery", "type": "Frobnicate", "inputs": ["y"], "outputs": ["z"]}]})";
    try {
        (void)workloads::parse_json_graph(text, "graph.json");
        FAIL() << "an unknown op type was accepted";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_THAT(what, HasSubstr("graph.json: /ops/1/type: op 'mystery': unknown op type "
                                    "'Frobnicate'"));
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

// Hostile JSON graphs end as one-line input errors naming the file and the JSON pointer, never
// as a library exception (they used to exit 1 as "internal error").
TEST(OpTable, HostileJsonGraphsAreInputErrors) {
    const auto error_of = [](const std::string& tensor) {
        const std::string text = "{\"tensors\": [" + tensor + "], \"ops\": []}";
        try {
            (void)workloads::parse_json_graph(text, "g.json");
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_THAT(error_of(R"({"name": "x", "shape": [1e999], "kind": "input"})"),
                HasSubstr("g.json: not valid JSON"));
    EXPECT_THAT(error_of(R"({"name": "x", "shape": [1], "dtype": 7})"),
                HasSubstr("g.json: /tensors/0/dtype: expected a string, got 7"));
    EXPECT_THAT(error_of(R"({"name": "x", "shape": [1], "kind": ["input"]})"),
                HasSubstr("g.json: /tensors/0/kind: expected a string"));
    EXPECT_THAT(error_of(R"({"name": "x", "shape": [1.5]})"),
                HasSubstr("g.json: /tensors/0/shape: expected integers"));
    const auto dir = std::filesystem::temp_directory_path() /
                     ("hetsim_graph_dir_" + std::to_string(::getpid()) + ".json");
    std::filesystem::create_directories(dir);
    try {
        (void)workloads::load_json_graph(dir.string());
        ADD_FAILURE() << "a directory was read as a graph";
    } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), HasSubstr("is a directory, expected a JSON graph file"));
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetsim::sim

namespace hetsim::sim {
namespace {

// Resize [1,3,4,4] -> [1,3,8,8]: 192 outputs; linear blends 2^2 neighbours with a multiply-add
// each (2*4*192 = 1536 FLOPs), cubic 4^2 (2*16*192 = 6144), nearest copies (0).
TEST(OpTable, ResizeFlopsFollowTheInterpolationMode) {
    for (const auto& [mode, expected] : std::vector<std::pair<std::string, double>>{
             {"linear", 1536.0}, {"cubic", 6144.0}, {"nearest", 0.0}}) {
        Graph g("resize");
        const int x = g.add_tensor("x", {1, 3, 4, 4}, DType::f32, TensorKind::input);
        const int y = g.add_tensor("y", {1, 3, 8, 8}, DType::f32);
        g.add_op("up", "Resize", {x}, {y}, {{"mode", mode}});
        g.finalize();
        EXPECT_DOUBLE_EQ(g.op(0).flops, expected) << mode;
    }
}

}  // namespace
}  // namespace hetsim::sim

namespace hetsim::sim {
namespace {

// Einsum "bij,bjk->bik" is a batched MatMul: [2,3,4] x [2,4,5] -> [2,3,5], one multiply-add per
// point of the (b,i,j,k) space = 2*2*3*4*5 FLOPs; the implicit form "ij,jk" outputs "ik".
TEST(OpTable, EinsumShapesAndFlopsFollowTheEquation) {
    auto build = [](const std::string& equation, Shape a, Shape b, Shape out) {
        Graph g("einsum");
        const int x = g.add_tensor("a", std::move(a), DType::f32, TensorKind::input);
        const int w = g.add_tensor("b", std::move(b), DType::f32, TensorKind::weight);
        const int y = g.add_tensor("y", std::move(out), DType::f32);
        g.add_op("e", "Einsum", {x, w}, {y}, {{"equation", equation}});
        g.finalize();
        return g.op(0).flops;
    };
    EXPECT_DOUBLE_EQ(build("b i j, b j k -> b i k", {2, 3, 4}, {2, 4, 5}, {2, 3, 5}), 240.0);
    EXPECT_DOUBLE_EQ(build("ij,jk", {3, 4}, {4, 5}, {3, 5}), 120.0);
    EXPECT_THROW(build("bij,bjk->bik", {2, 3, 4}, {2, 4, 5}, {2, 3, 4}), GraphError);
    try {
        build("ij,jk->ik", {3, 4}, {6, 5}, {3, 5});
        FAIL() << "expected a size mismatch";
    } catch (const GraphError& e) {
        EXPECT_THAT(e.what(), HasSubstr("index 'j' is 4 in one operand and 6 in another"));
    }
}

}  // namespace
}  // namespace hetsim::sim
