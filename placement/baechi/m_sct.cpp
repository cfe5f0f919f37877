#include "placement/baechi/m_sct.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

#include "placement/tarnawski/ip/cbc_mip.hpp"

namespace hetsim::placement::baechi {

namespace {

using classic::ListSchedule;
using classic::MemoryLimits;
using classic::SchedulingProblem;
// The list schedulers' tie tolerance, so that m-SCT breaks ties exactly as m-ETF.
using classic::cost_equal;
using classic::cost_less;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::size_t at(int i) {
    return static_cast<std::size_t>(i);
}

// The LP's columns: x per edge, s per task, then w.
struct LpColumns {
    std::vector<int> x, s;
    int w = -1;
};

}  // namespace

int FavouriteChildren::count() const {
    return static_cast<int>(
        std::count_if(child.begin(), child.end(), [](int c) { return c >= 0; }));
}

const char* to_string(FavouriteOutcome outcome) {
    switch (outcome) {
        case FavouriteOutcome::none:
            return "none";
        case FavouriteOutcome::kept:
            return "kept";
        case FavouriteOutcome::incapable:
            return "incapable";
        case FavouriteOutcome::no_memory:
            return "no_memory";
        case FavouriteOutcome::taken:
            return "taken";
    }
    return "none";
}

// --- the favourite-child LP (Hanen and Munier 1995; Baechi §4.3) ------------------------------

FavouriteChildren favourite_children(const SchedulingProblem& p) {
    FavouriteChildren f;
    f.child.assign(at(p.tasks), -1);
    f.parent.assign(at(p.tasks), -1);
    f.x.assign(p.edges.size(), 1.0);
    if (p.tasks == 0)
        return f;

    // p_i and c_ij: means (SCT's processors are identical; see the header).
    std::vector<double> cost(at(p.tasks)), comm(p.edges.size());
    for (int t = 0; t < p.tasks; ++t) {
        cost[at(t)] = p.mean_cost(t);
        if (!std::isfinite(cost[at(t)]))
            throw PlacementError(fmt::format("m-SCT: task {} runs on no processor", t));
    }
    for (std::size_t e = 0; e < p.edges.size(); ++e)
        comm[e] = std::isfinite(p.edges[e].mean_comm) ? p.edges[e].mean_comm : 0.0;
    // CBC's tolerances are absolute (1e-7): seconds of a few microseconds would drown in them.
    // In units of the largest cost every p and c is at most 1, and w at most tasks + edges.
    double scale = 0.0;
    for (double c : cost)
        scale = std::max(scale, c);
    for (double c : comm)
        scale = std::max(scale, c);
    if (!(scale > 0.0))
        scale = 1.0;

    tarnawski::MipModel lp;
    LpColumns col;
    for (std::size_t e = 0; e < p.edges.size(); ++e)
        col.x.push_back(
            lp.add_continuous(0.0, 1.0, fmt::format("x_{}_{}", p.edges[e].from, p.edges[e].to)));
    for (int t = 0; t < p.tasks; ++t)
        col.s.push_back(lp.add_continuous(0.0, tarnawski::kMipInfinity, fmt::format("s_{}", t)));
    col.w = lp.add_continuous(0.0, tarnawski::kMipInfinity, "w", 1.0);
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
        // s_j - s_i - c_ij x_ij >= p_i
        const auto& edge = p.edges[e];
        lp.add_ge(
            {{col.s[at(edge.to)], 1.0}, {col.s[at(edge.from)], -1.0}, {col.x[e], -comm[e] / scale}},
            cost[at(edge.from)] / scale);
    }
    for (int t = 0; t < p.tasks; ++t) {
        const auto& out = p.out_edges[at(t)];
        const auto& in = p.in_edges[at(t)];
        if (out.size() > 1) {  // one successor: x <= 1 says it already
            tarnawski::MipModel::Terms terms;
            for (int e : out)
                terms.push_back({col.x[at(e)], 1.0});
            lp.add_ge(terms, static_cast<double>(out.size()) - 1.0);
        }
        if (in.size() > 1) {
            tarnawski::MipModel::Terms terms;
            for (int e : in)
                terms.push_back({col.x[at(e)], 1.0});
            lp.add_ge(terms, static_cast<double>(in.size()) - 1.0);
        }
        if (out.empty())  // w - s_i >= p_i (for the other tasks it follows from the edges)
            lp.add_ge({{col.w, 1.0}, {col.s[at(t)], -1.0}}, cost[at(t)] / scale);
    }

    const auto solve = [&](const char* pass) {
        tarnawski::MipResult r = tarnawski::solve_mip(lp);
        if (!r.has_solution())
            throw PlacementError(fmt::format(
                "m-SCT: CBC found no solution of the favourite-child LP ({} pass: {}{}{})", pass,
                tarnawski::to_string(r.status), r.error.empty() ? "" : ": ", r.error));
        return r;
    };
    const tarnawski::MipResult first = solve("makespan");
    const double w = first.solution[at(col.w)];
    f.makespan_s = w * scale;
    std::vector<double> x;
    for (int c : col.x)
        x.push_back(first.solution[at(c)]);
    // Second pass: w stays at its optimum, the transfer is minimised.
    if (std::any_of(comm.begin(), comm.end(), [](double c) { return c > 0.0; })) {
        lp.set_cost(col.w, 0.0);
        for (std::size_t e = 0; e < p.edges.size(); ++e)
            lp.set_cost(col.x[e], comm[e] / scale);
        lp.add_le({{col.w, 1.0}}, w + 1e-9 * std::max(1.0, std::abs(w)));
        const tarnawski::MipResult second = tarnawski::solve_mip(lp);
        if (second.has_solution()) {
            for (std::size_t e = 0; e < p.edges.size(); ++e)
                x[e] = second.solution[at(col.x[e])];
        }  // else: keep the first pass's x (a valid LP optimum)
    }
    for (std::size_t e = 0; e < p.edges.size(); ++e)
        f.x[e] = std::clamp(x[e], 0.0, 1.0);

    // Rounding: x <= 1/2 is favourite; conflicts go to the lower parent id, then child id.
    std::vector<std::tuple<int, int, std::size_t>> favourite;
    for (std::size_t e = 0; e < p.edges.size(); ++e) {
        if (f.x[e] <= 0.5 + 1e-6)
            favourite.emplace_back(p.edges[e].from, p.edges[e].to, e);
    }
    std::sort(favourite.begin(), favourite.end());
    for (const auto& [from, to, e] : favourite) {
        if (from == to || f.child[at(from)] >= 0 || f.parent[at(to)] >= 0)
            continue;
        f.child[at(from)] = to;
        f.parent[at(to)] = from;
    }
    return f;
}

// --- the list scheduling (Baechi §4.3) ---------------------------------------------------------

ListSchedule m_sct(const SchedulingProblem& p, const MemoryLimits* limits) {
    return m_sct(p, favourite_children(p), limits);
}

ListSchedule m_sct(const SchedulingProblem& p, const FavouriteChildren& fav,
                   const MemoryLimits* limits, std::vector<FavouriteOutcome>* outcomes,
                   const std::vector<std::string>* names) {
    const auto n = at(p.tasks);
    const auto P = at(p.processors);
    if (fav.child.size() != n || fav.parent.size() != n)
        throw std::invalid_argument(fmt::format(
            "m-SCT: favourite children for {} tasks, the problem has {}", fav.parent.size(), n));
    const std::vector<double> level = classic::upward_rank(p);  // ETF's tie rule

    ListSchedule s;
    s.processor.assign(n, -1);
    s.start.assign(n, 0.0);
    s.finish.assign(n, 0.0);
    std::vector<bool> done(n, false);
    std::vector<int> waiting(n, 0);  // unplaced predecessors
    for (std::size_t t = 0; t < n; ++t)
        waiting[t] = static_cast<int>(p.in_edges[t].size());
    std::vector<int> last(P, -1);            // each processor's last task
    std::vector<double> free_at(P, 0.0);     // and when it finishes
    std::vector<std::int64_t> used(P, 0);    // bytes
    std::vector<std::set<int>> resident(P);  // weights already on each processor
    if (outcomes)
        outcomes->assign(n, FavouriteOutcome::none);

    const auto cost = [&](int t, int q) { return p.cost[at(t)][at(q)]; };
    // When all of t's inputs can be on q, then when q is free (ETF: no insertion).
    const auto start_on = [&](int t, int q) {
        double ready = p.input_ready[at(t)][at(q)];
        for (int e : p.in_edges[at(t)]) {
            const auto& edge = p.edges[at(e)];
            ready = std::max(ready,
                             s.finish[at(edge.from)] + p.comm(edge, s.processor[at(edge.from)], q));
        }
        return std::max(ready, free_at[at(q)]);
    };
    const auto needs = [&](int t, int q) {
        std::int64_t bytes = limits->output_bytes[at(t)][at(q)];
        for (const auto& [tensor, size] : limits->weights[at(t)]) {
            if (!resident[at(q)].count(tensor))
                bytes += size;
        }
        return bytes;
    };
    const auto fits = [&](int t, int q) {
        if (!limits)
            return true;
        const std::int64_t cap = limits->capacity[at(q)];
        return cap <= 0 || used[at(q)] + needs(t, q) <= cap;
    };
    const auto name = [&](int t) {
        return names && at(t) < names->size() ? fmt::format("op '{}'", (*names)[at(t)])
                                              : fmt::format("task {}", t);
    };
    std::vector<int> ready;  // kept sorted: the scans go by op id
    for (int t = 0; t < p.tasks; ++t) {
        if (waiting[at(t)] == 0)
            ready.push_back(t);
    }
    // A ready favourite child's fate, decided when it becomes ready (the state it is judged by
    // does not change before it is placed: urgent tasks go first, each on its own processor).
    const auto outcome = [&](int t) {
        const int parent = fav.parent[at(t)];
        if (parent < 0 || !done[at(parent)])
            return FavouriteOutcome::none;
        const int q = s.processor[at(parent)];
        if (std::isinf(cost(t, q)))
            return FavouriteOutcome::incapable;
        if (last[at(q)] != parent)
            return FavouriteOutcome::taken;
        if (!fits(t, q))
            return FavouriteOutcome::no_memory;
        return FavouriteOutcome::kept;
    };
    // SCT's urgency: a ready favourite child whose parent is still its processor's last task,
    // where the child can run and fits. One per processor at most; the earliest start first.
    const auto urgent_on = [&](int t) {
        return outcome(t) == FavouriteOutcome::kept ? s.processor[at(fav.parent[at(t)])] : -1;
    };
    const auto place = [&](int t, int q, double start) {
        s.processor[at(t)] = q;
        s.start[at(t)] = start;
        s.finish[at(t)] = start + cost(t, q);
        s.placed.push_back(t);
        done[at(t)] = true;
        last[at(q)] = t;
        free_at[at(q)] = s.finish[at(t)];
        if (limits) {
            used[at(q)] += needs(t, q);
            for (const auto& [tensor, size] : limits->weights[at(t)])
                resident[at(q)].insert(tensor);
        }
        ready.erase(std::find(ready.begin(), ready.end(), t));
        for (int e : p.out_edges[at(t)]) {
            const int to = p.edges[at(e)].to;
            if (--waiting[at(to)] == 0) {
                ready.insert(std::upper_bound(ready.begin(), ready.end(), to), to);
                if (outcomes)
                    (*outcomes)[at(to)] = outcome(to);
            }
        }
    };

    for (std::size_t step = 0; step < n; ++step) {
        int best_t = -1, best_q = -1;
        double best_start = kInf;
        for (int t : ready) {
            const int q = urgent_on(t);
            if (q < 0)
                continue;
            const double start = start_on(t, q);
            if (best_t < 0 || cost_less(start, best_start)) {
                best_t = t;
                best_q = q;
                best_start = start;
            }
        }
        if (best_t >= 0) {
            place(best_t, best_q, best_start);
            continue;
        }
        // m-ETF (classic::etf with limits): the ready (task, processor) pair that starts
        // earliest among those where the task fits; ties to the higher upward rank, then the
        // lower task id, then the lower processor index.
        int blocked = -1;
        for (int t : ready) {
            for (int q = 0; q < p.processors; ++q) {
                if (std::isinf(cost(t, q)))
                    continue;
                if (!fits(t, q)) {
                    blocked = blocked < 0 ? t : blocked;
                    continue;
                }
                const double start = start_on(t, q);
                const bool better = best_t < 0 || cost_less(start, best_start) ||
                                    (cost_equal(start, best_start) &&
                                     (cost_less(level[at(best_t)], level[at(t)]) ||
                                      (cost_equal(level[at(best_t)], level[at(t)]) && t < best_t)));
                if (better) {
                    best_t = t;
                    best_q = q;
                    best_start = start;
                }
            }
        }
        if (best_t < 0) {
            if (blocked < 0)  // no ready task runs anywhere (a problem given with such a row)
                throw PlacementError(fmt::format("m-SCT: {} runs on no processor",
                                                 ready.empty() ? "a task" : name(ready.front())));
            std::vector<std::string> left;
            for (int q = 0; q < p.processors; ++q) {
                left.push_back(fmt::format("{}: {} of {} bytes free, it needs {}", q,
                                           limits->capacity[at(q)] - used[at(q)],
                                           limits->capacity[at(q)], needs(blocked, q)));
            }
            throw PlacementError(fmt::format("nothing fits: {} fits in no processor's memory ({})",
                                             name(blocked), fmt::join(left, "; ")));
        }
        place(best_t, best_q, best_start);
    }
    return s;
}

}  // namespace hetsim::placement::baechi
