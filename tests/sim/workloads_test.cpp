// The model zoo (sim/workloads): CG sizes against lee2022 Table 3, the operator decompositions
// the generators promise, hand-computed FLOPs of one layer, and knob validation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/model_zoo_fixtures.hpp"

namespace hetsim::sim::workloads {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::map<std::string, int> histogram(const Graph& g) {
    std::map<std::string, int> h;
    for (const auto& op : g.ops())
        ++h[op.type];
    return h;
}

// Op types, in insertion order, of the ops directly in `scope` (not in a nested scope).
std::vector<std::string> types_in_scope(const Graph& g, const std::string& scope) {
    std::vector<std::string> types;
    for (const auto& op : g.ops()) {
        if (op.name.rfind(scope, 0) != 0)
            continue;
        if (op.name.find('/', scope.size()) != std::string::npos)
            continue;
        types.push_back(op.type);
    }
    return types;
}

// Sum of FLOPs of the ops whose name starts with `prefix`.
double flops_under(const Graph& g, const std::string& prefix) {
    double sum = 0.0;
    for (const auto& op : g.ops()) {
        if (op.name.rfind(prefix, 0) == 0)
            sum += op.flops;
    }
    return sum;
}

using hetsim::testing::build_error;

const Knobs kTiny{{"layers", 1}, {"hidden", 8}, {"heads", 2}, {"ffn", 16}, {"seq_len", 4}};

TEST(ModelZoo, ListsModelsWithPaperDefaults) {
    const auto& models = list_models();
    ASSERT_EQ(models.size(), 18u);
    EXPECT_EQ(models[3].name, "lstm");
    EXPECT_EQ(models[4].name, "gru");
    EXPECT_EQ(models[5].name, "rnn");
    EXPECT_EQ(models[6].name, "random_dag");
    EXPECT_EQ(models[7].name, "random_taskgraph");
    EXPECT_EQ(models[8].name, "resnet");
    EXPECT_EQ(models[9].name, "inception_v3");
    EXPECT_EQ(models[10].name, "mobilenet_v2");
    EXPECT_EQ(models[11].name, "mobilenet_v1");
    EXPECT_EQ(models[12].name, "yolo_v3");
    EXPECT_EQ(models[13].name, "wide_and_deep");
    EXPECT_EQ(models[14].name, "siamese_lstm");
    EXPECT_EQ(models[15].name, "mt_dnn");
    EXPECT_EQ(models[16].name, "matmul");
    EXPECT_EQ(models[17].name, "conv");
    EXPECT_EQ(models[0].name, "bert");
    EXPECT_EQ(models[1].name, "roberta");
    EXPECT_EQ(models[2].name, "gpt2");
    auto knob = [](const ModelInfo& m, const std::string& name) {
        for (const auto& k : m.knobs) {
            if (k.name == name)
                return k.default_value;
        }
        ADD_FAILURE() << m.name << " has no knob " << name;
        return std::int64_t{-1};
    };
    // lee2022 Tables 2-3: BERT-small, RoBERTa-base, GPT-2 small; p = 16, batch 1.
    EXPECT_EQ(knob(models[0], "layers"), 4);
    EXPECT_EQ(knob(models[0], "hidden"), 512);
    EXPECT_EQ(knob(models[0], "heads"), 8);
    EXPECT_EQ(knob(models[0], "ffn"), 2048);
    EXPECT_EQ(knob(models[0], "vocab"), 30522);
    EXPECT_EQ(knob(models[1], "layers"), 12);
    EXPECT_EQ(knob(models[1], "hidden"), 768);
    EXPECT_EQ(knob(models[1], "vocab"), 50265);
    EXPECT_EQ(knob(models[2], "ffn"), 3072);
    EXPECT_EQ(knob(models[2], "vocab"), 50257);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(knob(models[i], "seq_len"), 16);
        EXPECT_EQ(knob(models[i], "batch"), 1);
    }
    for (const auto& m : models)
        EXPECT_FALSE(m.description.empty());
}

struct PaperCounts {
    const char* model;
    int nodes;  // what the generator produces
    int edges;
    int paper_nodes;  // lee2022 Table 3
    int paper_edges;
};

TEST(ModelZoo, NodeAndEdgeCountsNearLee2022Table3) {
    for (const PaperCounts& c :
         {PaperCounts{"bert", 223, 263, 222, 262}, PaperCounts{"roberta", 632, 753, 616, 725},
          PaperCounts{"gpt2", 1960, 2456, 1934, 2424}}) {
        SCOPED_TRACE(c.model);
        const Graph g = build_model(c.model, {});
        EXPECT_TRUE(g.finalized());
        EXPECT_EQ(g.op_count(), c.nodes);
        EXPECT_EQ(g.edge_count(), c.edges);
        EXPECT_LE(std::abs(g.op_count() - c.paper_nodes), 0.15 * c.paper_nodes);
        EXPECT_LE(std::abs(g.edge_count() - c.paper_edges), 0.15 * c.paper_edges);
    }
    // GPT-2 without the dynamic-shape subgraphs is far smaller than the paper's CG.
    const Graph static_gpt2 = build_model("gpt2", {{"shape_ops", 0}});
    EXPECT_EQ(static_gpt2.op_count(), 722);
    EXPECT_EQ(histogram(static_gpt2).count("Shape"), 0u);
}

// From opset 17 the exporter writes LayerNorm as one LayerNormalization (9 ops fewer each), from
// 20 GELU as one Gelu (BERT's erf form: 5 ops, GPT-2's tanh form: 8): 4 layers of BERT-small
// have 9 LayerNorms and 4 GELUs.
TEST(ModelZoo, OpsetSeventeenFusesLayerNormAndTwentyGelu) {
    const Graph decomposed = build_model("bert", {});
    const Graph opset17 = build_model("bert", {{"opset", 17}});
    const Graph opset20 = build_model("bert", {{"opset", 20}});
    EXPECT_EQ(opset17.op_count(), decomposed.op_count() - 9 * 8);
    EXPECT_EQ(opset20.op_count(), opset17.op_count() - 4 * 4);
    EXPECT_EQ(histogram(decomposed).count("LayerNormalization"), 0u);
    EXPECT_EQ(histogram(opset17).at("LayerNormalization"), 9);
    EXPECT_EQ(histogram(opset17).count("ReduceMean"), 0u);
    EXPECT_EQ(histogram(opset17).at("Erf"), 4);
    EXPECT_EQ(histogram(opset20).at("Gelu"), 4);
    EXPECT_EQ(histogram(opset20).count("Erf"), 0u);
    // The work stays: the same GEMMs, within the element-wise FLOP formulas' difference.
    EXPECT_NEAR(opset20.total_flops(), decomposed.total_flops(), 0.02 * decomposed.total_flops());
    // GPT-2: 12 layers, 25 LayerNorms, 12 tanh GELUs.
    const Graph gpt2 = build_model("gpt2", {{"opset", 20}, {"shape_ops", 0}});
    EXPECT_EQ(gpt2.op_count(), 722 - 25 * 8 - 12 * 7);
    for (const sim::Op& op : gpt2.ops()) {
        if (op.type == "Gelu") {
            EXPECT_EQ(std::get<std::string>(op.attrs.at("approximate")), "tanh");
        }
    }
    // The generators know no export before opset 13.
    EXPECT_THAT(build_error("bert", {{"opset", 12}}), HasSubstr("opset"));
}

// The transformer generators (the rest of the zoo has other knobs and inputs).
const std::vector<std::string> kTransformers{"bert", "roberta", "gpt2"};

TEST(ModelZoo, EveryConfigurationFinalizes) {
    for (const auto& name : kTransformers) {
        SCOPED_TRACE(name);
        const ModelInfo m{name, "", {}};
        for (const Knobs& k :
             {Knobs{}, kTiny, Knobs{{"seq_len", 64}}, Knobs{{"batch", 2}, {"seq_len", 8}}}) {
            const Graph g = build_model(m.name, k);
            EXPECT_TRUE(g.finalized());
            EXPECT_EQ(g.topo_order().size(), static_cast<std::size_t>(g.op_count()));
            EXPECT_GT(g.total_flops(), 0.0);
        }
    }
    const Graph g = build_model("gpt2", {{"shape_ops", 0}, {"presents", 0}, {"batch", 3}});
    EXPECT_TRUE(g.finalized());
    // The structure does not depend on the sequence length.
    EXPECT_EQ(build_model("bert", {{"seq_len", 8}}).op_count(),
              build_model("bert", {{"seq_len", 64}}).op_count());
}

TEST(ModelZoo, Deterministic) {
    const Graph a = build_model("gpt2", {});
    const Graph b = build_model("gpt2", {});
    ASSERT_EQ(a.op_count(), b.op_count());
    for (int i = 0; i < a.op_count(); ++i)
        EXPECT_EQ(a.op(i).name, b.op(i).name);
    EXPECT_EQ(a.topo_order(), b.topo_order());
    EXPECT_DOUBLE_EQ(a.total_flops(), b.total_flops());
}

TEST(ModelZoo, BertHistogramHasTheDecompositions) {
    const int layers = 4;
    const auto h = histogram(build_model("bert", {}));
    // One LayerNorm in the embeddings and two per layer, each ReduceMean x2, Pow, Sqrt.
    EXPECT_EQ(h.at("Sqrt"), 2 * layers + 1);
    EXPECT_EQ(h.at("Pow"), 2 * layers + 1);
    EXPECT_EQ(h.at("ReduceMean"), 2 * (2 * layers + 1));
    EXPECT_EQ(h.at("Erf"), layers);  // exact GELU
    EXPECT_EQ(h.at("Softmax"), layers);
    EXPECT_EQ(h.at("MatMul"), 8 * layers);  // Q, K, V, out, FFN x2 + QK^T, PV
    EXPECT_EQ(h.at("Gemm"), 2);             // pooler + classifier
    EXPECT_EQ(h.at("Tanh"), 1);
    EXPECT_EQ(h.at("Gather"), 4);  // word, token type, position, [CLS]
    EXPECT_EQ(h.at("Transpose"), 4 * layers);
    EXPECT_EQ(h.at("Reshape"), 4 * layers);
    EXPECT_EQ(h.at("Unsqueeze"), 2);  // extended attention mask, computed once
    EXPECT_EQ(h.at("Cast"), 1);
}

TEST(ModelZoo, RobertaHistogramHasPositionIdsFromInputIds) {
    const int layers = 12;
    const auto h = histogram(build_model("roberta", {}));
    EXPECT_EQ(h.at("Sqrt"), 2 * layers + 1);
    EXPECT_EQ(h.at("Erf"), layers);
    EXPECT_EQ(h.at("MatMul"), 8 * layers);
    EXPECT_EQ(h.at("Gemm"), 2);
    EXPECT_EQ(h.at("CumSum"), 1);
    EXPECT_EQ(h.at("Equal"), 1);
    EXPECT_EQ(h.at("Not"), 1);
    EXPECT_EQ(h.at("Cast"), 4);  // 3 for position ids, 1 for the mask
}

TEST(ModelZoo, Gpt2HistogramUsesGemmAndTanhGelu) {
    const int layers = 12;
    const auto h = histogram(build_model("gpt2", {}));
    EXPECT_EQ(h.at("Gemm"), 4 * layers);    // c_attn, attn.c_proj, c_fc, mlp.c_proj
    EXPECT_EQ(h.at("MatMul"), 2 * layers);  // attention only
    EXPECT_EQ(h.at("Split"), layers);
    EXPECT_EQ(h.at("Tanh"), layers);
    EXPECT_EQ(h.at("Sqrt"), 2 * layers + 1);
    EXPECT_EQ(h.at("Pow"), (2 * layers + 1) + layers);  // LayerNorms + x^3 of the GELU
    EXPECT_EQ(h.at("Slice"), 2 * layers);               // causal mask from the bias buffer
    EXPECT_EQ(h.at("Softmax"), layers);
    EXPECT_EQ(h.count("Erf"), 0u);
    EXPECT_GT(h.at("Shape"), 0);
}

TEST(ModelZoo, Gpt2HasNoMatMulProjections) {
    const Graph g = build_model("gpt2", {});
    std::multiset<std::vector<std::int64_t>> gemm_weights;
    for (const auto& op : g.ops()) {
        if (op.type == "MatMul") {
            for (int t : op.inputs) {
                EXPECT_EQ(g.tensor(t).kind, TensorKind::activation) << op.name;
            }
        }
        if (op.type == "Gemm") {
            EXPECT_EQ(op.attr_int("transB", 0), 0) << op.name;
            EXPECT_EQ(g.tensor(op.inputs[1]).kind, TensorKind::weight);
            gemm_weights.insert(g.tensor(op.inputs[1]).shape);
        }
    }
    // lee2022 Table 2, GPT-2 Gemm (p,q)x(q,r)+(r).
    for (const std::vector<std::int64_t>& w :
         {std::vector<std::int64_t>{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}}) {
        EXPECT_EQ(gemm_weights.count(w), 12u) << w[0] << "x" << w[1];
    }
}

TEST(ModelZoo, BertProjectionsMatchTable2) {
    const Graph g = build_model("bert", {});
    std::multiset<std::vector<std::int64_t>> matmul_weights;
    std::multiset<std::vector<std::int64_t>> gemm_weights;
    for (const auto& op : g.ops()) {
        if (op.type == "MatMul" && g.tensor(op.inputs[1]).kind == TensorKind::weight) {
            matmul_weights.insert(g.tensor(op.inputs[1]).shape);
        }
        if (op.type == "Gemm") {
            EXPECT_EQ(op.attr_int("transB", 0), 1);  // Table 2 Gemm (2): (p,q)x(r,q)^T+(r)
            gemm_weights.insert(g.tensor(op.inputs[1]).shape);
        }
    }
    EXPECT_EQ(matmul_weights.count({512, 512}), 16u);  // Q, K, V, attention output x 4 layers
    EXPECT_EQ(matmul_weights.count({512, 2048}), 4u);
    EXPECT_EQ(matmul_weights.count({2048, 512}), 4u);
    EXPECT_EQ(gemm_weights.count({512, 512}), 1u);
    EXPECT_EQ(gemm_weights.count({2, 512}), 1u);
}

TEST(ModelZoo, DecompositionsInOrder) {
    const Graph bert = build_model("bert", {});
    EXPECT_EQ(types_in_scope(bert, "/bert/embeddings/LayerNorm/"),
              (std::vector<std::string>{"ReduceMean", "Sub", "Pow", "ReduceMean", "Add", "Sqrt",
                                        "Div", "Mul", "Add"}));
    EXPECT_EQ(types_in_scope(bert, "/bert/encoder/layer.0/intermediate/intermediate_act_fn/"),
              (std::vector<std::string>{"Div", "Erf", "Add", "Mul", "Mul"}));
    EXPECT_EQ(types_in_scope(bert, "/bert/encoder/layer.0/attention/self/query/"),
              (std::vector<std::string>{"MatMul", "Add", "Reshape", "Transpose"}));
    EXPECT_EQ(types_in_scope(bert, "/bert/encoder/layer.0/attention/self/"),
              (std::vector<std::string>{"MatMul", "Div", "Add", "Softmax", "MatMul", "Transpose",
                                        "Reshape"}));
    EXPECT_EQ(types_in_scope(bert, "/bert/"),
              (std::vector<std::string>{"Unsqueeze", "Unsqueeze", "Cast", "Sub", "Mul"}));
    EXPECT_EQ(types_in_scope(bert, "/bert/pooler/"),
              (std::vector<std::string>{"Gather", "Gemm", "Tanh", "Gemm"}));
    const Graph gpt2 = build_model("gpt2", {});
    EXPECT_EQ(types_in_scope(gpt2, "/transformer/h.0/mlp/"),
              (std::vector<std::string>{"Mul", "Pow", "Mul", "Add", "Mul", "Tanh", "Add", "Mul"}));
}

TEST(ModelZoo, TensorKindsAndDtypes) {
    for (const auto& name : kTransformers) {
        SCOPED_TRACE(name);
        const ModelInfo m{name, "", {}};
        const Graph g = build_model(m.name, {});
        const auto ids = g.find_tensor("input_ids");
        ASSERT_TRUE(ids.has_value());
        EXPECT_EQ(g.tensor(*ids).kind, TensorKind::input);
        EXPECT_EQ(g.tensor(*ids).dtype, DType::i64);
        EXPECT_EQ(g.tensor(*ids).shape, (Shape{1, 16}));
        if (m.name != "gpt2") {
            const auto mask = g.find_tensor("attention_mask");
            ASSERT_TRUE(mask.has_value());
            EXPECT_EQ(g.tensor(*mask).kind, TensorKind::input);
            EXPECT_EQ(g.tensor(*mask).dtype, DType::i64);
        }
        for (const auto& op : g.ops()) {
            if (op.type != "MatMul" && op.type != "Gemm")
                continue;
            for (int t : op.inputs) {
                const Tensor& tensor = g.tensor(t);
                EXPECT_NE(tensor.kind, TensorKind::input);
                if (tensor.kind == TensorKind::weight) {
                    EXPECT_EQ(tensor.dtype, DType::f32);
                }
            }
        }
    }
}

TEST(ModelZoo, BertParameterBytes) {
    // BERT-small parameters (fp32), plus the int64 position ids and the shared scalars.
    const std::int64_t v = 30522, p = 512, h = 512, f = 2048, l = 4;
    const std::int64_t embeddings = (v + p + 2) * h + 2 * h;
    const std::int64_t layer = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 2 * 2 * h;
    const std::int64_t head = (h * h + h) + (2 * h + 2);
    const std::int64_t params = embeddings + l * layer + head;
    const Graph g = build_model("bert", {});
    std::int64_t weight_bytes = 0;
    for (const auto& t : g.tensors()) {
        if (t.kind == TensorKind::weight && t.dtype == DType::f32 && !t.shape.empty()) {
            weight_bytes += t.size_bytes();
        }
    }
    EXPECT_EQ(weight_bytes, 4 * params);
    EXPECT_GE(g.total_weight_bytes(), 4 * params);
    EXPECT_LT(g.total_weight_bytes(), 4 * params + 1024);
}

TEST(ModelZoo, BertLayerFlopsByHand) {
    const Graph g = build_model("bert", kTiny);
    const double s = 4, h = 8, heads = 2, d = 4, f = 16;
    const double ln = 7 * s * h + 2 * s;  // 2 ReduceMean, Sub, Pow, Div, Mul, Add + Add, Sqrt
    const double attention = 3 * (2 * s * h * h + s * h)  // Q, K, V: MatMul + bias Add
                             + 2 * heads * s * s * d      // QK^T
                             + heads * s * s              // Div
                             + heads * s * s              // Add(mask)
                             + 5 * heads * s * s          // Softmax
                             + 2 * heads * s * d * s      // PV
                             + 2 * s * h * h + s * h      // output projection
                             + s * h;                     // residual
    const double ffn = 2 * s * h * f + s * f              // intermediate MatMul + Add
                       + 5 * s * f                        // GELU
                       + 2 * s * f * h + s * h + s * h;   // output MatMul + Add, residual
    EXPECT_DOUBLE_EQ(flops_under(g, "/bert/encoder/layer.0/"), attention + ln + ffn + ln);
}

TEST(ModelZoo, Gpt2LayerFlopsByHand) {
    const double s = 4, h = 8, heads = 2, d = 4, f = 16;
    const double ln = 7 * s * h + 2 * s;
    const double mask = heads * s * s + heads * s * s;                // w*b, w*b - penalty
    const double attention = 2 * s * 3 * h * h + s * 3 * h            // c_attn Gemm with bias
                             + 2 * heads * s * s * d + heads * s * s  // QK^T, Div
                             + mask + 5 * heads * s * s + 2 * heads * s * d * s  // Softmax, PV
                             + 2 * s * h * h + s * h;                            // c_proj
    const double mlp = 2 * s * h * f + s * f + 8 * s * f + 2 * s * f * h + s * h;
    const double block = ln + attention + s * h + ln + mlp + s * h;
    // Static shapes: the mask penalty 1e4*(1-b) is a folded constant.
    EXPECT_DOUBLE_EQ(flops_under(build_model("gpt2", {{"layers", 1},
                                                      {"hidden", 8},
                                                      {"heads", 2},
                                                      {"ffn", 16},
                                                      {"seq_len", 4},
                                                      {"shape_ops", 0}}),
                                 "/transformer/h.0/"),
                     block);
    // Dynamic shapes: 1-b and 1e4*(1-b) on the [1,1,s,s] slice are computed; the integer shape
    // arithmetic (Div, Mul, Sub on sizes) is no floating-point work.
    EXPECT_DOUBLE_EQ(flops_under(build_model("gpt2", kTiny), "/transformer/h.0/"),
                     block + 2 * s * s);
}

TEST(ModelZoo, InvalidKnobValues) {
    EXPECT_THAT(build_error("bert", {{"hidden", 512}, {"heads", 7}}),
                HasSubstr("hidden (512) must be divisible by heads (7)"));
    EXPECT_THAT(build_error("gpt2", {{"layers", 0}}),
                HasSubstr("'layers' must be in [1, 1000000], got 0"));
    EXPECT_THAT(build_error("roberta", {{"seq_len", -3}}), HasSubstr("'seq_len' must be > 0"));
    EXPECT_THAT(build_error("bert", {{"heads", 0}}), HasSubstr("'heads' must be > 0"));
    EXPECT_THAT(build_error("gpt2", {{"shape_ops", 2}}), HasSubstr("must be 0 or 1"));
    EXPECT_THAT(build_error("bert", {{"seq_len", 513}}),
                HasSubstr("seq_len (513) exceeds max_positions (512)"));
    EXPECT_THAT(build_error("roberta", {{"seq_len", 513}}), HasSubstr("max_positions (514)"));
    EXPECT_NO_THROW(build_model("roberta", {{"seq_len", 512}}));
}

TEST(ModelZoo, UnknownModelsAndKnobsSuggest) {
    const std::string model = build_error("bret", {});
    EXPECT_THAT(model, HasSubstr("unknown model 'bret'"));
    EXPECT_THAT(model, HasSubstr("did you mean 'bert'"));
    EXPECT_THAT(build_error("gpt3", {}), HasSubstr("did you mean 'gpt2'"));
    EXPECT_THAT(build_error("resnet50", {}), HasSubstr("did you mean 'resnet'"));
    const std::string far = build_error("alexnet", {});
    EXPECT_THAT(far, Not(HasSubstr("did you mean")));
    EXPECT_THAT(far, HasSubstr("bert, roberta, gpt2, lstm, gru, rnn, random_dag"));
    const std::string knob = build_error("bert", {{"layer", 2}});
    EXPECT_THAT(knob, HasSubstr("no knob 'layer'"));
    EXPECT_THAT(knob, HasSubstr("did you mean 'layers'"));
    EXPECT_THAT(build_error("gpt2", {{"seqlen", 8}}), HasSubstr("did you mean 'seq_len'"));
    // Knobs of another model are unknown here.
    EXPECT_THAT(build_error("bert", {{"shape_ops", 0}}), HasSubstr("no knob 'shape_ops'"));
}

// Found by tests/fuzz (sweep_yaml): an LSTM of 2^32 layers was built op by op until the graph's
// op limit, 4 s in release and past the fuzz smoke's 25 s under ASan. A knob that repeats
// structure is now refused against the limit before anything is built.
TEST(ModelZoo, KnobsThatRepeatStructureStopAtTheOpLimit) {
    const auto message = [](const std::string& model, const Knobs& knobs) {
        try {
            (void)build_model(model, knobs);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("built");
    };
    EXPECT_EQ(message("lstm", {{"layers", std::int64_t{1} << 32}}),
              "model 'lstm': knob 'layers' must be in [1, 1000000], got 4294967296");
    EXPECT_EQ(message("bert", {{"layers", 1'000'001}}),
              "model 'bert': knob 'layers' must be in [1, 1000000], got 1000001");
    EXPECT_EQ(message("wide_and_deep", {{"rnn_layers", std::int64_t{1} << 40}}),
              "model 'wide_and_deep': knob 'rnn_layers' must be in [1, 1000000], got " +
                  std::to_string(std::int64_t{1} << 40));
    EXPECT_EQ(message("random_dag", {{"nodes", 2'000'000}}),
              "model 'random_dag': knob 'nodes' must be in [1, 1000000], got 2000000");
    for (const ModelInfo& info : list_models()) {
        for (const KnobInfo& knob : info.knobs) {
            if (knob.name == "layers" || knob.name.ends_with("_layers") || knob.name == "nodes") {
                EXPECT_LE(knob.max_value, kMaxGraphOps) << info.name << "." << knob.name;
            }
        }
    }
}

}  // namespace
}  // namespace hetsim::sim::workloads
