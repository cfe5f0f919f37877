// Baechi's memory-constrained placers (placement/baechi/baechi_placer.hpp): where HEFT puts
// every weight on the fast device and overflows it, m-TOPO and m-ETF stay inside every
// capacity (checked by the run recorder's peak), and when nothing fits they say which op.
#include "placement/baechi/baechi_placer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/evaluator.hpp"
#include "sim/workloads/graph_builder.hpp"
#include "tests/fixtures/baechi_fixtures.hpp"
#include "tests/fixtures/placement_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::baechi {
namespace {

using hetsim::testing::matmul_chain;
using hetsim::testing::memory_platform;

sim::Metrics run(const std::string& spec, const sim::Graph& g, const sim::Platform& p) {
    app::register_all();
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{1});
    PlacementContext context{g, p, evaluator, Objective::latency, 1};
    const PlacementResult r = PlacerRegistry::instance().create(spec)->place(context);
    return evaluator.evaluate(sim::lower(g, r.placement, p));
}

TEST(Baechi, StaysInsideEveryCapacityWhereHeftOverflows) {
    const sim::Graph g = matmul_chain();
    const sim::Platform p = memory_platform(64 << 20, (5 << 20) / 2);  // the accelerator: 2.5 MiB
    EXPECT_FALSE(run("heft", g, p).feasible);  // all six weights on the accelerator
    for (const char* spec : {"baechi.m_topo", "baechi.m_etf"}) {
        const sim::Metrics m = run(spec, g, p);
        EXPECT_TRUE(m.feasible) << spec << ": " << m.infeasible_reason;
    }
}

TEST(Baechi, SaysWhichOpFitsNowhere) {
    const sim::Graph g = matmul_chain();
    const sim::Platform p = memory_platform(512 << 10, 512 << 10);  // 0.5 MiB each: no weight fits
    for (const char* spec : {"baechi.m_topo", "baechi.m_etf"}) {
        EXPECT_THAT([&] { run(spec, g, p); },
                    ::testing::ThrowsMessage<PlacementError>(::testing::HasSubstr("nothing fits")))
            << spec;
    }
}

}  // namespace
}  // namespace hetsim::placement::baechi
