// Turns the start/finish times of task instances into Metrics and a Trace. Both evaluators
// feed it the same way, so their outputs differ only where their timing does.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/dispatch.hpp"
#include "sim/evaluator.hpp"

namespace hetsim::sim {

class RunRecorder {
public:
    // `index` is exec's (ExecIndex), and must outlive the recorder.
    RunRecorder(const ExecGraph& exec, const ExecIndex& index, int samples, Trace* trace);
    const ExecIndex& index() const { return index_; }
    void on_start(const StartedTask& started, std::int64_t time_ps);
    void on_finish(const StartedTask& started, std::int64_t time_ps);
    // Completion time of the last task of each sample, relative to the run's start.
    std::vector<std::int64_t> sample_finish_ps() const { return sample_finish_ps_; }
    std::int64_t makespan_ps() const;
    // Fills latency-run facts (latency, busy time, bytes) and adds flows to the trace.
    void finish_latency_run(Metrics& metrics);
    // Adds the flows (producer -> transfer -> consumer arrows of sample 0) and the counter
    // tracks (memory occupancy per component, utilisation and throughput per link direction)
    // to the trace.
    void finish_trace();
    int tasks_finished() const { return finished_; }
    // Folds this run's peak memory into metrics.memory (the larger peak wins) and sets
    // metrics.feasible / infeasible_reason.
    void merge_memory(Metrics& metrics) const;

private:
    void allocate(std::size_t sample, int buffer, int task, std::int64_t time_ps);
    void record_slice(const StartedTask& started, std::int64_t start_ps, std::int64_t finish_ps);
    void release(int buffer, std::int64_t time_ps);
    void add_trace_counters();

    const ExecGraph& exec_;
    const ExecIndex& index_;  // the fields on_start/on_finish read, packed
    Trace* trace_;
    std::vector<std::int64_t> start_ps_;  // per sample * task
    std::vector<std::int64_t> sample_finish_ps_;
    std::vector<int> first_slice_;  // per task of sample 0 (with a trace; empty without)
    // Busy time per slot and durations of sample 0 by TaskKind, summed in whole picoseconds
    // (exact, and an integer add per task) and converted to seconds once.
    std::vector<std::int64_t> busy_ps_;  // per slot
    std::vector<std::int64_t> bytes_;    // per slot
    std::vector<TaskTiming> timings_;    // per task of sample 0
    std::array<std::int64_t, 3> kind_ps_{};
    int finished_ = 0;
    // Memory: per sample * buffer, readers still to finish (-1 = not allocated yet).
    std::vector<int> readers_left_;
    std::vector<std::int64_t> resident_;  // per component, now
    std::vector<std::int64_t> peak_;      // per component
    std::vector<int> peak_task_;          // per component: task that reached the peak
    // For the trace's counter tracks (only with a trace): every change of a component's
    // resident bytes, and every transfer on a link direction.
    struct MemoryChange {
        std::int64_t time_ps;
        int component;
        std::int64_t resident;
    };
    struct LinkTransfer {
        int resource;
        std::int64_t start_ps, finish_ps, bytes;
    };
    std::vector<MemoryChange> memory_changes_;
    std::vector<LinkTransfer> link_transfers_;
};

// The measurement both evaluators make: after checking the run's limits, one sample alone
// (latency, trace, task timings), then `options.samples` back to back (throughput) unless it
// is 1; peak memory over both. With options.trace_stream the trace is the stream's.
// `run(samples, recorder)` simulates the ExecGraph.
Metrics measure(const ExecGraph& exec, const EvalOptions& options, Trace* trace,
                const std::function<void(int samples, RunRecorder& recorder)>& run);

// Steady-state throughput from per-sample completion times: (N-1) samples over the span
// between the first and the last completion; 1/latency for a single sample.
double throughput_from_finishes(std::vector<std::int64_t> finish_ps);

// The per-task hot path, inline: both evaluators call it once or more per task.

inline void RunRecorder::allocate(std::size_t sample, int buffer, int task, std::int64_t time_ps) {
    const ExecIndex::BufferFacts& b = index_.buffers[static_cast<std::size_t>(buffer)];
    if (b.component < 0)
        return;
    int& left = readers_left_[sample * index_.buffer_count() + static_cast<std::size_t>(buffer)];
    if (left >= 0)
        return;  // already resident
    left = b.readers;
    const auto c = static_cast<std::size_t>(b.component);
    resident_[c] += b.bytes;
    if (resident_[c] > peak_[c]) {
        peak_[c] = resident_[c];
        peak_task_[c] = task;
    }
    if (trace_ != nullptr)
        memory_changes_.push_back({time_ps, b.component, resident_[c]});
}

inline void RunRecorder::release(int buffer, std::int64_t time_ps) {
    const ExecIndex::BufferFacts& b = index_.buffers[static_cast<std::size_t>(buffer)];
    if (b.persistent || b.component < 0)
        return;
    const auto c = static_cast<std::size_t>(b.component);
    resident_[c] -= b.bytes;
    if (trace_ != nullptr)
        memory_changes_.push_back({time_ps, b.component, resident_[c]});
}

inline void RunRecorder::on_start(const StartedTask& started, std::int64_t time_ps) {
    const std::size_t n = index_.task_count();
    const auto sample = static_cast<std::size_t>(started.instance.sample);
    const auto t = static_cast<std::size_t>(started.instance.task);
    start_ps_[sample * n + t] = time_ps;
    // A task's output occupies memory from its start; a graph input from its first reader.
    for (std::int32_t i = index_.first_input[t]; i < index_.first_input[t + 1]; ++i)
        allocate(sample, index_.input_reads[static_cast<std::size_t>(i)], started.instance.task,
                 time_ps);
    if (const int fills = index_.tasks[t].fills_buffer; fills >= 0)
        allocate(sample, fills, started.instance.task, time_ps);
}

inline void RunRecorder::on_finish(const StartedTask& started, std::int64_t time_ps) {
    const std::size_t n = index_.task_count();
    const auto sample = static_cast<std::size_t>(started.instance.sample);
    const auto task_index = static_cast<std::size_t>(started.instance.task);
    const ExecIndex::TaskFacts& task = index_.tasks[task_index];
    ++finished_;
    sample_finish_ps_[sample] = std::max(sample_finish_ps_[sample], time_ps);
    // Free every buffer whose last reader this was, and an output nobody reads.
    int* const left_of_sample = readers_left_.data() + sample * index_.buffer_count();
    for (std::int32_t i = index_.first_read[task_index]; i < index_.first_read[task_index + 1];
         ++i) {
        const int b = index_.reads[static_cast<std::size_t>(i)];
        int& left = left_of_sample[b];
        if (left > 0 && --left == 0)
            release(b, time_ps);
    }
    if (task.fills_unread)
        release(task.fills_buffer, time_ps);
    const std::int64_t start = start_ps_[sample * n + task_index];
    if (trace_ != nullptr && task.link_transfer)
        link_transfers_.push_back({task.resource, start, time_ps, task.bytes});
    if (sample != 0) {
        if (trace_ != nullptr)
            record_slice(started, start, time_ps);
        return;
    }
    timings_[task_index] = TaskTiming{start, time_ps};
    busy_ps_[static_cast<std::size_t>(task.resource)] += time_ps - start;
    kind_ps_[static_cast<std::size_t>(task.kind)] += time_ps - start;
    if (task.kind == TaskKind::transfer)
        bytes_[static_cast<std::size_t>(task.resource)] += task.bytes;
    if (trace_ != nullptr)
        record_slice(started, start, time_ps);
}

}  // namespace hetsim::sim
