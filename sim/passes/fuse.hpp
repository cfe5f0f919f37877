// Compiler fusion as a graph rewrite (issue 25): TVM's FuseOps (Chen et al., "TVM", OSDI 2018,
// §3 "Operator fusion"; relay's src/relay/transforms/fuse_ops.cc) over hetsim's ops, with the
// op patterns relay registers (TVM 0.8, the release DUET and EOP compiled with):
//   - Conv, MatMul/Gemm and pooling are kOutEWiseFusable anchors: element-wise and broadcast
//     ops after them fuse in as their epilogue;
//   - element-wise and broadcast ops fuse forward into an injective or reducing consumer, or
//     into a group already anchored there, also across diamonds (Mul(x, x), x * sigmoid(x),
//     two branches that meet in an Add);
//   - injective ops (views, Transpose, Gather, Concat, ...) fuse into injective consumers,
//     after the anchors have fused;
//   - a reduction (ReduceSum, ReduceMean, LayerNormalization) fuses into nothing after it;
//   - Softmax (relay's OPAQUE), LSTM/GRU/RNN, ops hetsim does not know and multi-output ops
//     are groups of one.
// An op fuses into the group of its immediate post-dominator, and only when every op on every
// path between them allows it; an op whose result is a graph output (or leaves its DUET
// subgraph) fuses into nothing. So only a group's last op is read from outside, and the fused
// graph stays acyclic. BatchNormalization counts as element-wise: inference folds it into a
// scale and a shift (TVM's SimplifyInference). An edge is element-wise where the tensor has
// the shape of the consumer's result and broadcast where it does not; a Conv takes an epilogue
// only through element-wise edges.
//
// A group of several ops becomes one op of type `Fused`: its inputs are what the group reads
// from outside (its master op's operands first), its outputs what leaves it, its attributes
// the master's plus `anchor` (the type it is costed as: the master's), `fused_ops`
// ("Conv+Add+Relu") and `fused_flops`. The master is the op whose schedule TVM gives the
// kernel: the last of those with the widest pattern (the anchor, else a reduction). Device
// models cost the group as its master over the bytes that cross the group: one launch or
// dispatch, the intermediate tensors never in memory.
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
// Deep's merge Adds into its wide Gemm: 36 launches instead of 35 on the single-device
// baselines).
Graph compile_for(const Graph& graph, Compiler compiler);

}  // namespace hetsim::sim::passes
