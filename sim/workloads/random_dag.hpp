// `random_dag`: layered random DAGs for stress tests and training sets (issue 12; mcm2022
// §5.1 pre-trains its placer on graphs of tens to hundreds of nodes).
#pragma once

#include <cstdint>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

struct RandomDagConfig {
    std::uint64_t seed = 1;
    std::int64_t nodes = 50;           // compute ops
    std::int64_t width = 8;            // at most this many ops per layer
    std::int64_t skip_percent = 20;    // chance (%) that an op also reads a tensor 2+ layers back
    std::int64_t matmul_percent = 30;  // chance (%) that an op is a MatMul with its own weight
    std::int64_t hidden = 256;         // every activation is [batch, hidden] fp32
    std::int64_t batch = 1;
};

// Layer sizes are drawn in [1, width] until `nodes` ops are placed. Every op reads one tensor
// of the layer before (the graph input for the first layer). With probability skip_percent
// (from the second layer on) it is an Add of that tensor and one from two or more layers
// back; otherwise with matmul_percent a MatMul with its own [hidden, hidden] weight; otherwise
// an Add with a second tensor of the layer before (probability 1/2, when there is one) or
// Relu, Tanh or Sigmoid. Tensors nobody reads are graph outputs. Deterministic across platforms:
// draws use std::mt19937_64 and rejection sampling, never a std:: distribution.
Graph build_random_dag(const RandomDagConfig& config);

}  // namespace hetsim::sim::workloads
