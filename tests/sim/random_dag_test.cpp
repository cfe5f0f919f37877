// The `random_dag` generator: its size, its layers, its skip edges, its FLOPs, its
// determinism and its knob ranges.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/workloads/model_zoo.hpp"

namespace hetsim::sim::workloads {
namespace {

using ::testing::HasSubstr;

// Depth of every op: 1 + the deepest op it reads from (0 for the graph input).
std::vector<int> depths(const Graph& g) {
    std::vector<int> depth(static_cast<std::size_t>(g.op_count()), 0);
    for (int op : g.topo_order()) {
        int d = 0;
        for (int t : g.op(op).inputs) {
            const int producer = g.tensor(t).producer;
            if (producer >= 0)
                d = std::max(d, depth[static_cast<std::size_t>(producer)]);
        }
        depth[static_cast<std::size_t>(op)] = d + 1;
    }
    return depth;
}

std::string signature(const Graph& g) {
    std::string s;
    for (const Op& op : g.ops()) {
        s += op.type + "(";
        for (int t : op.inputs)
            s += g.tensor(t).name + ",";
        s += ");";
    }
    return s;
}

TEST(RandomDag, SizeOpsAndMatMulFlops) {
    for (const std::int64_t seed : {1, 2, 3, 17}) {
        const Graph g = build_model("random_dag",
                                    {{"seed", seed}, {"nodes", 120}, {"hidden", 32}, {"batch", 2}});
        ASSERT_EQ(g.op_count(), 120);
        std::set<std::string> types;
        for (const Op& op : g.ops()) {
            types.insert(op.type);
            if (op.type == "MatMul")
                EXPECT_DOUBLE_EQ(op.flops, 2.0 * 2 * 32 * 32);  // 2 * batch * hidden^2
        }
        for (const auto& t : types) {
            EXPECT_TRUE(t == "MatMul" || t == "Add" || t == "Relu" || t == "Tanh" || t == "Sigmoid")
                << t;
        }
        EXPECT_EQ(types.count("MatMul"), 1u);
        int outputs = 0;
        for (int t = 0; t < g.tensor_count(); ++t)
            outputs += g.tensor(t).is_graph_output ? 1 : 0;
        EXPECT_GT(outputs, 0);
    }
}

TEST(RandomDag, LayersAreAtMostWidthWideAndSkipEdgesGoBackTwoOrMore) {
    for (const std::int64_t skip : {0, 100}) {
        const Graph g = build_model(
            "random_dag", {{"seed", 5}, {"nodes", 200}, {"width", 6}, {"skip_percent", skip}});
        const std::vector<int> depth = depths(g);
        std::map<int, int> per_depth;
        for (int d : depth)
            ++per_depth[d];
        for (const auto& [d, count] : per_depth)
            EXPECT_LE(count, 6) << "depth " << d;
        int skips = 0;
        for (int op = 0; op < g.op_count(); ++op) {
            const int d = depth[static_cast<std::size_t>(op)];
            for (int t : g.op(op).inputs) {
                const int producer = g.tensor(t).producer;
                const int from = producer < 0 ? 0 : depth[static_cast<std::size_t>(producer)];
                if (g.tensor(t).kind == TensorKind::weight)
                    continue;
                EXPECT_LE(from, d - 1);
                skips += from < d - 1 ? 1 : 0;
            }
        }
        if (skip == 0) {
            EXPECT_EQ(skips, 0);
        } else {
            // From the second layer on every op is an Add with a skip edge.
            int beyond_first = 0;
            for (int d : depth)
                beyond_first += d >= 2 ? 1 : 0;
            EXPECT_EQ(skips, beyond_first);
        }
    }
}

TEST(RandomDag, TheSeedDecides) {
    const Knobs knobs{{"seed", 9}, {"nodes", 60}};
    EXPECT_EQ(signature(build_model("random_dag", knobs)),
              signature(build_model("random_dag", knobs)));
    EXPECT_NE(signature(build_model("random_dag", knobs)),
              signature(build_model("random_dag", {{"seed", 10}, {"nodes", 60}})));
}

TEST(RandomDag, KnobRangesAreChecked) {
    auto error = [](const Knobs& k) {
        try {
            (void)build_model("random_dag", k);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_THAT(error({{"skip_percent", 101}}),
                HasSubstr("knob 'skip_percent' must be in [0, 100], got 101"));
    EXPECT_THAT(error({{"nodes", 0}}), HasSubstr("knob 'nodes' must be in [1, 1000000], got 0"));
    EXPECT_THAT(error({{"seed", -1}}), HasSubstr("knob 'seed' must be >= 0, got -1"));
    EXPECT_THAT(error({{"node", 5}}), HasSubstr("did you mean 'nodes'"));
}

}  // namespace
}  // namespace hetsim::sim::workloads
