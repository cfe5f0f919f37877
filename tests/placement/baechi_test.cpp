// Baechi's memory-constrained placers (placement/baechi/baechi_placer.hpp): where HEFT puts
// every weight on the fast device and overflows it, m-TOPO and m-ETF stay inside every
// capacity (checked by the run recorder's peak), and when nothing fits they say which op.
#include "placement/baechi/baechi_placer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/evaluator.hpp"
#include "sim/workloads/graph_builder.hpp"
#include "tests/fixtures/placement_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::baechi {
namespace {

using hetsim::testing::FixedLink;
using hetsim::testing::type_table;

// A CPU (slow, `cpu_bytes` of memory) and an accelerator (10x faster, `acc_bytes`) behind a
// 1 GB/s link.
sim::Platform platform(std::int64_t cpu_bytes, std::int64_t acc_bytes) {
    sim::Platform p;
    p.name = "memory";
    p.host_component = "cpu";
    p.add_component(sim::Component{"cpu", "test", cpu_bytes, nullptr});
    p.add_component(sim::Component{"acc", "test", acc_bytes, nullptr});
    const int cpu = p.add_resource(sim::ExecResource{"cpu", 1});
    const int acc = p.add_resource(sim::ExecResource{"acc", 1});
    p.add_device(sim::Device{"CPU", "cpu", cpu, 1, type_table({{"MatMul", 100e-6}})});
    p.add_device(sim::Device{"ACC", "acc", acc, 1, type_table({{"MatMul", 10e-6}}),
                             sim::DeviceRole::accelerator});
    p.add_link(sim::Link{"link", "cpu", "acc", std::make_shared<FixedLink>(1e-6, 1e9)});
    return p;
}

// Six MatMuls in a chain, each with its own 1 MiB weight ([512, 512] fp32).
sim::Graph chain() {
    sim::workloads::GraphBuilder b("chain");
    int x = b.input("x", {1, 512}, sim::DType::f32);
    for (int k = 0; k < 6; ++k)
        x = b.op("MatMul", {x, b.weight("w" + std::to_string(k), {512, 512})});
    sim::Graph g = std::move(b.graph());
    g.finalize();
    return g;
}

sim::Metrics run(const std::string& spec, const sim::Graph& g, const sim::Platform& p) {
    app::register_all();
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{1});
    PlacementContext context{g, p, evaluator, Objective::latency, 1};
    const PlacementResult r = PlacerRegistry::instance().create(spec)->place(context);
    return evaluator.evaluate(sim::lower(g, r.placement, p));
}

TEST(Baechi, StaysInsideEveryCapacityWhereHeftOverflows) {
    const sim::Graph g = chain();
    const sim::Platform p = platform(64 << 20, (5 << 20) / 2);  // the accelerator: 2.5 MiB
    EXPECT_FALSE(run("heft", g, p).feasible);  // all six weights on the accelerator
    for (const char* spec : {"baechi.m_topo", "baechi.m_etf"}) {
        const sim::Metrics m = run(spec, g, p);
        EXPECT_TRUE(m.feasible) << spec << ": " << m.infeasible_reason;
    }
}

TEST(Baechi, SaysWhichOpFitsNowhere) {
    const sim::Graph g = chain();
    const sim::Platform p = platform(512 << 10, 512 << 10);  // 0.5 MiB each: no weight fits
    for (const char* spec : {"baechi.m_topo", "baechi.m_etf"}) {
        EXPECT_THAT([&] { run(spec, g, p); },
                    ::testing::ThrowsMessage<PlacementError>(::testing::HasSubstr("nothing fits")))
            << spec;
    }
}

}  // namespace
}  // namespace hetsim::placement::baechi
