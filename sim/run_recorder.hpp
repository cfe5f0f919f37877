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
    void release(std::size_t sample, int buffer, std::int64_t time_ps);
    void add_trace_counters();

    const ExecGraph& exec_;
    const ExecIndex& index_;  // the fields on_start/on_finish read, packed
    Trace* trace_;
    std::vector<std::int64_t> start_ps_;  // per sample * task
    std::vector<std::int64_t> sample_finish_ps_;
    std::vector<int> first_slice_;     // per task of sample 0 (trace)
    std::vector<double> busy_s_;       // per slot
    std::vector<std::int64_t> bytes_;  // per slot
    std::vector<TaskTiming> timings_;  // per task of sample 0
    std::array<double, 3> kind_s_{};   // summed durations of sample 0 by TaskKind
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

}  // namespace hetsim::sim
