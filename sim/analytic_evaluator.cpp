// AnalyticEvaluator: list scheduling of the ExecGraph on cost-model durations. Device
// resources serialise their ops (by capacity) but links carry any number of transfers at
// once: the contention the DES models is what this evaluator leaves out.
#include <algorithm>
#include <queue>
#include <tuple>

#include "sim/dispatch.hpp"
#include "sim/evaluator.hpp"
#include "sim/event_queue.hpp"
#include "sim/run_recorder.hpp"

namespace hetsim::sim {

namespace {

// Runs `samples` samples to completion. Time advances in waves: every completion due at the
// current instant is processed first, then the touched slots dispatch; tasks of zero duration
// complete in the next wave at the same instant. This mirrors the DES's delta cycles.
void simulate(const ExecGraph& exec, int samples, RunRecorder& recorder) {
    const ExecIndex& index = recorder.index();
    Dispatcher dispatcher(exec, index, samples, /*contention_free=*/true);
    EventQueue<StartedTask> events;  // task ends; at equal times in start order
    std::int64_t now = 0;
    std::vector<StartedTask> started;
    auto dispatch = [&] {
        dispatcher.start_touched(started);
        for (const StartedTask& s : started) {
            recorder.on_start(s, now);
            events.push(now + index.tasks[static_cast<std::size_t>(s.instance.task)].duration_ps,
                        s);
        }
    };
    dispatch();
    while (!events.empty()) {
        now = events.top_time_ps();
        const std::uint64_t wave_end = events.pushed();  // events pushed during this wave wait
        while (!events.empty() && events.top_time_ps() == now && events.top_sequence() < wave_end) {
            const StartedTask e = events.pop();
            recorder.on_finish(e, now);
            dispatcher.complete(e);
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
