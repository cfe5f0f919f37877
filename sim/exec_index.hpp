// The fields of an ExecGraph that the evaluators' runs read, packed into flat arrays: lower()
// builds it once (ExecGraph::index) and every evaluation of that graph, both runs of measure()
// (the latency sample and the stream), the Dispatcher, the RunRecorder and each evaluator's
// event loop read it; an evaluator given an ExecGraph without one builds its own.
//
// Why: a Task is hundreds of bytes (a name, cost pieces, three heap-allocated lists), and the
// evaluators read a handful of its fields at scattered times, so each read was a cache miss
// (des_bench under perf: the largest cost after the SystemC kernel's own). Each consumer also
// walked the tasks once more to pack its own copy, and check_run_limits once more to sum the
// durations. Here one sequential pass reads every Task once; the runs touch 64-byte records
// and contiguous index lists.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/exec_graph.hpp"

namespace hetsim::sim {

struct ExecIndex {
    explicit ExecIndex(const ExecGraph& exec);

    struct TaskFacts {
        std::int64_t duration_ps;  // Task::duration_ps (the AnalyticEvaluator's)
        std::int64_t fixed_ps;     // Task::fixed_ps (the DES's fixed phase)
        std::int64_t flow_ps;      // Task::flow_ps
        std::int64_t bytes;        // Task::bytes
        // The flow phase alone (no other flow on its shared resources): its rate / its full
        // rate, and its length, max(1, round(flow_ps / alone_progress)) ps (the DES's solo
        // flows; 0 and 1.0 for a task without a flow phase). Fixed per graph, so computed here
        // once: per run it was a max-min fair share and a division per task.
        double alone_progress;
        std::int64_t alone_flow_ps;
        std::int32_t resource;      // Task::resource (slot)
        std::int32_t units;         // Task::units
        std::int32_t fills_buffer;  // Task::fills_buffer (-1: none)
        TaskKind kind;
        bool link_transfer;  // a transfer on a link slot (the trace's link counters)
        bool fills_unread;   // fills a buffer that no task reads (freed when it finishes)
        bool flows;          // a flow phase through shared resources (flow_ps > 0, shared)
    };
    struct BufferFacts {
        std::int64_t bytes;
        std::int32_t component;  // -1: not tracked (no component, or none of the platform's)
        std::int32_t readers;
        bool persistent;
    };

    static_assert(sizeof(TaskFacts) == 64, "one cache line per task");
    std::vector<TaskFacts> tasks;
    std::vector<BufferFacts> buffers;
    // Task t's successors successors[first_successor[t] .. first_successor[t + 1]), the
    // buffers it reads reads[first_read[t] ..], and of those the graph inputs (no producer:
    // resident from their first reader) input_reads[first_input[t] ..]; each in Task order.
    std::vector<std::int32_t> first_successor, successors;
    std::vector<std::int32_t> first_read, reads;
    std::vector<std::int32_t> first_input, input_reads;
    // The shared resources of task t's flow phase: shared[first_shared[t] ..].
    std::vector<std::int32_t> first_shared, shared;

    // Each task's predecessor count (Task::predecessor_count, contiguous: the Dispatcher
    // copies it per run), and the tasks with none, in Task order.
    std::vector<std::int32_t> predecessor_counts, sources;
    // The buffers resident before the first task (persistent, with no producer: the weights).
    std::vector<std::int32_t> resident_from_start;

    double duration_sum_ps = 0.0;  // Σ Task::duration_ps (check_run_limits)

    // The counts, kept: the runs ask per task, and buffers.size() divides by a 24-byte stride.
    std::size_t task_count() const { return task_count_; }
    std::size_t buffer_count() const { return buffer_count_; }
    // Whether it still describes `exec` (the same task and buffer counts: an ExecGraph is not
    // edited after lowering, see ExecGraph::index).
    bool matches(const ExecGraph& exec) const {
        return tasks.size() == exec.tasks.size() && buffers.size() == exec.buffers.size();
    }

private:
    std::size_t task_count_ = 0, buffer_count_ = 0;
};

}  // namespace hetsim::sim
