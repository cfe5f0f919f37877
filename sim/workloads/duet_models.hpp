// DUET's three workloads (zhang2021 §V-A, Table I, Figs. 2-3): Wide-and-Deep, the Siamese LSTM
// and MT-DNN. Each mirrors the PyTorch module of the same name in tools/export_models.py op for
// op in its compute ops (Conv, Gemm, MatMul, LSTM cells), so that a generated graph and the
// export agree on compute-op count and FLOPs (issue 12). Private to sim/workloads; the public
// entry point is model_zoo.hpp.
#pragma once

#include <array>
#include <cstdint>

#include "sim/graph.hpp"
#include "sim/workloads/recurrent.hpp"
#include "sim/workloads/transformer.hpp"

namespace hetsim::sim::workloads {

// Table I, Wide-and-Deep; the fields the table leaves open are marked (our choice, as in
// export_models.py's WideAndDeep).
struct WideAndDeepConfig {
    std::int64_t batch = 1;
    std::int64_t wide = 363;          // Wide: input_wide (1, 363) -> Linear(363, 1)
    std::int64_t deep_input = 13;     // FFN: input (1, 13)
    std::int64_t deep_embed = 192;    // FFN: embedding 192 (a dense layer, our choice)
    std::int64_t deep_hidden1 = 128;  // FFN: hidden [128, 64]
    std::int64_t deep_hidden2 = 64;
    std::int64_t deep_layers = 2;   // FFN hidden layers (Fig. 16 varies it)
    std::int64_t image = 224;       // CNN: input (1, 3, 224, 224)
    std::int64_t resnet = 18;       // CNN: ResNet-18 (Fig. 15 sweeps 18/34/50/101)
    std::int64_t rnn_seq_len = 80;  // RNN: input (1, 80), token ids
    std::int64_t rnn_embed = 32;    // our choice
    std::int64_t rnn_vocab = 1000;  // our choice
    std::int64_t rnn_layers = 2;    // RNN: num_layers 2 (Fig. 14 sweeps 1/2/4/8)
    std::int64_t rnn_hidden = 64;   // RNN: hidden 64
    bool fused = false;             // LSTM as one op per layer
};

// Table I, MT-DNN: 10 CRF task heads with these tag counts.
inline constexpr std::array<std::int64_t, 10> mt_dnn_tags = {29, 3, 3, 7, 9, 11, 9, 25, 7, 13};

struct MtDnnConfig {
    TransformerConfig encoder;  // the shared BERT-base encoder (Table II: "bert-base")
    std::int64_t lstm_layers = 2;
    std::int64_t lstm_hidden = 256;
    std::int64_t tasks = 10;  // the first `tasks` of mt_dnn_tags
    bool fused = false;
};

// Validated configurations only (model_zoo.cpp checks the knobs). Graphs are not finalized.
Graph build_wide_and_deep(const WideAndDeepConfig& config);
// Two independent stacks (own weights) on x1, x2 [seq, batch, input]; the merge is the
// normalised Euclidean distance |a - b| / (|a| + |b|) of their last outputs.
Graph build_siamese_lstm(const RecurrentConfig& config);
Graph build_mt_dnn(const MtDnnConfig& config);

}  // namespace hetsim::sim::workloads
