// Transformer workload generators (private to sim/workloads; the public entry point is
// model_zoo.hpp). Each builds the operator-level graph ONNX Runtime sees for a PyTorch
// (HuggingFace) export of the model at batch `batch` and sequence length `seq_len`.
#pragma once

#include <cstdint>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

struct TransformerConfig {
    std::int64_t layers = 0;
    std::int64_t hidden = 0;
    std::int64_t heads = 0;
    std::int64_t ffn = 0;
    std::int64_t seq_len = 0;
    std::int64_t batch = 0;
    std::int64_t vocab = 0;
    std::int64_t max_positions = 0;
    std::int64_t classes = 2;  // bert/roberta: sequence-classification labels
    bool shape_ops = true;     // gpt2: emit the dynamic-axes shape subgraphs (see .cpp)
    bool presents = true;      // gpt2: emit the per-layer "present" key/value outputs
    // bert/roberta: the extended attention mask [batch, 1, 1, seq_len] (float) is a graph
    // input computed on the host and read by every layer, instead of five mask ops on the
    // attention_mask input whose output fans out to all layers. On mcm2022's ring a tensor
    // consumed on several later chips breaks Eq. 4, so a compiler for that package takes the
    // mask as an input.
    bool host_mask = false;
    // The ONNX opset of the export the graph follows: below 17 the exporter decomposes
    // LayerNorm into 9 ops (lee2022's CG sizes), from 17 it is one LayerNormalization, from 20
    // GELU is one Gelu op. 20 is also what eager PyTorch runs: nn.LayerNorm and F.gelu are one
    // kernel each.
    std::int64_t opset = 13;
};

class GraphBuilder;

// BERT's inputs (input_ids, attention_mask, token_type_ids), embeddings and encoder layers,
// without pooler and classifier (MT-DNN's shared encoder); returns the last hidden states
// [batch, seq_len, hidden].
int add_bert_encoder(GraphBuilder& builder, const TransformerConfig& config);

// Validated configurations only (model_zoo.cpp checks the knobs). Graphs are not finalized.
Graph build_bert(const TransformerConfig& config);
Graph build_roberta(const TransformerConfig& config);
Graph build_gpt2(const TransformerConfig& config);

}  // namespace hetsim::sim::workloads
