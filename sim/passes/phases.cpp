#include "sim/passes/phases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>

#include "sim/op_table.hpp"

namespace hetsim::sim::passes {

namespace {

// Reachability as bit rows (one bit per op): ancestors and descendants of every op, in one
// pass each over the topological order. Written by hand: n is at most a few thousand ops, and
// Boost's dynamic_bitset would add nothing but a dependency for two loops.
class Reach {
public:
    explicit Reach(const Graph& graph)
        : n_(static_cast<std::size_t>(graph.op_count())),
          words_((n_ + 63) / 64),
          anc_(n_ * words_, 0),
          desc_(n_ * words_, 0) {
        const auto& order = graph.topo_order();
        for (int v : order) {
            for (int p : graph.predecessors(v)) {
                set(anc_, v, p);
                merge(anc_, v, p);
            }
        }
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            for (int s : graph.successors(*it)) {
                set(desc_, *it, s);
                merge(desc_, *it, s);
            }
        }
    }
    std::size_t ancestors(int v) const { return count(anc_, v); }
    std::size_t descendants(int v) const { return count(desc_, v); }

private:
    void set(std::vector<std::uint64_t>& rows, int row, int bit) {
        rows[static_cast<std::size_t>(row) * words_ + static_cast<std::size_t>(bit) / 64] |=
            std::uint64_t{1} << (static_cast<std::size_t>(bit) % 64);
    }
    void merge(std::vector<std::uint64_t>& rows, int into, int from) {
        for (std::size_t w = 0; w < words_; ++w)
            rows[static_cast<std::size_t>(into) * words_ + w] |=
                rows[static_cast<std::size_t>(from) * words_ + w];
    }
    std::size_t count(const std::vector<std::uint64_t>& rows, int v) const {
        std::size_t c = 0;
        for (std::size_t w = 0; w < words_; ++w)
            c += static_cast<std::size_t>(
                __builtin_popcountll(rows[static_cast<std::size_t>(v) * words_ + w]));
        return c;
    }
    std::size_t n_, words_;
    std::vector<std::uint64_t> anc_, desc_;
};

bool computes(const Op& op) {
    switch (cost_category(op)) {
        case OpCategory::matmul:
        case OpCategory::conv:
        case OpCategory::recurrent:
            return true;
        default:
            return false;
    }
}

std::string common_prefix(const Graph& graph, const std::vector<int>& ops) {
    std::string prefix = graph.op(ops.front()).name;
    for (int o : ops) {
        const std::string& name = graph.op(o).name;
        std::size_t k = 0;
        while (k < prefix.size() && k < name.size() && prefix[k] == name[k])
            ++k;
        prefix.resize(k);
    }
    if (prefix.size() <= 1 && ops.size() > 1)  // no shared module path: first and last op
        return graph.op(ops.front()).name + " .. " + graph.op(ops.back()).name;
    return prefix.empty() ? graph.op(ops.front()).name : prefix;
}

}  // namespace

std::vector<Phase> partition_phases(const Graph& graph) {
    const int n = graph.op_count();
    std::vector<Phase> phases;
    if (n == 0)
        return phases;
    const Reach reach(graph);
    const auto& order = graph.topo_order();
    // 1. Cut ops, and each other op's region: the number of cut ops before it.
    std::vector<bool> cut(static_cast<std::size_t>(n), false);
    for (int v = 0; v < n; ++v)
        cut[static_cast<std::size_t>(v)] =
            reach.ancestors(v) + reach.descendants(v) + 1 == static_cast<std::size_t>(n);
    std::vector<int> region(static_cast<std::size_t>(n), 0);
    std::vector<int> cut_index(static_cast<std::size_t>(n), -1);
    int cuts = 0;
    for (int v : order) {
        if (cut[static_cast<std::size_t>(v)]) {
            cut_index[static_cast<std::size_t>(v)] = cuts++;
        }
    }
    // An op's region is the number of cut ops that are its ancestors; in topological order
    // that is the number of cut ops seen so far (a cut op precedes or follows every op).
    {
        int seen = 0;
        for (int v : order) {
            if (cut[static_cast<std::size_t>(v)])
                ++seen;
            else
                region[static_cast<std::size_t>(v)] = seen;
        }
    }
    std::vector<std::vector<int>> region_ops(static_cast<std::size_t>(cuts) + 1);
    std::vector<int> cut_ops(static_cast<std::size_t>(cuts));
    for (int v : order) {
        if (cut[static_cast<std::size_t>(v)])
            cut_ops[static_cast<std::size_t>(cut_index[static_cast<std::size_t>(v)])] = v;
        else
            region_ops[static_cast<std::size_t>(region[static_cast<std::size_t>(v)])].push_back(v);
    }

    std::vector<int> sequential;  // the sequential phase being built
    auto flush_sequential = [&] {
        if (sequential.empty())
            return;
        Phase p;
        p.subgraphs.push_back({sequential});
        phases.push_back(std::move(p));
        sequential.clear();
    };
    for (std::size_t r = 0; r < region_ops.size(); ++r) {
        const std::vector<int>& ops = region_ops[r];
        if (!ops.empty()) {
            // 2. Label every op of the region with the region sources it depends on.
            std::vector<bool> in_region(static_cast<std::size_t>(n), false);
            for (int v : ops)
                in_region[static_cast<std::size_t>(v)] = true;
            std::map<int, std::vector<int>> sources_of;  // op -> sorted source ids
            for (int v : ops) {
                std::vector<int> label;
                for (int p : graph.predecessors(v)) {
                    if (!in_region[static_cast<std::size_t>(p)])
                        continue;
                    const auto& l = sources_of.at(p);
                    label.insert(label.end(), l.begin(), l.end());
                }
                std::sort(label.begin(), label.end());
                label.erase(std::unique(label.begin(), label.end()), label.end());
                if (label.empty())
                    label = {v};  // a source
                sources_of[v] = std::move(label);
            }
            std::map<int, std::vector<int>> branches;  // source -> its branch's ops
            std::vector<int> merge_ops;
            for (int v : ops) {
                const auto& label = sources_of.at(v);
                if (label.size() == 1)
                    branches[label.front()].push_back(v);
                else
                    merge_ops.push_back(v);
            }
            // 3. Only computing branches get a subgraph of their own.
            std::vector<Subgraph> kept;
            std::vector<int> folded;
            for (auto& [source, branch] : branches) {
                const bool any = std::any_of(branch.begin(), branch.end(),
                                             [&](int v) { return computes(graph.op(v)); });
                if (any)
                    kept.push_back({branch});
                else
                    folded.insert(folded.end(), branch.begin(), branch.end());
            }
            // A fork that re-joins into more compute (attention's Q/K/V projections, an
            // unrolled LSTM's per-step input products) is parallelism inside a module, finer
            // than DUET's subgraphs (§III: keep "a relatively high computational granularity"):
            // the region stays sequential. The multi-path phases are independent modules
            // whose merge only combines results.
            // The join is the merge ops and, after them, the cut op that closes the region.
            const bool merge_computes = std::any_of(merge_ops.begin(), merge_ops.end(),
                                                    [&](int v) { return computes(graph.op(v)); }) ||
                                        (r < cut_ops.size() && computes(graph.op(cut_ops[r])));
            // A fork of one activation that re-joins (a ResNet block and its downsample, Q/K/V)
            // is one module's inside: the branches must start from graph inputs (Wide-and-
            // Deep's four towers, Siamese's two) or never re-join (MT-DNN's heads).
            const bool closed = !merge_ops.empty() || r < cut_ops.size();
            bool from_activation = false;
            for (const Subgraph& s : kept) {
                for (int t : graph.op(s.ops.front()).inputs) {
                    const int producer = graph.tensor(t).producer;
                    from_activation = from_activation || producer >= 0;
                }
            }
            if (kept.size() >= 2 && !merge_computes && !(from_activation && closed)) {
                // 4. A multi-path phase; folded branches and merge ops run after it.
                flush_sequential();
                std::sort(kept.begin(), kept.end(), [&](const Subgraph& a, const Subgraph& b) {
                    return graph.topo_position()[static_cast<std::size_t>(a.ops.front())] <
                           graph.topo_position()[static_cast<std::size_t>(b.ops.front())];
                });
                Phase p;
                p.multi_path = true;
                p.subgraphs = std::move(kept);
                phases.push_back(std::move(p));
                std::vector<int> rest = folded;
                rest.insert(rest.end(), merge_ops.begin(), merge_ops.end());
                std::sort(rest.begin(), rest.end(), [&](int a, int b) {
                    return graph.topo_position()[static_cast<std::size_t>(a)] <
                           graph.topo_position()[static_cast<std::size_t>(b)];
                });
                sequential.insert(sequential.end(), rest.begin(), rest.end());
            } else {
                sequential.insert(sequential.end(), ops.begin(), ops.end());
            }
        }
        if (r < cut_ops.size())
            sequential.push_back(cut_ops[r]);
    }
    flush_sequential();
    return phases;
}

std::string describe_phases(const Graph& graph, const std::vector<Phase>& phases) {
    std::ostringstream out;
    out << fmt::format("{} phases (zhang2021 §IV-A)\n", phases.size());
    for (std::size_t k = 0; k < phases.size(); ++k) {
        const Phase& p = phases[k];
        out << fmt::format("  phase {} {}: {} subgraph{}\n", k + 1,
                           p.multi_path ? "multi-path" : "sequential", p.subgraphs.size(),
                           p.subgraphs.size() == 1 ? "" : "s");
        for (const Subgraph& s : p.subgraphs) {
            double flops = 0.0;
            for (int o : s.ops)
                flops += graph.op(o).flops;
            out << fmt::format("    {:<40} {:>6} ops {:>12.4g} FLOPs\n",
                               common_prefix(graph, s.ops), s.ops.size(), flops);
        }
    }
    return out.str();
}

}  // namespace hetsim::sim::passes
