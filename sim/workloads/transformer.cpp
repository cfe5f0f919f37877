// BERT, RoBERTa and GPT-2 at the operator granularity of the computational graph (CG) that
// ONNX Runtime builds from a PyTorch export (lee2022 §2, §4: "ONNX Runtime represents the
// computation as a computational graph CG(V_c, E_c)"). Op structure follows the HuggingFace
// modules op by op; sizes follow lee2022 Table 2 (which operators and matrix shapes appear)
// and Table 3 (CG sizes 222 / 616 / 1934 nodes for BERT-small / RoBERTa-base / GPT-2 small).
//
// Two export styles are needed to explain Table 3:
//  * BERT and RoBERTa (~50 ops per layer): a static-shape export after ORT's basic (level-1)
//    optimisations, in which every shape computation is constant-folded. 4 layers x 50 + 23
//    = 223 nodes vs 222, 12 x 50 + 32 = 632 vs 616. K is transposed by one Transpose with
//    perm (0,2,3,1): PyTorch exports permute(0,2,1,3) followed by transpose(-1,-2), which ORT's
//    transpose optimiser fuses; keeping both would give 227 / 644.
//  * GPT-2 (~161 ops per layer): 1934 nodes cannot come from a static graph (~59 ops per
//    layer, 722 nodes). They match a dynamic-axes export of GPT2Model without LM head and with
//    per-layer "present" outputs -- our inference: the ONNX Model Zoo gpt2 model is such an
//    export, and a missing LM head explains Table 2 listing no MatMul projection for GPT-2 --
//    in which every x.size(i) of the HF code is a Shape -> Gather pair and every view() an
//    Unsqueeze/Concat/Reshape chain. The `shape_ops` knob (default 1) emits those
//    subgraphs (12 x 161 + 28 = 1960 nodes vs 1934); shape_ops=0 gives the static graph.
// Edges (activation producer -> consumer pairs, Graph::edge_count) at the defaults: 263 vs 262,
// 753 vs 725, 2456 vs 2424.
#include "sim/workloads/transformer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "sim/workloads/graph_builder.hpp"

namespace hetsim::sim::workloads {

namespace {

using Ints = std::vector<std::int64_t>;

constexpr std::int64_t i64(std::int64_t v) {
    return v;
}

// Opsets from which the exporter emits one op where it used to decompose (onnx.ai operator
// changelog: LayerNormalization-17, Gelu-20).
constexpr std::int64_t kLayerNormalizationOpset = 17;
constexpr std::int64_t kGeluOpset = 20;

// LayerNorm as the PyTorch exporter decomposes it below opset 17: ReduceMean, Sub, Pow,
// ReduceMean, Add(eps), Sqrt, Div, Mul(gamma), Add(beta). Table 2's (p,r)-(p) Sub and
// (p,r)x(r) Mul are this decomposition. From opset 17: one LayerNormalization.
int layer_norm(GraphBuilder& b, int x, const std::string& weight_prefix, double eps,
               std::int64_t opset) {
    const std::int64_t hidden = b.shape(x).back();
    if (opset >= kLayerNormalizationOpset) {
        return b.op("LayerNormalization",
                    {x, b.weight(weight_prefix + ".weight", {hidden}),
                     b.weight(weight_prefix + ".bias", {hidden})},
                    {{"axis", i64(-1)}, {"epsilon", eps}});
    }
    const Attributes last_axis{{"axes", Ints{-1}}, {"keepdims", i64(1)}};
    int mean = b.op("ReduceMean", {x}, last_axis);
    int centered = b.op("Sub", {x, mean});
    int squared = b.op("Pow", {centered, b.scalar(2.0)});
    int var = b.op("ReduceMean", {squared}, last_axis);
    int var_eps = b.op("Add", {var, b.scalar(eps)});
    int stddev = b.op("Sqrt", {var_eps});
    int normed = b.op("Div", {centered, stddev});
    int scaled = b.op("Mul", {normed, b.weight(weight_prefix + ".weight", {hidden})});
    return b.op("Add", {scaled, b.weight(weight_prefix + ".bias", {hidden})});
}

// Exact GELU as torch exports F.gelu: x * 0.5 * (1 + erf(x / sqrt 2)) -> Div, Erf, Add, Mul,
// Mul (Table 2's (p,r)+(1), (p,r)x(p,r) and (p,r)x(1) rows with r = FFN size). From opset
// 20: one Gelu.
int gelu_erf(GraphBuilder& b, int x, std::int64_t opset) {
    if (opset >= kGeluOpset)
        return b.op("Gelu", {x});
    int scaled = b.op("Div", {x, b.scalar(std::numbers::sqrt2)});
    int erf = b.op("Erf", {scaled});
    int shifted = b.op("Add", {erf, b.scalar(1.0)});
    int prod = b.op("Mul", {x, shifted});
    return b.op("Mul", {prod, b.scalar(0.5)});
}

// GPT-2's tanh GELU, 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3))): Mul, Pow, Mul, Add, Mul,
// Tanh, Add, Mul -- 8 ops (the expression has no ninth). From opset 20: one Gelu.
int gelu_tanh(GraphBuilder& b, int x, std::int64_t opset) {
    if (opset >= kGeluOpset)
        return b.op("Gelu", {x}, {{"approximate", std::string("tanh")}});
    int half = b.op("Mul", {x, b.scalar(0.5)});
    int cube = b.op("Pow", {x, b.scalar(3.0)});
    int cube_scaled = b.op("Mul", {cube, b.scalar(0.044715)});
    int inner = b.op("Add", {x, cube_scaled});
    int arg = b.op("Mul", {inner, b.scalar(std::sqrt(2.0 / std::numbers::pi))});
    int t = b.op("Tanh", {arg});
    int one_plus = b.op("Add", {t, b.scalar(1.0)});
    return b.op("Mul", {half, one_plus});
}

// ---- BERT / RoBERTa --------------------------------------------------------------------

enum class Encoder { bert, roberta };

struct EncoderNames {
    const char* prefix;       // "bert" / "roberta"
    double ln_eps;            // config.layer_norm_eps
    std::int64_t type_vocab;  // config.type_vocab_size
};

EncoderNames names_of(Encoder e) {
    return e == Encoder::bert ? EncoderNames{"bert", 1e-12, 2} : EncoderNames{"roberta", 1e-5, 1};
}

// One BertLayer / RobertaLayer: self-attention, output projection + residual + LayerNorm,
// intermediate (FFN + GELU), output projection + residual + LayerNorm. 50 ops.
int encoder_layer(GraphBuilder& b, const TransformerConfig& c, int h, int mask,
                  const std::string& wp, double eps) {
    const std::int64_t hd = c.hidden / c.heads;
    int context = -1;
    {
        auto s1 = b.scope("attention");
        auto s2 = b.scope("self");
        auto project = [&](const char* name, const Ints& perm) {
            auto s = b.scope(name);
            int y = linear_matmul(b, h, wp + ".attention.self." + name, c.hidden, c.hidden);
            y = b.op("Reshape", {y}, {{"shape", Ints{c.batch, c.seq_len, c.heads, hd}}});
            return b.op("Transpose", {y}, {{"perm", perm}});
        };
        int q = project("query", {0, 2, 1, 3});
        int k = project("key", {0, 2, 3, 1});  // K^T directly (fused transposes, see top)
        int v = project("value", {0, 2, 1, 3});
        int scores = b.op("MatMul", {q, k});
        scores = b.op("Div", {scores, b.scalar(std::sqrt(static_cast<double>(hd)))});
        scores = b.op("Add", {scores, mask});
        int probs = b.op("Softmax", {scores}, {{"axis", i64(-1)}});
        context = b.op("MatMul", {probs, v});
        context = b.op("Transpose", {context}, {{"perm", Ints{0, 2, 1, 3}}});
        context = b.op("Reshape", {context}, {{"shape", Ints{c.batch, c.seq_len, c.hidden}}});
    }
    int attn_out = -1;
    {
        auto s1 = b.scope("attention");
        auto s2 = b.scope("output");
        int y = [&] {
            auto s = b.scope("dense");
            return linear_matmul(b, context, wp + ".attention.output.dense", c.hidden, c.hidden);
        }();
        y = b.op("Add", {y, h});
        auto s = b.scope("LayerNorm");
        attn_out = layer_norm(b, y, wp + ".attention.output.LayerNorm", eps, c.opset);
    }
    int inter = -1;
    {
        auto s1 = b.scope("intermediate");
        {
            auto s = b.scope("dense");
            inter = linear_matmul(b, attn_out, wp + ".intermediate.dense", c.hidden, c.ffn);
        }
        auto s = b.scope("intermediate_act_fn");
        inter = gelu_erf(b, inter, c.opset);
    }
    auto s1 = b.scope("output");
    int y = [&] {
        auto s = b.scope("dense");
        return linear_matmul(b, inter, wp + ".output.dense", c.ffn, c.hidden);
    }();
    y = b.op("Add", {y, attn_out});
    auto s = b.scope("LayerNorm");
    return layer_norm(b, y, wp + ".output.LayerNorm", eps, c.opset);
}

// Inputs, embeddings, extended attention mask and the encoder layers under scope "<prefix>";
// returns the last hidden states [batch, seq_len, hidden].
int encoder_body(GraphBuilder& b, const TransformerConfig& c, Encoder family) {
    const EncoderNames n = names_of(family);
    const std::string p = n.prefix;
    int ids = b.input("input_ids", {c.batch, c.seq_len}, DType::i64);
    const int attention_mask =
        c.host_mask ? -1 : b.input("attention_mask", {c.batch, c.seq_len}, DType::i64);
    // BERT takes token type ids as a third input; RoBERTa uses its buffered zeros (a constant).
    int token_types =
        family == Encoder::bert
            ? b.input("token_type_ids", {c.batch, c.seq_len}, DType::i64)
            : b.weight(p + ".embeddings.token_type_ids", {c.batch, c.seq_len}, DType::i64);
    auto model_scope = b.scope(p);

    int h = -1;
    {
        auto s = b.scope("embeddings");
        int positions = -1;
        if (family == Encoder::bert) {
            // position_ids[:, :seq_len] of a buffer: constant-folded by the exporter.
            positions = b.weight(p + ".embeddings.position_ids", {1, c.seq_len}, DType::i64);
        } else {
            // create_position_ids_from_input_ids (padding_idx 1): positions count non-pad
            // tokens, (cumsum(ids != pad).type_as(mask) + past_len) * mask + pad. Depends on the
            // input, so it survives constant folding: Equal, Not, Cast, CumSum, Cast, Add, Mul,
            // Cast, Add.
            const double pad = 1.0;
            int is_pad = b.op("Equal", {ids, b.scalar(pad, DType::i64)});
            int not_pad = b.op("Not", {is_pad});
            int mask_i = b.op("Cast", {not_pad}, {{"to", onnx_type_code(DType::i32)}});
            int cum = b.op("CumSum", {mask_i, b.scalar(1.0, DType::i64)}, {{"axis", i64(1)}});
            cum = b.op("Cast", {cum}, {{"to", onnx_type_code(DType::i32)}});
            cum = b.op("Add", {cum, b.scalar(0.0, DType::i32)});  // + past_key_values_length
            int incremental = b.op("Mul", {cum, mask_i});
            int as_long = b.op("Cast", {incremental}, {{"to", onnx_type_code(DType::i64)}});
            positions = b.op("Add", {as_long, b.scalar(pad, DType::i64)});
        }
        int words = [&] {
            auto s2 = b.scope("word_embeddings");
            return b.op(
                "Gather",
                {b.weight(p + ".embeddings.word_embeddings.weight", {c.vocab, c.hidden}), ids});
        }();
        int types = [&] {
            auto s2 = b.scope("token_type_embeddings");
            return b.op("Gather", {b.weight(p + ".embeddings.token_type_embeddings.weight",
                                            {n.type_vocab, c.hidden}),
                                   token_types});
        }();
        h = b.op("Add", {words, types});
        int pos = [&] {
            auto s2 = b.scope("position_embeddings");
            return b.op("Gather", {b.weight(p + ".embeddings.position_embeddings.weight",
                                            {c.max_positions, c.hidden}),
                                   positions});
        }();
        h = b.op("Add", {h, pos});
        auto s2 = b.scope("LayerNorm");
        h = layer_norm(b, h, p + ".embeddings.LayerNorm", n.ln_eps, c.opset);
    }

    // get_extended_attention_mask, computed once: mask[:, None, None, :], cast to float,
    // (1 - mask) * -10000 -> Unsqueeze, Unsqueeze, Cast, Sub, Mul; or, with host_mask, that
    // result fed by the host.
    int mask = -1;
    if (c.host_mask) {
        mask = b.input("extended_attention_mask", {c.batch, 1, 1, c.seq_len}, DType::f32);
    } else {
        mask = b.op("Unsqueeze", {attention_mask}, {{"axes", Ints{1}}});
        mask = b.op("Unsqueeze", {mask}, {{"axes", Ints{2}}});
        mask = b.op("Cast", {mask}, {{"to", onnx_type_code(DType::f32)}});
        mask = b.op("Sub", {b.scalar(1.0), mask});
        mask = b.op("Mul", {mask, b.scalar(-10000.0)});
    }

    {
        auto s = b.scope("encoder");
        for (std::int64_t l = 0; l < c.layers; ++l) {
            auto sl = b.scope(fmt::format("layer.{}", l));
            h = encoder_layer(b, c, h, mask, fmt::format("{}.encoder.layer.{}", p, l), n.ln_eps);
        }
    }
    return h;
}

Graph build_encoder(const TransformerConfig& c, Encoder family) {
    const std::string p = names_of(family).prefix;
    GraphBuilder b(p);
    int h = encoder_body(b, c, family);
    auto model_scope = b.scope(p);
    // Sequence-classification head on the first ([CLS]) token: Gather, Gemm, Tanh, Gemm (Table
    // 2 Gemm (2) with r = hidden and r = 2). BERT: pooler + classifier; RoBERTa: the
    // classification head's dense + out_proj (it has no pooler).
    const bool bert = family == Encoder::bert;
    auto head_scope = b.scope(bert ? "pooler" : "classifier");
    int cls = b.op("Gather", {h, b.scalar(0.0, DType::i64)}, {{"axis", i64(1)}});
    int pooled =
        linear_gemm(b, cls, bert ? p + ".pooler.dense" : "classifier.dense", c.hidden, c.hidden);
    pooled = b.op("Tanh", {pooled});
    int logits =
        linear_gemm(b, pooled, bert ? "classifier" : "classifier.out_proj", c.hidden, c.classes);
    b.graph().mark_output(logits);
    return std::move(b.graph());
}

// ---- GPT-2 -----------------------------------------------------------------------------

// GPT-2 as exported from the HF GPT2Model (transformers 2.x code, opset 10): Conv1D layers are
// addmm -> Gemm (p,q)x(q,r)+(r) on a 2-D view (Table 2 Gemm (1): 768x2304 c_attn, 768x768
// c_proj, 768x3072 c_fc, 3072x768 mlp c_proj), the fused QKV output is Split, the causal mask is
// a slice of the constant `bias` buffer applied as w*b - 1e4*(1-b).
class Gpt2Builder {
public:
    Gpt2Builder(GraphBuilder& b, const TransformerConfig& c) : b_(b), c_(c) {}

    // x.size(i) as traced: Shape -> Gather(i), a rank-0 int64.
    int dim(int x, std::int64_t i) {
        int shape = b_.op("Shape", {x});
        return b_.op("Gather", {shape, b_.scalar(static_cast<double>(i), DType::i64)},
                     {{"axis", i64(0)}});
    }
    int unsqueeze0(int scalar) { return b_.op("Unsqueeze", {scalar}, {{"axes", Ints{0}}}); }
    int const_vec(std::int64_t v) {
        return b_.scalar(static_cast<double>(v), DType::i64, /*vector=*/true);
    }
    // x.view(parts...): with shape ops the target is a Concat of the parts; the static target
    // is also kept as the "shape" attribute (what shape inference reads).
    int view(int x, const std::vector<int>& parts, const Ints& target) {
        if (!c_.shape_ops)
            return b_.op("Reshape", {x}, {{"shape", target}});
        int shape = b_.op("Concat", parts, {{"axis", i64(0)}});
        return b_.op("Reshape", {x, shape}, {{"shape", target}});
    }

    // Conv1D: size_out = x.size()[:-1] + (nf,); addmm(bias, x.view(-1, x.size(-1)), W);
    // view(size_out). 14 ops with shape ops (Shape/Gather x3, Unsqueeze x3, Concat x2, Reshape x2,
    // Gemm), 3 without.
    int conv1d(int x, const std::string& name, const std::string& wp, std::int64_t nf) {
        auto s = b_.scope(name);
        const std::int64_t nx = b_.shape(x).back();
        std::vector<int> out_parts;
        std::vector<int> in_parts;
        if (c_.shape_ops) {
            int d0 = dim(x, 0);
            int d1 = dim(x, 1);
            int d2 = dim(x, 2);
            in_parts = {const_vec(-1), unsqueeze0(d2)};
            out_parts = {unsqueeze0(d0), unsqueeze0(d1), const_vec(nf)};
        }
        int x2 = view(x, in_parts, {-1, nx});
        int y =
            b_.op("Gemm", {x2, b_.weight(wp + ".weight", {nx, nf}), b_.weight(wp + ".bias", {nf})});
        return view(y, out_parts, {c_.batch, c_.seq_len, nf});
    }

    // split_heads: view(x.size()[:-1] + (n_head, x.size(-1) // n_head)), then permute; K is
    // permuted straight to (0,2,3,1). 13 ops with shape ops, 2 without.
    int split_heads(int x, bool key) {
        const std::int64_t hd = c_.hidden / c_.heads;
        std::vector<int> parts;
        if (c_.shape_ops) {
            int d0 = dim(x, 0);
            int d1 = dim(x, 1);
            int d2 = dim(x, 2);
            int per_head = b_.op("Div", {d2, b_.scalar(static_cast<double>(c_.heads), DType::i64)});
            parts = {unsqueeze0(d0), unsqueeze0(d1), const_vec(c_.heads), unsqueeze0(per_head)};
        }
        int r = view(x, parts, {c_.batch, c_.seq_len, c_.heads, hd});
        return b_.op("Transpose", {r}, {{"perm", key ? Ints{0, 2, 3, 1} : Ints{0, 2, 1, 3}}});
    }

    // merge_heads: permute, then view(x.size()[:-2] + (x.size(-2) * x.size(-1),)). 15 / 2 ops.
    int merge_heads(int x) {
        int t = b_.op("Transpose", {x}, {{"perm", Ints{0, 2, 1, 3}}});
        std::vector<int> parts;
        if (c_.shape_ops) {
            int d0 = dim(t, 0);
            int d1 = dim(t, 1);
            int d2 = dim(t, 2);
            int d3 = dim(t, 3);
            int merged = b_.op("Mul", {d2, d3});
            parts = {unsqueeze0(d0), unsqueeze0(d1), unsqueeze0(merged)};
        }
        return view(t, parts, {c_.batch, c_.seq_len, c_.hidden});
    }

    // Causal mask, b = bias[:, :, ns-nd:ns, :ns]; w = w*b - 1e4*(1-b). With shape ops: Shape/
    // Gather x2, Sub, Unsqueeze x3, Slice x2, Mul, Sub, Mul, Sub (14). Without, the slices and
    // 1e4*(1-b) are constants and only Mul and Sub remain.
    int causal_mask(int w, const std::string& wp) {
        const std::int64_t p = c_.max_positions;
        const std::int64_t s = c_.seq_len;
        if (!c_.shape_ops) {
            int b = b_.weight(wp + ".bias_sliced", {1, 1, s, s});
            int penalty = b_.weight(wp + ".masked_bias_folded", {1, 1, s, s});
            return b_.op("Sub", {b_.op("Mul", {w, b}), penalty});
        }
        int bias = b_.weight(wp + ".bias", {1, 1, p, p});
        int nd = dim(w, 2);
        int ns = dim(w, 3);
        int start = b_.op("Sub", {ns, nd});
        int rows = b_.op("Slice", {bias, unsqueeze0(start), unsqueeze0(ns), const_vec(2)},
                         {{"starts", Ints{0}}, {"ends", Ints{s}}, {"axes", Ints{2}}});
        int b = b_.op("Slice", {rows, const_vec(0), unsqueeze0(ns), const_vec(3)},
                      {{"starts", Ints{0}}, {"ends", Ints{s}}, {"axes", Ints{3}}});
        int kept = b_.op("Mul", {w, b});
        int inverse = b_.op("Sub", {b_.scalar(1.0), b});
        int penalty = b_.op("Mul", {inverse, b_.scalar(1e4)});
        return b_.op("Sub", {kept, penalty});
    }

    int block(int h, std::int64_t l) {
        const std::string wp = fmt::format("transformer.h.{}", l);
        const double eps = 1e-5;
        auto sl = b_.scope(fmt::format("h.{}", l));
        int a = -1;
        {
            auto s = b_.scope("ln_1");
            a = layer_norm(b_, h, wp + ".ln_1", eps, c_.opset);
        }
        {
            auto s = b_.scope("attn");
            int qkv = conv1d(a, "c_attn", wp + ".attn.c_attn", 3 * c_.hidden);
            auto parts =
                b_.op_multi("Split", {qkv}, {{"axis", i64(2)}, {"split", Ints(3, c_.hidden)}}, 3);
            int q = split_heads(parts[0], false);
            int k = split_heads(parts[1], true);
            int v = split_heads(parts[2], false);
            if (c_.presents) {
                // present = torch.stack((key.transpose(-2, -1), value)): a graph output per layer.
                int kt = b_.op("Transpose", {k}, {{"perm", Ints{0, 1, 3, 2}}});
                int present = b_.op("Concat",
                                    {b_.op("Unsqueeze", {kt}, {{"axes", Ints{0}}}),
                                     b_.op("Unsqueeze", {v}, {{"axes", Ints{0}}})},
                                    {{"axis", i64(0)}});
                b_.graph().mark_output(present);
            }
            const double hd = static_cast<double>(c_.hidden / c_.heads);
            int w = b_.op("MatMul", {q, k});
            w = b_.op("Div", {w, b_.scalar(std::sqrt(hd))});
            w = causal_mask(w, wp + ".attn");
            w = b_.op("Softmax", {w}, {{"axis", i64(3)}});
            int ctx = b_.op("MatMul", {w, v});
            ctx = merge_heads(ctx);
            a = conv1d(ctx, "c_proj", wp + ".attn.c_proj", c_.hidden);
        }
        h = b_.op("Add", {h, a});
        int m = -1;
        {
            auto s = b_.scope("ln_2");
            m = layer_norm(b_, h, wp + ".ln_2", eps, c_.opset);
        }
        {
            auto s = b_.scope("mlp");
            m = conv1d(m, "c_fc", wp + ".mlp.c_fc", c_.ffn);
            m = gelu_tanh(b_, m, c_.opset);
            m = conv1d(m, "c_proj", wp + ".mlp.c_proj", c_.hidden);
        }
        return b_.op("Add", {h, m});
    }

    void build() {
        int ids = b_.input("input_ids", {c_.batch, c_.seq_len}, DType::i64);
        auto s = b_.scope("transformer");
        // input_shape = input_ids.size(); input_ids = input_ids.view(-1, input_shape[-1]).
        std::vector<int> in_shape;
        std::vector<int> flat_parts;
        if (c_.shape_ops) {
            in_shape = {dim(ids, 0), dim(ids, 1)};
            flat_parts = {const_vec(-1), unsqueeze0(in_shape[1])};
        }
        int flat_ids = view(ids, flat_parts, {-1, c_.seq_len});
        // position_ids = arange(seq).unsqueeze(0).expand_as(input_ids): opset 10 has no Range,
        // so the arange is a traced constant; expand_as is Shape + Expand.
        int positions = b_.weight("transformer.position_ids", {1, c_.seq_len}, DType::i64);
        if (c_.shape_ops) {
            positions = b_.op_shaped("Expand", {positions, b_.op("Shape", {flat_ids})}, {},
                                     b_.shape(flat_ids), DType::i64);
        }
        int words = [&] {
            auto s2 = b_.scope("wte");
            return b_.op("Gather",
                         {b_.weight("transformer.wte.weight", {c_.vocab, c_.hidden}), flat_ids});
        }();
        int pos = [&] {
            auto s2 = b_.scope("wpe");
            return b_.op(
                "Gather",
                {b_.weight("transformer.wpe.weight", {c_.max_positions, c_.hidden}), positions});
        }();
        int h = b_.op("Add", {words, pos});
        // output_shape = input_shape + (hidden_states.size(-1),)
        int hidden_dim = c_.shape_ops ? dim(h, 2) : -1;
        for (std::int64_t l = 0; l < c_.layers; ++l)
            h = block(h, l);
        {
            auto s2 = b_.scope("ln_f");
            h = layer_norm(b_, h, "transformer.ln_f", 1e-5, c_.opset);
        }
        std::vector<int> out_parts;
        if (c_.shape_ops) {
            out_parts = {unsqueeze0(in_shape[0]), unsqueeze0(in_shape[1]), unsqueeze0(hidden_dim)};
        }
        h = view(h, out_parts, {c_.batch, c_.seq_len, c_.hidden});
        b_.graph().mark_output(h);
    }

private:
    GraphBuilder& b_;
    const TransformerConfig& c_;
};

}  // namespace

int add_bert_encoder(GraphBuilder& builder, const TransformerConfig& config) {
    return encoder_body(builder, config, Encoder::bert);
}

Graph build_bert(const TransformerConfig& config) {
    return build_encoder(config, Encoder::bert);
}

Graph build_roberta(const TransformerConfig& config) {
    return build_encoder(config, Encoder::roberta);
}

Graph build_gpt2(const TransformerConfig& config) {
    GraphBuilder b("gpt2");
    Gpt2Builder(b, config).build();
    return std::move(b.graph());
}

}  // namespace hetsim::sim::workloads
