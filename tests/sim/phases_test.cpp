// DUET's phases (sim/passes/phases.hpp, zhang2021 §IV-A): hand-built graphs with the
// phases counted by hand, and DUET's three models split as Table II lists their subgraphs.
#include "sim/passes/phases.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/workloads/model_zoo.hpp"

namespace hetsim::sim::passes {
namespace {

// x -> op -> ... on [1, 64] tensors; weights [64, 64] for MatMuls.
struct Builder {
    sim::Graph g{"phases"};
    int t(const std::string& name, sim::TensorKind kind = sim::TensorKind::activation,
          sim::Shape shape = {1, 64}) {
        if (auto id = g.find_tensor(name))
            return *id;
        return g.add_tensor(name, std::move(shape), sim::DType::f32, kind);
    }
    void matmul(const std::string& name, const std::string& in, const std::string& out) {
        g.add_op(name, "MatMul", {t(in), t(name + ".w", sim::TensorKind::weight, {64, 64})},
                 {t(out)});
    }
    void unary(const std::string& name, const std::string& type, const std::string& in,
               const std::string& out) {
        g.add_op(name, type, {t(in)}, {t(out)});
    }
    void add(const std::string& name, const std::string& a, const std::string& b,
             const std::string& out) {
        g.add_op(name, "Add", {t(a), t(b)}, {t(out)});
    }
    std::vector<std::string> names(const Subgraph& s) const {
        std::vector<std::string> out;
        for (int o : s.ops)
            out.push_back(g.op(o).name);
        return out;
    }
};

TEST(DuetPhases, AChainIsOneSequentialPhase) {
    Builder b;
    b.t("x", sim::TensorKind::input);
    b.matmul("a", "x", "h1");
    b.unary("b", "Relu", "h1", "h2");
    b.matmul("c", "h2", "y");
    b.g.mark_output(b.t("y"));
    b.g.finalize();
    const auto phases = partition_phases(b.g);
    ASSERT_EQ(phases.size(), 1u);
    EXPECT_FALSE(phases[0].multi_path);
    EXPECT_EQ(b.names(phases[0].subgraphs[0]), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(DuetPhases, IndependentBranchesWithALightMergeAreAMultiPathPhase) {
    // Two towers on their own inputs, {left: MatMul, Relu | right: MatMul, Tanh}, then an Add
    // and a head MatMul: [left | right] multi-path, [merge, head] sequential.
    Builder b;
    b.t("x", sim::TensorKind::input);
    b.t("z", sim::TensorKind::input);
    b.matmul("l1", "x", "l");
    b.unary("l2", "Relu", "l", "lo");
    b.matmul("r1", "z", "r");
    b.unary("r2", "Tanh", "r", "ro");
    b.add("merge", "lo", "ro", "m");
    b.matmul("head", "m", "y");
    b.g.mark_output(b.t("y"));
    b.g.finalize();
    const auto phases = partition_phases(b.g);
    ASSERT_EQ(phases.size(), 2u);
    ASSERT_TRUE(phases[0].multi_path);
    ASSERT_EQ(phases[0].subgraphs.size(), 2u);
    EXPECT_EQ(b.names(phases[0].subgraphs[0]), (std::vector<std::string>{"l1", "l2"}));
    EXPECT_EQ(b.names(phases[0].subgraphs[1]), (std::vector<std::string>{"r1", "r2"}));
    EXPECT_FALSE(phases[1].multi_path);
    EXPECT_EQ(b.names(phases[1].subgraphs[0]), (std::vector<std::string>{"merge", "head"}));
}

TEST(DuetPhases, AForkOfOneActivationThatRejoinsIsOneModule) {
    // stem -> {MatMul, Relu | MatMul} -> Add: a residual block with its downsample. The
    // branches compute and the join does not, but they fork from one activation and re-join:
    // one module, one sequential phase.
    Builder b;
    b.t("x", sim::TensorKind::input);
    b.matmul("stem", "x", "s");
    b.matmul("l1", "s", "l");
    b.unary("l2", "Relu", "l", "lo");
    b.matmul("down", "s", "ro");
    b.add("merge", "lo", "ro", "y");
    b.g.mark_output(b.t("y"));
    b.g.finalize();
    const auto phases = partition_phases(b.g);
    ASSERT_EQ(phases.size(), 1u);
    EXPECT_EQ(phases[0].subgraphs[0].ops.size(), 5u);
}

TEST(DuetPhases, BranchesFromOneActivationThatNeverRejoinAreAMultiPathPhase) {
    // stem -> {head a | head b}, both graph outputs (MT-DNN's task heads).
    Builder b;
    b.t("x", sim::TensorKind::input);
    b.matmul("stem", "x", "s");
    b.matmul("a", "s", "ya");
    b.matmul("b", "s", "yb");
    b.g.mark_output(b.t("ya"));
    b.g.mark_output(b.t("yb"));
    b.g.finalize();
    const auto phases = partition_phases(b.g);
    ASSERT_EQ(phases.size(), 2u);
    EXPECT_FALSE(phases[0].multi_path);
    ASSERT_TRUE(phases[1].multi_path);
    EXPECT_EQ(phases[1].subgraphs.size(), 2u);
}

TEST(DuetPhases, AForkThatRejoinsIntoComputeStaysSequential) {
    // s -> {q: MatMul | k: MatMul} -> MatMul(q, k) : attention's shape, one module.
    Builder b;
    b.t("x", sim::TensorKind::input);
    b.matmul("stem", "x", "s");
    b.matmul("q", "s", "qo");
    b.matmul("k", "s", "ko");
    b.g.add_op("scores", "MatMul", {b.t("qo"), b.t("kt", sim::TensorKind::activation, {64, 1})},
               {b.t("sc", sim::TensorKind::activation, {1, 1})});
    b.g.add_op("kt_op", "Transpose", {b.t("ko")}, {b.t("kt")},
               {{"perm", std::vector<std::int64_t>{1, 0}}});
    b.g.mark_output(b.t("sc"));
    b.g.finalize();
    const auto phases = partition_phases(b.g);
    ASSERT_EQ(phases.size(), 1u);
    EXPECT_EQ(phases[0].subgraphs[0].ops.size(), 5u);
}

TEST(DuetPhases, BranchesWithoutComputeFoldIntoTheirMerge) {
    // Two graph inputs: x feeds a MatMul branch, mask only a Cast; they meet in an Add. One
    // computing branch is no multi-path phase: everything is sequential.
    Builder b;
    b.t("x", sim::TensorKind::input);
    b.t("mask", sim::TensorKind::input);
    b.matmul("proj", "x", "p");
    b.unary("cast", "Relu", "mask", "mk");
    b.add("apply", "p", "mk", "y");
    b.g.mark_output(b.t("y"));
    b.g.finalize();
    const auto phases = partition_phases(b.g);
    ASSERT_EQ(phases.size(), 1u);
    EXPECT_FALSE(phases[0].multi_path);
    EXPECT_EQ(phases[0].subgraphs[0].ops.size(), 3u);
}

std::vector<std::string> prefixes(const sim::Graph& g, const Phase& p) {
    std::vector<std::string> out;
    for (const Subgraph& s : p.subgraphs) {
        const std::string& name = g.op(s.ops.front()).name;
        out.push_back(name.substr(0, name.find('/', 1) + 1));
    }
    return out;
}

// Table II's subgraphs: Wide-and-Deep = wide, FFN, RNN, CNN, then the merge.
TEST(DuetPhases, WideAndDeepIsFourBranchesThenTheMerge) {
    const sim::Graph g = sim::workloads::build_model("wide_and_deep", {{"fused", 1}});
    const auto phases = partition_phases(g);
    ASSERT_EQ(phases.size(), 2u);
    ASSERT_TRUE(phases[0].multi_path);
    EXPECT_EQ(prefixes(g, phases[0]),
              (std::vector<std::string>{"/wide/", "/deep/", "/cnn/", "/rnn/"}));
    EXPECT_EQ(phases[0].subgraphs[2].ops.size(), 49u);  // the whole ResNet-18
    EXPECT_FALSE(phases[1].multi_path);
    EXPECT_EQ(phases[1].subgraphs[0].ops.size(), 3u);  // the three Adds
}

TEST(DuetPhases, SiameseIsTwoBranchesThenTheDistance) {
    const sim::Graph g = sim::workloads::build_model("siamese_lstm", {{"fused", 1}});
    const auto phases = partition_phases(g);
    ASSERT_EQ(phases.size(), 2u);
    ASSERT_TRUE(phases[0].multi_path);
    EXPECT_EQ(prefixes(g, phases[0]), (std::vector<std::string>{"/left/", "/right/"}));
    EXPECT_FALSE(phases[1].multi_path);
}

TEST(DuetPhases, MtDnnIsBertThenTenHeads) {
    const sim::Graph g = sim::workloads::build_model("mt_dnn", {{"fused", 1}});
    const auto phases = partition_phases(g);
    ASSERT_EQ(phases.size(), 2u);
    EXPECT_FALSE(phases[0].multi_path);
    EXPECT_EQ(g.op(phases[0].subgraphs[0].ops.front()).name.rfind("/bert/", 0), 0u);
    ASSERT_TRUE(phases[1].multi_path);
    ASSERT_EQ(phases[1].subgraphs.size(), 10u);
    for (std::size_t k = 0; k < 10; ++k)
        EXPECT_EQ(prefixes(g, phases[1])[k], "/task" + std::to_string(k) + "/");
    // Every op is in exactly one subgraph.
    std::size_t ops = 0;
    for (const Phase& p : phases)
        for (const Subgraph& s : p.subgraphs)
            ops += s.ops.size();
    EXPECT_EQ(ops, static_cast<std::size_t>(g.op_count()));
}

}  // namespace
}  // namespace hetsim::sim::passes
