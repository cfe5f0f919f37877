// Shared machinery of the latency-oriented SplitSolvers; see latency_search.hpp.
#include "placement/tarnawski/latency/latency_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/solver_common.hpp"

namespace hetsim::placement::tarnawski {

namespace {

double relative_eps(double x) {
    return 1e-12 * std::max(1.0, std::fabs(x));
}

}  // namespace

Blocks make_blocks(const Workload& w, bool merge_cycles) {
    const int n = static_cast<int>(w.node_count());
    // Colour classes; a node without one is its own class.
    const ColourClasses colours = colour_classes(w);
    const std::vector<int>& cls = colours.of_node;
    const int classes = colours.count;
    std::vector<int> key = cls;
    if (merge_cycles) {
        std::vector<std::vector<int>> adj(classes);
        for (std::size_t e = 0; e < w.edge_count(); ++e) {
            const int a = cls[w.edge_source[e]], b = cls[w.edge_dest[e]];
            if (a != b)
                adj[a].push_back(b);
        }
        const std::vector<int> comp = strongly_connected(adj);
        for (int v = 0; v < n; ++v)
            key[v] = comp[cls[v]];
    }
    Blocks b;
    b.block_of_node.assign(n, -1);
    std::unordered_map<int, int> block_of_key;
    for (int v = 0; v < n; ++v) {
        auto [it, fresh] = block_of_key.emplace(key[v], static_cast<int>(b.nodes.size()));
        if (fresh) {
            b.nodes.emplace_back();
            b.bytes.push_back(0.0);
            b.accelerator_ok.push_back(1);
        }
        b.block_of_node[v] = it->second;
    }
    LatencyEvaluator evaluator(w);  // for its topological order (throws on a cyclic graph)
    for (int v : evaluator.topological_order()) {
        const int x = b.block_of_node[v];
        b.nodes[x].push_back(v);
        b.bytes[x] += w.size[v];
        if (!w.supported_on_accelerator[v])
            b.accelerator_ok[x] = 0;
    }
    b.succ.assign(b.nodes.size(), {});
    b.indegree.assign(b.nodes.size(), 0);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int x = b.block_of_node[w.edge_source[e]], y = b.block_of_node[w.edge_dest[e]];
        if (x != y) {
            b.succ[x].push_back(y);
            ++b.indegree[y];
        }
    }
    b.acyclic = block_order(b, BlockOrder::queue).size() == b.nodes.size();
    return b;
}

std::vector<int> block_order(const Blocks& blocks, BlockOrder kind, std::mt19937_64* rng) {
    std::vector<int> indeg = blocks.indegree, ready, order;
    for (int x = 0; x < blocks.count(); ++x)
        if (indeg[x] == 0)
            ready.push_back(x);
    std::size_t head = 0;  // queue front
    while (head < ready.size()) {
        int x;
        if (kind == BlockOrder::stack) {
            x = ready.back();
            ready.pop_back();
        } else if (kind == BlockOrder::queue) {
            x = ready[head++];
        } else {
            std::uniform_int_distribution<std::size_t> pick(head, ready.size() - 1);
            const std::size_t i = pick(*rng);
            std::swap(ready[i], ready.back());
            x = ready.back();
            ready.pop_back();
        }
        order.push_back(x);
        for (int y : blocks.succ[x])
            if (--indeg[y] == 0)
                ready.push_back(y);
    }
    return order;  // shorter than count() when the block graph has a cycle
}

Assignment greedy_fill(const Workload& w, const Blocks& blocks, const std::vector<int>& order,
                       int accelerators, const std::vector<double>& fill_fraction) {
    const int k = w.max_accelerators;
    const int usable = accelerators < 0 ? k : std::min(accelerators, k);
    const double M = w.max_size_per_accelerator;
    Assignment a;
    // Leftovers: CPU 0, or the last usable accelerator when there is no CPU.
    const int leftover =
        w.max_cpus > 0 ? cpu_device(w, 0) : accelerator_device(w, std::max(0, usable - 1));
    a.device_of_node.assign(w.node_count(), leftover);
    auto place = [&](int x, int device) {
        for (int v : blocks.nodes[x])
            a.device_of_node[v] = device;
    };
    int opened = 0;
    std::size_t i = 0;
    while (i < order.size()) {
        const int x = order[i];
        if (blocks.bytes[x] > M || !blocks.accelerator_ok[x] || opened == usable) {
            place(x, leftover);  // §7: "place any remaining nodes on the CPU"
            ++i;
            continue;
        }
        const double cap =
            static_cast<std::size_t>(opened) < fill_fraction.size() ? M * fill_fraction[opened] : M;
        const int device = accelerator_device(w, opened++);
        double used = 0.0;
        int placed = 0;
        while (i < order.size()) {
            const int y = order[i];
            if (!blocks.accelerator_ok[y] || used + blocks.bytes[y] > M ||
                (placed > 0 && used + blocks.bytes[y] > cap))
                break;
            place(y, device);
            used += blocks.bytes[y];
            ++placed;
            ++i;
        }
    }
    return a;
}

Assignment latency_greedy(const Workload& w, int accelerators) {
    const Blocks blocks = make_blocks(w, true);
    return greedy_fill(w, blocks, block_order(blocks, BlockOrder::stack), accelerators);
}

std::optional<LinearSplit> linear_latency_dp(const Workload& w, const Blocks& blocks,
                                             const std::vector<int>& order, int accelerators,
                                             const std::optional<Clock::time_point>& deadline) {
    const int n = static_cast<int>(w.node_count());
    const int B = static_cast<int>(order.size());
    const int K =
        accelerators < 0 ? w.max_accelerators : std::min(accelerators, w.max_accelerators);
    const bool cpu_ok = w.max_cpus > 0;
    const double M = w.max_size_per_accelerator;
    if (B != blocks.count())
        return std::nullopt;

    // Adjacency with edge costs; transfer items as in latency.cpp (§3 / App. B).
    std::vector<std::vector<std::pair<int, int>>> preds(n);  // (u, edge)
    std::vector<int> outdeg(n, 0);
    std::vector<double> out_all(n, 0.0), out_cost(n, 0.0);
    std::vector<std::uint8_t> uniform(n, 1), has_out(n, 0);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e], v = w.edge_dest[e];
        preds[v].emplace_back(u, static_cast<int>(e));
        if (!has_out[u])
            out_cost[u] = w.edge_cost[e];
        else if (w.edge_cost[e] != out_cost[u])
            uniform[u] = 0;
        has_out[u] = 1;
        ++outdeg[u];
        out_all[u] += w.edge_cost[e];
    }

    constexpr double kInf = kLatencyInfinity;
    // dp[b][j]: least Σ durations for the first b blocks with j accelerator segments.
    std::vector<std::vector<double>> dp(B + 1, std::vector<double>(K + 1, kInf));
    struct Parent {
        int from = -1;
        bool accelerator = false;
    };
    std::vector<std::vector<Parent>> parent(B + 1, std::vector<Parent>(K + 1));
    dp[0][0] = 0.0;

    std::vector<int> in_set(n, -1), counted_in(n, -1), outside(n, 0);
    std::vector<double> finish(n, 0.0);
    for (int a = 0; a < B; ++a) {
        if (past(deadline))
            return std::nullopt;
        bool any = false;
        for (int j = 0; j <= K; ++j)
            any |= dp[a][j] < kInf;
        if (!any)
            continue;
        double in = 0.0, out = 0.0, compute = 0.0, bytes = 0.0, cpu_span = 0.0;
        bool acc_ok = K > 0;
        for (int b = a; b < B && (acc_ok || cpu_ok); ++b) {
            const int x = order[b];
            for (int v : blocks.nodes[x])
                in_set[v] = a;
            for (int v : blocks.nodes[x]) {
                compute += w.accelerator_latency[v];
                bytes += w.size[v];
                outside[v] = outdeg[v];
                if (has_out[v])
                    out += uniform[v] ? out_cost[v] : out_all[v];
            }
            for (int v : blocks.nodes[x]) {
                double ready = 0.0;
                for (auto [u, e] : preds[v]) {
                    if (in_set[u] == a) {
                        // The edge is now inside the segment: no out-transfer for it.
                        if (!uniform[u])
                            out -= w.edge_cost[e];
                        else if (--outside[u] == 0)
                            out -= out_cost[u];
                        ready = std::max(ready, finish[u]);
                    } else if (!uniform[u]) {
                        in += w.edge_cost[e];
                    } else if (counted_in[u] != a) {
                        counted_in[u] = a;
                        in += out_cost[u];
                    }
                }
                finish[v] = ready + w.cpu_latency[v];  // blocks list nodes topologically
                cpu_span = std::max(cpu_span, finish[v]);
            }
            acc_ok = acc_ok && blocks.accelerator_ok[x] && bytes <= M;
            const double acc_span = in + compute + std::max(0.0, out);
            for (int j = 0; j <= K; ++j) {
                if (dp[a][j] == kInf)
                    continue;
                if (acc_ok && j < K && dp[a][j] + acc_span < dp[b + 1][j + 1]) {
                    dp[b + 1][j + 1] = dp[a][j] + acc_span;
                    parent[b + 1][j + 1] = {a, true};
                }
                if (cpu_ok && dp[a][j] + cpu_span < dp[b + 1][j]) {
                    dp[b + 1][j] = dp[a][j] + cpu_span;
                    parent[b + 1][j] = {a, false};
                }
            }
        }
    }
    int best = -1;
    for (int j = 0; j <= K; ++j)
        if (dp[B][j] < kInf && (best < 0 || dp[B][j] < dp[B][best]))
            best = j;
    if (best < 0)
        return std::nullopt;
    LinearSplit out;
    out.bound = dp[B][best];
    out.assignment.device_of_node.assign(n, cpu_ok ? cpu_device(w, 0) : accelerator_device(w, 0));
    int b = B, j = best;
    while (b > 0) {
        const Parent p = parent[b][j];
        const int device = p.accelerator ? accelerator_device(w, j - 1) : cpu_device(w, 0);
        for (int i = p.from; i < b; ++i)
            for (int v : blocks.nodes[order[i]])
                out.assignment.device_of_node[v] = device;
        if (p.accelerator)
            --j;
        b = p.from;
    }
    return out;
}

SplitScorer::SplitScorer(const Workload& w, SplitObjective objective, bool require_contiguous)
    : w_(w),
      objective_(objective),
      require_contiguous_(require_contiguous),
      latency_(w),
      edges_(w) {
    const int n = static_cast<int>(w.node_count());
    std::unordered_map<std::int64_t, int> dense;
    color_.assign(n, -1);
    for (int v = 0; v < n; ++v)
        if (w.has_color_class[v])
            color_[v] =
                dense.emplace(w.color_class[v], static_cast<int>(dense.size())).first->second;
    class_device_.assign(dense.size(), -1);
}

double SplitScorer::max_load(const std::vector<int>& dev) {
    const int n = static_cast<int>(w_.node_count());
    const int cpus = w_.max_cpus;
    const int devices = cpus + w_.max_accelerators;
    if (static_cast<int>(dev.size()) != n)
        throw WorkloadError(
            fmt::format("an assignment of {} nodes for a workload of {}", dev.size(), n));
    load_.assign(devices, 0.0);
    bytes_.assign(devices, 0.0);
    bool feasible = true;
    std::fill(class_device_.begin(), class_device_.end(), -1);
    for (int v = 0; v < n; ++v) {
        const int d = dev[v];
        if (d < 0 || d >= devices)
            throw WorkloadError(
                fmt::format("node {} is on device {}; the workload has {}", w_.id[v], d, devices));
        const bool acc = d >= cpus;
        load_[d] += acc ? w_.accelerator_latency[v] : w_.cpu_latency[v];
        bytes_[d] += w_.size[v];
        if (acc && !w_.supported_on_accelerator[v])
            feasible = false;
        if (color_[v] >= 0) {
            int& cd = class_device_[color_[v]];
            if (cd < 0)
                cd = d;
            else if (cd != d)
                feasible = false;
        }
    }
    if (!feasible)
        return kLatencyInfinity;
    for (int d = cpus; d < devices; ++d)
        if (bytes_[d] > w_.max_size_per_accelerator)
            return kLatencyInfinity;
    // Transfers as evaluate_assignment (§3, App. B): c_u once out of u's accelerator and once
    // into each other accelerator reading it; non-uniform costs per edge.
    add_transfer_loads(edges_, dev, cpus, load_, seen_);
    double worst = 0.0;
    for (double x : load_)
        worst = std::max(worst, x);
    return worst;
}

double SplitScorer::operator()(const std::vector<int>& device_of_node) {
    ++evaluations_;
    if (objective_ == SplitObjective::latency) {
        LatencyEvaluator::Options o;
        o.require_contiguous = require_contiguous_;
        return latency_.latency(device_of_node, o);
    }
    const double value = max_load(device_of_node);
    if (!std::isfinite(value))
        return kLatencyInfinity;
    if (require_contiguous_) {
        LatencyEvaluator::Options o;
        o.check_memory = false;
        latency_.latency(device_of_node, o);
        if (!latency_.contiguous())
            return kLatencyInfinity;
    }
    return value;
}

BlockDescent::BlockDescent(const Workload& w, const Blocks& blocks, SplitScorer& scorer)
    : w_(w), blocks_(blocks), score_(scorer) {}

std::vector<int> BlockDescent::targets(int accelerators) const {
    std::vector<int> t;
    const int cpus =
        score_.objective() == SplitObjective::latency ? std::min(1, w_.max_cpus) : w_.max_cpus;
    for (int c = 0; c < cpus; ++c)
        t.push_back(cpu_device(w_, c));
    const int k =
        accelerators < 0 ? w_.max_accelerators : std::min(accelerators, w_.max_accelerators);
    for (int a = 0; a < k; ++a)
        t.push_back(accelerator_device(w_, a));
    return t;
}

void BlockDescent::move(std::vector<int>& dev, int block, int device) const {
    for (int v : blocks_.nodes[block])
        dev[v] = device;
}

double BlockDescent::descend(std::vector<int>& dev, const DescentOptions& options,
                             std::mt19937_64& rng) {
    const std::vector<int> t = targets(options.accelerators);
    const int cpus = w_.max_cpus;
    const double M = w_.max_size_per_accelerator;
    std::vector<double> bytes(w_.max_accelerators, 0.0);
    for (std::size_t v = 0; v < dev.size(); ++v)
        if (dev[v] >= cpus)
            bytes[dev[v] - cpus] += w_.size[v];
    auto fits = [&](int x, int device) {
        if (!is_accelerator_device(w_, device))
            return true;
        return blocks_.accelerator_ok[x] && bytes[device - cpus] + blocks_.bytes[x] <= M;
    };
    auto apply = [&](int x, int from, int to) {
        move(dev, x, to);
        if (from >= cpus)
            bytes[from - cpus] -= blocks_.bytes[x];
        if (to >= cpus)
            bytes[to - cpus] += blocks_.bytes[x];
        ++moves_;
    };
    auto moved = [&](double score) {
        if (options.on_progress)
            options.on_progress(score);
    };
    double current = score_(dev);
    std::uint64_t steps = 0;
    const int B = blocks_.count();
    std::vector<int> perm(B);
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<int> targets_perm = t;
    while (steps < options.max_steps && !past(options.deadline)) {
        if (options.steepest) {
            double best = current;
            int best_block = -1, best_device = -1;
            bool stopped = false;
            for (int x = 0; x < B && !stopped; ++x) {
                // One scan costs blocks × devices evaluations: check the deadline inside it.
                stopped = past(options.deadline);
                if (options.on_progress && (x & 255) == 255)
                    options.on_progress(current);
                const int from = dev[blocks_.nodes[x].front()];
                for (int to : t) {
                    if (to == from || !fits(x, to))
                        continue;
                    move(dev, x, to);
                    const double s = score_(dev);
                    move(dev, x, from);
                    if (s < best - relative_eps(best)) {
                        best = s;
                        best_block = x;
                        best_device = to;
                    }
                }
            }
            if (best_block < 0)
                break;
            apply(best_block, dev[blocks_.nodes[best_block].front()], best_device);
            current = best;
            ++steps;
            moved(current);
            if (stopped)  // the best move of the part scanned is still an improvement
                break;
        } else {
            // One sweep in random order, taking every improving move found.
            std::shuffle(perm.begin(), perm.end(), rng);
            bool improved = false;
            for (int x : perm) {
                if (steps >= options.max_steps || past(options.deadline))
                    break;
                const int from = dev[blocks_.nodes[x].front()];
                std::shuffle(targets_perm.begin(), targets_perm.end(), rng);
                for (int to : targets_perm) {
                    if (to == from || !fits(x, to))
                        continue;
                    move(dev, x, to);
                    const double s = score_(dev);
                    if (s < current - relative_eps(current)) {
                        move(dev, x, from);
                        apply(x, from, to);
                        current = s;
                        improved = true;
                        ++steps;
                        moved(current);
                        break;
                    }
                    move(dev, x, from);
                }
            }
            if (!improved)
                break;
        }
    }
    return current;
}

std::vector<int> block_devices(const Blocks& blocks, const std::vector<int>& dev) {
    std::vector<int> out(blocks.count());
    for (int x = 0; x < blocks.count(); ++x)
        out[x] = dev[blocks.nodes[x].front()];
    return out;
}

bool blocks_consistent(const Blocks& blocks, const std::vector<int>& dev) {
    for (int x = 0; x < blocks.count(); ++x)
        for (int v : blocks.nodes[x])
            if (dev[v] != dev[blocks.nodes[x].front()])
                return false;
    return true;
}

void pool_cpus(const Workload& w, std::vector<int>& dev) {
    for (int& d : dev)
        if (d < w.max_cpus)
            d = cpu_device(w, 0);
}

std::optional<Clock::time_point> deadline_after(double seconds) {
    if (!(seconds > 0.0))
        return std::nullopt;
    return Clock::now() +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

bool past(const std::optional<Clock::time_point>& deadline) {
    return deadline && Clock::now() >= *deadline;
}

double split_objective(const Workload& w, const Assignment& a, SplitObjective objective) {
    if (objective == SplitObjective::latency)
        return split_latency(w, a);
    const LoadReport r = evaluate_assignment(w, a);
    return r.colocation_ok ? r.max_load : kLatencyInfinity;
}

}  // namespace hetsim::placement::tarnawski
