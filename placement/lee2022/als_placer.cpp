#include "placement/lee2022/als_placer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace hetsim::placement::lee2022 {

namespace {

// Tensor copy costs by (tensor, source, destination), looked up by DA attribute (§3.2.1) and
// memoised: the DP asks for the same few per transition.
class EdgeCosts {
public:
    EdgeCosts(const DaEdges& da, const ProfiledCosts& costs)
        : da_(da), costs_(costs), ends_(da.dcg().platform().device_count() + 1) {
        memo_.assign(static_cast<std::size_t>(da.dcg().graph().tensor_count()) *
                         static_cast<std::size_t>(ends_ * ends_),
                     kUnknown);
    }

    std::int64_t operator()(int tensor, int src, int dst) {
        auto& slot =
            memo_[static_cast<std::size_t>(tensor) * static_cast<std::size_t>(ends_ * ends_) +
                  static_cast<std::size_t>((src + 1) * ends_ + dst + 1)];
        if (slot != kUnknown)
            return slot;
        const int index = da_.find(da_.key(tensor, src, dst));
        const std::int64_t cost =
            index < 0 ? -1 : costs_.edge_ps.at(static_cast<std::size_t>(index));
        if (cost < 0) {
            const auto name = [&](int device) {
                return device == kHostDevice ? std::string{"host"}
                                             : da_.dcg().platform().device(device).name;
            };
            throw PlacementError(fmt::format(
                "lee2022.als: no profiled cost for copying tensor '{}' from {} to {} ({}); "
                "Algorithm 1 did not measure this DA edge",
                da_.dcg().graph().tensor(tensor).name, name(src), name(dst),
                index < 0 ? std::string{"no DCG edge has this attribute"} : da_.describe(index)));
        }
        slot = cost;
        return cost;
    }

private:
    static constexpr std::int64_t kUnknown = std::numeric_limits<std::int64_t>::min();
    const DaEdges& da_;
    const ProfiledCosts& costs_;
    int ends_;  // devices + the host pseudo-device
    std::vector<std::int64_t> memo_;
};

std::int64_t node_cost(const DaEdges& da, const ProfiledCosts& costs, int op, int device) {
    const std::int64_t cost =
        costs.node_ps.at(static_cast<std::size_t>(op)).at(static_cast<std::size_t>(device));
    if (cost < 0) {
        throw PlacementError(fmt::format("lee2022.als: no profiled cost for op '{}' on {}",
                                         da.dcg().graph().op(op).name,
                                         da.dcg().platform().device(device).name));
    }
    return cost;
}

// Dense ids for the locations tensors can be in, so a tensor's copies fit in a bit mask.
class LocationIds {
public:
    explicit LocationIds(const Dcg& dcg) : dcg_(dcg) {}
    int operator()(int device, int tensor) {
        const Location l = dcg_.location(device, tensor);
        for (std::size_t i = 0; i < known_.size(); ++i) {
            if (known_[i] == l)
                return static_cast<int>(i);
        }
        if (known_.size() >= kMaxLocations) {
            throw PlacementError(fmt::format(
                "lee2022.als: more than {} distinct (memory, dtype) locations", kMaxLocations));
        }
        known_.push_back(l);
        return static_cast<int>(known_.size()) - 1;
    }
    static constexpr std::size_t kMaxLocations = 56;

private:
    const Dcg& dcg_;
    std::vector<Location> known_;
};

// A live tensor's part of a DP state: its producer's device (+1, so the host is 0) in the top
// byte, the set of locations holding a copy in the low 56 bits.
constexpr int kDeviceShift = 56;
std::uint64_t entry(int device, std::uint64_t mask) {
    return (static_cast<std::uint64_t>(device + 1) << kDeviceShift) | mask;
}
int entry_device(std::uint64_t e) {
    return static_cast<int>(e >> kDeviceShift) - 1;
}

// lee2022's method needs what its platform (a CPU and a PIM over one DMA link, §2) had: a host
// CPU to fall back to (Algorithm 1 line 5, "device 0"), and one direct link between every two
// device memories, so that each copy crosses one link and a DA edge (§3.2.1) has one fixed
// cost. A route of several hops stages the copy in a relay's memory, and the copies a tensor
// needs then depend on the copies made before: no DA edge cost describes them.
void refuse_unless_applicable(const Dcg& dcg) {
    const sim::Platform& platform = dcg.platform();
    if (dcg.host_cpu_device() < 0) {
        throw PlacementError(fmt::format(
            "lee2022.als: platform '{}' has no host_cpu device on its host component '{}'; "
            "Algorithm 1 places what a profiled device cannot run on the host CPU (line 5)",
            platform.name, platform.host_component));
    }
    std::vector<std::string> memories{platform.host_component};
    for (const sim::Device& d : platform.devices()) {
        if (std::find(memories.begin(), memories.end(), d.component) == memories.end())
            memories.push_back(d.component);
    }
    for (std::size_t a = 0; a < memories.size(); ++a) {
        for (std::size_t b = a + 1; b < memories.size(); ++b) {
            const std::vector<sim::Hop>* there = platform.route(memories[a], memories[b]);
            const std::vector<sim::Hop>* back = platform.route(memories[b], memories[a]);
            if (there != nullptr && back != nullptr && there->size() == 1 && back->size() == 1)
                continue;
            throw PlacementError(fmt::format(
                "lee2022.als: platform '{}' has no direct link between memories '{}' and '{}'; "
                "lee2022's DA edges (§3.2.1) need every copy to cross one link at a fixed cost, "
                "which a copy staged through another memory does not",
                platform.name, memories[a], memories[b]));
        }
    }
}

}  // namespace

std::int64_t sequential_cost_ps(const DaEdges& da, const ProfiledCosts& costs,
                                const sim::Placement& placement) {
    EdgeCosts edge(da, costs);
    std::int64_t total = 0;
    for (int op = 0; op < da.dcg().graph().op_count(); ++op)
        total += node_cost(da, costs, op, placement.device_of_op.at(static_cast<std::size_t>(op)));
    for (const Move& move : da.moves(placement))
        total += edge(move.tensor, move.src_device, move.dst_device);
    return total;
}

AlsSolution solve_als(const DaEdges& da, const ProfiledCosts& costs, std::size_t max_states) {
    // §3.3, Eq. 2 generalised from chains to DAGs. Eq. 2 keeps, per step j (the j-th op in
    // topological order) and device i, the best time f_i[j]; the transfer term T_{i,j} sums
    // the copies from node j's data-dependent predecessors, which Eq. 2 reads off the device
    // of node j-1 alone. On a DAG a predecessor may lie further back (residual connections,
    // attention branches, the mask read by every layer), and lowering copies a tensor only
    // once per destination memory, so the cost of step j depends on where every tensor still
    // to be read lives. The DP state at step j is therefore, for every live tensor (produced,
    // still to be consumed), its producer's device and the set of memories already holding a
    // copy. For a chain the only live tensor is node j-1's output, its producer device is the
    // assembly line i, and the recurrence is exactly Eq. 2 (§3.3). States are exact, never
    // merged approximately: a frontier larger than `max_states` is refused.
    const Dcg& dcg = da.dcg();
    const sim::Graph& graph = dcg.graph();
    const auto& order = graph.topo_order();
    const int steps = static_cast<int>(order.size());
    const auto tensor_count = static_cast<std::size_t>(graph.tensor_count());
    EdgeCosts edge(da, costs);
    LocationIds loc(dcg);

    // Last step reading each tensor (-1: none); a tensor is live from its production (graph
    // inputs: from the start) through its last read.
    std::vector<int> last_read(tensor_count, -1);
    const auto& position = graph.topo_position();
    for (std::size_t t = 0; t < tensor_count; ++t) {
        for (int c : graph.tensor(static_cast<int>(t)).consumers)
            last_read[t] = std::max(last_read[t], position[static_cast<std::size_t>(c)]);
    }
    std::vector<int> live;
    for (int t = 0; t < graph.tensor_count(); ++t) {
        const sim::Tensor& tensor = graph.tensor(t);
        if (tensor.kind == sim::TensorKind::input && last_read[static_cast<std::size_t>(t)] >= 0)
            live.push_back(t);
    }

    // Frontier: states as rows of `width` entries (one per live tensor, in `live` order).
    std::vector<std::uint64_t> rows;
    for (int t : live)
        rows.push_back(entry(kHostDevice, std::uint64_t{1} << loc(kHostDevice, t)));
    std::vector<std::int64_t> cost{0};
    // Back pointers per step: parent state and the device chosen for the step's op.
    std::vector<std::vector<std::int32_t>> parent(static_cast<std::size_t>(steps));
    std::vector<std::vector<std::int8_t>> chosen(static_cast<std::size_t>(steps));

    AlsSolution solution;
    solution.max_states = 1;
    solution.max_live_tensors = static_cast<int>(live.size());
    std::vector<int> slot(tensor_count, -1);
    std::vector<std::uint64_t> work;
    std::string key;

    for (int j = 0; j < steps; ++j) {
        const int op = order[static_cast<std::size_t>(j)];
        const sim::Op& o = graph.op(op);
        const std::size_t width = live.size();
        for (std::size_t i = 0; i < width; ++i)
            slot[static_cast<std::size_t>(live[i])] = static_cast<int>(i);

        // Inputs read here (distinct, activations and graph inputs), and the live set after.
        std::vector<int> reads;
        for (int t : o.inputs) {
            if (graph.tensor(t).kind != sim::TensorKind::weight &&
                std::find(reads.begin(), reads.end(), t) == reads.end()) {
                reads.push_back(t);
            }
        }
        std::vector<int> next_live;
        for (int t : live) {
            if (last_read[static_cast<std::size_t>(t)] > j)
                next_live.push_back(t);
        }
        for (int t : o.outputs) {
            if (last_read[static_cast<std::size_t>(t)] > j)
                next_live.push_back(t);
        }
        std::sort(next_live.begin(), next_live.end());
        const std::size_t next_width = next_live.size();

        std::vector<std::uint64_t> next_rows;
        std::vector<std::int64_t> next_cost;
        std::unordered_map<std::string, std::int32_t> index;
        auto& back = parent[static_cast<std::size_t>(j)];
        auto& device_of = chosen[static_cast<std::size_t>(j)];
        key.resize(next_width * sizeof(std::uint64_t));

        const std::size_t states = cost.size();
        for (std::size_t s = 0; s < states; ++s) {
            const std::uint64_t* row = rows.data() + s * width;
            for (int device : dcg.capable(op)) {
                work.assign(row, row + width);
                std::int64_t c = cost[s] + node_cost(da, costs, op, device);
                for (int t : reads) {
                    auto& e = work[static_cast<std::size_t>(slot[static_cast<std::size_t>(t)])];
                    const std::uint64_t need = std::uint64_t{1} << loc(device, t);
                    if ((e & need) == 0) {
                        // T_{i,j}: the copy from the producer's memory (Eq. 2).
                        c += edge(t, entry_device(e), device);
                        e |= need;
                    }
                    if (last_read[static_cast<std::size_t>(t)] == j &&
                        graph.tensor(t).is_graph_output && graph.tensor(t).producer >= 0 &&
                        (e & (std::uint64_t{1} << loc(kHostDevice, t))) == 0) {
                        // Read for the last time: an output not in the host memory yet goes
                        // back to it (the end node's edge).
                        c += edge(t, entry_device(e), kHostDevice);
                    }
                }
                for (int t : o.outputs) {
                    const sim::Tensor& tensor = graph.tensor(t);
                    if (last_read[static_cast<std::size_t>(t)] < 0 && tensor.is_graph_output &&
                        loc(device, t) != loc(kHostDevice, t)) {
                        c += edge(t, device, kHostDevice);
                    }
                }
                for (std::size_t i = 0; i < next_width; ++i) {
                    const int t = next_live[i];
                    const std::uint64_t e =
                        graph.tensor(t).producer == op
                            ? entry(device, std::uint64_t{1} << loc(device, t))
                            : work[static_cast<std::size_t>(slot[static_cast<std::size_t>(t)])];
                    std::memcpy(key.data() + i * sizeof(std::uint64_t), &e, sizeof(e));
                }
                auto [it, inserted] =
                    index.try_emplace(key, static_cast<std::int32_t>(next_cost.size()));
                if (inserted) {
                    if (next_cost.size() >= max_states) {
                        throw PlacementError(fmt::format(
                            "lee2022.als: the DP frontier at op '{}' (step {} of {}) holds {} live "
                            "tensors and exceeds {} states; the exact DP would need more (raise "
                            "the bound with 'lee2022.als:<max_states>' if memory allows)",
                            o.name, j + 1, steps, next_width, max_states));
                    }
                    next_rows.resize(next_rows.size() + next_width);
                    if (next_width > 0) {  // memcpy of an empty frontier: null pointers (UB)
                        std::memcpy(next_rows.data() + next_rows.size() - next_width, key.data(),
                                    key.size());
                    }
                    next_cost.push_back(c);
                    back.push_back(static_cast<std::int32_t>(s));
                    device_of.push_back(static_cast<std::int8_t>(device));
                } else if (c < next_cost[static_cast<std::size_t>(it->second)]) {
                    // Strictly better only: ties keep the first found (deterministic).
                    const auto k = static_cast<std::size_t>(it->second);
                    next_cost[k] = c;
                    back[k] = static_cast<std::int32_t>(s);
                    device_of[k] = static_cast<std::int8_t>(device);
                }
            }
        }
        for (int t : live)
            slot[static_cast<std::size_t>(t)] = -1;
        live.swap(next_live);
        rows.swap(next_rows);
        cost.swap(next_cost);
        solution.max_states = std::max(solution.max_states, cost.size());
        solution.max_live_tensors =
            std::max(solution.max_live_tensors, static_cast<int>(live.size()));
    }

    // Every tensor is dead after the last op, so one state is left (the end node).
    std::size_t best = 0;
    for (std::size_t s = 1; s < cost.size(); ++s) {
        if (cost[s] < cost[best])
            best = s;
    }
    solution.cost_ps = cost.at(best);
    solution.placement.device_of_op.assign(static_cast<std::size_t>(graph.op_count()), -1);
    auto state = static_cast<std::int32_t>(best);
    for (int j = steps - 1; j >= 0; --j) {
        const auto s = static_cast<std::size_t>(state);
        solution.placement
            .device_of_op[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])] =
            chosen[static_cast<std::size_t>(j)][s];
        state = parent[static_cast<std::size_t>(j)][s];
    }
    return solution;
}

AlsPlacer::AlsPlacer(const std::string& arguments) {
    if (arguments.empty())
        return;
    const std::optional<std::uint64_t> value = parse_positive_integer(arguments);
    if (!value) {
        throw PlacementError(fmt::format(
            "placer 'lee2022.als:{}': the argument must be a positive integer bound on the DP's "
            "states per step: lee2022.als[:<max_states>] (default {})",
            arguments, kDefaultMaxStates));
    }
    max_states_ = static_cast<std::size_t>(*value);
    explicit_limit_ = true;
}

PlacerInfo AlsPlacer::info() {
    return PlacerInfo{
        "lee2022.als", "lee2022.als[:<max_states>]",
        "lee2022 §3: Algorithm 1 profiles node and DA-edge costs with real runs (n node runs "
        "+ the fewest edge runs), then the assembly-line DP (Eq. 2, exact on DAGs) minimises "
        "the sequential latency",
        [](const std::string& arguments) { return std::make_unique<AlsPlacer>(arguments); }};
}

std::string AlsPlacer::name() const {
    return explicit_limit_ ? fmt::format("lee2022.als:{}", max_states_) : "lee2022.als";
}

PlacementResult AlsPlacer::place(const PlacementContext& context) {
    const Dcg dcg(context.graph, context.platform);
    refuse_unless_applicable(dcg);
    const DaEdges da(dcg);
    // DA edges left unmeasured (profiled.unmeasured) are ones no placement exercises, so the
    // DP never asks for them; if it did, it would refuse with the edge's name.
    const ProfileResult profiled = profile(context, da);

    const auto begin = std::chrono::steady_clock::now();
    AlsSolution solution = solve_als(da, profiled.costs, max_states_);
    const double dp_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();

    PlacementResult result;
    result.placement = std::move(solution.placement);
    const int node_runs = static_cast<int>(profiled.node_runs.size());
    const int edge_runs = static_cast<int>(profiled.edge_runs.size());
    result.profile_runs = node_runs + edge_runs;
    auto& stats = result.stats;
    stats["cg_nodes"] = std::to_string(context.graph.op_count());
    stats["cg_edges"] = std::to_string(context.graph.edge_count());
    stats["dcg_nodes"] = std::to_string(dcg.node_count());
    stats["dcg_edges"] = std::to_string(dcg.edge_count());
    stats["dcg_op_edges"] = std::to_string(dcg.op_edge_count());
    stats["da_edges"] = std::to_string(da.paper_count());
    stats["da_edges_profiled"] = std::to_string(da.costed_count());
    stats["da_edges_free"] = std::to_string(da.free_count());
    stats["da_edges_after_node_runs"] = std::to_string(profiled.da_left_after_node_runs);
    stats["da_edges_unmeasured"] = std::to_string(profiled.unmeasured.size());
    stats["pim_capable_nodes"] = std::to_string(dcg.pim_capable_nodes());
    stats["node_runs"] = std::to_string(node_runs);
    stats["edge_runs"] = std::to_string(edge_runs);
    stats["traversal_wall_s"] = fmt::format("{:.6f}", profiled.traversal_s);
    stats["dp_wall_s"] = fmt::format("{:.6f}", dp_s);
    stats["dp_max_states"] = std::to_string(solution.max_states);
    stats["dp_max_live_tensors"] = std::to_string(solution.max_live_tensors);
    stats["predicted_latency_ps"] = std::to_string(solution.cost_ps);
    // The same double the evaluators report: makespan_ps * 1e-12.
    stats["predicted_latency_s"] =
        fmt::format("{}", static_cast<double>(solution.cost_ps) * sim::kSecondsPerPs);
    return result;
}

}  // namespace hetsim::placement::lee2022
