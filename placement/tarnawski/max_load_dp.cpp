// The max-load DP of tarnawski2020 §5.1.1 with Appendix B's preprocessing (see the header for
// the load definitions and the complexity).
#include "placement/tarnawski/max_load_dp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

namespace hetsim::placement::tarnawski {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The published preprocessing treats latencies below this as zero (Appendix B code).
constexpr double kZeroLatency = 1e-6;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

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
    bool unite(int a, int b) {
        a = find(a);
        b = find(b);
        if (a == b)
            return false;
        parent[std::max(a, b)] = std::min(a, b);
        return true;
    }
};

// An atom is an original node or an artificial forward image of an orphaned backward node
// (Appendix B). Atoms are grouped into supernodes = (colour class, forward/backward).
struct Atoms {
    int n_original = 0;
    std::vector<int> cls;  // colour class index (into the union-find)
    std::vector<std::uint8_t> backward;
    std::vector<std::pair<int, int>> edges;  // structural: original + artificial mirror edges
};

struct Contracted {
    int count = 0;
    std::vector<int> of_atom;  // atom -> supernode
    std::vector<int> root;     // supernode -> class root
    std::vector<std::uint8_t> backward;
    std::vector<std::vector<int>> out, in;  // deduplicated supernode edges, no self-loops
};

Contracted contract(const Atoms& atoms, UnionFind& uf) {
    Contracted c;
    const int n = static_cast<int>(atoms.cls.size());
    c.of_atom.assign(n, -1);
    std::unordered_map<std::int64_t, int> key_to_sn;
    for (int a = 0; a < n; ++a) {
        const int r = uf.find(atoms.cls[a]);
        const std::int64_t key = 2 * static_cast<std::int64_t>(r) + atoms.backward[a];
        auto [it, fresh] = key_to_sn.emplace(key, c.count);
        if (fresh) {
            c.root.push_back(r);
            c.backward.push_back(atoms.backward[a]);
            ++c.count;
        }
        c.of_atom[a] = it->second;
    }
    c.out.assign(c.count, {});
    c.in.assign(c.count, {});
    for (auto [u, v] : atoms.edges) {
        const int su = c.of_atom[u], sv = c.of_atom[v];
        if (su != sv)
            c.out[su].push_back(sv);
    }
    for (int s = 0; s < c.count; ++s) {
        auto& o = c.out[s];
        std::sort(o.begin(), o.end());
        o.erase(std::unique(o.begin(), o.end()), o.end());
        for (int t : o)
            c.in[t].push_back(s);
    }
    return c;
}

// Tarjan's SCC (iterative) on the forward supernodes; returns the component of each.
std::vector<int> forward_sccs(const Contracted& c) {
    const int n = c.count;
    std::vector<int> index(n, -1), low(n, 0), comp(n, -1), stack;
    std::vector<std::uint8_t> on_stack(n, 0);
    int counter = 0, comps = 0;
    std::vector<std::pair<int, std::size_t>> call;
    for (int s0 = 0; s0 < n; ++s0) {
        if (c.backward[s0] || index[s0] >= 0)
            continue;
        call.push_back({s0, 0});
        index[s0] = low[s0] = counter++;
        stack.push_back(s0);
        on_stack[s0] = 1;
        while (!call.empty()) {
            auto& [v, i] = call.back();
            if (i < c.out[v].size()) {
                const int w = c.out[v][i++];
                if (c.backward[w])
                    continue;
                if (index[w] < 0) {
                    index[w] = low[w] = counter++;
                    stack.push_back(w);
                    on_stack[w] = 1;
                    call.push_back({w, 0});
                } else if (on_stack[w]) {
                    low[v] = std::min(low[v], index[w]);
                }
            } else {
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
    }
    return comp;
}

// The instance the DP runs on: groups = forward supernodes (topologically labelled) together
// with their backward siblings, and transfer items.
struct Prepared {
    int groups = 0;
    std::vector<double> cpu, acc, size;
    std::vector<std::uint8_t> supported;
    std::vector<std::vector<int>> pred;  // forward DAG on labels
    std::vector<int> group_of_node;      // original node -> group label
    std::vector<double> item_cost;       // transfer item: c_o paid by each side it crosses
    std::vector<int> item_home;          // group holding the source
    std::vector<int> item_targets;       // |T(o)|: distinct other groups it feeds
    std::vector<std::vector<int>> home_items, target_items;  // per group
    double memory = 0.0;
};

void check_input(const Workload& w) {
    const int n = static_cast<int>(w.node_count());
    std::vector<int> indeg(n, 0);
    std::vector<std::vector<int>> out(n);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e], v = w.edge_dest[e];
        if (w.is_backward[u] && !w.is_backward[v])
            throw DpError(fmt::format("edge {} -> {} goes from a backward to a forward node",
                                      w.id[u], w.id[v]));
        out[u].push_back(v);
        ++indeg[v];
    }
    std::vector<int> queue;
    for (int v = 0; v < n; ++v)
        if (indeg[v] == 0)
            queue.push_back(v);
    for (std::size_t h = 0; h < queue.size(); ++h)
        for (int v : out[queue[h]])
            if (--indeg[v] == 0)
                queue.push_back(v);
    if (static_cast<int>(queue.size()) != n)
        throw DpError("the graph has a cycle; tarnawski2020 §3 requires a DAG");
}

Prepared prepare(const Workload& w, const DpOptions& options) {
    check_input(w);
    const int n = static_cast<int>(w.node_count());
    Atoms atoms;
    atoms.n_original = n;
    // Colour classes: given ones by value, a fresh class for every node without one.
    std::unordered_map<std::int64_t, int> class_index;
    int classes = 0;
    for (int v = 0; v < n; ++v) {
        if (w.has_color_class[v]) {
            auto [it, fresh] = class_index.emplace(w.color_class[v], classes);
            if (fresh)
                ++classes;
            atoms.cls.push_back(it->second);
        } else {
            atoms.cls.push_back(classes++);
        }
        atoms.backward.push_back(w.is_backward[v]);
    }
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        atoms.edges.emplace_back(w.edge_source[e], w.edge_dest[e]);
    UnionFind uf(classes);

    // App. B step 1: contract C_FW and C_BW of every colour class.
    Contracted c = contract(atoms, uf);

    // App. B step 3: artificial forward images of orphaned backward nodes, tied by mirrored
    // edges: a backward edge (u', v') with u' or v' orphaned gives a forward edge (v, u).
    {
        std::vector<int> forward_atom_of_root(classes, -1);
        for (int a = 0; a < n; ++a)
            if (!atoms.backward[a] && forward_atom_of_root[uf.find(atoms.cls[a])] < 0)
                forward_atom_of_root[uf.find(atoms.cls[a])] = a;
        std::vector<std::uint8_t> orphan(c.count, 0);
        for (int s = 0; s < c.count; ++s) {
            if (c.backward[s] && forward_atom_of_root[c.root[s]] < 0) {
                orphan[s] = 1;
                const int a = static_cast<int>(atoms.cls.size());
                atoms.cls.push_back(c.root[s]);
                atoms.backward.push_back(0);
                forward_atom_of_root[c.root[s]] = a;
            }
        }
        for (int s = 0; s < c.count; ++s) {
            if (!c.backward[s])
                continue;
            for (int t : c.out[s])
                if (c.backward[t] && (orphan[s] || orphan[t]))
                    atoms.edges.emplace_back(forward_atom_of_root[c.root[t]],
                                             forward_atom_of_root[c.root[s]]);
        }
    }
    c = contract(atoms, uf);

    // App. B step 2: every strongly connected component of the contracted forward graph must
    // be colocated; merge their classes (also merging the backward parts) and contract again.
    {
        const auto comp = forward_sccs(c);
        std::unordered_map<int, int> first_of_comp;
        bool merged = false;
        for (int s = 0; s < c.count; ++s) {
            if (c.backward[s])
                continue;
            auto [it, fresh] = first_of_comp.emplace(comp[s], s);
            if (!fresh)
                merged |= uf.unite(c.root[it->second], c.root[s]);
        }
        if (merged)
            c = contract(atoms, uf);
    }

    // Per-atom latencies (artificial atoms cost nothing).
    const int n_atoms = static_cast<int>(atoms.cls.size());
    auto atom_cpu = [&](int a) { return a < n ? w.cpu_latency[a] : 0.0; };
    auto atom_acc = [&](int a) { return a < n ? w.accelerator_latency[a] : 0.0; };
    auto atom_supported = [&](int a) { return a < n ? w.supported_on_accelerator[a] != 0 : true; };

    // The published code's trivial-node reduction (see DpOptions::merge_trivial_nodes).
    if (options.merge_trivial_nodes) {
        for (;;) {
            std::vector<double> lat(c.count, 0.0);
            std::vector<std::uint8_t> sup(c.count, 1);
            for (int a = 0; a < n_atoms; ++a) {
                lat[c.of_atom[a]] += atom_cpu(a) + atom_acc(a);
                if (!atom_supported(a))
                    sup[c.of_atom[a]] = 0;
            }
            std::vector<double> backward_lat_of_root(classes, 0.0);
            for (int s = 0; s < c.count; ++s)
                if (c.backward[s])
                    backward_lat_of_root[c.root[s]] += lat[s];
            bool changed = false;
            for (int s = 0; s < c.count; ++s) {
                if (c.backward[s] || lat[s] >= kZeroLatency || !sup[s] ||
                    backward_lat_of_root[c.root[s]] >= kZeroLatency)
                    continue;
                int neighbour = -1, count = 0;
                bool touches_backward = false;
                for (const auto* list : {&c.out[s], &c.in[s]})
                    for (int t : *list) {
                        if (c.backward[t])
                            touches_backward = true;
                        else if (t != neighbour) {
                            neighbour = t;
                            ++count;
                        }
                    }
                if (touches_backward || count != 1)
                    continue;
                changed |= uf.unite(c.root[s], c.root[neighbour]);
            }
            if (!changed)
                break;
            c = contract(atoms, uf);
        }
    }

    // Groups: forward supernodes in topological order, each with its backward sibling.
    Prepared p;
    p.memory = w.max_size_per_accelerator;
    std::vector<int> label(c.count, -1);
    {
        std::vector<int> indeg(c.count, 0), queue;
        for (int s = 0; s < c.count; ++s)
            if (!c.backward[s])
                for (int t : c.out[s])
                    if (!c.backward[t])
                        ++indeg[t];
        for (int s = 0; s < c.count; ++s)
            if (!c.backward[s] && indeg[s] == 0)
                queue.push_back(s);
        // Stack-based (DFS-like) topological order, so that the labels are also the path that
        // the linearization heuristic of §5.1.2 adds (prefixes of it are ideals).
        std::reverse(queue.begin(), queue.end());
        while (!queue.empty()) {
            const int s = queue.back();
            queue.pop_back();
            label[s] = p.groups++;
            for (auto it = c.out[s].rbegin(); it != c.out[s].rend(); ++it)
                if (!c.backward[*it] && --indeg[*it] == 0)
                    queue.push_back(*it);
        }
        int forward = 0;
        for (int s = 0; s < c.count; ++s)
            forward += !c.backward[s];
        if (forward != p.groups)
            throw DpError("internal: contracted forward graph is not acyclic");
    }
    std::vector<int> forward_of_root(classes, -1);
    for (int s = 0; s < c.count; ++s)
        if (!c.backward[s])
            forward_of_root[c.root[s]] = s;
    std::vector<int> group_of_sn(c.count, -1);
    for (int s = 0; s < c.count; ++s) {
        const int f = c.backward[s] ? forward_of_root[c.root[s]] : s;
        if (f < 0)
            throw DpError("internal: backward node without a forward image");
        group_of_sn[s] = label[f];
    }
    const int g = p.groups;
    p.cpu.assign(g, 0.0);
    p.acc.assign(g, 0.0);
    p.size.assign(g, 0.0);
    p.supported.assign(g, 1);
    p.pred.assign(g, {});
    for (int a = 0; a < n; ++a) {
        const int gr = group_of_sn[c.of_atom[a]];
        p.cpu[gr] += w.cpu_latency[a];
        p.acc[gr] += w.accelerator_latency[a];
        p.size[gr] += w.size[a];
        if (!w.supported_on_accelerator[a])
            p.supported[gr] = 0;
    }
    for (int s = 0; s < c.count; ++s)
        if (!c.backward[s])
            for (int t : c.in[s])
                if (!c.backward[t])
                    p.pred[label[s]].push_back(label[t]);
    p.group_of_node.resize(n);
    for (int a = 0; a < n; ++a)
        p.group_of_node[a] = group_of_sn[c.of_atom[a]];

    // Transfer items from the original edges. A node whose outgoing edges all cost the same is
    // one item (c_u paid once per side, §3); otherwise every outgoing edge is its own item, which
    // is App. B's subdivision by colocated zero-cost nodes w_j with c_{w_j} = d_j.
    std::vector<std::vector<int>> out_edges(n);
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        out_edges[w.edge_source[e]].push_back(static_cast<int>(e));
    p.home_items.assign(g, {});
    p.target_items.assign(g, {});
    std::vector<int> targets;
    auto add_item = [&](int home, double cost) {
        std::sort(targets.begin(), targets.end());
        targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
        targets.erase(std::remove(targets.begin(), targets.end(), home), targets.end());
        if (targets.empty())
            return;
        const int item = static_cast<int>(p.item_cost.size());
        p.item_cost.push_back(cost);
        p.item_home.push_back(home);
        p.item_targets.push_back(static_cast<int>(targets.size()));
        p.home_items[home].push_back(item);
        for (int t : targets)
            p.target_items[t].push_back(item);
    };
    for (int u = 0; u < n; ++u) {
        const auto& es = out_edges[u];
        if (es.empty())
            continue;
        const int home = p.group_of_node[u];
        bool uniform = true;
        for (int e : es)
            uniform &= w.edge_cost[e] == w.edge_cost[es[0]];
        if (uniform) {
            targets.clear();
            for (int e : es)
                targets.push_back(p.group_of_node[w.edge_dest[e]]);
            add_item(home, w.edge_cost[es[0]]);
        } else {
            for (int e : es) {
                targets.assign(1, p.group_of_node[w.edge_dest[e]]);
                add_item(home, w.edge_cost[e]);
            }
        }
    }
    return p;
}

std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// All ideals of the forward DAG, ids ordered by cardinality (so J ⊂ I ⇒ id(J) < id(I)), with
// the Hasse diagram downwards: down[I] = (v, id(I \ {v})) for every maximal v of I, by v.
struct Ideals {
    int words = 0;
    std::vector<std::uint64_t> bits;  // ideal-major
    std::vector<std::uint32_t> down_begin;
    std::vector<std::pair<std::int32_t, std::uint32_t>> down;
    // Upwards: up[I] = (v, id(I ∪ {v})) for every group v addable to I, by v.
    std::vector<std::uint32_t> up_begin;
    std::vector<std::pair<std::int32_t, std::uint32_t>> up;
    std::size_t count() const { return down_begin.size() - 1; }
    bool has(std::size_t ideal, int v) const {
        return (bits[ideal * words + (v >> 6)] >> (v & 63)) & 1;
    }
};

Ideals enumerate_ideals(const Prepared& p, std::size_t max_ideals) {
    Ideals ids;
    const int g = p.groups;
    ids.words = std::max(1, (g + 63) / 64);
    const int W = ids.words;
    std::vector<std::uint64_t> zobrist(g);
    std::uint64_t seed = 0x5eed;
    for (auto& z : zobrist)
        z = splitmix64(seed);
    std::vector<std::uint64_t> key;  // per ideal
    std::unordered_multimap<std::uint64_t, std::uint32_t> table;
    ids.bits.assign(W, 0);
    key.push_back(0);
    table.emplace(0, 0);
    struct Link {
        std::uint32_t upper;
        std::int32_t v;
        std::uint32_t lower;
    };
    std::vector<Link> links;
    std::vector<std::uint64_t> child(W);
    for (std::size_t i = 0; i < key.size(); ++i) {
        for (int v = 0; v < g; ++v) {
            if (ids.has(i, v))
                continue;
            bool addable = true;
            for (int u : p.pred[v])
                if (!ids.has(i, u)) {
                    addable = false;
                    break;
                }
            if (!addable)
                continue;
            std::copy_n(ids.bits.begin() + i * W, W, child.begin());
            child[v >> 6] |= std::uint64_t{1} << (v & 63);
            const std::uint64_t k = key[i] ^ zobrist[v];
            std::uint32_t found = std::numeric_limits<std::uint32_t>::max();
            auto range = table.equal_range(k);
            for (auto it = range.first; it != range.second; ++it)
                if (std::equal(child.begin(), child.end(), ids.bits.begin() + it->second * W)) {
                    found = it->second;
                    break;
                }
            if (found == std::numeric_limits<std::uint32_t>::max()) {
                found = static_cast<std::uint32_t>(key.size());
                if (key.size() >= max_ideals)
                    throw DpError(fmt::format(
                        "more than {} ideals in the contracted forward graph ({} groups); "
                        "use the linearization heuristic (DPL, §5.1.2) instead",
                        max_ideals, g));
                key.push_back(k);
                ids.bits.insert(ids.bits.end(), child.begin(), child.end());
                table.emplace(k, found);
            }
            links.push_back({found, v, static_cast<std::uint32_t>(i)});
        }
    }
    const std::size_t n = key.size();
    ids.down_begin.assign(n + 1, 0);
    for (const auto& l : links)
        ++ids.down_begin[l.upper + 1];
    for (std::size_t i = 0; i < n; ++i)
        ids.down_begin[i + 1] += ids.down_begin[i];
    ids.down.resize(links.size());
    std::vector<std::uint32_t> fill(ids.down_begin.begin(), ids.down_begin.end() - 1);
    for (const auto& l : links)
        ids.down[fill[l.upper]++] = {l.v, l.lower};
    for (std::size_t i = 0; i < n; ++i)
        std::sort(ids.down.begin() + ids.down_begin[i], ids.down.begin() + ids.down_begin[i + 1]);
    // Links were made lower by lower, v ascending: already grouped and sorted for `up`.
    ids.up_begin.assign(n + 1, 0);
    for (const auto& l : links)
        ++ids.up_begin[l.lower + 1];
    for (std::size_t i = 0; i < n; ++i)
        ids.up_begin[i + 1] += ids.up_begin[i];
    ids.up.reserve(links.size());
    for (const auto& l : links)
        ids.up.push_back({l.v, l.upper});
    return ids;
}

// The ideals of the linearized graph (§5.1.2): the prefixes of the label order.
Ideals chain_ideals(const Prepared& p) {
    Ideals ids;
    const int g = p.groups;
    ids.words = std::max(1, (g + 63) / 64);
    ids.bits.assign(static_cast<std::size_t>(g + 1) * ids.words, 0);
    for (int i = 1; i <= g; ++i) {
        std::copy_n(ids.bits.begin() + (i - 1) * ids.words, ids.words,
                    ids.bits.begin() + i * ids.words);
        ids.bits[static_cast<std::size_t>(i) * ids.words + ((i - 1) >> 6)] |= std::uint64_t{1}
                                                                              << ((i - 1) & 63);
    }
    ids.down_begin.resize(g + 2);
    ids.down_begin[0] = 0;
    ids.down_begin[1] = 0;
    for (int i = 1; i <= g; ++i) {
        ids.down.push_back({i - 1, static_cast<std::uint32_t>(i - 1)});
        ids.down_begin[i + 1] = static_cast<std::uint32_t>(ids.down.size());
    }
    ids.up_begin.assign(g + 2, 0);
    for (int i = 0; i < g; ++i) {
        ids.up.push_back({i, static_cast<std::uint32_t>(i + 1)});
        ids.up_begin[i + 1] = static_cast<std::uint32_t>(ids.up.size());
    }
    ids.up_begin[g + 1] = static_cast<std::uint32_t>(ids.up.size());
    return ids;
}

// The DP proper.
class Solver {
public:
    // cap: a known achievable max-load (or ∞). Branches that cannot get below it are cut;
    // every dp value below the cap is still exact (induction over I), so the optimum is found
    // whenever it is below the cap.
    Solver(const Prepared& p, const Ideals& ids, int accelerators, int cpus, double cap)
        : p_(p), ids_(ids), k_(accelerators), l_(cpus), layers_((k_ + 1) * (l_ + 1)), cap_(cap) {}

    void run();       // pull: one downward walk per I over its sub-ideals J
    void run_push();  // push: one upward walk per J over its super-ideals I
    double objective() const { return dp_[full() * layers_ + layer(l_, k_)]; }
    // Device sets as group lists; cpus first.
    void reconstruct(std::vector<std::vector<int>>& cpu_groups,
                     std::vector<std::vector<int>>& acc_groups) const;
    std::size_t pairs() const { return pairs_; }

private:
    int layer(int c, int a) const { return c * (k_ + 1) + a; }
    std::size_t full() const { return ids_.count() - 1; }  // the largest ideal has the last id
    void walk(std::uint32_t j, int last);
    void walk_up(std::uint32_t i, int last);
    void apply(int v);
    void undo(int v);

    const Prepared& p_;
    const Ideals& ids_;
    const int k_, l_, layers_;
    const double cap_;
    std::vector<double> dp_;
    std::vector<std::uint32_t> back_;  // the J of the best choice
    std::vector<std::uint8_t> kind_;   // 0 cpu, 1 accelerator, 2 none (c-1), 3 none (a-1)
    struct Active {
        int layer, acc_prev, cpu_prev;  // dp layers (k'-1, ℓ') and (k', ℓ'-1), or -1
    };
    std::vector<Active> active_;  // multi-device layers relaxed for the current I
    std::size_t current_ = 0;
    std::size_t pairs_ = 0;
    // State of S = I \ J.
    double cpu_ = 0.0, acc_ = 0.0, size_ = 0.0, comm_ = 0.0;
    // Transfers that every S' ⊇ S inside I pays, a lower bound that only grows along a walk:
    // the source is in S and feeds a group outside I, or the source is outside I and feeds S.
    double committed_ = 0.0;
    // Per item: adding its source to S commits it / its first target in S commits it.
    std::vector<std::uint8_t> commit_if_target_, commit_if_home_;
    int unsupported_ = 0;
    std::vector<std::uint8_t> home_in_;
    std::vector<int> targets_in_;
};

inline double crossing(bool home_in, int in, int total) {
    return (home_in ? in < total : in > 0) ? 1.0 : 0.0;
}

void Solver::apply(int v) {
    cpu_ += p_.cpu[v];
    acc_ += p_.acc[v];
    size_ += p_.size[v];
    unsupported_ += !p_.supported[v];
    double comm = comm_, committed = committed_;
    for (int it : p_.home_items[v])
        if (commit_if_home_[it])
            committed += p_.item_cost[it];
    for (int it : p_.target_items[v])
        if (commit_if_target_[it] && targets_in_[it] == 0)
            committed += p_.item_cost[it];
    committed_ = committed;
    for (int it : p_.home_items[v]) {
        const double before = crossing(home_in_[it], targets_in_[it], p_.item_targets[it]);
        home_in_[it] = 1;
        comm += (crossing(true, targets_in_[it], p_.item_targets[it]) - before) * p_.item_cost[it];
    }
    for (int it : p_.target_items[v]) {
        const double before = crossing(home_in_[it], targets_in_[it], p_.item_targets[it]);
        ++targets_in_[it];
        comm += (crossing(home_in_[it], targets_in_[it], p_.item_targets[it]) - before) *
                p_.item_cost[it];
    }
    comm_ = comm;
}

void Solver::undo(int v) {
    unsupported_ -= !p_.supported[v];
    for (int it : p_.home_items[v])
        home_in_[it] = 0;
    for (int it : p_.target_items[v])
        --targets_in_[it];
}

void Solver::walk(std::uint32_t j, int last) {
    const std::size_t I = current_;
    double* dpi = &dp_[I * layers_];
    for (std::uint32_t e = ids_.down_begin[j]; e < ids_.down_begin[j + 1]; ++e) {
        const auto [v, lower] = ids_.down[e];
        if (v >= last)
            break;
        const double saved[5] = {cpu_, acc_, size_, comm_, committed_};
        apply(v);
        ++pairs_;
        const bool acc_ok = unsupported_ == 0 && size_ <= p_.memory;
        const double acc_load = acc_ok ? acc_ + comm_ : kInf;
        const double acc_bound = acc_ok ? acc_ + committed_ : kInf;  // grows along the branch
        const double* dpj = &dp_[static_cast<std::size_t>(lower) * layers_];
        bool alive = false;
        for (const Active& act : active_) {
            const int L = act.layer;
            double best = dpi[L];
            if (act.acc_prev >= 0) {
                const double cand = std::max(dpj[act.acc_prev], acc_load);
                if (cand < best) {
                    best = dpi[L] = cand;
                    back_[I * layers_ + L] = lower;
                    kind_[I * layers_ + L] = 1;
                }
            }
            if (act.cpu_prev >= 0) {
                const double cand = std::max(dpj[act.cpu_prev], cpu_);
                if (cand < best) {
                    best = dpi[L] = cand;
                    back_[I * layers_ + L] = lower;
                    kind_[I * layers_ + L] = 0;
                }
            }
            const double target = std::min(best, cap_);
            alive |=
                (act.cpu_prev >= 0 && cpu_ < target) || (act.acc_prev >= 0 && acc_bound < target);
        }
        if (alive)
            walk(lower, v);
        undo(v);
        cpu_ = saved[0];
        acc_ = saved[1];
        size_ = saved[2];
        comm_ = saved[3];
        committed_ = saved[4];
    }
}

void Solver::run() {
    const std::size_t n = ids_.count();
    dp_.assign(n * layers_, kInf);
    back_.assign(n * layers_, 0);
    kind_.assign(n * layers_, 0);
    home_in_.assign(p_.item_cost.size(), 0);
    targets_in_.assign(p_.item_cost.size(), 0);
    commit_if_target_.assign(p_.item_cost.size(), 0);
    commit_if_home_.assign(p_.item_cost.size(), 0);
    for (int L = 0; L < layers_; ++L)
        dp_[L] = 0.0;  // ∅ needs no device
    for (std::size_t I = 1; I < n; ++I) {
        double* dpi = &dp_[I * layers_];
        // Single-device layers: only J = ∅ is feasible (dp[J][0][0] = ∞ for J ≠ ∅), so they
        // are the loads of S = I, computed directly. The same pass marks, per transfer item,
        // whether its source or one of its targets lies outside I (for the walk's lower bound).
        double cpu = 0.0, acc = 0.0, size = 0.0, comm = 0.0;
        bool supported = true;
        for (int v = 0; v < p_.groups; ++v) {
            if (!ids_.has(I, v))
                continue;
            cpu += p_.cpu[v];
            acc += p_.acc[v];
            size += p_.size[v];
            supported &= p_.supported[v] != 0;
            for (int it : p_.home_items[v])
                home_in_[it] = 1;
            for (int it : p_.target_items[v])
                ++targets_in_[it];
        }
        for (std::size_t it = 0; it < p_.item_cost.size(); ++it) {
            comm += crossing(home_in_[it], targets_in_[it], p_.item_targets[it]) * p_.item_cost[it];
            commit_if_target_[it] = !home_in_[it];
            commit_if_home_[it] = targets_in_[it] < p_.item_targets[it];
            home_in_[it] = 0;
            targets_in_[it] = 0;
        }
        if (k_ >= 1) {
            dpi[layer(0, 1)] = (supported && size <= p_.memory) ? acc + comm : kInf;
            kind_[I * layers_ + layer(0, 1)] = 1;
        }
        if (l_ >= 1) {
            dpi[layer(1, 0)] = cpu;
            kind_[I * layers_ + layer(1, 0)] = 0;
        }
        active_.clear();
        for (int c = 0; c <= l_; ++c)
            for (int a = 0; a <= k_; ++a)
                if (c + a >= 2 && (c != l_ || a != k_ || I == n - 1))
                    active_.push_back(
                        {layer(c, a), a > 0 ? layer(c, a - 1) : -1, c > 0 ? layer(c - 1, a) : -1});
        if (!active_.empty()) {
            current_ = I;
            cpu_ = acc_ = size_ = comm_ = committed_ = 0.0;
            unsupported_ = 0;
            walk(static_cast<std::uint32_t>(I), p_.groups);
        }
        // "Use fewer devices": dp[I][c][a] ≤ dp[I][c-1][a], dp[I][c][a-1].
        for (int c = 0; c <= l_; ++c)
            for (int a = 0; a <= k_; ++a) {
                const int L = layer(c, a);
                if (c > 0 && dpi[L - (k_ + 1)] < dpi[L]) {
                    dpi[L] = dpi[L - (k_ + 1)];
                    kind_[I * layers_ + L] = 2;
                }
                if (a > 0 && dpi[L - 1] < dpi[L]) {
                    dpi[L] = dpi[L - 1];
                    kind_[I * layers_ + L] = 3;
                }
            }
    }
}

// Push variant. When J is reached every subset of J has pushed into it, so dp[J] is final; the
// walk adds addable groups in increasing label (each I ⊇ J once). Transfers committed along
// it: a source in J feeding S, or a source in S feeding J (J never changes). Only values below
// the cap are kept exact, so J is skipped altogether when no dp[J] layer is below the cap.
void Solver::walk_up(std::uint32_t i, int last) {
    const std::size_t J = current_;
    const double* dpj = &dp_[J * layers_];
    for (std::uint32_t e = ids_.up_begin[i]; e < ids_.up_begin[i + 1]; ++e) {
        const auto [v, upper] = ids_.up[e];
        if (v <= last)
            continue;
        const double saved[5] = {cpu_, acc_, size_, comm_, committed_};
        apply(v);
        ++pairs_;
        const bool acc_ok = unsupported_ == 0 && size_ <= p_.memory;
        const double acc_load = acc_ok ? acc_ + comm_ : kInf;
        const double acc_bound = acc_ok ? acc_ + committed_ : kInf;
        double* dpi = &dp_[static_cast<std::size_t>(upper) * layers_];
        bool alive = false;
        for (const Active& act : active_) {
            const int L = act.layer;
            if (act.acc_prev >= 0) {
                const double cand = std::max(dpj[act.acc_prev], acc_load);
                if (cand < dpi[L]) {
                    dpi[L] = cand;
                    back_[upper * layers_ + L] = static_cast<std::uint32_t>(J);
                    kind_[upper * layers_ + L] = 1;
                }
                alive |= acc_bound < cap_;
            }
            if (act.cpu_prev >= 0) {
                const double cand = std::max(dpj[act.cpu_prev], cpu_);
                if (cand < dpi[L]) {
                    dpi[L] = cand;
                    back_[upper * layers_ + L] = static_cast<std::uint32_t>(J);
                    kind_[upper * layers_ + L] = 0;
                }
                alive |= cpu_ < cap_;
            }
        }
        if (alive)
            walk_up(upper, v);
        undo(v);
        cpu_ = saved[0];
        acc_ = saved[1];
        size_ = saved[2];
        comm_ = saved[3];
        committed_ = saved[4];
    }
}

void Solver::run_push() {
    const std::size_t n = ids_.count();
    const std::size_t items = p_.item_cost.size();
    dp_.assign(n * layers_, kInf);
    back_.assign(n * layers_, 0);
    kind_.assign(n * layers_, 0);
    home_in_.assign(items, 0);
    targets_in_.assign(items, 0);
    commit_if_target_.assign(items, 0);
    commit_if_home_.assign(items, 0);
    std::vector<int> in_j(items, 0);
    for (int L = 0; L < layers_; ++L)
        dp_[L] = 0.0;  // ∅ needs no device
    for (std::size_t J = 0; J < n; ++J) {
        double* dpj = &dp_[J * layers_];
        if (J > 0)  // "use fewer devices"
            for (int c = 0; c <= l_; ++c)
                for (int a = 0; a <= k_; ++a) {
                    const int L = layer(c, a);
                    if (c > 0 && dpj[L - (k_ + 1)] < dpj[L]) {
                        dpj[L] = dpj[L - (k_ + 1)];
                        kind_[J * layers_ + L] = 2;
                    }
                    if (a > 0 && dpj[L - 1] < dpj[L]) {
                        dpj[L] = dpj[L - 1];
                        kind_[J * layers_ + L] = 3;
                    }
                }
        active_.clear();
        for (int c = 0; c <= l_; ++c)
            for (int a = 0; a <= k_; ++a) {
                if (c + a == 0)
                    continue;
                const int acc_prev = a > 0 && dpj[layer(c, a - 1)] < cap_ ? layer(c, a - 1) : -1;
                const int cpu_prev = c > 0 && dpj[layer(c - 1, a)] < cap_ ? layer(c - 1, a) : -1;
                if (acc_prev >= 0 || cpu_prev >= 0)
                    active_.push_back({layer(c, a), acc_prev, cpu_prev});
            }
        if (active_.empty() || ids_.up_begin[J] == ids_.up_begin[J + 1])
            continue;
        for (int v = 0; v < p_.groups; ++v)
            if (ids_.has(J, v)) {
                for (int it : p_.home_items[v])
                    commit_if_target_[it] = 1;
                for (int it : p_.target_items[v])
                    ++in_j[it];
            }
        for (std::size_t it = 0; it < items; ++it)
            commit_if_home_[it] = in_j[it] > 0;
        current_ = J;
        cpu_ = acc_ = size_ = comm_ = committed_ = 0.0;
        unsupported_ = 0;
        walk_up(static_cast<std::uint32_t>(J), -1);
        std::fill(commit_if_target_.begin(), commit_if_target_.end(), 0);
        std::fill(in_j.begin(), in_j.end(), 0);
    }
}

void Solver::reconstruct(std::vector<std::vector<int>>& cpu_groups,
                         std::vector<std::vector<int>>& acc_groups) const {
    std::size_t I = full();
    int c = l_, a = k_;
    while (I != 0 && std::isfinite(dp_[I * layers_ + layer(c, a)])) {
        const int L = layer(c, a);
        const auto kind = kind_[I * layers_ + L];
        if (kind == 2) {
            --c;
            continue;
        }
        if (kind == 3) {
            --a;
            continue;
        }
        const std::size_t J = back_[I * layers_ + L];
        std::vector<int> set;
        for (int v = 0; v < p_.groups; ++v)
            if (ids_.has(I, v) && !ids_.has(J, v))
                set.push_back(v);
        (kind == 1 ? acc_groups : cpu_groups).push_back(std::move(set));
        (kind == 1 ? a : c)--;
        I = J;
    }
}

}  // namespace

DpStats count_ideals(const Workload& workload, const DpOptions& options) {
    DpStats stats;
    auto t0 = Clock::now();
    const Prepared p = prepare(workload, options);
    stats.preprocess_seconds = seconds_since(t0);
    t0 = Clock::now();
    const Ideals ids = enumerate_ideals(p, options.max_ideals);
    stats.ideals_seconds = seconds_since(t0);
    stats.groups = static_cast<std::size_t>(p.groups);
    stats.ideals = ids.count();
    stats.hasse_edges = ids.down.size();
    return stats;
}

namespace {

Split split_of(const Workload& workload, const Prepared& p, const Solver& solver) {
    std::vector<std::vector<int>> cpu_groups, acc_groups;
    solver.reconstruct(cpu_groups, acc_groups);
    std::vector<int> device_of_group(static_cast<std::size_t>(p.groups), -1);
    for (std::size_t d = 0; d < cpu_groups.size(); ++d)
        for (int v : cpu_groups[d])
            device_of_group[v] = static_cast<int>(d);
    for (std::size_t d = 0; d < acc_groups.size(); ++d)
        for (int v : acc_groups[d])
            device_of_group[v] = workload.max_cpus + static_cast<int>(d);
    Split split;
    split.cpus.assign(workload.max_cpus, {});
    split.accelerators.assign(workload.max_accelerators, {});
    split.objective = solver.objective();
    if (std::isfinite(split.objective)) {
        for (std::size_t v = 0; v < workload.node_count(); ++v) {
            const int d = device_of_group[p.group_of_node[v]];
            if (d < workload.max_cpus)
                split.cpus[d].push_back(workload.id[v]);
            else
                split.accelerators[d - workload.max_cpus].push_back(workload.id[v]);
        }
        for (auto* part : {&split.cpus, &split.accelerators})
            for (auto& dev : *part)
                std::sort(dev.begin(), dev.end());
    }
    return split;
}

}  // namespace

DpResult solve_max_load(const Workload& workload, const DpOptions& options) {
    DpResult result;
    auto t0 = Clock::now();
    const Prepared p = prepare(workload, options);
    result.stats.preprocess_seconds = seconds_since(t0);
    result.stats.groups = static_cast<std::size_t>(p.groups);
    const int k = workload.max_accelerators, l = workload.max_cpus;

    // DPL (§5.1.2): the DP over the prefixes of one topological order. Its split is feasible
    // for the full DP too (prefixes are ideals), so its objective caps the full DP.
    t0 = Clock::now();
    const Ideals chain = chain_ideals(p);
    Solver linear(p, chain, k, l, std::numeric_limits<double>::infinity());
    linear.run();
    result.objective = linear.objective();
    result.split = split_of(workload, p, linear);
    result.stats.ideals = chain.count();
    result.stats.pairs = linear.pairs();
    result.stats.dp_seconds = seconds_since(t0);
    if (options.linearize)
        return result;

    t0 = Clock::now();
    const Ideals ids = enumerate_ideals(p, options.max_ideals);
    result.stats.ideals_seconds = seconds_since(t0);
    result.stats.ideals = ids.count();
    result.stats.hasse_edges = ids.down.size();

    t0 = Clock::now();
    const double cap =
        options.cap_with_linearization ? result.objective : std::numeric_limits<double>::infinity();
    Solver solver(p, ids, k, l, cap);
    if (options.push)
        solver.run_push();
    else
        solver.run();
    result.stats.pairs += solver.pairs();
    if (solver.objective() < result.objective) {  // else DPL's split is already optimal
        result.objective = solver.objective();
        result.split = split_of(workload, p, solver);
    }
    result.stats.dp_seconds += seconds_since(t0);
    return result;
}

LoadReport evaluate_split(const Workload& w, const Split& split) {
    return evaluate_assignment(w, to_assignment(w, split));
}

LoadReport evaluate_assignment(const Workload& w, const Assignment& assignment) {
    const int n = static_cast<int>(w.node_count());
    const int cpus = w.max_cpus;
    const int devices = cpus + w.max_accelerators;
    const std::vector<int>& dev = assignment.device_of_node;
    if (dev.size() != w.node_count())
        throw WorkloadError(fmt::format("an assignment of {} nodes for a workload of {}",
                                        dev.size(), w.node_count()));
    for (int v = 0; v < n; ++v)
        if (dev[v] < 0 || dev[v] >= devices)
            throw WorkloadError(fmt::format("node {} is on device {}; the workload has {}", w.id[v],
                                            dev[v], devices));

    LoadReport r;
    std::vector<double> load(devices, 0.0), bytes(devices, 0.0);
    for (int v = 0; v < n; ++v) {
        const bool acc = dev[v] >= cpus;
        load[dev[v]] += acc ? w.accelerator_latency[v] : w.cpu_latency[v];
        bytes[dev[v]] += w.size[v];
        if (acc && !w.supported_on_accelerator[v])
            r.supported_ok = false;
    }
    // Transfers (§3): u's output crosses to another device -> u's device pays c_u once if it is
    // an accelerator, and every other accelerator reading it pays c_u once. Non-uniform
    // outgoing costs: per edge (App. B subdivision).
    std::vector<std::vector<int>> out(n);
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        out[w.edge_source[e]].push_back(static_cast<int>(e));
    std::vector<int> seen(devices, -1);
    for (int u = 0; u < n; ++u) {
        if (out[u].empty())
            continue;
        bool uniform = true;
        for (int e : out[u])
            uniform &= w.edge_cost[e] == w.edge_cost[out[u][0]];
        if (uniform) {
            const double c = w.edge_cost[out[u][0]];
            bool crosses = false;
            for (int e : out[u]) {
                const int d = dev[w.edge_dest[e]];
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
            for (int e : out[u]) {
                const int d = dev[w.edge_dest[e]];
                if (d == dev[u])
                    continue;
                if (d >= cpus)
                    load[d] += w.edge_cost[e];
                if (dev[u] >= cpus)
                    load[dev[u]] += w.edge_cost[e];
            }
        }
    }
    std::unordered_map<std::int64_t, int> device_of_class;
    for (int v = 0; v < n; ++v)
        if (w.has_color_class[v]) {
            auto [it, fresh] = device_of_class.emplace(w.color_class[v], dev[v]);
            if (!fresh && it->second != dev[v])
                r.colocation_ok = false;
        }
    for (int d = cpus; d < devices; ++d)
        if (bytes[d] > w.max_size_per_accelerator)
            r.memory_ok = false;
    r.cpu_loads.assign(load.begin(), load.begin() + cpus);
    r.accelerator_loads.assign(load.begin() + cpus, load.end());
    r.max_load = 0.0;
    for (double x : load)
        r.max_load = std::max(r.max_load, x);
    if (!r.memory_ok || !r.supported_ok)
        r.max_load = kInf;
    return r;
}

Workload make_branching_workload(int blocks, int width, int length, std::uint64_t seed,
                                 bool training, int accelerators, int cpus) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> lat(0.5, 5.0), cost(0.05, 1.0), bytes(1e6, 1e8);
    Workload w;
    w.max_accelerators = accelerators;
    w.max_cpus = cpus;
    std::int64_t next = 0;
    auto node = [&](bool backward, std::int64_t color) {
        const double acc = lat(rng);
        return w.add_node(next++, acc * 4.0, acc, bytes(rng), backward, true, color);
    };
    std::vector<std::pair<int, int>> fwd_edges;
    int prev = node(false, 0);
    for (int b = 0; b < blocks; ++b) {
        std::vector<int> tails;
        for (int c = 0; c < width; ++c) {
            int last = prev;
            for (int i = 0; i < length; ++i) {
                const int v = node(false, static_cast<std::int64_t>(w.node_count()));
                fwd_edges.emplace_back(last, v);
                last = v;
            }
            tails.push_back(last);
        }
        const int join = node(false, static_cast<std::int64_t>(w.node_count()));
        for (int t : tails)
            fwd_edges.emplace_back(t, join);
        prev = join;
    }
    std::vector<double> out_cost(w.node_count());
    for (auto& c : out_cost)
        c = cost(rng);
    for (auto [u, v] : fwd_edges)
        w.add_edge(u, v, out_cost[u]);
    if (training) {
        // Mirror image: a backward node per forward node (same colour class), reversed edges,
        // and the forward output feeding its own backward node's successor.
        const int f = static_cast<int>(w.node_count());
        std::vector<int> image(f);
        for (int v = 0; v < f; ++v)
            image[v] = node(true, w.color_class[v]);
        for (int v = 0; v < f; ++v)
            out_cost.push_back(cost(rng));
        for (auto [u, v] : fwd_edges) {
            w.add_edge(image[v], image[u], out_cost[image[v]]);
            w.add_edge(u, image[v], out_cost[u]);
        }
    }
    double total = 0.0;
    for (double s : w.size)
        total += s;
    w.max_size_per_accelerator = total / std::max(1, accelerators) * 1.5;
    return w;
}

}  // namespace hetsim::placement::tarnawski
