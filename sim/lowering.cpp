// lower(): Graph + Placement + Platform -> ExecGraph with explicit transfers and conversions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/exec_graph.hpp"
#include "sim/exec_index.hpp"
#include "sim/fluid_share.hpp"
#include "sim/op_table.hpp"
#include "sim/transfer_cost.hpp"

namespace hetsim::sim {

std::string_view to_string(TaskKind kind) {
    switch (kind) {
        case TaskKind::compute:
            return "compute";
        case TaskKind::convert:
            return "convert";
        case TaskKind::transfer:
            return "transfer";
    }
    return "?";
}

std::int64_t to_ps(double seconds, std::string_view what) {
    if (!(seconds >= 0.0) || !std::isfinite(seconds)) {
        throw LoweringError(fmt::format("invalid duration {} s from {}", seconds, what));
    }
    const double ps = seconds / kSecondsPerPs;
    if (ps > static_cast<double>(kMaxSimulatedPs)) {
        throw LimitError(fmt::format(
            "{} takes {:.3g} s, beyond the simulator's time range ({:.3g} s = 2^62 ps); "
            "check the workload's size and the platform's clock and bandwidths",
            what, seconds, static_cast<double>(kMaxSimulatedPs) * kSecondsPerPs));
    }
    return std::llround(ps);
}

void check_run_limits(std::size_t tasks, double duration_sum_ps, int samples) {
    // Bookkeeping of a run: a start time and a pending-input count per task instance, plus
    // the dispatcher's ready sets; 64 B per instance is a safe upper bound.
    constexpr double kBytesPerInstance = 64.0;
    constexpr double kMaxBookkeepingBytes = 8.0 * 1024 * 1024 * 1024;
    const double instances = static_cast<double>(tasks) * samples;
    if (instances * kBytesPerInstance > kMaxBookkeepingBytes) {
        throw LimitError(fmt::format(
            "{} tasks x {} samples = {:.3g} task instances need about {:.3g} GiB of "
            "simulator memory, over the limit of {:.0f} GiB; lower `samples` or the model size",
            tasks, samples, instances, instances * kBytesPerInstance / (1024.0 * 1024 * 1024),
            kMaxBookkeepingBytes / (1024.0 * 1024 * 1024)));
    }
    // Serialised, the run cannot take longer than the sum of its durations.
    const double total_ps = duration_sum_ps * samples;
    if (total_ps > static_cast<double>(kMaxSimulatedPs)) {
        throw LimitError(fmt::format(
            "{} samples of this placement may take up to {:.3g} s of simulated time, beyond "
            "the simulator's time range ({:.3g} s = 2^62 ps); lower `samples` or the model size",
            samples, total_ps * kSecondsPerPs,
            static_cast<double>(kMaxSimulatedPs) * kSecondsPerPs));
    }
}

double Schedule::planned_makespan_s() const {
    double m = 0.0;
    for (double f : planned_finish_s)
        m = std::max(m, f);
    return m;
}

ScheduledOrder scheduled_op_order(const Graph& graph, const Placement& placement,
                                  const Platform& platform) {
    const Schedule& schedule = placement.schedule;
    const auto ops = static_cast<std::size_t>(graph.op_count());
    const auto& resources = platform.resources();
    if (schedule.order.size() != resources.size()) {
        throw LoweringError(
            fmt::format("the schedule has orders for {} execution resources; platform '{}' has {}",
                        schedule.order.size(), platform.name, resources.size()));
    }
    auto op_name = [&](int op) { return graph.op(op).name; };
    // prev[op]: the op before it on its resource, -1 for the first.
    std::vector<int> prev(ops, -1);
    std::vector<int> seen(ops, 0);
    for (std::size_t r = 0; r < resources.size(); ++r) {
        const auto& order = schedule.order[r];
        for (std::size_t i = 0; i < order.size(); ++i) {
            const int op = order[i];
            if (op < 0 || static_cast<std::size_t>(op) >= ops) {
                throw LoweringError(
                    fmt::format("the schedule of resource '{}' names op {}, "
                                "which the graph (of {} ops) does not have",
                                resources[r].name, op, ops));
            }
            const auto u = static_cast<std::size_t>(op);
            if (seen[u]++ != 0) {
                throw LoweringError(fmt::format("the schedule lists op '{}' twice", op_name(op)));
            }
            const int device = placement.device_of_op.at(u);
            if (device < 0 || device >= platform.device_count() ||
                platform.device(device).resource != static_cast<int>(r)) {
                throw LoweringError(fmt::format(
                    "the schedule orders op '{}' on resource '{}', but its device {} runs on "
                    "another resource",
                    op_name(op), resources[r].name,
                    device >= 0 && device < platform.device_count()
                        ? "'" + platform.device(device).name + "'"
                        : std::to_string(device)));
            }
            prev[u] = i == 0 ? -1 : order[i - 1];
        }
    }
    for (std::size_t op = 0; op < ops; ++op) {
        if (seen[op] == 0) {
            throw LoweringError(
                fmt::format("the schedule leaves op '{}' out", op_name(static_cast<int>(op))));
        }
    }
    const bool planned = !schedule.planned_start_s.empty() || !schedule.planned_finish_s.empty();
    if (planned) {
        if (schedule.planned_start_s.size() != ops || schedule.planned_finish_s.size() != ops) {
            throw LoweringError(fmt::format(
                "the schedule plans {} starts and {} finishes for a graph of {} ops",
                schedule.planned_start_s.size(), schedule.planned_finish_s.size(), ops));
        }
        for (std::size_t op = 0; op < ops; ++op) {
            const double start = schedule.planned_start_s[op];
            const double finish = schedule.planned_finish_s[op];
            if (!std::isfinite(start) || !std::isfinite(finish) || start < 0.0 || finish < start) {
                throw LoweringError(fmt::format(
                    "op '{}' is planned from {} s to {} s; expected 0 <= start <= finish",
                    op_name(static_cast<int>(op)), start, finish));
            }
        }
    }
    // Kahn's algorithm over graph edges plus the chains, earliest planned start first, then
    // earliest in the graph's own topological order: without contention the DES then runs the
    // ops in the order the plan put them.
    const std::vector<int>& topo_position = graph.topo_position();
    std::vector<int> indegree(ops, 0);
    std::vector<std::vector<int>> next(ops);
    for (std::size_t op = 0; op < ops; ++op) {
        for (int succ : graph.successors(static_cast<int>(op))) {
            next[op].push_back(succ);
            ++indegree[static_cast<std::size_t>(succ)];
        }
        if (prev[op] >= 0) {
            next[static_cast<std::size_t>(prev[op])].push_back(static_cast<int>(op));
            ++indegree[op];
        }
    }
    auto key = [&](int op) {
        const auto u = static_cast<std::size_t>(op);
        return std::make_pair(planned ? schedule.planned_start_s[u] : 0.0, topo_position[u]);
    };
    std::set<std::pair<std::pair<double, int>, int>> ready;
    for (std::size_t op = 0; op < ops; ++op) {
        if (indegree[op] == 0)
            ready.insert({key(static_cast<int>(op)), static_cast<int>(op)});
    }
    std::vector<int> out;
    out.reserve(ops);
    while (!ready.empty()) {
        const int op = ready.begin()->second;
        ready.erase(ready.begin());
        out.push_back(op);
        for (int succ : next[static_cast<std::size_t>(op)]) {
            if (--indegree[static_cast<std::size_t>(succ)] == 0)
                ready.insert({key(succ), succ});
        }
    }
    if (out.size() != ops) {
        // Some op waits on itself: name one whose chain predecessor depends on it.
        for (std::size_t op = 0; op < ops; ++op) {
            if (indegree[op] > 0 && prev[op] >= 0) {
                const auto& r = resources[static_cast<std::size_t>(
                    platform.device(placement.device_of_op[op]).resource)];
                throw LoweringError(fmt::format(
                    "the schedule of resource '{}' puts op '{}' before op '{}', which cannot "
                    "start until '{}' has run (a dependency cycle through the graph)",
                    r.name, op_name(prev[op]), op_name(static_cast<int>(op)), op_name(prev[op])));
            }
        }
        throw LoweringError("the schedule's orders contradict the graph's dependencies");
    }
    return {std::move(out), std::move(prev)};
}

int ExecGraph::compute_task_count() const {
    int n = 0;
    for (const auto& t : tasks)
        n += t.kind == TaskKind::compute ? 1 : 0;
    return n;
}

std::vector<ExecResourceSlot> resource_slots(const Platform& platform) {
    std::vector<ExecResourceSlot> slots;
    for (const auto& r : platform.resources()) {
        slots.push_back(ExecResourceSlot{r.name, "exec", r.capacity, false});
    }
    for (const auto& link : platform.links()) {
        // Shared and contention-free directions take any number of transfers at once (only
        // a `shared` one divides its bandwidth among them); a fifo one takes one.
        const bool shared = link.arbitration != Arbitration::fifo;
        const std::string group = link.model->trace_process();
        const std::string& process = group.empty() ? link.name : group;
        const std::string prefix = group.empty() ? std::string() : link.name + " ";
        slots.push_back(ExecResourceSlot{
            process, fmt::format("{}{}->{}", prefix, link.endpoint_a, link.endpoint_b), 1, true,
            shared});
        slots.push_back(ExecResourceSlot{
            process, fmt::format("{}{}->{}", prefix, link.endpoint_b, link.endpoint_a), 1, true,
            shared});
    }
    return slots;
}

int link_slot(const Platform& platform, int link_index, bool forward) {
    return static_cast<int>(platform.resources().size()) + 2 * link_index + (forward ? 0 : 1);
}

namespace {

class Lowerer {
public:
    Lowerer(const Graph& graph, const Placement& placement, const Platform& platform)
        : graph_(graph), placement_(placement), platform_(platform) {
        exec_.resources = resource_slots(platform);
        exec_.dispatch = platform.dispatch;
        exec_.graph = &graph;
        exec_.platform = &platform;
        // Shared resources: every memory that declares a bandwidth, every link direction
        // with shared arbitration (docs/DESIGN.md "Contention").
        const auto& components = platform.components();
        memory_resource_.assign(components.size(), -1);
        for (std::size_t c = 0; c < components.size(); ++c) {
            if (components[c].memory_bandwidth_Bps > 0.0) {
                memory_resource_[c] = static_cast<int>(exec_.shared_resources.size());
                exec_.shared_resources.push_back(SharedResource{
                    fmt::format("mem:{}", components[c].name), components[c].memory_bandwidth_Bps});
            }
        }
        const auto& links = platform.links();
        link_resource_.assign(2 * links.size(), -1);
        for (std::size_t l = 0; l < links.size(); ++l) {
            if (links[l].arbitration != Arbitration::shared)
                continue;
            for (bool forward : {true, false}) {
                if (!forward && links[l].one_way)
                    continue;
                link_resource_[2 * l + (forward ? 0 : 1)] =
                    static_cast<int>(exec_.shared_resources.size());
                exec_.shared_resources.push_back(
                    SharedResource{fmt::format("link:{}:{}->{}", links[l].name,
                                               forward ? links[l].endpoint_a : links[l].endpoint_b,
                                               forward ? links[l].endpoint_b : links[l].endpoint_a),
                                   links[l].model->bandwidth_Bps(forward)});
            }
        }
    }

    ExecGraph run() {
        if (static_cast<int>(placement_.device_of_op.size()) != graph_.op_count()) {
            throw LoweringError(fmt::format("placement has {} entries for a graph of {} ops",
                                            placement_.device_of_op.size(), graph_.op_count()));
        }
        if (placement_.schedule.empty()) {
            for (int op_id : graph_.topo_order())
                lower_op(op_id);
        } else {
            // A schedule: lower in its order and chain each resource's ops (docs/DESIGN.md
            // "Schedules"); the chain is a dependency like any other, so both evaluators and
            // every dispatch mode follow it.
            ScheduledOrder order = scheduled_op_order(graph_, placement_, platform_);
            chain_prev_ = std::move(order.previous_on_resource);
            compute_task_.assign(static_cast<std::size_t>(graph_.op_count()), -1);
            for (int op_id : order.ops)
                lower_op(op_id);
        }
        // Graph outputs end in the host memory in the host's dtype, and stay there.
        for (int t = 0; t < graph_.tensor_count(); ++t) {
            const Tensor& tensor = graph_.tensor(t);
            if (!tensor.is_graph_output || tensor.producer < 0)
                continue;
            const DType on_host = host_dtype(tensor.dtype);
            make_available(t, platform_.host_component, on_host);
            for (const auto& loc : where_[t]) {
                if (loc.component == platform_.host_component && loc.dtype == on_host)
                    exec_.buffers[static_cast<std::size_t>(loc.buffer)].persistent = true;
            }
        }
        check_streams_alone();
        return std::move(exec_);
    }

    // A stream through a shared resource slower than itself runs at that resource's rate even
    // alone: a memory of 1e-6 B/s made a stream of megabytes last 10^12 s, and the DES's
    // picosecond arithmetic overflowed into a latency of 0. Each stream alone must end within
    // the simulator's time range; the message names the resource that slows it.
    void check_streams_alone() const {
        std::vector<double> capacity_Bps;
        for (const SharedResource& r : exec_.shared_resources)
            capacity_Bps.push_back(r.capacity_Bps);
        for (const Task& task : exec_.tasks) {
            if (task.flow_ps <= 0 || task.shared.empty())
                continue;
            const double alone_Bps = alone_rate_Bps(capacity_Bps, task.flow_rate_Bps, task.shared);
            const double alone_ps =
                static_cast<double>(task.flow_ps) * (task.flow_rate_Bps / alone_Bps);
            if (alone_ps + static_cast<double>(task.fixed_ps) <=
                static_cast<double>(kMaxSimulatedPs))
                continue;
            int slowest = task.shared.front();
            for (int r : task.shared) {
                if (capacity_Bps[static_cast<std::size_t>(r)] <
                    capacity_Bps[static_cast<std::size_t>(slowest)])
                    slowest = r;
            }
            const SharedResource& r = exec_.shared_resources[static_cast<std::size_t>(slowest)];
            throw LimitError(fmt::format(
                "{} streams at most {:.3g} B/s through '{}' (its bandwidth), so alone it takes "
                "{:.3g} s, beyond the simulator's time range ({:.3g} s = 2^62 ps); raise that "
                "bandwidth",
                task.name, r.capacity_Bps, r.name, alone_ps * kSecondsPerPs,
                static_cast<double>(kMaxSimulatedPs) * kSecondsPerPs));
        }
    }

private:
    struct Location {
        std::string component;
        DType dtype;
        int task;    // task that made it available there; -1 = available from the start
        int buffer;  // ExecGraph::buffers entry holding it
    };

    int add_task(Task task, const std::vector<int>& preds) {
        int id = static_cast<int>(exec_.tasks.size());
        task.order = id;
        for (int p : preds) {
            if (p < 0)
                continue;
            exec_.tasks[static_cast<std::size_t>(p)].successors.push_back(id);
            ++task.predecessor_count;
        }
        exec_.tasks.push_back(std::move(task));
        return id;
    }

    int add_buffer(const std::string& component, std::int64_t bytes, int tensor, int producer,
                   bool persistent) {
        Buffer b;
        b.component = platform_.component_index(component);
        b.bytes = bytes;
        b.tensor = tensor;
        b.producer = producer;
        b.persistent = persistent;
        exec_.buffers.push_back(b);
        const int id = static_cast<int>(exec_.buffers.size()) - 1;
        if (producer >= 0)
            exec_.tasks[static_cast<std::size_t>(producer)].fills_buffer = id;
        return id;
    }

    void add_reader(int task, int buffer) {
        exec_.tasks[static_cast<std::size_t>(task)].reads_buffers.push_back(buffer);
        ++exec_.buffers[static_cast<std::size_t>(buffer)].readers;
    }

    // Records a new copy of `tensor_id` made by `task` in `component` as `dtype`.
    Location record(int tensor_id, const std::string& component, DType dtype, int task) {
        const std::int64_t bytes = graph_.tensor(tensor_id).elements() * dtype_size_bytes(dtype);
        Location loc{component, dtype, task, add_buffer(component, bytes, tensor_id, task, false)};
        where_[tensor_id].push_back(loc);
        return loc;
    }

    // The dtype graph inputs and outputs take in the host memory: the host's device's (a host
    // that feeds an int8 package hands it int8 tensors); declared for a host without devices.
    DType host_dtype(DType declared) const {
        const int device = first_device(platform_, platform_.host_component);
        return device < 0 ? declared : dtype_on(platform_.device(device), declared);
    }

    // A conversion or one hop of a route, costed by transfer_cost (sim/transfer_cost.hpp),
    // applied to the copy `src` of `tensor_id`: a new task and the copy it makes.
    Location add_step(int tensor_id, const Location& src, const TransferStep& step) {
        Task task;
        task.kind = step.kind;
        task.name = step.name;
        task.tensor = tensor_id;
        task.bytes = step.bytes;
        task.fixed_ps = step.fixed_ps;
        task.access_ps = step.access_ps;
        task.flow_ps = step.flow_ps;
        task.flow_rate_Bps = step.flow_rate_Bps;
        task.duration_ps = step.duration_ps();
        if (step.kind == TaskKind::convert) {
            task.device = step.device;
            task.resource = platform_.device(step.device).resource;
            task.units = 1;
        } else {
            task.link = step.link;
            task.forward = step.forward;
            task.resource = link_slot(platform_, step.link, step.forward);
            const int link_res =
                link_resource_[2 * static_cast<std::size_t>(step.link) + (step.forward ? 0 : 1)];
            for (int r : {link_res,
                          memory_resource_[static_cast<std::size_t>(
                              platform_.component_index(step.from_component))],
                          memory_resource_[static_cast<std::size_t>(
                              platform_.component_index(step.to_component))]}) {
                if (r >= 0)
                    task.shared.push_back(r);
            }
        }
        const int id = add_task(std::move(task), {src.task});
        add_reader(id, src.buffer);
        return record(tensor_id, step.to_component, step.to_dtype, id);
    }

    // The copy to start from: the producer's, unless a copy staged in a relay on the way to
    // an earlier reader (in the producer's dtype) is fewer hops away, so a tensor crosses
    // each hop at most once. Copies in other memories are never re-sent, and conversions
    // stay where lowering has always put them (on the link's converting side, per copy),
    // which the lee2022 DP's cost model relies on.
    Location best_source(int tensor_id, const std::string& component) const {
        const auto& locations = where_.at(tensor_id);
        const DType produced = locations.front().dtype;
        const Location* best = nullptr;
        std::size_t best_hops = 0;
        for (const auto& loc : locations) {
            if (&loc != &locations.front() &&
                (loc.dtype != produced || !platform_.is_relay(loc.component)))
                continue;
            const std::vector<Hop>* r = platform_.route(loc.component, component);
            if (r != nullptr && (best == nullptr || r->size() < best_hops)) {
                best = &loc;
                best_hops = r->size();
            }
        }
        if (best == nullptr) {
            throw LoweringError(
                fmt::format("tensor '{}' must move from '{}' to '{}', but no route connects them",
                            graph_.tensor(tensor_id).name, locations.front().component, component));
        }
        return *best;
    }

    // Returns the task after which `tensor_id` is in `component` as `dtype` (-1: from start).
    int make_available(int tensor_id, const std::string& component, DType dtype) {
        return make_available_at(tensor_id, component, dtype).task;
    }

    Location make_available_at(int tensor_id, const std::string& component, DType dtype) {
        auto it = where_.find(tensor_id);
        if (it == where_.end() || it->second.empty()) {
            throw LoweringError(fmt::format("tensor '{}' is read before it is produced",
                                            graph_.tensor(tensor_id).name));
        }
        for (const auto& loc : it->second) {
            if (loc.component == component && loc.dtype == dtype)
                return loc;
        }
        Location cur = best_source(tensor_id, component);
        const Tensor& tensor = graph_.tensor(tensor_id);
        const TransferCost moves = transfer_cost(platform_, cur.component, cur.dtype, component,
                                                 dtype, tensor.elements(), tensor.name);
        for (const TransferStep& step : moves.steps)
            cur = add_step(tensor_id, cur, step);
        return cur;
    }

    void lower_op(int op_id) {
        const Op& op = graph_.op(op_id);
        int device_index = placement_.device_of_op[static_cast<std::size_t>(op_id)];
        if (device_index < 0 || device_index >= platform_.device_count()) {
            throw LoweringError(
                fmt::format("op '{}' is placed on device index {}, which does not exist", op.name,
                            device_index));
        }
        const Device& device = platform_.device(device_index);
        Support support = device.model->supports(graph_, op);
        if (!support.ok) {
            throw LoweringError(fmt::format("op '{}' ({}) is placed on {}, which cannot run it: {}",
                                            op.name, op.type, device.name, support.reason));
        }
        std::vector<int> preds;
        std::vector<int> reads;  // buffers, and the tensors in them
        std::vector<int> read_tensors;
        for (int t : op.inputs) {
            const Tensor& tensor = graph_.tensor(t);
            if (tensor.kind == TensorKind::weight) {
                // Resident where it is used, for the whole run, once per component.
                const auto key = std::make_pair(t, device.component);
                if (weight_buffer_.count(key) == 0) {
                    // In the dtype the device keeps its tensors in (lee2022's PIM holds bf16
                    // weights, an int8 chiplet int8 ones).
                    const std::int64_t bytes =
                        tensor.elements() * dtype_size_bytes(dtype_on(device, tensor.dtype));
                    weight_buffer_[key] = add_buffer(device.component, bytes, t, -1, true);
                }
                continue;
            }
            if (tensor.kind == TensorKind::input && where_.count(t) == 0) {
                const DType on_host = host_dtype(tensor.dtype);
                const int buffer =
                    add_buffer(platform_.host_component,
                               tensor.elements() * dtype_size_bytes(on_host), t, -1, false);
                where_[t].push_back(Location{platform_.host_component, on_host, -1, buffer});
            }
            const Location loc =
                make_available_at(t, device.component, dtype_on(device, tensor.dtype));
            preds.push_back(loc.task);
            reads.push_back(loc.buffer);
            read_tensors.push_back(t);
        }
        Task task;
        task.kind = TaskKind::compute;
        task.name = op.name;
        task.op = op_id;
        task.device = device_index;
        task.resource = device.resource;
        task.units = device.units;
        // Named down to the component and its file: a duration out of range comes from its
        // clock, bandwidths or overheads (or from the op's size).
        const std::string what = fmt::format(
            "op '{}' ({}) on {} (component '{}'{})", op.name, op.type, device.name,
            device.component,
            platform_.source_file.empty() ? "" : fmt::format(" of {}", platform_.source_file));
        const int memory_res =
            memory_resource_[static_cast<std::size_t>(platform_.component_index(device.component))];
        const DeviceModel::Timing timing =
            memory_res >= 0 ? device.model->op_timing(graph_, op) : DeviceModel::Timing{};
        if (memory_res >= 0 && timing.memory_bytes > 0.0 && timing.memory_rate_Bps > 0.0) {
            task.fixed_ps = to_ps(timing.fixed_s, what);
            task.flow_ps = to_ps(timing.memory_bytes / timing.memory_rate_Bps, what);
            task.flow_rate_Bps = timing.memory_rate_Bps;
            task.shared.push_back(memory_res);
            task.duration_ps = task.fixed_ps + task.flow_ps;
        } else {
            task.duration_ps = to_ps(device.model->op_time_s(graph_, op), what);
            task.fixed_ps = task.duration_ps;
        }
        task.bytes = op.bytes_written;
        if (!compute_task_.empty()) {
            const auto u = static_cast<std::size_t>(op_id);
            if (chain_prev_[u] >= 0)
                preds.push_back(compute_task_[static_cast<std::size_t>(chain_prev_[u])]);
            if (placement_.schedule.has_plan()) {
                task.planned_start_ps = to_ps(placement_.schedule.planned_start_s[u],
                                              fmt::format("the planned start of op '{}'", op.name));
            }
        }
        int id = add_task(std::move(task), preds);
        if (!compute_task_.empty())
            compute_task_[static_cast<std::size_t>(op_id)] = id;
        for (int b : reads)
            add_reader(id, b);
        // A view (Reshape, Squeeze, ...) aliases its input: its output is the same bytes, so
        // it shares the input's buffer, which then lives until the view's readers are done.
        const bool aliases =
            op_category(op.type) == OpCategory::view && reads.size() == 1 &&
            op.outputs.size() == 1 &&
            graph_.tensor(op.outputs.front()).dtype == graph_.tensor(read_tensors.front()).dtype &&
            exec_.buffers[static_cast<std::size_t>(reads.front())].component ==
                platform_.component_index(device.component);
        for (int t : op.outputs) {
            const DType dtype = dtype_on(device, graph_.tensor(t).dtype);
            if (aliases)
                where_[t].push_back(Location{device.component, dtype, id, reads.front()});
            else
                record(t, device.component, dtype, id);
        }
    }

    const Graph& graph_;
    const Placement& placement_;
    const Platform& platform_;
    ExecGraph exec_;
    std::map<int, std::vector<Location>> where_;
    std::map<std::pair<int, std::string>, int> weight_buffer_;
    std::vector<int> chain_prev_;       // with a schedule: the op before each on its resource
    std::vector<int> compute_task_;     // with a schedule: each op's compute task (-1: not yet)
    std::vector<int> memory_resource_;  // per component: shared resource or -1
    std::vector<int> link_resource_;    // per link direction (2 l + backward): or -1
};

}  // namespace

ExecGraph lower(const Graph& graph, const Placement& placement, const Platform& platform) {
    ExecGraph exec = Lowerer(placed_graph(graph, placement), placement, platform).run();
    exec.index = std::make_shared<const ExecIndex>(exec);
    return exec;
}

}  // namespace hetsim::sim
