// `lstm` and `gru`: stacked recurrent networks unrolled per time step, the form ONNX Runtime
// and TVM execute after loop unrolling (issue 12; EOP and DUET place the cells of each step).
#pragma once

#include <cstdint>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

struct RecurrentConfig {
    std::int64_t layers = 1;
    std::int64_t hidden = 256;
    std::int64_t input = 256;  // features of x_t
    std::int64_t seq_len = 16;
    std::int64_t batch = 1;
};

// x is [seq_len, batch, input] (ONNX layout), split into one [batch, input] tensor per step.
// Each layer has W [in, G*H], R [H, G*H] and biases, and zero initial states h0/c0 as inputs.
// LSTM step (ONNX gate order i, o, f, c): gates = x_t W + h R + B, split in four;
//   c' = sigmoid(f) * c + sigmoid(i) * tanh(g),  h' = sigmoid(o) * tanh(c').
// GRU step (gates z, r, n; linear_before_reset as PyTorch exports it):
//   z = sigmoid(xz + hz), r = sigmoid(xr + hr), n = tanh(xn + r * hn), h' = (1 - z) * n + z * h.
// The top layer's h at every step, and every layer's last state, are graph outputs.
Graph build_lstm(const RecurrentConfig& config);
Graph build_gru(const RecurrentConfig& config);

}  // namespace hetsim::sim::workloads
