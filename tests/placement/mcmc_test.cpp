// FlexFlow's MCMC search (placement/classic/mcmc.hpp): on a graph small enough for the
// exhaustive placer it reaches the optimum; it never returns worse than its start (the best
// single device); it is seeded; and it stops at its sample budget.
#include "placement/classic/mcmc.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement/placer.hpp"
#include "sim/evaluator.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/placement_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::classic {
namespace {

using hetsim::testing::cpu_acc_platform;
using hetsim::testing::diamond;
using hetsim::testing::type_table;

// The accelerator is fast but behind a link and lacks Erf and Softmax; CPU_P lacks Softmax:
// the optimum mixes devices.
sim::Platform platform() {
    return cpu_acc_platform(
        type_table(
            {{"MatMul", 50e-6}, {"Add", 2e-6}, {"Relu", 2e-6}, {"Erf", 4e-6}, {"Softmax", 5e-6}}),
        type_table({{"MatMul", 15e-6}, {"Add", 3e-6}, {"Relu", 1e-6}, {"Erf", 2e-6}}, {"Softmax"}),
        type_table({{"MatMul", 2e-6}, {"Add", 0.5e-6}, {"Relu", 0.5e-6}}, {"Erf", "Softmax"}),
        3e-6);
}

struct McmcRun {
    sim::Graph graph = diamond();
    sim::Platform platform = placement::classic::platform();
    sim::AnalyticEvaluator evaluator{sim::EvalOptions{1}};
    PlacementResult place(const std::string& spec, std::uint64_t seed = 1) {
        app::register_all();
        PlacementContext context{graph, platform, evaluator, Objective::latency, seed};
        return PlacerRegistry::instance().create(spec)->place(context);
    }
    double latency(const PlacementResult& r) {
        return evaluator.evaluate(sim::lower(graph, r.placement, platform)).latency_s;
    }
};

TEST(Mcmc, ReachesTheExhaustiveOptimumOnASmallGraph) {
    McmcRun run;
    const double optimum = run.latency(run.place("exhaustive"));
    const PlacementResult mcmc = run.place("mcmc:samples=2000");
    EXPECT_DOUBLE_EQ(run.latency(mcmc), optimum);
    EXPECT_EQ(mcmc.stats.at("steps"), "2000");
}

TEST(Mcmc, NeverWorseThanItsStartSeededAndStopsAtItsBudget) {
    McmcRun run;
    // samples=0: the start, the best single device that runs every op (the CPU_S here: the
    // others lack Softmax), after one run per such device.
    const PlacementResult start = run.place("mcmc:samples=0");
    EXPECT_EQ(start.stats.at("steps"), "0");
    EXPECT_EQ(start.profile_runs, 1);
    const PlacementResult a = run.place("mcmc:samples=50", 7), b = run.place("mcmc:samples=50", 7);
    EXPECT_EQ(a.placement.device_of_op, b.placement.device_of_op);
    EXPECT_LE(run.latency(a), run.latency(start));
    EXPECT_EQ(a.profile_runs, 51);  // the start + one run per step
    EXPECT_THAT([&] { run.place("mcmc:samples=-1"); },
                ::testing::ThrowsMessage<PlacementError>(::testing::HasSubstr("samples")));
}

// The search reports how far it is to the context's progress sink: every step, in order, out of
// its budget, with the best cost once there is one.
TEST(Mcmc, ReportsItsProgressStepByStep) {
    McmcRun run;
    app::register_all();
    std::vector<SearchProgress> reports;
    PlacementContext context{run.graph,
                             run.platform,
                             run.evaluator,
                             Objective::latency,
                             1,
                             [&](const SearchProgress& p) { reports.push_back(p); }};
    const PlacementResult r = PlacerRegistry::instance().create("mcmc:samples=30")->place(context);
    ASSERT_EQ(reports.size(), 30u);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        EXPECT_EQ(reports[i].done, static_cast<long>(i));
        EXPECT_EQ(reports[i].total, 30);
        EXPECT_EQ(reports[i].unit, "steps");
        EXPECT_THAT(reports[i].best, ::testing::StartsWith("cost "));
        EXPECT_GE(reports[i].time_fraction, 0.0);
        EXPECT_LE(reports[i].time_fraction, 1.0);
    }
    EXPECT_EQ(r.stats.at("steps"), "30");
}

}  // namespace
}  // namespace hetsim::placement::classic
