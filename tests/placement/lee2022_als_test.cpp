// lee2022.als (§3.3): on chains the DP is Eq. 2; on random small DAGs its optimum equals the
// minimum of the same sequential-cost function over every placement, that function equals
// the sum of the lowered tasks' durations for every placement, the evaluators' latency of the
// chosen placement on a `dispatch: sequential` platform equals the prediction to the
// picosecond, and exhaustive search finds nothing faster; a frontier too wide is refused by
// name; and on BERT (p = 16) it beats both of §4.3's priority orders under the DES.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement/classic/exhaustive.hpp"
#include "placement/lee2022/als_placer.hpp"
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
using ::testing::AllOf;
using ::testing::HasSubstr;

// Sum of the task durations lowering gives a placement: its latency under the sequential
// executor, computed without the DA model.
std::int64_t lowered_work_ps(const sim::Graph& graph, const sim::Platform& platform,
                             const sim::Placement& placement) {
    std::int64_t total = 0;
    for (const sim::Task& t : sim::lower(graph, placement, platform).tasks)
        total += t.duration_ps;
    return total;
}

std::int64_t predicted_ps(const PlacementResult& r) {
    return std::stoll(r.stats.at("predicted_latency_ps"));
}

// Calls `visit` with every placement of ops on their capable devices.
void for_each_placement(const Dcg& dcg, const std::function<void(const sim::Placement&)>& visit) {
    const int ops = dcg.graph().op_count();
    sim::Placement p;
    p.device_of_op.assign(static_cast<std::size_t>(ops), -1);
    std::function<void(int)> rec = [&](int op) {
        if (op == ops) {
            visit(p);
            return;
        }
        for (int d : dcg.capable(op)) {
            p.device_of_op[static_cast<std::size_t>(op)] = d;
            rec(op + 1);
        }
    };
    rec(0);
}

// --- random cases ---------------------------------------------------------------------------

struct RandomPlatform {
    sim::Platform platform;
    std::vector<std::shared_ptr<TableDevice>> devices;
};

// 2-3 devices with random support (by op type "T<i>"), 1-2 memory components (device 0 on
// the host CPU in fp32; devices of the second one in fp32 or bf16, so copies may need a
// conversion on the CPU or in place), a DMA link with a random latency, sequential dispatch.
RandomPlatform random_platform(std::mt19937_64& rng, int op_types) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    RandomPlatform out;
    sim::Platform& p = out.platform;
    p.name = "random";
    p.host_component = "cpu";
    p.dispatch = sim::DispatchMode::sequential;
    const int devices = pick(2, 3);
    const int components = pick(1, 2);
    std::vector<std::set<std::string>> unsupported(static_cast<std::size_t>(devices));
    for (int t = 0; t < op_types; ++t) {
        const std::string type = "T" + std::to_string(t);
        std::vector<int> able;
        for (int d = 0; d < devices; ++d) {
            if (pick(0, 99) < 35)
                unsupported[static_cast<std::size_t>(d)].insert(type);
            else
                able.push_back(d);
        }
        if (able.empty())
            unsupported[static_cast<std::size_t>(pick(0, devices - 1))].erase(type);
    }
    for (int d = 0; d < devices; ++d) {
        const bool remote = components == 2 && (d == 1 || (d == 2 && pick(0, 1) == 1));
        const sim::DType dtype = remote && pick(0, 1) == 1 ? sim::DType::bf16 : sim::DType::f32;
        auto model = std::make_shared<TableDevice>(10e-6, std::map<std::string, double>{},
                                                   unsupported[static_cast<std::size_t>(d)], dtype);
        out.devices.push_back(model);
        add_simple_device(p, remote ? "acc" : "cpu", "D" + std::to_string(d), model,
                          std::make_shared<FixedConversion>(remote ? 2e-9 : 1e-9));
    }
    if (components == 2) {
        p.add_link(sim::Link{"dma", "cpu", "acc",
                             std::make_shared<FixedLink>(pick(1, 5) * 1e-6, 1e9, "cpu")});
    }
    return out;
}

// 6-10 ops "n<i>" of random types, each reading 1-3 distinct earlier tensors (1-2 graph
// inputs, every input read), each writing one [1, 16k] fp32 tensor (k = 1..8). Unread tensors
// and a few read ones are graph outputs. Random per-op times (whole µs) on every device.
sim::Graph random_graph(std::mt19937_64& rng, RandomPlatform& rp, int op_types,
                        const std::string& name) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    sim::Graph g(name);
    std::vector<int> available;
    const int inputs = pick(1, 2);
    for (int i = 0; i < inputs; ++i) {
        available.push_back(g.add_tensor("x" + std::to_string(i), {1, 16 * pick(1, 8)},
                                         sim::DType::f32, sim::TensorKind::input));
    }
    const int ops = pick(6, 10);
    for (int i = 0; i < ops; ++i) {
        const std::string op = "n" + std::to_string(i);
        std::vector<int> reads;
        if (i < inputs)
            reads.push_back(available[static_cast<std::size_t>(i)]);  // every input is read
        const int fan_in = std::min<int>(pick(1, 3), static_cast<int>(available.size()));
        while (static_cast<int>(reads.size()) < fan_in) {
            const int t = available[static_cast<std::size_t>(
                pick(0, static_cast<int>(available.size()) - 1))];
            if (std::find(reads.begin(), reads.end(), t) == reads.end())
                reads.push_back(t);
        }
        const int out = g.add_tensor(op + "_out", {1, 16 * pick(1, 8)}, sim::DType::f32);
        g.add_op(op, "T" + std::to_string(pick(0, op_types - 1)), reads, {out});
        available.push_back(out);
        for (auto& device : rp.devices)
            device->by_name[op] = pick(1, 40) * 1e-6;
    }
    for (int t = 0; t < g.tensor_count(); ++t) {
        const sim::Tensor& tensor = g.tensor(t);
        if (tensor.producer >= 0 && (tensor.consumers.empty() || pick(0, 9) == 0))
            g.mark_output(t);
    }
    g.finalize();
    return g;
}

// The DP against the brute force of its own objective and against lowering, on one case.
void check_random_case(std::uint64_t seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    constexpr int kOpTypes = 5;
    RandomPlatform rp = random_platform(rng, kOpTypes);
    const sim::Graph graph = random_graph(rng, rp, kOpTypes, "random" + std::to_string(seed));
    const sim::Platform& platform = rp.platform;

    sim::AnalyticEvaluator evaluator(sim::EvalOptions{1});
    const PlacementContext context{graph, platform, evaluator};
    const PlacementResult r = AlsPlacer("").place(context);
    EXPECT_EQ(r.profile_runs,
              std::stoi(r.stats.at("node_runs")) + std::stoi(r.stats.at("edge_runs")));
    const std::int64_t predicted = predicted_ps(r);

    // The same sequential-cost function over every placement, with the costs the profiler
    // measured; and, placement by placement, that function equals lowering's task sum.
    const Dcg dcg(graph, platform);
    const DaEdges da(dcg);
    sim::AnalyticEvaluator profiling(sim::EvalOptions{1});
    const ProfileResult profiled = profile(PlacementContext{graph, platform, profiling}, da);
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    int placements = 0;
    bool model_ok = true;
    std::set<int> exercised;  // DA edges some placement's copies use
    for_each_placement(dcg, [&](const sim::Placement& p) {
        ++placements;
        for (const Move& move : da.moves(p))
            exercised.insert(move.da);
        const std::int64_t model = sequential_cost_ps(da, profiled.costs, p);
        if (model_ok && model != lowered_work_ps(graph, platform, p)) {
            model_ok = false;
            ADD_FAILURE() << "the DP's cost model differs from lowering on a placement";
        }
        best = std::min(best, model);
    });
    EXPECT_EQ(predicted, best) << placements << " placements";
    // A DA edge Algorithm 1 left unmeasured is one no placement exercises (e.g. an output
    // whose every consumer runs in the host memory never takes the edge to the end node).
    EXPECT_EQ(r.stats.at("da_edges_unmeasured"), std::to_string(profiled.unmeasured.size()));
    for (int index : profiled.unmeasured)
        EXPECT_EQ(exercised.count(index), 0u) << da.describe(index);
    EXPECT_EQ(sequential_cost_ps(da, profiled.costs, r.placement), predicted);

    // The evaluator's latency of the DP's placement is the prediction, to the picosecond.
    sim::AnalyticEvaluator check(sim::EvalOptions{1});
    const sim::Metrics m =
        evaluate_placement(PlacementContext{graph, platform, check}, r.placement);
    EXPECT_EQ(m.latency_s, static_cast<double>(predicted) * sim::kSecondsPerPs);
    EXPECT_EQ(lowered_work_ps(graph, platform, r.placement), predicted);

    // Exhaustive search under the analytic evaluator finds nothing faster.
    sim::AnalyticEvaluator exhaustive_evaluator(sim::EvalOptions{1});
    const PlacementResult ex =
        ExhaustivePlacer("").place(PlacementContext{graph, platform, exhaustive_evaluator});
    const sim::Metrics em =
        evaluate_placement(PlacementContext{graph, platform, check}, ex.placement);
    EXPECT_GE(em.latency_s, m.latency_s);
    EXPECT_EQ(em.latency_s, m.latency_s);  // both optimal
}

// 4 x 50 = 200 random DAGs (split so each ctest process stays short).
TEST(Lee2022Als, EqualsExhaustiveOnRandomDagsSeeds1To50) {
    for (std::uint64_t seed = 1; seed <= 50; ++seed)
        check_random_case(seed);
}
TEST(Lee2022Als, EqualsExhaustiveOnRandomDagsSeeds51To100) {
    for (std::uint64_t seed = 51; seed <= 100; ++seed)
        check_random_case(seed);
}
TEST(Lee2022Als, EqualsExhaustiveOnRandomDagsSeeds101To150) {
    for (std::uint64_t seed = 101; seed <= 150; ++seed)
        check_random_case(seed);
}
TEST(Lee2022Als, EqualsExhaustiveOnRandomDagsSeeds151To200) {
    for (std::uint64_t seed = 151; seed <= 200; ++seed)
        check_random_case(seed);
}

// The DES on one platform (SystemC elaborates once per process): 25 random graphs, each
// placed by lee2022.als with DES profile runs; the DES latency equals the prediction and the
// brute-force optimum.
TEST(Lee2022Als, DesLatencyEqualsPredictionOnRandomDags) {
    std::mt19937_64 rng(4242);
    constexpr int kOpTypes = 5;
    RandomPlatform rp;
    do {
        rp = random_platform(rng, kOpTypes);  // one with a link, so copies cost
    } while (rp.platform.links().empty() || rp.platform.device_count() < 3);
    sim::DesEvaluator des(rp.platform, sim::EvalOptions{1});
    for (int k = 0; k < 25; ++k) {
        SCOPED_TRACE("graph " + std::to_string(k));
        const sim::Graph graph = random_graph(rng, rp, kOpTypes, "g" + std::to_string(k));
        const PlacementContext context{graph, rp.platform, des};
        const PlacementResult r = AlsPlacer("").place(context);
        const std::int64_t predicted = predicted_ps(r);
        const sim::Metrics m = evaluate_placement(context, r.placement);
        EXPECT_EQ(m.latency_s, static_cast<double>(predicted) * sim::kSecondsPerPs);

        const Dcg dcg(graph, rp.platform);
        std::int64_t best = std::numeric_limits<std::int64_t>::max();
        for_each_placement(dcg, [&](const sim::Placement& p) {
            best = std::min(best, lowered_work_ps(graph, rp.platform, p));
        });
        EXPECT_EQ(predicted, best);
    }
}

// On a chain the only live tensor is the previous op's output and the DP is Eq. 2 (with
// Eq. 1's entry and exit costs e_i, x_i): checked against the two-line recurrence.
TEST(Lee2022Als, OnAChainTheDpIsEquation2) {
    std::mt19937_64 rng(7);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    sim::Platform p;
    p.name = "two_lines";
    p.host_component = "cpu";
    p.dispatch = sim::DispatchMode::sequential;
    auto line0 = std::make_shared<TableDevice>(1e-6);
    auto line1 = std::make_shared<TableDevice>(1e-6, std::map<std::string, double>{},
                                               std::set<std::string>{}, sim::DType::bf16);
    add_simple_device(p, "cpu", "L0", line0, std::make_shared<FixedConversion>(1e-9));
    add_simple_device(p, "pim", "L1", line1);
    p.add_link(sim::Link{"dma", "cpu", "pim", std::make_shared<FixedLink>(3e-6, 1e9, "cpu")});
    sim::Graph g("chain");
    int previous = g.add_tensor("x", {1, 64}, sim::DType::f32, sim::TensorKind::input);
    const int n = 12;
    for (int j = 0; j < n; ++j) {
        const std::string name = "s" + std::to_string(j);
        const int out = g.add_tensor(name + "_out", {1, 16 * pick(1, 16)}, sim::DType::f32);
        g.add_op(name, "Step", {previous}, {out});
        line0->by_name[name] = pick(1, 60) * 1e-6;
        line1->by_name[name] = pick(1, 60) * 1e-6;
        previous = out;
    }
    g.mark_output(previous);
    g.finalize();

    const Dcg dcg(g, p);
    const DaEdges da(dcg);
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{1});
    const ProfileResult profiled = profile(PlacementContext{g, p, evaluator}, da);
    const auto& a = profiled.costs.node_ps;
    auto t = [&](int tensor, int from, int to) {
        return profiled.costs.edge_ps.at(
            static_cast<std::size_t>(da.find(da.key(tensor, from, to))));
    };
    // Eq. 1/2: f_i[0] = e_i + a_{i,0}; f_i[j] = min(f_i[j-1], f_{1-i}[j-1] + t) + a_{i,j}.
    const auto& order = g.topo_order();
    const int x = *g.find_tensor("x");
    std::int64_t f[2] = {a[static_cast<std::size_t>(order[0])][0],
                         t(x, kHostDevice, 1) + a[static_cast<std::size_t>(order[0])][1]};
    for (int j = 1; j < n; ++j) {
        const int op = order[static_cast<std::size_t>(j)];
        const int in = g.op(op).inputs[0];
        const std::int64_t f0 =
            std::min(f[0], f[1] + t(in, 1, 0)) + a[static_cast<std::size_t>(op)][0];
        const std::int64_t f1 =
            std::min(f[1], f[0] + t(in, 0, 1)) + a[static_cast<std::size_t>(op)][1];
        f[0] = f0;
        f[1] = f1;
    }
    const std::int64_t eq2 = std::min(f[0], f[1] + t(previous, 1, kHostDevice));  // exit x_i

    const AlsSolution s = solve_als(da, profiled.costs);
    EXPECT_EQ(s.cost_ps, eq2);
    EXPECT_EQ(s.max_live_tensors, 1);
    EXPECT_LE(s.max_states, 2u);  // one state per assembly line
    EXPECT_EQ(lowered_work_ps(g, p, s.placement), eq2);
}

// Four branches of x stay live together; a bound below the frontier's states is refused by
// name rather than approximated.
TEST(Lee2022Als, RefusesAFrontierAboveTheStateBound) {
    sim::Platform p;
    p.name = "wide";
    p.host_component = "cpu";
    p.dispatch = sim::DispatchMode::sequential;
    auto any = std::make_shared<TableDevice>(1e-6);
    add_simple_device(p, "cpu", "C0", any);
    add_simple_device(p, "cpu", "C1", any);
    add_simple_device(p, "acc", "A0", any);
    p.add_link(sim::Link{"dma", "cpu", "acc", std::make_shared<FixedLink>(1e-6, 1e9)});
    sim::Graph g("fan");
    const int x = g.add_tensor("x", {1, 16}, sim::DType::f32, sim::TensorKind::input);
    std::vector<int> branches;
    for (int b = 0; b < 4; ++b) {
        const int out = g.add_tensor("b" + std::to_string(b), {1, 16}, sim::DType::f32);
        g.add_op("branch" + std::to_string(b), "Br", {x}, {out});
        branches.push_back(out);
    }
    const int y = g.add_tensor("y", {1, 16}, sim::DType::f32);
    g.add_op("join", "Join", branches, {y});
    g.mark_output(y);
    g.finalize();

    sim::AnalyticEvaluator evaluator(sim::EvalOptions{1});
    const PlacementContext context{g, p, evaluator};
    EXPECT_THAT([&] { AlsPlacer("10").place(context); },
                ::testing::ThrowsMessage<PlacementError>(
                    AllOf(HasSubstr("lee2022.als"), HasSubstr("live tensors"),
                          HasSubstr("exceeds 10 states"), HasSubstr("lee2022.als:<max_states>"))));
    // With the default bound it is solved, and exactly.
    const PlacementResult r = AlsPlacer("").place(context);
    EXPECT_EQ(r.stats.at("dp_max_live_tensors"), "4");  // x or branch 3, and three others
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    for_each_placement(Dcg(g, p), [&](const sim::Placement& pl) {
        best = std::min(best, lowered_work_ps(g, p, pl));
    });
    EXPECT_EQ(predicted_ps(r), best);
}

TEST(Lee2022Als, IsRegisteredAndChecksItsArgument) {
    auto placer = PlacerRegistry::instance().create("lee2022.als");
    EXPECT_EQ(placer->name(), "lee2022.als");
    EXPECT_EQ(PlacerRegistry::instance().create("lee2022.als:5000")->name(), "lee2022.als:5000");
    for (const std::string bad : {"lee2022.als:0", "lee2022.als:many", "lee2022.als:-3"}) {
        EXPECT_THAT([&] { PlacerRegistry::instance().create(bad); },
                    ::testing::ThrowsMessage<PlacementError>(HasSubstr("positive integer")))
            << bad;
    }
}

// lee2022 §4.3 at p = 16 on the Zynq + Silent-PIM platform, everything under the DES:
// Table 3's 3 + 1 profile runs, and OPT never slower than orders ② and ③.
TEST(Lee2022Als, BertBeatsBothPriorityOrdersUnderTheDes) {
    hetsim::app::register_all();
    const sim::Platform platform =
        sim::load_platform(HETSIM_SOURCE_DIR "/configs/platforms/zynq_silentpim.yaml");
    const sim::Graph graph = sim::workloads::build_model("bert", {{"seq_len", 16}});
    sim::DesEvaluator des(platform, sim::EvalOptions{1});
    const PlacementContext context{graph, platform, des};

    const PlacementResult r = PlacerRegistry::instance().create("lee2022.als")->place(context);
    EXPECT_EQ(r.stats.at("node_runs"), "3");
    EXPECT_EQ(r.stats.at("edge_runs"), "1");
    EXPECT_EQ(r.profile_runs, 4);
    EXPECT_EQ(r.stats.at("da_edges_unmeasured"), "0");
    const sim::Metrics als = evaluate_placement(context, r.placement);
    EXPECT_EQ(als.latency_s, static_cast<double>(predicted_ps(r)) * sim::kSecondsPerPs);
    EXPECT_EQ(r.stats.at("predicted_latency_s"), fmt::format("{}", als.latency_s));

    for (const std::string order : {"priority:CPU_P,PIM,CPU_S", "priority:PIM,CPU_P,CPU_S"}) {
        const PlacementResult baseline = PlacerRegistry::instance().create(order)->place(context);
        const sim::Metrics m = evaluate_placement(context, baseline.placement);
        EXPECT_LE(als.latency_s, m.latency_s) << order;
        RecordProperty("speedup_over_" + order, fmt::format("{:.3f}", m.latency_s / als.latency_s));
    }
    for (const char* key : {"dcg_nodes", "dcg_edges", "da_edges", "da_edges_profiled",
                            "pim_capable_nodes", "dp_max_states"}) {
        RecordProperty(key, r.stats.at(key));
    }
}

}  // namespace
}  // namespace hetsim::placement::lee2022
