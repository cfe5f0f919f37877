// lee2022 Algorithm 1 (§3.2.2): the traversal on the paper's Fig. 5 example visits the nodes
// T1..T7 with the profiled edge lists the text gives and stops at A0 B1 C0 D1 E0, one edge
// run; profile() makes n real node runs plus the edge runs through the evaluator and reads
// the costs the cost models imply from the task timings; when no single path covers every DA
// edge it takes more runs; and the transformers of §4 need 3 node runs + 1 edge run (Table 3).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/lee2022/da_edges.hpp"
#include "placement/lee2022/dcg.hpp"
#include "placement/lee2022/profiler.hpp"
#include "placement/placer.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/platform_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::lee2022 {
namespace {

using hetsim::testing::add_simple_device;
using hetsim::testing::FixedConversion;
using hetsim::testing::FixedLink;
using hetsim::testing::TableDevice;

// The analytic evaluator, counting the runs a placer makes.
class CountingEvaluator final : public sim::Evaluator {
public:
    std::string name() const override { return "counting"; }
    sim::Metrics evaluate(const sim::ExecGraph& exec, sim::Trace* trace) override {
        ++evaluations_;
        return inner_.evaluate(exec, trace);
    }

private:
    sim::AnalyticEvaluator inner_{sim::EvalOptions{1}};
};

// Fig. 5's platform: device 0 on the host CPU (fp32), device 1 behind a DMA link with its own
// bf16 memory (a PIM), the CPU converting both ways (§2.3). Device 1 cannot run A, C or F.
// Conversion 1 ns per element; the link 2 µs + 1 ns per byte each way.
sim::Platform fig5_platform() {
    sim::Platform p;
    p.name = "fig5";
    p.host_component = "cpu";
    p.dispatch = sim::DispatchMode::sequential;
    auto dev0 = std::make_shared<TableDevice>(
        10e-6, std::map<std::string, double>{
                   {"A", 1e-6}, {"B", 2e-6}, {"C", 3e-6}, {"D", 4e-6}, {"E", 5e-6}, {"F", 6e-6}});
    auto dev1 = std::make_shared<TableDevice>(
        10e-6, std::map<std::string, double>{{"B", 0.5e-6}, {"D", 0.7e-6}, {"E", 0.9e-6}},
        std::set<std::string>{"A", "C", "F"}, sim::DType::bf16);
    add_simple_device(p, "cpu", "dev0", dev0, std::make_shared<FixedConversion>(1e-9));
    add_simple_device(p, "pim", "dev1", dev1);
    p.add_link(sim::Link{"dma", "cpu", "pim", std::make_shared<FixedLink>(2e-6, 1e9, "cpu")});
    return p;
}

// Fig. 5's chain A -> B -> C -> D -> E, continued by F (device 0 only) standing for the rest
// of the DCG, where Fig. 5's e4 lies. The sizes make exactly its five DA edges:
//   e0 = A0->B1 (64 B), e1 = B1->C0 (128 B), e2 = C0->D1 = D0->E1 (192 B), e3 = D1->E0,
//   e4 = E1->F0 (256 B).
sim::Graph fig5_graph() {
    sim::Graph g("fig5");
    int previous = g.add_tensor("x", {1, 16}, sim::DType::f32, sim::TensorKind::input);
    const std::vector<std::pair<std::string, std::int64_t>> ops{{"A", 16}, {"B", 32}, {"C", 48},
                                                                {"D", 48}, {"E", 64}, {"F", 64}};
    for (const auto& [name, width] : ops) {
        const int out = g.add_tensor(name + "_out", {1, width}, sim::DType::f32);
        g.add_op(name, name, {previous}, {out});
        previous = out;
    }
    g.mark_output(previous);
    g.finalize();
    return g;
}

std::string path_string(const Dcg& dcg, const sim::Placement& p) {
    std::string s;
    for (int op : dcg.graph().topo_order()) {
        const int device = p.device_of_op[static_cast<std::size_t>(op)];
        if (device < 0)
            continue;
        s += (s.empty() ? "" : " ") + dcg.graph().op(op).name + std::to_string(device);
    }
    return s;
}

TEST(Lee2022Profiler, Fig5HasFiveDaEdgesInThePapersOrder) {
    const sim::Platform platform = fig5_platform();
    const sim::Graph graph = fig5_graph();
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);
    ASSERT_EQ(da.paper_count(), 5);
    ASSERT_EQ(da.costed_count(), 5);
    EXPECT_EQ(da.describe(0), "dev0->dev1 float32 64 B");
    EXPECT_EQ(da.describe(1), "dev1->dev0 float32 128 B");
    EXPECT_EQ(da.describe(2), "dev0->dev1 float32 192 B");
    EXPECT_EQ(da.at(2).dcg_edge_count, 2);  // C0->D1 and D0->E1
    EXPECT_EQ(da.describe(3), "dev1->dev0 float32 192 B");
    EXPECT_EQ(da.describe(4), "dev1->dev0 float32 256 B");
    // [A0, (B1, B0), C0, (D1, D0), (E1, E0)], F0, start and end.
    EXPECT_EQ(dcg.node_count(), 11);
}

TEST(Lee2022Profiler, Fig5TraversalFollowsThePaper) {
    const sim::Platform platform = fig5_platform();
    const sim::Graph graph = fig5_graph();
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);
    // T0: the node profiling identified e4 (§3.2.2).
    std::vector<bool> marked(5, false);
    marked[4] = true;
    TraversalOptions options;
    options.record_visits = true;
    const EdgeProfilingPaths paths = identify_edge_profiling_paths(da, marked, options);

    // A0 at T0, then T1..T7 in Fig. 5's order, each with the list the text derives.
    const std::vector<std::pair<std::string, std::string>> expected{
        {"A@dev0", "00001"},  // T0
        {"B@dev1", "10001"},  // T1: e0 explored on A0->B1
        {"B@dev0", "00001"},  // T2: inherited from A0
        {"C@dev0", "11001"},  // T3: B1->C0 adds e1; [1,1,0,0,1] includes [0,0,0,0,1]
        {"D@dev1", "11101"},  // T4: C0->D1 adds e2
        {"D@dev0", "11001"},  // T5: same as C0
        {"E@dev1", "11101"},  // T6: D0->E1 adds e2
        {"E@dev0", "11111"},  // T7: D1->E0 adds e3: every DA edge marked, stop
    };
    ASSERT_EQ(paths.visits.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
        SCOPED_TRACE("T" + std::to_string(k));
        EXPECT_EQ(dcg.label(paths.visits[k].node), expected[k].first);
        // One list survives the inclusion summary at every node of this chain.
        ASSERT_EQ(paths.visits[k].lists.size(), 1u);
        EXPECT_EQ(paths.visits[k].lists[0], expected[k].second);
    }
    EXPECT_EQ(path_string(dcg, paths.visits[3].paths[0]), "A0 B1 C0");  // P(C0) via B1

    ASSERT_EQ(paths.runs.size(), 1u);  // one edge run
    EXPECT_EQ(paths.passes, 1);
    // The traversal stopped at E0; F, after it, runs where node run 0 puts it.
    EXPECT_EQ(path_string(dcg, paths.runs[0]), "A0 B1 C0 D1 E0 F0");
    EXPECT_EQ(paths.newly_covered[0], (std::vector<int>{0, 1, 2, 3}));
    EXPECT_TRUE(paths.unreachable.empty());
    // The path really exercises e0..e3 under lowering's copy rule.
    std::vector<int> exercised;
    for (const Move& m : da.moves(paths.runs[0]))
        exercised.push_back(m.da);
    EXPECT_EQ(exercised, (std::vector<int>{0, 1, 2, 3}));
}

TEST(Lee2022Profiler, NodeRunsPreferDeviceIThenDevice0) {
    const sim::Platform platform = fig5_platform();
    const sim::Graph graph = fig5_graph();
    const Dcg dcg(graph, platform);
    EXPECT_EQ(path_string(dcg, node_profiling_run(dcg, 0)), "A0 B0 C0 D0 E0 F0");
    EXPECT_EQ(path_string(dcg, node_profiling_run(dcg, 1)), "A0 B1 C0 D1 E1 F0");
}

TEST(Lee2022Profiler, Fig5ProfileRunsMeasureEveryCost) {
    const sim::Platform platform = fig5_platform();
    const sim::Graph graph = fig5_graph();
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);
    CountingEvaluator evaluator;
    const PlacementContext context{graph, platform, evaluator};
    const ProfileResult r = profile(context, da);

    // Node run 1 (A0 B1 C0 D1 E1 F0) measures e0, e1, e2 and e4: D1->E0 is left for one run.
    EXPECT_EQ(r.node_runs.size(), 2u);
    EXPECT_EQ(r.da_left_after_node_runs, 1);
    ASSERT_EQ(r.edge_runs.size(), 1u);
    EXPECT_EQ(path_string(dcg, r.edge_runs[0]), "A0 B1 C0 D1 E0 F0");
    EXPECT_EQ(evaluator.evaluations(), 3);  // every run is a real evaluator run
    EXPECT_TRUE(r.unmeasured.empty());
    EXPECT_GE(r.traversal_s, 0.0);

    // Node costs: the device tables, in ps; -1 where the device cannot run the op.
    const std::vector<std::vector<std::int64_t>> nodes{{1000000, -1},     {2000000, 500000},
                                                       {3000000, -1},     {4000000, 700000},
                                                       {5000000, 900000}, {6000000, -1}};
    ASSERT_EQ(graph.op_count(), static_cast<int>(nodes.size()));
    for (int op = 0; op < graph.op_count(); ++op)
        EXPECT_EQ(r.costs.node_ps[static_cast<std::size_t>(op)],
                  nodes[static_cast<std::size_t>(op)])
            << graph.op(op).name;
    // Edge costs: fp32->bf16 conversion on the CPU (1 ns/element) before a CPU->PIM copy,
    // after a PIM->CPU one, plus the DMA (2 µs + 1 ns per bf16 byte).
    EXPECT_EQ(r.costs.edge_ps[0], 16000 + 2032000);  // a: 16 elements
    EXPECT_EQ(r.costs.edge_ps[1], 2064000 + 32000);  // b: 32
    EXPECT_EQ(r.costs.edge_ps[2], 48000 + 2096000);  // c: 48
    EXPECT_EQ(r.costs.edge_ps[3], 2096000 + 48000);  // d: 48
    EXPECT_EQ(r.costs.edge_ps[4], 2128000 + 64000);  // e: 64
}

// U and V run on D1 (CPU memory) or D2 (PIM), W only on D0 (CPU). The node runs keep U and V
// together, and U1->V2 and U2->V1 carry the same tensor, so no single path measures both DA
// edges: two edge runs.
TEST(Lee2022Profiler, TakesMoreRunsWhenNoSinglePathCoversEveryDaEdge) {
    sim::Platform p;
    p.name = "conflict";
    p.host_component = "cpu";
    p.dispatch = sim::DispatchMode::sequential;
    auto only_w = std::make_shared<TableDevice>(1e-6, std::map<std::string, double>{},
                                                std::set<std::string>{"U", "V"});
    auto no_w = std::make_shared<TableDevice>(1e-6, std::map<std::string, double>{},
                                              std::set<std::string>{"W"});
    add_simple_device(p, "cpu", "D0", only_w);
    add_simple_device(p, "cpu", "D1", no_w);
    add_simple_device(p, "pim", "D2", no_w);
    p.add_link(sim::Link{"dma", "cpu", "pim", std::make_shared<FixedLink>(1e-6, 1e9)});
    sim::Graph g("uv");
    const int x = g.add_tensor("x", {1, 8}, sim::DType::f32, sim::TensorKind::input);
    const int u = g.add_tensor("u", {1, 8}, sim::DType::f32);
    const int v = g.add_tensor("v", {1, 16}, sim::DType::f32);
    const int w = g.add_tensor("w", {1, 16}, sim::DType::f32);
    g.add_op("U", "U", {x}, {u});
    g.add_op("V", "V", {u}, {v});
    g.add_op("W", "W", {v}, {w});
    g.mark_output(w);
    g.finalize();

    const Dcg dcg(g, p);
    const DaEdges da(dcg);
    CountingEvaluator evaluator;
    const ProfileResult r = profile(PlacementContext{g, p, evaluator}, da);
    EXPECT_EQ(r.node_runs.size(), 3u);
    EXPECT_EQ(r.da_left_after_node_runs, 2);
    ASSERT_EQ(r.edge_runs.size(), 2u);
    EXPECT_EQ(evaluator.evaluations(), 5);
    EXPECT_TRUE(r.unmeasured.empty());
    const std::string first = path_string(dcg, r.edge_runs[0]);
    const std::string second = path_string(dcg, r.edge_runs[1]);
    EXPECT_NE(first, second);
    EXPECT_EQ(first, "U1 V2 W0");
    EXPECT_EQ(second, "U2 V1 W0");

    // The traversal behind it: at W0 the two paths' lists include neither the other, so the
    // inclusion summary keeps both (lines 19-21); no list is full, so the pass ends at the
    // end node, takes one, and a second pass takes the other.
    std::vector<bool> marked(da.all().size(), false);
    for (int index : da.costed())
        marked[static_cast<std::size_t>(index)] = true;
    const int u12 = da.find(da.key(u, 1, 2));
    const int u21 = da.find(da.key(u, 2, 1));
    ASSERT_GE(u12, 0);
    ASSERT_GE(u21, 0);
    marked[static_cast<std::size_t>(u12)] = false;
    marked[static_cast<std::size_t>(u21)] = false;
    TraversalOptions options;
    options.record_visits = true;
    const EdgeProfilingPaths paths = identify_edge_profiling_paths(da, marked, options);
    EXPECT_EQ(paths.passes, 2);
    ASSERT_EQ(paths.runs.size(), 2u);
    ASSERT_FALSE(paths.visits.empty());
    EXPECT_EQ(dcg.label(paths.visits.back().node), "end");
    EXPECT_EQ(paths.visits.back().lists.size(), 2u);
    EXPECT_EQ(dcg.label(paths.visits[paths.visits.size() - 2].node), "W@D0");
    EXPECT_EQ(paths.visits[paths.visits.size() - 2].lists.size(), 2u);
}

struct TransformerProfile {
    int node_runs = 0;
    int edge_runs = 0;
    int da_edges = 0;
    int da_profiled = 0;
    int left_after_node_runs = 0;
    bool all_measured = false;
};

TransformerProfile profile_model(const std::string& model, sim::Evaluator& evaluator,
                                 const sim::Platform& platform) {
    const sim::Graph graph = sim::workloads::build_model(model, {{"seq_len", 16}});
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);
    const ProfileResult r = profile(PlacementContext{graph, platform, evaluator}, da);
    // Every (op, capable device) has its node cost.
    for (int op = 0; op < graph.op_count(); ++op) {
        for (int d : dcg.capable(op))
            EXPECT_GE(r.costs.node_ps[static_cast<std::size_t>(op)][static_cast<std::size_t>(d)], 0)
                << model << ": " << graph.op(op).name;
    }
    return TransformerProfile{static_cast<int>(r.node_runs.size()),
                              static_cast<int>(r.edge_runs.size()),
                              da.paper_count(),
                              da.costed_count(),
                              r.da_left_after_node_runs,
                              r.unmeasured.empty()};
}

// Table 3: "Required profile runs (vertex/edge) 3/1" for BERT, RoBERTa and GPT-2 (p = 16).
TEST(Lee2022Profiler, TransformersNeedThreeNodeRunsAndOneEdgeRun) {
    hetsim::app::register_all();
    const sim::Platform platform =
        sim::load_platform(HETSIM_SOURCE_DIR "/configs/platforms/zynq_silentpim.yaml");
    for (const std::string model : {"bert", "roberta", "gpt2"}) {
        SCOPED_TRACE(model);
        CountingEvaluator evaluator;
        const TransformerProfile r = profile_model(model, evaluator, platform);
        EXPECT_EQ(r.node_runs, 3);
        EXPECT_EQ(r.edge_runs, 1);
        EXPECT_EQ(evaluator.evaluations(), 4);
        EXPECT_TRUE(r.all_measured);
        if (model != "gpt2") {
            // Table 3: 20 DA edges for BERT and RoBERTa (CPU_S/CPU_P <-> PIM, five sizes).
            EXPECT_EQ(r.da_edges, 20);
        }
        RecordProperty(model + "_da_edges", r.da_edges);
        RecordProperty(model + "_da_edges_profiled", r.da_profiled);
        RecordProperty(model + "_da_edges_after_node_runs", r.left_after_node_runs);
    }
}

// The same with the reference evaluator: profile runs are DES runs of the platform (spec).
TEST(Lee2022Profiler, BertProfilesWithDesRuns) {
    hetsim::app::register_all();
    const sim::Platform platform =
        sim::load_platform(HETSIM_SOURCE_DIR "/configs/platforms/zynq_silentpim.yaml");
    sim::DesEvaluator des(platform, sim::EvalOptions{1});
    const TransformerProfile r = profile_model("bert", des, platform);
    EXPECT_EQ(r.node_runs, 3);
    EXPECT_EQ(r.edge_runs, 1);
    EXPECT_EQ(des.evaluations(), 4);
    EXPECT_TRUE(r.all_measured);
}

}  // namespace
}  // namespace hetsim::placement::lee2022
