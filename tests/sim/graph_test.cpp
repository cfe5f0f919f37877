// The graph IR (sim/graph.cpp): construction errors, finalize() validation, derived FLOPs and
// bytes, topological order and edge counting.
#include "sim/graph.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace hetsim::sim {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string finalize_error(Graph& g) {
    try {
        g.finalize();
    } catch (const GraphError& e) {
        return e.what();
    }
    ADD_FAILURE() << "finalize() did not throw";
    return {};
}

TEST(GraphBasics, DtypesShapesAndAttributes) {
    EXPECT_EQ(dtype_size_bytes(DType::f32), 4);
    EXPECT_EQ(dtype_size_bytes(DType::bf16), 2);
    EXPECT_EQ(dtype_size_bytes(DType::i64), 8);
    EXPECT_EQ(parse_dtype("fp32"), DType::f32);
    EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
    EXPECT_FALSE(parse_dtype("float128").has_value());
    EXPECT_EQ(to_string(DType::i64), "int64");
    EXPECT_EQ(element_count({1, 16, 512}), 8192);
    EXPECT_EQ(element_count({}), 1);
    EXPECT_EQ(to_string(Shape{1, 16, 512}), "[1,16,512]");
    EXPECT_EQ(to_string(Shape{}), "[]");

    Op op;
    op.attrs = {{"axis", std::int64_t{2}},
                {"alpha", 0.5},
                {"perm", std::vector<std::int64_t>{0, 2, 1}},
                {"mode", std::string("x")}};
    EXPECT_EQ(op.attr_int("axis", -1), 2);
    EXPECT_EQ(op.attr_int("missing", -1), -1);
    EXPECT_DOUBLE_EQ(op.attr_float("alpha", 1.0), 0.5);
    EXPECT_DOUBLE_EQ(op.attr_float("axis", 1.0), 2.0);
    EXPECT_EQ(op.attr_ints("perm"), (std::vector<std::int64_t>{0, 2, 1}));
    EXPECT_EQ(op.attr_ints("axis"), (std::vector<std::int64_t>{2}));
    EXPECT_TRUE(op.attr_ints("mode").empty());
    EXPECT_TRUE(op.attr_ints("missing").empty());
}

TEST(GraphConstruction, DuplicateNamesAreRejected) {
    Graph g("dup");
    int x = g.add_tensor("x", {4}, DType::f32, TensorKind::input);
    int y = g.add_tensor("y", {4}, DType::f32);
    try {
        g.add_tensor("x", {4}, DType::f32);
        FAIL() << "duplicate tensor accepted";
    } catch (const GraphError& e) {
        EXPECT_THAT(e.what(), HasSubstr("tensor 'x' defined twice"));
    }
    g.add_op("relu", "Relu", {x}, {y});
    int z = g.add_tensor("z", {4}, DType::f32);
    try {
        g.add_op("relu", "Relu", {y}, {z});
        FAIL() << "duplicate op accepted";
    } catch (const GraphError& e) {
        EXPECT_THAT(e.what(), HasSubstr("op 'relu' defined twice"));
    }
    try {
        g.add_op("relu2", "Relu", {x}, {y});
        FAIL() << "second producer accepted";
    } catch (const GraphError& e) {
        EXPECT_THAT(e.what(), HasSubstr("tensor 'y' is written by both 'relu' and 'relu2'"));
    }
}

TEST(GraphConstruction, InvalidTensorsAndOutputs) {
    Graph g("bad");
    EXPECT_THROW(g.add_tensor("neg", {2, -1}, DType::f32), GraphError);
    int x = g.add_tensor("x", {4}, DType::f32, TensorKind::input);
    int w = g.add_tensor("w", {4}, DType::f32, TensorKind::weight);
    int y = g.add_tensor("y", {4}, DType::f32);
    EXPECT_THAT(
        [&] {
            try {
                g.add_op("a", "Add", {x, 42}, {y});
            } catch (const GraphError& e) {
                return std::string(e.what());
            }
            return std::string();
        }(),
        HasSubstr("reads unknown tensor id 42"));
    EXPECT_THROW(g.add_op("b", "Relu", {x}, {w}), GraphError);  // writes a weight
    EXPECT_THROW(g.add_op("c", "Relu", {x}, {x}), GraphError);  // writes a graph input
    EXPECT_THROW(g.add_op("d", "Relu", {x}, {99}), GraphError);
    // An output listed twice is a GraphError, and a rejected op leaves the graph unchanged.
    EXPECT_THROW(g.add_op("e", "Split", {x}, {y, y}), GraphError);
    EXPECT_EQ(g.tensor(y).producer, -1);
    EXPECT_EQ(g.op_count(), 0);
    EXPECT_TRUE(g.tensor(x).consumers.empty());
    g.add_op("ok", "Relu", {x}, {y});
    EXPECT_NO_THROW(g.finalize());
}

TEST(GraphFinalize, DanglingTensorNamesTensorAndOp) {
    Graph g("dangling");
    int x = g.add_tensor("x", {4}, DType::f32, TensorKind::input);
    int orphan = g.add_tensor("orphan", {4}, DType::f32);  // an activation nobody produces
    int y = g.add_tensor("y", {4}, DType::f32);
    g.add_op("adder", "Add", {x, orphan}, {y});
    const std::string msg = finalize_error(g);
    EXPECT_THAT(msg, HasSubstr("dangling tensor 'orphan'"));
    EXPECT_THAT(msg, HasSubstr("op 'adder'"));
    EXPECT_THAT(msg, HasSubstr("graph 'dangling'"));
    EXPECT_FALSE(g.finalized());
}

TEST(GraphFinalize, TwoOpCycleIsNamed) {
    Graph g("cyclic");
    int x = g.add_tensor("x", {4}, DType::f32);
    int y = g.add_tensor("y", {4}, DType::f32);
    g.add_op("a", "Relu", {y}, {x});  // a reads b's output
    g.add_op("b", "Relu", {x}, {y});  // b reads a's output
    const std::string msg = finalize_error(g);
    EXPECT_THAT(msg, HasSubstr("has a cycle"));
    // Either rotation of the directed cycle a -> b -> a.
    EXPECT_THAT(msg, AnyOf(HasSubstr("a -> b -> a"), HasSubstr("b -> a -> b")));
}

TEST(GraphFinalize, LongerCycleWithTailAndDownstreamOps) {
    Graph g("cyclic");
    int in = g.add_tensor("in", {4}, DType::f32, TensorKind::input);
    int t0 = g.add_tensor("t0", {4}, DType::f32);
    int x = g.add_tensor("x", {4}, DType::f32);
    int y = g.add_tensor("y", {4}, DType::f32);
    int z = g.add_tensor("z", {4}, DType::f32);
    int out = g.add_tensor("out", {4}, DType::f32);
    g.add_op("down", "Relu", {x}, {out});  // consumer of the cycle, not on it (lowest id)
    g.add_op("src", "Relu", {in}, {t0});   // feeds the cycle
    g.add_op("p", "Add", {t0, z}, {x});    // p -> q -> r -> p
    g.add_op("q", "Relu", {x}, {y});
    g.add_op("r", "Relu", {y}, {z});
    const std::string msg = finalize_error(g);
    EXPECT_THAT(msg, AnyOf(HasSubstr("p -> q -> r -> p"), HasSubstr("q -> r -> p -> q"),
                           HasSubstr("r -> p -> q -> r")));
    EXPECT_THAT(msg, Not(HasSubstr("down")));
    EXPECT_THAT(msg, Not(HasSubstr("src")));
}

TEST(GraphFinalize, SelfLoop) {
    Graph g("self");
    int x = g.add_tensor("x", {4}, DType::f32);
    int y = g.add_tensor("y", {4}, DType::f32);
    g.add_op("loop", "Add", {x, y}, {y});
    g.add_op("feed", "Relu", {y}, {x});
    EXPECT_THAT(finalize_error(g), HasSubstr("has a cycle"));
}

TEST(GraphFinalize, ShapeMismatchNamesOpAndBothShapes) {
    Graph g("mm");
    int a = g.add_tensor("a", {16, 512}, DType::f32, TensorKind::input);
    int w = g.add_tensor("w", {512, 512}, DType::f32, TensorKind::weight);
    int y = g.add_tensor("y", {16, 256}, DType::f32);  // should be [16,512]
    g.add_op("proj", "MatMul", {a, w}, {y});
    const std::string msg = finalize_error(g);
    EXPECT_THAT(msg, HasSubstr("shape mismatch at op 'proj' (MatMul)"));
    EXPECT_THAT(msg, HasSubstr("declared [16,256]"));
    EXPECT_THAT(msg, HasSubstr("give [16,512]"));
}

TEST(GraphFinalize, IncompatibleInputsNameOpAndBothShapes) {
    Graph g("mm");
    int a = g.add_tensor("a", {16, 512}, DType::f32, TensorKind::input);
    int w = g.add_tensor("w", {256, 512}, DType::f32, TensorKind::weight);
    int y = g.add_tensor("y", {16, 512}, DType::f32);
    g.add_op("proj", "MatMul", {a, w}, {y});
    const std::string msg = finalize_error(g);
    EXPECT_THAT(msg, HasSubstr("'proj'"));
    EXPECT_THAT(msg, HasSubstr("[16,512]"));
    EXPECT_THAT(msg, HasSubstr("[256,512]"));
}

TEST(GraphFinalize, TooManyDeclaredOutputs) {
    Graph g("outs");
    int x = g.add_tensor("x", {4}, DType::f32, TensorKind::input);
    int y0 = g.add_tensor("y0", {4}, DType::f32);
    int y1 = g.add_tensor("y1", {4}, DType::f32);
    g.add_op("add", "Add", {x, x}, {y0, y1});
    EXPECT_THAT(finalize_error(g), HasSubstr("declares 2 outputs, expected 1"));
}

TEST(GraphFinalize, UnknownOpTypesAreTrusted) {
    Graph g("custom");
    int x = g.add_tensor("x", {4}, DType::f32, TensorKind::input);
    int y = g.add_tensor("y", {7, 7}, DType::f32);
    g.add_op("c", "MyCustomOp", {x}, {y});
    EXPECT_NO_THROW(g.finalize());
    EXPECT_DOUBLE_EQ(g.op(0).flops, 0.0);
    EXPECT_EQ(g.op(0).bytes_written, 49 * 4);
}

TEST(GraphFinalize, DerivesFlopsAndBytes) {
    Graph g("proj");
    int a = g.add_tensor("a", {16, 512}, DType::f32, TensorKind::input);
    int w = g.add_tensor("w", {512, 256}, DType::f32, TensorKind::weight);
    int b = g.add_tensor("b", {256}, DType::bf16, TensorKind::weight);
    int y = g.add_tensor("y", {16, 256}, DType::f32);
    int z = g.add_tensor("z", {16, 256}, DType::f32);
    g.add_op("mm", "MatMul", {a, w}, {y});
    g.add_op("bias", "Add", {y, b}, {z});
    g.finalize();
    ASSERT_TRUE(g.finalized());
    const Op& mm = g.op(0);
    EXPECT_DOUBLE_EQ(mm.flops, 2.0 * 16 * 256 * 512);
    EXPECT_EQ(mm.bytes_read, (16 * 512 + 512 * 256) * 4);
    EXPECT_EQ(mm.bytes_written, 16 * 256 * 4);
    const Op& add = g.op(1);
    EXPECT_DOUBLE_EQ(add.flops, 16.0 * 256);
    EXPECT_EQ(add.bytes_read, 16 * 256 * 4 + 256 * 2);
    EXPECT_DOUBLE_EQ(g.total_flops(), 2.0 * 16 * 256 * 512 + 16 * 256);
    EXPECT_EQ(g.total_weight_bytes(), 512 * 256 * 4 + 256 * 2);
    // Outputs nobody reads become graph outputs.
    EXPECT_TRUE(g.tensor(z).is_graph_output);
    EXPECT_FALSE(g.tensor(y).is_graph_output);
    EXPECT_EQ(g.find_tensor("z"), z);
    EXPECT_EQ(g.find_op("bias"), 1);
    EXPECT_FALSE(g.find_op("nope").has_value());
    EXPECT_FALSE(g.find_tensor("nope").has_value());
}

// A diamond whose ops are added out of dependency order:
//   0 "join"  reads l, r   (added first)
//   1 "left"  reads s
//   2 "src"   reads in
//   3 "right" reads s
//   4 "sink"  reads j, s
Graph diamond() {
    Graph g("diamond");
    int in = g.add_tensor("in", {8}, DType::f32, TensorKind::input);
    int s = g.add_tensor("s", {8}, DType::f32);
    int l = g.add_tensor("l", {8}, DType::f32);
    int r = g.add_tensor("r", {8}, DType::f32);
    int j = g.add_tensor("j", {8}, DType::f32);
    int k = g.add_tensor("k", {8}, DType::f32);
    g.add_op("join", "Add", {l, r}, {j});
    g.add_op("left", "Relu", {s}, {l});
    g.add_op("src", "Relu", {in}, {s});
    g.add_op("right", "Tanh", {s}, {r});
    g.add_op("sink", "Mul", {j, s}, {k});
    return g;
}

TEST(GraphTopology, TopoOrderIsValidAndDeterministic) {
    Graph g = diamond();
    EXPECT_THROW(g.topo_order(), GraphError);  // not finalized yet
    g.finalize();
    const std::vector<int>& order = g.topo_order();
    // Kahn's algorithm with ties broken by the smallest op id.
    EXPECT_EQ(order, (std::vector<int>{2, 1, 3, 0, 4}));
    ASSERT_EQ(g.topo_position().size(), order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        EXPECT_EQ(g.topo_position()[static_cast<std::size_t>(order[i])], static_cast<int>(i));
    }
    for (int op = 0; op < g.op_count(); ++op) {
        for (int p : g.predecessors(op)) {
            EXPECT_LT(g.topo_position()[static_cast<std::size_t>(p)],
                      g.topo_position()[static_cast<std::size_t>(op)]);
        }
    }
    Graph again = diamond();
    again.finalize();
    EXPECT_EQ(again.topo_order(), order);
    g.finalize();  // idempotent
    EXPECT_EQ(g.topo_order(), order);
}

TEST(GraphTopology, PredecessorsSuccessorsAndEdges) {
    Graph g = diamond();
    g.finalize();
    EXPECT_EQ(g.predecessors(0), (std::vector<int>{1, 3}));
    EXPECT_EQ(g.predecessors(4), (std::vector<int>{0, 2}));
    EXPECT_TRUE(g.predecessors(2).empty());  // reads only a graph input
    EXPECT_EQ(g.successors(2), (std::vector<int>{1, 3, 4}));
    EXPECT_TRUE(g.successors(4).empty());
    // s -> left, right, sink; l -> join; r -> join; j -> sink. The graph input is no edge.
    EXPECT_EQ(g.edge_count(), 6);
}

TEST(GraphTopology, RepeatedOperandIsOneEdge) {
    Graph g("square");
    int x = g.add_tensor("x", {4}, DType::f32, TensorKind::input);
    int y = g.add_tensor("y", {4}, DType::f32);
    int z = g.add_tensor("z", {4}, DType::f32);
    g.add_op("relu", "Relu", {x}, {y});
    g.add_op("square", "Mul", {y, y}, {z});
    g.finalize();
    EXPECT_EQ(g.edge_count(), 1);
    EXPECT_EQ(g.predecessors(1), (std::vector<int>{0}));
    EXPECT_EQ(g.topo_order(), (std::vector<int>{0, 1}));
}

TEST(GraphTopology, AddingAfterFinalizeRequiresFinalizeAgain) {
    Graph g = diamond();
    g.finalize();
    int extra = g.add_tensor("extra", {8}, DType::f32);
    EXPECT_FALSE(g.finalized());
    g.add_op("tail", "Neg", {*g.find_tensor("k")}, {extra});
    g.finalize();
    EXPECT_EQ(g.topo_order().back(), 5);
    EXPECT_TRUE(g.tensor(extra).is_graph_output);
}

}  // namespace
}  // namespace hetsim::sim
