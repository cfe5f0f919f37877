#include "sim/workloads/model_zoo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string_view>

#include "sim/config.hpp"
#include "sim/workloads/cnn.hpp"
#include "sim/workloads/duet_models.hpp"
#include "sim/workloads/kernels.hpp"
#include "sim/workloads/random_dag.hpp"
#include "sim/workloads/random_taskgraph.hpp"
#include "sim/workloads/recurrent.hpp"
#include "sim/workloads/transformer.hpp"

namespace hetsim::sim::workloads {

std::string knob_value_problem(const KnobInfo& k, std::int64_t v) {
    if (v >= k.min_value && v <= k.max_value)
        return "";
    const bool flag = k.min_value == 0 && k.max_value == 1;
    const bool open_ended = k.max_value == (std::int64_t{1} << 62);
    // The bound that was passed: "must be > 0, got 9223372036854775807" misled.
    const std::string range =
        flag                            ? std::string("0 or 1")
        : v > k.max_value && open_ended ? fmt::format("at most {} (2^62)", k.max_value)
        : open_ended ? (k.min_value == 1 ? std::string("> 0") : fmt::format(">= {}", k.min_value))
                     : fmt::format("in [{}, {}]", k.min_value, k.max_value);
    return fmt::format("must be {}, got {}", range, v);
}

namespace {

// " (did you mean 'x'?)" when a candidate is close enough to be a likely typo, else "".
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
    const std::string best = did_you_mean(word, candidates);
    return best.empty() ? std::string{} : fmt::format(" (did you mean '{}'?)", best);
}

// Every knob of the model: the overrides checked against the declared knobs and ranges, the
// defaults for the rest.
Knobs resolve_knobs(const ModelInfo& info, const Knobs& overrides) {
    std::vector<std::string> names;
    for (const auto& k : info.knobs)
        names.push_back(k.name);
    for (const auto& [name, value] : overrides) {
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            throw std::invalid_argument(fmt::format("model '{}' has no knob '{}'{}; knobs: {}",
                                                    info.name, name, suggestion(name, names),
                                                    fmt::join(names, ", ")));
        }
    }
    Knobs resolved;
    for (const auto& k : info.knobs) {
        const auto it = overrides.find(k.name);
        const std::int64_t v = it == overrides.end() ? k.default_value : it->second;
        if (const std::string problem = knob_value_problem(k, v); !problem.empty())
            throw std::invalid_argument(
                fmt::format("model '{}': knob '{}' {}", info.name, k.name, problem));
        resolved[k.name] = v;
    }
    return resolved;
}

TransformerConfig make_config(const ModelInfo& info, const Knobs& overrides);

using Builder = std::function<Graph(const ModelInfo&, const Knobs& overrides)>;

template <Graph (*build)(const TransformerConfig&)>
Graph transformer(const ModelInfo& info, const Knobs& overrides) {
    return build(make_config(info, overrides));
}

template <Graph (*build)(const RecurrentConfig&)>
Graph recurrent(const ModelInfo& info, const Knobs& overrides) {
    const Knobs k = resolve_knobs(info, overrides);
    RecurrentConfig c;
    c.layers = k.at("layers");
    c.hidden = k.at("hidden");
    c.input = k.at("input");
    c.seq_len = k.at("seq_len");
    c.batch = k.at("batch");
    c.fused = k.at("fused") != 0;
    return build(c);
}

std::vector<KnobInfo> recurrent_knobs() {
    return {{"layers", 1, "stacked layers"},
            {"hidden", 256, "hidden size H"},
            {"input", 256, "input features of x_t"},
            {"seq_len", 16, "time steps, unrolled"},
            {"batch", 1, "batch size"},
            {"fused", 0, "1: one ONNX LSTM/GRU/RNN op per layer, as torch.onnx exports it", 0, 1}};
}

Graph random_task_graph_model(const ModelInfo& info, const Knobs& overrides) {
    const Knobs k = resolve_knobs(info, overrides);
    RandomTaskGraphConfig c;
    c.tasks = static_cast<int>(k.at("tasks"));
    c.processors = static_cast<int>(k.at("processors"));
    c.fat = static_cast<double>(k.at("fat_percent")) / 100.0;
    c.density = static_cast<double>(k.at("density_percent")) / 100.0;
    c.regularity = static_cast<double>(k.at("regularity_percent")) / 100.0;
    c.jump = static_cast<int>(k.at("jump"));
    c.ccr = static_cast<double>(k.at("ccr_percent")) / 100.0;
    c.beta = static_cast<double>(k.at("beta_percent")) / 100.0;
    c.mean_cost_s = static_cast<double>(k.at("mean_cost_ms")) * 1e-3;
    c.seed = static_cast<std::uint64_t>(k.at("seed"));
    return build_random_taskgraph(c);
}

DType kernel_dtype(const Knobs& k) {
    return k.at("bf16") != 0 ? DType::bf16 : DType::f32;
}

Graph matmul(const ModelInfo& info, const Knobs& overrides) {
    const Knobs k = resolve_knobs(info, overrides);
    return build_matmul({k.at("batch"), k.at("m"), k.at("k"), k.at("n"), kernel_dtype(k),
                         k.at("trans_a") != 0, k.at("trans_b") != 0});
}

Graph conv(const ModelInfo& info, const Knobs& overrides) {
    const Knobs k = resolve_knobs(info, overrides);
    return build_conv({k.at("batch"), k.at("channels"), k.at("height"), k.at("width"),
                       k.at("out_channels"), k.at("kernel_h"), k.at("kernel_w"), k.at("stride"),
                       k.at("pad_h"), k.at("pad_w"), k.at("dilation"), k.at("group"),
                       kernel_dtype(k)});
}

Graph random_dag(const ModelInfo& info, const Knobs& overrides) {
    const Knobs k = resolve_knobs(info, overrides);
    RandomDagConfig c;
    c.seed = static_cast<std::uint64_t>(k.at("seed"));
    c.nodes = k.at("nodes");
    c.width = k.at("width");
    c.skip_percent = k.at("skip_percent");
    c.matmul_percent = k.at("matmul_percent");
    c.hidden = k.at("hidden");
    c.batch = k.at("batch");
    return build_random_dag(c);
}

CnnConfig cnn_config(const Knobs& k) {
    return {k.at("batch"), k.at("image"), k.at("classes")};
}

std::vector<KnobInfo> cnn_knobs(std::int64_t image) {
    return {{"batch", 1, "batch size"},
            {"image", image, "input height = width"},
            {"classes", 1000, "classifier outputs"}};
}

Graph resnet(const ModelInfo& info, const Knobs& overrides) {
    const Knobs k = resolve_knobs(info, overrides);
    return build_resnet(k.at("depth"), cnn_config(k));
}

template <Graph (*build)(const CnnConfig&)>
Graph cnn(const ModelInfo& info, const Knobs& overrides) {
    return build(cnn_config(resolve_knobs(info, overrides)));
}

Graph wide_and_deep(const ModelInfo& info, const Knobs& overrides) {
    const Knobs k = resolve_knobs(info, overrides);
    WideAndDeepConfig c;
    c.batch = k.at("batch");
    c.wide = k.at("wide");
    c.deep_input = k.at("deep_input");
    c.deep_embed = k.at("deep_embed");
    c.deep_hidden1 = k.at("deep_hidden1");
    c.deep_hidden2 = k.at("deep_hidden2");
    c.deep_layers = k.at("deep_layers");
    c.image = k.at("image");
    c.resnet = k.at("resnet");
    c.rnn_seq_len = k.at("rnn_seq_len");
    c.rnn_embed = k.at("rnn_embed");
    c.rnn_vocab = k.at("rnn_vocab");
    c.rnn_layers = k.at("rnn_layers");
    c.rnn_hidden = k.at("rnn_hidden");
    c.fused = k.at("fused") != 0;
    const auto& depths = resnet_depths();
    if (std::find(depths.begin(), depths.end(), c.resnet) == depths.end()) {
        throw std::invalid_argument(
            fmt::format("model '{}': knob 'resnet' must be one of {}, got {}", info.name,
                        fmt::join(depths, ", "), c.resnet));
    }
    return build_wide_and_deep(c);
}

Graph mt_dnn(const ModelInfo& info, const Knobs& overrides) {
    const Knobs k = resolve_knobs(info, overrides);
    MtDnnConfig c;
    c.encoder = make_config(info, overrides);
    c.lstm_layers = k.at("lstm_layers");
    c.lstm_hidden = k.at("lstm_hidden");
    c.tasks = k.at("tasks");
    c.fused = k.at("fused") != 0;
    return build_mt_dnn(c);
}

struct ModelEntry {
    ModelInfo info;
    Builder build;
};

std::vector<KnobInfo> transformer_knobs(std::int64_t layers, std::int64_t hidden,
                                        std::int64_t heads, std::int64_t ffn, std::int64_t vocab,
                                        std::int64_t max_positions) {
    return {
        {"layers", layers, "number of transformer blocks"},
        {"hidden", hidden, "hidden size (model width)"},
        {"heads", heads, "attention heads; must divide hidden"},
        {"ffn", ffn, "feed-forward inner size"},
        {"seq_len", 16, "sequence length p (lee2022 §4.3 uses 16; Fig. 9 sweeps 8..64)"},
        {"batch", 1, "batch size"},
        {"vocab", vocab, "vocabulary size (word embedding rows)"},
        {"max_positions", max_positions, "position embedding rows"},
    };
}

// Added after workload labels were recorded: labelled only when set (KnobInfo).
KnobInfo opset_knob() {
    KnobInfo k{"opset", 13,
               "ONNX opset of the export the graph follows: < 17 decomposes LayerNorm into 9 ops "
               "(lee2022's CG sizes), 17 makes it one LayerNormalization, 20 also GELU one Gelu "
               "(what eager PyTorch runs: one kernel each)",
               13, 23};
    k.labelled_at_default = false;
    return k;
}

KnobInfo host_mask_knob() {
    return {"host_mask", 0,
            "1: the extended attention mask is a graph input computed on the host (no mask ops "
            "fanning out to every layer; mcm2022's ring, Eq. 4)",
            0, 1};
}

const std::vector<ModelEntry>& registry() {
    static const std::vector<ModelEntry> entries = [] {
        std::vector<ModelEntry> e;
        {
            ModelInfo info{"bert",
                           "BERT-small sequence classifier (lee2022 Tables 2-3: 4 layers, hidden "
                           "512, 8 heads, FFN 2048; CG of 222 nodes)",
                           transformer_knobs(4, 512, 8, 2048, 30522, 512)};
            info.knobs.push_back({"classes", 2, "classifier outputs (Table 2: r = 2)"});
            info.knobs.push_back(host_mask_knob());
            info.knobs.push_back(opset_knob());
            e.push_back({std::move(info), transformer<build_bert>});
        }
        {
            ModelInfo info{"roberta",
                           "RoBERTa-base sequence classifier (lee2022 Tables 2-3: 12 layers, "
                           "hidden 768, 12 heads, FFN 3072; CG of 616 nodes)",
                           transformer_knobs(12, 768, 12, 3072, 50265, 514)};
            info.knobs.push_back({"classes", 2, "classifier outputs (Table 2: r = 2)"});
            info.knobs.push_back(host_mask_knob());
            info.knobs.push_back(opset_knob());
            e.push_back({std::move(info), transformer<build_roberta>});
        }
        {
            ModelInfo info{"gpt2",
                           "GPT-2 small without LM head (lee2022 Tables 2-3: 12 layers, hidden "
                           "768, 12 heads, FFN 3072; CG of 1934 nodes)",
                           transformer_knobs(12, 768, 12, 3072, 50257, 1024)};
            info.knobs.push_back({"shape_ops", 1,
                                  "1: dynamic-axes export with its Shape/Gather/Unsqueeze/Concat "
                                  "subgraphs (matches the paper's CG size); 0: static shapes",
                                  0, 1});
            info.knobs.push_back(
                {"presents", 1, "1: emit the per-layer present key/value outputs (Concat)", 0, 1});
            info.knobs.push_back(opset_knob());
            e.push_back({std::move(info), transformer<build_gpt2>});
        }
        e.push_back({ModelInfo{"lstm",
                               "stacked LSTM unrolled per time step (EOP's LSTM, DUET's "
                               "Siamese LSTM cells): 2 MatMuls, 4 gates per step and layer; "
                               "fused=1: one LSTM op per layer",
                               recurrent_knobs()},
                     recurrent<build_lstm>});
        e.push_back({ModelInfo{"gru",
                               "stacked GRU unrolled per time step (EOP's GRU), "
                               "linear_before_reset as PyTorch exports it",
                               recurrent_knobs()},
                     recurrent<build_gru>});
        e.push_back({ModelInfo{"rnn",
                               "stacked Elman RNN (nn.RNN, tanh; DeepBench's vanilla RNN "
                               "kernels) unrolled per time step: 2 MatMuls and a Tanh per step "
                               "and layer; fused=1: one ONNX RNN op per layer",
                               recurrent_knobs()},
                     recurrent<build_rnn>});
        e.push_back({ModelInfo{"random_dag",
                               "layered random DAG of MatMul/Add/Relu/Tanh/Sigmoid on [batch, "
                               "hidden] tensors, for stress tests and training sets (mcm2022 "
                               "§5.1 pre-trains on graphs of tens to hundreds of nodes)",
                               {{"seed", 1, "random seed", 0},
                                {"nodes", 50, "compute ops"},
                                {"width", 8, "at most this many ops per layer"},
                                {"skip_percent", 20,
                                 "chance (%) an op adds a tensor 2+ layers back", 0, 100},
                                {"matmul_percent", 30,
                                 "chance (%) an op is a MatMul with its own weight", 0, 100},
                                {"hidden", 256, "activation width"},
                                {"batch", 1, "batch size"}}},
                     random_dag});
        e.push_back(
            {ModelInfo{"random_taskgraph",
                       "random task graph with DAGGEN's shape knobs and Topcuoglu et al. 2002 "
                       "§5.1's costs: Task ops with a cost per processor, for table processors "
                       "linked at 1 GB/s (configs/platforms/table4.yaml; issue 28)",
                       {{"tasks", 100, "tasks (v)", 1, 1'000'000},
                        {"processors", 4, "cost columns; the platform's table processors", 1, 4096},
                        {"fat_percent", 50, "level width n^fat, in % (DAGGEN fat)", 0, 100},
                        {"density_percent", 50, "share of the levels above a task may depend on, %",
                         0, 100},
                        {"regularity_percent", 50, "100: every level the same width, %", 0, 100},
                        {"jump", 1, "edges span at most this many levels", 1},
                        {"ccr_percent", 100, "communication-to-computation ratio, in %", 0},
                        {"beta_percent", 50, "processor heterogeneity beta, in % (0-200)", 0, 200},
                        {"mean_cost_ms", 1000, "mean task cost w_DAG, ms", 1},
                        {"seed", 1, "random seed", 0}}},
             random_task_graph_model});
        {
            ModelInfo info{"resnet",
                           "torchvision ResNet (He et al. 2016; DUET's Wide-and-Deep uses "
                           "ResNet-18), eval export with BatchNorm folded into Conv",
                           {{"depth", 18, "18, 34 (BasicBlock), 50, 101 or 152 (Bottleneck)"}}};
            for (auto& k : cnn_knobs(224))
                info.knobs.push_back(std::move(k));
            e.push_back({std::move(info), resnet});
        }
        {
            ModelInfo info{"inception_v3",
                           "torchvision Inception v3 (Szegedy et al. 2016; EOP), eval export "
                           "without aux logits, BatchNorm folded into Conv",
                           cnn_knobs(299)};
            info.knobs[1].min_value = kInceptionV3MinImage;
            e.push_back({std::move(info), cnn<build_inception_v3>});
        }
        e.push_back({ModelInfo{"mobilenet_v2",
                               "torchvision MobileNetV2, width 1.0 (Sandler et al. 2018; EOP), "
                               "eval export with BatchNorm folded into Conv",
                               cnn_knobs(224)},
                     cnn<build_mobilenet_v2>});
        e.push_back({ModelInfo{"mobilenet_v1",
                               "MobileNet v1, width 1.0, ReLU (Howard et al. 2017 Table 1; EOP's "
                               "MobileNet from TVM testing), BatchNorm folded into Conv",
                               cnn_knobs(224)},
                     cnn<build_mobilenet_v1>});
        {
            ModelInfo info{"yolo_v3",
                           "YOLOv3: Darknet-53 and three detection heads (Redmon and Farhadi "
                           "2018; xu2022 Table 3 at 640), LeakyReLU, BatchNorm folded into Conv",
                           cnn_knobs(640)};
            info.knobs[1].description = "input height = width, a multiple of 32";
            info.knobs[1].min_value = kYoloV3Stride;
            info.knobs[2] = {"classes", 80,
                             "object classes (COCO: 80); a head has "
                             "3 * (5 + classes) channels"};
            e.push_back({std::move(info), cnn<build_yolo_v3>});
        }
        e.push_back(
            {ModelInfo{
                 "wide_and_deep",
                 "DUET's Wide-and-Deep (zhang2021 Table I, Fig. 2): wide linear, FFN, "
                 "ResNet and stacked LSTM encoders summed",
                 {{"batch", 1, "batch size (Table I: 1)"},
                  {"wide", 363, "wide input features (Table I: input_wide (1,363))"},
                  {"deep_input", 13, "FFN input features (Table I: input (1,13))"},
                  {"deep_embed", 192, "FFN embedding width (Table I: embedding 192)"},
                  {"deep_hidden1", 128, "FFN first hidden layer (Table I: [128,64])"},
                  {"deep_hidden2", 64, "FFN second hidden layer (Table I: [128,64])"},
                  {"deep_layers", 2,
                   "FFN hidden layers: the first deep_hidden1 wide, the rest deep_hidden2 "
                   "(Table I: 2; Fig. 16 varies it)",
                   1, 16, false},
                  {"image", 224, "CNN input height and width (Table I: 224)", 32},
                  {"resnet", 18, "CNN ResNet depth: 18/34/50/101/152 (Fig. 15)", 18, 152},
                  {"rnn_seq_len", 80, "RNN token sequence length (Table I: input (1,80))"},
                  {"rnn_embed", 32, "RNN token embedding width (not in Table I)"},
                  {"rnn_vocab", 1000, "RNN vocabulary (not in Table I)"},
                  {"rnn_layers", 2, "stacked LSTM layers (Table I: 2; Fig. 14: 1-8)"},
                  {"rnn_hidden", 64, "LSTM hidden size (Table I: 64)"},
                  {"fused", 0, "1: one ONNX LSTM op per layer instead of unrolled cells", 0, 1}}},
             wide_and_deep});
        e.push_back({ModelInfo{"siamese_lstm",
                               "DUET's Siamese network (zhang2021 Table I): two independent "
                               "stacked-LSTM branches and a distance merge",
                               {{"layers", 2, "stacked LSTM layers per branch (Table I: 2)"},
                                {"hidden", 128, "hidden size (Table I: 128)"},
                                {"input", 64, "features per step (Table I: input (1,64))"},
                                {"seq_len", 64, "time steps (Table I: 64)"},
                                {"batch", 1, "batch size (Table I: 1)"},
                                {"fused", 0, "1: one ONNX LSTM op per layer", 0, 1}}},
                     recurrent<build_siamese_lstm>});
        {
            ModelInfo info{"mt_dnn",
                           "DUET's MT-DNN (zhang2021 Table I, Fig. 3): shared BERT-base encoder "
                           "and per-task stacked-LSTM tag scorers (CRF emissions)",
                           transformer_knobs(12, 768, 12, 3072, 30522, 512)};
            info.knobs[4] = {"seq_len", 32, "sequence length (Table I: 32)"};
            info.knobs.push_back({"lstm_layers", 2, "stacked LSTM layers per task (Table I: 2)"});
            info.knobs.push_back({"lstm_hidden", 256, "LSTM hidden size (Table I: 256)"});
            info.knobs.push_back({"tasks", 10,
                                  "task heads; tags per task 29,3,3,7,9,11,9,25,7,13 (Table I)", 1,
                                  static_cast<std::int64_t>(mt_dnn_tags.size())});
            info.knobs.push_back({"fused", 0, "1: one ONNX LSTM op per layer", 0, 1});
            e.push_back({std::move(info), mt_dnn});
        }
        e.push_back(
            {ModelInfo{
                 "matmul",
                 "one MatMul, a GEMM benchmark's kernel (cuBLAS, DeepBench): [m, k] x "
                 "[k, n], batched with batch > 1, a Gemm with trans_a / trans_b; for "
                 "calibrate's measurement files",
                 {{"m", 1024, "rows of a and y"},
                  {"k", 1024, "the reduced dimension"},
                  {"n", 1024, "columns of b and y"},
                  {"batch", 1, "1: a plain GEMM; more: a batched GEMM"},
                  {"bf16", 0, "1: bfloat16 operands, else float32", 0, 1},
                  {"trans_a", 0, "1: a stored [k, m] (ONNX Gemm transA, BLAS op(A) = A^T)", 0, 1},
                  {"trans_b", 0, "1: b stored [n, k] (ONNX Gemm transB, BLAS op(B) = B^T)", 0, 1}}},
             matmul});
        e.push_back(
            {ModelInfo{"conv",
                       "one Conv (NCHW, no bias), a convolution benchmark's kernel (cuDNN "
                       "forward): symmetric padding, one stride and dilation; for calibrate's "
                       "measurement files",
                       {{"batch", 1, "images"},
                        {"channels", 64, "input channels"},
                        {"height", 56, "input height"},
                        {"width", 56, "input width"},
                        {"out_channels", 64, "output channels (filters)"},
                        {"kernel_h", 3, "filter height"},
                        {"kernel_w", 3, "filter width"},
                        {"stride", 1, "stride on both axes"},
                        {"pad_h", 1, "zero rows above and below", 0},
                        {"pad_w", 1, "zero columns left and right", 0},
                        {"dilation", 1, "dilation on both axes"},
                        {"group", 1, "groups (channels for a depthwise conv)"},
                        {"bf16", 0, "1: bfloat16 operands, else float32", 0, 1}}},
             conv});
        // A knob that repeats structure adds at least one op per unit: past the graph's op
        // limit (sim/graph.hpp) it is refused before building, not after a million ops (4 s,
        // half a minute under ASan; found by tests/fuzz with layers: 4294967296).
        for (ModelEntry& entry : e) {
            for (KnobInfo& knob : entry.info.knobs) {
                const bool repeats =
                    knob.name == "layers" || knob.name.ends_with("_layers") || knob.name == "nodes";
                if (repeats)
                    knob.max_value = std::min<std::int64_t>(knob.max_value, kMaxGraphOps);
            }
        }
        return e;
    }();
    return entries;
}

TransformerConfig make_config(const ModelInfo& info, const Knobs& overrides) {
    const Knobs knobs = resolve_knobs(info, overrides);
    auto get = [&](const std::string& name) { return knobs.at(name); };
    TransformerConfig c;
    c.layers = get("layers");
    c.hidden = get("hidden");
    c.heads = get("heads");
    c.ffn = get("ffn");
    c.seq_len = get("seq_len");
    c.batch = get("batch");
    c.vocab = get("vocab");
    c.max_positions = get("max_positions");
    if (knobs.count("classes") != 0)
        c.classes = get("classes");
    if (knobs.count("host_mask") != 0)
        c.host_mask = get("host_mask") != 0;
    if (knobs.count("opset") != 0)
        c.opset = get("opset");
    if (info.name == "gpt2") {
        c.shape_ops = get("shape_ops") != 0;
        c.presents = get("presents") != 0;
    }
    if (c.hidden % c.heads != 0) {
        throw std::invalid_argument(
            fmt::format("model '{}': hidden ({}) must be divisible by heads ({})", info.name,
                        c.hidden, c.heads));
    }
    // RoBERTa's position ids start after padding_idx (1), so position seq_len + 1 is used.
    const std::int64_t offset = info.name == "roberta" ? 2 : 0;
    if (c.seq_len + offset > c.max_positions) {
        throw std::invalid_argument(fmt::format(
            "model '{}': seq_len ({}){} exceeds max_positions ({})", info.name, c.seq_len,
            offset != 0 ? " + 2 (RoBERTa positions start at padding_idx + 1)" : "",
            c.max_positions));
    }
    return c;
}

}  // namespace

const std::vector<ModelInfo>& list_models() {
    static const std::vector<ModelInfo> infos = [] {
        std::vector<ModelInfo> v;
        for (const auto& e : registry())
            v.push_back(e.info);
        return v;
    }();
    return infos;
}

Graph build_model(const std::string& model, const Knobs& knobs) {
    std::vector<std::string> names;
    for (const auto& e : registry()) {
        if (e.info.name == model) {
            Graph g = e.build(e.info, knobs);
            g.finalize();
            return g;
        }
        names.push_back(e.info.name);
    }
    throw std::invalid_argument(fmt::format("unknown model '{}'{}; models: {}", model,
                                            suggestion(model, names), fmt::join(names, ", ")));
}

}  // namespace hetsim::sim::workloads
