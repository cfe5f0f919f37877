// The list schedulers of the scheduling literature (issue 28), on any hetsim graph and
// platform:
//   heft  Topcuoglu, Hariri and Wu, "Performance-effective and low-complexity task scheduling
//         for heterogeneous computing", IEEE TPDS 13(3), 2002, §4.1: upward rank on mean costs,
//         insertion-based earliest finish time;
//   cpop  the same paper, §4.2: priority = upward + downward rank, the critical path on the one
//         processor that runs it fastest, the other tasks by insertion-based EFT;
//   peft  Arabnejad and Barbosa, "List scheduling algorithm for heterogeneous systems by an
//         optimistic cost table", IEEE TPDS 25(3), 2014, §3: the optimistic cost table (OCT),
//         rank = mean OCT over a ready list, processor = argmin EFT + OCT;
//   etf   Hwang, Chow, Anger and Lee, "Scheduling precedence graphs in systems with
//         interprocessor communication times", SIAM J. Comput. 18(2), 1989: the ready (task,
//         processor) pair that can start earliest.
// Processors are the platform's execution resources (docs/DESIGN.md "Schedules"): devices on
// one resource are modes of one processor (CPU_S and CPU_P), and a task's cost there is its
// fastest mode's, run in that mode. A task's cost on a processor is the device model's op time;
// an edge's cost between two processors is the transfer cost of the tensors it carries
// (sim/transfer_cost.hpp); on one processor it is 0. Graph inputs start on the host: a task
// that reads one cannot start before the input's transfer to its processor.
//
// Ties, pinned by tests: rank ties go to the lower op id, processor ties to the lower resource
// index; costs within 1e-9 (relative) of each other are ties, so that means computed in a
// different order do not break them differently.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "placement/placer.hpp"

namespace hetsim::placement::classic {

// The costs a list scheduler sees.
struct SchedulingProblem {
    int tasks = 0;
    int processors = 0;
    // [task][processor]: seconds, +infinity where no mode of the processor runs the task.
    std::vector<std::vector<double>> cost;
    // [task][processor]: the device (mode) that achieves cost, -1 where none.
    std::vector<std::vector<int>> device;
    struct Edge {
        int from = -1, to = -1;
        // [p * processors + q]: seconds to move the edge's tensors from p to q (0 when p == q).
        std::vector<double> comm;
        double mean_comm = 0.0;  // over distinct pairs p != q
    };
    std::vector<Edge> edges;
    std::vector<std::vector<int>> in_edges, out_edges;  // per task, edge indices
    // [task][processor]: the earliest its graph inputs are on the processor (0 if it reads none).
    std::vector<std::vector<double>> input_ready;

    double comm(const Edge& e, int p, int q) const {
        return e.comm[static_cast<std::size_t>(p * processors + q)];
    }
    double mean_cost(int task) const;  // over the processors that can run it
};

SchedulingProblem scheduling_problem(const sim::Graph& graph, const sim::Platform& platform);

// The literature's form: costs[task][processor] given, and edges {from, to, comm} that cost
// `comm` between any two distinct processors and 0 on one (an ideal network); no inputs.
struct GivenEdge {
    int from = -1, to = -1;
    double comm_s = 0.0;
};
SchedulingProblem scheduling_problem(const std::vector<std::vector<double>>& cost,
                                     const std::vector<GivenEdge>& edges);

// a < b beyond rounding (1e-9 relative): means summed in another order must not break a tie
// differently. Every list scheduler, Baechi's included, compares costs with these.
bool cost_less(double a, double b);
bool cost_equal(double a, double b);  // neither is cost_less than the other: a tie

// Topcuoglu et al. 2002 Eq. 7: makespan over the sum of the minimum costs along CP_MIN, the
// longest path when every task takes its minimum cost and edges cost nothing (a lower bound of
// any schedule's makespan, so SLR >= 1).
double schedule_length_ratio(const SchedulingProblem& problem, double makespan);

// A schedule: per task its processor and planned start and finish.
struct ListSchedule {
    std::vector<int> processor;
    std::vector<double> start, finish;
    std::vector<int> placed;  // tasks in the order the scheduler placed them
    double makespan() const;
};

std::vector<double> upward_rank(const SchedulingProblem& problem);
std::vector<double> downward_rank(const SchedulingProblem& problem);
// [task][processor]: Arabnejad and Barbosa's Eq. 5.
std::vector<std::vector<double>> optimistic_cost_table(const SchedulingProblem& problem);

ListSchedule heft(const SchedulingProblem& problem);
ListSchedule cpop(const SchedulingProblem& problem);
ListSchedule peft(const SchedulingProblem& problem);
// Memory to respect (Baechi, Jeon et al., SoCC 2020, §4): per processor a capacity (0 =
// unlimited); per task the bytes it keeps on its processor: its weights (each counted once per
// processor, in the dtype the processor's device holds them) and its outputs (kept for the
// whole run: an upper bound of what the run recorder sees, so a schedule that fits here fits
// there).
struct MemoryLimits {
    std::vector<std::int64_t> capacity;                              // [processor]
    std::vector<std::vector<std::int64_t>> output_bytes;             // [task][processor]
    std::vector<std::vector<std::pair<int, std::int64_t>>> weights;  // [task]: (tensor, bytes)
};
MemoryLimits memory_limits(const sim::Graph& graph, const sim::Platform& platform);

// With `limits` (Baechi's m-ETF): a (task, processor) pair is a candidate only when the task
// fits in what the processor has left; when no ready task fits anywhere, PlacementError names
// the task, what it needs and what each processor has left.
ListSchedule etf(const SchedulingProblem& problem, const MemoryLimits* limits = nullptr);

// A list schedule as a placement: each task on its processor's device (mode), each resource's
// tasks in planned-start order (ties in placement order, which respects the graph), the plan.
sim::Placement to_placement(const SchedulingProblem& problem, const ListSchedule& schedule);

enum class ListAlgorithm { heft, cpop, peft, etf };

class ListSchedulerPlacer final : public Placer {
public:
    ListSchedulerPlacer(ListAlgorithm algorithm, const std::string& arguments);
    std::string name() const override;
    PlacementResult place(const PlacementContext& context) override;
    static PlacerInfo info(ListAlgorithm algorithm);

private:
    ListAlgorithm algorithm_;
};

}  // namespace hetsim::placement::classic
