// Schedules (issue 24 item 1, docs/DESIGN.md "Schedules"): a placement may carry each
// execution resource's op order, and both evaluators follow it; planned start times reach the
// trace, which marks an op that started later than planned; a schedule that does not fit the
// graph or platform is an error naming the op or resource.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/trace.hpp"
#include "tests/fixtures/platform_fixtures.hpp"

namespace hetsim::sim {
namespace {

using hetsim::testing::add_simple_device;
using hetsim::testing::FixedLink;
using hetsim::testing::TableDevice;
using ::testing::HasSubstr;

constexpr double kUs = 1e-6;

// P0 on c0 (the host) and P1 on c1, one link: a 1000-float tensor (4000 B) takes 5 us.
// A 10 us and B 30 us on P0, C 40 us on P1.
Platform two_processors() {
    Platform p;
    p.name = "two";
    auto table = std::make_shared<TableDevice>(1 * kUs);
    table->by_name = {{"A", 10 * kUs}, {"B", 30 * kUs}, {"C", 40 * kUs}};
    add_simple_device(p, "c0", "P0", table);
    add_simple_device(p, "c1", "P1", table);
    p.add_link(Link{"l", "c0", "c1", std::make_shared<FixedLink>(0.0, 4000.0 / (5 * kUs))});
    p.host_component = "c0";
    return p;
}

// x -> A -> a -> C -> c (output); x -> B -> b (output).
Graph three_ops() {
    Graph g("three");
    const int x = g.add_tensor("x", {1, 1000}, DType::f32, TensorKind::input);
    const int a = g.add_tensor("a", {1, 1000}, DType::f32);
    const int b = g.add_tensor("b", {1, 1000}, DType::f32);
    const int c = g.add_tensor("c", {1, 1000}, DType::f32);
    g.add_op("A", "Relu", {x}, {a});  // op 0
    g.add_op("B", "Relu", {x}, {b});  // op 1
    g.add_op("C", "Relu", {a}, {c});  // op 2
    g.finalize();
    return g;
}

struct Both {
    Metrics analytic, des;
};
Both evaluate_both(const Platform& p, const ExecGraph& exec, Trace* trace = nullptr) {
    AnalyticEvaluator analytic(EvalOptions{1});
    DesEvaluator des(p, EvalOptions{1});
    return {analytic.evaluate(exec), des.evaluate(exec, trace)};
}

std::int64_t start_of(const Metrics& m, const ExecGraph& exec, const std::string& op) {
    for (const Task& t : exec.tasks) {
        if (t.kind == TaskKind::compute && t.name == op)
            return m.task_timings[static_cast<std::size_t>(t.order)].start_ps;
    }
    throw std::runtime_error("no op " + op);
}

constexpr std::int64_t ps(double us) {
    return static_cast<std::int64_t>(us * 1e6 + 0.5);
}

TEST(Schedule, WithoutAnOrderTheLowestLoweringOrderRunsFirst) {
    const Platform p = two_processors();
    const Graph g = three_ops();
    const ExecGraph exec = lower(g, Placement{{0, 0, 1}, {}, {}}, p);
    const Both r = evaluate_both(p, exec);
    // A 0-10, B 10-40; a to c1 10-15, C 15-55, c back 55-60.
    for (const Metrics* m : {&r.analytic, &r.des}) {
        EXPECT_EQ(start_of(*m, exec, "A"), 0);
        EXPECT_EQ(start_of(*m, exec, "B"), ps(10));
        EXPECT_EQ(start_of(*m, exec, "C"), ps(15));
        EXPECT_DOUBLE_EQ(m->latency_s, 60 * kUs);
    }
}

TEST(Schedule, BothEvaluatorsFollowEachResourcesOrder) {
    const Platform p = two_processors();
    const Graph g = three_ops();
    Placement placement{{0, 0, 1}, {}, {}};
    placement.schedule.order = {{1, 0}, {2}};  // P0: B then A; P1: C
    const ExecGraph exec = lower(g, placement, p);
    const Both r = evaluate_both(p, exec);
    // B 0-30, A 30-40; a to c1 40-45, C 45-85, c back 85-90.
    for (const Metrics* m : {&r.analytic, &r.des}) {
        EXPECT_EQ(start_of(*m, exec, "B"), 0);
        EXPECT_EQ(start_of(*m, exec, "A"), ps(30));
        EXPECT_EQ(start_of(*m, exec, "C"), ps(45));
        EXPECT_DOUBLE_EQ(m->latency_s, 90 * kUs);
    }
    // A sequential platform (one task at a time, in lowering order) follows it too.
    Platform sequential = two_processors();
    sequential.dispatch = DispatchMode::sequential;
    const ExecGraph seq = lower(g, placement, sequential);
    const Both s = evaluate_both(sequential, seq);
    EXPECT_EQ(start_of(s.des, seq, "B"), 0);
    EXPECT_EQ(start_of(s.des, seq, "A"), ps(30));
}

TEST(Schedule, PlannedStartsReachTheTraceAndLateOpsAreMarked) {
    const Platform p = two_processors();
    const Graph g = three_ops();
    Placement placement{{0, 0, 1}, {}, {}};
    placement.schedule.order = {{1, 0}, {2}};
    // The plan forgot the transfer: C planned at 40 us, it can start at 45.
    placement.schedule.planned_start_s = {30 * kUs, 0.0, 40 * kUs};
    placement.schedule.planned_finish_s = {40 * kUs, 30 * kUs, 80 * kUs};
    EXPECT_DOUBLE_EQ(placement.schedule.planned_makespan_s(), 80 * kUs);
    const ExecGraph exec = lower(g, placement, p);
    Trace trace;
    const Both r = evaluate_both(p, exec, &trace);
    EXPECT_DOUBLE_EQ(r.des.latency_s, 90 * kUs);
    int late = 0;
    for (const TraceSlice& slice : trace.slices) {
        if (slice.category.find("compute") != 0)
            continue;
        auto arg = [&](const std::string& key) {
            for (const auto& [k, v] : slice.args) {
                if (k == key)
                    return v;
            }
            return std::string();
        };
        EXPECT_FALSE(arg("planned_start_s").empty()) << slice.name;
        if (slice.name == "C") {
            EXPECT_EQ(slice.category, "compute,late");
            EXPECT_EQ(arg("late_by_s"), "5e-06");
            ++late;
        } else {
            EXPECT_EQ(slice.category, "compute") << slice.name;
        }
    }
    EXPECT_EQ(late, 1);
}

std::string lowering_error(const Placement& placement) {
    try {
        lower(three_ops(), placement, two_processors());
    } catch (const LoweringError& e) {
        return e.what();
    }
    return "no error";
}

TEST(Schedule, AScheduleThatDoesNotFitIsAnErrorNamingTheOp) {
    Placement p{{0, 0, 1}, {}, {}};
    p.schedule.order = {{1, 0}};
    EXPECT_EQ(lowering_error(p),
              "the schedule has orders for 1 execution resources; platform 'two' has 2");
    p.schedule.order = {{1}, {2}};
    EXPECT_EQ(lowering_error(p), "the schedule leaves op 'A' out");
    p.schedule.order = {{1, 0, 1}, {2}};
    EXPECT_EQ(lowering_error(p), "the schedule lists op 'B' twice");
    p.schedule.order = {{1, 0, 2}, {}};
    EXPECT_EQ(lowering_error(p),
              "the schedule orders op 'C' on resource 'P0', but its device 'P1' runs on another "
              "resource");
    p.schedule.order = {{1, 7}, {2}};
    EXPECT_THAT(lowering_error(p), HasSubstr("names op 7, which the graph (of 3 ops)"));
    // C reads A's output, so C cannot come before A on one processor.
    Placement same{{0, 0, 0}, {}, {}};
    same.schedule.order = {{2, 0, 1}, {}};
    EXPECT_EQ(lowering_error(same),
              "the schedule of resource 'P0' puts op 'C' before op 'A', which cannot start "
              "until 'C' has run (a dependency cycle through the graph)");
    p.schedule.order = {{1, 0}, {2}};
    p.schedule.planned_start_s = {0.0, 0.0, 1.0};
    p.schedule.planned_finish_s = {1.0, 1.0, 0.5};
    EXPECT_EQ(lowering_error(p),
              "op 'C' is planned from 1 s to 0.5 s; expected 0 <= start <= finish");
}

}  // namespace
}  // namespace hetsim::sim
