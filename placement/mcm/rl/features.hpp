// The node features mcm.rl's GraphSAGE reads (mcm2022 §4.1: "the node embedding of a graph, h_G,
// from a feature network"). The paper does not list its features; these are the documented
// choice of hetsim, every one scaled so that graphs of 20 and of 2,000 ops give numbers of the
// same range (the policy is pre-trained on small graphs and deployed on BERT-large, §4.3).
//
// Static features of op u (kStaticFeatureCount columns, in this order):
//   0-8   op class one-hot (sim::OpCategory: matmul, conv, elementwise, reduction,
//         normalization, view, data_movement, recurrent, unknown)
//   9     compute share in chips' worth: t(u) · C / Σ_v t(v) (clipped at 8) — how much of one
//         balanced chip the op fills
//   10    log10(1 + FLOPs) / 12
//   11    log10(1 + output bytes on the ring) / 9
//   12    weight bytes read by u / one chip's weight capacity (clipped at 4)
//   13    topological depth (longest path from a source, in ops) / the graph's deepest
//   14    position in the topological order / (N - 1)
//   15    compute before u in topological order / Σ t — where a balanced fill would cut
//   16    weights before u in topological order, in chips' capacity, / C (clipped at 4)
//   17    log2(1 + fan-in) / 4, fan-in = predecessor ops
//   18    log2(1 + fan-out) / 4
//   19    1 when u reads a graph input (from the host, through chip 0)
//   20    1 when u writes a graph output (to the host)
//   21    log10(N) / 4 (graph size, the same on every node)
//   22    the graph's weights in chips' capacity / C (clipped at 4; the same on every node)
// The dynamic part, per round t of Eq. 7, is the previous round's chip y_u^(t-1): a one-hot of
// C columns. It is appended by the policy, not stored here.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "placement/mcm/problem.hpp"

namespace hetsim::placement::mcm::rl {

constexpr int kStaticFeatureCount = 23;
// Bumped whenever the list above changes: a checkpoint records it, and one trained on other
// features is refused on load.
constexpr int kFeatureVersion = 1;

struct GraphFeatures {
    int nodes = 0;
    std::vector<float> values;  // nodes x kStaticFeatureCount, row-major
    // Producer -> consumer op edges (McmProblem::edges): GraphSAGE's mean aggregation over
    // predecessors runs along them, over successors against them.
    std::vector<long> edge_from, edge_to;
    float value(int node, int column) const {
        return values[static_cast<std::size_t>(node) * kStaticFeatureCount +
                      static_cast<std::size_t>(column)];
    }
};

GraphFeatures make_features(const McmProblem& problem);

}  // namespace hetsim::placement::mcm::rl
