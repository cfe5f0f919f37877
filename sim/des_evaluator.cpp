// DesEvaluator: the SystemC/TLM-2.0 reference simulation of an ExecGraph.
//
// One SlotServer module per resource slot (a device's execution resource, or one direction
// of a link) with its own queue; link servers move data as TLM-2.0 generic-payload writes
// into the destination memory's target socket, which annotates its access delay. An
// Executor module counts missing inputs (through the shared Dispatcher) and submits ready
// task instances. All processes are SC_METHODs: no coroutine stacks, which keeps the
// simulation fast and clean under AddressSanitizer.
//
// SystemC elaborates once per process: the modules are built on first use and kept; later
// evaluations (and later DesEvaluator objects for a platform with the same slots) replay
// back to back with sc_start().
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <systemc>
#include <tlm>

#include <fmt/format.h>

#include "sim/dispatch.hpp"
#include "sim/evaluator.hpp"
#include "sim/run_recorder.hpp"

namespace hetsim::sim {

namespace {

std::int64_t now_ps() {
    return static_cast<std::int64_t>(sc_core::sc_time_stamp().value());  // resolution 1 ps
}

// The memory of a component, as a TLM-2.0 target. Transfers write into it; it adds its
// access latency to the transaction's annotated delay and counts the bytes it received.
// A component reached over several links (a host with one PCIe link per accelerator) has
// one initiator bound per link direction, hence the multi-bind socket.
class MemoryTarget : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<MemoryTarget> socket;
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

class Executor;

// A queue-served execution resource: up to `capacity` units busy at once.
class SlotServer : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(SlotServer);
    SlotServer(sc_core::sc_module_name name, Executor& executor, MemoryTarget* destination)
        : sc_module(name), executor_(executor), destination_(destination) {
        SC_METHOD(on_done);
        sensitive << done_;
        dont_initialize();
        if (destination_ != nullptr) {
            // Only link directions move data, so only they have a DMA initiator socket.
            initiator_ = std::make_unique<tlm_utils::simple_initiator_socket<SlotServer>>("dma");
            initiator_->bind(destination_->socket);
        }
    }

    void start(const StartedTask& started, const Task& task) {
        sc_core::sc_time duration(static_cast<double>(task.duration_ps), sc_core::SC_PS);
        if (destination_ != nullptr) {
            // The transfer is a TLM-2.0 write of task.bytes into the destination memory.
            // Timing only: the graph path carries sizes, not tensor contents.
            tlm::tlm_generic_payload payload;
            payload.set_command(tlm::TLM_WRITE_COMMAND);
            payload.set_address(static_cast<sc_dt::uint64>(task.tensor < 0 ? 0 : task.tensor));
            payload.set_data_ptr(&scratch_);
            payload.set_data_length(static_cast<unsigned int>(task.bytes));
            payload.set_streaming_width(static_cast<unsigned int>(task.bytes));
            payload.set_byte_enable_ptr(nullptr);
            payload.set_dmi_allowed(false);
            payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            (*initiator_)->b_transport(payload, delay);
            if (payload.is_response_error()) {
                throw std::runtime_error(fmt::format("DES: transfer '{}' failed: {}", task.name,
                                                     payload.get_response_string()));
            }
            duration += delay;
        }
        running_.emplace(now_ps() + static_cast<std::int64_t>(duration.value()), started);
        done_.notify(duration);
    }

private:
    void on_done();

    Executor& executor_;
    MemoryTarget* destination_;
    std::unique_ptr<tlm_utils::simple_initiator_socket<SlotServer>> initiator_;
    sc_core::sc_event_queue done_;
    std::multimap<std::int64_t, StartedTask> running_;  // by finish time
    unsigned char scratch_ = 0;
};

// Submits ready task instances to their servers and handles completions.
class Executor : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Executor);
    explicit Executor(sc_core::sc_module_name name) : sc_module(name) {
        SC_METHOD(dispatch);
        sensitive << dispatch_event_;
        dont_initialize();
    }

    void begin(const ExecGraph& exec, Dispatcher& dispatcher, RunRecorder& recorder) {
        exec_ = &exec;
        dispatcher_ = &dispatcher;
        recorder_ = &recorder;
        run_start_ps_ = now_ps();
        for (int s = 0; s < dispatcher.slot_count(); ++s)
            touched_.push_back(s);
        dispatch_event_.notify(sc_core::SC_ZERO_TIME);
    }

    void complete(const StartedTask& started) {
        recorder_->on_finish(started, now_ps() - run_start_ps_);
        dispatcher_->complete(started, touched_);
        // Dispatch in the next delta, after every completion of this instant (the
        // AnalyticEvaluator's waves do the same).
        dispatch_event_.notify(sc_core::SC_ZERO_TIME);
    }

    std::vector<SlotServer*> servers;

private:
    void dispatch() {
        std::set<int> slots(touched_.begin(), touched_.end());
        touched_.clear();
        for (int slot : slots) {
            for (const auto& started : dispatcher_->start_ready(slot)) {
                recorder_->on_start(started, now_ps() - run_start_ps_);
                servers[static_cast<std::size_t>(slot)]->start(
                    started, exec_->tasks[static_cast<std::size_t>(started.instance.task)]);
            }
        }
    }

    const ExecGraph* exec_ = nullptr;
    Dispatcher* dispatcher_ = nullptr;
    RunRecorder* recorder_ = nullptr;
    std::int64_t run_start_ps_ = 0;
    std::vector<int> touched_;
    sc_core::sc_event dispatch_event_;
};

void SlotServer::on_done() {
    const std::int64_t now = now_ps();
    while (!running_.empty() && running_.begin()->first <= now) {
        StartedTask started = running_.begin()->second;
        running_.erase(running_.begin());
        executor_.complete(started);
    }
}

std::string slot_signature(const std::vector<ExecResourceSlot>& slots) {
    std::string sig;
    for (const auto& s : slots)
        sig += fmt::format("{}|{}|{}|{};", s.process, s.thread, s.capacity, s.is_link);
    return sig;
}

}  // namespace

// The elaborated model, built once per process.
struct DesEvaluator::Impl {
    std::string signature;
    std::vector<std::unique_ptr<MemoryTarget>> memories;
    std::unique_ptr<Executor> executor;
    std::vector<std::unique_ptr<SlotServer>> servers;
    bool in_use = false;

    explicit Impl(const Platform& platform) : signature(slot_signature(resource_slots(platform))) {
        std::map<std::string, MemoryTarget*> memory_of;
        for (const auto& c : platform.components()) {
            memories.push_back(std::make_unique<MemoryTarget>(
                sc_core::sc_gen_unique_name(fmt::format("mem_{}", c.name).c_str())));
            memory_of[c.name] = memories.back().get();
        }
        executor = std::make_unique<Executor>("executor");
        int index = 0;
        for (const auto& r : platform.resources()) {
            servers.push_back(std::make_unique<SlotServer>(
                sc_core::sc_gen_unique_name(fmt::format("res_{}", r.name).c_str()), *executor,
                nullptr));
            ++index;
        }
        for (const auto& link : platform.links()) {
            servers.push_back(std::make_unique<SlotServer>(
                sc_core::sc_gen_unique_name(fmt::format("{}_fwd", link.name).c_str()), *executor,
                memory_of.at(link.endpoint_b)));
            servers.push_back(std::make_unique<SlotServer>(
                sc_core::sc_gen_unique_name(fmt::format("{}_bwd", link.name).c_str()), *executor,
                memory_of.at(link.endpoint_a)));
        }
        for (auto& s : servers)
            executor->servers.push_back(s.get());
    }

    void run(const ExecGraph& exec, int samples, RunRecorder& recorder) {
        Dispatcher dispatcher(exec, samples, /*unlimited_links=*/false);
        executor->begin(exec, dispatcher, recorder);
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
    } else if (g_model->signature != slot_signature(resource_slots(platform))) {
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
    if (slot_signature(exec.resources) != g_model->signature) {
        throw std::invalid_argument("DesEvaluator: ExecGraph was lowered for another platform");
    }
    ++evaluations_;
    Metrics metrics;
    RunRecorder single(exec, 1, trace);
    g_model->run(exec, 1, single);
    single.finish_latency_run(metrics);
    metrics.samples = options_.samples;
    if (options_.samples > 1) {
        RunRecorder stream(exec, options_.samples, nullptr);
        g_model->run(exec, options_.samples, stream);
        metrics.throughput_per_s = throughput_from_finishes(stream.sample_finish_ps());
    } else {
        metrics.throughput_per_s = throughput_from_finishes(single.sample_finish_ps());
    }
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
