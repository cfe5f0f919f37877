// The baseline placers of spec/placement.md ("Baselines every study can use"): single,
// priority, random and round_robin, the shared helpers in placement/common.cpp, and the
// registry's spec parsing. Platforms and graphs are built by hand so every expected
// placement can be worked out on paper.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement/classic/exhaustive.hpp"
#include "placement/classic/priority.hpp"
#include "placement/classic/random.hpp"
#include "placement/classic/round_robin.hpp"
#include "placement/classic/single.hpp"
#include "placement/placer.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/placement_fixtures.hpp"

namespace hetsim::placement {
namespace {

using hetsim::testing::chain;
using hetsim::testing::cpu_acc_platform;
using hetsim::testing::kAcc;
using hetsim::testing::kCpuP;
using hetsim::testing::kCpuS;
using hetsim::testing::type_table;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// CPU_S (one core) and CPU_P (all four cores) share the CPU; ACC is behind a link.
// CPU_P has no Softmax; ACC has neither Erf nor Softmax; nobody runs "Mystery".
sim::Platform make_platform() {
    return cpu_acc_platform(
        type_table({{"MatMul", 40e-6}, {"Add", 2e-6}, {"Relu", 2e-6}, {"Erf", 5e-6}}, {"Mystery"}),
        type_table({{"MatMul", 12e-6}, {"Add", 3e-6}, {"Relu", 3e-6}, {"Erf", 2e-6}},
                   {"Softmax", "Mystery"}),
        type_table({{"MatMul", 4e-6}, {"Add", 1e-6}, {"Relu", 1e-6}},
                   {"Erf", "Softmax", "Mystery"}),
        3e-6);
}

// x[1,16] -> MatMul(w) -> Add(b) -> Erf -> Relu -> out: ops 0..3.
sim::Graph mlp() {
    sim::Graph graph("mlp");
    const int x = graph.add_tensor("x", {1, 16}, sim::DType::f32, sim::TensorKind::input);
    const int w = graph.add_tensor("w", {16, 16}, sim::DType::f32, sim::TensorKind::weight);
    const int b = graph.add_tensor("b", {16}, sim::DType::f32, sim::TensorKind::weight);
    const int h1 = graph.add_tensor("h1", {1, 16}, sim::DType::f32);
    const int h2 = graph.add_tensor("h2", {1, 16}, sim::DType::f32);
    const int h3 = graph.add_tensor("h3", {1, 16}, sim::DType::f32);
    const int y = graph.add_tensor("y", {1, 16}, sim::DType::f32);
    graph.add_op("fc", "MatMul", {x, w}, {h1});
    graph.add_op("bias", "Add", {h1, b}, {h2});
    graph.add_op("gelu_erf", "Erf", {h2}, {h3});
    graph.add_op("act", "Relu", {h3}, {y});
    graph.mark_output(y);
    graph.finalize();
    return graph;
}

struct Fixture {
    sim::Platform platform = make_platform();
    sim::AnalyticEvaluator evaluator{sim::EvalOptions{1}};
};

PlacementResult run(const std::string& spec, const sim::Graph& graph, Fixture& f,
                    std::uint64_t seed = 1) {
    auto placer = PlacerRegistry::instance().create(spec);
    PlacementContext context{graph, f.platform, f.evaluator, Objective::latency, seed};
    return placer->place(context);
}

std::string error_of(const std::string& spec, const sim::Graph& graph, Fixture& f) {
    try {
        run(spec, graph, f);
    } catch (const PlacementError& e) {
        return e.what();
    }
    return "(no PlacementError)";
}

std::string create_error(const std::string& spec) {
    try {
        PlacerRegistry::instance().create(spec);
    } catch (const PlacementError& e) {
        return e.what();
    }
    return "(no PlacementError)";
}

// --- helpers -------------------------------------------------------------------------

TEST(PlacementHelpers, CapableDevicesInPlatformOrder) {
    Fixture f;
    const sim::Graph graph = mlp();
    EXPECT_EQ(capable_devices(graph, f.platform, 0), (std::vector<int>{kCpuS, kCpuP, kAcc}));
    EXPECT_EQ(capable_devices(graph, f.platform, 2), (std::vector<int>{kCpuS, kCpuP}));
}

TEST(PlacementHelpers, CapableDevicesRefusesAnOpNoDeviceRuns) {
    Fixture f;
    const sim::Graph graph = chain({"Relu", "Mystery"});
    EXPECT_THAT([&] { (void)capable_devices(graph, f.platform, 1); },
                ThrowsMessage<PlacementError>(AllOf(HasSubstr("'op1' (Mystery)"),
                                                    HasSubstr("CPU_S: no kernel for Mystery"),
                                                    HasSubstr("ACC: no kernel for Mystery"))));
}

TEST(PlacementHelpers, ResolveDevicesNamesSpecAndListsDevices) {
    Fixture f;
    EXPECT_EQ(resolve_devices(f.platform, {"ACC", "CPU_S"}, "priority:ACC,CPU_S"),
              (std::vector<int>{kAcc, kCpuS}));
    EXPECT_THAT(
        [&] {
            (void)resolve_devices(f.platform, {"ACC", "CPU"}, "priority:ACC,CPU");
        },
        ThrowsMessage<PlacementError>(
            AllOf(HasSubstr("priority:ACC,CPU"), HasSubstr("unknown device 'CPU'"),
                  HasSubstr("did you mean 'CPU_S'?"), HasSubstr("CPU_S, CPU_P, ACC"))));
}

TEST(PlacementHelpers, ObjectiveCost) {
    sim::Metrics metrics;
    metrics.latency_s = 2e-3;
    metrics.throughput_per_s = 250.0;
    EXPECT_DOUBLE_EQ(objective_cost(Objective::latency, metrics), 2e-3);
    EXPECT_DOUBLE_EQ(objective_cost(Objective::throughput, metrics), 4e-3);
    metrics.throughput_per_s = 0.0;
    EXPECT_TRUE(std::isinf(objective_cost(Objective::throughput, metrics)));
}

TEST(PlacementHelpers, EvaluatePlacementLowersAndEvaluates) {
    Fixture f;
    const sim::Graph graph = chain({"Relu", "Relu"});
    PlacementContext context{graph, f.platform, f.evaluator};
    // Both on CPU_S: 2 µs + 2 µs, no transfer (inputs and outputs live on the host).
    const sim::Metrics on_cpu = evaluate_placement(context, sim::Placement{{kCpuS, kCpuS}, {}});
    EXPECT_NEAR(on_cpu.latency_s, 4e-6, 1e-12);
    // Both on ACC: in (3.256 µs) + 1 + 1 + out (3.256 µs).
    const sim::Metrics on_acc = evaluate_placement(context, sim::Placement{{kAcc, kAcc}, {}});
    EXPECT_NEAR(on_acc.latency_s, 2 * (3e-6 + 256e-9) + 2e-6, 1e-12);
    EXPECT_EQ(f.evaluator.evaluations(), 2);
}

// --- single ----------------------------------------------------------------------------

TEST(SinglePlacer, EverythingOnTheDevice) {
    Fixture f;
    const PlacementResult r = run("single:CPU_P", mlp(), f);
    EXPECT_EQ(r.placement.device_of_op, (std::vector<int>{kCpuP, kCpuP, kCpuP, kCpuP}));
    EXPECT_TRUE(r.placement.notes.empty());
    EXPECT_EQ(r.profile_runs, 0);
}

TEST(SinglePlacer, FallsBackToFirstCapableDeviceWithANote) {
    Fixture f;
    const sim::Graph graph = mlp();
    const PlacementResult r = run("single:ACC", graph, f);
    // Erf (op 2) cannot run on ACC: the first capable device in platform order is CPU_S.
    EXPECT_EQ(r.placement.device_of_op, (std::vector<int>{kAcc, kAcc, kCpuS, kAcc}));
    ASSERT_EQ(r.placement.notes.size(), 4u);
    EXPECT_EQ(r.placement.notes[0], "");
    EXPECT_THAT(r.placement.notes[2], HasSubstr("fallback"));
    EXPECT_THAT(r.placement.notes[2], HasSubstr("ACC cannot run Erf"));
    EXPECT_THAT(r.placement.notes[2], HasSubstr("CPU_S"));
    EXPECT_EQ(r.stats.at("fallback_ops"), "1");
    // The result is a placement the evaluators can run.
    PlacementContext context{graph, f.platform, f.evaluator};
    EXPECT_GT(evaluate_placement(context, r.placement).latency_s, 0.0);
}

TEST(SinglePlacer, UnknownDeviceAndMissingArgument) {
    Fixture f;
    const std::string message = error_of("single:GPU", mlp(), f);
    EXPECT_THAT(message, HasSubstr("single:GPU"));
    EXPECT_THAT(message, HasSubstr("unknown device 'GPU'"));
    EXPECT_THAT(message, HasSubstr("CPU_S, CPU_P, ACC"));
    EXPECT_THAT(create_error("single"), HasSubstr("single:<device>"));
    EXPECT_THAT(create_error("single:CPU_S,ACC"), HasSubstr("exactly one device"));
}

// --- priority --------------------------------------------------------------------------

TEST(PriorityPlacer, FirstCapableDeviceInTheList) {
    Fixture f;
    // lee2022 §4.3 order ③ style: accelerator first, then the parallel CPU.
    const PlacementResult r = run("priority:ACC,CPU_P,CPU_S", mlp(), f);
    EXPECT_EQ(r.placement.device_of_op, (std::vector<int>{kAcc, kAcc, kCpuP, kAcc}));
    EXPECT_EQ(r.stats.at("ops_on_ACC"), "3");
    EXPECT_EQ(r.stats.at("ops_on_CPU_P"), "1");
    EXPECT_EQ(r.stats.at("ops_on_CPU_S"), "0");
    // Order ② style: the CPU first takes everything it can.
    const PlacementResult r2 = run("priority:CPU_P,ACC", mlp(), f);
    EXPECT_EQ(r2.placement.device_of_op, (std::vector<int>{kCpuP, kCpuP, kCpuP, kCpuP}));
}

TEST(PriorityPlacer, SoftmaxSkipsDevicesWithoutIt) {
    Fixture f;
    const PlacementResult r = run("priority:CPU_P,ACC,CPU_S", chain({"Relu", "Softmax"}), f);
    EXPECT_EQ(r.placement.device_of_op, (std::vector<int>{kCpuP, kCpuS}));
}

TEST(PriorityPlacer, OpNoListedDeviceSupportsIsAnError) {
    Fixture f;
    const std::string message = error_of("priority:ACC,CPU_P", chain({"Relu", "Softmax"}), f);
    EXPECT_THAT(message, HasSubstr("priority:ACC,CPU_P"));
    EXPECT_THAT(message, HasSubstr("'op1' (Softmax)"));
    EXPECT_THAT(message, HasSubstr("ACC: no kernel for Softmax"));
    EXPECT_THAT(message, HasSubstr("CPU_P: no kernel for Softmax"));
    EXPECT_THAT(message, HasSubstr("CPU_S"));  // the device that could run it
}

TEST(PriorityPlacer, ParsesListAndRejectsBadOnes) {
    auto placer = PlacerRegistry::instance().create("priority: CPU_P , ACC");
    EXPECT_EQ(placer->name(), "priority:CPU_P,ACC");
    auto* priority = dynamic_cast<PriorityPlacer*>(placer.get());
    ASSERT_NE(priority, nullptr);
    EXPECT_EQ(priority->devices(), (std::vector<std::string>{"CPU_P", "ACC"}));
    EXPECT_THAT(create_error("priority"), HasSubstr("priority:<d1>,<d2>,..."));
    EXPECT_THAT(create_error("priority:ACC,,CPU_S"), HasSubstr("empty entries"));
    EXPECT_THAT(create_error("priority:ACC,ACC"), HasSubstr("listed twice"));
    Fixture f;
    EXPECT_THAT(error_of("priority:ACC,CPUP", mlp(), f), HasSubstr("did you mean 'CPU_P'?"));
}

// --- random ----------------------------------------------------------------------------

TEST(RandomPlacer, DeterministicPerSeedAndOnlyCapableDevices) {
    Fixture f;
    std::vector<std::string> types;
    for (int i = 0; i < 60; ++i)
        types.push_back(i % 3 == 0 ? "Erf" : "Relu");
    const sim::Graph graph = chain(types);
    const PlacementResult a = run("random", graph, f, 7);
    const PlacementResult b = run("random", graph, f, 7);
    EXPECT_EQ(a.placement.device_of_op, b.placement.device_of_op);
    std::map<int, int> used;
    for (int op = 0; op < graph.op_count(); ++op) {
        const int d = a.placement.device_of_op[static_cast<std::size_t>(op)];
        ++used[d];
        if (graph.op(op).type == "Erf") {
            EXPECT_NE(d, kAcc) << "op " << op;
        }
    }
    // 60 draws over 2-3 devices: every device is used.
    EXPECT_EQ(used.size(), 3u);
    const PlacementResult c = run("random", graph, f, 8);
    EXPECT_NE(a.placement.device_of_op, c.placement.device_of_op);
}

TEST(RandomPlacer, UniformIndexIsUnbiasedEnough) {
    std::mt19937_64 rng(42);
    std::vector<int> counts(3, 0);
    for (int i = 0; i < 30000; ++i)
        ++counts[uniform_index(rng, 3)];
    for (int c : counts)
        EXPECT_NEAR(c, 10000, 400);
    EXPECT_EQ(uniform_index(rng, 1), 0u);
}

TEST(RandomPlacer, TakesNoArguments) {
    EXPECT_THAT(create_error("random:5"), HasSubstr("takes no arguments"));
}

// --- round_robin -----------------------------------------------------------------------

TEST(RoundRobinPlacer, CyclesThroughDevices) {
    Fixture f;
    const PlacementResult r =
        run("round_robin", chain({"Relu", "Relu", "Relu", "Relu", "Relu"}), f);
    EXPECT_EQ(r.placement.device_of_op, (std::vector<int>{kCpuS, kCpuP, kAcc, kCpuS, kCpuP}));
}

TEST(RoundRobinPlacer, SkipsIncapableDevices) {
    Fixture f;
    // op2 (Erf) gets ACC's turn, which it cannot take: it wraps to CPU_S, and the turn passes
    // on to CPU_P.
    const PlacementResult r = run("round_robin", chain({"Relu", "Relu", "Erf", "Relu"}), f);
    EXPECT_EQ(r.placement.device_of_op, (std::vector<int>{kCpuS, kCpuP, kCpuS, kCpuP}));
}

TEST(RoundRobinPlacer, FollowsTopologicalOrderNotOpIds) {
    Fixture f;
    sim::Graph graph("reversed");
    const int x = graph.add_tensor("x", {1, 8}, sim::DType::f32, sim::TensorKind::input);
    const int h = graph.add_tensor("h", {1, 8}, sim::DType::f32);
    const int y = graph.add_tensor("y", {1, 8}, sim::DType::f32);
    graph.add_op("second", "Relu", {h}, {y});  // id 0, runs second
    graph.add_op("first", "Relu", {x}, {h});   // id 1, runs first
    graph.mark_output(y);
    graph.finalize();
    const PlacementResult r = run("round_robin", graph, f);
    EXPECT_EQ(r.placement.device_of_op, (std::vector<int>{kCpuP, kCpuS}));
}

// --- every placer refuses an op no device can run ----------------------------------------

TEST(BaselinePlacers, NeverPlaceAnOpNoDeviceSupports) {
    const sim::Graph graph = chain({"Relu", "Mystery", "Relu"});
    for (const std::string spec : {"single:CPU_S", "single:ACC", "priority:ACC,CPU_P,CPU_S",
                                   "random", "round_robin", "exhaustive"}) {
        Fixture f;
        const std::string message = error_of(spec, graph, f);
        EXPECT_THAT(message, HasSubstr("'op1' (Mystery)")) << spec;
        EXPECT_EQ(f.evaluator.evaluations(), 0) << spec;
    }
}

// --- registry --------------------------------------------------------------------------

TEST(PlacerRegistry, BuiltinsRegisteredAndSorted) {
    const auto all = PlacerRegistry::instance().all();
    std::vector<std::string> names;
    for (const auto* info : all)
        names.push_back(info->name);
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    for (const char* expected : {"exhaustive", "priority", "random", "round_robin", "single"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    }
    for (const auto* info : all) {
        EXPECT_FALSE(info->usage.empty()) << info->name;
        EXPECT_FALSE(info->description.empty()) << info->name;
    }
}

TEST(PlacerRegistry, CreateParsesArguments) {
    auto& registry = PlacerRegistry::instance();
    EXPECT_EQ(registry.create("single:CPU_S")->name(), "single:CPU_S");
    EXPECT_EQ(registry.create("random")->name(), "random");
    EXPECT_EQ(registry.create("round_robin")->name(), "round_robin");
    EXPECT_EQ(registry.create("exhaustive")->name(), "exhaustive");
    auto placer = registry.create("exhaustive:500");
    EXPECT_EQ(placer->name(), "exhaustive:500");
    auto* exhaustive = dynamic_cast<ExhaustivePlacer*>(placer.get());
    ASSERT_NE(exhaustive, nullptr);
    EXPECT_EQ(exhaustive->max_placements(), 500u);
    EXPECT_EQ(dynamic_cast<ExhaustivePlacer&>(*registry.create("exhaustive")).max_placements(),
              ExhaustivePlacer::kDefaultMaxPlacements);
    EXPECT_THAT(create_error("exhaustive:abc"), HasSubstr("exhaustive:<max_placements>"));
    EXPECT_THAT(create_error("exhaustive:0"), HasSubstr("positive integer"));
    EXPECT_THAT(create_error("exhaustive:10x"), HasSubstr("positive integer"));
}

TEST(PlacerRegistry, UnknownNameSuggestsTheClosest) {
    const std::string message = create_error("exhaustiv:100");
    EXPECT_THAT(message, HasSubstr("unknown placer 'exhaustiv'"));
    EXPECT_THAT(message, HasSubstr("(did you mean 'exhaustive'?)"));
    EXPECT_THAT(message, HasSubstr("known: "));
    EXPECT_THAT(message, HasSubstr("round_robin"));
    EXPECT_THAT(message, HasSubstr("single"));
    const std::string far = create_error("zzzzzzzzzzzz");
    EXPECT_THAT(far, HasSubstr("unknown placer 'zzzzzzzzzzzz'; known: "));
    EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
}

TEST(PlacerRegistry, AddRegistersANewPlacer) {
    class Fixed final : public Placer {
    public:
        std::string name() const override { return "fixed"; }
        PlacementResult place(const PlacementContext& context) override {
            PlacementResult r;
            r.placement.device_of_op.assign(static_cast<std::size_t>(context.graph.op_count()), 0);
            return r;
        }
    };
    PlacerRegistry registry;  // a private registry: the global one stays as built
    std::string seen_arguments;
    registry.family(kClassicFamily)
        .add(PlacerInfo{"fixed", "fixed[:<anything>]", "test placer",
                        [&seen_arguments](const std::string& arguments) {
                            seen_arguments = arguments;
                            return std::make_unique<Fixed>();
                        }});
    EXPECT_EQ(registry.create("fixed:a:b,c")->name(), "fixed");
    EXPECT_EQ(seen_arguments, "a:b,c");  // only the first ':' separates name and arguments
    ASSERT_EQ(registry.all().size(), 1u);
    EXPECT_EQ(registry.all().front()->name, "fixed");
}

}  // namespace
}  // namespace hetsim::placement
