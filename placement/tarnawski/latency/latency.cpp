// The §4 single-sample latency of a split; see latency.hpp for the model.
#include "placement/tarnawski/latency/latency.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

namespace hetsim::placement::tarnawski {

LatencyEvaluator::LatencyEvaluator(const Workload& workload) : w_(workload) {
    n_ = static_cast<int>(w_.node_count());
    const int m = static_cast<int>(w_.edge_count());
    pred_begin_.assign(n_ + 1, 0);
    succ_begin_.assign(n_ + 1, 0);
    for (int e = 0; e < m; ++e) {
        ++pred_begin_[w_.edge_dest[e] + 1];
        ++succ_begin_[w_.edge_source[e] + 1];
    }
    for (int v = 0; v < n_; ++v) {
        pred_begin_[v + 1] += pred_begin_[v];
        succ_begin_[v + 1] += succ_begin_[v];
    }
    pred_node_.resize(m);
    pred_edge_.resize(m);
    succ_node_.resize(m);
    succ_edge_.resize(m);
    {
        std::vector<int> pf(pred_begin_.begin(), pred_begin_.end() - 1);
        std::vector<int> sf(succ_begin_.begin(), succ_begin_.end() - 1);
        for (int e = 0; e < m; ++e) {
            const int u = w_.edge_source[e], v = w_.edge_dest[e];
            pred_node_[pf[v]] = u;
            pred_edge_[pf[v]++] = e;
            succ_node_[sf[u]] = v;
            succ_edge_[sf[u]++] = e;
        }
    }
    // Transfer items (§3 / App. B): one per node when its outgoing costs agree, else per edge.
    uniform_out_.assign(n_, 1);
    out_cost_.assign(n_, 0.0);
    for (int u = 0; u < n_; ++u) {
        for (int i = succ_begin_[u]; i < succ_begin_[u + 1]; ++i) {
            const double c = w_.edge_cost[succ_edge_[i]];
            if (i == succ_begin_[u])
                out_cost_[u] = c;
            else if (c != out_cost_[u])
                uniform_out_[u] = 0;
        }
    }
    // Cycle check (Kahn).
    {
        std::vector<int> indeg(n_, 0), ready;
        for (int v = 0; v < n_; ++v)
            if ((indeg[v] = pred_begin_[v + 1] - pred_begin_[v]) == 0)
                ready.push_back(v);
        int seen = 0;
        while (!ready.empty()) {
            const int u = ready.back();
            ready.pop_back();
            ++seen;
            for (int i = succ_begin_[u]; i < succ_begin_[u + 1]; ++i)
                if (--indeg[succ_node_[i]] == 0)
                    ready.push_back(succ_node_[i]);
        }
        if (seen != n_)
            throw WorkloadError("the workload graph has a cycle; §4 latency needs a DAG");
    }
    // Topological order by depth-first search over predecessors (postorder), started from the
    // nodes in index order: a node comes right after the last of its not yet listed ancestors,
    // so sources such as weights sit next to their consumer. The pieces of a split along a
    // pipeline then occupy short spans of the order, which the layering below exploits.
    {
        std::vector<std::uint8_t> state(n_, 0);  // 0 new, 1 on the stack, 2 listed
        std::vector<std::pair<int, int>> stack;  // (node, next predecessor slot)
        for (int root = 0; root < n_; ++root) {
            if (state[root] != 0)
                continue;
            stack.emplace_back(root, pred_begin_[root]);
            state[root] = 1;
            while (!stack.empty()) {
                auto& [v, i] = stack.back();
                if (i < pred_begin_[v + 1]) {
                    const int u = pred_node_[i++];
                    if (state[u] == 0) {
                        state[u] = 1;
                        stack.emplace_back(u, pred_begin_[u]);
                    }
                    continue;
                }
                state[v] = 2;
                topo_.push_back(v);
                stack.pop_back();
            }
        }
        position_.assign(n_, 0);
        for (int i = 0; i < n_; ++i)
            position_[topo_[i]] = i;
    }
    std::unordered_map<std::int64_t, int> dense;
    color_.assign(n_, -1);
    for (int v = 0; v < n_; ++v)
        if (w_.has_color_class[v])
            color_[v] =
                dense.emplace(w_.color_class[v], static_cast<int>(dense.size())).first->second;
    class_device_.assign(dense.size(), 0);
}

LatencyReport LatencyEvaluator::report(const std::vector<int>& device_of_node) {
    LatencyReport r;
    evaluate(device_of_node, Options{}, &r);
    return r;
}

double LatencyEvaluator::evaluate(const std::vector<int>& dev, const Options& options,
                                  LatencyReport* report) {
    const int cpus = w_.max_cpus;
    const int k = w_.max_accelerators;
    if (static_cast<int>(dev.size()) != n_)
        throw WorkloadError(
            fmt::format("an assignment of {} nodes for a workload of {}", dev.size(), n_));
    for (int v = 0; v < n_; ++v)
        if (dev[v] < 0 || dev[v] >= cpus + k)
            throw WorkloadError(fmt::format("node {} is on device {}; the workload has {}",
                                            w_.id[v], dev[v], cpus + k));

    // Feasibility: memory (3*), support (§3 footnote 1), colour classes (all CPUs = device 0).
    bytes_.assign(k, 0.0);
    piece_count_.assign(k, 0);
    span_first_.assign(k, n_);
    span_last_.assign(k, -1);
    bool supported = true, colocated = true;
    constexpr int kUnset = -2;
    std::fill(class_device_.begin(), class_device_.end(), kUnset);
    for (int v = 0; v < n_; ++v) {
        const int d = dev[v];
        if (d >= cpus) {
            bytes_[d - cpus] += w_.size[v];
            piece_count_[d - cpus] = 1;  // non-empty; refined by the layering below
            span_first_[d - cpus] = std::min(span_first_[d - cpus], position_[v]);
            span_last_[d - cpus] = std::max(span_last_[d - cpus], position_[v]);
            if (!w_.supported_on_accelerator[v])
                supported = false;
        }
        if (color_[v] >= 0) {
            const int pooled = d >= cpus ? d : -1;
            int& cd = class_device_[color_[v]];
            if (cd == kUnset)
                cd = pooled;
            else if (cd != pooled)
                colocated = false;
        }
    }
    memory_excess_ = 0.0;
    bool memory_ok = true;
    for (int a = 0; a < k; ++a)
        if (bytes_[a] > w_.max_size_per_accelerator) {
            memory_ok = false;
            memory_excess_ += bytes_[a] - w_.max_size_per_accelerator;
        }
    const bool feasible = supported && colocated && (memory_ok || !options.check_memory);
    if (!feasible && report == nullptr)
        return kLatencyInfinity;

    // Earliest layering per accelerator (§4.1): value_[v] is v's layer when v is on a, else the
    // smallest layer an a-node depending on v can have (one more than the deepest a-node
    // that reaches v after leaving a). Only the span of the order from a's first to its last
    // node matters: earlier nodes have no a-ancestor (value 0), later ones no a-descendant.
    layer_.assign(n_, 0);
    value_.resize(n_);
    contiguous_ = true;
    for (int a = 0; a < k; ++a) {
        if (piece_count_[a] == 0)
            continue;
        const int da = cpus + a;
        const int first = span_first_[a];
        int deepest = 0;
        for (int i = first; i <= span_last_[a]; ++i) {
            const int v = topo_[i];
            int x = 0;
            if (dev[v] == da) {
                for (int j = pred_begin_[v]; j < pred_begin_[v + 1]; ++j) {
                    const int u = pred_node_[j];
                    if (position_[u] >= first)
                        x = std::max(x, value_[u]);
                }
                layer_[v] = x;
                deepest = std::max(deepest, x);
            } else {
                for (int j = pred_begin_[v]; j < pred_begin_[v + 1]; ++j) {
                    const int u = pred_node_[j];
                    if (position_[u] >= first)
                        x = std::max(x, dev[u] == da ? value_[u] + 1 : value_[u]);
                }
            }
            value_[v] = x;
        }
        piece_count_[a] = deepest + 1;
        if (deepest > 0)
            contiguous_ = false;
    }
    if (options.require_contiguous && !contiguous_ && report == nullptr)
        return kLatencyInfinity;

    // Units of the schedule: pieces 0..P-1, then one unit per CPU node.
    piece_base_.assign(k + 1, 0);
    for (int a = 0; a < k; ++a)
        piece_base_[a + 1] = piece_base_[a] + piece_count_[a];
    const int pieces = piece_base_[k];
    unit_.resize(n_);
    int units = pieces;
    for (int v = 0; v < n_; ++v)
        unit_[v] = dev[v] >= cpus ? piece_base_[dev[v] - cpus] + layer_[v] : units++;
    duration_.assign(units, 0.0);
    in_.assign(pieces, 0.0);
    out_.assign(pieces, 0.0);
    compute_.assign(pieces, 0.0);
    for (int v = 0; v < n_; ++v) {
        if (dev[v] >= cpus)
            compute_[unit_[v]] += w_.accelerator_latency[v];
        else
            duration_[unit_[v]] = w_.cpu_latency[v];
    }
    // Transfers: the "transfer domain" of a node is its piece, or -1 for RAM (any CPU).
    mark_.assign(pieces, -1);
    auto domain = [&](int v) { return dev[v] >= cpus ? unit_[v] : -1; };
    for (int u = 0; u < n_; ++u) {
        const int tu = domain(u);
        if (uniform_out_[u]) {
            const double c = out_cost_[u];
            bool crosses = false;
            for (int i = succ_begin_[u]; i < succ_begin_[u + 1]; ++i) {
                const int tv = domain(succ_node_[i]);
                if (tv == tu)
                    continue;
                crosses = true;
                if (tv >= 0 && mark_[tv] != u) {
                    mark_[tv] = u;
                    in_[tv] += c;
                }
            }
            if (crosses && tu >= 0)
                out_[tu] += c;
        } else {
            for (int i = succ_begin_[u]; i < succ_begin_[u + 1]; ++i) {
                const int tv = domain(succ_node_[i]);
                if (tv == tu)
                    continue;
                const double c = w_.edge_cost[succ_edge_[i]];
                if (tv >= 0)
                    in_[tv] += c;
                if (tu >= 0)
                    out_[tu] += c;
            }
        }
    }
    for (int p = 0; p < pieces; ++p)
        duration_[p] = in_[p] + compute_[p] + out_[p];

    // Precedence between units: graph edges across units, and consecutive pieces of one
    // accelerator (14). Longest path by Kahn's algorithm; leftover units mean a deadlock.
    unit_begin_.assign(units + 1, 0);
    for (int u = 0; u < n_; ++u)
        for (int i = succ_begin_[u]; i < succ_begin_[u + 1]; ++i)
            if (unit_[u] != unit_[succ_node_[i]])
                ++unit_begin_[unit_[u] + 1];
    for (int a = 0; a < k; ++a)
        for (int t = 0; t + 1 < piece_count_[a]; ++t)
            ++unit_begin_[piece_base_[a] + t + 1];
    for (int x = 0; x < units; ++x)
        unit_begin_[x + 1] += unit_begin_[x];
    unit_succ_.resize(unit_begin_[units]);
    fill_.assign(unit_begin_.begin(), unit_begin_.end() - 1);
    unit_indeg_.assign(units, 0);
    auto link = [&](int x, int y) {
        unit_succ_[fill_[x]++] = y;
        ++unit_indeg_[y];
    };
    for (int u = 0; u < n_; ++u)
        for (int i = succ_begin_[u]; i < succ_begin_[u + 1]; ++i)
            if (unit_[u] != unit_[succ_node_[i]])
                link(unit_[u], unit_[succ_node_[i]]);
    for (int a = 0; a < k; ++a)
        for (int t = 0; t + 1 < piece_count_[a]; ++t)
            link(piece_base_[a] + t, piece_base_[a] + t + 1);
    ready_.assign(units, 0.0);
    finish_.assign(units, kLatencyInfinity);
    mark_.clear();  // reused as the Kahn stack
    for (int x = 0; x < units; ++x)
        if (unit_indeg_[x] == 0)
            mark_.push_back(x);
    int processed = 0;
    double makespan = 0.0;
    while (!mark_.empty()) {
        const int x = mark_.back();
        mark_.pop_back();
        ++processed;
        const double f = ready_[x] + duration_[x];
        finish_[x] = f;
        makespan = std::max(makespan, f);
        for (int i = unit_begin_[x]; i < unit_begin_[x + 1]; ++i) {
            const int y = unit_succ_[i];
            ready_[y] = std::max(ready_[y], f);
            if (--unit_indeg_[y] == 0)
                mark_.push_back(y);
        }
    }
    const bool deadlock_free = processed == units;
    const double schedule = deadlock_free ? makespan : kLatencyInfinity;
    const bool counted = feasible && (contiguous_ || !options.require_contiguous);
    const double latency = counted ? schedule : kLatencyInfinity;

    if (report != nullptr) {
        LatencyReport& r = *report;
        r.latency = supported && colocated && memory_ok ? schedule : kLatencyInfinity;
        r.schedule_latency = schedule;
        r.memory_ok = memory_ok;
        r.supported_ok = supported;
        r.colocation_ok = colocated;
        r.deadlock_free = deadlock_free;
        r.contiguous = contiguous_;
        r.accelerator_bytes = bytes_;
        r.memory_excess_bytes = memory_excess_;
        r.pieces_per_accelerator = piece_count_;
        r.pieces.assign(pieces, LatencyPiece{});
        for (int a = 0; a < k; ++a)
            for (int t = 0; t < piece_count_[a]; ++t) {
                LatencyPiece& p = r.pieces[piece_base_[a] + t];
                const int x = piece_base_[a] + t;
                p.accelerator = a;
                p.layer = t;
                p.transfer_in = in_[x];
                p.compute = compute_[x];
                p.transfer_out = out_[x];
                p.start = deadlock_free ? ready_[x] : kLatencyInfinity;
                p.finish = finish_[x];
            }
        r.node_finish.assign(n_, kLatencyInfinity);
        for (int v : topo_) {
            r.node_finish[v] = finish_[unit_[v]];
            if (dev[v] >= cpus)
                r.pieces[unit_[v]].nodes.push_back(v);
        }
    }
    return latency;
}

double split_latency(const Workload& workload, const Assignment& assignment) {
    LatencyEvaluator evaluator(workload);
    return evaluator.latency(assignment.device_of_node);
}

double split_latency(const Workload& workload, const Split& split) {
    return split_latency(workload, to_assignment(workload, split));
}

LatencyReport evaluate_latency(const Workload& workload, const Assignment& assignment) {
    LatencyEvaluator evaluator(workload);
    return evaluator.report(assignment.device_of_node);
}

}  // namespace hetsim::placement::tarnawski
