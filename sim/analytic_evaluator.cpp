// AnalyticEvaluator: list scheduling of the ExecGraph on cost-model durations. Device
// resources serialise their ops (by capacity) but links carry any number of transfers at
// once: the contention the DES models is what this evaluator leaves out.
#include <algorithm>
#include <queue>
#include <tuple>

#include "sim/dispatch.hpp"
#include "sim/evaluator.hpp"
#include "sim/run_recorder.hpp"

namespace hetsim::sim {

namespace {

struct Event {
    std::int64_t time_ps;
    std::int64_t sequence;  // insertion order: deterministic tie-break
    StartedTask started;
    bool operator>(const Event& o) const {
        return std::tie(time_ps, sequence) > std::tie(o.time_ps, o.sequence);
    }
};

// Runs `samples` samples to completion. Time advances in waves: every completion due at the
// current instant is processed first, then the touched slots dispatch; tasks of zero duration
// complete in the next wave at the same instant. This mirrors the DES's delta cycles.
void simulate(const ExecGraph& exec, int samples, RunRecorder& recorder) {
    Dispatcher dispatcher(exec, samples, /*contention_free=*/true);
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
    std::int64_t sequence = 0;
    std::int64_t now = 0;
    std::vector<StartedTask> started;
    auto dispatch = [&] {
        dispatcher.start_touched(started);
        for (const StartedTask& s : started) {
            recorder.on_start(s, now);
            const Task& task = exec.tasks[static_cast<std::size_t>(s.instance.task)];
            events.push(Event{now + task.duration_ps, sequence++, s});
        }
    };
    dispatch();
    while (!events.empty()) {
        now = events.top().time_ps;
        const std::int64_t wave_end = sequence;  // events pushed during this wave wait
        while (!events.empty() && events.top().time_ps == now && events.top().sequence < wave_end) {
            Event e = events.top();
            events.pop();
            recorder.on_finish(e.started, now);
            dispatcher.complete(e.started);
        }
        dispatch();
    }
    if (!dispatcher.all_done()) {
        throw std::logic_error("AnalyticEvaluator: the run stopped with tasks left undone");
    }
}

}  // namespace

Metrics AnalyticEvaluator::evaluate(const ExecGraph& exec, Trace* trace) {
    Metrics metrics = measure(exec, options_, trace, [&](int samples, RunRecorder& recorder) {
        simulate(exec, samples, recorder);
    });
    ++evaluations_;  // a run refused by its limits is not an evaluation
    return metrics;
}

}  // namespace hetsim::sim
