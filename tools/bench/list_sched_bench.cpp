// List schedulers (placement/classic/list_scheduling.hpp), issue 28:
//  1. speed: HEFT and PEFT on a 10,000-task random graph on 8 processors (goal: under 1 s),
//     against the upward rank alone in the same run (the O(e) floor every rank-based scheduler
//     pays);
//  2. Topcuoglu et al. 2002 Fig. 5 in kind: the average schedule length ratio (Eq. 7) of HEFT,
//     CPOP, PEFT and ETF against CCR on random graphs, and Arabnejad and Barbosa 2014's
//     comparison: how often and by how much PEFT's makespan beats HEFT's.
// Run: build/release/list_sched_bench   (HETSIM_BENCH=ON)
#include <fmt/format.h>

#include <chrono>
#include <vector>

#include "placement/classic/list_scheduling.hpp"
#include "sim/workloads/random_taskgraph.hpp"

namespace {

using hetsim::placement::classic::GivenEdge;
using hetsim::placement::classic::SchedulingProblem;
namespace classic = hetsim::placement::classic;

SchedulingProblem problem_of(const hetsim::sim::workloads::RandomTaskGraph& g) {
    std::vector<GivenEdge> edges;
    for (const auto& e : g.edges)
        edges.push_back({e.from, e.to, e.comm_s});
    return classic::scheduling_problem(g.cost, edges);
}

template <typename F>
double seconds(F f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main() {
    // 1. Speed.
    hetsim::sim::workloads::RandomTaskGraphConfig big;
    big.tasks = 10'000;
    big.processors = 8;
    big.density = 0.05;
    big.ccr = 1.0;
    const SchedulingProblem p = problem_of(hetsim::sim::workloads::random_taskgraph(big));
    const double rank_s = seconds([&] { (void)classic::upward_rank(p); });
    double heft_makespan = 0.0, peft_makespan = 0.0;
    const double heft_s = seconds([&] { heft_makespan = classic::heft(p).makespan(); });
    const double peft_s = seconds([&] { peft_makespan = classic::peft(p).makespan(); });
    fmt::print("10,000 tasks, {} edges, 8 processors:\n", p.edges.size());
    fmt::print("  upward rank alone {:.3f} s; heft {:.3f} s ({:.1f}x), peft {:.3f} s ({:.1f}x)\n",
               rank_s, heft_s, heft_s / rank_s, peft_s, peft_s / rank_s);
    fmt::print("  makespans: heft {:.4g}, peft {:.4g}\n\n", heft_makespan, peft_makespan);

    // 2. SLR against CCR (Topcuoglu §5.1's random graphs: v = 100 tasks, q = 4 processors,
    // beta = 1, 100 graphs per CCR).
    fmt::print("average SLR (Topcuoglu Eq. 7), 100 tasks, 4 processors, beta 1, 100 graphs each\n");
    fmt::print(
        "{:>6} {:>8} {:>8} {:>8} {:>8}   peft vs heft: better/equal/worse, mean makespan "
        "ratio\n",
        "CCR", "heft", "cpop", "peft", "etf");
    for (double ccr : {0.1, 0.5, 1.0, 5.0, 10.0}) {
        double slr[4] = {0, 0, 0, 0};
        int better = 0, equal = 0, worse = 0;
        double ratio = 0.0;
        constexpr int kGraphs = 100;
        for (int k = 0; k < kGraphs; ++k) {
            hetsim::sim::workloads::RandomTaskGraphConfig c;
            c.tasks = 100;
            c.processors = 4;
            c.beta = 1.0;
            c.ccr = ccr;
            c.seed = static_cast<std::uint64_t>(1000 + k);
            const SchedulingProblem q = problem_of(hetsim::sim::workloads::random_taskgraph(c));
            const double m[4] = {classic::heft(q).makespan(), classic::cpop(q).makespan(),
                                 classic::peft(q).makespan(), classic::etf(q).makespan()};
            for (int a = 0; a < 4; ++a)
                slr[a] += classic::schedule_length_ratio(q, m[a]) / kGraphs;
            better += m[2] < m[0] * (1 - 1e-12);
            worse += m[2] > m[0] * (1 + 1e-12);
            equal += !(m[2] < m[0] * (1 - 1e-12)) && !(m[2] > m[0] * (1 + 1e-12));
            ratio += m[2] / m[0] / kGraphs;
        }
        fmt::print("{:>6.1f} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.3f}   {}/{}/{}, {:.3f}\n", ccr, slr[0],
                   slr[1], slr[2], slr[3], better, equal, worse, ratio);
    }
    return 0;
}
