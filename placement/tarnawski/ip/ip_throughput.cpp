// tarnawski2020 §5.1.3 / Fig. 6 (and §5.2, §5.3): the max-load integer program, solved with CBC.
//
// Devices are numbered as in Assignment (CPUs 0..ℓ-1, accelerators ℓ..ℓ+k-1; the paper numbers
// accelerators first, which changes nothing). Variables and constraints, per Fig. 6:
//   x[g][d] ∈ {0,1}   colour group g on device d (colocation, App. B: one x per class)
//   Σ_d x[g][d] = 1                                              (15) every node placed once
//   Σ_g m_g x[g][d] <= M                       (accelerators d)   (17) memory
//   in[t][d]  >= x[v][d] - x[u][d]   for the edges (u,v) of transfer t   (18) CommIn
//   out[t][d] >= x[u][d] - x[v][d]                                       (19) CommOut
//   MaxLoad >= Σ_g p^acc_g x[g][d] + Σ_t c_t (in[t][d] + out[t][d])     (20) accelerator load
//   MaxLoad >= Σ_g p^cpu_g x[g][d]                                        (21) CPU load
//   min MaxLoad
// A transfer t is one source node's output (cost c_u, paid once per device it crosses to, §3)
// or, for a node with non-uniform outgoing costs, one edge (App. B subdivision).
// For training graphs the load is FW_i + BW_i (§5.3, App. A): the same sums over all nodes.
// Contiguity (16) is Lemma 4.1 ((11)-(13)) on the forward part, for every device (as the
// published code does with ALSO_FORCE_ON_CPUS); `acyclic` adds a linear order of the devices.
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

namespace hetsim::placement::tarnawski {

namespace {

using namespace ip_detail;
using Clock = std::chrono::steady_clock;

// One transfer: `home`'s output read by the groups `targets` (never home itself).
struct Transfer {
    int home = -1;
    std::vector<int> targets;
    double cost = 0.0;
    std::vector<int> in, out;  // columns per device, -1 on CPUs (§3: CPUs transfer for free)
};

struct ThroughputModel {
    MipModel mip;
    int cpus = 0, devices = 0;
    Groups groups;
    std::vector<double> group_cpu, group_acc, group_size;
    std::vector<std::vector<int>> x;  // [group][device]
    std::vector<std::vector<int>> z;  // [node][device] (Lemma 4.1), -1 where absent
    std::vector<Transfer> transfers;
    std::vector<std::vector<int>> prefix;            // [group][device] Σ_{g' <= g} x[g'][d], or -1
    std::vector<std::vector<int>> before;            // [a][b], a < b: device a precedes b (acyclic)
    std::vector<std::pair<int, int>> forward_edges;  // (u, v), both forward nodes
    int max_load = -1;
};

bool is_accelerator(const ThroughputModel& m, int d) {
    return d >= m.cpus;
}

// ord(a, b) as (column, sign, constant): before[a][b] for a < b, 1 - before[b][a] for a > b.
struct Order {
    int column;
    double sign;
    double constant;
};
Order order_of(const ThroughputModel& m, int a, int b) {
    if (a < b)
        return {m.before[a][b], 1.0, 0.0};
    return {m.before[b][a], -1.0, 1.0};
}

ThroughputModel build_model(const Workload& w, const ThroughputIpOptions& ip) {
    ThroughputModel m;
    MipModel& mip = m.mip;
    const int n = static_cast<int>(w.node_count());
    m.cpus = w.max_cpus;
    m.devices = w.max_cpus + w.max_accelerators;
    m.groups = colour_groups(w);
    const int groups = m.groups.count();
    const int devices = m.devices;
    const double memory = w.max_size_per_accelerator;

    // Group totals: a class runs on one device, so its cost there is the sum over its nodes.
    m.group_cpu.assign(groups, 0.0);
    m.group_acc.assign(groups, 0.0);
    m.group_size.assign(groups, 0.0);
    std::vector<bool> acc_ok(groups, true);
    for (int v = 0; v < n; ++v) {
        const int g = m.groups.of_node[v];
        m.group_cpu[g] += w.cpu_latency[v];
        m.group_size[g] += w.size[v];
        if (runs_on_accelerator(w, v))
            m.group_acc[g] += w.accelerator_latency[v];
        else
            acc_ok[g] = false;  // p^acc = ∞ (§3 footnote 1): x[g][acc] fixed to 0 below
    }

    m.x.assign(groups, std::vector<int>(devices, -1));
    for (int g = 0; g < groups; ++g) {
        for (int d = 0; d < devices; ++d) {
            const bool allowed = is_accelerator(m, d) ? acc_ok[g] && m.group_size[g] <= memory
                                                      : std::isfinite(m.group_cpu[g]);
            m.x[g][d] = mip.add_binary(fmt::format("x_g{}_d{}", g, d));
            if (!allowed)
                mip.set_bounds(m.x[g][d], 0.0, 0.0);
        }
    }
    // (15) each node (group) on exactly one device.
    for (int g = 0; g < groups; ++g) {
        MipModel::Terms terms;
        for (int d = 0; d < devices; ++d)
            terms.emplace_back(m.x[g][d], 1.0);
        mip.add_eq(terms, 1.0);
    }
    // (17) memory, scaled to M = 1 for the LP's numerics; redundant when everything fits.
    const double total_size = std::accumulate(m.group_size.begin(), m.group_size.end(), 0.0);
    if (total_size > memory && memory > 0.0) {
        for (int d = m.cpus; d < devices; ++d) {
            MipModel::Terms terms;
            for (int g = 0; g < groups; ++g)
                if (m.group_size[g] > 0.0)
                    terms.emplace_back(m.x[g][d], m.group_size[g] / memory);
            mip.add_le(terms, 1.0);
        }
    }

    // Transfers (CommIn / CommOut, (18)-(19)); only accelerators pay them (§3).
    if (w.max_accelerators > 0) {
        auto add_transfer = [&](int home, std::vector<int> targets, double cost) {
            std::sort(targets.begin(), targets.end());
            targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
            targets.erase(std::remove(targets.begin(), targets.end(), home), targets.end());
            if (targets.empty() || cost == 0.0)
                return;
            Transfer t;
            t.home = home;
            t.targets = std::move(targets);
            t.cost = cost;
            t.in.assign(devices, -1);
            t.out.assign(devices, -1);
            const int id = static_cast<int>(m.transfers.size());
            for (int d = m.cpus; d < devices; ++d) {
                t.in[d] = mip.add_continuous(0.0, 1.0, fmt::format("in_t{}_d{}", id, d));
                t.out[d] = mip.add_continuous(0.0, 1.0, fmt::format("out_t{}_d{}", id, d));
                for (int target : t.targets) {
                    // (18) a target on d and the source elsewhere: d reads the output.
                    mip.add_ge({{t.in[d], 1.0}, {m.x[target][d], -1.0}, {m.x[home][d], 1.0}}, 0.0);
                    // (19) the source on d and a target elsewhere: d writes the output.
                    mip.add_ge({{t.out[d], 1.0}, {m.x[home][d], -1.0}, {m.x[target][d], 1.0}}, 0.0);
                }
            }
            m.transfers.push_back(std::move(t));
        };
        for (const TransferItem& item : transfer_items(w)) {
            std::vector<int> targets;
            for (int v : item.targets)
                targets.push_back(m.groups.of_node[v]);
            add_transfer(m.groups.of_node[item.source], std::move(targets), item.cost);
        }
    }

    // MaxLoad, bounded below by the cheapest way to run the most expensive group (valid for
    // every split; it only helps the LP bound).
    double floor = 0.0;
    for (int g = 0; g < groups; ++g) {
        double cheapest = std::numeric_limits<double>::infinity();
        if (m.cpus > 0)
            cheapest = std::min(cheapest, m.group_cpu[g]);
        if (w.max_accelerators > 0 && acc_ok[g] && m.group_size[g] <= memory)
            cheapest = std::min(cheapest, m.group_acc[g]);
        if (std::isfinite(cheapest))
            floor = std::max(floor, cheapest);
    }
    m.max_load = mip.add_continuous(floor, kMipInfinity, "MaxLoad", 1.0);
    for (int d = 0; d < devices; ++d) {
        MipModel::Terms terms;
        for (int g = 0; g < groups; ++g) {
            const double p = is_accelerator(m, d) ? m.group_acc[g] : m.group_cpu[g];
            if (p > 0.0 && std::isfinite(p))
                terms.emplace_back(m.x[g][d], p);
        }
        if (is_accelerator(m, d))
            for (const Transfer& t : m.transfers) {
                terms.emplace_back(t.in[d], t.cost);
                terms.emplace_back(t.out[d], t.cost);
            }
        terms.emplace_back(m.max_load, -1.0);
        mip.add_le(terms, 0.0);  // (20) accelerators, (21) CPUs
    }

    // (16) contiguity of the forward part via Lemma 4.1: z[v][d] >= x[v][d] (11),
    // z[v][d] <= z[u][d] (12) and z[v][d] <= x[v][d] - x[u][d] + 1 (13) for forward edges (u,v).
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e], v = w.edge_dest[e];
        if (!w.is_backward[u] && !w.is_backward[v])
            m.forward_edges.emplace_back(u, v);
    }
    if (ip.contiguity != Contiguity::noncontiguous) {
        m.z.assign(n, std::vector<int>(devices, -1));
        std::vector<bool> touched(n, false);
        for (auto [u, v] : m.forward_edges)
            touched[u] = touched[v] = true;
        for (int v = 0; v < n; ++v) {
            if (!touched[v])  // no forward edge: (12)-(13) never constrain its z
                continue;
            for (int d = 0; d < devices; ++d) {
                m.z[v][d] = mip.add_continuous(0.0, 1.0, fmt::format("z_v{}_d{}", v, d));
                mip.add_ge({{m.z[v][d], 1.0}, {m.x[m.groups.of_node[v]][d], -1.0}}, 0.0);  // (11)
            }
        }
        for (auto [u, v] : m.forward_edges) {
            const int gu = m.groups.of_node[u], gv = m.groups.of_node[v];
            for (int d = 0; d < devices; ++d) {
                mip.add_le({{m.z[v][d], 1.0}, {m.z[u][d], -1.0}}, 0.0);  // (12)
                if (gu != gv)                                            // (13)
                    mip.add_le({{m.z[v][d], 1.0}, {m.x[gv][d], -1.0}, {m.x[gu][d], 1.0}}, 1.0);
            }
        }
    }

    // acyclic: a linear order of the devices (before[a][b], a tournament made transitive) in
    // which every forward edge between devices goes forward, i.e. the device sets are
    // I_1 \ ∅, I_2 \ I_1, ... for a chain of ideals: the DP's space (§5.1.1, Fact 5.2).
    if (ip.contiguity == Contiguity::acyclic && devices > 1) {
        m.before.assign(devices, std::vector<int>(devices, -1));
        for (int a = 0; a < devices; ++a)
            for (int b = a + 1; b < devices; ++b)
                m.before[a][b] = mip.add_binary(fmt::format("before_d{}_d{}", a, b));
        std::vector<std::pair<int, int>> pairs;
        for (auto [u, v] : m.forward_edges) {
            const int gu = m.groups.of_node[u], gv = m.groups.of_node[v];
            if (gu != gv)
                pairs.emplace_back(gu, gv);
        }
        std::sort(pairs.begin(), pairs.end());
        pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
        for (auto [gu, gv] : pairs)
            for (int a = 0; a < devices; ++a)
                for (int b = 0; b < devices; ++b) {
                    if (a == b)
                        continue;
                    // u on a and v on b  =>  a before b.
                    const Order o = order_of(m, a, b);
                    mip.add_le({{m.x[gu][a], 1.0}, {m.x[gv][b], 1.0}, {o.column, -o.sign}},
                               1.0 + o.constant);
                }
        // Transitivity: ord(a,b) + ord(b,c) - ord(a,c) <= 1 for distinct a, b, c.
        for (int a = 0; a < devices; ++a)
            for (int b = 0; b < devices; ++b)
                for (int c = 0; c < devices; ++c) {
                    if (a == b || b == c || a == c)
                        continue;
                    const Order ab = order_of(m, a, b), bc = order_of(m, b, c),
                                ac = order_of(m, a, c);
                    mip.add_le({{ab.column, ab.sign}, {bc.column, bc.sign}, {ac.column, -ac.sign}},
                               1.0 - ab.constant - bc.constant + ac.constant);
                }
    }

    // Symmetry breaking: within the CPUs and within the accelerators (interchangeable devices),
    // device d_i may hold group g only if d_{i-1} holds a group before g. Every split has a
    // relabelling that satisfies this (sort each class by first group, empty devices last).
    m.prefix.assign(groups, std::vector<int>(devices, -1));
    if (ip.break_symmetry) {
        auto chain = [&](int first, int last) {  // devices [first, last)
            for (int d = first; d + 1 < last; ++d) {
                for (int g = 0; g < groups; ++g) {
                    m.prefix[g][d] =
                        mip.add_continuous(0.0, groups, fmt::format("prefix_g{}_d{}", g, d));
                    MipModel::Terms terms{{m.prefix[g][d], 1.0}, {m.x[g][d], -1.0}};
                    if (g > 0)
                        terms.emplace_back(m.prefix[g - 1][d], -1.0);
                    mip.add_eq(terms, 0.0);
                }
                const int next = d + 1;
                mip.set_bounds(m.x[0][next], 0.0, 0.0);
                for (int g = 1; g < groups; ++g)
                    mip.add_le({{m.x[g][next], 1.0}, {m.prefix[g - 1][d], -1.0}}, 0.0);
            }
        };
        if (groups > 0) {
            chain(0, m.cpus);
            chain(m.cpus, devices);
        }
    }
    return m;
}

// The column vector of a split (device per node), relabelled to satisfy the symmetry breaking;
// empty if the split breaks a colour class.
std::vector<double> columns_of(const ThroughputModel& m, const Workload& w,
                               const Assignment& assignment) {
    const int groups = m.groups.count();
    const int devices = m.devices;
    const int n = static_cast<int>(w.node_count());
    std::vector<int> device(groups, -1);
    for (int v = 0; v < n; ++v) {
        const int g = m.groups.of_node[v];
        const int d = assignment.device_of_node.at(v);
        if (device[g] >= 0 && device[g] != d)
            return {};
        device[g] = d;
    }
    // Relabel within each class of interchangeable devices by first group held.
    std::vector<int> first(devices, groups);
    for (int g = groups - 1; g >= 0; --g)
        first[device[g]] = g;
    std::vector<int> relabel(devices);
    auto sort_class = [&](int begin, int end) {
        std::vector<int> order(end - begin);
        std::iota(order.begin(), order.end(), begin);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return first[a] < first[b]; });
        for (int i = 0; i < end - begin; ++i)
            relabel[order[i]] = begin + i;
    };
    sort_class(0, m.cpus);
    sort_class(m.cpus, devices);
    for (int& d : device)
        d = relabel[d];

    std::vector<double> col(m.mip.columns(), 0.0);
    for (int g = 0; g < groups; ++g)
        col[m.x[g][device[g]]] = 1.0;
    for (int d = 0; d < devices; ++d) {
        double running = 0.0;
        for (int g = 0; g < groups; ++g) {
            running += device[g] == d ? 1.0 : 0.0;
            if (m.prefix[g][d] >= 0)
                col[m.prefix[g][d]] = running;
        }
    }
    std::vector<double> load(devices, 0.0);
    for (int g = 0; g < groups; ++g) {
        const int d = device[g];
        load[d] += is_accelerator(m, d) ? m.group_acc[g] : m.group_cpu[g];
    }
    for (const Transfer& t : m.transfers) {
        for (int d = m.cpus; d < devices; ++d) {
            double in = 0.0, out = 0.0;
            for (int target : t.targets) {
                in = std::max(in, (device[target] == d ? 1.0 : 0.0) - (device[t.home] == d));
                out = std::max(out, (device[t.home] == d ? 1.0 : 0.0) - (device[target] == d));
            }
            col[t.in[d]] = in;
            col[t.out[d]] = out;
            load[d] += t.cost * (in + out);
        }
    }
    // z[v][d] = 1 iff some node on d is reachable from v along forward edges (the "only if"
    // direction of Lemma 4.1's proof).
    if (!m.z.empty()) {
        std::vector<std::vector<int>> predecessors(n);
        for (auto [u, v] : m.forward_edges)
            predecessors[v].push_back(u);
        for (int d = 0; d < devices; ++d) {
            const std::vector<char> reaches = nodes_reaching(predecessors, [&](int v) {
                return device[m.groups.of_node[v]] == d && !w.is_backward[v];
            });
            for (int v = 0; v < n; ++v)
                if (m.z[v][d] >= 0)
                    col[m.z[v][d]] = reaches[v];
        }
    }
    // before[a][b]: a topological order of the device graph (forward cut edges); a cyclic
    // device graph leaves some order violated, which the feasibility check reports.
    if (!m.before.empty()) {
        std::vector<std::vector<int>> succ(devices);
        std::vector<int> indegree(devices, 0);
        for (auto [u, v] : m.forward_edges) {
            const int a = device[m.groups.of_node[u]], b = device[m.groups.of_node[v]];
            if (a != b) {
                succ[a].push_back(b);
                ++indegree[b];
            }
        }
        std::vector<int> rank(devices, -1), ready;
        for (int d = 0; d < devices; ++d)
            if (indegree[d] == 0)
                ready.push_back(d);
        int next = 0;
        while (!ready.empty()) {
            const int d = ready.back();
            ready.pop_back();
            rank[d] = next++;
            for (int s : succ[d])
                if (--indegree[s] == 0)
                    ready.push_back(s);
        }
        for (int d = 0; d < devices; ++d)
            if (rank[d] < 0)
                rank[d] = next++;
        for (int a = 0; a < devices; ++a)
            for (int b = a + 1; b < devices; ++b)
                col[m.before[a][b]] = rank[a] < rank[b] ? 1.0 : 0.0;
    }
    double max_load = 0.0;
    for (double l : load)
        max_load = std::max(max_load, l);
    col[m.max_load] = max_load;
    return col;
}

Assignment assignment_of(const ThroughputModel& m, const Workload& w,
                         const std::vector<double>& col) {
    Assignment a;
    a.device_of_node.assign(w.node_count(), 0);
    for (std::size_t v = 0; v < w.node_count(); ++v) {
        const int g = m.groups.of_node[v];
        int best = 0;
        for (int d = 1; d < m.devices; ++d)
            if (col[m.x[g][d]] > col[m.x[g][best]])
                best = d;
        a.device_of_node[v] = best;
    }
    return a;
}

// The heuristic split CBC starts from (§5.1.1 DP, or §5.1.2 DPL on graphs with many ideals).
std::optional<Assignment> warm_start(const Workload& w, const ThroughputIpOptions& ip,
                                     std::ostream* log, std::string& source,
                                     const std::optional<Clock::time_point>& deadline) {
    if (ip.initial) {
        source = "given";
        return ip.initial;
    }
    WarmStart kind = ip.warm_start;
    if (kind == WarmStart::none || kind == WarmStart::greedy || kind == WarmStart::cpu)
        return std::nullopt;
    DpOptions dp;
    if (kind == WarmStart::automatic)
        kind = few_ideals(w, ip.dp_max_ideals) ? WarmStart::dp : WarmStart::dpl;
    dp.linearize = kind == WarmStart::dpl;
    dp.deadline = deadline;
    source = dp.linearize ? "dpl" : "dp";
    try {
        const DpResult r = solve_max_load(w, dp);
        if (!std::isfinite(r.objective))
            return std::nullopt;
        return to_assignment(w, r.split);
    } catch (const DpError& e) {
        if (log)
            *log << "ip_throughput: no warm start (" << source << ": " << e.what() << ")\n";
        return std::nullopt;
    }
}

}  // namespace

IpRun solve_throughput_ip(const Workload& w, const ThroughputIpOptions& ip,
                          const SolveOptions& options) {
    const auto t0 = Clock::now();
    if (w.max_cpus + w.max_accelerators <= 0)
        throw SolverError("tarnawski.ip_throughput: the workload has no devices");
    std::ostream* log = options.progress;
    IpRun run;

    std::optional<Assignment> warm =
        warm_start(w, ip, log, run.warm_source, warm_start_deadline(options, t0));
    if (warm)
        run.warm_objective = evaluate_assignment(w, *warm).max_load;
    if (!std::isfinite(run.warm_objective))
        warm.reset();
    if (!warm && !ip.initial && ip.warm_start != WarmStart::none && w.max_cpus > 0) {
        // The DP failed or ran out of its half of the time limit (DPL alone takes > 10 s on
        // 10,000 nodes): everything on one CPU, a split of every search space (one contiguous
        // set, no memory limit), still gives CBC a start and the caller an answer should CBC
        // find nothing in time.
        warm = Assignment{std::vector<int>(w.node_count(), cpu_device(w, 0))};
        run.warm_source = "cpu";
        run.warm_objective = evaluate_assignment(w, *warm).max_load;
        if (!std::isfinite(run.warm_objective))
            warm.reset();
    }
    if (out_of_time(options, t0)) {
        run.time_limit_hit = true;
        run.warm_accepted = warm.has_value();
        run.status = MipStatus::no_solution;
        finish_run(run, warm ? &*warm : nullptr, t0);
        return run;
    }

    const ThroughputModel m = build_model(w, ip);
    record_model_size(run, m.mip);
    if (log) {
        *log << fmt::format(
            "ip_throughput ({}): {} groups, {} devices, {} transfers; MIP {} columns, {} rows, "
            "{} nonzeros; warm start {} {:.6g}\n",
            contiguity_name(ip.contiguity), m.groups.count(), m.devices, m.transfers.size(),
            run.columns, run.rows, run.nonzeros, run.warm_source.empty() ? "none" : run.warm_source,
            run.warm_objective);
    }

    const MipResult r = run_cbc(m.mip, warm ? columns_of(m, w, *warm) : std::vector<double>{},
                                options, ip.log_level, ip.cbc_arguments, ip.max_nodes, t0, run);
    if (r.has_solution()) {
        run.assignment = assignment_of(m, w, r.solution);
        run.objective = evaluate_assignment(w, *run.assignment).max_load;
    }
    finish_run(run, warm ? &*warm : nullptr, t0);
    return run;
}

}  // namespace hetsim::placement::tarnawski
