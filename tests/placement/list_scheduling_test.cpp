// The list schedulers (placement/classic/list_scheduling.hpp) on hand-built problems: each
// tie rule pinned, the ranks of Topcuoglu et al. 2002's example as the paper prints them, and
// the insertion of a task into an idle gap.
#include "placement/classic/list_scheduling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/workloads/random_taskgraph.hpp"

namespace hetsim::placement::classic {
namespace {

SchedulingProblem problem(const std::vector<std::vector<double>>& costs,
                          const std::vector<GivenEdge>& edges) {
    return scheduling_problem(costs, edges);
}

TEST(ListScheduling, RankTiesGoToTheLowerOpIdAndProcessorTiesToTheLowerIndex) {
    // Two independent tasks of equal cost on two equal processors: the same rank, so task 0
    // goes first, to processor 0 (a tie with processor 1); task 1 then finishes earlier on
    // processor 1.
    const SchedulingProblem p = problem({{5, 5}, {5, 5}}, {});
    for (const ListSchedule& s : {heft(p), cpop(p), peft(p), etf(p)}) {
        EXPECT_EQ(s.placed.front(), 0);
        EXPECT_EQ(s.processor[0], 0);
        EXPECT_EQ(s.processor[1], 1);
        EXPECT_EQ(s.makespan(), 5.0);
    }
    // One task alone, equal on both processors: processor 0.
    EXPECT_EQ(heft(problem({{3, 3}}, {})).processor[0], 0);
}

TEST(ListScheduling, TopcuoglusRanksAreThePapers) {
    const SchedulingProblem p = problem({{14, 16, 9},
                                         {13, 19, 18},
                                         {11, 13, 19},
                                         {13, 8, 17},
                                         {12, 13, 10},
                                         {13, 16, 9},
                                         {7, 15, 11},
                                         {5, 11, 14},
                                         {18, 12, 20},
                                         {21, 7, 16}},
                                        {{0, 1, 18},
                                         {0, 2, 12},
                                         {0, 3, 9},
                                         {0, 4, 11},
                                         {0, 5, 14},
                                         {1, 7, 19},
                                         {1, 8, 16},
                                         {2, 6, 23},
                                         {3, 7, 27},
                                         {3, 8, 23},
                                         {4, 8, 13},
                                         {5, 7, 15},
                                         {6, 9, 17},
                                         {7, 9, 11},
                                         {8, 9, 13}});
    // rank_u as Topcuoglu et al. 2002 print it (108, 77, 80, 80, 69, 63.3, 42.7, 35.7, 44.3,
    // 14.7); rank_d by hand from its Eq. 4 (n9: max(31 + 50/3 + 16, 22 + 38/3 + 23,
    // 24 + 35/3 + 13) = 63.667). rank_u + rank_d is 108 on the critical path n1, n2, n9, n10.
    const std::vector<double> up = upward_rank(p), down = downward_rank(p);
    const double ranks_u[] = {108,          77,           80,           80,           69,
                              63 + 1.0 / 3, 42 + 2.0 / 3, 35 + 2.0 / 3, 44 + 1.0 / 3, 14 + 2.0 / 3};
    const double ranks_d[] = {0,  31,           25,           22,           24,
                              27, 62 + 1.0 / 3, 66 + 2.0 / 3, 63 + 2.0 / 3, 93 + 1.0 / 3};
    for (int t = 0; t < 10; ++t) {
        EXPECT_NEAR(up[static_cast<std::size_t>(t)], ranks_u[t], 1e-9) << t;
        EXPECT_NEAR(down[static_cast<std::size_t>(t)], ranks_d[t], 1e-9) << t;
    }
    for (int t : {0, 1, 8, 9})
        EXPECT_NEAR(up[static_cast<std::size_t>(t)] + down[static_cast<std::size_t>(t)], 108, 1e-9);
    // Tasks 2 and 3 tie at 80: HEFT takes the lower id first (the paper's order n1, n3, n4).
    const ListSchedule s = heft(p);
    EXPECT_EQ(std::vector<int>(s.placed.begin(), s.placed.begin() + 3),
              (std::vector<int>{0, 2, 3}));
    EXPECT_EQ(s.makespan(), 80.0);
    EXPECT_EQ(cpop(p).makespan(), 86.0);
}

TEST(ListScheduling, InsertionFillsAnIdleGap) {
    // Task 0 runs 0-2 on p1; task 2 (p1 only) must wait for task 1 (10 on p0); the independent
    // task 3 (p1 only) fits in p1's gap between 2 and 10.
    const double inf = std::numeric_limits<double>::infinity();
    const SchedulingProblem p =
        problem({{inf, 2}, {10, inf}, {inf, 1}, {inf, 3}}, {{0, 2, 0.0}, {1, 2, 0.0}});
    // HEFT: ranks 3 (t0), 11 (t1), 1 (t2), 3 (t3). Order t1 (p0, 0-10), t0 (p1, 0-2), t3
    // (p1, 2-5), t2 (p1, 10-11).
    const ListSchedule h = heft(p);
    EXPECT_EQ(h.start[3], 2.0);
    EXPECT_EQ(h.start[2], 10.0);
    EXPECT_EQ(h.makespan(), 11.0);
}

TEST(ListScheduling, PeftsOptimisticCostTableCountsTheSuccessorNotTheTask) {
    // t0 -> t1, comm 4. OCT(t0, p) = min over w of (OCT(t1, w) + w(t1, w) + c if w != p):
    // from p0: min(0 + 3, 0 + 1 + 4) = 3; from p1: min(0 + 3 + 4, 0 + 1) = 1. t0's own cost
    // (100 or 200) is not in it; an exit task's OCT is 0.
    const SchedulingProblem p = problem({{100, 200}, {3, 1}}, {{0, 1, 4.0}});
    const auto oct = optimistic_cost_table(p);
    EXPECT_EQ(oct[0][0], 3.0);
    EXPECT_EQ(oct[0][1], 1.0);
    EXPECT_EQ(oct[1][0], 0.0);
    EXPECT_EQ(oct[1][1], 0.0);
}

// On random graphs every schedule is valid: each task on a processor that runs it, for its
// cost, after its inputs arrive, never two at once on a processor; and SLR >= 1.
TEST(ListScheduling, EverySchedulerGivesAValidScheduleOnRandomGraphs) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        sim::workloads::RandomTaskGraphConfig c;
        c.tasks = 60;
        c.processors = 3;
        c.ccr = static_cast<double>(seed % 5) * 0.5;
        c.seed = seed;
        const auto g = sim::workloads::random_taskgraph(c);
        std::vector<GivenEdge> edges;
        for (const auto& e : g.edges)
            edges.push_back({e.from, e.to, e.comm_s});
        const SchedulingProblem p = scheduling_problem(g.cost, edges);
        for (const ListSchedule& s : {heft(p), cpop(p), peft(p), etf(p)}) {
            for (int t = 0; t < p.tasks; ++t) {
                const auto i = static_cast<std::size_t>(t);
                EXPECT_NEAR(s.finish[i] - s.start[i],
                            p.cost[i][static_cast<std::size_t>(s.processor[i])], 1e-9);
                for (int e : p.in_edges[i]) {
                    const auto& edge = p.edges[static_cast<std::size_t>(e)];
                    const auto from = static_cast<std::size_t>(edge.from);
                    EXPECT_GE(s.start[i] + 1e-9,
                              s.finish[from] + p.comm(edge, s.processor[from], s.processor[i]));
                }
                for (int u = 0; u < t; ++u) {
                    const auto j = static_cast<std::size_t>(u);
                    if (s.processor[j] == s.processor[i]) {
                        EXPECT_TRUE(s.finish[j] <= s.start[i] + 1e-9 ||
                                    s.finish[i] <= s.start[j] + 1e-9)
                            << "seed " << seed << ": tasks " << u << " and " << t << " overlap";
                    }
                }
            }
            EXPECT_GE(schedule_length_ratio(p, s.makespan()), 1.0 - 1e-12);
        }
    }
}

}  // namespace
}  // namespace hetsim::placement::classic
