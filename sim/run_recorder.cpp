#include "sim/run_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace hetsim::sim {

RunRecorder::RunRecorder(const ExecGraph& exec, const ExecIndex& index, int samples, Trace* trace)
    : exec_(exec),
      index_(index),
      trace_(trace),
      start_ps_(exec.tasks.size() * static_cast<std::size_t>(samples), 0),
      sample_finish_ps_(static_cast<std::size_t>(samples), 0),
      first_slice_(trace != nullptr ? exec.tasks.size() : 0, -1),
      busy_ps_(exec.resources.size(), 0),
      bytes_(exec.resources.size(), 0),
      timings_(exec.tasks.size()),
      readers_left_(exec.buffers.size() * static_cast<std::size_t>(samples), -1) {
    const std::size_t components =
        exec.platform != nullptr ? exec.platform->components().size() : 0;
    resident_.assign(components, 0);
    peak_.assign(components, 0);
    peak_task_.assign(components, -1);
    // Weights are resident from the start, once for every sample.
    for (const std::int32_t b : index.resident_from_start)
        allocate(0, b, -1, 0);
}

namespace {

std::string lane_thread(const ExecResourceSlot& slot, int lane) {
    if (slot.is_link)
        return lane == 0 ? slot.thread : fmt::format("{} #{}", slot.thread, lane);
    if (slot.capacity == 1)
        return slot.thread;
    return fmt::format("core{}", lane);
}

}  // namespace

void RunRecorder::record_slice(const StartedTask& started, std::int64_t start,
                               std::int64_t time_ps) {
    const auto task_index = static_cast<std::size_t>(started.instance.task);
    const Task& task = exec_.tasks[task_index];
    const int sample = started.instance.sample;
    const ExecResourceSlot& slot = exec_.resources[static_cast<std::size_t>(task.resource)];
    TraceSlice slice;
    slice.name = sample == 0 ? task.name : fmt::format("{} #{}", task.name, sample);
    slice.category = std::string(to_string(task.kind));
    slice.start_s = static_cast<double>(start) * kSecondsPerPs;
    slice.duration_s = static_cast<double>(time_ps - start) * kSecondsPerPs;
    if (exec_.platform != nullptr && task.device >= 0) {
        slice.args.emplace_back("device", exec_.platform->device(task.device).name);
    }
    if (exec_.graph != nullptr && task.op >= 0) {
        const Op& op = exec_.graph->op(task.op);
        slice.args.emplace_back("op_type", op.type);
        std::vector<std::string> shapes;
        for (int t : op.inputs)
            shapes.push_back(to_string(exec_.graph->tensor(t).shape));
        slice.args.emplace_back("input_shapes", fmt::format("{}", fmt::join(shapes, " ")));
        shapes.clear();
        for (int t : op.outputs)
            shapes.push_back(to_string(exec_.graph->tensor(t).shape));
        slice.args.emplace_back("output_shapes", fmt::format("{}", fmt::join(shapes, " ")));
        slice.args.emplace_back("flops", fmt::format("{:.0f}", op.flops));
        slice.args.emplace_back("bytes_read", std::to_string(op.bytes_read));
    }
    if (exec_.graph != nullptr && task.tensor >= 0) {
        const Tensor& t = exec_.graph->tensor(task.tensor);
        slice.args.emplace_back("tensor", t.name);
        slice.args.emplace_back("shape", to_string(t.shape));
    }
    slice.args.emplace_back("bytes", std::to_string(task.bytes));
    if (task.planned_start_ps >= 0 && sample == 0) {
        // The placer's plan (a Schedule with planned times): a task that started later than
        // planned is marked, in its category and by how much.
        slice.args.emplace_back(
            "planned_start_s",
            fmt::format("{:.9g}", static_cast<double>(task.planned_start_ps) * kSecondsPerPs));
        if (start > task.planned_start_ps) {
            slice.category += ",late";
            slice.args.emplace_back(
                "late_by_s",
                fmt::format("{:.9g}",
                            static_cast<double>(start - task.planned_start_ps) * kSecondsPerPs));
        }
    }
    if (sample > 0)
        slice.args.emplace_back("sample", std::to_string(sample));
    const int units = (slot.is_link) ? 1 : task.units;
    for (int k = 0; k < units; ++k) {
        TraceSlice copy = slice;
        copy.track = trace_->track(slot.process, lane_thread(slot, started.first_lane + k));
        if (k == 0 && sample == 0)
            first_slice_[task_index] = static_cast<int>(trace_->slices.size());
        trace_->slices.push_back(std::move(copy));
    }
}

std::int64_t RunRecorder::makespan_ps() const {
    std::int64_t m = 0;
    for (auto f : sample_finish_ps_)
        m = std::max(m, f);
    return m;
}

void RunRecorder::finish_latency_run(Metrics& metrics) {
    metrics.latency_s = static_cast<double>(makespan_ps()) * kSecondsPerPs;
    metrics.tasks_executed = finished_;
    metrics.task_timings = std::move(timings_);  // the latency run's last use
    for (TaskKind kind : {TaskKind::compute, TaskKind::convert, TaskKind::transfer})
        metrics.time_by_kind_s[std::string(to_string(kind))] =
            static_cast<double>(kind_ps_[static_cast<std::size_t>(kind)]) * kSecondsPerPs;
    for (std::size_t s = 0; s < exec_.resources.size(); ++s) {
        const auto& slot = exec_.resources[s];
        const std::string key = fmt::format("{}:{}", slot.process, slot.thread);
        if (busy_ps_[s] > 0)
            metrics.resource_busy_s[key] = static_cast<double>(busy_ps_[s]) * kSecondsPerPs;
        if (slot.is_link && bytes_[s] > 0)
            metrics.link_bytes[key] = static_cast<double>(bytes_[s]);
    }
    finish_trace();
}

void RunRecorder::finish_trace() {
    if (trace_ == nullptr)
        return;
    for (std::size_t t = 0; t < exec_.tasks.size(); ++t) {
        for (int succ : exec_.tasks[t].successors) {
            int from = first_slice_[t];
            int to = first_slice_[static_cast<std::size_t>(succ)];
            if (from >= 0 && to >= 0)
                trace_->flows.push_back(TraceFlow{from, to});
        }
    }
    add_trace_counters();
}

void RunRecorder::add_trace_counters() {
    // Memory occupancy: the resident bytes of each component after every change (several
    // changes at one instant: the last is what the instant leaves).
    if (exec_.platform != nullptr) {
        std::stable_sort(memory_changes_.begin(), memory_changes_.end(),
                         [](const MemoryChange& a, const MemoryChange& b) {
                             return a.time_ps != b.time_ps ? a.time_ps < b.time_ps
                                                           : a.component < b.component;
                         });
        const auto& components = exec_.platform->components();
        for (std::size_t i = 0; i < memory_changes_.size(); ++i) {
            const MemoryChange& m = memory_changes_[i];
            const bool last_at_instant = i + 1 == memory_changes_.size() ||
                                         memory_changes_[i + 1].time_ps != m.time_ps ||
                                         memory_changes_[i + 1].component != m.component;
            if (!last_at_instant)
                continue;
            const std::string& name = components[static_cast<std::size_t>(m.component)].name;
            trace_->counters.push_back(TraceCounterSample{
                trace_->track(name, "memory"), "memory occupancy (bytes)",
                static_cast<double>(m.time_ps) * kSecondsPerPs, static_cast<double>(m.resident)});
        }
    }
    // Per link direction, at every transfer start and end: the share of its lanes busy
    // (utilisation; on a `shared` link any transfer keeps the whole bandwidth busy under
    // max-min fair sharing, so the bound is 1) and the bytes per second in flight, each
    // transfer counted at its average rate bytes / duration.
    std::map<int, std::vector<std::tuple<std::int64_t, int, double>>> events;  // t, ±1, ±rate
    for (const LinkTransfer& t : link_transfers_) {
        const double seconds = static_cast<double>(t.finish_ps - t.start_ps) * kSecondsPerPs;
        const double rate = seconds > 0.0 ? static_cast<double>(t.bytes) / seconds : 0.0;
        events[t.resource].emplace_back(t.start_ps, +1, rate);
        events[t.resource].emplace_back(t.finish_ps, -1, -rate);
    }
    for (auto& [resource, list] : events) {
        std::sort(list.begin(), list.end());
        const ExecResourceSlot& slot = exec_.resources[static_cast<std::size_t>(resource)];
        const int track = trace_->track(slot.process, lane_thread(slot, 0));
        int active = 0;
        double bytes_per_s = 0.0;
        for (std::size_t i = 0; i < list.size(); ++i) {
            active += std::get<1>(list[i]);
            bytes_per_s += std::get<2>(list[i]);
            if (i + 1 < list.size() && std::get<0>(list[i + 1]) == std::get<0>(list[i]))
                continue;  // the instant's last event gives its values
            const double time_s = static_cast<double>(std::get<0>(list[i])) * kSecondsPerPs;
            const double utilisation =
                slot.shared ? (active > 0 ? 1.0 : 0.0)
                            : std::min(1.0, static_cast<double>(active) /
                                                static_cast<double>(std::max(1, slot.capacity)));
            trace_->counters.push_back(TraceCounterSample{
                track, fmt::format("{} utilisation", slot.thread), time_s, utilisation});
            trace_->counters.push_back(
                TraceCounterSample{track, fmt::format("{} B/s", slot.thread), time_s,
                                   active > 0 ? std::max(0.0, bytes_per_s) : 0.0});
        }
    }
}

void RunRecorder::merge_memory(Metrics& metrics) const {
    if (exec_.platform == nullptr)
        return;
    const auto& components = exec_.platform->components();
    if (metrics.memory.size() != components.size()) {
        metrics.memory.assign(components.size(), MemoryUse{});
        for (std::size_t c = 0; c < components.size(); ++c) {
            MemoryUse& use = metrics.memory[c];
            use.component = components[c].name;
            use.capacity_bytes = components[c].memory_bytes;
            std::vector<std::string> names;
            for (const auto& d : exec_.platform->devices()) {
                if (d.component == components[c].name)
                    names.push_back(d.name);
            }
            use.devices = fmt::format("{}", fmt::join(names, ", "));
        }
    }
    for (std::size_t c = 0; c < components.size() && c < peak_.size(); ++c) {
        MemoryUse& use = metrics.memory[c];
        if (peak_[c] <= use.peak_bytes)
            continue;
        use.peak_bytes = peak_[c];
        const int t = peak_task_[c];
        use.at_peak =
            t < 0 ? std::string("the weights, before the first op")
                  : fmt::format("{} '{}'", to_string(exec_.tasks[static_cast<std::size_t>(t)].kind),
                                exec_.tasks[static_cast<std::size_t>(t)].name);
    }
    metrics.feasible = true;
    metrics.infeasible_reason.clear();
    for (const MemoryUse& use : metrics.memory) {
        if (!use.exceeded())
            continue;
        metrics.feasible = false;
        metrics.infeasible_reason = fmt::format(
            "memory of {} ('{}') exceeded: peak {} bytes ({:.3g} GiB) > capacity {} bytes "
            "({:.3g} GiB), at {}",
            use.devices.empty() ? use.component : use.devices, use.component, use.peak_bytes,
            static_cast<double>(use.peak_bytes) / (1024.0 * 1024 * 1024), use.capacity_bytes,
            static_cast<double>(use.capacity_bytes) / (1024.0 * 1024 * 1024), use.at_peak);
        break;
    }
}

Metrics measure(const ExecGraph& exec, const EvalOptions& options, Trace* trace,
                const std::function<void(int samples, RunRecorder& recorder)>& run) {
    const int samples = options.samples;
    // The lowered graph's index, else one built here (sim/exec_index.hpp).
    std::optional<ExecIndex> own;
    const ExecIndex& index =
        exec.index != nullptr && exec.index->matches(exec) ? *exec.index : own.emplace(exec);
    check_run_limits(exec.tasks.size(), index.duration_sum_ps, std::max(1, samples));
    Metrics metrics;
    const bool trace_stream = options.trace_stream && samples > 1;
    RunRecorder single(exec, index, 1, trace_stream ? nullptr : trace);
    run(1, single);
    single.finish_latency_run(metrics);
    single.merge_memory(metrics);
    metrics.samples = samples;
    if (samples > 1) {
        RunRecorder stream(exec, index, samples, trace_stream ? trace : nullptr);
        run(samples, stream);
        metrics.throughput_per_s = throughput_from_finishes(stream.sample_finish_ps());
        stream.merge_memory(metrics);
        if (trace_stream)
            stream.finish_trace();
    } else {
        metrics.throughput_per_s = throughput_from_finishes(single.sample_finish_ps());
    }
    return metrics;
}

double throughput_from_finishes(std::vector<std::int64_t> finish_ps) {
    if (finish_ps.empty())
        return 0.0;
    std::sort(finish_ps.begin(), finish_ps.end());
    const std::int64_t span = finish_ps.back() - finish_ps.front();
    if (finish_ps.size() == 1 || span <= 0) {
        return finish_ps.back() > 0 ? static_cast<double>(finish_ps.size()) /
                                          (static_cast<double>(finish_ps.back()) * kSecondsPerPs)
                                    : 0.0;
    }
    return static_cast<double>(finish_ps.size() - 1) / (static_cast<double>(span) * kSecondsPerPs);
}

}  // namespace hetsim::sim
