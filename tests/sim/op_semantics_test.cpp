// Shape inference and FLOP counts of the op table (sim/op_table.hpp, sim/op_semantics.cpp).
#include "sim/op_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "sim/op_semantics.hpp"

namespace hetsim::sim {
namespace {

using ::testing::HasSubstr;
using Ints = std::vector<std::int64_t>;

// A graph holding one op "op" of `type` whose inputs are graph inputs of `in` shapes and whose
// outputs have `out` shapes (placeholders when only inference is tested).
struct OneOp {
    Graph graph{"t"};
    int id = -1;

    OneOp(const std::string& type, const std::vector<Shape>& in, const Attributes& attrs = {},
          const std::vector<Shape>& out = {Shape{}}) {
        std::vector<int> ins;
        std::vector<int> outs;
        for (std::size_t i = 0; i < in.size(); ++i) {
            ins.push_back(
                graph.add_tensor("in" + std::to_string(i), in[i], DType::f32, TensorKind::input));
        }
        for (std::size_t i = 0; i < out.size(); ++i) {
            outs.push_back(graph.add_tensor("out" + std::to_string(i), out[i], DType::f32));
        }
        id = graph.add_op("op", type, ins, outs, attrs);
    }
    std::optional<std::vector<Shape>> infer() const {
        return infer_output_shapes(graph, graph.op(id));
    }
    double flops() const { return op_flops(graph, graph.op(id)); }
};

Shape infer1(const std::string& type, const std::vector<Shape>& in, const Attributes& attrs = {}) {
    auto shapes = OneOp(type, in, attrs).infer();
    EXPECT_TRUE(shapes.has_value()) << type;
    EXPECT_EQ(shapes->size(), 1u) << type;
    return shapes->front();
}

std::string infer_error(const std::string& type, const std::vector<Shape>& in,
                        const Attributes& attrs = {}) {
    try {
        OneOp(type, in, attrs).infer();
    } catch (const GraphError& e) {
        return e.what();
    }
    ADD_FAILURE() << type << " did not throw GraphError";
    return {};
}

TEST(OpSemanticsBroadcast, NumpyRules) {
    EXPECT_EQ(broadcast_shapes({1, 16, 512}, {512}, "x"), (Shape{1, 16, 512}));
    EXPECT_EQ(broadcast_shapes({1, 8, 16, 16}, {1, 1, 1, 16}, "x"), (Shape{1, 8, 16, 16}));
    EXPECT_EQ(broadcast_shapes({}, {3, 1}, "x"), (Shape{3, 1}));
    EXPECT_EQ(broadcast_shapes({2, 1}, {1, 5}, "x"), (Shape{2, 5}));
    EXPECT_EQ(broadcast_shapes({0, 3}, {1, 3}, "x"), (Shape{0, 3}));
    try {
        broadcast_shapes({2, 3}, {4, 3}, "ctx here");
        FAIL() << "expected GraphError";
    } catch (const GraphError& e) {
        EXPECT_THAT(e.what(), HasSubstr("ctx here"));
        EXPECT_THAT(e.what(), HasSubstr("[2,3]"));
        EXPECT_THAT(e.what(), HasSubstr("[4,3]"));
    }
}

TEST(OpSemanticsMatMul, TwoDimensional) {
    EXPECT_EQ(infer1("MatMul", {{16, 512}, {512, 2048}}), (Shape{16, 2048}));
    EXPECT_EQ(infer1("MatMul", {{1, 16, 512}, {512, 512}}), (Shape{1, 16, 512}));
}

TEST(OpSemanticsMatMul, BatchedBroadcast) {
    EXPECT_EQ(infer1("MatMul", {{1, 8, 16, 64}, {1, 8, 64, 16}}), (Shape{1, 8, 16, 16}));
    EXPECT_EQ(infer1("MatMul", {{2, 1, 3, 4}, {5, 4, 6}}), (Shape{2, 5, 3, 6}));
    EXPECT_EQ(infer1("MatMul", {{3, 4}, {7, 4, 2}}), (Shape{7, 3, 2}));
}

TEST(OpSemanticsMatMul, OneDimensionalOperands) {
    EXPECT_EQ(infer1("MatMul", {{4}, {4, 5}}), (Shape{5}));
    EXPECT_EQ(infer1("MatMul", {{3, 4}, {4}}), (Shape{3}));
    EXPECT_EQ(infer1("MatMul", {{2, 3, 4}, {4}}), (Shape{2, 3}));
    EXPECT_EQ(infer1("MatMul", {{4}, {4}}), (Shape{}));
}

TEST(OpSemanticsMatMul, MismatchNamesOpAndBothShapes) {
    const std::string msg = infer_error("MatMul", {{16, 512}, {256, 512}});
    EXPECT_THAT(msg, HasSubstr("'op'"));
    EXPECT_THAT(msg, HasSubstr("MatMul"));
    EXPECT_THAT(msg, HasSubstr("[16,512]"));
    EXPECT_THAT(msg, HasSubstr("[256,512]"));
    const std::string batch = infer_error("MatMul", {{2, 3, 4}, {3, 4, 5}});
    EXPECT_THAT(batch, HasSubstr("[2,3,4]"));
    EXPECT_THAT(batch, HasSubstr("[3,4,5]"));
    EXPECT_THAT(infer_error("MatMul", {{16, 512}}), HasSubstr("expects 2 inputs, has 1"));
    EXPECT_THAT(infer_error("MatMul", {{}, {3}}), HasSubstr("rank >= 1"));
}

TEST(OpSemanticsGemm, TransposeAttributesAndBias) {
    EXPECT_EQ(infer1("Gemm", {{16, 768}, {768, 2304}, {2304}}), (Shape{16, 2304}));
    EXPECT_EQ(infer1("Gemm", {{1, 512}, {2, 512}, {2}}, {{"transB", std::int64_t{1}}}),
              (Shape{1, 2}));
    EXPECT_EQ(infer1("Gemm", {{512, 16}, {512, 8}}, {{"transA", std::int64_t{1}}}), (Shape{16, 8}));
    EXPECT_EQ(infer1("Gemm", {{16, 8}, {8, 4}, {16, 1}}), (Shape{16, 4}));
    EXPECT_EQ(infer1("Gemm", {{16, 8}, {8, 4}, {}}), (Shape{16, 4}));
}

TEST(OpSemanticsGemm, Errors) {
    const std::string msg =
        infer_error("Gemm", {{1, 512}, {512, 2}, {2}}, {{"transB", std::int64_t{1}}});
    EXPECT_THAT(msg, HasSubstr("Gemm"));
    EXPECT_THAT(msg, HasSubstr("[1,512]"));
    EXPECT_THAT(msg, HasSubstr("[512,2]"));
    EXPECT_THAT(infer_error("Gemm", {{16, 8}, {8, 4}, {9}}), HasSubstr("[9]"));
    EXPECT_THAT(infer_error("Gemm", {{16, 8}, {8, 4}, {16, 4, 1}}), HasSubstr("bias"));
    EXPECT_THAT(infer_error("Gemm", {{1, 16, 8}, {8, 4}}), HasSubstr("2-D"));
}

TEST(OpSemanticsElementwise, BinaryBroadcasting) {
    EXPECT_EQ(infer1("Add", {{1, 16, 512}, {512}}), (Shape{1, 16, 512}));
    EXPECT_EQ(infer1("Sub", {{1, 16, 512}, {1, 16, 1}}), (Shape{1, 16, 512}));
    EXPECT_EQ(infer1("Add", {{1, 8, 16, 16}, {1, 1, 1, 16}}), (Shape{1, 8, 16, 16}));
    EXPECT_EQ(infer1("Div", {{1, 8, 16, 16}, {}}), (Shape{1, 8, 16, 16}));
    EXPECT_EQ(infer1("Mul", {{}, {1, 1, 1, 16}}), (Shape{1, 1, 1, 16}));
    EXPECT_EQ(infer1("Pow", {{16, 512}, {}}), (Shape{16, 512}));
    EXPECT_EQ(infer1("Equal", {{1, 16}, {}}), (Shape{1, 16}));
    EXPECT_EQ(infer1("Where", {{1, 1, 4, 4}, {1, 2, 4, 4}, {}}), (Shape{1, 2, 4, 4}));
    EXPECT_EQ(infer1("Where", {{4, 1}, {}, {1, 3}}), (Shape{4, 3}));
}

TEST(OpSemanticsElementwise, IncompatibleOperandsNameBothShapes) {
    const std::string msg = infer_error("Add", {{2, 3}, {4, 3}});
    EXPECT_THAT(msg, HasSubstr("'op' (Add)"));
    EXPECT_THAT(msg, HasSubstr("[2,3]"));
    EXPECT_THAT(msg, HasSubstr("[4,3]"));
    EXPECT_THAT(infer_error("Where", {{4}, {4}}), HasSubstr("expects 3 inputs"));
}

TEST(OpSemanticsElementwise, UnaryKeepShape) {
    for (const char* t : {"Sqrt", "Erf", "Tanh", "Relu", "Sigmoid", "Exp", "Cast", "Neg",
                          "Identity", "Gelu", "Softmax", "Not", "CumSum"}) {
        EXPECT_EQ(infer1(t, {{1, 16, 512}}), (Shape{1, 16, 512})) << t;
    }
}

TEST(OpSemanticsReduce, AxesAndKeepdims) {
    const Attributes last{{"axes", Ints{-1}}};
    EXPECT_EQ(infer1("ReduceMean", {{1, 16, 512}}, last), (Shape{1, 16, 1}));
    EXPECT_EQ(
        infer1("ReduceMean", {{1, 16, 512}}, {{"axes", Ints{-1}}, {"keepdims", std::int64_t{0}}}),
        (Shape{1, 16}));
    EXPECT_EQ(infer1("ReduceSum", {{2, 3, 4}}, {{"axes", Ints{0, 2}}}), (Shape{1, 3, 1}));
    EXPECT_EQ(infer1("ReduceSum", {{2, 3, 4}}), (Shape{1, 1, 1}));  // no axes: all
    EXPECT_EQ(infer1("ReduceSum", {{2, 3, 4}}, {{"keepdims", std::int64_t{0}}}), (Shape{}));
    EXPECT_THAT(infer_error("ReduceMean", {{2, 3}}, {{"axes", Ints{2}}}),
                HasSubstr("axis 2 is out of range for input shape [2,3]"));
    EXPECT_THAT(infer_error("ReduceMean", {{2, 3}}, {{"axes", Ints{1, -1}}}),
                HasSubstr("listed twice"));
}

TEST(OpSemanticsDataMovement, Transpose) {
    EXPECT_EQ(infer1("Transpose", {{1, 16, 8, 64}}, {{"perm", Ints{0, 2, 1, 3}}}),
              (Shape{1, 8, 16, 64}));
    EXPECT_EQ(infer1("Transpose", {{1, 16, 8, 64}}, {{"perm", Ints{0, 2, 3, 1}}}),
              (Shape{1, 8, 64, 16}));
    EXPECT_EQ(infer1("Transpose", {{2, 3, 4}}), (Shape{4, 3, 2}));  // default: reverse
    EXPECT_THAT(infer_error("Transpose", {{2, 3, 4}}, {{"perm", Ints{0, 1}}}),
                HasSubstr("does not match rank"));
    EXPECT_THAT(infer_error("Transpose", {{2, 3, 4}}, {{"perm", Ints{0, 1, 1}}}),
                HasSubstr("not a permutation"));
}

TEST(OpSemanticsDataMovement, Reshape) {
    EXPECT_EQ(infer1("Reshape", {{1, 16, 512}}, {{"shape", Ints{0, 0, 8, 64}}}),
              (Shape{1, 16, 8, 64}));
    EXPECT_EQ(infer1("Reshape", {{1, 16, 8, 64}}, {{"shape", Ints{0, 0, -1}}}),
              (Shape{1, 16, 512}));
    EXPECT_EQ(infer1("Reshape", {{1, 16, 768}}, {{"shape", Ints{-1, 768}}}), (Shape{16, 768}));
    // The attribute form is used even when the exporter also passes the shape as an input.
    EXPECT_EQ(infer1("Reshape", {{1, 16, 768}, {2}}, {{"shape", Ints{-1, 768}}}), (Shape{16, 768}));
    EXPECT_FALSE(OneOp("Reshape", {{1, 16, 768}, {2}}).infer().has_value());
    EXPECT_THAT(infer_error("Reshape", {{1, 16, 512}}, {{"shape", Ints{0, 0, 7, -1}}}),
                HasSubstr("cannot reshape [1,16,512]"));
    EXPECT_THAT(infer_error("Reshape", {{1, 16, 512}}, {{"shape", Ints{16, 511}}}),
                HasSubstr("8192 elements"));
    EXPECT_THAT(infer_error("Reshape", {{1, 16, 512}}, {{"shape", Ints{-1, -1}}}),
                HasSubstr("more than one -1"));
}

TEST(OpSemanticsDataMovement, Gather) {
    EXPECT_EQ(infer1("Gather", {{30522, 512}, {1, 16}}), (Shape{1, 16, 512}));
    EXPECT_EQ(infer1("Gather", {{1, 16, 512}, {}}, {{"axis", std::int64_t{1}}}), (Shape{1, 512}));
    EXPECT_EQ(infer1("Gather", {{3}, {}}), (Shape{}));
    EXPECT_EQ(infer1("Gather", {{5, 6, 7}, {2, 3}}, {{"axis", std::int64_t{-1}}}),
              (Shape{5, 6, 2, 3}));
    EXPECT_THAT(infer_error("Gather", {{5, 6}, {2}}, {{"axis", std::int64_t{2}}}),
                HasSubstr("out of range"));
}

TEST(OpSemanticsDataMovement, ConcatAndSplit) {
    EXPECT_EQ(infer1("Concat", {{1}, {1}, {1}}, {{"axis", std::int64_t{0}}}), (Shape{3}));
    EXPECT_EQ(infer1("Concat", {{2, 3}, {2, 5}}, {{"axis", std::int64_t{-1}}}), (Shape{2, 8}));
    const std::string msg = infer_error("Concat", {{2, 3}, {4, 5}}, {{"axis", std::int64_t{1}}});
    EXPECT_THAT(msg, HasSubstr("[2,3]"));
    EXPECT_THAT(msg, HasSubstr("[4,5]"));

    OneOp split("Split", {{1, 16, 2304}},
                {{"axis", std::int64_t{2}}, {"split", Ints{768, 768, 768}}},
                {Shape{}, Shape{}, Shape{}});
    auto parts = split.infer();
    ASSERT_TRUE(parts.has_value());
    EXPECT_EQ(*parts, (std::vector<Shape>(3, Shape{1, 16, 768})));
    // Without "split": equal parts, one per declared output.
    auto halves = OneOp("Split", {{4, 6}}, {{"axis", std::int64_t{1}}}, {Shape{}, Shape{}}).infer();
    EXPECT_EQ(*halves, (std::vector<Shape>(2, Shape{4, 3})));
    EXPECT_THROW(OneOp("Split", {{4, 7}}, {{"axis", std::int64_t{1}}}, {Shape{}, Shape{}}).infer(),
                 GraphError);
    try {
        OneOp("Split", {{4, 6}}, {{"axis", std::int64_t{1}}, {"split", Ints{2, 2}}},
              {Shape{}, Shape{}})
            .infer();
        FAIL();
    } catch (const GraphError& e) {
        EXPECT_THAT(e.what(), HasSubstr("sum to 4 but dimension 1 of [4,6] is 6"));
    }
    EXPECT_THROW(OneOp("Split", {{4, 6}}, {{"axis", std::int64_t{1}}, {"split", Ints{2, 4}}},
                       {Shape{}, Shape{}, Shape{}})
                     .infer(),
                 GraphError);
}

TEST(OpSemanticsDataMovement, Slice) {
    EXPECT_EQ(infer1("Slice", {{1, 1, 1024, 1024}},
                     {{"starts", Ints{0}}, {"ends", Ints{16}}, {"axes", Ints{2}}}),
              (Shape{1, 1, 16, 1024}));
    const std::int64_t big = std::numeric_limits<std::int64_t>::max();
    const std::int64_t small = std::numeric_limits<std::int64_t>::min();
    EXPECT_EQ(infer1("Slice", {{10, 4}}, {{"starts", Ints{-3}}, {"ends", Ints{big}}}),
              (Shape{3, 4}));
    EXPECT_EQ(
        infer1("Slice", {{10}}, {{"starts", Ints{1}}, {"ends", Ints{10}}, {"steps", Ints{2}}}),
        (Shape{5}));
    EXPECT_EQ(
        infer1("Slice", {{10}}, {{"starts", Ints{-1}}, {"ends", Ints{small}}, {"steps", Ints{-1}}}),
        (Shape{10}));
    EXPECT_EQ(infer1("Slice", {{10}}, {{"starts", Ints{8}}, {"ends", Ints{2}}}), (Shape{0}));
    EXPECT_EQ(infer1("Slice", {{4, 6}},
                     {{"starts", Ints{1, 0}}, {"ends", Ints{3, -1}}, {"axes", Ints{-1, 0}}}),
              (Shape{3, 2}));
    // Input form without the static attributes: trust the declared shape.
    EXPECT_FALSE(OneOp("Slice", {{10}, {1}, {1}}).infer().has_value());
}

TEST(OpSemanticsDataMovement, UnsqueezeSqueezeFlatten) {
    EXPECT_EQ(infer1("Unsqueeze", {{1, 16}}, {{"axes", Ints{1}}}), (Shape{1, 1, 16}));
    EXPECT_EQ(infer1("Unsqueeze", {{1, 16}}, {{"axes", Ints{1, 2}}}), (Shape{1, 1, 1, 16}));
    EXPECT_EQ(infer1("Unsqueeze", {{}}, {{"axes", Ints{0}}}), (Shape{1}));
    EXPECT_EQ(infer1("Unsqueeze", {{3}}, {{"axes", Ints{-1}}}), (Shape{3, 1}));
    EXPECT_THAT(infer_error("Unsqueeze", {{3}}), HasSubstr("axes"));
    EXPECT_EQ(infer1("Squeeze", {{1, 3, 1}}, {{"axes", Ints{0}}}), (Shape{3, 1}));
    EXPECT_EQ(infer1("Squeeze", {{1, 3, 1}}), (Shape{3}));
    EXPECT_THAT(infer_error("Squeeze", {{1, 3, 1}}, {{"axes", Ints{1}}}),
                HasSubstr("cannot squeeze axis 1 of size 3 in [1,3,1]"));
    EXPECT_EQ(infer1("Flatten", {{1, 2048, 1, 1}}), (Shape{1, 2048}));
    EXPECT_EQ(infer1("Flatten", {{2, 3, 4}}, {{"axis", std::int64_t{0}}}), (Shape{1, 24}));
    EXPECT_EQ(infer1("Flatten", {{2, 3, 4}}, {{"axis", std::int64_t{-1}}}), (Shape{6, 4}));
}

TEST(OpSemanticsNormalization, LayerAndBatchNorm) {
    EXPECT_EQ(infer1("LayerNormalization", {{1, 16, 512}, {512}, {512}}), (Shape{1, 16, 512}));
    auto with_stats =
        OneOp("LayerNormalization", {{1, 16, 512}, {512}, {512}}, {}, {Shape{}, Shape{}, Shape{}})
            .infer();
    EXPECT_EQ(*with_stats, (std::vector<Shape>{{1, 16, 512}, {1, 16, 1}, {1, 16, 1}}));
    EXPECT_THAT(infer_error("LayerNormalization", {{1, 16, 512}, {256}}), HasSubstr("[256]"));
    EXPECT_EQ(infer1("BatchNormalization", {{1, 64, 56, 56}, {64}, {64}, {64}, {64}}),
              (Shape{1, 64, 56, 56}));
    EXPECT_THAT(infer_error("BatchNormalization", {{1, 64, 56, 56}, {32}, {64}, {64}, {64}}),
                HasSubstr("[32]"));
}

TEST(OpSemanticsConv, OutputSizes) {
    const Attributes resnet_stem{
        {"kernel_shape", Ints{7, 7}}, {"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}};
    EXPECT_EQ(infer1("Conv", {{1, 3, 224, 224}, {64, 3, 7, 7}}, resnet_stem),
              (Shape{1, 64, 112, 112}));
    EXPECT_EQ(infer1("Conv", {{1, 32, 112, 112}, {32, 1, 3, 3}, {32}},
                     {{"group", std::int64_t{32}}, {"pads", Ints{1, 1, 1, 1}}}),
              (Shape{1, 32, 112, 112}));
    EXPECT_EQ(infer1("Conv", {{1, 8, 10, 10}, {4, 8, 3, 3}}, {{"dilations", Ints{2, 2}}}),
              (Shape{1, 4, 6, 6}));
    EXPECT_EQ(infer1("Conv", {{1, 8, 10, 10}, {4, 8, 3, 3}},
                     {{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints{2, 2}}}),
              (Shape{1, 4, 5, 5}));
    const std::string msg = infer_error("Conv", {{1, 3, 224, 224}, {64, 4, 7, 7}});
    EXPECT_THAT(msg, HasSubstr("[1,3,224,224]"));
    EXPECT_THAT(msg, HasSubstr("[64,4,7,7]"));
}

TEST(OpSemanticsConv, Pooling) {
    const Attributes pool{
        {"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}};
    EXPECT_EQ(infer1("MaxPool", {{1, 64, 112, 112}}, pool), (Shape{1, 64, 56, 56}));
    EXPECT_EQ(infer1("AveragePool", {{1, 8, 7, 7}},
                     {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}),
              (Shape{1, 8, 3, 3}));
    EXPECT_EQ(infer1("AveragePool", {{1, 8, 7, 7}},
                     {{"kernel_shape", Ints{2, 2}},
                      {"strides", Ints{2, 2}},
                      {"ceil_mode", std::int64_t{1}}}),
              (Shape{1, 8, 4, 4}));
    EXPECT_EQ(infer1("GlobalAveragePool", {{1, 2048, 7, 7}}), (Shape{1, 2048, 1, 1}));
    EXPECT_THAT(infer_error("MaxPool", {{1, 8, 7, 7}}), HasSubstr("kernel_shape"));
}

TEST(OpSemanticsMisc, ShapeAndUnknown) {
    EXPECT_EQ(infer1("Shape", {{1, 16, 768}}), (Shape{3}));
    EXPECT_FALSE(OneOp("FancyCustomOp", {{1, 2}}).infer().has_value());
    EXPECT_FALSE(OneOp("Expand", {{1, 2}, {2}}).infer().has_value());
}

TEST(OpSemanticsFlops, MatrixProducts) {
    EXPECT_DOUBLE_EQ(OneOp("MatMul", {{16, 512}, {512, 512}}, {}, {{16, 512}}).flops(),
                     2.0 * 16 * 512 * 512);
    EXPECT_DOUBLE_EQ(
        OneOp("MatMul", {{1, 8, 16, 64}, {1, 8, 64, 16}}, {}, {{1, 8, 16, 16}}).flops(),
        2.0 * 8 * 16 * 16 * 64);
    EXPECT_DOUBLE_EQ(OneOp("MatMul", {{4}, {4, 5}}, {}, {{5}}).flops(), 2.0 * 5 * 4);
    // Gemm: 2*M*N*K plus M*N for the bias (lee2022 §4.2).
    EXPECT_DOUBLE_EQ(OneOp("Gemm", {{16, 768}, {768, 2304}, {2304}}, {}, {{16, 2304}}).flops(),
                     2.0 * 16 * 2304 * 768 + 16 * 2304);
    EXPECT_DOUBLE_EQ(
        OneOp("Gemm", {{1, 512}, {2, 512}}, {{"transB", std::int64_t{1}}}, {{1, 2}}).flops(),
        2.0 * 1 * 2 * 512);
    EXPECT_DOUBLE_EQ(
        OneOp("Gemm", {{512, 16}, {512, 8}}, {{"transA", std::int64_t{1}}}, {{16, 8}}).flops(),
        2.0 * 16 * 8 * 512);
}

TEST(OpSemanticsGemmDims, RowsAsStoredFollowTheTransposes) {
    // A row of each operand as stored is its last dimension: K of A and N of B as written; a
    // transposed Gemm operand stores M (A) or K (B) along its rows.
    const auto plain = matmul_dims(Op{"op", "MatMul", {}, {}, {}}, {{3, 5, 7}, {7, 9}});
    ASSERT_TRUE(plain.has_value());
    EXPECT_EQ(plain->batch, 3.0);
    EXPECT_EQ(plain->a_row, 7.0);
    EXPECT_EQ(plain->b_row, 9.0);
    const Attributes transposed = {{"transA", std::int64_t{1}}, {"transB", std::int64_t{1}}};
    const auto t = matmul_dims(Op{"op", "Gemm", transposed, {}, {}}, {{512, 16}, {8, 512}});
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->m, 16.0);
    EXPECT_EQ(t->n, 8.0);
    EXPECT_EQ(t->k, 512.0);
    EXPECT_EQ(t->a_row, 16.0);   // A stored [K, M]
    EXPECT_EQ(t->b_row, 512.0);  // B stored [N, K]
    // An implicit GEMM's operands are the library's to lay out: not known.
    const auto conv =
        conv_gemm_dims(Op{"op", "Conv", {}, {}, {}}, {{1, 3, 8, 8}, {4, 3, 3, 3}}, {1, 4, 6, 6});
    ASSERT_TRUE(conv.has_value());
    EXPECT_EQ(conv->a_row, 0.0);
    EXPECT_EQ(conv->b_row, 0.0);
}

TEST(OpSemanticsFlops, ElementwiseReductionsAndMovement) {
    for (const char* t : {"Add", "Pow", "Div", "Mul"}) {
        EXPECT_DOUBLE_EQ(OneOp(t, {{16, 512}, {512}}, {}, {{16, 512}}).flops(), 16.0 * 512) << t;
    }
    for (const char* t : {"Erf", "Sqrt", "Tanh", "Cast"}) {
        EXPECT_DOUBLE_EQ(OneOp(t, {{16, 512}}, {}, {{16, 512}}).flops(), 16.0 * 512) << t;
    }
    EXPECT_DOUBLE_EQ(OneOp("Softmax", {{1, 8, 16, 16}}, {}, {{1, 8, 16, 16}}).flops(),
                     5.0 * 8 * 16 * 16);
    EXPECT_DOUBLE_EQ(
        OneOp("ReduceMean", {{1, 16, 512}}, {{"axes", Ints{-1}}}, {{1, 16, 1}}).flops(),
        16.0 * 512);
    EXPECT_DOUBLE_EQ(OneOp("LayerNormalization", {{16, 512}, {512}}, {}, {{16, 512}}).flops(),
                     7.0 * 16 * 512);
    for (const char* t : {"Transpose", "Reshape", "Identity", "Unsqueeze"}) {
        EXPECT_DOUBLE_EQ(OneOp(t, {{16, 512}}, {}, {{16, 512}}).flops(), 0.0) << t;
    }
    EXPECT_DOUBLE_EQ(OneOp("Gather", {{100, 8}, {4}}, {}, {{4, 8}}).flops(), 0.0);
    EXPECT_DOUBLE_EQ(OneOp("FancyCustomOp", {{16, 512}}, {}, {{16, 512}}).flops(), 0.0);
}

TEST(OpSemanticsFlops, IntegerArithmeticIsNoFloatingPointWork) {
    // Shape arithmetic of an exported graph (Div(size, heads)) and integer bookkeeping.
    Graph g("ints");
    int a = g.add_tensor("a", {}, DType::i64, TensorKind::input);
    int b = g.add_tensor("b", {}, DType::i64, TensorKind::weight);
    int q = g.add_tensor("q", {}, DType::i64);
    int m = g.add_tensor("m", {1, 16}, DType::i64, TensorKind::input);
    int f = g.add_tensor("f", {1, 16}, DType::f32);
    int e = g.add_tensor("e", {4}, DType::f32, TensorKind::input);
    int eq = g.add_tensor("eq", {4}, DType::boolean);
    g.add_op("div", "Div", {a, b}, {q});
    g.add_op("cast", "Cast", {m}, {f});
    g.add_op("equal", "Equal", {e, e}, {eq});
    EXPECT_DOUBLE_EQ(op_flops(g, g.op(0)), 0.0);
    EXPECT_DOUBLE_EQ(op_flops(g, g.op(1)), 16.0);  // produces floats
    EXPECT_DOUBLE_EQ(op_flops(g, g.op(2)), 4.0);   // compares floats
}

TEST(OpSemanticsFlops, ConvAndPooling) {
    // 2 * N * Cout * Hout * Wout * (Cin/group) * kh * kw
    EXPECT_DOUBLE_EQ(
        OneOp("Conv", {{1, 3, 224, 224}, {64, 3, 7, 7}},
              {{"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}}, {{1, 64, 112, 112}})
            .flops(),
        2.0 * 1 * 64 * 112 * 112 * 3 * 7 * 7);
    EXPECT_DOUBLE_EQ(
        OneOp("Conv", {{2, 32, 8, 8}, {32, 1, 3, 3}},
              {{"group", std::int64_t{32}}, {"pads", Ints{1, 1, 1, 1}}}, {{2, 32, 8, 8}})
            .flops(),
        2.0 * 2 * 32 * 8 * 8 * 1 * 3 * 3);
    EXPECT_DOUBLE_EQ(
        OneOp("MaxPool", {{1, 64, 112, 112}},
              {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}},
              {{1, 64, 56, 56}})
            .flops(),
        64.0 * 56 * 56 * 9);
    EXPECT_DOUBLE_EQ(OneOp("GlobalAveragePool", {{1, 2048, 7, 7}}, {}, {{1, 2048, 1, 1}}).flops(),
                     2048.0 * 49);
}

}  // namespace
}  // namespace hetsim::sim
