#include "placement/lee2022/profiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <optional>
#include <set>
#include <stdexcept>

namespace hetsim::placement::lee2022 {

namespace {

// A profiled edge list L (Algorithm 1): one bit per costed DA edge.
using Bits = std::vector<std::uint64_t>;

bool test_bit(const Bits& b, int i) {
    return ((b[static_cast<std::size_t>(i) / 64] >> (static_cast<unsigned>(i) % 64)) & 1U) != 0;
}
void set_bit(Bits& b, int i) {
    b[static_cast<std::size_t>(i) / 64] |= std::uint64_t{1} << (static_cast<unsigned>(i) % 64);
}
int popcount(const Bits& b) {
    int n = 0;
    for (auto w : b)
        n += std::popcount(w);
    return n;
}
bool includes(const Bits& a, const Bits& b) {  // a ⊇ b
    for (std::size_t i = 0; i < a.size(); ++i) {
        if ((b[i] & ~a[i]) != 0)
            return false;
    }
    return true;
}

// A profiled path P: the device of every op visited so far (-1: not yet), as int8 to keep
// the per-node copies small on graphs with thousands of ops.
using Path = std::vector<std::int8_t>;

struct Entry {
    Bits bits;
    Path path;
};

// A candidate list at a node before the inclusion summary: its parent entry and its bits.
struct Candidate {
    int parent = -1;
    Bits bits;
};

class Traversal {
public:
    Traversal(const DaEdges& da, const TraversalOptions& options)
        : da_(da), dcg_(da.dcg()), graph_(dcg_.graph()), options_(options) {
        words_ = (static_cast<std::size_t>(da_.costed_count()) + 63) / 64;
    }

    std::size_t words() const { return words_; }

    // Sets in `bits` the costed DA edges that placing `op` on `device` exercises after
    // `path`: a copy of each input not yet in the device's location (da_edges.hpp "Moves").
    void op_edges(const Path& path, int op, int device, Bits& bits) const {
        const sim::Op& o = graph_.op(op);
        for (std::size_t k = 0; k < o.inputs.size(); ++k) {
            const int t = o.inputs[k];
            const sim::Tensor& tensor = graph_.tensor(t);
            if (tensor.kind == sim::TensorKind::weight ||
                std::find(o.inputs.begin(), o.inputs.begin() + static_cast<std::ptrdiff_t>(k), t) !=
                    o.inputs.begin() + static_cast<std::ptrdiff_t>(k)) {
                continue;
            }
            mark_copy(path, t, device, op, bits);
        }
    }

    // The end node's edges: graph outputs not already copied to the host memory.
    void end_edges(const Path& path, Bits& bits) const {
        for (int t = 0; t < graph_.tensor_count(); ++t) {
            const sim::Tensor& tensor = graph_.tensor(t);
            if (tensor.is_graph_output && tensor.producer >= 0)
                mark_copy(path, t, kHostDevice, -1, bits);
        }
    }

    // Keeps the candidates not included in another (lines 19-21; equal lists: the first),
    // at most max_lists_per_node of them with the most marked edges.
    std::vector<Candidate> summarize(std::vector<Candidate> candidates) const {
        std::vector<bool> dominated(candidates.size(), false);
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            for (std::size_t j = 0; j < candidates.size() && !dominated[i]; ++j) {
                if (i == j || !includes(candidates[j].bits, candidates[i].bits))
                    continue;
                // j covers i: drop i unless they are equal and i came first.
                dominated[i] = candidates[j].bits != candidates[i].bits || j < i;
            }
        }
        std::vector<Candidate> kept;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            if (!dominated[i])
                kept.push_back(std::move(candidates[i]));
        }
        const auto cap = static_cast<std::size_t>(std::max(1, options_.max_lists_per_node));
        if (kept.size() > cap) {
            std::stable_sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) {
                return popcount(a.bits) > popcount(b.bits);
            });
            kept.resize(cap);
        }
        return kept;
    }

private:
    void mark_copy(const Path& path, int t, int device, int consumer, Bits& bits) const {
        const sim::Tensor& tensor = graph_.tensor(t);
        const int src =
            tensor.producer >= 0 ? path[static_cast<std::size_t>(tensor.producer)] : kHostDevice;
        const Location need = dcg_.location(device, t);
        if (dcg_.location(src, t) == need)
            return;
        for (int c : tensor.consumers) {
            const int placed = path[static_cast<std::size_t>(c)];
            if (c != consumer && placed >= 0 && dcg_.location(placed, t) == need)
                return;  // an earlier consumer made the copy: reused, nothing new measured
        }
        const int da = da_.find(da_.key(t, src, device));
        if (da >= 0 && da_.costed_position(da) >= 0)
            set_bit(bits, da_.costed_position(da));
    }

    const DaEdges& da_;
    const Dcg& dcg_;
    const sim::Graph& graph_;
    const TraversalOptions& options_;
    std::size_t words_ = 0;
};

std::string bit_string(const Bits& bits, int count) {
    std::string s;
    for (int i = 0; i < count; ++i)
        s += test_bit(bits, i) ? '1' : '0';
    return s;
}

sim::Placement to_placement(const Path& path) {
    sim::Placement p;
    p.device_of_op.assign(path.begin(), path.end());
    return p;
}

// Algorithm 1's "device 0": the host CPU (found by role), else the op's first capable device.
int fallback_device(const Dcg& dcg, int op) {
    const auto& capable = dcg.capable(op);
    const int home = dcg.host_cpu_device();
    return std::find(capable.begin(), capable.end(), home) != capable.end() ? home
                                                                            : capable.front();
}

// A placement exercising DA edge `index`: some DCG edge of that attribute with its
// producer and consumer on the edge's devices, every earlier consumer of the tensor kept out
// of the destination memory (else it would make the copy), everything else where node run 0
// puts it. None when no edge of the attribute allows that.
std::optional<sim::Placement> direct_path(const DaEdges& da, int index) {
    const Dcg& dcg = da.dcg();
    const sim::Graph& graph = dcg.graph();
    for (std::size_t e = 0; e < dcg.edges().size(); ++e) {
        if (da.of_edge(static_cast<int>(e)) != index)
            continue;
        const DcgEdge& edge = dcg.edges()[e];
        const DcgNode& from = dcg.nodes()[static_cast<std::size_t>(edge.from)];
        const DcgNode& to = dcg.nodes()[static_cast<std::size_t>(edge.to)];
        sim::Placement p;
        p.device_of_op.resize(static_cast<std::size_t>(graph.op_count()));
        for (int op = 0; op < graph.op_count(); ++op)
            p.device_of_op[static_cast<std::size_t>(op)] = fallback_device(dcg, op);
        if (from.kind == DcgNode::Kind::op)
            p.device_of_op[static_cast<std::size_t>(from.op)] = from.device;
        if (to.kind == DcgNode::Kind::op)
            p.device_of_op[static_cast<std::size_t>(to.op)] = to.device;
        const Location need = dcg.location(to.device, edge.tensor);
        const auto& position = graph.topo_position();
        bool possible = true;
        for (int c : graph.tensor(edge.tensor).consumers) {
            if (to.kind == DcgNode::Kind::op &&
                (c == to.op || position[static_cast<std::size_t>(c)] >
                                   position[static_cast<std::size_t>(to.op)])) {
                continue;
            }
            auto& device = p.device_of_op[static_cast<std::size_t>(c)];
            if (dcg.location(device, edge.tensor) != need)
                continue;
            possible = false;
            for (int other : dcg.capable(c)) {
                if (dcg.location(other, edge.tensor) != need) {
                    device = other;
                    possible = true;
                    break;
                }
            }
            if (!possible)
                break;
        }
        if (!possible)
            continue;
        for (const Move& move : da.moves(p)) {
            if (move.da == index)
                return p;
        }
    }
    return std::nullopt;
}

}  // namespace

sim::Placement node_profiling_run(const Dcg& dcg, int device) {
    sim::Placement p;
    p.device_of_op.resize(static_cast<std::size_t>(dcg.graph().op_count()));
    for (int op = 0; op < dcg.graph().op_count(); ++op) {
        const auto& capable = dcg.capable(op);
        // Line 5: "Set device_priority as [device i, device 0]", device 0 = the host CPU.
        p.device_of_op[static_cast<std::size_t>(op)] =
            std::find(capable.begin(), capable.end(), device) != capable.end()
                ? device
                : fallback_device(dcg, op);
    }
    return p;
}

EdgeProfilingPaths identify_edge_profiling_paths(const DaEdges& da, std::vector<bool> marked,
                                                 const TraversalOptions& options) {
    const Dcg& dcg = da.dcg();
    const sim::Graph& graph = dcg.graph();
    const int costed = da.costed_count();
    if (dcg.platform().device_count() > 127) {
        throw PlacementError(fmt::format(
            "lee2022: platform '{}' has {} devices; the profiled paths hold at most 127",
            dcg.platform().name, dcg.platform().device_count()));
    }
    Traversal traversal(da, options);

    Bits done(traversal.words(), 0);
    for (int i = 0; i < costed; ++i) {
        const auto index = static_cast<std::size_t>(da.costed()[static_cast<std::size_t>(i)]);
        if (index < marked.size() && marked[index])
            set_bit(done, i);
    }
    Bits full(traversal.words(), 0);
    for (int i = 0; i < costed; ++i)
        set_bit(full, i);

    EdgeProfilingPaths result;
    while (done != full) {
        ++result.passes;
        const bool record = options.record_visits && result.passes == 1;
        // Line 3/7: the start node's list holds what the node runs (or earlier passes) marked.
        std::vector<Entry> previous{
            Entry{done, Path(static_cast<std::size_t>(graph.op_count()), -1)}};
        const Entry* finished = nullptr;
        std::vector<Entry> stage;
        // Lines 10-25: nodes in topological order, the devices of an op as siblings, visited
        // in Fig. 5's sibling order (highest device index first: [A0, (B1, B0), C0, ...]).
        for (int op : graph.topo_order()) {
            stage.clear();
            const auto& capable = dcg.capable(op);
            for (auto it = capable.rbegin(); it != capable.rend() && finished == nullptr; ++it) {
                const int device = *it;
                // Lines 15-24: one candidate per incoming execution path; a path adding new DA
                // edges registers them (17-18), one that does not inherits its list (23).
                std::vector<Candidate> candidates;
                candidates.reserve(previous.size());
                for (std::size_t p = 0; p < previous.size(); ++p) {
                    Candidate c{static_cast<int>(p), previous[p].bits};
                    traversal.op_edges(previous[p].path, op, device, c.bits);
                    candidates.push_back(std::move(c));
                }
                const std::size_t first = stage.size();
                for (auto& c : traversal.summarize(std::move(candidates))) {
                    Entry e{std::move(c.bits), previous[static_cast<std::size_t>(c.parent)].path};
                    e.path[static_cast<std::size_t>(op)] = static_cast<std::int8_t>(device);
                    stage.push_back(std::move(e));
                }
                if (record) {
                    TraversalVisit visit;
                    visit.node = dcg.node_of(op, device);
                    for (std::size_t k = first; k < stage.size(); ++k) {
                        visit.lists.push_back(bit_string(stage[k].bits, costed));
                        visit.paths.push_back(to_placement(stage[k].path));
                    }
                    result.visits.push_back(std::move(visit));
                }
                // Lines 12-14: stop once a list has every DA edge marked.
                for (std::size_t k = first; k < stage.size(); ++k) {
                    if (stage[k].bits == full) {
                        finished = &stage[k];
                        break;
                    }
                }
            }
            if (finished != nullptr)
                break;
            previous.swap(stage);
        }

        Entry best;
        if (finished != nullptr) {
            best = *finished;
        } else {
            // The end node: graph outputs copied back to the host memory.
            std::vector<Candidate> candidates;
            for (std::size_t p = 0; p < previous.size(); ++p) {
                Candidate c{static_cast<int>(p), previous[p].bits};
                traversal.end_edges(previous[p].path, c.bits);
                candidates.push_back(std::move(c));
            }
            auto kept = traversal.summarize(std::move(candidates));
            std::size_t pick = 0;
            for (std::size_t k = 1; k < kept.size(); ++k) {
                if (popcount(kept[k].bits) > popcount(kept[pick].bits))
                    pick = k;
            }
            if (record) {
                TraversalVisit visit;
                visit.node = dcg.end_node();
                for (const auto& c : kept) {
                    visit.lists.push_back(bit_string(c.bits, costed));
                    visit.paths.push_back(
                        to_placement(previous[static_cast<std::size_t>(c.parent)].path));
                }
                result.visits.push_back(std::move(visit));
            }
            best =
                Entry{kept[pick].bits, previous[static_cast<std::size_t>(kept[pick].parent)].path};
        }

        std::vector<int> fresh;
        for (int i = 0; i < costed; ++i) {
            if (test_bit(best.bits, i) && !test_bit(done, i))
                fresh.push_back(da.costed()[static_cast<std::size_t>(i)]);
        }
        if (fresh.empty()) {
            // The inclusion summary keeps one path per maximal list, which is exact on chains
            // but may drop, on a DAG, the only prefix that reaches some edge. Rather than
            // loop, aim one path at each edge still unmarked, and report those none reaches.
            for (int i = 0; i < costed; ++i) {
                if (test_bit(done, i))
                    continue;
                const int index = da.costed()[static_cast<std::size_t>(i)];
                auto direct = direct_path(da, index);
                if (!direct) {
                    result.unreachable.push_back(index);
                    continue;
                }
                std::vector<int> covered;
                for (const Move& move : da.moves(*direct)) {
                    const int position = move.da < 0 ? -1 : da.costed_position(move.da);
                    if (position >= 0 && !test_bit(done, position)) {
                        set_bit(done, position);
                        covered.push_back(move.da);
                    }
                }
                result.runs.push_back(std::move(*direct));
                result.newly_covered.push_back(std::move(covered));
            }
            break;
        }
        // Ops after the node where the traversal stopped run where node run 0 put them.
        sim::Placement run = to_placement(best.path);
        for (int op = 0; op < graph.op_count(); ++op) {
            auto& device = run.device_of_op[static_cast<std::size_t>(op)];
            if (device < 0)
                device = fallback_device(dcg, op);
        }
        result.runs.push_back(std::move(run));
        result.newly_covered.push_back(std::move(fresh));
        for (std::size_t w = 0; w < done.size(); ++w)
            done[w] |= best.bits[w];
    }
    return result;
}

std::vector<int> read_costs(const DaEdges& da, const sim::Placement& placement,
                            const sim::ExecGraph& exec, const sim::Metrics& metrics,
                            ProfiledCosts& costs) {
    if (metrics.task_timings.size() != exec.tasks.size()) {
        throw std::logic_error(
            fmt::format("lee2022 profiler: the evaluator timed {} tasks of an ExecGraph of {}",
                        metrics.task_timings.size(), exec.tasks.size()));
    }
    auto duration = [&](std::size_t task) {
        const sim::TaskTiming& timing = metrics.task_timings[task];
        return timing.finish_ps - timing.start_ps;
    };
    // Node costs: compute tasks.
    // Edge costs: lowering emits the convert/transfer tasks of one copy back to back, and two
    // copies of one tensor are always separated by a compute task (a consumer, or the last op
    // before the graph outputs return), so a run of non-compute tasks of one tensor is one
    // copy; the copies appear in DaEdges::moves() order.
    const std::vector<Move> moves = da.moves(placement);
    std::vector<int> measured;
    std::size_t next_move = 0;
    int open_tensor = -1;
    std::int64_t open_ps = 0;
    auto close = [&]() {
        if (open_tensor < 0)
            return;
        if (next_move >= moves.size() || moves[next_move].tensor != open_tensor) {
            throw std::logic_error(fmt::format(
                "lee2022 profiler: the ExecGraph copies tensor '{}' where the DA model expects "
                "{}",
                da.dcg().graph().tensor(open_tensor).name,
                next_move < moves.size()
                    ? fmt::format("a copy of '{}'",
                                  da.dcg().graph().tensor(moves[next_move].tensor).name)
                    : std::string{"no more copies"}));
        }
        const int index = moves[next_move].da;
        if (index >= 0) {
            auto& cost = costs.edge_ps[static_cast<std::size_t>(index)];
            if (cost < 0) {
                cost = open_ps;
                measured.push_back(index);
            }
        }
        ++next_move;
        open_tensor = -1;
        open_ps = 0;
    };
    for (std::size_t i = 0; i < exec.tasks.size(); ++i) {
        const sim::Task& task = exec.tasks[i];
        if (task.kind == sim::TaskKind::compute) {
            close();
            auto& cost = costs.node_ps.at(static_cast<std::size_t>(task.op))
                             .at(static_cast<std::size_t>(task.device));
            if (cost < 0)
                cost = duration(i);
            continue;
        }
        if (task.tensor != open_tensor)
            close();
        open_tensor = task.tensor;
        open_ps += duration(i);
    }
    close();
    if (next_move != moves.size()) {
        throw std::logic_error(
            fmt::format("lee2022 profiler: the ExecGraph makes {} copies, the DA model {}",
                        next_move, moves.size()));
    }
    return measured;
}

ProfileResult profile(const PlacementContext& context, const DaEdges& da,
                      const TraversalOptions& options) {
    const Dcg& dcg = da.dcg();
    ProfileResult result;
    result.costs.node_ps.assign(
        static_cast<std::size_t>(context.graph.op_count()),
        std::vector<std::int64_t>(static_cast<std::size_t>(context.platform.device_count()), -1));
    result.costs.edge_ps.assign(da.all().size(), -1);
    for (std::size_t i = 0; i < da.all().size(); ++i) {
        if (!da.all()[i].costed)
            result.costs.edge_ps[i] = 0;  // same memory: lowering copies nothing
    }

    auto run = [&](const sim::Placement& placement, const std::string& what) {
        sim::ExecGraph exec;
        try {
            exec = sim::lower(context.graph, placement, context.platform);
        } catch (const sim::LoweringError& error) {
            throw PlacementError(fmt::format("lee2022: {} cannot run on platform '{}': {}", what,
                                             context.platform.name, error.what()));
        }
        const sim::Metrics metrics = context.evaluator.evaluate(exec);
        read_costs(da, placement, exec, metrics, result.costs);
    };
    // Each run is a full simulation (seconds on a large graph with the DES): say how many are
    // done. The edge runs are known once their paths are (lines 10-25); until then the total
    // counts the node runs only.
    const long node_runs = context.platform.device_count();
    long runs_done = 0, runs_total = node_runs;
    auto ran = [&] {
        ++runs_done;
        if (context.wants_progress())
            context.report_progress({runs_done, runs_total, "profiling runs", "", 0.0});
    };

    // Lines 4-8: node-cost profiling, one run per device.
    for (int device = 0; device < context.platform.device_count(); ++device) {
        result.node_runs.push_back(node_profiling_run(dcg, device));
        run(result.node_runs.back(), fmt::format("node-profiling run {} ({} first)", device,
                                                 context.platform.device(device).name));
        ran();
    }
    std::vector<bool> marked(da.all().size(), false);
    for (int index : da.costed()) {
        marked[static_cast<std::size_t>(index)] =
            result.costs.edge_ps[static_cast<std::size_t>(index)] >= 0;
        result.da_left_after_node_runs += marked[static_cast<std::size_t>(index)] ? 0 : 1;
    }

    // Lines 10-25: the edge-profiling paths, then their runs.
    const auto begin = std::chrono::steady_clock::now();
    EdgeProfilingPaths paths = identify_edge_profiling_paths(da, marked, options);
    result.traversal_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    runs_total = node_runs + static_cast<long>(paths.runs.size());
    for (std::size_t k = 0; k < paths.runs.size(); ++k) {
        result.edge_runs.push_back(paths.runs[k]);
        run(paths.runs[k], fmt::format("edge-profiling run {}", k + 1));
        ran();
    }
    for (int index : da.costed()) {
        if (result.costs.edge_ps[static_cast<std::size_t>(index)] < 0)
            result.unmeasured.push_back(index);
    }
    return result;
}

}  // namespace hetsim::placement::lee2022
