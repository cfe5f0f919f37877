// EOP's operator partition as a graph rewrite (sim/passes/split.hpp): on each dimension the
// parts' shapes are the cut of the original's, their FLOPs add up to the original's, their
// outputs' bytes too, and the inputs each part reads are exactly the rows it needs (a Conv's
// halo rows counted by hand). Invalid splits are refused with the reason.
#include "sim/passes/split.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "sim/passes/passes.hpp"

namespace hetsim::sim::passes {
namespace {

struct Builder {
    Graph g{"split"};
    int tensor(const std::string& name, Shape shape, TensorKind kind = TensorKind::activation) {
        if (auto id = g.find_tensor(name))
            return *id;
        return g.add_tensor(name, std::move(shape), DType::f32, kind);
    }
    int op(const std::string& name, const std::string& type, std::vector<int> in,
           std::vector<int> out, Attributes attrs = {}) {
        return g.add_op(name, type, std::move(in), std::move(out), std::move(attrs));
    }
};

// One MatMul [16, 80] x [80, 256] + bias, then Sigmoid: an LSTM step's input projection.
Graph dense_graph() {
    Builder b;
    const int x = b.tensor("x", {16, 80}, TensorKind::input);
    const int w = b.tensor("w", {80, 256}, TensorKind::weight);
    const int bias = b.tensor("bias", {256}, TensorKind::weight);
    const int h = b.tensor("h", {16, 256});
    const int a = b.tensor("a", {16, 256});
    const int y = b.tensor("y", {16, 256});
    b.op("mm", "MatMul", {x, w}, {h});
    b.op("add", "Add", {h, bias}, {a});
    b.op("sig", "Sigmoid", {a}, {y});
    b.g.mark_output(y);
    b.g.finalize();
    return b.g;
}

const Op& op_named(const Graph& g, const std::string& name) {
    return g.op(*g.find_op(name));
}

const Shape& shape_named(const Graph& g, const std::string& name) {
    return g.tensor(*g.find_tensor(name)).shape;
}

PassResult split(const Graph& g, const std::string& op, const std::string& dim,
                 const std::string& share) {
    return split_op(g, {{"op", op}, {"dim", dim}, {"share", share}});
}

TEST(SplitPass, MatMulOnBatchCutsTheRowsOfAAndSharesTheWeight) {
    const Graph g = dense_graph();
    const PassResult r = split(g, "mm", "batch", "0.25");  // 16 rows: 4 + 12
    const Graph& s = r.graph;
    const Op& p0 = op_named(s, "mm#0");
    const Op& p1 = op_named(s, "mm#1");
    EXPECT_EQ(shape_named(s, "h#0"), (Shape{4, 256}));
    EXPECT_EQ(shape_named(s, "h#1"), (Shape{12, 256}));
    // Both parts read the whole weight; the input is cut by one Split.
    EXPECT_EQ(s.tensor(p0.inputs[1]).name, "w");
    EXPECT_EQ(s.tensor(p1.inputs[1]).name, "w");
    const Op& cut = op_named(s, "mm#split0");
    EXPECT_EQ(cut.type, "Split");
    EXPECT_EQ(cut.attr_ints("split"), (std::vector<std::int64_t>{4, 12}));
    // FLOPs and written bytes add up; the reads of A add up, the weight is read twice.
    const Op& whole = op_named(g, "mm");
    EXPECT_DOUBLE_EQ(p0.flops + p1.flops, whole.flops);
    EXPECT_EQ(p0.bytes_written + p1.bytes_written, whole.bytes_written);
    EXPECT_EQ(p0.bytes_read + p1.bytes_read, whole.bytes_read + 80 * 256 * 4);
    // The Concat rebuilds the original tensor, which the Add still reads.
    const Op& join = op_named(s, "mm#concat0");
    EXPECT_EQ(join.type, "Concat");
    EXPECT_EQ(s.tensor(join.outputs[0]).name, "h");
    EXPECT_EQ(s.op(*s.tensor(*s.find_tensor("h")).consumers.begin()).name, "add");
    // Provenance: parts come from the MatMul, the Split and Concat from nothing.
    EXPECT_EQ(r.origin[static_cast<std::size_t>(*s.find_op("mm#0"))], std::vector<int>{0});
    EXPECT_TRUE(r.origin[static_cast<std::size_t>(*s.find_op("mm#split0"))].empty());
    EXPECT_EQ(std::get<std::string>(p1.attrs.at("split_of")), "mm");
    EXPECT_EQ(p1.attr_int("split_part", -1), 1);
    EXPECT_DOUBLE_EQ(s.total_flops(), g.total_flops());
}

TEST(SplitPass, MatMulOnHw1w2CutsTheWeightsColumnsOfflineAndSharesTheInput) {
    const Graph g = dense_graph();
    const PassResult r = split(g, "mm", "hw1w2", "0.75");  // 256 columns: 192 + 64
    const Graph& s = r.graph;
    const Op& p0 = op_named(s, "mm#0");
    const Op& p1 = op_named(s, "mm#1");
    EXPECT_EQ(shape_named(s, "h#0"), (Shape{16, 192}));
    EXPECT_EQ(shape_named(s, "h#1"), (Shape{16, 64}));
    EXPECT_EQ(s.tensor(p0.inputs[0]).name, "x");  // A whole to both parts
    EXPECT_EQ(s.tensor(p0.inputs[1]).name, "w#1:0-192");
    EXPECT_EQ(s.tensor(p1.inputs[1]).name, "w#1:192-256");
    EXPECT_EQ(s.tensor(p1.inputs[1]).kind, TensorKind::weight);
    EXPECT_FALSE(s.find_op("mm#split1").has_value());  // a weight needs no Split op
    const Op& whole = op_named(g, "mm");
    EXPECT_DOUBLE_EQ(p0.flops + p1.flops, whole.flops);
    EXPECT_EQ(p0.bytes_written + p1.bytes_written, whole.bytes_written);
    // K (the reduction) is never cut: the weight slices keep all 80 rows.
    EXPECT_EQ(shape_named(s, "w#1:0-192")[0], 80);
}

TEST(SplitPass, ElementwiseOnHwCutsTheBroadcastOperandAlongTheAlignedAxis) {
    const Graph g = dense_graph();
    const PassResult r = split(g, "add", "hw", "0.5");  // features 256: 128 + 128
    const Graph& s = r.graph;
    EXPECT_EQ(shape_named(s, "a#0"), (Shape{16, 128}));
    // The [256] bias broadcasts along the rows but carries the features: it is cut too.
    EXPECT_EQ(s.tensor(op_named(s, "add#0").inputs[1]).name, "bias#0:0-128");
    EXPECT_EQ(s.tensor(op_named(s, "add#1").inputs[1]).name, "bias#0:128-256");
    const Op& whole = op_named(g, "add");
    EXPECT_DOUBLE_EQ(op_named(s, "add#0").flops + op_named(s, "add#1").flops, whole.flops);
    // On batch the bias is shared, not cut.
    const PassResult rb = split(g, "add", "batch", "0.5");
    EXPECT_EQ(rb.graph.tensor(op_named(rb.graph, "add#0").inputs[1]).name, "bias");
}

TEST(SplitPass, ConvOnHwReadsItsHaloRowsWithAdjustedPads) {
    // 3x3 Conv, stride 1, pads 1: a [1, 3, 8, 8] input to [1, 4, 8, 8]. Share 0.5: output
    // rows 0-3 need input rows 0-4 (pad 1 above, none below); rows 4-7 need 3-7 (pad 1 below).
    Builder b;
    const int x = b.tensor("x", {1, 3, 8, 8}, TensorKind::input);
    const int w = b.tensor("w", {4, 3, 3, 3}, TensorKind::weight);
    const int y = b.tensor("y", {1, 4, 8, 8});
    b.op("conv", "Conv", {x, w}, {y},
         {{"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
          {"kernel_shape", std::vector<std::int64_t>{3, 3}}});
    b.g.mark_output(y);
    b.g.finalize();
    const PassResult r = split(b.g, "conv", "hw", "0.5");
    const Graph& s = r.graph;
    EXPECT_EQ(shape_named(s, "conv#in0#0"), (Shape{1, 3, 5, 8}));
    EXPECT_EQ(shape_named(s, "conv#in0#1"), (Shape{1, 3, 5, 8}));
    EXPECT_EQ(op_named(s, "conv#slice0#1").attr_ints("starts"), std::vector<std::int64_t>{3});
    EXPECT_EQ(op_named(s, "conv#0").attr_ints("pads"), (std::vector<std::int64_t>{1, 1, 0, 1}));
    EXPECT_EQ(op_named(s, "conv#1").attr_ints("pads"), (std::vector<std::int64_t>{0, 1, 1, 1}));
    EXPECT_EQ(shape_named(s, "y#0"), (Shape{1, 4, 4, 8}));
    const Op& whole = op_named(b.g, "conv");
    EXPECT_DOUBLE_EQ(op_named(s, "conv#0").flops + op_named(s, "conv#1").flops, whole.flops);
    // The halo: two input rows read twice.
    EXPECT_EQ(op_named(s, "conv#0").bytes_read + op_named(s, "conv#1").bytes_read,
              whole.bytes_read + 2 * 3 * 8 * 4 + 4 * 3 * 3 * 3 * 4);
}

TEST(SplitPass, TransposeCutsItsInputThroughThePermutation) {
    Builder b;
    const int x = b.tensor("x", {2, 8, 4, 16}, TensorKind::input);
    const int y = b.tensor("y", {2, 4, 8, 16});
    b.op("tr", "Transpose", {x}, {y}, {{"perm", std::vector<std::int64_t>{0, 2, 1, 3}}});
    b.g.mark_output(y);
    b.g.finalize();
    const PassResult r = split(b.g, "tr", "hw", "0.25");  // output axis 2 (8) = input axis 1
    EXPECT_EQ(op_named(r.graph, "tr#split0").attr_int("axis", -1), 1);
    EXPECT_EQ(shape_named(r.graph, "tr#in0#0"), (Shape{2, 2, 4, 16}));
    EXPECT_EQ(shape_named(r.graph, "y#0"), (Shape{2, 4, 2, 16}));
}

TEST(SplitPass, MultiOutputSplitGetsOneConcatPerOutput) {
    Builder b;
    const int x = b.tensor("x", {16, 256}, TensorKind::input);
    std::vector<int> gates;
    for (int k = 0; k < 4; ++k)
        gates.push_back(b.tensor("g" + std::to_string(k), {16, 64}));
    b.op("gates", "Split", {x}, gates, {{"axis", std::int64_t{1}}});
    for (int t : gates)
        b.g.mark_output(t);
    b.g.finalize();
    const PassResult r = split(b.g, "gates", "batch", "0.5");
    for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(shape_named(r.graph, "g" + std::to_string(k) + "#0"), (Shape{8, 64}));
        EXPECT_EQ(op_named(r.graph, "gates#concat" + std::to_string(k)).type, "Concat");
    }
    // Its own axis cannot be cut.
    EXPECT_THAT([&] { split(b.g, "gates", "hw", "0.5"); },
                testing::ThrowsMessage<GraphError>(testing::HasSubstr("its own split axis")));
}

TEST(SplitPass, InvalidSplitsAreRefusedWithTheReason) {
    const Graph g = dense_graph();
    using testing::HasSubstr;
    using testing::ThrowsMessage;
    EXPECT_THAT([&] { split(g, "mm", "batch", "0.01"); },  // 0.16 of a row
                ThrowsMessage<GraphError>(HasSubstr("rounds to an empty part")));
    EXPECT_THAT([&] { split(g, "mm", "batch", "1"); },
                ThrowsMessage<GraphError>(HasSubstr("share must be a number in (0, 1)")));
    EXPECT_THAT([&] { split(g, "mm", "depth", "0.5"); },
                ThrowsMessage<GraphError>(HasSubstr("dim must be batch, hw or hw1w2")));
    EXPECT_THAT([&] { split(g, "nope", "batch", "0.5"); },
                ThrowsMessage<GraphError>(HasSubstr("has no op 'nope'")));
    // A reduction axis: LayerNormalization over the features, Softmax over its axis.
    Builder b;
    const int x = b.tensor("x", {4, 16, 64}, TensorKind::input);
    const int scale = b.tensor("scale", {64}, TensorKind::weight);
    const int y = b.tensor("y", {4, 16, 64});
    const int z = b.tensor("z", {4, 16, 64});
    b.op("ln", "LayerNormalization", {x, scale}, {y}, {{"axis", std::int64_t{-1}}});
    b.op("sm", "Softmax", {y}, {z}, {{"axis", std::int64_t{1}}});
    b.g.mark_output(z);
    b.g.finalize();
    EXPECT_THAT([&] { split(b.g, "ln", "hw1w2", "0.5"); },
                ThrowsMessage<GraphError>(HasSubstr("reduction axis")));
    EXPECT_THAT([&] { split(b.g, "sm", "hw", "0.5"); },
                ThrowsMessage<GraphError>(HasSubstr("its reduction axis")));
    EXPECT_NO_THROW(split(b.g, "ln", "hw", "0.5"));  // the sequence axis is fine
    EXPECT_FALSE(split_axis(b.g, 0, SplitDim::hw1w2).ok());
    EXPECT_TRUE(split_axis(b.g, 0, SplitDim::batch).ok());
}

TEST(SplitPass, ReplaysThroughApplyAndComposesProvenance) {
    const Graph g = dense_graph();
    const Rewrite rw = apply(g, {{"split", {{"op", "mm"}, {"dim", "batch"}, {"share", "0.5"}}},
                                 {"split", {{"op", "sig"}, {"dim", "hw"}, {"share", "0.5"}}}});
    EXPECT_DOUBLE_EQ(rw.graph->total_flops(), g.total_flops());
    EXPECT_EQ(rw.origin[static_cast<std::size_t>(*rw.graph->find_op("sig#1"))],
              std::vector<int>{2});
    EXPECT_EQ(rw.origin[static_cast<std::size_t>(*rw.graph->find_op("mm#0"))], std::vector<int>{0});
}

TEST(SplitPass, SeveralOpsInOneStepGiveTheGraphOfOneStepEach) {
    const Graph g = dense_graph();
    const Rewrite one_by_one =
        apply(g, {{"split", {{"op", "mm"}, {"dim", "batch"}, {"share", "0.25"}}},
                  {"split", {{"op", "add"}, {"dim", "hw"}, {"share", "0.5"}}}});
    const PassResult at_once = split_op(g, {{"ops", "mm:batch:0.25;add:hw:0.5"}});
    ASSERT_EQ(at_once.graph.op_count(), one_by_one.graph->op_count());
    for (int o = 0; o < at_once.graph.op_count(); ++o) {
        const Op& op = at_once.graph.op(o);
        const auto other = one_by_one.graph->find_op(op.name);
        ASSERT_TRUE(other.has_value()) << op.name;
        EXPECT_EQ(op.type, one_by_one.graph->op(*other).type);
        EXPECT_DOUBLE_EQ(op.flops, one_by_one.graph->op(*other).flops) << op.name;
    }
    EXPECT_THAT(
        [&] {
            split_op(g, {{"ops", "mm:batch:0.5;mm:hw1w2:0.5"}});
        },
        testing::ThrowsMessage<GraphError>(testing::HasSubstr("listed twice")));
    EXPECT_THAT(
        [&] {
            split_op(g, {{"ops", "mm-batch-0.5"}});
        },
        testing::ThrowsMessage<GraphError>(testing::HasSubstr("<op>:<dim>:<share>")));
    EXPECT_THAT(
        [&] {
            split_op(g, {{"ops", "mm:batch:0.5"}, {"op", "add"}});
        },
        testing::ThrowsMessage<GraphError>(testing::HasSubstr("not both")));
}

TEST(SplitPass, OpAtExtentIsTheOpAloneAtThatSize) {
    const Graph g = dense_graph();
    const Graph one = op_at_extent(g, 0, SplitDim::hw1w2, 100);
    ASSERT_EQ(one.op_count(), 1);
    EXPECT_EQ(one.tensor(one.op(0).outputs[0]).shape, (Shape{16, 100}));
    EXPECT_DOUBLE_EQ(one.op(0).flops, 2.0 * 16 * 80 * 100);
    EXPECT_EQ(one.tensor(one.op(0).inputs[1]).kind, TensorKind::weight);
    EXPECT_THROW(op_at_extent(g, 0, SplitDim::batch, 17), GraphError);
}

}  // namespace
}  // namespace hetsim::sim::passes
