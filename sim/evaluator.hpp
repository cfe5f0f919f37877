// The Evaluator family: runs an ExecGraph and reports metrics (and optionally a trace).
// AnalyticEvaluator: list scheduling, links without contention (µs per call, for search).
// DesEvaluator: SystemC/TLM-2.0 simulation with per-direction link queues (the reference).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/exec_graph.hpp"
#include "sim/trace.hpp"

namespace hetsim::sim {

struct EvalOptions {
    // Samples injected for the throughput measurement (pipelined stream). 1 = latency only.
    int samples = 8;
    // Record the trace of the stream (every sample's slices, "#k" after the name of sample
    // k > 0) instead of the single-sample run, so a pipeline and its bottleneck show; the
    // arrows stay those of sample 0. For throughput studies.
    bool trace_stream = false;
};

// When one task of the single-sample run started and finished (relative to the run start).
// Profiling placers (lee2022 Algorithm 1) read node and edge costs from these.
struct TaskTiming {
    std::int64_t start_ps = 0;
    std::int64_t finish_ps = 0;
    double duration_s() const { return static_cast<double>(finish_ps - start_ps) * 1e-12; }
};

// Bytes resident in one component's memory (docs/DESIGN.md "Memory capacity").
struct MemoryUse {
    std::string component;
    std::string devices;              // the devices on it, for messages: "CPU_S, CPU_P"
    std::int64_t capacity_bytes = 0;  // 0 = unlimited
    std::int64_t peak_bytes = 0;      // weights + live activations at the worst instant
    std::string at_peak;              // the task whose allocation reached the peak
    bool exceeded() const { return capacity_bytes > 0 && peak_bytes > capacity_bytes; }
};

struct Metrics {
    double latency_s = 0.0;         // one sample alone: first dispatch -> last task done
    double throughput_per_s = 0.0;  // steady state of `samples` back-to-back samples
    int samples = 1;
    std::map<std::string, double> resource_busy_s;  // per resource slot process/thread
    std::map<std::string, double> link_bytes;       // per link direction "dma:cpu->pim"
    // Summed task durations of the single-sample run by kind ("compute", "convert",
    // "transfer"): lee2022 Fig. 11's computation and data-transfer costs. Under sequential
    // dispatch they add up to latency_s.
    std::map<std::string, double> time_by_kind_s;
    int tasks_executed = 0;
    std::vector<TaskTiming> task_timings;  // per ExecGraph task, single-sample run
    // Peak memory per component over the latency run and the throughput stream. A
    // placement whose peak exceeds a capacity is infeasible: its times are not numbers a
    // user may compare, and `infeasible_reason` says which memory overflowed and where.
    std::vector<MemoryUse> memory;
    bool feasible = true;
    std::string infeasible_reason;
};

class Evaluator {
public:
    virtual ~Evaluator() = default;
    virtual std::string name() const = 0;  // "analytic", "des"
    // Evaluates one sample for latency, then `samples` for throughput. With `trace`,
    // records the single-sample run's slices and flows.
    virtual Metrics evaluate(const ExecGraph& exec, Trace* trace = nullptr) = 0;
    int evaluations() const { return evaluations_; }

protected:
    int evaluations_ = 0;
};

class AnalyticEvaluator final : public Evaluator {
public:
    explicit AnalyticEvaluator(EvalOptions options = {}) : options_(options) {}
    std::string name() const override { return "analytic"; }
    Metrics evaluate(const ExecGraph& exec, Trace* trace = nullptr) override;

private:
    EvalOptions options_;
};

// Keeps its SystemC modules elaborated for the lifetime of the process (SystemC allows
// one elaboration per process) and replays ExecGraphs back to back with sc_start.
// Only one DesEvaluator may exist per process. SystemC stays out of this header.
class DesEvaluator final : public Evaluator {
public:
    explicit DesEvaluator(const Platform& platform, EvalOptions options = {});
    ~DesEvaluator() override;
    std::string name() const override { return "des"; }
    Metrics evaluate(const ExecGraph& exec, Trace* trace = nullptr) override;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
    EvalOptions options_;
};

std::unique_ptr<Evaluator> make_evaluator(const std::string& name, const Platform& platform,
                                          EvalOptions options);

}  // namespace hetsim::sim
