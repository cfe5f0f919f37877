// EOP's operator partition as a graph rewrite (xu2022 §3.1, Eq. 1; issue 27): one op becomes
// two parts along one dimension of its output, part 0 with share α of the extent (EOP's CPU
// part) and part 1 with β = 1 - α (its GPU part), plus the Split (or, for a sliding window, two
// overlapping Slices) that cut each input the parts do not share, and one Concatenate per
// output that joins the parts back into the original tensor. TVM's Device_copy between the
// two devices is not an op here: lowering inserts a real transfer wherever a part reads a
// tensor that lives in the other device's memory (docs/DESIGN.md "Graph rewrites").
//
// The dimensions are EOP's Table 2, on the op's output:
//   batch  the first axis;
//   hw     the spatial height of an N x C x H x W tensor, the sequence of a 3-D one, the
//          features of a 2-D one (RNN and Transformer ops: "(1,40)-(1,200)");
//   hw1w2  the last axis: for a Dense/MatMul the N of its M x K x N (the weight's columns;
//          K, the reduction, is never split).
// Which inputs are cut follows from the op's semantics: broadcast operands by alignment,
// MatMul/Gemm by their M/N roles (the other operand whole to both parts), Conv and pooling by
// their batch or, for hw, the input rows each part's output rows need (halo rows included,
// pads adjusted), Transpose through its permutation, Concat/Split/Slice/reductions on any
// axis but their own. A weight is cut once, offline (a constant costs nothing to slice), and
// the cut is shared by every op that cuts that weight the same way.
//
// Every added op carries the attribute `split_of` (the original op's name) and each part
// `split_part` (0 or 1), so a placer and EOP's AT metric (Eq. 4) can find them; the parts'
// origin is the original op and the added ops have none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/passes/passes.hpp"

namespace hetsim::sim::passes {

enum class SplitDim { batch, hw, hw1w2 };
std::string_view to_string(SplitDim dim);
std::optional<SplitDim> parse_split_dim(std::string_view text);
inline constexpr SplitDim kSplitDims[] = {SplitDim::batch, SplitDim::hw, SplitDim::hw1w2};

// Where `dim` cuts op `op_id`: its output axis and extent, or why it cannot (reason non-empty):
// an op type without a split rule, an output too small to have that axis, the op's reduction
// or concatenation axis, an extent of 1.
struct SplitAxis {
    int axis = -1;
    std::int64_t extent = 0;
    std::string reason;
    bool ok() const { return reason.empty(); }
};
SplitAxis split_axis(const Graph& graph, int op_id, SplitDim dim);

// Extent of part 0 for CPU share `share` (round to nearest); the caller refuses 0 and extent.
std::int64_t first_part_extent(std::int64_t extent, double share);

// A graph with op `op_id` alone at `part_extent` along `dim` (its inputs graph inputs or
// weights of the part's shapes): what EOP samples to fit a pattern (§3.2 Step 1). Throws
// GraphError with the reason when the op cannot be cut there.
Graph op_at_extent(const Graph& graph, int op_id, SplitDim dim, std::int64_t part_extent);

// The pass `split` (op=<name>,dim=batch|hw|hw1w2,share=<α>): op `op` split with share α on
// part 0; or several ops in one step (ops=<name>:<dim>:<α>;<name>:<dim>:<α>;...). Refused with
// the reason: an unknown op, a dimension it cannot be split on, a share outside (0, 1) or one
// that rounds to an empty part, an op listed twice.
PassResult split_op(const Graph& graph, const Arguments& args);

}  // namespace hetsim::sim::passes
