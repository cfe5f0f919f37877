// Helpers shared by the tarnawski2020 solvers; see solver_common.hpp.
#include "placement/tarnawski/solver_common.hpp"

#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

namespace hetsim::placement::tarnawski {

std::string score_text(double score_s) {
    return std::isfinite(score_s) ? fmt::format("{:.6g} s", score_s) : "";
}

ColourClasses colour_classes(const Workload& w) {
    const int n = static_cast<int>(w.node_count());
    ColourClasses c;
    c.of_node.resize(n);
    std::unordered_map<std::int64_t, int> index_of_class;
    for (int v = 0; v < n; ++v) {
        if (w.has_color_class[v]) {
            auto [it, fresh] = index_of_class.emplace(w.color_class[v], c.count);
            if (fresh)
                ++c.count;
            c.of_node[v] = it->second;
        } else {
            c.of_node[v] = c.count++;
        }
    }
    return c;
}

OutgoingEdges::OutgoingEdges(const Workload& w) {
    const int n = static_cast<int>(w.node_count());
    begin.assign(n + 1, 0);
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        ++begin[w.edge_source[e] + 1];
    for (int v = 0; v < n; ++v)
        begin[v + 1] += begin[v];
    dest.resize(w.edge_count());
    cost.resize(w.edge_count());
    std::vector<int> fill(begin.begin(), begin.end() - 1);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e];
        dest[fill[u]] = w.edge_dest[e];
        cost[fill[u]++] = w.edge_cost[e];
    }
    uniform.assign(n, 1);
    for (int u = 0; u < n; ++u)
        for (int i = begin[u]; i < begin[u + 1]; ++i)
            if (cost[i] != cost[begin[u]])
                uniform[u] = 0;
}

std::vector<TransferItem> transfer_items(const Workload& w) {
    const OutgoingEdges edges(w);
    std::vector<TransferItem> items;
    for (int u = 0; u < static_cast<int>(w.node_count()); ++u) {
        const int b = edges.begin[u], e = edges.begin[u + 1];
        if (b == e)
            continue;
        if (edges.uniform[u]) {
            items.push_back({u, std::vector<int>(edges.dest.begin() + b, edges.dest.begin() + e),
                             edges.cost[b]});
        } else {
            for (int i = b; i < e; ++i)
                items.push_back({u, {edges.dest[i]}, edges.cost[i]});
        }
    }
    return items;
}

void add_transfer_loads(const OutgoingEdges& edges, const std::vector<int>& dev, int cpus,
                        std::vector<double>& load, std::vector<int>& seen) {
    const int n = static_cast<int>(dev.size());
    seen.assign(load.size(), -1);  // seen[d] == u: u's output already reaches device d
    for (int u = 0; u < n; ++u) {
        const int b = edges.begin[u], e = edges.begin[u + 1];
        if (b == e)
            continue;
        if (edges.uniform[u]) {
            const double c = edges.cost[b];
            bool crosses = false;
            for (int i = b; i < e; ++i) {
                const int d = dev[edges.dest[i]];
                if (d != dev[u] && seen[d] != u) {
                    seen[d] = u;
                    crosses = true;
                    if (d >= cpus)
                        load[d] += c;
                }
            }
            if (crosses && dev[u] >= cpus)
                load[dev[u]] += c;
        } else {
            for (int i = b; i < e; ++i) {
                const int d = dev[edges.dest[i]];
                if (d == dev[u])
                    continue;
                if (d >= cpus)
                    load[d] += edges.cost[i];
                if (dev[u] >= cpus)
                    load[dev[u]] += edges.cost[i];
            }
        }
    }
}

}  // namespace hetsim::placement::tarnawski
