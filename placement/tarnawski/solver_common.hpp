// Internal helpers shared by the tarnawski2020 solvers (max-load DP, PipeDream, the IPs, the
// latency searches): graph algorithms, colour classes and the §3 transfer items, written once
// so that every solver charges transfers and contracts classes the same way. Not part of the
// public API.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

// The published preprocessing treats latencies below this as zero (Appendix B code).
inline constexpr double kZeroLatency = 1e-6;

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A split's score (latency or max load, in seconds) as a progress report's best so far: "" while
// it is infinite (nothing feasible yet).
std::string score_text(double score_s);

// Disjoint sets with path halving; a set's representative is its smallest element, so that
// contractions follow node order.
struct UnionFind {
    std::vector<int> parent;
    explicit UnionFind(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
    int find(int a) {
        while (parent[a] != a) {
            parent[a] = parent[parent[a]];
            a = parent[a];
        }
        return a;
    }
    // Returns whether a and b were in different sets.
    bool unite(int a, int b) {
        a = find(a);
        b = find(b);
        if (a == b)
            return false;
        parent[std::max(a, b)] = std::min(a, b);
        return true;
    }
};

// Strongly connected components (iterative Tarjan) of the directed graph `out`, restricted to
// the vertices `include(v)` accepts (edges to other vertices are ignored). Components are
// numbered in order of completion; excluded vertices get -1.
template <typename Include>
std::vector<int> strongly_connected(const std::vector<std::vector<int>>& out, Include include) {
    const int n = static_cast<int>(out.size());
    std::vector<int> index(n, -1), low(n, 0), comp(n, -1), stack;
    std::vector<std::uint8_t> on_stack(n, 0);
    std::vector<std::pair<int, std::size_t>> call;  // (vertex, next successor)
    int counter = 0, comps = 0;
    for (int s0 = 0; s0 < n; ++s0) {
        if (!include(s0) || index[s0] >= 0)
            continue;
        index[s0] = low[s0] = counter++;
        stack.push_back(s0);
        on_stack[s0] = 1;
        call.push_back({s0, 0});
        while (!call.empty()) {
            auto& [v, i] = call.back();
            if (i < out[v].size()) {
                const int w = out[v][i++];
                if (!include(w))
                    continue;
                if (index[w] < 0) {
                    index[w] = low[w] = counter++;
                    stack.push_back(w);
                    on_stack[w] = 1;
                    call.push_back({w, 0});  // invalidates v and i
                } else if (on_stack[w]) {
                    low[v] = std::min(low[v], index[w]);
                }
                continue;
            }
            const int done = v;
            call.pop_back();
            if (!call.empty())
                low[call.back().first] = std::min(low[call.back().first], low[done]);
            if (low[done] == index[done]) {
                int w;
                do {
                    w = stack.back();
                    stack.pop_back();
                    on_stack[w] = 0;
                    comp[w] = comps;
                } while (w != done);
                ++comps;
            }
        }
    }
    return comp;
}

inline std::vector<int> strongly_connected(const std::vector<std::vector<int>>& out) {
    return strongly_connected(out, [](int) { return true; });
}

// Colour classes (Appendix B) numbered densely in order of their first node; a node without a
// class is a class of its own.
struct ColourClasses {
    std::vector<int> of_node;
    int count = 0;
};
ColourClasses colour_classes(const Workload& workload);

// Every node's outgoing edges in edge order (CSR), with their costs, and whether they all cost
// the same. Uniform costs mean the node's output is one transfer of c_u, paid once per device
// pair (§3); otherwise every edge is its own transfer (the subdivision of Appendix B).
struct OutgoingEdges {
    explicit OutgoingEdges(const Workload& workload);
    std::vector<int> begin;  // node u's edges are [begin[u], begin[u + 1])
    std::vector<int> dest;
    std::vector<double> cost;
    std::vector<std::uint8_t> uniform;  // per node
};

// One §3 transfer: `source`'s output read by the nodes `targets` (edge order, may repeat), at
// `cost`. A node with uniform outgoing costs gives one transfer, otherwise one per edge.
struct TransferItem {
    int source = -1;
    std::vector<int> targets;
    double cost = 0.0;
};
std::vector<TransferItem> transfer_items(const Workload& workload);

// Adds the §3 transfer costs of a split (device per node, CPUs 0..cpus-1 first) to `load` (one
// entry per device): an output that crosses to another device costs c_u once on its own device
// if that is an accelerator and once on every other accelerator reading it; a node with
// non-uniform costs pays every crossing edge on both ends. CPUs transfer for free. `seen` is
// scratch space, reused so that the searches can call this without allocating.
void add_transfer_loads(const OutgoingEdges& edges, const std::vector<int>& device_of_node,
                        int cpus, std::vector<double>& load, std::vector<int>& seen);

}  // namespace hetsim::placement::tarnawski
