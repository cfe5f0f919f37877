// The dispatch policy both evaluators share: which ready task instances start on a resource
// slot when units free up. Time is not kept here: the AnalyticEvaluator advances it in a
// plain event loop, the DesEvaluator with SystemC events. Sharing the policy is what makes
// the two agree exactly wherever the DES sees no contention the analytic model ignores.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/exec_graph.hpp"
#include "sim/exec_index.hpp"

namespace hetsim::sim {

struct TaskInstance {
    int sample = 0;
    int task = 0;
    bool operator<(const TaskInstance& o) const {
        // Earlier samples first, then the lowering's (topological) order.
        return sample != o.sample ? sample < o.sample : task < o.task;
    }
    bool operator>(const TaskInstance& o) const { return o < *this; }
};

struct StartedTask {
    TaskInstance instance;
    int first_lane = 0;  // lanes [first_lane, first_lane + units) on its slot's tracks
};

class Dispatcher {
public:
    // `contention_free` (the AnalyticEvaluator): every link slot accepts any number of
    // concurrent transfers at full speed. Otherwise (the DES) a slot of a shared link
    // direction accepts any number too (the DES divides its bandwidth), and a `fifo` one
    // serves one transfer at a time (one DMA queue per direction).
    // `index` is exec's (ExecIndex), and must outlive the dispatcher.
    Dispatcher(const ExecGraph& exec, const ExecIndex& index, int samples, bool contention_free);

    // Starts every ready instance that fits, on each slot touched since the last call (every
    // slot at the first), in slot order and on each slot greedily in priority order. Writes
    // them to `started`, which it clears first (a buffer the caller reuses: no allocation per
    // instant once it has grown).
    void start_touched(std::vector<StartedTask>& started);
    // Marks an instance done and touches the slots that may now start something.
    void complete(const StartedTask& started);

    bool all_done() const { return done_ == total_; }
    int samples() const { return samples_; }

private:
    struct SlotState {
        int capacity = 1;  // < 0: unlimited
        int free_units = 1;
        std::vector<bool> lane_busy;
        // A binary min-heap on TaskInstance's priority (std::push_heap with std::greater):
        // O(log n) to make ready and to start the best. A std::set cost a node allocation per
        // insertion (a tenth of the DES's time in malloc and free, des_bench under perf), a
        // sorted vector a memmove per start.
        std::vector<TaskInstance> ready;
    };
    void make_ready(TaskInstance inst);
    void start_ready(int slot, std::vector<StartedTask>& started);
    int take_lanes(SlotState& slot, int units);

    int samples_;
    bool sequential_;
    std::vector<SlotState> slots_;
    std::vector<int> remaining_preds_;   // per sample * task
    std::vector<char> touched_;          // per slot: may start something (start_touched)
    std::vector<TaskInstance> skipped_;  // start_ready: ready but not fitting, put back
    // The tasks' slots, units and successors, packed (sim/exec_index.hpp).
    const ExecIndex* index_;
    std::int64_t done_ = 0, total_ = 0;
};

}  // namespace hetsim::sim
