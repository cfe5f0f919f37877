// The PipeDream baseline of tarnawski2020 §6 (see the header for the steps and deviations).
#include "placement/tarnawski/baselines/pipedream_solver.hpp"
#include "placement/tarnawski/baselines/baseline_solvers.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/solver_common.hpp"

namespace hetsim::placement::tarnawski {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Biconnected components (Hopcroft-Tarjan, iterative, edge stack) of a simple undirected graph
// given as an edge list; calls on_component(edge ids) once per component.
template <typename OnComponent>
void biconnected_components(int vertices, const std::vector<std::pair<int, int>>& edges,
                            OnComponent on_component) {
    std::vector<std::vector<std::pair<int, int>>> adj(vertices);  // (neighbour, edge)
    for (int e = 0; e < static_cast<int>(edges.size()); ++e) {
        adj[edges[e].first].push_back({edges[e].second, e});
        adj[edges[e].second].push_back({edges[e].first, e});
    }
    std::vector<int> disc(vertices, -1), low(vertices, 0), edge_stack, component;
    struct Frame {
        int v, parent_edge;
        std::size_t next;
    };
    std::vector<Frame> call;
    int time = 0;
    for (int s = 0; s < vertices; ++s) {
        if (disc[s] >= 0)
            continue;
        disc[s] = low[s] = time++;
        call.push_back({s, -1, 0});
        while (!call.empty()) {
            Frame& f = call.back();
            if (f.next < adj[f.v].size()) {
                const auto [w, e] = adj[f.v][f.next++];
                if (e == f.parent_edge)
                    continue;
                if (disc[w] < 0) {
                    edge_stack.push_back(e);
                    disc[w] = low[w] = time++;
                    call.push_back({w, e, 0});  // invalidates f
                } else if (disc[w] < disc[f.v]) {
                    edge_stack.push_back(e);
                    low[f.v] = std::min(low[f.v], disc[w]);
                }
                continue;
            }
            const Frame done = f;
            call.pop_back();
            if (call.empty())
                break;
            const int u = call.back().v;
            low[u] = std::min(low[u], low[done.v]);
            if (low[done.v] >= disc[u]) {  // u separates done.v's subtree: one component
                component.clear();
                int e;
                do {
                    e = edge_stack.back();
                    edge_stack.pop_back();
                    component.push_back(e);
                } while (e != done.parent_edge);
                on_component(component);
            }
        }
    }
}

double objective_of(const Workload& w, const Assignment& a, double max_load,
                    const SolveOptions& options, std::map<std::string, std::string>& stats) {
    double latency = kInf;
    try {
        latency = split_latency(w, a);
    } catch (const WorkloadError&) {
        // A cyclic graph has no §4 latency; the throughput objective is still defined.
    }
    stats["latency"] = fmt::format("{:.9g}", latency);
    return options.objective == SplitObjective::latency ? latency : max_load;
}

}  // namespace

std::vector<std::vector<int>> pipedream_chain(const Workload& w, const PipeDreamOptions& options) {
    const int n = static_cast<int>(w.node_count());
    UnionFind uf(n);

    // Step 1: colour classes (Appendix B) are units of placement.
    {
        std::unordered_map<std::int64_t, int> first_of_class;
        for (int v = 0; v < n; ++v)
            if (w.has_color_class[v]) {
                auto [it, fresh] = first_of_class.emplace(w.color_class[v], v);
                if (!fresh)
                    uf.unite(it->second, v);
            }
    }

    // Step 2: PipeDream needs a path; the published code makes one by merging, for every
    // biconnected component of the (colour-contracted) graph, the tails of its edges.
    if (options.contract_branches) {
        std::vector<std::uint8_t> has_pred(n, 0);
        for (std::size_t e = 0; e < w.edge_count(); ++e)
            has_pred[w.edge_dest[e]] = 1;
        auto is_input = [&](int v) {
            return options.ignore_input_edges && !w.is_backward[v] && !has_pred[v] &&
                   w.cpu_latency[v] + w.accelerator_latency[v] < kZeroLatency;
        };
        std::unordered_map<int, int> unit_of_root;  // forward units, by class root
        std::vector<int> root_of_unit;
        for (int v = 0; v < n; ++v)
            if (!w.is_backward[v]) {
                auto [it, fresh] =
                    unit_of_root.emplace(uf.find(v), static_cast<int>(root_of_unit.size()));
                if (fresh)
                    root_of_unit.push_back(uf.find(v));
            }
        // Undirected simple graph of units; tails[e] bit 1: first endpoint is a tail, bit 2:
        // the second is.
        std::unordered_map<std::uint64_t, int> edge_of_pair;
        std::vector<std::pair<int, int>> edges;
        std::vector<std::uint8_t> tails;
        for (std::size_t e = 0; e < w.edge_count(); ++e) {
            const int u = w.edge_source[e], v = w.edge_dest[e];
            if (w.is_backward[u] || w.is_backward[v] || is_input(u))
                continue;
            const int a = unit_of_root.at(uf.find(u)), b = unit_of_root.at(uf.find(v));
            if (a == b)
                continue;
            const int lo = std::min(a, b), hi = std::max(a, b);
            const std::uint64_t key = (static_cast<std::uint64_t>(lo) << 32) | hi;
            auto [it, fresh] = edge_of_pair.emplace(key, static_cast<int>(edges.size()));
            if (fresh) {
                edges.push_back({lo, hi});
                tails.push_back(0);
            }
            tails[it->second] |= a == lo ? 1 : 2;
        }
        std::vector<std::pair<int, int>> unions;
        biconnected_components(
            static_cast<int>(root_of_unit.size()), edges, [&](const std::vector<int>& comp) {
                int first = -1;
                for (int e : comp)
                    for (int side : {0, 1}) {
                        if (!(tails[e] & (1 << side)))
                            continue;
                        const int unit = side == 0 ? edges[e].first : edges[e].second;
                        if (first < 0)
                            first = unit;
                        else
                            unions.push_back({first, unit});
                    }
            });
        for (auto [a, b] : unions)
            uf.unite(root_of_unit[a], root_of_unit[b]);
    }

    // Step 3: the forward graph over class roots. A root whose class has only backward nodes
    // (orphaned, Appendix B) gets an artificial forward image tied by mirrored backward edges.
    std::vector<int> root(n);
    for (int v = 0; v < n; ++v)
        root[v] = uf.find(v);
    std::vector<std::uint8_t> has_forward(n, 0);
    for (int v = 0; v < n; ++v)
        if (!w.is_backward[v])
            has_forward[root[v]] = 1;
    std::vector<int> vertex_of_root(n, -1), first_node;  // vertices by smallest node index
    for (int v = 0; v < n; ++v)
        if (vertex_of_root[root[v]] < 0) {
            vertex_of_root[root[v]] = static_cast<int>(first_node.size());
            first_node.push_back(v);
        }
    const int vertices = static_cast<int>(first_node.size());
    std::vector<std::vector<int>> out(vertices);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e], v = w.edge_dest[e];
        const int ru = root[u], rv = root[v];
        if (ru == rv)
            continue;
        if (!w.is_backward[u] && !w.is_backward[v])
            out[vertex_of_root[ru]].push_back(vertex_of_root[rv]);
        else if (w.is_backward[u] && w.is_backward[v] && (!has_forward[ru] || !has_forward[rv]))
            out[vertex_of_root[rv]].push_back(vertex_of_root[ru]);  // mirrored
    }
    // Every strongly connected component must be colocated (Appendix B).
    const std::vector<int> comp = strongly_connected(out);
    int comps = 0;
    for (int c : comp)
        comps = std::max(comps, c + 1);
    // Renumber components by their smallest node so that ties below follow node order.
    std::vector<int> order_of_comp(comps, -1);
    {
        int next = 0;
        for (int x = 0; x < vertices; ++x)
            if (order_of_comp[comp[x]] < 0)
                order_of_comp[comp[x]] = next++;
    }
    std::vector<std::vector<int>> succ(comps);
    std::vector<int> indeg(comps, 0);
    for (int x = 0; x < vertices; ++x)
        for (int y : out[x]) {
            const int a = order_of_comp[comp[x]], b = order_of_comp[comp[y]];
            if (a != b)
                succ[a].push_back(b);
        }
    for (auto& s : succ) {
        std::sort(s.begin(), s.end());
        s.erase(std::unique(s.begin(), s.end()), s.end());
        for (int b : s)
            ++indeg[b];
    }

    // Step 4: a DFS-like topological order (a stack of ready groups), the path of §5.1.2.
    std::vector<int> position(comps, -1), stack;
    for (int c = comps - 1; c >= 0; --c)
        if (indeg[c] == 0)
            stack.push_back(c);
    int next = 0;
    while (!stack.empty()) {
        const int c = stack.back();
        stack.pop_back();
        position[c] = next++;
        for (auto it = succ[c].rbegin(); it != succ[c].rend(); ++it)
            if (--indeg[*it] == 0)
                stack.push_back(*it);
    }
    if (next != comps)
        throw SolverError(
            "tarnawski.pipedream: internal error: the contracted forward graph is cyclic");
    std::vector<std::vector<int>> chain(comps);
    for (int v = 0; v < n; ++v)
        chain[position[order_of_comp[comp[vertex_of_root[root[v]]]]]].push_back(v);
    return chain;
}

PipeDreamResult solve_chain(const Workload& w, std::vector<std::vector<int>> chain) {
    const int n = static_cast<int>(w.node_count());
    const int m = static_cast<int>(chain.size());
    const int k = w.max_accelerators, l = w.max_cpus;
    std::vector<int> pos(n, -1);
    for (int p = 0; p < m; ++p)
        for (int v : chain[p]) {
            if (v < 0 || v >= n)
                throw SolverError(
                    fmt::format("tarnawski.pipedream: chain holds node index {} of {}", v, n));
            if (pos[v] >= 0)
                throw SolverError(
                    fmt::format("tarnawski.pipedream: node {} is in the chain twice", w.id[v]));
            pos[v] = p;
        }
    for (int v = 0; v < n; ++v)
        if (pos[v] < 0)
            throw SolverError(
                fmt::format("tarnawski.pipedream: node {} is not in the chain", w.id[v]));

    // Per position: Σ p^cpu, Σ p^acc, Σ m_v, support.
    std::vector<double> cpu(m, 0.0), acc(m, 0.0), bytes(m, 0.0);
    std::vector<std::uint8_t> supported(m, 1);
    for (int v = 0; v < n; ++v) {
        cpu[pos[v]] += w.cpu_latency[v];
        acc[pos[v]] += w.accelerator_latency[v];
        bytes[pos[v]] += w.size[v];
        if (!w.supported_on_accelerator[v])
            supported[pos[v]] = 0;
    }
    // Transfer items (§3), as evaluate_assignment charges them: a node whose outgoing edges all
    // cost c_u is one item, paid once by its own device if its output leaves it and once by
    // every other device reading it; otherwise each edge is an item (Appendix B subdivision).
    std::vector<double> item_cost;
    std::vector<int> item_targets;
    std::vector<std::vector<int>> home_items(m), target_items(m);
    for (const TransferItem& transfer : transfer_items(w)) {
        const int home = pos[transfer.source];
        std::vector<int> targets;
        for (int v : transfer.targets)
            targets.push_back(pos[v]);
        std::sort(targets.begin(), targets.end());
        targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
        targets.erase(std::remove(targets.begin(), targets.end(), home), targets.end());
        if (targets.empty())
            continue;
        const int item = static_cast<int>(item_cost.size());
        item_cost.push_back(transfer.cost);
        item_targets.push_back(static_cast<int>(targets.size()));
        home_items[home].push_back(item);
        for (int t : targets)
            target_items[t].push_back(item);
    }

    // The §5.1.1 DP restricted to prefixes of the chain (PipeDream's DP): dp[p][a][c] = the
    // smallest max-load splitting positions [0, p) over at most a accelerators and c CPUs, one
    // segment per device. Filled forwards: segment [i, j] grows one position at a time so its
    // transfer cost is updated in O(items touching j).
    const int layers = (k + 1) * (l + 1);
    auto at = [&](int p, int a, int c) {
        return static_cast<std::size_t>(p) * layers + static_cast<std::size_t>(a) * (l + 1) + c;
    };
    std::vector<double> dp(static_cast<std::size_t>(m + 1) * layers, kInf);
    struct Back {
        int from = -1;
        bool accelerator = false;
    };
    std::vector<Back> back(dp.size());
    for (int a = 0; a <= k; ++a)
        for (int c = 0; c <= l; ++c)
            dp[at(0, a, c)] = 0.0;
    std::vector<int> in_count(item_cost.size(), 0);
    std::vector<std::uint8_t> home_in(item_cost.size(), 0);
    auto paid = [&](int item) {
        return home_in[item] ? in_count[item] < item_targets[item] : in_count[item] > 0;
    };
    for (int i = 0; i < m; ++i) {
        std::fill(in_count.begin(), in_count.end(), 0);
        std::fill(home_in.begin(), home_in.end(), 0);
        double seg_cpu = 0.0, seg_acc = 0.0, seg_bytes = 0.0, transfer = 0.0;
        bool seg_supported = true;
        for (int j = i; j < m; ++j) {
            seg_cpu += cpu[j];
            seg_acc += acc[j];
            seg_bytes += bytes[j];
            seg_supported = seg_supported && supported[j];
            for (int item : home_items[j]) {
                transfer -= paid(item) ? item_cost[item] : 0.0;
                home_in[item] = 1;
                transfer += paid(item) ? item_cost[item] : 0.0;
            }
            for (int item : target_items[j]) {
                transfer -= paid(item) ? item_cost[item] : 0.0;
                ++in_count[item];
                transfer += paid(item) ? item_cost[item] : 0.0;
            }
            const double on_acc = seg_supported && seg_bytes <= w.max_size_per_accelerator
                                      ? seg_acc + std::max(0.0, transfer)
                                      : kInf;
            for (int a = 0; a <= k; ++a)
                for (int c = 0; c <= l; ++c) {
                    double& best = dp[at(j + 1, a, c)];
                    if (a > 0) {
                        const double cand = std::max(dp[at(i, a - 1, c)], on_acc);
                        if (cand < best) {
                            best = cand;
                            back[at(j + 1, a, c)] = {i, true};
                        }
                    }
                    if (c > 0) {
                        const double cand = std::max(dp[at(i, a, c - 1)], seg_cpu);
                        if (cand < best) {
                            best = cand;
                            back[at(j + 1, a, c)] = {i, false};
                        }
                    }
                }
        }
    }

    PipeDreamResult r;
    r.objective = m == 0 ? 0.0 : dp[at(m, k, l)];
    if (!std::isfinite(r.objective)) {
        r.chain = std::move(chain);
        return r;
    }
    // Back-track; devices are numbered in pipeline order.
    struct Segment {
        int begin, end;
        bool accelerator;
    };
    std::vector<Segment> segments;
    for (int p = m, a = k, c = l; p > 0;) {
        const Back b = back[at(p, a, c)];
        segments.push_back({b.from, p, b.accelerator});
        p = b.from;
        (b.accelerator ? a : c) -= 1;
    }
    std::reverse(segments.begin(), segments.end());
    r.assignment.device_of_node.assign(n, -1);
    int next_acc = 0, next_cpu = 0;
    for (const Segment& s : segments) {
        const int device =
            s.accelerator ? accelerator_device(w, next_acc++) : cpu_device(w, next_cpu++);
        for (int p = s.begin; p < s.end; ++p)
            for (int v : chain[p])
                r.assignment.device_of_node[v] = device;
    }
    r.segments = segments.size();
    r.chain = std::move(chain);
    return r;
}

PipeDreamResult solve_pipedream(const Workload& workload, const PipeDreamOptions& options) {
    return solve_chain(workload, pipedream_chain(workload, options));
}

namespace {

class PipeDreamSolver final : public SplitSolver {
public:
    PipeDreamSolver(std::string spec, PipeDreamOptions options)
        : spec_(std::move(spec)), options_(options) {}
    std::string name() const override { return spec_; }

protected:
    SolveResult solve_placeable(const Workload& w, const SolveOptions& options) const override {
        const auto t0 = std::chrono::steady_clock::now();
        const PipeDreamResult r = solve_pipedream(w, options_);
        const double seconds = seconds_since(t0);
        SolveResult out;
        out.stats["chain_length"] = std::to_string(r.chain.size());
        out.stats["segments"] = std::to_string(r.segments);
        out.stats["chain_dp"] = fmt::format("{:.9g}", r.objective);
        out.stats["wall_s"] = fmt::format("{:.6f}", seconds);
        if (r.assignment.device_of_node.empty()) {
            // No feasible split of the chain (only possible without CPUs): as the DP does, an
            // empty split with objective ∞.
            out.split.cpus.assign(static_cast<std::size_t>(w.max_cpus), {});
            out.split.accelerators.assign(static_cast<std::size_t>(w.max_accelerators), {});
            out.objective = kInf;
            out.split.objective = kInf;
            out.stats["max_load"] = "inf";
            out.stats["latency"] = "inf";
            return out;
        }
        const LoadReport report = evaluate_assignment(w, r.assignment);
        out.stats["max_load"] = fmt::format("{:.9g}", report.max_load);
        out.objective = objective_of(w, r.assignment, report.max_load, options, out.stats);
        out.split = to_split(w, r.assignment, out.objective);
        if (options.progress != nullptr)
            *options.progress << fmt::format(
                "{}: chain of {} groups, {} segments, max load {:.6g}\n", spec_, r.chain.size(),
                r.segments, report.max_load);
        return out;
    }

private:
    std::string spec_;
    PipeDreamOptions options_;
};

}  // namespace

std::unique_ptr<SplitSolver> make_pipedream_solver(const std::string& spec,
                                                   const PlacerArguments& arguments) {
    PipeDreamOptions options;
    options.contract_branches = arguments.boolean("branches");
    options.ignore_input_edges = arguments.choice("inputs") == "ignore";
    return std::make_unique<PipeDreamSolver>(spec, options);
}

}  // namespace hetsim::placement::tarnawski
