// Internal helpers shared by the tarnawski2020 IP solvers (ip_throughput.cpp, ip_latency.cpp,
// register_ip_solvers.cpp). Not part of the public API.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "placement/tarnawski/workload.hpp"

namespace hetsim::placement::tarnawski::ip_detail {

// Colour classes (Appendix B): nodes of one class must share a device, so the throughput IP
// gives a class one set of x variables instead of the paper's equality constraints x_u = x_v.
// A node without a class is a group of its own. Groups are numbered by their first node.
struct Groups {
    std::vector<int> of_node;
    std::vector<std::vector<int>> nodes;
    int count() const { return static_cast<int>(nodes.size()); }
};

inline Groups colour_groups(const Workload& w) {
    Groups g;
    const int n = static_cast<int>(w.node_count());
    g.of_node.assign(n, -1);
    std::unordered_map<std::int64_t, int> of_class;
    for (int v = 0; v < n; ++v) {
        int group = -1;
        if (w.has_color_class[v]) {
            auto [it, fresh] = of_class.emplace(w.color_class[v], g.count());
            group = it->second;
            if (fresh)
                g.nodes.emplace_back();
        } else {
            group = g.count();
            g.nodes.emplace_back();
        }
        g.of_node[v] = group;
        g.nodes[group].push_back(v);
    }
    return g;
}

// Outgoing edges per node (by edge index).
inline std::vector<std::vector<int>> out_edges(const Workload& w) {
    std::vector<std::vector<int>> out(w.node_count());
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        out[w.edge_source[e]].push_back(static_cast<int>(e));
    return out;
}

// A node's outgoing transfers are "uniform" when all its edges carry the same cost: then the
// output is moved once per device pair (§3, c_u). Otherwise every edge is its own transfer (the
// subdivision of Appendix B). Same rule as evaluate_assignment.
inline bool uniform_costs(const Workload& w, const std::vector<int>& edges) {
    for (int e : edges)
        if (w.edge_cost[e] != w.edge_cost[edges.front()])
            return false;
    return true;
}

inline bool runs_on_accelerator(const Workload& w, int v) {
    return w.supported_on_accelerator[v] && std::isfinite(w.accelerator_latency[v]);
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// (objective - bound) / objective, 0 when the bound meets the objective up to rounding.
inline double relative_gap(double objective, double bound) {
    const double gap =
        (objective - std::min(bound, objective)) / std::max(std::fabs(objective), 1e-9);
    return gap < 1e-12 ? 0.0 : gap;
}

// What is left of a wall-clock budget for CBC after the warm start (0 = no limit). CBC always
// gets a little time so that it can at least take the warm start and report a bound.
inline double remaining_budget(double limit_s, std::chrono::steady_clock::time_point t0) {
    if (limit_s <= 0.0)
        return 0.0;
    const double left = limit_s - seconds_since(t0);
    return left > 0.2 ? left : 0.2;
}

}  // namespace hetsim::placement::tarnawski::ip_detail
