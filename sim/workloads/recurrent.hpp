// `lstm`, `gru` and `rnn`: stacked recurrent networks, unrolled per time step (the form ONNX
// Runtime and TVM execute after loop unrolling; issue 12, EOP and DUET place the cells of each
// step) or, with `fused`, one ONNX LSTM/GRU/RNN op per layer as the PyTorch exporter emits
// nn.LSTM, nn.GRU and nn.RNN.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

class GraphBuilder;

enum class RecurrentCell { lstm, gru, rnn };

struct RecurrentConfig {
    std::int64_t layers = 1;
    std::int64_t hidden = 256;
    std::int64_t input = 256;  // features of x_t
    std::int64_t seq_len = 16;
    std::int64_t batch = 1;
    bool fused = false;  // one LSTM/GRU/RNN op per layer instead of the unrolled cells
};

// Unrolled (fused = false): x is split into one [batch, input] tensor per step. Each layer has
// W [in, G*H], R [H, G*H] and biases, and zero initial states h0/c0 as inputs.
// LSTM step (ONNX gate order i, o, f, c): gates = x_t W + h R + B, split in four;
//   c' = sigmoid(f) * c + sigmoid(i) * tanh(g),  h' = sigmoid(o) * tanh(c').
// GRU step (gates z, r, n; linear_before_reset as PyTorch exports it):
//   z = sigmoid(xz + hz), r = sigmoid(xr + hr), n = tanh(xn + r * hn), h' = (1 - z) * n + z * h.
// RNN step (Elman, ONNX RNN's default activation, nn.RNN's tanh; one gate): h' = tanh(xw + hr).
// Fused: per layer one LSTM/GRU/RNN op on [seq, batch, in] with W [1, G*H, in], R [1, G*H, H]
// and B [1, 2*G*H] (the exporter's initializers; GRU with linear_before_reset = 1), then a
// Squeeze of Y's direction axis, as torch.onnx emits nn.LSTM / nn.GRU / nn.RNN.
struct RecurrentStack {
    std::vector<int> steps;         // unrolled: the top layer's h at every step, [batch, H]
    int sequence = -1;              // fused: the top layer's outputs, [seq, batch, H]
    int last = -1;                  // the top layer's output at the last step, [batch, H]
    std::vector<int> final_states;  // every layer's last h (and c), for graph outputs
};

// Adds a stack on x ([seq, batch, input]) under the current scope, with weights named
// "<prefix>.weight_ih_l<k>" etc. (PyTorch's parameter names).
RecurrentStack add_recurrent_stack(GraphBuilder& b, RecurrentCell cell, int x,
                                   const RecurrentConfig& config, const std::string& prefix);
// The top layer's outputs as one [seq, batch, H] tensor (unrolled: Unsqueeze + Concat).
int recurrent_sequence(GraphBuilder& b, const RecurrentStack& stack);
// The top layer's output at the last step, [batch, H] (fused: y[-1], a Gather, as exported).
int recurrent_last(GraphBuilder& b, const RecurrentStack& stack);

// The top layer's h at every step (or the fused Y), and every layer's last state, are graph
// outputs.
Graph build_lstm(const RecurrentConfig& config);
Graph build_gru(const RecurrentConfig& config);
Graph build_rnn(const RecurrentConfig& config);

}  // namespace hetsim::sim::workloads
