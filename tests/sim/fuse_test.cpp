// Compiler fusion (sim/passes/fuse.hpp): TVM's FuseOps groups on hand-built graphs, counted by
// hand; DUET's wide-and-deep subgraphs fused as TVM fuses them; a fused group costs one
// launch over the bytes that cross it.
#include "sim/passes/fuse.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "devices/gpu.hpp"
#include "sim/op_table.hpp"
#include "sim/workloads/model_zoo.hpp"

namespace hetsim::sim::passes {
namespace {

// A small builder: ops read and write named [1, 64] (or given) fp32 tensors.
struct Builder {
    Graph g{"fuse"};
    int tensor(const std::string& name, Shape shape = {1, 64},
               TensorKind kind = TensorKind::activation) {
        if (auto id = g.find_tensor(name))
            return *id;
        return g.add_tensor(name, std::move(shape), DType::f32, kind);
    }
    void op(const std::string& name, const std::string& type, std::vector<std::string> in,
            std::vector<std::string> out, Attributes attrs = {}) {
        std::vector<int> ins, outs;
        for (const auto& t : in)
            ins.push_back(tensor(t));
        for (const auto& t : out)
            outs.push_back(tensor(t));
        g.add_op(name, type, ins, outs, std::move(attrs));
    }
};

int group_count(const std::vector<int>& groups) {
    return static_cast<int>(std::set<int>(groups.begin(), groups.end()).size());
}

TEST(FuseTvm, ElementwiseEpilogueFusesIntoMatMulAndAReductionEndsAChain) {
    // x -> MatMul(w) -> Add(b) -> Relu -> ReduceMean -> Sigmoid
    // TVM: [MatMul, Add, Relu] (epilogue), [ReduceMean] (a reduction cannot join an anchor's
    // epilogue), [Sigmoid] (nothing fuses after a reduction).
    Builder b;
    b.tensor("x", {1, 64}, TensorKind::input);
    b.tensor("w", {64, 64}, TensorKind::weight);
    b.tensor("b", {64}, TensorKind::weight);
    b.op("mm", "MatMul", {"x", "w"}, {"h"});
    b.op("add", "Add", {"h", "b"}, {"h2"});
    b.op("relu", "Relu", {"h2"}, {"h3"});
    b.tensor("m", {1, 1});
    b.op("mean", "ReduceMean", {"h3"}, {"m"}, {{"axes", std::vector<std::int64_t>{1}}});
    b.tensor("y", {1, 1});
    b.op("sig", "Sigmoid", {"m"}, {"y"});
    b.g.mark_output(*b.g.find_tensor("y"));
    b.g.finalize();
    const std::vector<int> groups = tvm_fusion_groups(b.g);
    EXPECT_EQ(groups, (std::vector<int>{0, 0, 0, 1, 2}));

    const PassResult fused = fuse(b.g, {{"rules", "tvm"}});
    ASSERT_EQ(fused.graph.op_count(), 3);
    const Op& head = fused.graph.op(0);
    EXPECT_EQ(head.type, "Fused");
    EXPECT_EQ(anchor_type(head), "MatMul");
    EXPECT_EQ(std::get<std::string>(head.attrs.at("fused_ops")), "MatMul+Add+Relu");
    EXPECT_EQ(fused.origin[0], (std::vector<int>{0, 1, 2}));
    // FLOPs are the members' sum; bytes only what crosses the group: x, w, b in, h3 out.
    EXPECT_DOUBLE_EQ(head.flops, b.g.op(0).flops + b.g.op(1).flops + b.g.op(2).flops);
    EXPECT_EQ(head.bytes_read, (64 + 64 * 64 + 64) * 4);
    EXPECT_EQ(head.bytes_written, 64 * 4);
    EXPECT_FALSE(fused.graph.find_tensor("h").has_value());  // never in memory
    // The group is still the anchor's GEMM for a device model.
    const auto dims = gemm_dims(fused.graph, head);
    ASSERT_TRUE(dims.has_value());
    EXPECT_DOUBLE_EQ(dims->m, 1.0);
    EXPECT_DOUBLE_EQ(dims->k, 64.0);
    EXPECT_DOUBLE_EQ(dims->n, 64.0);
}

TEST(FuseTvm, ATensorReadTwiceIsMaterialisedAndInjectiveChainsFuse) {
    // x -> MatMul -> h; h is read by Add and by Mul, so it must reach memory: Add and Mul
    // start groups of their own. Add -> Transpose -> Reshape -> Tanh is one injective chain.
    Builder b;
    b.tensor("x", {1, 64}, TensorKind::input);
    b.tensor("w", {64, 64}, TensorKind::weight);
    b.tensor("t", {64, 1});
    b.tensor("u", {64, 1});
    b.op("mm", "MatMul", {"x", "w"}, {"h"});
    b.op("add", "Add", {"h", "h"}, {"a"});
    b.op("tr", "Transpose", {"a"}, {"t"}, {{"perm", std::vector<std::int64_t>{1, 0}}});
    b.op("tanh", "Tanh", {"t"}, {"u"});
    b.op("mul", "Mul", {"h", "x"}, {"v"});
    b.g.mark_output(*b.g.find_tensor("u"));
    b.g.mark_output(*b.g.find_tensor("v"));
    b.g.finalize();
    const std::vector<int> groups = tvm_fusion_groups(b.g);
    EXPECT_EQ(group_count(groups), 3);
    EXPECT_NE(groups[0], groups[1]);  // MatMul | Add: h has two readers
    EXPECT_EQ(groups[1], groups[2]);  // Add + Transpose
    EXPECT_EQ(groups[2], groups[3]);  // + Tanh
    EXPECT_NE(groups[4], groups[0]);  // Mul alone
    EXPECT_NE(groups[4], groups[1]);
}

TEST(FuseTvm, RecurrentOpsAndGraphOutputsStopFusion) {
    // An LSTM is opaque: alone. Its output is a graph output, so the Relu reading it cannot
    // fuse it away even into a chain.
    Builder b;
    b.tensor("x", {5, 1, 8}, TensorKind::input);
    b.tensor("w", {1, 64, 8}, TensorKind::weight);
    b.tensor("r", {1, 64, 16}, TensorKind::weight);
    b.tensor("y", {5, 1, 1, 16});
    b.op("lstm", "LSTM", {"x", "w", "r"}, {"y"}, {{"hidden_size", std::int64_t{16}}});
    b.tensor("z", {5, 1, 1, 16});
    b.op("relu", "Relu", {"y"}, {"z"});
    b.tensor("z2", {5, 1, 1, 16});
    b.op("neg", "Neg", {"z"}, {"z2"});
    b.g.mark_output(*b.g.find_tensor("z"));
    b.g.mark_output(*b.g.find_tensor("z2"));
    b.g.finalize();
    EXPECT_EQ(tvm_fusion_groups(b.g), (std::vector<int>{0, 1, 2}));
}

// DUET's Siamese merge (held_out.csv's siamese_merge.json): a distance over two [1, 128]
// embeddings, d = |l - r| / (|l| + |r|). TVM's FuseOps, by hand: each Mul (one of them
// Mul(x, x), one op reading its input twice) fuses into its ReduceSum, the Sub into the Mul
// and so into that ReduceSum; each Sqrt's post-dominator is the Div (two of them through the
// Add), so the Sqrts, the Add and the Div are one group: 4 groups of 12 ops.
TEST(FuseTvm, SiameseMergeFusesAcrossDiamondsIntoReductions) {
    Builder b;
    const Shape row{1, 128}, one{1, 1};
    b.tensor("l", row, TensorKind::input);
    b.tensor("r", row, TensorKind::input);
    for (const char* t : {"d", "d2", "l2", "r2"})
        b.tensor(t, row);
    for (const char* t : {"sd", "sl", "sr", "qd", "ql", "qr", "n", "y"})
        b.tensor(t, one);
    const Attributes sum{{"axes", std::vector<std::int64_t>{1}}};
    b.op("sub", "Sub", {"l", "r"}, {"d"});
    b.op("mul", "Mul", {"d", "d"}, {"d2"});
    b.op("sum", "ReduceSum", {"d2"}, {"sd"}, sum);
    b.op("sqrt", "Sqrt", {"sd"}, {"qd"});
    b.op("mul_l", "Mul", {"l", "l"}, {"l2"});
    b.op("sum_l", "ReduceSum", {"l2"}, {"sl"}, sum);
    b.op("sqrt_l", "Sqrt", {"sl"}, {"ql"});
    b.op("mul_r", "Mul", {"r", "r"}, {"r2"});
    b.op("sum_r", "ReduceSum", {"r2"}, {"sr"}, sum);
    b.op("sqrt_r", "Sqrt", {"sr"}, {"qr"});
    b.op("add", "Add", {"ql", "qr"}, {"n"});
    b.op("div", "Div", {"qd", "n"}, {"y"});
    b.g.mark_output(*b.g.find_tensor("y"));
    b.g.finalize();
    const std::vector<int> groups = tvm_fusion_groups(b.g);
    EXPECT_EQ(groups, (std::vector<int>{0, 0, 0, 1, 2, 2, 1, 3, 3, 1, 1, 1}));

    const PassResult fused = fuse(b.g, {});
    ASSERT_EQ(fused.graph.op_count(), 4);
    // A reduction group is costed as its reduction (the master op), over what crosses it.
    const Op& first = fused.graph.op(0);
    EXPECT_EQ(anchor_type(first), "ReduceSum");
    EXPECT_EQ(std::get<std::string>(first.attrs.at("fused_ops")), "Sub+Mul+ReduceSum");
    EXPECT_EQ(first.bytes_read, 2 * 128 * 4);
    EXPECT_EQ(first.bytes_written, 4);
    const Op& tail = fused.graph.op(1);
    EXPECT_EQ(anchor_type(tail), "Div");  // all element-wise: the last of them
    EXPECT_EQ(tail.inputs.size(), 3u);    // the three sums
    EXPECT_EQ(fused.origin[1], (std::vector<int>{3, 6, 9, 10, 11}));
}

// An anchor takes an epilogue that reads its result twice (x * sigmoid(x), SiLU) and a
// pooling op is an anchor too; a Softmax (relay's OPAQUE) takes nothing in, and an epilogue
// through a broadcast edge (the anchor's result widened to a larger shape) is refused.
TEST(FuseTvm, EpiloguesFuseAcrossDiamondsButNotThroughSoftmaxOrABroadcastEdge) {
    Builder b;
    b.tensor("x", {1, 64}, TensorKind::input);
    b.tensor("w", {64, 64}, TensorKind::weight);
    b.op("mm", "MatMul", {"x", "w"}, {"h"});
    b.op("sig", "Sigmoid", {"h"}, {"s"});
    b.op("silu", "Mul", {"h", "s"}, {"a"});
    b.op("scale", "Div", {"a", "x"}, {"z"});
    b.op("softmax", "Softmax", {"z"}, {"p"}, {{"axis", std::int64_t{-1}}});
    b.op("mm2", "MatMul", {"p", "w"}, {"h2"});
    b.tensor("wide", {4, 64}, TensorKind::input);
    b.tensor("o", {4, 64});
    b.op("widen", "Add", {"h2", "wide"}, {"o"});
    b.g.mark_output(*b.g.find_tensor("o"));
    b.g.finalize();
    const std::vector<int> groups = tvm_fusion_groups(b.g);
    EXPECT_EQ(groups, (std::vector<int>{0, 0, 0, 0, 1, 2, 3}));

    Builder pool;
    pool.tensor("x", {1, 8, 16, 16}, TensorKind::input);
    pool.tensor("m", {1, 8, 8, 8});
    pool.tensor("y", {1, 8, 8, 8});
    pool.op("pool", "MaxPool", {"x"}, {"m"},
            {{"kernel_shape", std::vector<std::int64_t>{2, 2}},
             {"strides", std::vector<std::int64_t>{2, 2}}});
    pool.op("relu", "Relu", {"m"}, {"y"});
    pool.g.mark_output(*pool.g.find_tensor("y"));
    pool.g.finalize();
    EXPECT_EQ(tvm_fusion_groups(pool.g), (std::vector<int>{0, 0}));
}

// DUET's wide-and-deep (zhang2021 Fig. 2): the deep tower's three Gemm + Relu pairs fuse
// into 3 groups plus the head Gemm; the ResNet-18 tower into conv+relu, maxpool, per basic
// block conv1+relu and conv2+add+relu (plus the downsample conv in blocks 2-4), then
// GlobalAveragePool, Flatten and the head Gemm: 2 + 4 + 3 x 5 + 3 = 24 groups of 49 ops.
TEST(FuseTvm, WideAndDeepTowersFuseAsTvmFusesThem) {
    const Graph graph = workloads::build_model("wide_and_deep", {});
    const std::vector<int> groups = tvm_fusion_groups(graph);
    auto tower = [&](const std::string& prefix) {
        std::set<int> g;
        int ops = 0;
        for (int o = 0; o < graph.op_count(); ++o) {
            if (graph.op(o).name.rfind(prefix, 0) == 0) {
                g.insert(groups[static_cast<std::size_t>(o)]);
                ++ops;
            }
        }
        return std::pair<int, int>(ops, static_cast<int>(g.size()));
    };
    EXPECT_EQ(tower("/wide/"), (std::pair<int, int>(1, 1)));
    EXPECT_EQ(tower("/deep/"), (std::pair<int, int>(7, 4)));
    EXPECT_EQ(tower("/cnn/"), (std::pair<int, int>(49, 24)));
    // Fused, the graph has one op per group and the same FLOPs.
    const PassResult fused = fuse(graph, {});
    EXPECT_EQ(fused.graph.op_count(), group_count(groups));
    EXPECT_NEAR(fused.graph.total_flops(), graph.total_flops(), 1e-6 * graph.total_flops());
}

TEST(FuseTvm, AFusedGroupIsOneLaunchOverTheBytesThatCrossIt) {
    // Add -> Relu -> Neg over 1M floats on a GPU with a 2 us launch: unfused, 3 launches and
    // 3 x 8 MB or 12 MB streamed; fused, one launch and 8 MB (x in, y out).
    Builder b;
    const Shape s{1 << 20};
    b.tensor("x", s, TensorKind::input);
    b.tensor("x2", s, TensorKind::input);
    b.tensor("a", s);
    b.tensor("r", s);
    b.tensor("y", s);
    b.op("add", "Add", {"x", "x2"}, {"a"});
    b.op("relu", "Relu", {"a"}, {"r"});
    b.op("neg", "Neg", {"r"}, {"y"});
    b.g.mark_output(*b.g.find_tensor("y"));
    b.g.finalize();
    devices::GpuParams p;
    p.sms = 4;
    p.clock_hz = 1e9;
    p.fp32_flops_per_cycle_per_sm = 1024;
    p.memory_bandwidth_Bps = 1e12;
    p.launch_overhead_s = 2e-6;
    const devices::GpuModel gpu(p);
    double unfused = 0.0;
    for (const Op& op : b.g.ops())
        unfused += gpu.op_time_s(b.g, op);
    const Graph fused = compile_for(b.g, Compiler::tvm);
    ASSERT_EQ(fused.op_count(), 1);
    const double bytes = 4.0 * (1 << 20);
    EXPECT_NEAR(unfused, 3 * 2e-6 + (3 * bytes + 2 * bytes + 2 * bytes) / 1e12, 1e-12);
    EXPECT_NEAR(gpu.op_time_s(fused, fused.op(0)), 2e-6 + 3 * bytes / 1e12, 1e-12);
    EXPECT_EQ(compile_for(b.g, Compiler::none).op_count(), 3);
}

TEST(FuseTvm, UnknownRulesAreAnError) {
    Builder b;
    b.tensor("x", {1, 64}, TensorKind::input);
    b.op("relu", "Relu", {"x"}, {"y"});
    b.g.mark_output(*b.g.find_tensor("y"));
    b.g.finalize();
    EXPECT_THROW(fuse(b.g, {{"rules", "xla"}}), GraphError);
    EXPECT_THROW(fuse(b.g, {{"depth", "2"}}), GraphError);
}

}  // namespace
}  // namespace hetsim::sim::passes
