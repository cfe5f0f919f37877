// A device type defined and registered here, in the test, the way README "Extending hetsim"
// says a new one is added (a DeviceModel, a factory calling sim::add_device_component, one
// ComponentRegistry line), then placed by single, priority, random, exhaustive, lee2022.als
// and tarnawski.dp. None of them knows the type "toy": they find it through its role and
// supports(), so the toy is device 0 of the platform and still never the host CPU.
//
// The platform: TOY (role accelerator, 1 µs per op, runs only Relu) and HOST (the same toy
// type declared `role: host_cpu` in the platform file, 10 µs per op, runs everything) behind
// a PCIe link of 1 µs + 256 B / 256 MB/s = 2 µs per [1,64] f32 tensor. The graph is the chain
// x -> r0 (Relu) -> r1 (Relu) -> t2 (Tanh) -> r3 (Relu) -> y; x starts and y ends on HOST.
//
// Latency by hand (sequential: every task after the other), TOY = T, HOST = H:
//   H H H H                                         40 µs
//   T T H T  2 + 1 + 1 + 2 + 10 + 2 + 1 + 2 =       21 µs  (the optimum)
//   T T H H  2 + 1 + 1 + 2 + 10 + 10 =              26 µs
//   H H H T  30 + 2 + 1 + 2 =                       35 µs
//   T H H T / H T H T / T H H H / H T H H           >= 30 µs
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement/lee2022/dcg.hpp"
#include "placement/placer.hpp"
#include "placement/tarnawski/workload/graph_workload.hpp"
#include "sim/device_component.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/platform.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::placement {
namespace {

using ::testing::HasSubstr;

// --- the new device type: one class, one factory ---------------------------------------

class ToyModel final : public sim::DeviceModel {
public:
    ToyModel(double op_time_s, std::set<std::string> runs)
        : op_time_s_(op_time_s), runs_(std::move(runs)) {}
    std::string type() const override { return "toy"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::accelerator; }
    sim::Support supports(const sim::Graph&, const sim::Op& op) const override {
        if (runs_.empty() || runs_.count(op.type) != 0)
            return sim::Support::yes();
        return sim::Support::no("the toy has no " + op.type + " kernel");
    }
    double op_time_s(const sim::Graph&, const sim::Op&) const override { return op_time_s_; }

private:
    double op_time_s_;
    std::set<std::string> runs_;  // empty: every op
};

// `type: toy`: {device: <name>, op_time: <time>, runs: [<op types>] (default: all)}.
void build_toy(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(sim::device_component_keys({"device", "op_time", "runs"}));
    const double op_time_s = node.require_positive_quantity("op_time", sim::Quantity::time);
    std::set<std::string> runs;
    if (node.has("runs")) {
        for (const auto& type : node.at("runs").as_string_list())
            runs.insert(type);
    }
    sim::DeviceComponentSpec spec;
    spec.devices.push_back(sim::DeviceSpec{node.at("device").as_string(),
                                           std::make_shared<ToyModel>(op_time_s, runs)});
    sim::add_device_component(node, name, std::move(spec), platform);
}

// The registration line (a library does it in its register.cpp, README "Extending hetsim").
void register_toy() {
    sim::ComponentRegistry::instance().add({"toy", "device", "test toy device", &build_toy});
}

sim::Platform toy_platform(const std::string& dispatch = "sequential") {
    register_toy();
    return hetsim::testing::parse_platform_yaml(
        "name: toy_platform\n"
        "dispatch: " +
        dispatch +
        "\n"
        "host: host\n"
        "components:\n"
        "  toy: {type: toy, device: TOY, op_time: 1 us, runs: [Relu]}\n"
        "  host: {type: toy, device: HOST, op_time: 10 us, role: host_cpu}\n"
        "  link: {type: pcie, endpoints: [host, toy], bandwidth: 256 MB/s, latency: 1 us}\n");
}

constexpr int kToy = 0;
constexpr int kHost = 1;

sim::Graph toy_chain() {
    return hetsim::testing::chain({"Relu", "Relu", "Tanh", "Relu"}, "toy_chain", "n");
}

struct Placed {
    PlacementResult result;
    sim::Metrics metrics;
};

Placed place(const std::string& spec, const sim::Graph& graph, const sim::Platform& platform,
             Objective objective = Objective::latency, std::uint64_t seed = 1) {
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{1});
    const PlacementContext context{graph, platform, evaluator, objective, seed};
    Placed run;
    run.result = PlacerRegistry::instance().create(spec)->place(context);
    run.metrics = evaluate_placement(context, run.result.placement);
    return run;
}

std::vector<int> devices(const Placed& run) {
    return run.result.placement.device_of_op;
}

TEST(ToyDevice, IsBuiltThroughTheSharedHelperWithItsRoleOrTheFilesOverride) {
    const sim::Platform platform = toy_platform();
    ASSERT_EQ(platform.device_count(), 2);
    EXPECT_EQ(platform.device(kToy).name, "TOY");
    EXPECT_EQ(platform.device(kToy).role(), sim::DeviceRole::accelerator);
    EXPECT_EQ(platform.device(kHost).name, "HOST");
    EXPECT_EQ(platform.device(kHost).model->role(), sim::DeviceRole::accelerator);
    EXPECT_EQ(platform.device(kHost).role(), sim::DeviceRole::host_cpu);  // `role: host_cpu`
    // One component and one resource of one unit each, as every one-device component.
    ASSERT_EQ(platform.resources().size(), 2u);
    EXPECT_EQ(platform.resources()[0].name, "toy");
    EXPECT_EQ(platform.resources()[0].capacity, 1);
    EXPECT_EQ(platform.find_component("host")->type, "toy");
}

TEST(ToyDevice, SingleFallsBackToTheHostForWhatTheToyCannotRun) {
    const sim::Platform platform = toy_platform();
    const sim::Graph graph = toy_chain();
    const Placed run = place("single:TOY", graph, platform);
    EXPECT_EQ(devices(run), (std::vector<int>{kToy, kToy, kHost, kToy}));
    EXPECT_EQ(run.result.stats.at("fallback_ops"), "1");
    EXPECT_NEAR(run.metrics.latency_s, 21e-6, 1e-12);
}

TEST(ToyDevice, PriorityGivesTheToyEveryReluAndTheHostTheRest) {
    const sim::Platform platform = toy_platform();
    const sim::Graph graph = toy_chain();
    const Placed run = place("priority:TOY,HOST", graph, platform);
    EXPECT_EQ(devices(run), (std::vector<int>{kToy, kToy, kHost, kToy}));
    EXPECT_EQ(run.result.stats.at("ops_on_TOY"), "3");
    EXPECT_EQ(run.result.stats.at("ops_on_HOST"), "1");
}

TEST(ToyDevice, RandomNeverPutsTheTanhOnTheToyAndUsesBothDevices) {
    const sim::Platform platform = toy_platform();
    const sim::Graph graph = toy_chain();
    std::set<int> relu_devices;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const Placed run = place("random", graph, platform, Objective::latency, seed);
        EXPECT_EQ(devices(run)[2], kHost) << "seed " << seed;
        for (int op : {0, 1, 3})
            relu_devices.insert(devices(run)[static_cast<std::size_t>(op)]);
    }
    EXPECT_EQ(relu_devices, (std::set<int>{kToy, kHost}));
}

TEST(ToyDevice, ExhaustiveFindsTheHandComputedOptimum) {
    const sim::Platform platform = toy_platform();
    const sim::Graph graph = toy_chain();
    const Placed run = place("exhaustive", graph, platform);
    EXPECT_EQ(devices(run), (std::vector<int>{kToy, kToy, kHost, kToy}));
    EXPECT_NEAR(run.metrics.latency_s, 21e-6, 1e-12);
    EXPECT_EQ(run.result.profile_runs, 8);  // 2 x 2 x 1 x 2 placements
}

TEST(ToyDevice, Lee2022AlsTakesTheHostByRoleAndOffloadsToTheToy) {
    const sim::Platform platform = toy_platform();
    const sim::Graph graph = toy_chain();
    // Algorithm 1's "device 0" is the host CPU, found by role: HOST, not platform device 0.
    EXPECT_EQ(lee2022::Dcg(graph, platform).host_cpu_device(), kHost);
    const Placed run = place("lee2022.als", graph, platform);
    EXPECT_EQ(devices(run), (std::vector<int>{kToy, kToy, kHost, kToy}));
    EXPECT_EQ(run.result.stats.at("predicted_latency_ps"), "21000000");
    EXPECT_NEAR(run.metrics.latency_s, 21e-6, 1e-12);
    EXPECT_EQ(run.result.stats.at("pim_capable_nodes"), "0");  // an accelerator, not a PIM
}

TEST(ToyDevice, Lee2022AlsRefusesAPlatformWithoutAHostCpu) {
    register_toy();
    const sim::Platform platform = hetsim::testing::parse_platform_yaml(
        "name: no_host\nhost: a\ncomponents:\n"
        "  a: {type: toy, device: A, op_time: 1 us}\n");
    const sim::Graph graph = toy_chain();
    EXPECT_THAT([&] { place("lee2022.als", graph, platform); },
                ::testing::ThrowsMessage<PlacementError>(
                    HasSubstr("lee2022.als: platform 'no_host' has no host_cpu device on its host "
                              "component 'a'")));
}

// tarnawski2020 §3 with one CPU (HOST) and one accelerator (TOY): contiguous splits, load =
// compute + the transfers of the edges crossing, max load minimised (throughput):
//   TOY = {r0, r1}: HOST 10 + 10 = 20, TOY 1 + 1 + 2 (r1 -> t2) = 4      -> 20 µs (optimum)
//   TOY = {r3}: HOST 30; TOY = {} : HOST 40; t2 cannot go to TOY.
TEST(ToyDevice, TarnawskiDpTreatsTheToyAsTheAccelerator) {
    const sim::Platform platform = toy_platform("dataflow");
    const sim::Graph graph = toy_chain();
    const tarnawski::GraphWorkload gw = tarnawski::workload_from_graph(graph, platform);
    EXPECT_EQ(gw.cpu_devices, (std::vector<int>{kHost}));
    EXPECT_EQ(gw.accelerator_devices, (std::vector<int>{kToy}));
    const Placed run = place("tarnawski.dp", graph, platform, Objective::throughput);
    EXPECT_EQ(devices(run), (std::vector<int>{kToy, kToy, kHost, kHost}));
}

TEST(ToyDevice, AnUnknownRoleInThePlatformFileIsRefusedWithTheKnownOnes) {
    register_toy();
    const std::string error = hetsim::testing::platform_yaml_error(
        "name: bad\ncomponents:\n  a: {type: toy, device: A, op_time: 1 us, role: gpx}\n");
    EXPECT_THAT(error, HasSubstr("test.yaml"));
    EXPECT_THAT(error, HasSubstr("components.a.role"));
    EXPECT_THAT(error, HasSubstr("unknown device role 'gpx' (did you mean 'gpu'?); known roles: "
                                 "host_cpu, accelerator, gpu, pim, chiplet"));
}

}  // namespace
}  // namespace hetsim::placement
