// Baechi's m-SCT (Jeon, Hong, Chen, Wang, Gupta, "Baechi: fast device placement of machine
// learning graphs", ACM SoCC 2020, §4.3): the "small communication times" scheduler of Hanen and
// Munier (1995) made to respect memory.
//
// SCT's idea is the favourite child: a task and one of its children that run back to back on
// one processor pay no transfer. Which child is decided by an LP (Hanen and Munier's ILP with
// its integrality relaxed), solved here on CBC (placement/tarnawski/ip/cbc_mip.hpp; every
// column is continuous, so CBC solves the LP and nothing more):
//   minimise w
//   s.t.  s_j >= s_i + p_i + c_ij x_ij      every edge (i, j)
//         sum_j x_ij >= |succ(i)| - 1       every task with successors (<= 1 favourite child)
//         sum_i x_ij >= |pred(j)| - 1       every task with predecessors (<= 1 favourite parent)
//         s_i + p_i <= w                    every task (only sinks need it: the rest follows)
//         s_i >= 0, 0 <= x_ij <= 1
// x_ij = 0 makes j the favourite child of i. SCT assumes identical processors (Baechi's GPUs
// are): p_i is the task's mean cost over the processors that can run it and c_ij the edge's
// mean transfer cost over distinct processor pairs (SchedulingProblem::mean_cost and
// Edge::mean_comm, as HEFT's ranks use them), so heterogeneous costs enter by their means.
//
// Then list scheduling (§4.3), ETF with memory (classic::etf with MemoryLimits, whose steps and
// ties m-SCT keeps) plus SCT's urgency: when a task's favourite child becomes ready while the
// parent is still the last task of its processor q, the child runs next on q (right after the
// parent, or when its other inputs arrive) if q can run it and it fits in what q has left.
// Otherwise the child is scheduled like any other task. Why not reserve q until the child is
// ready: q would idle for a child whose other parents are not placed yet (Baechi's own
// implementation also lets a device wait only for a favourite child that is ready), and the
// reservation could deadlock when those parents can run or fit only on q. Unlike Baechi's
// implementation, the child is urgent on q even where another processor could start it
// earlier: SCT's LP already priced its other inputs' transfers.
#pragma once

#include <string>
#include <vector>

#include "placement/classic/list_scheduling.hpp"

namespace hetsim::placement::baechi {

// The favourite-child LP's solution and its rounding.
struct FavouriteChildren {
    std::vector<double> x;    // per edge of SchedulingProblem::edges: the LP's x_ij in [0, 1]
    std::vector<int> child;   // per task: its favourite child, -1 if none
    std::vector<int> parent;  // per task: the task whose favourite child it is, -1 if none
    double makespan_s = 0.0;  // the LP's objective w, seconds: a lower bound of SCT's model
    int count() const;        // favourite (parent, child) pairs
};

// Solves the LP in two passes: the least w, then, among the solutions with that w, the one
// with the least transfer sum_ij c_ij x_ij (the LP leaves x free off the critical paths; this
// keeps as favourites the heaviest edges there instead of whatever vertex the simplex ends at).
// Rounding: x_ij <= 1/2 (1e-6 tolerance) makes j the favourite of i. Hanen and Munier round
// x < 1/2; an exact 1/2, which a symmetric fork's LP optimum is, is rounded to favourite as
// Baechi's rounding does (Python's round(0.5) = 0), so that such a fork keeps one. Where that
// gives a task two favourite children or a child two favourite parents, the edge with the lower
// parent id, then the lower child id, wins. Times are scaled for CBC (its tolerances are
// absolute) and w is given back in seconds. Throws PlacementError when CBC finds no solution.
// The LP has a column per edge and per task and runs without a time limit: well under a second
// on this repository's DNN graphs (up to 2,000 ops and 2,500 edges), but Clp's simplex slows
// down quickly on dense graphs (a random 2,000-task graph with 9,700 edges: about 30 s).
FavouriteChildren favourite_children(const classic::SchedulingProblem& problem);

// What became of a task as a favourite child.
enum class FavouriteOutcome {
    none,       // it is no task's favourite child
    kept,       // it ran next on its parent's processor
    incapable,  // the parent's processor cannot run it
    no_memory,  // it did not fit in what the parent's processor had left when it became ready
    taken,      // the parent's processor got another task before the child became ready
};
const char* to_string(FavouriteOutcome outcome);

// m-SCT: favourite_children(problem), then the list scheduling above. With `limits`, a task
// goes only where it fits; when no ready task fits anywhere, PlacementError names it ("nothing
// fits: task 3 ..." or, with `names`, "op 'x' ..."), what it needs and what each processor has
// left. Ties as classic::etf: earlier start, higher upward rank, lower op id, lower processor.
classic::ListSchedule m_sct(const classic::SchedulingProblem& problem,
                            const classic::MemoryLimits* limits = nullptr);

// The same with the favourite children given (tests, or a placer that reports the LP): each
// task's outcome goes to `outcomes` when given; `names` (per task) names tasks in errors.
// With no favourite children this is classic::etf(problem, limits), step for step.
classic::ListSchedule m_sct(const classic::SchedulingProblem& problem,
                            const FavouriteChildren& favourites,
                            const classic::MemoryLimits* limits,
                            std::vector<FavouriteOutcome>* outcomes = nullptr,
                            const std::vector<std::string>* names = nullptr);

}  // namespace hetsim::placement::baechi
