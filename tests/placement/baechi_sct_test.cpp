// Baechi's m-SCT (placement/baechi/m_sct.hpp): the favourite-child LP on hand-solved graphs
// (its x, its rounding and tie rule, its w), m-SCT's schedule worked out on paper (where it
// beats m-ETF, where memory or another task displaces the favourite child), properties on
// random graphs checked against an oracle that re-derives each favourite child's fate from the
// schedule alone, the "nothing fits" error, and the placer through the registry.
#include "placement/baechi/m_sct.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "placement/baechi/baechi_placer.hpp"
#include "sim/evaluator.hpp"
#include "sim/workloads/graph_builder.hpp"
#include "sim/workloads/random_taskgraph.hpp"
#include "tests/fixtures/baechi_fixtures.hpp"
#include "tests/fixtures/placement_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::baechi {
namespace {

using classic::GivenEdge;
using classic::ListSchedule;
using classic::MemoryLimits;
using classic::SchedulingProblem;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::size_t at(int i) {
    return static_cast<std::size_t>(i);
}

SchedulingProblem problem(const std::vector<std::vector<double>>& costs,
                          const std::vector<GivenEdge>& edges) {
    return classic::scheduling_problem(costs, edges);
}

// x of the edge from -> to.
double x_of(const SchedulingProblem& p, const FavouriteChildren& f, int from, int to) {
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
        if (p.edges[e].from == from && p.edges[e].to == to)
            return f.x[e];
    }
    ADD_FAILURE() << "no edge " << from << " -> " << to;
    return -1.0;
}

FavouriteChildren no_favourites(const SchedulingProblem& p) {
    FavouriteChildren f;
    f.child.assign(at(p.tasks), -1);
    f.parent.assign(at(p.tasks), -1);
    f.x.assign(p.edges.size(), 1.0);
    return f;
}

// One task's processor, start and finish.
struct Slot {
    int processor;
    double start, finish;
};
void expect_slots(const ListSchedule& s, const std::vector<Slot>& slots) {
    ASSERT_EQ(s.processor.size(), slots.size());
    for (std::size_t t = 0; t < slots.size(); ++t) {
        EXPECT_EQ(s.processor[t], slots[t].processor) << "task " << t;
        EXPECT_NEAR(s.start[t], slots[t].start, 1e-9) << "task " << t;
        EXPECT_NEAR(s.finish[t], slots[t].finish, 1e-9) << "task " << t;
    }
}

// Every task on a processor that runs it, for its cost there, after its inputs arrive, never
// two at once on a processor; every task placed once.
void expect_valid(const SchedulingProblem& p, const ListSchedule& s, const std::string& where) {
    ASSERT_EQ(s.placed.size(), at(p.tasks)) << where;
    EXPECT_EQ(std::set<int>(s.placed.begin(), s.placed.end()).size(), at(p.tasks)) << where;
    for (int t = 0; t < p.tasks; ++t) {
        const auto i = at(t);
        ASSERT_GE(s.processor[i], 0) << where;
        const double c = p.cost[i][at(s.processor[i])];
        ASSERT_TRUE(std::isfinite(c)) << where << ": task " << t << " on a processor it cannot use";
        EXPECT_NEAR(s.finish[i] - s.start[i], c, 1e-9) << where << ": task " << t;
        EXPECT_GE(s.start[i] + 1e-9, p.input_ready[i][at(s.processor[i])]) << where;
        for (int e : p.in_edges[i]) {
            const auto& edge = p.edges[at(e)];
            const auto from = at(edge.from);
            EXPECT_GE(s.start[i] + 1e-9,
                      s.finish[from] + p.comm(edge, s.processor[from], s.processor[i]))
                << where << ": edge " << edge.from << " -> " << t;
        }
        for (int u = 0; u < t; ++u) {
            const auto j = at(u);
            if (s.processor[j] == s.processor[i]) {
                EXPECT_TRUE(s.finish[j] <= s.start[i] + 1e-9 || s.finish[i] <= s.start[j] + 1e-9)
                    << where << ": tasks " << u << " and " << t << " overlap";
            }
        }
    }
}

// --- the LP ------------------------------------------------------------------------------------

TEST(BaechiSctLp, ForkFavoursTheChildOnTheLongerPath) {
    // a(1) -> b(2), a -> c(3), both edges 5. w >= 1 + 2 + 5 x_ab + ... : minimise
    // max(3 + 5 x_ab, 4 + 5 x_ac) with x_ab + x_ac >= 1. Half the first plus half the second is
    // 3.5 + 2.5 (x_ab + x_ac) >= 6, reached only at x_ab = 0.6, x_ac = 0.4: w = 6, and c (the
    // longer path) is a's favourite child.
    const SchedulingProblem p = problem({{1, 1}, {2, 2}, {3, 3}}, {{0, 1, 5.0}, {0, 2, 5.0}});
    const FavouriteChildren f = favourite_children(p);
    EXPECT_NEAR(x_of(p, f, 0, 1), 0.6, 1e-6);
    EXPECT_NEAR(x_of(p, f, 0, 2), 0.4, 1e-6);
    EXPECT_NEAR(f.makespan_s, 6.0, 1e-6);
    EXPECT_EQ(f.child, (std::vector<int>{2, -1, -1}));
    EXPECT_EQ(f.parent, (std::vector<int>{-1, -1, 0}));
    EXPECT_EQ(f.count(), 1);
}

TEST(BaechiSctLp, JoinSplitsTheTransferBetweenItsParents) {
    // a(3) -> c(1) costs 4, b(2) -> c costs 2, x_ac + x_bc >= 1: s_c >= max(3 + 4 x_ac,
    // 2 + 2 x_bc). With x_bc = 1 - x_ac the two meet at x_ac = 1/6: s_c = 11/3, w = 14/3; any
    // other x makes one of them larger. a is c's favourite parent (1/6 < 1/2).
    const SchedulingProblem p = problem({{3, 3}, {2, 2}, {1, 1}}, {{0, 2, 4.0}, {1, 2, 2.0}});
    const FavouriteChildren f = favourite_children(p);
    EXPECT_NEAR(x_of(p, f, 0, 2), 1.0 / 6, 1e-6);
    EXPECT_NEAR(x_of(p, f, 1, 2), 5.0 / 6, 1e-6);
    EXPECT_NEAR(f.makespan_s, 14.0 / 3, 1e-6);
    EXPECT_EQ(f.child, (std::vector<int>{2, -1, -1}));
    EXPECT_EQ(f.parent, (std::vector<int>{-1, -1, 0}));
}

TEST(BaechiSctLp, InAChainEveryChildIsFavouriteAndWIsTheSumOfCosts) {
    // Nothing forces a transfer: x = 0 on every edge, w = 1 + 2 + 3 + 4.
    const SchedulingProblem p =
        problem({{1, 1}, {2, 2}, {3, 3}, {4, 4}}, {{0, 1, 10.0}, {1, 2, 10.0}, {2, 3, 10.0}});
    const FavouriteChildren f = favourite_children(p);
    for (double x : f.x)
        EXPECT_NEAR(x, 0.0, 1e-6);
    EXPECT_NEAR(f.makespan_s, 10.0, 1e-6);
    EXPECT_EQ(f.child, (std::vector<int>{1, 2, 3, -1}));
    EXPECT_EQ(f.parent, (std::vector<int>{-1, 0, 1, 2}));
    EXPECT_EQ(f.count(), 3);
}

TEST(BaechiSctLp, CostsAreMeansOverTheProcessorsThatRunTheTask) {
    // a costs 1 or 3 (mean 2), b 4 or +inf (mean 4): the chain's w is 6, in the problem's
    // seconds even when they are microseconds (the LP is solved in scaled units).
    const SchedulingProblem p = problem({{1, 3}, {4, kInf}}, {{0, 1, 7.0}});
    EXPECT_NEAR(favourite_children(p).makespan_s, 6.0, 1e-6);
    const SchedulingProblem tiny = problem({{1e-6, 3e-6}, {4e-6, kInf}}, {{0, 1, 7e-6}});
    const FavouriteChildren f = favourite_children(tiny);
    EXPECT_NEAR(f.makespan_s, 6e-6, 1e-12);
    EXPECT_EQ(f.child[0], 1);
}

TEST(BaechiSctLp, ExactHalvesGoToTheLowerOpId) {
    // A symmetric fork: the LP's only optimum is x = 1/2 on both edges (w = 1 + 2 + 4/2 = 5).
    // 1/2 rounds to favourite, which would give a two favourite children: the lower id wins.
    const SchedulingProblem fork = problem({{1, 1}, {2, 2}, {2, 2}}, {{0, 1, 4.0}, {0, 2, 4.0}});
    const FavouriteChildren f = favourite_children(fork);
    EXPECT_NEAR(x_of(fork, f, 0, 1), 0.5, 1e-6);
    EXPECT_NEAR(x_of(fork, f, 0, 2), 0.5, 1e-6);
    EXPECT_NEAR(f.makespan_s, 5.0, 1e-6);
    EXPECT_EQ(f.child, (std::vector<int>{1, -1, -1}));
    EXPECT_EQ(f.parent, (std::vector<int>{-1, 0, -1}));
    // A symmetric join: c would get two favourite parents: the lower id, a, wins.
    const SchedulingProblem join = problem({{2, 2}, {2, 2}, {1, 1}}, {{0, 2, 4.0}, {1, 2, 4.0}});
    const FavouriteChildren g = favourite_children(join);
    EXPECT_NEAR(x_of(join, g, 0, 2), 0.5, 1e-6);
    EXPECT_NEAR(x_of(join, g, 1, 2), 0.5, 1e-6);
    EXPECT_NEAR(g.makespan_s, 5.0, 1e-6);
    EXPECT_EQ(g.child, (std::vector<int>{2, -1, -1}));
    EXPECT_EQ(g.parent, (std::vector<int>{-1, -1, 0}));
}

TEST(BaechiSctLp, OffTheCriticalPathTheHeavierEdgeIsFavourite) {
    // The chain 0 -> 1 (100 + 100) sets w = 200; the fork 2 -> {3, 4} (all 1) meets it with any
    // x. The second pass (least sum c x at w = 200) puts x = 0 on the heavier edge 2 -> 4 (3)
    // rather than on 2 -> 3 (1), which the lower-id rule would have picked.
    const SchedulingProblem p = problem({{100, 100}, {100, 100}, {1, 1}, {1, 1}, {1, 1}},
                                        {{0, 1, 1.0}, {2, 3, 1.0}, {2, 4, 3.0}});
    const FavouriteChildren f = favourite_children(p);
    EXPECT_NEAR(f.makespan_s, 200.0, 1e-6);
    EXPECT_NEAR(x_of(p, f, 0, 1), 0.0, 1e-6);
    EXPECT_NEAR(x_of(p, f, 2, 4), 0.0, 1e-6);
    EXPECT_NEAR(x_of(p, f, 2, 3), 1.0, 1e-6);
    EXPECT_EQ(f.child, (std::vector<int>{1, -1, 4, -1, -1}));
    // Mirrored (the heavier edge to the lower id), and with a third child in between: the
    // heaviest edge still wins, whatever its place.
    const SchedulingProblem mirrored =
        problem({{100, 100}, {100, 100}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
                {{0, 1, 1.0}, {2, 3, 3.0}, {2, 4, 2.0}, {2, 5, 1.0}});
    const FavouriteChildren g = favourite_children(mirrored);
    EXPECT_NEAR(g.makespan_s, 200.0, 1e-6);
    EXPECT_EQ(g.child, (std::vector<int>{1, -1, 3, -1, -1, -1}));
    const SchedulingProblem middle =
        problem({{100, 100}, {100, 100}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
                {{0, 1, 1.0}, {2, 3, 1.0}, {2, 4, 3.0}, {2, 5, 2.0}});
    EXPECT_EQ(favourite_children(middle).child, (std::vector<int>{1, -1, 4, -1, -1, -1}));
}

// --- the schedule, by hand ---------------------------------------------------------------------

// a(1) -> b(3) costs 1, a -> c(3) costs 4, on two identical processors. The LP: 4 + max(x_ab,
// 4 x_ac) with x_ab + x_ac >= 1: x_ab = 0.8, x_ac = 0.2, w = 4.8; c is a's favourite.
SchedulingProblem fork_of_two() {
    return problem({{1, 1}, {3, 3}, {3, 3}}, {{0, 1, 1.0}, {0, 2, 4.0}});
}

TEST(BaechiSctSchedule, TheFavouriteChildRunsNextOnItsParentsProcessor) {
    const SchedulingProblem p = fork_of_two();
    const FavouriteChildren f = favourite_children(p);
    EXPECT_NEAR(x_of(p, f, 0, 1), 0.8, 1e-6);
    EXPECT_NEAR(x_of(p, f, 0, 2), 0.2, 1e-6);
    EXPECT_NEAR(f.makespan_s, 4.8, 1e-6);
    EXPECT_EQ(f.child[0], 2);
    // m-SCT: a on p0 (0-1; processor tie to p0); c urgent on p0 right after it (1-4); b then
    // starts at 4 on p0 or at 1 + 1 on p1: p1, 2-5. Makespan 5.
    std::vector<FavouriteOutcome> outcomes;
    const ListSchedule s = m_sct(p, f, nullptr, &outcomes);
    expect_slots(s, {{0, 0, 1}, {1, 2, 5}, {0, 1, 4}});
    EXPECT_EQ(s.placed, (std::vector<int>{0, 2, 1}));
    EXPECT_EQ(outcomes,
              (std::vector<FavouriteOutcome>{FavouriteOutcome::none, FavouriteOutcome::none,
                                             FavouriteOutcome::kept}));
    expect_slots(m_sct(p), {{0, 0, 1}, {1, 2, 5}, {0, 1, 4}});  // the LP inside
    // m-ETF breaks the tie of b and c (both start at 1 on p0, same upward rank 3) to the lower
    // id: b on p0 1-4, then c at 4 on p0 (5 on p1): makespan 7.
    const ListSchedule etf = classic::etf(p);
    expect_slots(etf, {{0, 0, 1}, {0, 1, 4}, {0, 4, 7}});
    EXPECT_EQ(s.makespan(), 5.0);
}

TEST(BaechiSctSchedule, AFavouriteChildThatDoesNotFitIsScheduledLikeAnyOther) {
    // The same fork; p0 holds 10 bytes, p1 100; a keeps 6, b 1, c 5. After a (6 on p0), c
    // would need 11 > 10: not urgent. ETF: b on p0 at 1 (7 bytes), then c fits only on p1,
    // where its input arrives at 1 + 4 = 5: 5-8.
    const SchedulingProblem p = fork_of_two();
    MemoryLimits m;
    m.capacity = {10, 100};
    m.output_bytes = {{6, 6}, {1, 1}, {5, 5}};
    m.weights.assign(3, {});
    std::vector<FavouriteOutcome> outcomes;
    const ListSchedule s = m_sct(p, favourite_children(p), &m, &outcomes);
    expect_slots(s, {{0, 0, 1}, {0, 1, 4}, {1, 5, 8}});
    EXPECT_EQ(outcomes[2], FavouriteOutcome::no_memory);
    expect_slots(m_sct(p, &m), {{0, 0, 1}, {0, 1, 4}, {1, 5, 8}});
    // With room for it (11 bytes), c is urgent again.
    m.capacity = {11, 100};
    expect_slots(m_sct(p, &m), {{0, 0, 1}, {1, 2, 5}, {0, 1, 4}});
}

TEST(BaechiSctSchedule, AProcessorTakenBeforeTheChildIsReadyLosesIt) {
    // 0(1) -> 3(1); 1(3) -> 2(5) -> 3; 4(2) alone; every edge 1; 3 is 0's favourite child.
    // Upward ranks: 1: 11, 2: 7, 0: 3, 4: 2, 3: 1. ETF steps: 1 on p0 (0-3, the highest rank of
    // those starting at 0); 0 on p1 (0-1); 4 on p1 (1-3: it starts before 2 can, at 3): p1 no
    // longer ends with 0 while 3 still waits for 2; 2 on p0 (3-8); 3 is then not urgent: p0 at
    // 8 (p1 would wait for 2's output until 9), 8-9.
    const SchedulingProblem p =
        problem({{1, 1}, {3, 3}, {5, 5}, {1, 1}, {2, 2}}, {{0, 3, 1.0}, {1, 2, 1.0}, {2, 3, 1.0}});
    FavouriteChildren f = no_favourites(p);
    f.child[0] = 3;
    f.parent[3] = 0;
    std::vector<FavouriteOutcome> outcomes;
    const ListSchedule s = m_sct(p, f, nullptr, &outcomes);
    expect_slots(s, {{1, 0, 1}, {0, 0, 3}, {0, 3, 8}, {0, 8, 9}, {1, 1, 3}});
    EXPECT_EQ(outcomes[3], FavouriteOutcome::taken);
}

TEST(BaechiSctSchedule, AChildTheParentsProcessorCannotRunGoesElsewhere) {
    // 0 runs only on p1, its favourite child 1 only on p0.
    const SchedulingProblem p = problem({{kInf, 2}, {3, kInf}}, {{0, 1, 1.0}});
    FavouriteChildren f = no_favourites(p);
    f.child[0] = 1;
    f.parent[1] = 0;
    std::vector<FavouriteOutcome> outcomes;
    expect_slots(m_sct(p, f, nullptr, &outcomes), {{1, 0, 2}, {0, 3, 6}});
    EXPECT_EQ(outcomes[1], FavouriteOutcome::incapable);
}

TEST(BaechiSctSchedule, NothingFitsNamesTheTaskWhatItNeedsAndWhatIsLeft) {
    // 0 keeps 4 bytes; 1 needs 20 and each processor holds 10.
    const SchedulingProblem p = problem({{1, 1}, {1, 1}}, {{0, 1, 1.0}});
    MemoryLimits m;
    m.capacity = {10, 10};
    m.output_bytes = {{4, 4}, {20, 20}};
    m.weights.assign(2, {});
    EXPECT_THAT([&] { m_sct(p, &m); },
                ::testing::ThrowsMessage<PlacementError>(
                    ::testing::AllOf(::testing::HasSubstr("nothing fits: task 1"),
                                     ::testing::HasSubstr("0: 6 of 10 bytes free, it needs 20"),
                                     ::testing::HasSubstr("1: 10 of 10 bytes free, it needs 20"))));
    const std::vector<std::string> names{"load", "big_matmul"};
    EXPECT_THAT([&] { m_sct(p, favourite_children(p), &m, nullptr, &names); },
                ::testing::ThrowsMessage<PlacementError>(
                    ::testing::HasSubstr("nothing fits: op 'big_matmul'")));
}

// --- random graphs -----------------------------------------------------------------------------

SchedulingProblem random_problem(std::uint64_t seed, int tasks, int processors,
                                 double incapable_share) {
    sim::workloads::RandomTaskGraphConfig c;
    c.tasks = tasks;
    c.processors = processors;
    c.ccr = 0.25 + static_cast<double>(seed % 4) * 0.5;
    c.seed = seed;
    auto g = sim::workloads::random_taskgraph(c);
    std::mt19937_64 rng(seed * 7919);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (auto& row : g.cost) {
        // Some (task, processor) pairs cannot run; every task keeps at least one.
        const auto keep = static_cast<std::size_t>(rng() % row.size());
        for (std::size_t q = 0; q < row.size(); ++q) {
            if (q != keep && u(rng) < incapable_share)
                row[q] = kInf;
        }
    }
    std::vector<GivenEdge> edges;
    for (const auto& e : g.edges)
        edges.push_back({e.from, e.to, e.comm_s});
    return classic::scheduling_problem(g.cost, edges);
}

// Random memory: outputs of 1-100 bytes, ten shared weights of 1-200 bytes (about half the
// tasks read one), and capacities of `slack` x the outputs and weights over the processors:
// tight enough that favourite children are displaced, loose enough that all fits.
MemoryLimits random_memory(const SchedulingProblem& p, std::uint64_t seed, double slack) {
    std::mt19937_64 rng(seed * 104729);
    MemoryLimits m;
    std::int64_t outputs = 0, weights = 0;
    std::vector<std::int64_t> weight_bytes;
    for (int w = 0; w < 10; ++w) {
        weight_bytes.push_back(1 + static_cast<std::int64_t>(rng() % 200));
        weights += weight_bytes.back();
    }
    for (int t = 0; t < p.tasks; ++t) {
        const auto out = 1 + static_cast<std::int64_t>(rng() % 100);
        outputs += out;
        m.output_bytes.push_back(std::vector<std::int64_t>(at(p.processors), out));
        std::vector<std::pair<int, std::int64_t>> w;
        if (rng() % 2 == 0) {
            const auto k = static_cast<int>(rng() % 10);
            w.push_back({k, weight_bytes[at(k)]});
        }
        m.weights.push_back(std::move(w));
    }
    m.capacity.assign(
        at(p.processors),
        static_cast<std::int64_t>(slack * static_cast<double>(outputs + weights) / p.processors));
    return m;
}

// The LP's constraints and its rounding, checked on its own x.
void expect_lp_solution(const SchedulingProblem& p, const FavouriteChildren& f,
                        const std::string& where) {
    ASSERT_EQ(f.x.size(), p.edges.size()) << where;
    for (double x : f.x) {
        EXPECT_GE(x, -1e-9) << where;
        EXPECT_LE(x, 1.0 + 1e-9) << where;
    }
    for (int t = 0; t < p.tasks; ++t) {
        double out = 0.0, in = 0.0;
        for (int e : p.out_edges[at(t)])
            out += f.x[at(e)];
        for (int e : p.in_edges[at(t)])
            in += f.x[at(e)];
        if (!p.out_edges[at(t)].empty()) {
            EXPECT_GE(out, static_cast<double>(p.out_edges[at(t)].size()) - 1 - 1e-6) << where;
        }
        if (!p.in_edges[at(t)].empty()) {
            EXPECT_GE(in, static_cast<double>(p.in_edges[at(t)].size()) - 1 - 1e-6) << where;
        }
        if (f.child[at(t)] >= 0) {
            EXPECT_EQ(f.parent[at(f.child[at(t)])], t) << where;
            EXPECT_LE(x_of(p, f, t, f.child[at(t)]), 0.5 + 1e-6) << where;
        }
        if (f.parent[at(t)] >= 0) {
            EXPECT_EQ(f.child[at(f.parent[at(t)])], t) << where;
        }
    }
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
        // Below 1/2 no other edge of the parent or the child can be: always favourite.
        const auto& edge = p.edges[e];
        if (f.x[e] < 0.5 - 1e-5) {
            EXPECT_EQ(f.child[at(edge.from)], edge.to)
                << where << ": " << edge.from << " -> " << edge.to;
        }
    }
    // w lies between the longest path of mean costs without transfers and with all of them.
    std::vector<double> bare(at(p.tasks), 0.0), full(at(p.tasks), 0.0);
    double lower = 0.0, upper = 0.0;
    // Edges go from lower to higher ids in random_taskgraph: ids are a topological order.
    for (int t = 0; t < p.tasks; ++t) {
        for (int e : p.in_edges[at(t)]) {
            const auto& edge = p.edges[at(e)];
            EXPECT_LT(edge.from, t);
            bare[at(t)] = std::max(bare[at(t)], bare[at(edge.from)]);
            full[at(t)] = std::max(full[at(t)], full[at(edge.from)] + edge.mean_comm);
        }
        bare[at(t)] += p.mean_cost(t);
        full[at(t)] += p.mean_cost(t);
        lower = std::max(lower, bare[at(t)]);
        upper = std::max(upper, full[at(t)]);
    }
    EXPECT_GE(f.makespan_s, lower * (1 - 1e-6)) << where;
    EXPECT_LE(f.makespan_s, upper * (1 + 1e-6)) << where;
}

// What became of each favourite child, derived from the schedule alone: the parent's processor
// q cannot run it (incapable); q got another task placed no later than the child's last parent
// (taken); q, as it was when the child became ready, had no room for it (no_memory); else it
// must run next on q, when its inputs arrive (kept).
std::vector<FavouriteOutcome> oracle(const SchedulingProblem& p, const FavouriteChildren& f,
                                     const MemoryLimits* m, const ListSchedule& s,
                                     const std::string& where) {
    std::vector<int> position(at(p.tasks));
    for (std::size_t k = 0; k < s.placed.size(); ++k)
        position[at(s.placed[k])] = static_cast<int>(k);
    std::vector<FavouriteOutcome> fate(at(p.tasks), FavouriteOutcome::none);
    for (int c = 0; c < p.tasks; ++c) {
        const int parent = f.parent[at(c)];
        if (parent < 0)
            continue;
        const int q = s.processor[at(parent)];
        int ready_at = -1;  // the position of the child's last parent
        for (int e : p.in_edges[at(c)])
            ready_at = std::max(ready_at, position[at(p.edges[at(e)].from)]);
        int next = -1;  // the task placed on q right after the parent
        for (std::size_t k = at(position[at(parent)]) + 1; k < s.placed.size() && next < 0; ++k) {
            if (s.processor[at(s.placed[k])] == q)
                next = s.placed[k];
        }
        if (std::isinf(p.cost[at(c)][at(q)])) {
            fate[at(c)] = FavouriteOutcome::incapable;
            continue;
        }
        if (next >= 0 && position[at(next)] <= ready_at) {
            fate[at(c)] = FavouriteOutcome::taken;
            continue;
        }
        if (m && m->capacity[at(q)] > 0) {
            std::int64_t used = 0, needs = m->output_bytes[at(c)][at(q)];
            std::set<int> resident;
            for (int k = 0; k <= ready_at; ++k) {
                const int t = s.placed[at(k)];
                if (s.processor[at(t)] != q)
                    continue;
                used += m->output_bytes[at(t)][at(q)];
                for (const auto& [tensor, size] : m->weights[at(t)]) {
                    if (resident.insert(tensor).second)
                        used += size;
                }
            }
            for (const auto& [tensor, size] : m->weights[at(c)]) {
                if (!resident.count(tensor))
                    needs += size;
            }
            if (used + needs > m->capacity[at(q)]) {
                fate[at(c)] = FavouriteOutcome::no_memory;
                continue;
            }
        }
        fate[at(c)] = FavouriteOutcome::kept;
        EXPECT_EQ(next, c) << where << ": favourite child " << c << " of " << parent
                           << " is not next on processor " << q;
        double ready = std::max(s.finish[at(parent)], p.input_ready[at(c)][at(q)]);
        for (int e : p.in_edges[at(c)]) {
            const auto& edge = p.edges[at(e)];
            ready = std::max(ready,
                             s.finish[at(edge.from)] + p.comm(edge, s.processor[at(edge.from)], q));
        }
        EXPECT_NEAR(s.start[at(c)], ready, 1e-9) << where << ": favourite child " << c;
    }
    return fate;
}

TEST(BaechiSctRandom, SchedulesAreValidAndFavouriteChildrenStayUnlessDisplacedForAReason) {
    int kept = 0, incapable = 0, taken = 0;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const std::string where = "seed " + std::to_string(seed);
        const SchedulingProblem p = random_problem(seed, 40, 3, 0.3);
        const FavouriteChildren f = favourite_children(p);
        expect_lp_solution(p, f, where);
        EXPECT_GT(f.count(), 0) << where;
        std::vector<FavouriteOutcome> outcomes;
        const ListSchedule s = m_sct(p, f, nullptr, &outcomes);
        expect_valid(p, s, where);
        EXPECT_EQ(oracle(p, f, nullptr, s, where), outcomes) << where;
        for (FavouriteOutcome o : outcomes) {
            EXPECT_NE(o, FavouriteOutcome::no_memory) << where;  // no limits
            kept += o == FavouriteOutcome::kept;
            incapable += o == FavouriteOutcome::incapable;
            taken += o == FavouriteOutcome::taken;
        }
    }
    // The graphs exercise each case.
    EXPECT_GT(kept, 0);
    EXPECT_GT(incapable, 0);
    EXPECT_GT(taken, 0);
}

TEST(BaechiSctRandom, EveryProcessorStaysWithinItsCapacity) {
    // Two tightnesses over twelve graphs. A greedy can paint itself into a corner where nothing
    // fits (then it must say so); most runs must finish, and displace some favourite children.
    int runs = 0, no_memory = 0, kept = 0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        for (double slack : {1.25, 1.5}) {
            const std::string where = fmt::format("seed {} slack {}", seed, slack);
            const SchedulingProblem p = random_problem(seed, 40, 3, 0.0);
            const MemoryLimits m = random_memory(p, seed, slack);
            const FavouriteChildren f = favourite_children(p);
            std::vector<FavouriteOutcome> outcomes;
            ListSchedule s;
            try {
                s = m_sct(p, f, &m, &outcomes);
            } catch (const PlacementError& e) {
                EXPECT_THAT(e.what(), ::testing::HasSubstr("nothing fits: task ")) << where;
                continue;
            }
            ++runs;
            expect_valid(p, s, where);
            // Each processor's bytes: its tasks' outputs and each weight once.
            std::vector<std::int64_t> used(at(p.processors), 0);
            std::vector<std::set<int>> resident(at(p.processors));
            for (int t = 0; t < p.tasks; ++t) {
                const auto q = at(s.processor[at(t)]);
                used[q] += m.output_bytes[at(t)][q];
                for (const auto& [tensor, size] : m.weights[at(t)]) {
                    if (resident[q].insert(tensor).second)
                        used[q] += size;
                }
            }
            for (std::size_t q = 0; q < used.size(); ++q)
                EXPECT_LE(used[q], m.capacity[q]) << where << ": processor " << q;
            EXPECT_EQ(oracle(p, f, &m, s, where), outcomes) << where;
            for (FavouriteOutcome o : outcomes) {
                no_memory += o == FavouriteOutcome::no_memory;
                kept += o == FavouriteOutcome::kept;
            }
        }
    }
    EXPECT_GE(runs, 12);
    EXPECT_GT(no_memory, 0);  // the capacities bind
    EXPECT_GT(kept, 0);
}

TEST(BaechiSctRandom, WithoutFavouriteChildrenItIsMEtfStepForStep) {
    // Also where memory runs out: the same error at the same task.
    int errors = 0;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const SchedulingProblem p = random_problem(seed, 50, 3, 0.2);
        const MemoryLimits m = random_memory(p, seed, 1.25);
        for (const MemoryLimits* limits : {static_cast<const MemoryLimits*>(nullptr), &m}) {
            ListSchedule a, b;
            std::string error_a, error_b;
            try {
                a = m_sct(p, no_favourites(p), limits);
            } catch (const PlacementError& e) {
                error_a = e.what();
            }
            try {
                b = classic::etf(p, limits);
            } catch (const PlacementError& e) {
                error_b = e.what();
            }
            EXPECT_EQ(error_a, error_b) << "seed " << seed;
            errors += !error_b.empty();
            EXPECT_EQ(a.placed, b.placed) << "seed " << seed;
            EXPECT_EQ(a.processor, b.processor) << "seed " << seed;
            EXPECT_EQ(a.start, b.start) << "seed " << seed;
            EXPECT_EQ(a.finish, b.finish) << "seed " << seed;
        }
    }
    EXPECT_GT(errors, 0);
    EXPECT_LT(errors, 6);
}

// --- the placer ----------------------------------------------------------------------------------

using hetsim::testing::matmul_chain;
using hetsim::testing::memory_platform;

TEST(BaechiSctPlacer, StaysInsideEveryCapacityAndReportsTheLp) {
    app::register_all();
    const sim::Graph g = matmul_chain();
    // The CPU (the host, where the input is: ETF starts op 0 there) holds 2.5 MiB: two weights.
    const sim::Platform p = memory_platform((5 << 20) / 2, 64 << 20);
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{1});
    PlacementContext context{g, p, evaluator, Objective::latency, 1};
    const auto placer = PlacerRegistry::instance().create("baechi.m_sct");
    EXPECT_EQ(placer->name(), "baechi.m_sct");
    const PlacementResult r = placer->place(context);
    const sim::Metrics metrics = evaluator.evaluate(sim::lower(g, r.placement, p));
    EXPECT_TRUE(metrics.feasible) << metrics.infeasible_reason;
    // A chain: every op but the last has a favourite child, and the LP's w is the sum of the
    // mean costs (55 us each). Ops 0 and 1 run on the CPU, op 1's favourite child 2 does not
    // fit there and goes to the accelerator, where 3, 4 and 5 follow as favourite children.
    std::vector<int> on_acc;
    for (int t = 0; t < g.op_count(); ++t) {
        if (p.device(r.placement.device_of_op[at(t)]).name == "ACC")
            on_acc.push_back(t);
    }
    EXPECT_EQ(on_acc, (std::vector<int>{2, 3, 4, 5}));
    EXPECT_EQ(r.stats.at("favourite_children"), "5");
    EXPECT_EQ(r.stats.at("favourites_displaced_memory"), "1");
    EXPECT_EQ(r.stats.at("favourites_kept"), "4");
    EXPECT_NEAR(std::stod(r.stats.at("lp_makespan_s")), 6 * 55e-6, 1e-9);
}

TEST(BaechiSctPlacer, SaysWhichOpFitsNowhere) {
    app::register_all();
    const sim::Graph g = matmul_chain();
    const sim::Platform p = memory_platform(512 << 10, 512 << 10);  // 0.5 MiB each: no weight fits
    sim::AnalyticEvaluator evaluator(sim::EvalOptions{1});
    PlacementContext context{g, p, evaluator, Objective::latency, 1};
    const auto placer = PlacerRegistry::instance().create("baechi.m_sct");
    EXPECT_THAT([&] { placer->place(context); },
                ::testing::ThrowsMessage<PlacementError>(::testing::AllOf(
                    ::testing::HasSubstr("nothing fits: op '" + g.op(0).name + "'"),
                    ::testing::HasSubstr("of 524288 bytes free"))));
    EXPECT_THAT([&] { PlacerRegistry::instance().create("baechi.m_sct:x=1"); },
                ::testing::Throws<PlacementError>());
}

}  // namespace
}  // namespace hetsim::placement::baechi
