#include "placement/mcm/constraints.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "sim/config.hpp"
#include "sim/device_role.hpp"

namespace hetsim::placement::mcm {

namespace {

struct Edge {
    int from = -1;  // op ids
    int to = -1;
};

// Producer -> consumer activation edges, by producer's topological position, then consumer id.
std::vector<Edge> edges_in_topo_order(const sim::Graph& graph) {
    std::vector<Edge> edges;
    for (int u : graph.topo_order()) {
        for (int v : graph.successors(u))
            edges.push_back({u, v});
    }
    return edges;
}

void check_assignment(const sim::Graph& graph, const std::vector<int>& chip_of_op, int chip_count) {
    if (static_cast<int>(chip_of_op.size()) != graph.op_count()) {
        throw std::invalid_argument(fmt::format("partition has {} entries, graph '{}' has {} ops",
                                                chip_of_op.size(), graph.name(), graph.op_count()));
    }
    for (int op = 0; op < graph.op_count(); ++op) {
        const int chip = chip_of_op[static_cast<std::size_t>(op)];
        if (chip < 0 || chip >= chip_count) {
            throw std::invalid_argument(fmt::format("op '{}' is on chip {}, expected 0..{}",
                                                    graph.op(op).name, chip, chip_count - 1));
        }
    }
}

std::string quoted(const sim::Graph& graph, int op) {
    return fmt::format("'{}'", graph.op(op).name);
}

}  // namespace

std::string_view to_string(Constraint constraint) {
    switch (constraint) {
        case Constraint::acyclic:
            return "acyclic";
        case Constraint::no_skip:
            return "no-skip";
        case Constraint::triangle:
            return "triangle";
        case Constraint::memory:
            return "memory";
    }
    return "?";
}

std::vector<Violation> check_static_constraints(const sim::Graph& graph,
                                                const std::vector<int>& chip_of_op,
                                                int chip_count) {
    check_assignment(graph, chip_of_op, chip_count);
    auto chip = [&](int op) { return chip_of_op[static_cast<std::size_t>(op)]; };
    const std::vector<Edge> edges = edges_in_topo_order(graph);
    std::vector<Violation> violations;

    // Eq. 2: the ring's links are one-way, so data only flows to higher chip indices.
    for (const Edge& e : edges) {
        if (chip(e.from) > chip(e.to)) {
            violations.push_back(
                {Constraint::acyclic,
                 {graph.op(e.from).name, graph.op(e.to).name},
                 {chip(e.from), chip(e.to)},
                 fmt::format("acyclic (Eq. 2): ops {} (chip {}) -> {} (chip {}) sends data "
                             "backwards on the one-way ring",
                             quoted(graph, e.from), chip(e.from), quoted(graph, e.to),
                             chip(e.to))});
        }
    }

    // Eq. 3: d <= f(u) implies some op is on d, i.e. the used chips are exactly 0..k.
    std::vector<int> first_op_on(static_cast<std::size_t>(chip_count), -1);
    for (int op : graph.topo_order()) {
        auto& first = first_op_on[static_cast<std::size_t>(chip(op))];
        if (first < 0)
            first = op;
    }
    int highest_used = -1;
    for (int c = 0; c < chip_count; ++c) {
        if (first_op_on[static_cast<std::size_t>(c)] >= 0)
            highest_used = c;
    }
    for (int c = 0; c < highest_used; ++c) {
        if (first_op_on[static_cast<std::size_t>(c)] >= 0)
            continue;
        const int witness = first_op_on[static_cast<std::size_t>(highest_used)];
        violations.push_back({Constraint::no_skip,
                              {graph.op(witness).name},
                              {c, highest_used},
                              fmt::format("no-skip (Eq. 3): chip {} has no op, but chip {} is "
                                          "used (op {})",
                                          c, highest_used, quoted(graph, witness))});
    }

    // Eq. 4: the chip graph has an edge d0 -> d1 when a cut edge goes from d0 to d1 (its
    // witness is the first such graph edge). Backward cut edges are Eq. 2's violations and are
    // left out, so the chip graph only goes up in index: ascending chip order is topological.
    const auto n = static_cast<std::size_t>(chip_count);
    std::map<std::pair<int, int>, Edge> witness_of;
    for (const Edge& e : edges) {
        if (chip(e.from) < chip(e.to))
            witness_of.emplace(std::pair{chip(e.from), chip(e.to)}, e);
    }
    // longest[d0][d1]: delta(d0, d1), the longest chip path (in chip edges), -1 = unreachable;
    // next[d0][d1]: the chip after d0 on one such longest path.
    std::vector<std::vector<int>> longest(n, std::vector<int>(n, -1));
    std::vector<std::vector<int>> next(n, std::vector<int>(n, -1));
    for (int d0 = chip_count - 1; d0 >= 0; --d0) {
        const auto i = static_cast<std::size_t>(d0);
        longest[i][i] = 0;
        for (const auto& [key, edge] : witness_of) {
            if (key.first != d0)
                continue;
            const auto mid = static_cast<std::size_t>(key.second);
            for (std::size_t d1 = mid; d1 < n; ++d1) {
                if (longest[mid][d1] >= 0 && longest[mid][d1] + 1 > longest[i][d1]) {
                    longest[i][d1] = longest[mid][d1] + 1;
                    next[i][d1] = key.second;
                }
            }
        }
    }
    for (const Edge& e : edges) {
        const int d0 = chip(e.from);
        const int d1 = chip(e.to);
        if (d0 >= d1 || longest[static_cast<std::size_t>(d0)][static_cast<std::size_t>(d1)] == 1)
            continue;
        std::vector<int> through;
        std::vector<std::string> hops;
        Violation v{Constraint::triangle, {graph.op(e.from).name, graph.op(e.to).name}, {d0}, {}};
        for (int at = d0; at != d1;) {
            const int after = next[static_cast<std::size_t>(at)][static_cast<std::size_t>(d1)];
            const Edge& w = witness_of.at({at, after});
            hops.push_back(fmt::format("{}->{}", quoted(graph, w.from), quoted(graph, w.to)));
            v.ops.push_back(graph.op(w.from).name);
            v.ops.push_back(graph.op(w.to).name);
            if (after != d1)
                through.push_back(after);
            v.chips.push_back(after);
            at = after;
        }
        v.message = fmt::format(
            "triangle (Eq. 4): ops {} (chip {}) -> {} (chip {}) is a direct dependency, but chip "
            "{} reaches chip {} through chip{} {} (ops {})",
            quoted(graph, e.from), d0, quoted(graph, e.to), d1, d0, d1,
            through.size() > 1 ? "s" : "", fmt::join(through, ", "), fmt::join(hops, ", "));
        violations.push_back(std::move(v));
    }
    return violations;
}

std::vector<ChipMemory> chip_memory(const sim::Graph& graph, const std::vector<int>& chip_of_op,
                                    const std::vector<std::int64_t>& capacity_bytes,
                                    const std::vector<std::int64_t>& tensor_bytes) {
    const int chip_count = static_cast<int>(capacity_bytes.size());
    check_assignment(graph, chip_of_op, chip_count);
    if (!tensor_bytes.empty() && static_cast<int>(tensor_bytes.size()) != graph.tensor_count()) {
        throw std::invalid_argument(
            fmt::format("tensor_bytes has {} entries, graph '{}' has {} "
                        "tensors",
                        tensor_bytes.size(), graph.name(), graph.tensor_count()));
    }
    auto bytes_of = [&](int t) {
        return tensor_bytes.empty() ? graph.tensor(t).size_bytes()
                                    : tensor_bytes[static_cast<std::size_t>(t)];
    };
    auto chip = [&](int op) { return chip_of_op[static_cast<std::size_t>(op)]; };

    // The schedule: topological order restricted to each chip.
    std::vector<std::vector<int>> schedule(static_cast<std::size_t>(chip_count));
    std::vector<int> step_of(static_cast<std::size_t>(graph.op_count()), -1);
    for (int op : graph.topo_order()) {
        auto& ops = schedule[static_cast<std::size_t>(chip(op))];
        step_of[static_cast<std::size_t>(op)] = static_cast<int>(ops.size());
        ops.push_back(op);
    }

    std::vector<ChipMemory> result;
    for (int c = 0; c < chip_count; ++c) {
        const auto& ops = schedule[static_cast<std::size_t>(c)];
        ChipMemory m;
        m.chip = c;
        m.ops = static_cast<int>(ops.size());
        m.capacity_bytes = capacity_bytes[static_cast<std::size_t>(c)];
        if (ops.empty()) {
            result.push_back(m);
            continue;
        }
        const int last_step = m.ops - 1;
        // Live bytes per step as a difference array over [first, last] intervals.
        std::vector<std::int64_t> delta(ops.size() + 1, 0);
        std::set<int> weights;
        std::set<int> tensors;  // every non-weight tensor an op of the chip reads or writes
        for (int op : ops) {
            for (int t : graph.op(op).inputs) {
                if (graph.tensor(t).kind == sim::TensorKind::weight)
                    weights.insert(t);
                else
                    tensors.insert(t);
            }
            for (int t : graph.op(op).outputs)
                tensors.insert(t);
        }
        for (int t : weights)
            m.weight_bytes += bytes_of(t);
        for (int t : tensors) {
            const sim::Tensor& tensor = graph.tensor(t);
            const bool local_producer = tensor.producer >= 0 && chip(tensor.producer) == c;
            int first = local_producer ? step_of[static_cast<std::size_t>(tensor.producer)] : 0;
            int last = first;
            bool leaves = local_producer && tensor.is_graph_output;
            for (int consumer : tensor.consumers) {
                if (chip(consumer) == c)
                    last = std::max(last, step_of[static_cast<std::size_t>(consumer)]);
                else
                    leaves = leaves || local_producer;
            }
            if (leaves)
                last = last_step;
            delta[static_cast<std::size_t>(first)] += bytes_of(t);
            delta[static_cast<std::size_t>(last) + 1] -= bytes_of(t);
        }
        std::int64_t live = 0;
        for (int step = 0; step <= last_step; ++step) {
            live += delta[static_cast<std::size_t>(step)];
            if (m.peak_op < 0 || live > m.activation_bytes) {
                m.activation_bytes = live;
                m.peak_op = ops[static_cast<std::size_t>(step)];
            }
        }
        result.push_back(m);
    }
    return result;
}

std::vector<Violation> check_memory(const sim::Graph& graph, const std::vector<int>& chip_of_op,
                                    const std::vector<std::int64_t>& capacity_bytes,
                                    const std::vector<std::int64_t>& tensor_bytes) {
    std::vector<Violation> violations;
    for (const ChipMemory& m : chip_memory(graph, chip_of_op, capacity_bytes, tensor_bytes)) {
        if (m.capacity_bytes <= 0 || m.peak_bytes() <= m.capacity_bytes)
            continue;
        const std::string& op = graph.op(m.peak_op).name;
        violations.push_back(
            {Constraint::memory,
             {op},
             {m.chip},
             fmt::format("memory (H): chip {} needs {} B at op '{}' (activations {} B + weights "
                         "{} B), more than its {} B of SRAM",
                         m.chip, m.peak_bytes(), op, m.activation_bytes, m.weight_bytes,
                         m.capacity_bytes)});
    }
    return violations;
}

std::vector<Violation> check_partition(const sim::Graph& graph, const std::vector<int>& chip_of_op,
                                       const std::vector<std::int64_t>& capacity_bytes,
                                       const std::vector<std::int64_t>& tensor_bytes) {
    std::vector<Violation> violations =
        check_static_constraints(graph, chip_of_op, static_cast<int>(capacity_bytes.size()));
    for (Violation& v : check_memory(graph, chip_of_op, capacity_bytes, tensor_bytes))
        violations.push_back(std::move(v));
    return violations;
}

std::vector<int> chiplet_ring_order(const sim::Platform& platform) {
    auto fail = [&](const std::string& message) -> void {
        throw sim::InputError(platform.source_file, "", 0,
                              fmt::format("platform '{}': {}", platform.name, message));
    };
    std::map<std::string, int> device_on;  // chiplet component -> device index
    for (int d = 0; d < platform.device_count(); ++d) {
        const sim::Device& device = platform.device(d);
        if (device.role() != sim::DeviceRole::chiplet)
            continue;
        const auto [it, added] = device_on.emplace(device.component, d);
        if (!added) {
            fail(
                fmt::format("chiplets '{}' and '{}' share component '{}', expected one chiplet "
                            "per component",
                            platform.device(it->second).name, device.name, device.component));
        }
    }
    if (device_on.empty())
        fail("no device has role chiplet");

    std::map<std::string, std::string> next, previous;
    auto connect = [&](const std::string& from, const std::string& to) {
        if (!device_on.contains(from) || !device_on.contains(to))
            return;
        if (next.contains(from) && next.at(from) != to) {
            fail(
                fmt::format("chiplet component '{}' links to both '{}' and '{}', expected a "
                            "one-way ring (one next chiplet each)",
                            from, next.at(from), to));
        }
        if (previous.contains(to) && previous.at(to) != from) {
            fail(
                fmt::format("chiplet component '{}' is fed by both '{}' and '{}', expected a "
                            "one-way ring (one previous chiplet each)",
                            to, previous.at(to), from));
        }
        next[from] = to;
        previous[to] = from;
    };
    for (const sim::Link& link : platform.links()) {
        connect(link.endpoint_a, link.endpoint_b);
        if (!link.one_way)
            connect(link.endpoint_b, link.endpoint_a);
    }

    std::vector<std::string> starts;
    for (const auto& [component, device] : device_on) {
        if (!previous.contains(component))
            starts.push_back(component);
    }
    std::string start;
    if (starts.size() == 1) {
        start = starts.front();
    } else if (starts.size() > 1) {
        fail(fmt::format("chiplets on components {} are not linked into one ring",
                         fmt::join(starts, ", ")));
    } else {
        // A closed ring: chip 0 is where the host's data enters.
        std::size_t best_hops = 0;
        std::vector<std::string> nearest;
        for (const auto& [component, device] : device_on) {
            const auto* route = platform.host_component.empty()
                                    ? nullptr
                                    : platform.route(platform.host_component, component);
            if (route == nullptr)
                continue;
            if (nearest.empty() || route->size() < best_hops) {
                best_hops = route->size();
                nearest = {component};
            } else if (route->size() == best_hops) {
                nearest.push_back(component);
            }
        }
        if (nearest.size() != 1) {
            fail(fmt::format(
                "the chiplets form a closed ring and {} nearest to the host "
                "component '{}', so chip 0 is ambiguous",
                nearest.empty() ? std::string("none is reachable")
                                : fmt::format("{} are equally", fmt::join(nearest, ", ")),
                platform.host_component));
        }
        start = nearest.front();
    }
    std::vector<int> order;
    std::set<std::string> seen;
    for (std::string at = start; seen.insert(at).second;) {
        order.push_back(device_on.at(at));
        if (!next.contains(at))
            break;
        at = next.at(at);
    }
    if (order.size() != device_on.size()) {
        std::vector<std::string> missing;
        for (const auto& [component, device] : device_on) {
            if (!seen.contains(component))
                missing.push_back(platform.device(device).name);
        }
        fail(fmt::format("chiplets {} are not on the ring that starts at '{}'",
                         fmt::join(missing, ", "), platform.device(order.front()).name));
    }
    return order;
}

std::vector<std::int64_t> chip_capacities(const sim::Platform& platform,
                                          const std::vector<int>& ring_order) {
    std::vector<std::int64_t> capacity;
    for (int device : ring_order) {
        const sim::Component* component =
            platform.find_component(platform.device(device).component);
        capacity.push_back(component == nullptr ? 0 : component->memory_bytes);
    }
    return capacity;
}

}  // namespace hetsim::placement::mcm
