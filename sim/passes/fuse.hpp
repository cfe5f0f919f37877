// Compiler fusion as a graph rewrite (issue 25): TVM's FuseOps, in the simplified form its
// relay pass applies to inference graphs (Chen et al., "TVM", OSDI 2018, §3 "Operator
// fusion"), over hetsim's op categories:
//   - an anchor (Conv, MatMul/Gemm; TVM's kOutEWiseFusable) starts a group, and element-wise
//     and broadcast ops that follow it fuse into it as its epilogue;
//   - element-wise, broadcast and injective ops (views, Transpose, Gather, Concat, ...) fuse
//     into chains;
//   - a reduction (ReduceMean, Softmax, LayerNormalization, pooling) may end such a chain,
//     and nothing fuses after it;
//   - opaque ops (LSTM/GRU/RNN, ops hetsim does not know, multi-output ops) are groups of one.
// An op joins the group of the producer of one of its inputs only when that tensor has no
// other reader and is not a graph output (so it never reaches memory) and that producer is
// the group's last op. Every group therefore has one way out, and the fused graph stays
// acyclic. BatchNormalization counts as element-wise: inference folds it into a scale and a
// shift (TVM's SimplifyInference).
//
// A group of several ops becomes one op of type `Fused`: its inputs are what the group reads
// from outside (the anchor's operands first), its outputs its last op's, its attributes the
// anchor's plus `anchor` (the type it is costed as), `fused_ops` ("Conv+Add+Relu") and
// `fused_flops`. Device models cost it as its anchor over the bytes that cross the group: one
// launch or dispatch, the intermediate tensors never in memory.
#pragma once

#include <vector>

#include "sim/passes/passes.hpp"
#include "sim/platform.hpp"

namespace hetsim::sim::passes {

// The fusion group of every op (indices 0.. in order of each group's first op in topological
// order). With `region` (a label per op), ops fuse only with ops of the same label.
std::vector<int> tvm_fusion_groups(const Graph& graph, const std::vector<int>* region = nullptr);

// The pass `fuse` (arguments rules=tvm, within=graph|subgraphs): the graph with every group of
// two or more ops fused. within=subgraphs fuses each of DUET's subgraphs on its own
// (sim/passes/phases.hpp): no group crosses a subgraph's boundary.
PassResult fuse(const Graph& graph, const Arguments& args);

// The graph as `compiler` runs it: unchanged for none; for tvm, fused within DUET's
// subgraphs, as DUET compiles each subgraph on its own (zhang2021 §IV-B). On a graph without
// a multi-path phase that is the whole-graph fusion; on one with, the only fusions it loses
// are those that would join the merge of independent branches into one of them (Wide-and-
// Deep's merge Adds into its wide Gemm: three launches more on the single-device baselines).
Graph compile_for(const Graph& graph, Compiler compiler);

}  // namespace hetsim::sim::passes
