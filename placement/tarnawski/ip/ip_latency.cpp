// tarnawski2020 §4: the latency integer program of Fig. 3 (q = 1) and Fig. 4 (q subgraphs per
// accelerator), linearised as in Lemma 4.1, solved with CBC.
//
// Slots j = 0..kq: j = 0 is the pool of all CPU cores (§4 assumes ℓ >= the width of G), slots
// (i-1)q+1 .. iq are the q subgraphs of accelerator i, invoked in that order. Per Fig. 4:
//   x[v][j] ∈ {0,1}                 node v in slot j
//   Σ_j x[v][j] = 1                                                     (1)
//   slot j contiguous (Lemma 4.1: z >= x (11), z_v <= z_u (12), z_v <= x_v - x_u + 1 (13))
//                                                                       (2)
//   Σ_v m_v Σ_{j of accelerator i} x[v][j] <= M                         (3*)
//   CommIn[t][j] >= x[v][j] - x[u][j], CommOut[t][j] >= x[u][j] - x[v][j]  (4), (5)
//   TotalLatency >= Latency_v                                           (after (5))
//   SubgraphStart_j >= Latency_u - H (1 - CommIn[t][j])                 (6), Lemma 4.1
//   SubgraphFinish_j = SubgraphStart_j + Σ c_t CommIn + Σ p^acc x + Σ c_t CommOut   (7)
//   Latency_v >= p^cpu_v x[v][0]                                        (8)
//   Latency_v >= Latency_u + p^cpu_v x[v][0]          for (u, v) ∈ E    (9)
//   Latency_v >= SubgraphFinish_j - H (1 - x[v][j])                     (10), Lemma 4.1
//   SubgraphStart_j >= SubgraphFinish_{j-1}     (j not the first slot of its accelerator) (14)
//   min TotalLatency
// Transfers t are as in the max-load IP: a source's output (c_u, uniform outgoing costs) or
// one edge (non-uniform costs, App. B). Colocation (§4.1): x_u0 = x_v0 and, per accelerator,
// Σ_j x_uj = Σ_j x_vj. H is the latency of the warm start (no better split has a node later).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <ostream>

#include <fmt/format.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/ip/ip_common.hpp"
#include "placement/tarnawski/ip/ip_solvers.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/latency/latency_search.hpp"
#include "placement/tarnawski/latency/latency_solvers.hpp"

namespace hetsim::placement::tarnawski {

namespace {

using namespace ip_detail;
using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

// One transfer: `source`'s output read by `targets` (one target for a non-uniform edge).
using Transfer = TransferItem;

// The §3 transfers with their readers sorted and distinct (one CommIn row per reader).
std::vector<Transfer> transfers_of(const Workload& w) {
    std::vector<Transfer> out = transfer_items(w);
    for (Transfer& t : out) {
        std::sort(t.targets.begin(), t.targets.end());
        t.targets.erase(std::unique(t.targets.begin(), t.targets.end()), t.targets.end());
    }
    return out;
}

// The IP's schedule of a slot assignment: Start/Finish per slot, Latency_v per node.
struct SlotSchedule {
    double total = kInf;
    std::vector<double> start, finish, node;  // slots 1..kq (index 0 unused), nodes
};

SlotSchedule schedule_slots(const Workload& w, const std::vector<Transfer>& transfers,
                            const std::vector<int>& slot, int q) {
    SlotSchedule s;
    const int n = static_cast<int>(w.node_count());
    const int k = w.max_accelerators;
    const int slots = k * q;
    if (static_cast<int>(slot.size()) != n)
        throw WorkloadError(fmt::format("{} slots for {} nodes", slot.size(), n));
    // Feasibility: support, memory per accelerator (3*), colour classes per device.
    std::vector<double> bytes(k, 0.0);
    for (int v = 0; v < n; ++v) {
        if (slot[v] < 0 || slot[v] > slots)
            throw WorkloadError(
                fmt::format("node {} in slot {}; there are {}", w.id[v], slot[v], slots));
        if (slot[v] > 0) {
            if (!runs_on_accelerator(w, v))
                return s;
            bytes[(slot[v] - 1) / q] += w.size[v];
        }
    }
    for (double b : bytes)
        if (b > w.max_size_per_accelerator)
            return s;
    auto device = [q](int j) { return j == 0 ? -1 : (j - 1) / q; };
    std::unordered_map<std::int64_t, int> class_device;
    for (int v = 0; v < n; ++v)
        if (w.has_color_class[v]) {
            auto [it, fresh] = class_device.emplace(w.color_class[v], device(slot[v]));
            if (!fresh && it->second != device(slot[v]))
                return s;
        }

    // Units: every CPU node alone, every slot as one (an invocation). Unit graph: cut edges,
    // plus slot j-1 -> slot j on one accelerator (14). A cycle means a slot cannot be invoked
    // once (not contiguous, or two slots waiting for each other).
    const int units = n + slots + 1;  // node v -> v; slot j -> n + j
    auto unit = [&](int v) { return slot[v] == 0 ? v : n + slot[v]; };
    std::vector<std::vector<int>> succ(units);
    std::vector<int> indegree(units, 0);
    auto link = [&](int a, int b) {
        succ[a].push_back(b);
        ++indegree[b];
    };
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int a = unit(w.edge_source[e]), b = unit(w.edge_dest[e]);
        if (a != b)
            link(a, b);
    }
    for (int j = 1; j <= slots; ++j)
        if ((j - 1) % q != 0)
            link(n + j - 1, n + j);
    std::vector<double> in(slots + 1, 0.0), out(slots + 1, 0.0), compute(slots + 1, 0.0);
    for (int v = 0; v < n; ++v)
        if (slot[v] > 0)
            compute[slot[v]] += w.accelerator_latency[v];
    for (const Transfer& t : transfers) {
        const int home = slot[t.source];
        std::vector<int> readers;
        bool leaves = false;
        for (int target : t.targets) {
            if (slot[target] != home) {
                leaves = true;
                if (slot[target] > 0)
                    readers.push_back(slot[target]);
            }
        }
        std::sort(readers.begin(), readers.end());
        readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
        for (int j : readers)
            in[j] += t.cost;
        if (leaves && home > 0)
            out[home] += t.cost;
    }
    // Longest paths in topological order.
    std::vector<double> ready(units, 0.0), done(units, 0.0);
    std::vector<int> stack;
    for (int u = 0; u < units; ++u)
        if (indegree[u] == 0)
            stack.push_back(u);
    int visited = 0;
    while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        ++visited;
        if (u < n) {
            done[u] = ready[u] + w.cpu_latency[u];
        } else {
            const int j = u - n;
            done[u] = j == 0 ? ready[u] : ready[u] + in[j] + compute[j] + out[j];
        }
        for (int b : succ[u]) {
            ready[b] = std::max(ready[b], done[u]);
            if (--indegree[b] == 0)
                stack.push_back(b);
        }
    }
    if (visited != units)
        return s;
    s.start.assign(slots + 1, 0.0);
    s.finish.assign(slots + 1, 0.0);
    for (int j = 1; j <= slots; ++j) {
        s.start[j] = ready[n + j];
        s.finish[j] = done[n + j];
    }
    s.node.assign(n, 0.0);
    s.total = 0.0;
    for (int v = 0; v < n; ++v) {
        s.node[v] = done[unit(v)];
        s.total = std::max(s.total, s.node[v]);
    }
    return s;
}

// Longest path ending at each node, a node weighing its cheapest allowed processing time.
std::vector<double> earliest_finish(const Workload& w, bool cpus) {
    const int n = static_cast<int>(w.node_count());
    std::vector<std::vector<int>> succ(n);
    std::vector<int> indegree(n, 0);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        succ[w.edge_source[e]].push_back(w.edge_dest[e]);
        ++indegree[w.edge_dest[e]];
    }
    std::vector<double> ready(n, 0.0), done(n, 0.0);
    std::vector<int> stack;
    for (int v = 0; v < n; ++v)
        if (indegree[v] == 0)
            stack.push_back(v);
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        double p = kInf;
        if (cpus && std::isfinite(w.cpu_latency[v]))
            p = w.cpu_latency[v];
        if (runs_on_accelerator(w, v) && w.max_accelerators > 0)
            p = std::min(p, w.accelerator_latency[v]);
        done[v] = ready[v] + (std::isfinite(p) ? p : 0.0);
        for (int s : succ[v]) {
            ready[s] = std::max(ready[s], done[v]);
            if (--indegree[s] == 0)
                stack.push_back(s);
        }
    }
    return done;  // nodes on a cycle keep 0 (the IP is then infeasible anyway)
}

struct LatencyModel {
    MipModel mip;
    int n = 0, k = 0, q = 1, slots = 0;
    std::vector<Transfer> transfers;
    std::vector<std::vector<int>> x;         // [node][slot 0..kq]
    std::vector<std::vector<int>> z;         // [node][slot], slot 0 unused (-1)
    std::vector<std::vector<int>> comm_in;   // [transfer][slot]
    std::vector<std::vector<int>> comm_out;  // [transfer][slot]
    std::vector<int> start, finish;          // [slot]
    std::vector<int> latency;                // [node]
    std::vector<std::vector<int>> prefix;    // [node][accelerator] (symmetry), or -1
    int total = -1;
    double big_m = 0.0;
};

LatencyModel build_model(const Workload& w, const LatencyIpOptions& ip, double big_m) {
    LatencyModel m;
    MipModel& mip = m.mip;
    const int n = m.n = static_cast<int>(w.node_count());
    const int k = m.k = w.max_accelerators;
    const int q = m.q = ip.subgraphs_per_accelerator;
    const int slots = m.slots = k * q;
    m.big_m = big_m;
    m.transfers = transfers_of(w);
    const double memory = w.max_size_per_accelerator;

    m.x.assign(n, std::vector<int>(slots + 1, -1));
    for (int v = 0; v < n; ++v)
        for (int j = 0; j <= slots; ++j) {
            m.x[v][j] = mip.add_binary(fmt::format("x_v{}_s{}", v, j));
            const bool allowed = j == 0 ? w.max_cpus > 0 && std::isfinite(w.cpu_latency[v])
                                        : runs_on_accelerator(w, v) && w.size[v] <= memory;
            if (!allowed)
                mip.set_bounds(m.x[v][j], 0.0, 0.0);
        }
    for (int v = 0; v < n; ++v) {  // (1)
        MipModel::Terms terms;
        for (int j = 0; j <= slots; ++j)
            terms.emplace_back(m.x[v][j], 1.0);
        mip.add_eq(terms, 1.0);
    }
    // (3*) memory per accelerator over its q slots, scaled to M = 1.
    double total_size = 0.0;
    for (int v = 0; v < n; ++v)
        total_size += w.size[v];
    if (total_size > memory && memory > 0.0)
        for (int i = 0; i < k; ++i) {
            MipModel::Terms terms;
            for (int v = 0; v < n; ++v)
                for (int t = 0; t < q; ++t)
                    if (w.size[v] > 0.0)
                        terms.emplace_back(m.x[v][i * q + t + 1], w.size[v] / memory);
            mip.add_le(terms, 1.0);
        }
    // Colocation (§4.1): on the CPUs together, and on the same accelerator (any of its slots).
    {
        std::unordered_map<std::int64_t, int> first;
        for (int v = 0; v < n; ++v) {
            if (!w.has_color_class[v])
                continue;
            auto [it, fresh] = first.emplace(w.color_class[v], v);
            if (fresh)
                continue;
            const int u = it->second;
            mip.add_eq({{m.x[u][0], 1.0}, {m.x[v][0], -1.0}}, 0.0);
            for (int i = 0; i < k; ++i) {
                MipModel::Terms terms;
                for (int t = 0; t < q; ++t) {
                    terms.emplace_back(m.x[u][i * q + t + 1], 1.0);
                    terms.emplace_back(m.x[v][i * q + t + 1], -1.0);
                }
                mip.add_eq(terms, 0.0);
            }
        }
    }
    // (2) every slot contiguous, by Lemma 4.1, over all edges: each slot is one invocation.
    m.z.assign(n, std::vector<int>(slots + 1, -1));
    for (int v = 0; v < n; ++v)
        for (int j = 1; j <= slots; ++j) {
            m.z[v][j] = mip.add_continuous(0.0, 1.0, fmt::format("z_v{}_s{}", v, j));
            mip.add_ge({{m.z[v][j], 1.0}, {m.x[v][j], -1.0}}, 0.0);  // (11)
        }
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e], v = w.edge_dest[e];
        for (int j = 1; j <= slots; ++j) {
            mip.add_le({{m.z[v][j], 1.0}, {m.z[u][j], -1.0}}, 0.0);                    // (12)
            mip.add_le({{m.z[v][j], 1.0}, {m.x[v][j], -1.0}, {m.x[u][j], 1.0}}, 1.0);  // (13)
        }
    }
    // (4), (5) CommIn / CommOut per transfer and slot (CPUs transfer for free).
    m.comm_in.assign(m.transfers.size(), std::vector<int>(slots + 1, -1));
    m.comm_out.assign(m.transfers.size(), std::vector<int>(slots + 1, -1));
    for (std::size_t t = 0; t < m.transfers.size(); ++t) {
        const Transfer& tr = m.transfers[t];
        for (int j = 1; j <= slots; ++j) {
            m.comm_in[t][j] = mip.add_continuous(0.0, 1.0, fmt::format("in_t{}_s{}", t, j));
            m.comm_out[t][j] = mip.add_continuous(0.0, 1.0, fmt::format("out_t{}_s{}", t, j));
            for (int target : tr.targets) {
                const int xu = m.x[tr.source][j], xv = m.x[target][j];
                mip.add_ge({{m.comm_in[t][j], 1.0}, {xv, -1.0}, {xu, 1.0}}, 0.0);   // (4)
                mip.add_ge({{m.comm_out[t][j], 1.0}, {xu, -1.0}, {xv, 1.0}}, 0.0);  // (5)
            }
        }
    }
    // Times. Latency_v, SubgraphStart_j, SubgraphFinish_j >= 0. Latency_v is also at least the
    // longest path ending at v with each node at its cheapest processing time: along a path, a
    // CPU node adds p^cpu by (9), and the nodes a path visits in one (contiguous) subgraph all
    // add to its compute in (7). Valid for every feasible split; it only tightens the LP.
    const std::vector<double> earliest = earliest_finish(w, w.max_cpus > 0);
    m.latency.resize(n);
    for (int v = 0; v < n; ++v)
        m.latency[v] = mip.add_continuous(earliest[v], kMipInfinity, fmt::format("Latency_v{}", v));
    m.start.assign(slots + 1, -1);
    m.finish.assign(slots + 1, -1);
    for (int j = 1; j <= slots; ++j) {
        m.start[j] = mip.add_continuous(0.0, kMipInfinity, fmt::format("Start_s{}", j));
        m.finish[j] = mip.add_continuous(0.0, kMipInfinity, fmt::format("Finish_s{}", j));
    }
    const double critical = n > 0 ? *std::max_element(earliest.begin(), earliest.end()) : 0.0;
    m.total = mip.add_continuous(critical, kMipInfinity, "TotalLatency", 1.0);
    std::vector<bool> has_successor(n, false);
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        has_successor[w.edge_source[e]] = true;
    for (int v = 0; v < n; ++v)  // TotalLatency >= Latency_v; (9) makes sinks enough
        if (!has_successor[v])
            mip.add_ge({{m.total, 1.0}, {m.latency[v], -1.0}}, 0.0);
    // (6) SubgraphStart_j >= Latency_u - H (1 - CommIn): a slot starts once its inputs are in
    // RAM.
    for (std::size_t t = 0; t < m.transfers.size(); ++t)
        for (int j = 1; j <= slots; ++j)
            mip.add_ge({{m.start[j], 1.0},
                        {m.latency[m.transfers[t].source], -1.0},
                        {m.comm_in[t][j], -big_m}},
                       -big_m);
    // (7) SubgraphFinish_j = SubgraphStart_j + in-transfers + compute + out-transfers.
    for (int j = 1; j <= slots; ++j) {
        MipModel::Terms terms{{m.finish[j], 1.0}, {m.start[j], -1.0}};
        for (int v = 0; v < n; ++v)
            if (runs_on_accelerator(w, v) && w.accelerator_latency[v] > 0.0)
                terms.emplace_back(m.x[v][j], -w.accelerator_latency[v]);
        for (std::size_t t = 0; t < m.transfers.size(); ++t)
            if (m.transfers[t].cost > 0.0) {
                terms.emplace_back(m.comm_in[t][j], -m.transfers[t].cost);
                terms.emplace_back(m.comm_out[t][j], -m.transfers[t].cost);
            }
        mip.add_eq(terms, 0.0);
    }
    // (8), (9) CPU nodes start when their predecessors are done.
    for (int v = 0; v < n; ++v)
        if (std::isfinite(w.cpu_latency[v]) && w.cpu_latency[v] > 0.0)
            mip.add_ge({{m.latency[v], 1.0}, {m.x[v][0], -w.cpu_latency[v]}}, 0.0);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e], v = w.edge_dest[e];
        const double p = std::isfinite(w.cpu_latency[v]) ? w.cpu_latency[v] : 0.0;
        mip.add_ge({{m.latency[v], 1.0}, {m.latency[u], -1.0}, {m.x[v][0], -p}}, 0.0);
    }
    // (10) Latency_v >= SubgraphFinish_j - H (1 - x[v][j]).
    for (int v = 0; v < n; ++v)
        for (int j = 1; j <= slots; ++j)
            mip.add_ge({{m.latency[v], 1.0}, {m.finish[j], -1.0}, {m.x[v][j], -big_m}}, -big_m);
    // (14) one subgraph at a time per accelerator, in slot order.
    for (int j = 1; j <= slots; ++j)
        if ((j - 1) % q != 0)
            mip.add_ge({{m.start[j], 1.0}, {m.finish[j - 1], -1.0}}, 0.0);

    // Symmetry breaking: accelerators are interchangeable; accelerator i may hold node v only if
    // accelerator i-1 holds a node before v.
    m.prefix.assign(n, std::vector<int>(k, -1));
    if (ip.break_symmetry && k > 1 && n > 0) {
        auto on = [&](int v, int i) {
            MipModel::Terms terms;
            for (int t = 0; t < q; ++t)
                terms.emplace_back(m.x[v][i * q + t + 1], 1.0);
            return terms;
        };
        for (int i = 0; i + 1 < k; ++i) {
            for (int v = 0; v < n; ++v) {
                m.prefix[v][i] = mip.add_continuous(0.0, n, fmt::format("prefix_v{}_a{}", v, i));
                MipModel::Terms terms = on(v, i);
                for (auto& term : terms)
                    term.second = -1.0;
                terms.emplace_back(m.prefix[v][i], 1.0);
                if (v > 0)
                    terms.emplace_back(m.prefix[v - 1][i], -1.0);
                mip.add_eq(terms, 0.0);
            }
            MipModel::Terms first = on(0, i + 1);
            mip.add_eq(first, 0.0);
            for (int v = 1; v < n; ++v) {
                MipModel::Terms terms = on(v, i + 1);
                terms.emplace_back(m.prefix[v - 1][i], -1.0);
                mip.add_le(terms, 0.0);
            }
        }
    }
    return m;
}

// Slots of an assignment: CPU nodes -> 0, accelerator a's contiguous pieces (earliest layering
// of latency.hpp) -> its slots in layer order. Empty if some accelerator needs more than q.
std::vector<int> slots_of(const Workload& w, const Assignment& a, int q) {
    const int n = static_cast<int>(w.node_count());
    std::vector<int> slot(n, 0);
    const LatencyReport r = evaluate_latency(w, a);
    for (const LatencyPiece& piece : r.pieces) {
        if (piece.layer >= q)
            return {};
        for (int v : piece.nodes)
            slot[v] = piece.accelerator * q + piece.layer + 1;
    }
    for (int v = 0; v < n; ++v)
        if (a.device_of_node[v] >= w.max_cpus && slot[v] == 0)
            return {};  // a node on an accelerator outside every piece: should not happen
    return slot;
}

// The column vector of a slot assignment (accelerators relabelled for the symmetry breaking),
// or empty if the slots cannot be scheduled.
std::vector<double> columns_of(const LatencyModel& m, const Workload& w, std::vector<int> slot) {
    const int n = m.n, q = m.q, k = m.k, slots = m.slots;
    // Relabel accelerators by first node held (empty last).
    std::vector<int> first(k, n);
    for (int v = n - 1; v >= 0; --v)
        if (slot[v] > 0)
            first[(slot[v] - 1) / q] = v;
    std::vector<int> order(k);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return first[a] < first[b]; });
    std::vector<int> relabel(k);
    for (int i = 0; i < k; ++i)
        relabel[order[i]] = i;
    for (int& j : slot)
        if (j > 0)
            j = relabel[(j - 1) / q] * q + (j - 1) % q + 1;

    const SlotSchedule s = schedule_slots(w, m.transfers, slot, q);
    if (!std::isfinite(s.total))
        return {};
    std::vector<double> col(m.mip.columns(), 0.0);
    for (int v = 0; v < n; ++v) {
        col[m.x[v][slot[v]]] = 1.0;
        col[m.latency[v]] = s.node[v];
    }
    for (int j = 1; j <= slots; ++j) {
        col[m.start[j]] = s.start[j];
        col[m.finish[j]] = s.finish[j];
    }
    col[m.total] = s.total;
    // z[v][j] = 1 iff v reaches a node of slot j (Lemma 4.1, "only if").
    std::vector<std::vector<int>> predecessors(n);
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        predecessors[w.edge_dest[e]].push_back(w.edge_source[e]);
    for (int j = 1; j <= slots; ++j) {
        const std::vector<char> reaches =
            nodes_reaching(predecessors, [&](int v) { return slot[v] == j; });
        for (int v = 0; v < n; ++v)
            col[m.z[v][j]] = reaches[v];
    }
    for (std::size_t t = 0; t < m.transfers.size(); ++t) {
        const Transfer& tr = m.transfers[t];
        for (int j = 1; j <= slots; ++j) {
            double in = 0.0, out = 0.0;
            for (int target : tr.targets) {
                const double xu = slot[tr.source] == j, xv = slot[target] == j;
                in = std::max(in, xv - xu);
                out = std::max(out, xu - xv);
            }
            col[m.comm_in[t][j]] = in;
            col[m.comm_out[t][j]] = out;
        }
    }
    for (int i = 0; i + 1 < k; ++i) {
        double running = 0.0;
        for (int v = 0; v < n; ++v) {
            running += slot[v] > 0 && (slot[v] - 1) / q == i ? 1.0 : 0.0;
            if (m.prefix[v][i] >= 0)
                col[m.prefix[v][i]] = running;
        }
    }
    return col;
}

std::vector<int> decode_slots(const LatencyModel& m, const std::vector<double>& col) {
    std::vector<int> slot(m.n, 0);
    for (int v = 0; v < m.n; ++v) {
        int best = 0;
        for (int j = 1; j <= m.slots; ++j)
            if (col[m.x[v][j]] > col[m.x[v][best]])
                best = j;
        slot[v] = best;
    }
    return slot;
}

// CPU nodes pooled on CPU 0 (§4: one CPU device), accelerator i = device ℓ + i.
Assignment assignment_of_slots(const Workload& w, const std::vector<int>& slot, int q) {
    Assignment a;
    a.device_of_node.resize(slot.size());
    for (std::size_t v = 0; v < slot.size(); ++v)
        a.device_of_node[v] = slot[v] == 0 ? 0 : w.max_cpus + (slot[v] - 1) / q;
    return a;
}

struct Candidate {
    std::string source;
    Assignment assignment;
    double latency = kInf;
};

// Warm-start candidates: the §7 baselines (greedy, the max-load DP's split, all on the CPUs)
// and tarnawski.latency's search.
std::vector<Candidate> candidates(const Workload& w, const LatencyIpOptions& ip, std::uint64_t seed,
                                  std::ostream* log,
                                  const std::optional<Clock::time_point>& deadline) {
    std::vector<Candidate> out;
    auto consider = [&](std::string source, Assignment a) {
        pool_cpus(w, a.device_of_node);
        const double latency = split_latency(w, a);
        if (log)
            *log << fmt::format("ip_latency: warm-start candidate {} latency {:.6g}\n", source,
                                latency);
        if (std::isfinite(latency))
            out.push_back({std::move(source), std::move(a), latency});
    };
    if (ip.initial) {
        consider("given", *ip.initial);
        return out;
    }
    const WarmStart kind = ip.warm_start;
    if (kind == WarmStart::none)
        return out;
    if (kind == WarmStart::automatic || kind == WarmStart::greedy)
        consider("greedy", latency_greedy(w));
    if (kind == WarmStart::automatic || kind == WarmStart::dp || kind == WarmStart::dpl) {
        DpOptions dp;
        dp.linearize = kind == WarmStart::dpl;
        if (kind == WarmStart::automatic && !few_ideals(w, ip.dp_max_ideals))
            dp.linearize = true;
        dp.deadline = deadline;
        try {
            const DpResult r = solve_max_load(w, dp);
            if (std::isfinite(r.objective))
                consider(dp.linearize ? "dpl" : "dp", to_assignment(w, r.split));
        } catch (const DpError& e) {
            if (log)
                *log << "ip_latency: no DP warm start (" << e.what() << ")\n";
        }
    }
    if ((kind == WarmStart::automatic || kind == WarmStart::cpu) && w.max_cpus > 0) {
        Assignment all;
        all.device_of_node.assign(w.node_count(), 0);
        consider("cpu", std::move(all));
    }
    if (kind == WarmStart::automatic || kind == WarmStart::search) {
        // The best heuristic we have (issue: "a warm start from the best heuristic split"):
        // on BERT-3 it starts CBC at 408.47 where the baselines give 415.9, which CBC alone
        // did not leave in 120 s. Contiguous for the q = 1 model; with q > 1 any split whose
        // accelerators hold at most q pieces is representable (slots_of checks).
        SolveOptions so;
        so.objective = SplitObjective::latency;
        so.seed = seed;
        for (const bool contiguous : {true, false}) {
            if (!contiguous && ip.subgraphs_per_accelerator == 1)
                continue;
            if (deadline) {
                // The search stops at the warm starts' deadline (0 would mean no limit).
                so.time_limit_s = std::chrono::duration<double>(*deadline - Clock::now()).count();
                if (so.time_limit_s <= 0.0)
                    break;
            }
            LatencyPlacerParams p;
            p.contiguous = contiguous;
            p.name = "ip_latency warm start";
            const SolveResult r = place_for_latency(w, so, p);
            if (std::isfinite(r.objective))
                consider(contiguous ? "search" : "search_any", to_assignment(w, r.split));
        }
    }
    return out;
}

// A crude upper bound on any Latency_v of a schedule: everything run one after the other,
// every transfer paid in and out of every slot.
double serial_bound(const Workload& w, const std::vector<Transfer>& transfers, int slots) {
    double sum = 0.0;
    for (std::size_t v = 0; v < w.node_count(); ++v) {
        double p = 0.0;
        if (std::isfinite(w.cpu_latency[v]))
            p = w.cpu_latency[v];
        if (runs_on_accelerator(w, static_cast<int>(v)))
            p = std::max(p, w.accelerator_latency[v]);
        sum += p;
    }
    for (const Transfer& t : transfers)
        sum += 2.0 * slots * t.cost;
    return sum;
}

}  // namespace

double slot_latency(const Workload& w, const std::vector<int>& slot, int q) {
    if (q < 1)
        throw WorkloadError(fmt::format("q = {}: at least one subgraph per accelerator", q));
    return schedule_slots(w, transfers_of(w), slot, q).total;
}

IpRun solve_latency_ip(const Workload& w, const LatencyIpOptions& ip, const SolveOptions& options) {
    const auto t0 = Clock::now();
    const int q = ip.subgraphs_per_accelerator;
    if (q < 1)
        throw SolverError(fmt::format("tarnawski.ip_latency: q = {} (need q >= 1)", q));
    if (w.max_cpus + w.max_accelerators <= 0)
        throw SolverError("tarnawski.ip_latency: the workload has no devices");
    std::ostream* log = options.progress;
    IpRun run;

    // Warm start: the best candidate by §4 latency that the slot model can represent.
    std::vector<Candidate> seeds =
        candidates(w, ip, options.seed, log, warm_start_deadline(options, t0));
    // Stable: on ties the earlier (simpler) candidate is reported as the source.
    std::stable_sort(seeds.begin(), seeds.end(),
                     [](const Candidate& a, const Candidate& b) { return a.latency < b.latency; });
    std::optional<Candidate> warm;
    std::vector<int> warm_slots;
    for (Candidate& c : seeds) {
        warm_slots = slots_of(w, c.assignment, q);
        if (!warm_slots.empty()) {
            warm = std::move(c);
            break;
        }
    }
    const std::vector<Transfer> transfers = transfers_of(w);
    double big_m = serial_bound(w, transfers, w.max_accelerators * q);
    if (warm) {
        run.warm_source = warm->source;
        run.warm_objective = warm->latency;
        // No split better than the warm start has a node finishing later than it (Lemma 4.1's
        // H: "larger than Latency_v in any considered solution").
        const double modelled = schedule_slots(w, transfers, warm_slots, q).total;
        big_m = std::min(big_m, std::max(warm->latency, modelled) * (1.0 + 1e-6) + 1e-6);
    }

    if (out_of_time(options, t0)) {
        run.time_limit_hit = true;
        run.warm_accepted = warm.has_value();
        run.status = MipStatus::no_solution;
        finish_run(run, warm ? &warm->assignment : nullptr, t0);
        return run;
    }
    const LatencyModel m = build_model(w, ip, big_m);
    record_model_size(run, m.mip);
    if (log) {
        *log << fmt::format(
            "ip_latency (q={}): {} nodes, {} accelerators, {} slots, {} transfers, H {:.6g}; "
            "MIP {} columns, {} rows, {} nonzeros; warm start {} {:.6g}\n",
            q, m.n, m.k, m.slots, m.transfers.size(), big_m, run.columns, run.rows, run.nonzeros,
            run.warm_source.empty() ? "none" : run.warm_source, run.warm_objective);
    }

    const MipResult r = run_cbc(m.mip, warm ? columns_of(m, w, warm_slots) : std::vector<double>{},
                                options, ip.log_level, ip.cbc_arguments, ip.max_nodes, t0, run);
    if (r.has_solution()) {
        const std::vector<int> slot = decode_slots(m, r.solution);
        run.assignment = assignment_of_slots(w, slot, q);
        // The split's §4 latency (latency.hpp); for q = 1 it is the IP's value, for q > 1 the
        // accelerators' pieces are re-derived from the split and may be scheduled differently.
        run.objective = split_latency(w, *run.assignment);
    }
    finish_run(run, warm ? &warm->assignment : nullptr, t0);
    return run;
}

}  // namespace hetsim::placement::tarnawski
