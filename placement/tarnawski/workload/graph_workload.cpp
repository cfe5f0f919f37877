#include "placement/tarnawski/workload/graph_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "sim/transfer_cost.hpp"

namespace hetsim::placement::tarnawski {

namespace {

// By role, never by device type or name (README "Extending hetsim"): a CPU is a host_cpu
// device of the host component that occupies one unit (core) of its resource; an accelerator
// is a device of any other role in another memory that the host reaches over a link.
bool is_cpu_core(const sim::Platform& platform, const sim::Device& device) {
    return device.component == platform.host_component &&
           device.role() == sim::DeviceRole::host_cpu && device.units == 1;
}

bool is_accelerator(const sim::Platform& platform, const sim::Device& device) {
    return device.role() != sim::DeviceRole::host_cpu &&
           device.component != platform.host_component &&
           platform.route(platform.host_component, device.component) != nullptr;
}

}  // namespace

GraphWorkload workload_from_graph(const sim::Graph& graph, const sim::Platform& platform) {
    GraphWorkload gw;
    const std::string& host = platform.host_component;
    for (int d = 0; d < platform.device_count(); ++d) {
        const sim::Device& device = platform.device(d);
        if (is_cpu_core(platform, device))
            gw.cpu_devices.push_back(d);
        else if (is_accelerator(platform, device))
            gw.accelerator_devices.push_back(d);
    }
    if (gw.cpu_devices.empty() || gw.accelerator_devices.empty()) {
        throw SolverError(fmt::format(
            "platform '{}' is not a tarnawski2020 instance: it needs one-core host_cpu devices on "
            "the host '{}' and devices of another role linked to it (found {} CPUs, {} "
            "accelerators)",
            platform.name, host, gw.cpu_devices.size(), gw.accelerator_devices.size()));
    }
    const sim::Device& cpu = platform.device(gw.cpu_devices.front());
    const sim::Device& acc = platform.device(gw.accelerator_devices.front());

    Workload& w = gw.workload;
    w.max_cpus = static_cast<int>(gw.cpu_devices.size());
    w.max_accelerators = static_cast<int>(gw.accelerator_devices.size());
    w.max_size_per_accelerator = std::numeric_limits<double>::infinity();
    for (int d : gw.accelerator_devices) {
        const sim::Component* c = platform.find_component(platform.device(d).component);
        if (c != nullptr && c->memory_bytes > 0) {
            w.max_size_per_accelerator =
                std::min(w.max_size_per_accelerator, static_cast<double>(c->memory_bytes));
        }
    }

    for (int v = 0; v < graph.op_count(); ++v) {
        const sim::Op& op = graph.op(v);
        const sim::Support on_cpu = cpu.model->supports(graph, op);
        if (!on_cpu.ok) {
            throw SolverError(fmt::format("op '{}' ({}) cannot run on CPU {}: {}", op.name, op.type,
                                          cpu.name, on_cpu.reason));
        }
        const bool supported = acc.model->supports(graph, op).ok;
        const double acc_time =
            supported ? acc.model->op_time_s(graph, op) : std::numeric_limits<double>::infinity();
        for (int d : gw.accelerator_devices) {
            const sim::Device& other = platform.device(d);
            const bool same_support = other.model->supports(graph, op).ok == supported;
            if (!same_support || (supported && other.model->op_time_s(graph, op) != acc_time)) {
                throw SolverError(fmt::format(
                    "tarnawski placers need identical accelerators; {} and {} differ on op '{}'",
                    acc.name, other.name, op.name));
            }
        }
        double bytes = 0.0;
        for (int t : op.inputs) {
            if (graph.tensor(t).kind == sim::TensorKind::weight)
                bytes += static_cast<double>(graph.tensor(t).size_bytes());
        }
        for (int t : op.outputs)
            bytes += static_cast<double>(graph.tensor(t).size_bytes());
        const int node =
            w.add_node(v, cpu.model->op_time_s(graph, op), acc_time, bytes, false, supported);
        w.name[static_cast<std::size_t>(node)] = op.name;
    }
    // One edge per producer -> consumer pair carrying every tensor between them, sent together
    // (one transfer per dtype).
    for (int u = 0; u < graph.op_count(); ++u) {
        std::map<int, std::map<sim::DType, std::int64_t>> elements_to;
        for (int t : graph.op(u).outputs) {
            for (int v : graph.tensor(t).consumers)
                elements_to[v][graph.tensor(t).dtype] += graph.tensor(t).elements();
        }
        for (const auto& [v, by_dtype] : elements_to) {
            // tarnawski2020 §3: an edge costs the transfer from the host to an accelerator, as
            // the simulator charges it (sim/transfer_cost.hpp: route, conversions, latencies).
            double seconds = 0.0;
            for (const auto& [dtype, elements] : by_dtype) {
                seconds += sim::transfer_cost(platform, host, sim::dtype_on(cpu, dtype),
                                              acc.component, sim::dtype_on(acc, dtype), elements,
                                              graph.tensor(graph.op(u).outputs.front()).name)
                               .seconds();
            }
            w.add_edge(u, v, seconds);
        }
    }
    return gw;
}

sim::Placement placement_from_assignment(const GraphWorkload& gw, const Assignment& assignment) {
    const Workload& w = gw.workload;
    sim::Placement placement;
    placement.device_of_op.resize(w.node_count());
    for (std::size_t v = 0; v < w.node_count(); ++v) {
        const int d = assignment.device_of_node.at(v);
        placement.device_of_op[static_cast<std::size_t>(w.id[v])] =
            is_accelerator_device(w, d)
                ? gw.accelerator_devices.at(static_cast<std::size_t>(d - w.max_cpus))
                : gw.cpu_devices.at(static_cast<std::size_t>(d));
    }
    return placement;
}

std::optional<std::size_t> count_graph_ideals(const sim::Graph& graph, std::size_t limit) {
    // Ops at the same depth (longest path from a source) form an antichain, and every subset of
    // an antichain of w ops generates its own ideal: a level of w ops means >= 2^w ideals, so a
    // wide graph is answered without enumerating up to the limit.
    std::vector<int> depth(static_cast<std::size_t>(graph.op_count()), 0);
    std::map<int, std::size_t> level_size;
    for (int v : graph.topo_order()) {
        int d = 0;
        for (int p : graph.predecessors(v))
            d = std::max(d, depth[static_cast<std::size_t>(p)] + 1);
        depth[static_cast<std::size_t>(v)] = d;
        const std::size_t w = ++level_size[d];
        if (w >= 64 || (std::size_t{1} << w) > limit)
            return std::nullopt;
    }
    Workload dag;
    for (int v = 0; v < graph.op_count(); ++v)
        dag.add_node(v, 0.0, 0.0);
    for (int v = 0; v < graph.op_count(); ++v)
        for (int s : graph.successors(v))
            dag.add_edge(v, s, 0.0);
    DpOptions options;
    options.merge_trivial_nodes = false;  // the op DAG's own ideals, one group per op
    options.max_ideals = limit;
    try {
        return count_ideals(dag, options).ideals;
    } catch (const DpError&) {
        return std::nullopt;  // more than `limit` (a finalized graph has no cycle)
    }
}

}  // namespace hetsim::placement::tarnawski
