// lower(): Graph + Placement + Platform -> ExecGraph with explicit transfers and conversions.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "sim/exec_graph.hpp"

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

std::int64_t to_ps(double seconds) {
    if (!(seconds >= 0.0) || !std::isfinite(seconds)) {
        throw LoweringError(fmt::format("invalid duration {} s from a cost model", seconds));
    }
    return std::llround(seconds / kSecondsPerPs);
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
        slots.push_back(ExecResourceSlot{
            link.name, fmt::format("{}->{}", link.endpoint_a, link.endpoint_b), 1, true});
        slots.push_back(ExecResourceSlot{
            link.name, fmt::format("{}->{}", link.endpoint_b, link.endpoint_a), 1, true});
    }
    return slots;
}

int link_slot(const Platform& platform, int link_index, bool forward) {
    return static_cast<int>(platform.resources().size()) + 2 * link_index + (forward ? 0 : 1);
}

namespace {

bool is_float(DType d) {
    return d == DType::f32 || d == DType::bf16 || d == DType::f16;
}

class Lowerer {
public:
    Lowerer(const Graph& graph, const Placement& placement, const Platform& platform)
        : graph_(graph), placement_(placement), platform_(platform) {
        exec_.resources = resource_slots(platform);
        exec_.dispatch = platform.dispatch;
        exec_.graph = &graph;
        exec_.platform = &platform;
    }

    ExecGraph run() {
        if (static_cast<int>(placement_.device_of_op.size()) != graph_.op_count()) {
            throw LoweringError(fmt::format("placement has {} entries for a graph of {} ops",
                                            placement_.device_of_op.size(), graph_.op_count()));
        }
        for (int op_id : graph_.topo_order())
            lower_op(op_id);
        // Graph outputs end in the host memory in their declared dtype.
        for (int t = 0; t < graph_.tensor_count(); ++t) {
            const Tensor& tensor = graph_.tensor(t);
            if (!tensor.is_graph_output || tensor.producer < 0)
                continue;
            make_available(t, platform_.host_component, tensor.dtype);
        }
        return std::move(exec_);
    }

private:
    struct Location {
        std::string component;
        DType dtype;
        int task;  // task that made it available there; -1 = available from the start
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

    DType dtype_on(const Device& device, DType declared) const {
        return is_float(declared) ? device.model->compute_dtype() : declared;
    }

    // Device whose resource runs conversions for `component` (its first device).
    int converter_device(const std::string& component) const {
        for (int d = 0; d < platform_.device_count(); ++d) {
            if (platform_.device(d).component == component)
                return d;
        }
        return -1;
    }

    int add_convert(int tensor_id, const std::string& component, DType from, DType to, int pred) {
        const Component* comp = platform_.find_component(component);
        int device = converter_device(component);
        if (comp == nullptr || comp->converter == nullptr || device < 0) {
            throw LoweringError(fmt::format(
                "tensor '{}' must be converted {} -> {} on component '{}', which cannot convert",
                graph_.tensor(tensor_id).name, to_string(from), to_string(to), component));
        }
        const Tensor& tensor = graph_.tensor(tensor_id);
        Task task;
        task.kind = TaskKind::convert;
        task.name = fmt::format("{} {}->{}", tensor.name, to_string(from), to_string(to));
        task.tensor = tensor_id;
        task.device = device;
        task.resource = platform_.device(device).resource;
        task.units = 1;
        task.duration_ps = to_ps(comp->converter->conversion_time_s(tensor.elements(), from, to));
        task.bytes = tensor.elements() * dtype_size_bytes(to);
        return add_task(std::move(task), {pred});
    }

    int add_transfer(int tensor_id, const std::string& from, const std::string& to, DType dtype,
                     int pred) {
        auto route = platform_.route(from, to);
        if (!route) {
            throw LoweringError(
                fmt::format("tensor '{}' must move from '{}' to '{}', but no link "
                            "connects them",
                            graph_.tensor(tensor_id).name, from, to));
        }
        const Tensor& tensor = graph_.tensor(tensor_id);
        int link_index = static_cast<int>(route->link - platform_.links().data());
        Task task;
        task.kind = TaskKind::transfer;
        task.name = fmt::format("{} {}->{}", tensor.name, from, to);
        task.tensor = tensor_id;
        task.link = link_index;
        task.forward = route->forward;
        task.resource = link_slot(platform_, link_index, route->forward);
        task.bytes = tensor.elements() * dtype_size_bytes(dtype);
        task.duration_ps = to_ps(route->link->model->transfer_time_s(task.bytes, route->forward));
        return add_task(std::move(task), {pred});
    }

    // Returns the task after which `tensor_id` is in `component` as `dtype` (-1: from start).
    int make_available(int tensor_id, const std::string& component, DType dtype) {
        auto& locations = where_[tensor_id];
        for (const auto& loc : locations) {
            if (loc.component == component && loc.dtype == dtype)
                return loc.task;
        }
        if (locations.empty()) {
            throw LoweringError(fmt::format("tensor '{}' is read before it is produced",
                                            graph_.tensor(tensor_id).name));
        }
        Location src = locations.front();  // where it was produced
        const std::string& host = platform_.host_component;
        if (src.component != component && !platform_.route(src.component, component) &&
            !host.empty() && src.component != host && component != host &&
            platform_.route(src.component, host) && platform_.route(host, component)) {
            // No direct link: stage through the host's memory, once per tensor, so that every
            // other reader copies from there (tarnawski2020 §3: accelerators exchange data
            // through CPU DRAM, the producer's transfer out paid once).
            const int at_host = make_available(tensor_id, host, src.dtype);
            src = Location{host, src.dtype, at_host};
        }
        int ready = src.task;
        if (src.component == component) {
            // Same memory, other dtype: convert in place.
            ready = add_convert(tensor_id, component, src.dtype, dtype, ready);
        } else {
            auto route = platform_.route(src.component, component);
            std::string converter =
                route ? route->link->model->converting_component() : std::string{};
            if (src.dtype != dtype && converter == src.component) {
                ready = add_convert(tensor_id, src.component, src.dtype, dtype, ready);
                ready = add_transfer(tensor_id, src.component, component, dtype, ready);
            } else if (src.dtype != dtype) {
                ready = add_transfer(tensor_id, src.component, component, src.dtype, ready);
                if (converter != component) {
                    throw LoweringError(fmt::format(
                        "tensor '{}' crosses '{}' -> '{}' as {} but is needed as {}, and the "
                        "link converts on neither side",
                        graph_.tensor(tensor_id).name, src.component, component,
                        to_string(src.dtype), to_string(dtype)));
                }
                ready = add_convert(tensor_id, component, src.dtype, dtype, ready);
            } else {
                ready = add_transfer(tensor_id, src.component, component, dtype, ready);
            }
        }
        locations.push_back(Location{component, dtype, ready});
        return ready;
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
        for (int t : op.inputs) {
            const Tensor& tensor = graph_.tensor(t);
            if (tensor.kind == TensorKind::weight)
                continue;  // resident where it is used
            if (tensor.kind == TensorKind::input && where_.count(t) == 0) {
                where_[t].push_back(Location{platform_.host_component, tensor.dtype, -1});
            }
            preds.push_back(make_available(t, device.component, dtype_on(device, tensor.dtype)));
        }
        Task task;
        task.kind = TaskKind::compute;
        task.name = op.name;
        task.op = op_id;
        task.device = device_index;
        task.resource = device.resource;
        task.units = device.units;
        task.duration_ps = to_ps(device.model->op_time_s(graph_, op));
        task.bytes = op.bytes_written;
        int id = add_task(std::move(task), preds);
        for (int t : op.outputs) {
            where_[t].push_back(
                Location{device.component, dtype_on(device, graph_.tensor(t).dtype), id});
        }
    }

    const Graph& graph_;
    const Placement& placement_;
    const Platform& platform_;
    ExecGraph exec_;
    std::map<int, std::vector<Location>> where_;
};

}  // namespace

ExecGraph lower(const Graph& graph, const Placement& placement, const Platform& platform) {
    return Lowerer(graph, placement, platform).run();
}

}  // namespace hetsim::sim
