// The exhaustive placer: its result is the minimum of a brute-force loop written here
// against the AnalyticEvaluator, for both objectives; ties keep the first placement found;
// placements the platform cannot execute are skipped; and it refuses a graph whose search
// space exceeds its limit before evaluating anything (spec/placement.md "Baselines").
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement/classic/exhaustive.hpp"
#include "placement/placer.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/placement_fixtures.hpp"

namespace hetsim::placement {
namespace {

// diamond(): choices 3, 3, 2, 3, 1 -> 54 placements on this platform.
using hetsim::testing::chain;
using hetsim::testing::cpu_acc_platform;
using hetsim::testing::diamond;
using hetsim::testing::type_table;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The analytic evaluator, counting calls so tests can check what the placer evaluated.
class CountingEvaluator final : public sim::Evaluator {
public:
    explicit CountingEvaluator(int samples = 1) : inner_(sim::EvalOptions{samples}) {}
    std::string name() const override { return "counting"; }
    sim::Metrics evaluate(const sim::ExecGraph& exec, sim::Trace* trace) override {
        ++evaluations_;
        return inner_.evaluate(exec, trace);
    }

private:
    sim::AnalyticEvaluator inner_;
};

// CPU_S/CPU_P share the CPU; ACC is behind a DMA link and lacks Erf and Softmax; CPU_P
// lacks Softmax. The times make CPU_P and ACC attractive but moving data costly, so the
// optimum is a genuine mix (see MatchesBruteForce).
sim::Platform make_platform() {
    return cpu_acc_platform(
        type_table(
            {{"MatMul", 40e-6}, {"Add", 2e-6}, {"Relu", 2e-6}, {"Erf", 5e-6}, {"Softmax", 6e-6}}),
        type_table({{"MatMul", 12e-6}, {"Add", 3e-6}, {"Relu", 1.5e-6}, {"Erf", 2e-6}},
                   {"Softmax"}),
        type_table({{"MatMul", 3e-6}, {"Add", 0.5e-6}, {"Relu", 0.7e-6}}, {"Erf", "Softmax"}),
        2e-6);
}

// x -> relu0 -> relu1 -> ... -> relu<length-1>, all [1,64] f32.
sim::Graph relu_chain(int length) {
    return chain(std::vector<std::string>(static_cast<std::size_t>(length), "Relu"), "relu_chain",
                 "relu");
}

struct BruteForce {
    double best = std::numeric_limits<double>::infinity();
    int count = 0;    // placements evaluated
    int argmins = 0;  // placements reaching `best`
    std::vector<int> argmin;
};

// Independent of the placer: recursion over ops, capability asked of the device models
// directly, every placement lowered and evaluated by its own AnalyticEvaluator.
BruteForce brute_force(const sim::Graph& graph, const sim::Platform& platform, Objective objective,
                       int samples) {
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{samples});
    BruteForce out;
    sim::Placement placement;
    placement.device_of_op.assign(static_cast<std::size_t>(graph.op_count()), -1);
    std::function<void(int)> visit = [&](int op) {
        if (op == graph.op_count()) {
            const sim::Metrics m = evaluator.evaluate(sim::lower(graph, placement, platform));
            const double cost =
                objective == Objective::latency ? m.latency_s : 1.0 / m.throughput_per_s;
            ++out.count;
            if (cost < out.best) {
                out.best = cost;
                out.argmins = 1;
                out.argmin = placement.device_of_op;
            } else if (cost == out.best) {
                ++out.argmins;
            }
            return;
        }
        for (int d = 0; d < platform.device_count(); ++d) {
            if (!platform.device(d).model->supports(graph, graph.op(op)).ok)
                continue;
            placement.device_of_op[static_cast<std::size_t>(op)] = d;
            visit(op + 1);
        }
    };
    visit(0);
    return out;
}

double cost_of(const sim::Graph& graph, const sim::Platform& platform,
               const sim::Placement& placement, Objective objective, int samples) {
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{samples});
    const sim::Metrics m = evaluator.evaluate(sim::lower(graph, placement, platform));
    return objective == Objective::latency ? m.latency_s : 1.0 / m.throughput_per_s;
}

void expect_matches_brute_force(Objective objective, int samples) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = diamond();
    CountingEvaluator evaluator(samples);
    ExhaustivePlacer placer("");
    const PlacementResult r =
        placer.place(PlacementContext{graph, platform, evaluator, objective, 1});

    const BruteForce expected = brute_force(graph, platform, objective, samples);
    ASSERT_EQ(expected.count, 54);
    EXPECT_EQ(r.profile_runs, 54);
    EXPECT_EQ(evaluator.evaluations(), 54);
    EXPECT_EQ(r.stats.at("search_space"), "54");
    EXPECT_EQ(r.stats.at("search_space_factors"), "2^1 · 3^3 = 54");
    EXPECT_EQ(r.stats.at("infeasible"), "0");
    EXPECT_DOUBLE_EQ(cost_of(graph, platform, r.placement, objective, samples), expected.best);
    if (expected.argmins == 1) {
        EXPECT_EQ(r.placement.device_of_op, expected.argmin);
    }
    // Not a trivial optimum: it beats every single-device-with-fallback placement.
    for (int d = 0; d < platform.device_count(); ++d) {
        sim::Placement single;
        for (int op = 0; op < graph.op_count(); ++op) {
            const bool ok = platform.device(d).model->supports(graph, graph.op(op)).ok;
            single.device_of_op.push_back(ok ? d : 0);
        }
        EXPECT_LE(expected.best, cost_of(graph, platform, single, objective, samples));
    }
}

TEST(ExhaustivePlacer, MatchesBruteForceOnLatency) {
    expect_matches_brute_force(Objective::latency, 1);
}

TEST(ExhaustivePlacer, MatchesBruteForceOnThroughput) {
    expect_matches_brute_force(Objective::throughput, 4);
}

// Progress: one report per placement enumerated, out of the search space, with the best so far.
TEST(ExhaustivePlacer, ReportsEveryPlacementEnumerated) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = diamond();
    CountingEvaluator evaluator;
    std::vector<SearchProgress> reports;
    const PlacementResult r = ExhaustivePlacer("").place(
        PlacementContext{graph, platform, evaluator, Objective::latency, 1,
                         [&](const SearchProgress& p) { reports.push_back(p); }});
    ASSERT_EQ(reports.size(), 54u);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        EXPECT_EQ(reports[i].done, static_cast<long>(i + 1));
        EXPECT_EQ(reports[i].total, 54);
        EXPECT_EQ(reports[i].unit, "placements");
    }
    EXPECT_EQ(reports.back().best,
              cost_text(Objective::latency,
                        cost_of(graph, platform, r.placement, Objective::latency, 1)));
}

TEST(ExhaustivePlacer, TheOptimumMixesDevices) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = diamond();
    CountingEvaluator evaluator;
    const PlacementResult r = ExhaustivePlacer("").place(
        PlacementContext{graph, platform, evaluator, Objective::latency, 1});
    std::set<int> used(r.placement.device_of_op.begin(), r.placement.device_of_op.end());
    EXPECT_GT(used.size(), 1u);
    EXPECT_EQ(r.placement.device_of_op.back(), 0);  // Softmax runs on CPU_S only
}

TEST(ExhaustivePlacer, TiesKeepTheFirstPlacementFound) {
    // Two identical devices with their own resources in one memory: every placement of a
    // chain costs the same, so the first enumerated (all on the first device) wins.
    sim::Platform platform;
    platform.name = "twins";
    platform.host_component = "cpu";
    platform.add_component(sim::Component{"cpu", "test", 0, nullptr});
    auto model = type_table({{"Relu", 1e-6}});
    platform.add_device(
        sim::Device{"A", "cpu", platform.add_resource(sim::ExecResource{"a", 1}), 1, model});
    platform.add_device(
        sim::Device{"B", "cpu", platform.add_resource(sim::ExecResource{"b", 1}), 1, model});
    const sim::Graph graph = relu_chain(3);
    CountingEvaluator evaluator;
    const PlacementResult r = ExhaustivePlacer("").place(
        PlacementContext{graph, platform, evaluator, Objective::latency, 1});
    EXPECT_EQ(r.placement.device_of_op, (std::vector<int>{0, 0, 0}));
    EXPECT_EQ(r.profile_runs, 8);
}

TEST(ExhaustivePlacer, SkipsPlacementsThePlatformCannotExecute) {
    // ISL is fastest at everything but its memory has no link to the host, so no placement
    // that uses it can be lowered: those are counted as infeasible and never chosen.
    sim::Platform platform = make_platform();
    platform.add_component(sim::Component{"island", "test", 0, nullptr});
    platform.add_device(sim::Device{"ISL", "island",
                                    platform.add_resource(sim::ExecResource{"isl", 1}), 1,
                                    type_table({{"Relu", 1e-9}})});
    const sim::Graph graph = relu_chain(2);
    CountingEvaluator evaluator;
    const PlacementResult r = ExhaustivePlacer("").place(
        PlacementContext{graph, platform, evaluator, Objective::latency, 1});
    EXPECT_EQ(r.stats.at("search_space"), "16");
    EXPECT_EQ(r.stats.at("infeasible"), "7");
    EXPECT_EQ(r.profile_runs, 9);
    for (int d : r.placement.device_of_op)
        EXPECT_NE(d, 3);
}

TEST(ExhaustivePlacer, NeverChoosesAPlacementThatOverflowsAMemory) {
    // FAST is 100x faster but its 1 KB memory cannot hold the MatMul's 40 kB weight, so the
    // only feasible placement runs it on the host's SLOW.
    for (const std::int64_t capacity : {std::int64_t{0}, std::int64_t{1000}}) {
        sim::Platform platform;
        platform.add_component(sim::Component{"host", "test", 0, nullptr});
        platform.add_component(sim::Component{"acc", "test", capacity, nullptr});
        platform.add_device(sim::Device{"SLOW", "host",
                                        platform.add_resource(sim::ExecResource{"slow", 1}), 1,
                                        type_table({{"MatMul", 1e-3}})});
        platform.add_device(sim::Device{"FAST", "acc",
                                        platform.add_resource(sim::ExecResource{"fast", 1}), 1,
                                        type_table({{"MatMul", 1e-5}})});
        platform.add_link(sim::Link{"pcie", "host", "acc",
                                    std::make_shared<hetsim::testing::FixedLink>(1e-6, 1e9)});
        platform.host_component = "host";
        sim::Graph graph("mm");
        const int in = graph.add_tensor("in", {1, 1000}, sim::DType::f32, sim::TensorKind::input);
        const int w = graph.add_tensor("W", {1000, 10}, sim::DType::f32, sim::TensorKind::weight);
        const int out = graph.add_tensor("out", {1, 10}, sim::DType::f32);
        graph.add_op("M", "MatMul", {in, w}, {out});
        graph.finalize();
        CountingEvaluator evaluator;
        const PlacementResult r = ExhaustivePlacer("").place(
            PlacementContext{graph, platform, evaluator, Objective::latency, 1});
        EXPECT_EQ(platform.device(r.placement.device_of_op[0]).name,
                  capacity == 0 ? "FAST" : "SLOW");
    }
}

TEST(ExhaustivePlacer, RefusesALargeGraphBeforeEvaluating) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = relu_chain(40);
    CountingEvaluator evaluator;
    ExhaustivePlacer placer("");
    EXPECT_THAT(
        [&] {
            placer.place(PlacementContext{graph, platform, evaluator, Objective::latency, 1});
        },
        ThrowsMessage<PlacementError>(
            AllOf(HasSubstr("graph 'relu_chain'"),
                  HasSubstr("3^40 ≈ 1.2e19"),  // 3^40 = 12157665459056928801
                  HasSubstr("limit of 100000"), HasSubstr("exhaustive:<max_placements>"))));
    EXPECT_EQ(evaluator.evaluations(), 0);
}

TEST(ExhaustivePlacer, RefusesBeyondTheProductThatOverflows) {
    // 3^60 does not fit 64 bits: the size is still reported, from its logarithm.
    const sim::Platform platform = make_platform();
    const sim::Graph graph = relu_chain(60);
    CountingEvaluator evaluator;
    EXPECT_THAT(
        [&] {
            ExhaustivePlacer("").place(
                PlacementContext{graph, platform, evaluator, Objective::latency, 1});
        },
        ThrowsMessage<PlacementError>(HasSubstr("3^60 ≈ 4.2e28")));
    EXPECT_EQ(evaluator.evaluations(), 0);
}

TEST(ExhaustivePlacer, LimitIsConfigurable) {
    const sim::Platform platform = make_platform();
    const sim::Graph graph = diamond();
    CountingEvaluator evaluator;
    auto tight = PlacerRegistry::instance().create("exhaustive:53");
    EXPECT_THAT(
        [&] {
            tight->place(PlacementContext{graph, platform, evaluator, Objective::latency, 1});
        },
        ThrowsMessage<PlacementError>(AllOf(HasSubstr("placer 'exhaustive:53'"),
                                            HasSubstr("2^1 · 3^3 = 54"),
                                            HasSubstr("limit of 53"))));
    EXPECT_EQ(evaluator.evaluations(), 0);
    auto exact = PlacerRegistry::instance().create("exhaustive:54");
    const PlacementResult r =
        exact->place(PlacementContext{graph, platform, evaluator, Objective::latency, 1});
    EXPECT_EQ(r.profile_runs, 54);
}

TEST(ExhaustivePlacer, SearchSpaceDescription) {
    const sim::Platform platform = make_platform();
    EXPECT_EQ(search_space(diamond(), platform).size, 54u);
    EXPECT_EQ(search_space(relu_chain(1), platform).describe(), "3^1 = 3");
    const SearchSpace big = search_space(relu_chain(222), platform);
    EXPECT_TRUE(big.overflow);
    // lee2022's BERT-small has 222 nodes (§1); with three devices each: 3^222.
    EXPECT_EQ(big.describe(), "3^222 ≈ 8.3e105");
}

}  // namespace
}  // namespace hetsim::placement
