// DesEvaluator: the SystemC/TLM-2.0 reference simulation of an ExecGraph
// (docs/DESIGN.md "The simulation core").
//
// One Engine module runs every started task instance in up to two phases: a fixed phase
// (op overheads and compute, a link's latency, plus the access latency the destination
// memory's TLM-2.0 target annotates on a transfer's write), then a flow phase that streams
// the task's bytes through the shared resources it crosses (a shared link direction, a
// memory that declares a bandwidth). Concurrent flows share those resources max-min fairly
// (sim/fluid_share.hpp), recomputed whenever a flow starts or ends: processor sharing on a
// link, and cores and DMA streams competing for a DRAM. Without contention every task
// takes exactly its lowered duration_ps, so the DES agrees with the AnalyticEvaluator to
// the picosecond; every difference between them is contention.
//
// Transfers are TLM-2.0 generic-payload writes into a MemoryTarget per component, in
// chunks of at most kChunkBytes from a zero-filled buffer (the graph path carries sizes,
// not tensor contents); the chunks are pipelined, so a transfer pays the memory's access
// latency once. All processes are SC_METHODs: no coroutine stacks, which keeps the
// simulation fast and clean under AddressSanitizer.
//
// SystemC elaborates once per process: the modules are built on first use and kept; later
// evaluations (and later DesEvaluator objects for a platform with the same slots) replay
// back to back with sc_start().
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <systemc>
#include <tlm>
#include <tuple>

#include <fmt/format.h>

#include "sim/dispatch.hpp"
#include "sim/evaluator.hpp"
#include "sim/event_queue.hpp"
#include "sim/fluid_share.hpp"
#include "sim/run_recorder.hpp"

namespace hetsim::sim {

namespace {

std::int64_t now_ps() {
    return static_cast<std::int64_t>(sc_core::sc_time_stamp().value());  // resolution 1 ps
}

constexpr unsigned int kChunkBytes = 1u << 20;

// The memory of a component, as a TLM-2.0 target. Transfers write into it; it adds its
// access latency to each transaction's annotated delay and counts the bytes it received.
// A component reached over several links has one initiator bound per link direction
// (hence the multi-bind socket); one reached by none leaves it unbound (optional socket).
class MemoryTarget : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket_optional<MemoryTarget> socket;
    std::int64_t bytes_written = 0;
    sc_core::sc_time access_latency = sc_core::SC_ZERO_TIME;

    explicit MemoryTarget(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
        socket.register_b_transport(this, &MemoryTarget::b_transport);
    }

private:
    void b_transport(int /*initiator*/, tlm::tlm_generic_payload& payload,
                     sc_core::sc_time& delay) {
        if (payload.get_command() == tlm::TLM_WRITE_COMMAND) {
            bytes_written += static_cast<std::int64_t>(payload.get_data_length());
        }
        delay += access_latency;
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// Runs task instances: fixed phases on timers, flow phases in the fluid model.
class Engine : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Engine);
    // `destinations`: per resource slot, the memory its transfers write into (nullptr for
    // device resources and unused link directions). Ports must be made in the constructor:
    // SystemC binds a port to the module under construction.
    Engine(sc_core::sc_module_name name, const std::vector<MemoryTarget*>& destinations)
        : sc_module(name), chunk_(kChunkBytes, 0) {
        SC_METHOD(on_begin);
        sensitive << dispatch_event_;
        dont_initialize();
        SC_METHOD(on_wake);
        sensitive << wake_;
        dont_initialize();
        for (MemoryTarget* destination : destinations) {
            if (destination == nullptr) {
                ports_.emplace_back();
                continue;
            }
            auto port = std::make_unique<tlm_utils::simple_initiator_socket<Engine>>(
                sc_core::sc_gen_unique_name("dma"));
            port->bind(destination->socket);
            ports_.push_back(std::move(port));
        }
    }

    void begin(const ExecGraph& exec, Dispatcher& dispatcher, RunRecorder& recorder) {
        exec_ = &exec;
        index_ = &recorder.index();
        dispatcher_ = &dispatcher;
        recorder_ = &recorder;
        run_start_ps_ = now_ps();
        capacity_Bps_.clear();
        for (const auto& r : exec.shared_resources)
            capacity_Bps_.push_back(r.capacity_Bps);
        timers_.clear();
        flows_.clear();
        fluid_on_.assign(capacity_Bps_.size(), 0);
        solo_on_.assign(capacity_Bps_.size(), {});
        solos_.clear();
        free_solos_.clear();
        last_advance_ps_ = run_start_ps_;
        dispatch_event_.notify(sc_core::SC_ZERO_TIME);
    }

private:
    // A timer's payload; at equal times timers fire in start order (EventQueue).
    enum class TimerKind : std::uint8_t {
        end,        // the task ends
        then_flow,  // the fixed phase ends here and the flow phase follows
        solo_end,   // a solo flow's task ends, unless the flow was made fluid since (below)
    };
    struct Timer {
        StartedTask started;
        TimerKind kind;
        std::uint32_t solo = 0;  // solo_end: its index in solos_
    };
    struct Flow {
        StartedTask started;
        double remaining_ps;    // work left, in ps at the flow's full rate
        FluidFlow demand;       // its full rate and the shared resources it crosses
        double progress = 1.0;  // allocated rate / full rate
    };
    // A flow phase that no other flow shares a resource with, from its start to its end, runs
    // at the rate max-min fairness gives it alone the whole time: its task needs one timer, at
    // its end, and no wake-up where its fixed phase ends (des_bench: half of BERT-base's tasks
    // stream through a memory, one at a time; the extra wake-up cost each a SystemC event).
    // A task whose flow could overlap another's (a fluid flow, one waiting for its fixed phase
    // to end, or a solo flow not yet ended) takes the fluid path; when its flow begins, the
    // solo flows on its resources become fluid flows with the work they have left, so that
    // from then on the sharing is exactly the fluid model's.
    struct Solo {
        StartedTask started;
        std::int64_t begin_ps, end_ps;  // of the flow phase
        double progress;                // its rate alone / full rate
        bool live;                      // not yet ended or made fluid
    };
    // Task t's shared resources (ExecIndex::shared).
    struct Resources {
        const std::int32_t *begin_, *end_;
        const std::int32_t* begin() const { return begin_; }
        const std::int32_t* end() const { return end_; }
    };
    Resources shared_of(const StartedTask& s) const {
        const auto t = static_cast<std::size_t>(s.instance.task);
        const std::int32_t* base = index_->shared.data();
        return {base + index_->first_shared[t], base + index_->first_shared[t + 1]};
    }

    const ExecIndex::TaskFacts& facts_of(const StartedTask& s) const {
        return index_->tasks[static_cast<std::size_t>(s.instance.task)];
    }
    // The whole Task: only off the hot path (a flow's start, error messages).
    const Task& task_of(const StartedTask& s) const {
        return exec_->tasks[static_cast<std::size_t>(s.instance.task)];
    }

    // The transfer's TLM-2.0 write; returns the annotated delay in ps.
    std::int64_t write_transfer(const StartedTask& started, const ExecIndex::TaskFacts& task) {
        auto& port = ports_[static_cast<std::size_t>(task.resource)];
        if (!port) {
            throw std::logic_error(
                fmt::format("DES: no DMA port for transfer '{}'", task_of(started).name));
        }
        sc_core::sc_time worst = sc_core::SC_ZERO_TIME;
        std::int64_t offset = 0;
        do {
            const auto length = static_cast<unsigned int>(std::min<std::int64_t>(
                kChunkBytes, std::max<std::int64_t>(0, task.bytes - offset)));
            tlm::tlm_generic_payload& payload = payload_;
            payload.set_command(tlm::TLM_WRITE_COMMAND);
            payload.set_address(static_cast<sc_dt::uint64>(offset));
            payload.set_data_ptr(chunk_.data());
            payload.set_data_length(length);
            payload.set_streaming_width(length);
            payload.set_byte_enable_ptr(nullptr);
            payload.set_dmi_allowed(false);
            payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            (*port)->b_transport(payload, delay);
            if (payload.is_response_error()) {
                throw std::runtime_error(fmt::format("DES: transfer '{}' failed: {}",
                                                     task_of(started).name,
                                                     payload.get_response_string()));
            }
            worst = std::max(worst, delay);  // chunks are pipelined
            offset += length;
        } while (offset < task.bytes);
        return static_cast<std::int64_t>(worst.value());
    }

    void start(const StartedTask& started, std::int64_t now) {
        const ExecIndex::TaskFacts& task = facts_of(started);
        std::int64_t fixed = task.fixed_ps;
        if (task.kind == TaskKind::transfer)
            fixed += write_transfer(started, task);
        if (!task.flows) {
            // A flow phase that crosses no shared resource always runs at its full rate.
            timers_.push(now + fixed + task.flow_ps, Timer{started, TimerKind::end});
            return;
        }
        const std::int64_t begin = now + fixed;
        const Resources shared = shared_of(started);
        if (!may_share(shared, begin)) {
            start_solo(started, begin);
            return;
        }
        for (int r : shared)
            ++fluid_on_[static_cast<std::size_t>(r)];
        timers_.push(begin, Timer{started, TimerKind::then_flow});
    }

    // Whether a flow beginning at `begin` on `resources` could share one with another flow.
    bool may_share(const Resources& resources, std::int64_t begin) const {
        for (int r : resources) {
            const auto ri = static_cast<std::size_t>(r);
            if (fluid_on_[ri] > 0)
                return true;
            for (std::uint32_t s : solo_on_[ri])
                if (solos_[s].end_ps > begin)
                    return true;
        }
        return false;
    }

    void start_solo(const StartedTask& started, std::int64_t begin) {
        const ExecIndex::TaskFacts& task = facts_of(started);
        // Its rate alone, as allocate() would give it (max-min fairness with one flow), and
        // settle()'s wake-up for a flow of flow_ps at that rate, taken at its start: both fixed
        // per task (ExecIndex).
        const double progress = task.alone_progress;
        const std::int64_t end = begin + task.alone_flow_ps;
        std::uint32_t id;
        if (!free_solos_.empty()) {
            id = free_solos_.back();
            free_solos_.pop_back();
        } else {
            id = static_cast<std::uint32_t>(solos_.size());
            solos_.emplace_back();
        }
        solos_[id] = Solo{started, begin, end, progress, true};
        for (int r : shared_of(started))
            solo_on_[static_cast<std::size_t>(r)].push_back(id);
        timers_.push(end, Timer{started, TimerKind::solo_end, id});
    }

    void drop_solo(std::uint32_t id) {
        Solo& s = solos_[id];
        s.live = false;
        for (int r : shared_of(s.started)) {
            auto& on = solo_on_[static_cast<std::size_t>(r)];
            on.erase(std::find(on.begin(), on.end(), id));
        }
    }

    // A fluid flow begins at `now` on `resources`: the solo flows there that have not ended
    // become fluid (with the work left), or, not begun yet, wait for their fixed phase.
    void make_solos_fluid(const std::vector<int>& resources, std::int64_t now) {
        for (int r : resources) {
            auto& on = solo_on_[static_cast<std::size_t>(r)];
            for (std::size_t k = 0; k < on.size();) {
                const std::uint32_t id = on[k];
                const Solo s = solos_[id];
                if (s.end_ps <= now) {  // ends at this instant: its timer completes it
                    ++k;
                    continue;
                }
                drop_solo(id);  // erases on[k]
                const Task& task = task_of(s.started);
                for (int q : task.shared)
                    ++fluid_on_[static_cast<std::size_t>(q)];
                if (s.begin_ps <= now) {
                    flows_.push_back(Flow{s.started,
                                          static_cast<double>(task.flow_ps) -
                                              static_cast<double>(now - s.begin_ps) * s.progress,
                                          FluidFlow{task.flow_rate_Bps, &task.shared}, s.progress});
                } else {
                    timers_.push(s.begin_ps, Timer{s.started, TimerKind::then_flow});
                }
            }
        }
    }

    void wake_at(std::int64_t time_ps, std::int64_t now) {
        // sc_event keeps the earliest pending notification; a stale earlier wake-up finds
        // nothing due and schedules the next one.
        // Whole picoseconds at SystemC's default 1 ps resolution: from_value skips sc_time's
        // double arithmetic (a tenth of the DES's time, des_bench under perf).
        wake_.notify(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(time_ps - now)));
    }

    void complete(const StartedTask& started, std::int64_t now) {
        recorder_->on_finish(started, now - run_start_ps_);
        dispatcher_->complete(started);
    }

    void advance_flows(std::int64_t now) {
        const double elapsed = static_cast<double>(now - last_advance_ps_);
        if (elapsed > 0.0) {
            for (auto& f : flows_)
                f.remaining_ps -= elapsed * f.progress;
        }
        last_advance_ps_ = now;
    }

    void allocate() {
        demand_.clear();
        for (const auto& f : flows_)
            demand_.push_back(f.demand);
        max_min_fair_rates(capacity_Bps_, demand_, rates_, fluid_scratch_);
        for (std::size_t i = 0; i < flows_.size(); ++i)
            flows_[i].progress = rates_[i] / demand_[i].cap_Bps;
    }

    void on_wake() {
        const std::int64_t now = now_ps();
        advance_flows(now);
        settle(now);
    }

    // The run's first instant: every slot dispatches.
    void on_begin() {
        const std::int64_t now = now_ps();
        dispatch(now);
        settle(now);
    }

    // Processes the instant `now` to its end, in waves as the AnalyticEvaluator does: every
    // completion due, then the touched slots dispatch; what completes at once (a zero-time
    // task) makes the next wave. Then one timed wake-up for the next due time. (One process
    // activation per instant: a delta notification per wave and a second process to dispatch
    // cost an activation each, for the same order of events.)
    void settle(std::int64_t now) {
        for (;;) {
            bool changed = false;
            bool completed = false;
            while (!timers_.empty() && timers_.top_time_ps() <= now) {
                const Timer t = timers_.pop();
                if (t.kind == TimerKind::then_flow) {
                    const Task& task = task_of(t.started);
                    make_solos_fluid(task.shared, now);
                    flows_.push_back(Flow{t.started, static_cast<double>(task.flow_ps),
                                          FluidFlow{task.flow_rate_Bps, &task.shared}});
                    changed = true;
                } else if (t.kind == TimerKind::solo_end) {
                    const bool live = solos_[t.solo].live;
                    if (live)
                        drop_solo(t.solo);
                    free_solos_.push_back(t.solo);
                    if (live) {
                        complete(t.started, now);
                        completed = true;
                    }
                } else {
                    complete(t.started, now);
                    completed = true;
                }
            }
            // A flow is done when less than half a picosecond of work is left (rates are
            // rounded to whole picoseconds).
            for (std::size_t i = 0; i < flows_.size();) {
                if (flows_[i].remaining_ps <= 0.5) {
                    for (int r : *flows_[i].demand.resources)
                        --fluid_on_[static_cast<std::size_t>(r)];
                    complete(flows_[i].started, now);
                    completed = true;
                    flows_.erase(flows_.begin() + static_cast<std::ptrdiff_t>(i));
                    changed = true;
                } else {
                    ++i;
                }
            }
            if (changed && !flows_.empty())
                allocate();
            if (!completed)
                break;
            dispatch(now);
            if (timers_.empty() || timers_.top_time_ps() > now)
                break;
        }
        std::int64_t next = timers_.empty() ? -1 : timers_.top_time_ps();
        for (const auto& f : flows_) {
            const std::int64_t end =
                now + std::max<std::int64_t>(1, std::llround(f.remaining_ps / f.progress));
            next = next < 0 ? end : std::min(next, end);
        }
        if (next >= 0)
            wake_at(next, now);
    }

    void dispatch(std::int64_t now) {
        dispatcher_->start_touched(started_);
        for (const StartedTask& started : started_) {
            recorder_->on_start(started, now - run_start_ps_);
            start(started, now);
        }
    }

    const ExecGraph* exec_ = nullptr;
    const ExecIndex* index_ = nullptr;
    Dispatcher* dispatcher_ = nullptr;
    RunRecorder* recorder_ = nullptr;
    std::int64_t run_start_ps_ = 0;
    std::vector<StartedTask> started_;  // reused by dispatch()
    std::vector<FluidFlow> demand_;     // reused by allocate()
    std::vector<double> rates_;
    FluidScratch fluid_scratch_;
    tlm::tlm_generic_payload payload_;  // reused by write_transfer(): its constructor allocates
    sc_core::sc_event dispatch_event_;  // the run's first instant (on_begin)
    sc_core::sc_event wake_;
    EventQueue<Timer> timers_;
    std::vector<Flow> flows_;
    std::vector<int> fluid_on_;  // per shared resource: fluid flows, begun or waiting to begin
    std::vector<std::vector<std::uint32_t>> solo_on_;  // per shared resource: live solo flows
    std::vector<Solo> solos_;
    std::vector<std::uint32_t> free_solos_;
    std::vector<double> capacity_Bps_;
    std::int64_t last_advance_ps_ = 0;
    std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket<Engine>>> ports_;
    std::vector<unsigned char> chunk_;
};

// Whether two platforms' resource slots elaborate the same model (names, capacities, links).
// Compared field by field, not as formatted text: evaluate() checks it on every call.
bool same_slots(const std::vector<ExecResourceSlot>& a, const std::vector<ExecResourceSlot>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const ExecResourceSlot& x, const ExecResourceSlot& y) {
                          return x.capacity == y.capacity && x.is_link == y.is_link &&
                                 x.process == y.process && x.thread == y.thread;
                      });
}

}  // namespace

// The elaborated model, built once per process.
struct DesEvaluator::Impl {
    std::vector<ExecResourceSlot> slots;  // of the platform it was elaborated for
    std::vector<std::unique_ptr<MemoryTarget>> memories;
    std::unique_ptr<Engine> engine;
    bool in_use = false;

    explicit Impl(const Platform& platform) : slots(resource_slots(platform)) {
        std::map<std::string, MemoryTarget*> memory_of;
        for (const auto& c : platform.components()) {
            memories.push_back(std::make_unique<MemoryTarget>(
                sc_core::sc_gen_unique_name(fmt::format("mem_{}", c.name).c_str())));
            memory_of[c.name] = memories.back().get();
        }
        std::vector<MemoryTarget*> destinations(platform.resources().size(), nullptr);
        for (const auto& link : platform.links()) {
            destinations.push_back(memory_of.at(link.endpoint_b));
            destinations.push_back(link.one_way ? nullptr : memory_of.at(link.endpoint_a));
        }
        engine = std::make_unique<Engine>("engine", destinations);
    }

    void run(const ExecGraph& exec, int samples, RunRecorder& recorder) {
        // The memories' access latencies come from the platform the graph was lowered for
        // (the elaborated modules outlive one platform object).
        if (exec.platform != nullptr) {
            const auto& components = exec.platform->components();
            for (std::size_t c = 0; c < components.size() && c < memories.size(); ++c) {
                memories[c]->access_latency = sc_core::sc_time(
                    static_cast<double>(to_ps(components[c].memory_latency_s)), sc_core::SC_PS);
            }
        }
        Dispatcher dispatcher(exec, recorder.index(), samples, /*contention_free=*/false);
        engine->begin(exec, dispatcher, recorder);
        sc_core::sc_start();
        if (!dispatcher.all_done()) {
            throw std::logic_error("DesEvaluator: the simulation drained with tasks left undone");
        }
    }
};

namespace {
DesEvaluator::Impl* g_model = nullptr;  // owned for the process lifetime (SystemC rule)
}

DesEvaluator::DesEvaluator(const Platform& platform, EvalOptions options) : options_(options) {
    if (g_model == nullptr) {
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
        sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_,
                                                sc_core::SC_DO_NOTHING);
        g_model = new Impl(platform);
    } else if (!same_slots(g_model->slots, resource_slots(platform))) {
        throw std::logic_error(
            "DesEvaluator: SystemC elaborates once per process and this process already "
            "simulates another platform; run each platform in its own process (sweeps do)");
    }
    if (g_model->in_use) {
        throw std::logic_error("DesEvaluator: only one DesEvaluator may be alive per process");
    }
    g_model->in_use = true;
}

DesEvaluator::~DesEvaluator() {
    if (g_model != nullptr)
        g_model->in_use = false;
}

Metrics DesEvaluator::evaluate(const ExecGraph& exec, Trace* trace) {
    if (!same_slots(exec.resources, g_model->slots)) {
        throw std::invalid_argument("DesEvaluator: ExecGraph was lowered for another platform");
    }
    Metrics metrics = measure(exec, options_, trace, [&](int samples, RunRecorder& recorder) {
        g_model->run(exec, samples, recorder);
    });
    ++evaluations_;  // a run refused by its limits is not an evaluation
    return metrics;
}

std::unique_ptr<Evaluator> make_evaluator(const std::string& name, const Platform& platform,
                                          EvalOptions options) {
    if (name == "analytic")
        return std::make_unique<AnalyticEvaluator>(options);
    if (name == "des")
        return std::make_unique<DesEvaluator>(platform, options);
    throw std::invalid_argument(
        fmt::format("unknown evaluator '{}'; expected 'des' or 'analytic'", name));
}

}  // namespace hetsim::sim

// libsystemc.so carries a main() that calls sc_main(); hetsim has its own main() and drives
// the kernel with sc_start() directly, but the shared library's reference must resolve.
int sc_main(int /*argc*/, char* /*argv*/[]) {
    return 0;
}
