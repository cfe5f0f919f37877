// lee2022 §3.1 DCG and §3.2.1 DA edges: node and edge counts worked out by hand on a diamond,
// solid/dashed classification (CPU_S <-> CPU_P dashed but free), the DA attributes and which
// of them need profiling, and DaEdges::moves() -- the copies the profiler measures and the DP
// charges -- agreeing with the transfers lowering actually makes, for every placement.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/lee2022/da_edges.hpp"
#include "placement/lee2022/dcg.hpp"
#include "placement/placer.hpp"
#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/placement_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::lee2022 {
namespace {

// diamond(): capable devices fc 3, act 3, gate 2, join 3, norm 1.
using hetsim::testing::cpu_acc_platform;
using hetsim::testing::diamond;
using hetsim::testing::kAcc;
using hetsim::testing::kCpuP;
using hetsim::testing::kCpuS;
using hetsim::testing::type_table;

// CPU_S runs everything; CPU_P has no Softmax; ACC (own memory) has no Erf and no Softmax.
sim::Platform make_platform() {
    return cpu_acc_platform(type_table({}), type_table({}, {"Softmax"}),
                            type_table({}, {"Erf", "Softmax"}), 2e-6);
}

int op_id(const sim::Graph& graph, const std::string& name) {
    return *graph.find_op(name);
}

TEST(Lee2022Dcg, CountsNodesAndEdgesOfTheDiamond) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = diamond();
    const Dcg dcg(graph, platform);

    // |V_d| = start + end + one node per capable (op, device): 2 + 3+3+2+3+1.
    EXPECT_EQ(dcg.node_count(), 14);
    EXPECT_EQ(dcg.op_node_count(), 12);
    EXPECT_EQ(dcg.nodes_on_device(kCpuS), 5);
    EXPECT_EQ(dcg.nodes_on_device(kCpuP), 4);
    EXPECT_EQ(dcg.nodes_on_device(kAcc), 3);
    EXPECT_EQ(dcg.pim_capable_nodes(), 0);  // no device of role pim
    EXPECT_EQ(dcg.node_of(op_id(graph, "gate"), kAcc), -1);
    EXPECT_EQ(dcg.label(dcg.node_of(op_id(graph, "fc"), kAcc)), "fc@ACC");

    // |E_d|: every CG edge times its producer's and consumer's capable devices.
    //   start->fc 3, fc->act 3x3, fc->gate 3x2, act->join 3x3, gate->join 2x3,
    //   join->norm 3x1, norm->end 1.
    EXPECT_EQ(dcg.edge_count(), 3 + 9 + 6 + 9 + 6 + 3 + 1);
    EXPECT_EQ(dcg.op_edge_count(), 9 + 6 + 9 + 6 + 3);
    EXPECT_EQ(graph.edge_count(), 5);  // CG edges (start/end edges are the DCG's own)

    int solid = 0;
    int same_memory = 0;
    int cross_memory = 0;
    for (const DcgEdge& e : dcg.edges()) {
        solid += e.kind == EdgeKind::solid ? 1 : 0;
        same_memory += e.kind == EdgeKind::same_memory ? 1 : 0;
        cross_memory += e.kind == EdgeKind::cross_memory ? 1 : 0;
    }
    // Solid: fc->act 3, fc->gate 2, act->join 3, gate->join 2, join->norm 1.
    EXPECT_EQ(solid, 11);
    EXPECT_EQ(dcg.dashed_edge_count(), 37 - 11);
    // Cross-memory: start->fc@ACC 1; fc->act 4 (S,P <-> A); fc->gate 2 (A -> S,P);
    // act->join 4; gate->join 2 (S,P -> A); join->norm 1 (A -> S).
    EXPECT_EQ(cross_memory, 1 + 4 + 2 + 4 + 2 + 1);
    EXPECT_EQ(same_memory, 26 - 14);
}

TEST(Lee2022DaEdges, ClassifiesByDevicesDtypeAndBytes) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = diamond();
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);

    // Every tensor is [1,16] f32 (64 B), so the attributes are the device pairs: the six
    // ordered pairs of CPU_S, CPU_P, ACC, plus host -> ACC for the graph input. start->fc@CPU_*
    // and norm@CPU_S->end stay in the host memory and are no DA edges.
    ASSERT_EQ(da.all().size(), 7u);
    EXPECT_EQ(da.free_count(), 2);    // CPU_S <-> CPU_P cost nothing
    EXPECT_EQ(da.costed_count(), 5);  // need profiling
    EXPECT_EQ(da.paper_count(), 4);   // Table 3's count: device to device across memories
    std::set<std::string> costed;
    std::set<std::string> free;
    for (int i = 0; i < static_cast<int>(da.all().size()); ++i)
        (da.at(i).costed ? costed : free).insert(da.describe(i));
    EXPECT_EQ(free,
              (std::set<std::string>{"CPU_S->CPU_P float32 64 B", "CPU_P->CPU_S float32 64 B"}));
    EXPECT_EQ(costed, (std::set<std::string>{"host->ACC float32 64 B", "CPU_S->ACC float32 64 B",
                                             "CPU_P->ACC float32 64 B", "ACC->CPU_S float32 64 B",
                                             "ACC->CPU_P float32 64 B"}));
    int dcg_edges = 0;
    for (const DaEdge& e : da.all())
        dcg_edges += e.dcg_edge_count;
    EXPECT_EQ(dcg_edges, 26 - 2 - 1);  // dashed edges minus the host-internal start/end ones
    for (int position = 0; position < da.costed_count(); ++position)
        EXPECT_EQ(da.costed_position(da.costed()[static_cast<std::size_t>(position)]), position);
    const int s_to_acc = da.find(DaKey{kCpuS, kAcc, sim::DType::f32, 64});
    ASSERT_GE(s_to_acc, 0);
    EXPECT_EQ(da.of_edge(da.at(s_to_acc).first_edge), s_to_acc);
    EXPECT_EQ(da.find(DaKey{kCpuS, kAcc, sim::DType::f32, 128}), -1);
}

TEST(Lee2022DaEdges, MovesCopyOncePerDestinationMemory) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = diamond();
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);

    sim::Placement p;
    p.device_of_op.assign(5, -1);
    p.device_of_op[static_cast<std::size_t>(op_id(graph, "fc"))] = kAcc;
    p.device_of_op[static_cast<std::size_t>(op_id(graph, "act"))] = kAcc;
    p.device_of_op[static_cast<std::size_t>(op_id(graph, "gate"))] = kCpuP;
    p.device_of_op[static_cast<std::size_t>(op_id(graph, "join"))] = kCpuS;
    p.device_of_op[static_cast<std::size_t>(op_id(graph, "norm"))] = kCpuS;
    const std::vector<Move> moves = da.moves(p);
    // x to ACC; h1 to the CPU memory once (its first CPU consumer is gate on CPU_P); h2 to
    // the CPU memory; h3 is already there (CPU_P -> CPU_S is free); y ends in the host memory.
    ASSERT_EQ(moves.size(), 3u);
    EXPECT_EQ(da.describe(moves[0].da), "host->ACC float32 64 B");
    EXPECT_EQ(graph.tensor(moves[1].tensor).name, "h1");
    EXPECT_EQ(da.describe(moves[1].da), "ACC->CPU_P float32 64 B");
    EXPECT_EQ(moves[1].consumer_op, op_id(graph, "gate"));
    EXPECT_EQ(da.describe(moves[2].da), "ACC->CPU_S float32 64 B");

    const sim::ExecGraph exec = sim::lower(graph, p, platform);
    std::vector<int> transferred;
    for (const sim::Task& t : exec.tasks) {
        if (t.kind == sim::TaskKind::transfer)
            transferred.push_back(t.tensor);
    }
    EXPECT_EQ(transferred, (std::vector<int>{moves[0].tensor, moves[1].tensor, moves[2].tensor}));
}

TEST(Lee2022DaEdges, MovesMatchLoweringForEveryPlacement) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = diamond();
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);
    sim::Placement p;
    p.device_of_op.assign(static_cast<std::size_t>(graph.op_count()), -1);
    int placements = 0;
    std::function<void(int)> visit = [&](int op) {
        if (op == graph.op_count()) {
            ++placements;
            std::vector<int> expected;
            for (const Move& m : da.moves(p)) {
                expected.push_back(m.tensor);
                ASSERT_GE(m.da, 0);
                EXPECT_TRUE(da.at(m.da).costed);
            }
            // No converters on this platform: one transfer task per copy, in the same order.
            std::vector<int> actual;
            for (const sim::Task& t : sim::lower(graph, p, platform).tasks) {
                if (t.kind != sim::TaskKind::compute)
                    actual.push_back(t.tensor);
            }
            EXPECT_EQ(actual, expected);
            return;
        }
        for (int d : dcg.capable(op)) {
            p.device_of_op[static_cast<std::size_t>(op)] = d;
            visit(op + 1);
        }
    };
    visit(0);
    EXPECT_EQ(placements, 54);
}

TEST(Lee2022Dcg, BertOnZynqSilentPim) {
    hetsim::app::register_all();
    const sim::Platform platform =
        sim::load_platform(HETSIM_SOURCE_DIR "/configs/platforms/zynq_silentpim.yaml");
    const sim::Graph graph = sim::workloads::build_model("bert", {{"seq_len", 16}});
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);
    const int pim = *platform.find_device("PIM");

    int capable = 0;
    for (int op = 0; op < graph.op_count(); ++op)
        capable += static_cast<int>(dcg.capable(op).size());
    EXPECT_EQ(dcg.node_count(), capable + 2);
    EXPECT_EQ(dcg.nodes_on_device(*platform.find_device("CPU_S")), graph.op_count());
    EXPECT_EQ(dcg.pim_capable_nodes(), dcg.nodes_on_device(pim));
    EXPECT_GT(dcg.pim_capable_nodes(), 0);
    EXPECT_GT(dcg.edge_count(), graph.edge_count());
    // A few sizes and four device pairs: tens of DA edges out of >1000 DCG edges (Table 3).
    EXPECT_LT(da.paper_count(), 50);
    EXPECT_LE(da.paper_count(), da.costed_count());
    EXPECT_EQ(static_cast<int>(da.all().size()), da.costed_count() + da.free_count());
    int cpu_pim = 0;
    for (const DaEdge& e : da.all()) {
        const bool involves_pim = e.key.src_device == pim || e.key.dst_device == pim;
        const bool host = e.key.src_device == kHostDevice || e.key.dst_device == kHostDevice;
        EXPECT_EQ(e.costed, involves_pim || host);
        cpu_pim += involves_pim && !host ? 1 : 0;
    }
    EXPECT_EQ(da.paper_count(), cpu_pim);
    RecordProperty("cg_nodes", graph.op_count());
    RecordProperty("cg_edges", graph.edge_count());
    RecordProperty("dcg_nodes", dcg.node_count());
    RecordProperty("dcg_edges", dcg.edge_count());
    RecordProperty("da_edges", da.paper_count());
    RecordProperty("da_edges_profiled", da.costed_count());
    RecordProperty("da_edges_free", da.free_count());
    RecordProperty("pim_capable_nodes", dcg.pim_capable_nodes());
}

}  // namespace
}  // namespace hetsim::placement::lee2022
