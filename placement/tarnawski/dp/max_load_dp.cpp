// The max-load DP of tarnawski2020 §5.1.1 with Appendix B's preprocessing (see the header for
// the load definitions and the complexity).
#include "placement/tarnawski/dp/max_load_dp.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <unordered_map>

#include <fmt/format.h>

#include "placement/ideals/ideal_lattice.hpp"
#include "placement/tarnawski/solver_common.hpp"

namespace hetsim::placement::tarnawski {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using Clock = std::chrono::steady_clock;

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

// The instance the DP runs on: groups = forward supernodes (topologically labelled) together
// with their backward siblings, and transfer items.
struct Prepared {
    int groups = 0;
    std::vector<double> cpu, acc, size;
    std::vector<std::uint8_t> supported;
    std::vector<std::vector<int>> pred;  // forward DAG on labels
    std::vector<int> group_of_node;      // original node -> group label
    int words = 1;                       // 64-bit words of a group bitset
    // Transfer items: hyperedges over groups (see the items loop in prepare()).
    std::vector<double> item_cost;
    std::vector<int> item_groups;               // distinct groups it touches (≥ 2)
    std::vector<std::uint64_t> item_mask;       // `words` per item: those groups
    std::vector<std::uint32_t> incident_begin;  // per group, into `incident` (CSR)
    std::vector<std::int32_t> incident;         // items touching the group
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
    const ColourClasses colours = colour_classes(w);
    const int classes = colours.count;
    atoms.cls = colours.of_node;
    atoms.backward.assign(w.is_backward.begin(), w.is_backward.end());
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
        const auto comp = strongly_connected(c.out, [&](int s) { return !c.backward[s]; });
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
    for (int gr = 0; gr < g; ++gr)
        if (!p.supported[gr])
            p.acc[gr] = 0.0;  // never used on an accelerator; keeps the sums finite
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
    // is App. B's subdivision by colocated zero-cost nodes w_j with c_{w_j} = d_j. An item is a
    // hyperedge over the group of its source and the distinct groups it feeds: an accelerator
    // set holding some but not all of them pays c_o once (out- or in-transfer).
    p.words = std::max(1, (g + 63) / 64);
    std::vector<std::vector<int>> out_edges(n);
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        out_edges[w.edge_source[e]].push_back(static_cast<int>(e));
    std::vector<std::vector<int>> incident(g);
    std::vector<int> members;
    auto add_item = [&](double cost) {
        std::sort(members.begin(), members.end());
        members.erase(std::unique(members.begin(), members.end()), members.end());
        if (members.size() < 2)
            return;  // never crosses a device boundary
        const int item = static_cast<int>(p.item_cost.size());
        p.item_cost.push_back(cost);
        p.item_groups.push_back(static_cast<int>(members.size()));
        p.item_mask.resize(p.item_mask.size() + p.words, 0);
        for (int m : members) {
            p.item_mask[static_cast<std::size_t>(item) * p.words + (m >> 6)] |= std::uint64_t{1}
                                                                                << (m & 63);
            incident[m].push_back(item);
        }
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
            members.assign(1, home);
            for (int e : es)
                members.push_back(p.group_of_node[w.edge_dest[e]]);
            add_item(w.edge_cost[es[0]]);
        } else {
            for (int e : es) {
                members = {home, p.group_of_node[w.edge_dest[e]]};
                add_item(w.edge_cost[e]);
            }
        }
    }
    p.incident_begin.assign(1, 0);
    for (const auto& list : incident) {
        p.incident.insert(p.incident.end(), list.begin(), list.end());
        p.incident_begin.push_back(static_cast<std::uint32_t>(p.incident.size()));
    }
    return p;
}

// The ideal lattice is shared with mcm2022's chain DP (placement/ideals/ideal_lattice.hpp).
using Ideals = ideals::IdealLattice;
using ideals::check_deadline;
using ideals::DeadlinePassed;
using ideals::prefix_ideals;
using ideals::TooManyIdeals;

Ideals enumerate_ideals(const Prepared& p, std::size_t max_ideals,
                        const std::optional<Clock::time_point>& deadline = std::nullopt) {
    try {
        return ideals::enumerate_ideals(p.groups, p.pred, max_ideals, deadline);
    } catch (const TooManyIdeals&) {
        throw DpError(
            fmt::format("more than {} ideals in the contracted forward graph ({} groups); "
                        "use the linearization heuristic (DPL, §5.1.2) instead",
                        max_ideals, p.groups));
    }
}

// The ideals of the linearized graph (§5.1.2): the prefixes of the label order.
Ideals chain_ideals(const Prepared& p) {
    return prefix_ideals(p.groups);
}

// One device set of a chain: the groups of I \ J, on 1 or (App. C.2) r devices of one kind.
struct Stage {
    bool accelerator = false;
    int replicas = 1;
    std::vector<int> groups;
};

// The DP proper (§5.1.1): dp[I][L] = min over J ⊆ I and transitions L <- P of
// max(dp[J][P], load of S = I \ J on r devices of one kind), L = (ℓ', k'), P = (ℓ', k' - r) for
// an accelerator set and (ℓ' - r, k') for a CPU set (r = 1 without replication, App. C.2). Each
// transition with P = (0, 0) ("direct": only J = ∅ is feasible, S = I; the single-device layers,
// and S = I on r replicas) is evaluated once per I; all others in one downward walk from I that
// adds one group to S per step and is cut by the load bound of S (see the header).
//
// Work bounds close layers of dp[I] that the walk need not improve (this only saves work; every
// value below the cap stays exact): ignoring transfers, the c CPUs and a accelerators of layer
// (c, a) share the compute of I, so for every α ∈ [0, 1]
//   dp[I][c][a] ≥ Σ_{v∈I} min(α p_v^cpu, (1-α) p_v^acc) / (α c + (1-α) a)
// (the LP dual of the fractional split; α = 1: Σ p^cpu / c, α → 0: Σ p^acc / a). A layer whose
// bound reaches dp[I][layer] cannot improve; one whose remaining devices (ℓ-c, k-a) cannot cover
// V \ I below the cap by the same bound lies on no chain below the cap. Neither counts as a
// target of the walk. With replication the bounds hold as well (r devices, r times the work).
class Solver {
public:
    // cap: a known achievable max-load (or ∞). dp values start at the cap and only values below
    // it are stored, so branches that cannot get below it are cut; every value below the cap is
    // still exact (induction over I), so the optimum is found whenever it is below the cap.
    Solver(const Prepared& p, const Ideals& ids, int accelerators, int cpus, double cap,
           const ReplicationOptions& replication);

    // Throws DeadlinePassed when `deadline` passes before the last ideal.
    void run(const std::optional<Clock::time_point>& deadline = std::nullopt,
             const std::function<void(std::size_t done, std::size_t total)>& progress = {});
    // dp[whole graph][ℓ][k]; equals the cap when nothing below it exists.
    double objective() const { return value(full(), layer(l_, k_)); }
    // The sets of an optimal chain in pipeline order; needs objective() < cap.
    std::vector<Stage> reconstruct();
    std::size_t pairs() const { return pairs_; }
    std::size_t stored() const { return dp_.size(); }

private:
    // S = I \ J along a walk.
    struct State {
        double cpu = 0.0, acc = 0.0, comm = 0.0;
        // Transfers that every S' ⊇ S inside I pays (items touching S with a group outside I),
        // a lower bound on comm that only grows along a downward walk.
        double committed = 0.0;
        double memory = 0.0;  // Σ m_v, ∞ once S holds a group unsupported on accelerators
        double size = 0.0;    // Σ m_v, for the replicas' synchronisation (App. C.2)
    };
    struct Group {
        double cpu, acc, memory, size;
        std::uint32_t items_begin, items_end;  // into p_.incident
    };
    // Per transfer item during the walks of one I.
    struct Item {
        double cost;
        double commit;  // cost if the item has a group outside I (then it is cut for good)
        int count;      // its groups in S
        int limit;      // its group count, or "never" when it has a group outside I
    };
    // dp[I][layer] from dp[J][prev] with S on r devices of kind `kind`: r - 1 for accelerators,
    // ra_ + r - 1 for CPUs.
    struct Transition {
        int layer, prev, kind;
    };
    struct Transitions {
        std::vector<Transition> direct;
        std::vector<Transition> down;      // by kind, each kind by prev ascending
        std::vector<std::uint32_t> begin;  // per kind, into down
        // by_prev[kind * (layers + 1) + L]: the first of the kind's transitions with prev ≥ L,
        // so the ones reading a stored row of dp[J] are one range.
        std::vector<std::uint32_t> by_prev;
    };
    // The stored layers of dp[J]: base[L - lo] for lo ≤ L < lo + span, the others are "≥ cap".
    struct Row {
        const double* base;
        int lo;
        unsigned span;
    };
    struct Found {
        std::uint32_t lower = 0;
        int kind = -1;
        double cand = std::numeric_limits<double>::infinity();
        bool exact = false;
    };

    int layer(int c, int a) const { return c * (k_ + 1) + a; }
    Row row(std::size_t J) const {
        const Stored& r = rows_[J];
        return {dp_.data() + r.begin, r.lo, r.span};
    }
    double at(const Row& r, int L) const {
        const unsigned i = static_cast<unsigned>(L - r.lo);
        return i < r.span ? r.base[i] : cap_;
    }
    double value(std::size_t J, int L) const { return at(row(J), L); }
    void plan_rows();
    std::size_t full() const { return ids_.count() - 1; }
    int kinds() const { return ra_ + rc_; }
    bool accelerator(int kind) const { return kind < ra_; }
    int replicas(int kind) const { return kind < ra_ ? kind + 1 : kind - ra_ + 1; }
    Transitions make_transitions(bool whole, int only_layer) const;
    // Prepares the items for the walks of I and returns the state of S = I.
    State setup(std::size_t I);
    void sum_work(std::size_t I);  // terms_in_i_ and the counts for I
    template <bool Size = true>
    void add(int v, State& s);
    inline void remove(int v);
    // acc(S, r) (App. C.2; acc(S) for r = 1), or its lower bound for every S' ⊇ S inside I.
    double acc_load(const State& s, int r, bool bound) const;
    double cpu_load(const State& s, int r) const;
    bool fits(const State& s) const { return s.memory <= memory_limit_; }
    double load(int kind, const State& s, bool bound) const {
        return accelerator(kind) ? acc_load(s, replicas(kind), bound) : cpu_load(s, replicas(kind));
    }
    void init_work_bounds();
    double work_bound(const double* work, int unsupported, int groups, int c, int a) const;
    void set_lower_bounds();
    void fewer_devices();
    void update_targets();
    // Relaxes the transitions of `kind` that read a stored layer of dp[J].
    void relax(int kind, const Row& j, double load, bool& changed);
    void changed();
    void walk_fast(std::uint32_t j, int last, const State& s);
    void walk_replicated(std::uint32_t j, int last, const State& s);
    void find_down(std::uint32_t j, int last, const State& s, double goal, Found& found);
    void consider(const Transition& t, std::uint32_t lower, const State& s, double goal,
                  Found& found) const;

    const Prepared& p_;
    const Ideals& ids_;
    const int k_, l_, layers_;
    const double cap_;
    const ReplicationOptions rep_;
    const int ra_, rc_;    // largest replica counts (1 without replication)
    double memory_limit_;  // M, or the largest double when M = ∞ (so ∞ never fits)
    std::vector<Group> groups_;
    // dp, stored per ideal for the layers whose work bound is below the cap only (all layers
    // without a cap): ideal I holds layers rows_[I].lo .. in dp_[rows_[I].begin ..].
    struct Stored {
        std::uint64_t begin;  // into dp_
        std::int32_t lo;
        std::uint32_t span;
    };
    std::vector<double> dp_;
    std::vector<Stored> rows_;
    std::vector<double> row_;  // dp[I], all layers, while I is processed
    std::vector<Item> items_;
    Transitions inner_, whole_;  // for I ≠ V (layer (ℓ, k) skipped) and for I = V
    const Transitions* trans_ = nullptr;
    double* dpi_ = nullptr;       // row_.data()
    std::vector<double> target_;  // per kind: the largest dp[I][layer] of its down transitions
    std::size_t pairs_ = 0;
    // Work bounds: term 0 = p^cpu, 1 = p^acc (unsupported groups counted apart), 2.. = the
    // mixed terms min(α p^cpu, (1-α) p^acc), per group and summed over I and over V.
    std::vector<double> alpha_;
    int terms_ = 2;
    std::vector<double> group_terms_, total_terms_, terms_in_i_;
    int total_unsupported_ = 0, unsupported_in_i_ = 0, groups_in_i_ = 0;
    std::vector<double> lower_;  // per layer of I: its work bound, ∞ if useless
    // The hot loop's view (walk_fast: kinds 0 = one accelerator, 1 = one CPU).
    const std::uint32_t* down_begin_ = nullptr;
    const Ideals::Edge* down_ = nullptr;
    const Transition* down_trans_ = nullptr;  // trans_->down
    const std::uint32_t* by_prev_ = nullptr;  // trans_->by_prev
};

Solver::Solver(const Prepared& p, const Ideals& ids, int accelerators, int cpus, double cap,
               const ReplicationOptions& replication)
    : p_(p),
      ids_(ids),
      k_(accelerators),
      l_(cpus),
      layers_((k_ + 1) * (l_ + 1)),
      cap_(cap),
      rep_(replication),
      ra_(std::max(1, std::min(replication.max_accelerator_replicas, k_))),
      rc_(std::max(1, std::min(replication.max_cpu_replicas, l_))),
      memory_limit_(std::min(p.memory, std::numeric_limits<double>::max())) {
    groups_.resize(p.groups);
    for (int v = 0; v < p.groups; ++v)
        groups_[v] = {p.cpu[v],
                      p.acc[v],
                      p.supported[v] ? p.size[v] : kInf,
                      p.size[v],
                      p.incident_begin[v],
                      p.incident_begin[v + 1]};
    inner_ = make_transitions(false, -1);
    whole_ = make_transitions(true, -1);
    target_.assign(kinds(), -kInf);
    init_work_bounds();
}

void Solver::init_work_bounds() {
    const int g = p_.groups;
    // α at quantiles of the groups' breakpoints p^acc / (p^cpu + p^acc), where the two terms of
    // min(α p^cpu, (1-α) p^acc) meet; only layers with both kinds use them.
    if (k_ >= 1 && l_ >= 1) {
        std::vector<double> breaks;
        for (int v = 0; v < g; ++v)
            if (p_.supported[v] && p_.cpu[v] + p_.acc[v] > 0.0)
                breaks.push_back(p_.acc[v] / (p_.cpu[v] + p_.acc[v]));
        std::sort(breaks.begin(), breaks.end());
        constexpr int kQuantiles = 6;
        for (int q = 0; q < kQuantiles && !breaks.empty(); ++q) {
            const double x = breaks[(2 * q + 1) * breaks.size() / (2 * kQuantiles)];
            if (x > 0.0 && x < 1.0 && (alpha_.empty() || alpha_.back() != x))
                alpha_.push_back(x);
        }
    }
    terms_ = 2 + static_cast<int>(alpha_.size());
    group_terms_.assign(static_cast<std::size_t>(g) * terms_, 0.0);
    total_terms_.assign(terms_, 0.0);
    terms_in_i_.assign(terms_, 0.0);
    for (int v = 0; v < g; ++v) {
        double* t = &group_terms_[static_cast<std::size_t>(v) * terms_];
        t[0] = p_.cpu[v];
        t[1] = p_.supported[v] ? p_.acc[v] : 0.0;
        for (std::size_t j = 0; j < alpha_.size(); ++j)
            t[2 + j] = p_.supported[v]
                           ? std::min(alpha_[j] * p_.cpu[v], (1.0 - alpha_[j]) * p_.acc[v])
                           : alpha_[j] * p_.cpu[v];
        for (int j = 0; j < terms_; ++j)
            total_terms_[j] += t[j];
        total_unsupported_ += !p_.supported[v];
    }
    lower_.assign(layers_, 0.0);
}

// A lower bound on the max-load of placing `groups` groups with these work sums on c CPUs and
// a accelerators (see the class comment).
double Solver::work_bound(const double* work, int unsupported, int groups, int c, int a) const {
    if (groups == 0)
        return 0.0;
    if (c == 0 && a == 0)
        return kInf;
    if (a == 0)
        return work[0] / c;
    if (c == 0)
        return unsupported > 0 ? kInf : work[1] / a;
    double bound = 0.0;
    for (std::size_t j = 0; j < alpha_.size(); ++j)
        bound = std::max(bound, work[2 + j] / (alpha_[j] * c + (1.0 - alpha_[j]) * a));
    return bound;
}

// lower_ for the current I (after setup), with slack for rounding: sums over I and V \ I are
// added in other orders than the loads.
void Solver::set_lower_bounds() {
    std::vector<double> rest(terms_);
    for (int j = 0; j < terms_; ++j)
        rest[j] = total_terms_[j] - terms_in_i_[j];
    const int rest_unsupported = total_unsupported_ - unsupported_in_i_;
    const int rest_groups = p_.groups - groups_in_i_;
    for (int c = 0; c <= l_; ++c)
        for (int a = 0; a <= k_; ++a) {
            const double future =
                work_bound(rest.data(), rest_unsupported, rest_groups, l_ - c, k_ - a);
            lower_[layer(c, a)] =
                future > cap_ * (1.0 + 1e-9)
                    ? kInf
                    : work_bound(terms_in_i_.data(), unsupported_in_i_, groups_in_i_, c, a) *
                          (1.0 - 1e-9);
        }
}

Solver::Transitions Solver::make_transitions(bool whole, int only_layer) const {
    Transitions t;
    t.begin.push_back(0);
    for (int kind = 0; kind < kinds(); ++kind) {
        const int r = replicas(kind);
        for (int c = 0; c <= l_; ++c)
            for (int a = 0; a <= k_; ++a) {
                const int L = layer(c, a);
                if (c + a == 0 || (!whole && c == l_ && a == k_) ||
                    (only_layer >= 0 && L != only_layer))
                    continue;  // (ℓ, k) is only needed for the whole graph
                const int pc = accelerator(kind) ? c : c - r;
                const int pa = accelerator(kind) ? a - r : a;
                if (pc < 0 || pa < 0)
                    continue;
                const Transition tr{L, layer(pc, pa), kind};
                (pc == 0 && pa == 0 ? t.direct : t.down).push_back(tr);
            }
        t.begin.push_back(static_cast<std::uint32_t>(t.down.size()));
    }
    t.by_prev.resize(static_cast<std::size_t>(kinds()) * (layers_ + 1));
    for (int kind = 0; kind < kinds(); ++kind) {
        std::uint32_t i = t.begin[kind];
        for (int L = 0; L <= layers_; ++L) {
            while (i < t.begin[kind + 1] && t.down[i].prev < L)
                ++i;
            t.by_prev[static_cast<std::size_t>(kind) * (layers_ + 1) + L] = i;
        }
        for (std::uint32_t x = t.begin[kind] + 1; x < t.begin[kind + 1]; ++x)
            if (t.down[x].prev <= t.down[x - 1].prev)
                throw DpError("internal: transitions out of order");
    }
    return t;
}

Solver::State Solver::setup(std::size_t I) {
    const std::uint64_t* row = ids_.row(I);
    const int W = ids_.words;
    State whole;
    const std::size_t items = p_.item_cost.size();
    items_.resize(items);
    for (std::size_t o = 0; o < items; ++o) {
        const std::uint64_t* mask = &p_.item_mask[o * W];
        bool inside = false, outside = false;
        for (int x = 0; x < W; ++x) {
            inside |= (mask[x] & row[x]) != 0;
            outside |= (mask[x] & ~row[x]) != 0;
        }
        const double c = p_.item_cost[o];
        items_[o] = {c, outside ? c : 0.0, 0,
                     outside ? std::numeric_limits<int>::max() : p_.item_groups[o]};
        if (inside && outside)
            whole.comm += c;
    }
    for (int x = 0; x < W; ++x)
        for (std::uint64_t b = row[x]; b != 0; b &= b - 1) {
            const Group& g = groups_[64 * x + std::countr_zero(b)];
            whole.cpu += g.cpu;
            whole.acc += g.acc;
            whole.memory += g.memory;
            whole.size += g.size;
        }
    sum_work(I);
    return whole;
}

void Solver::sum_work(std::size_t I) {
    const std::uint64_t* row = ids_.row(I);
    std::fill(terms_in_i_.begin(), terms_in_i_.end(), 0.0);
    unsupported_in_i_ = groups_in_i_ = 0;
    for (int x = 0; x < ids_.words; ++x)
        for (std::uint64_t b = row[x]; b != 0; b &= b - 1) {
            const int v = 64 * x + std::countr_zero(b);
            const double* t = &group_terms_[static_cast<std::size_t>(v) * terms_];
            for (int j = 0; j < terms_; ++j)
                terms_in_i_[j] += t[j];
            unsupported_in_i_ += !p_.supported[v];
            ++groups_in_i_;
        }
}

// S gains v.
template <bool Size>
inline void Solver::add(int v, State& s) {
    const Group& g = groups_[v];
    s.cpu += g.cpu;
    s.acc += g.acc;
    s.memory += g.memory;
    if constexpr (Size)
        s.size += g.size;
    Item* const items = items_.data();
    const std::int32_t* const end = p_.incident.data() + g.items_end;
    double comm = s.comm, committed = s.committed;
    for (const std::int32_t* e = p_.incident.data() + g.items_begin; e != end; ++e) {
        Item& it = items[*e];
        const int x = ++it.count;
        if (x == 1) {
            comm += it.cost;
            committed += it.commit;
        } else if (x == it.limit) {
            comm -= it.cost;
        }
    }
    s.comm = comm;
    s.committed = committed;
}

inline void Solver::remove(int v) {
    const Group& g = groups_[v];
    Item* const items = items_.data();
    const std::int32_t* const end = p_.incident.data() + g.items_end;
    for (const std::int32_t* e = p_.incident.data() + g.items_begin; e != end; ++e)
        --items[*e].count;
}

double Solver::acc_load(const State& s, int r, bool bound) const {
    if (!fits(s))
        return kInf;
    return replicated_load(s.acc + (bound ? s.committed : s.comm), s.size, r,
                           rep_.accelerator_bandwidth, rep_.overlap_sync);
}

double Solver::cpu_load(const State& s, int r) const {
    return replicated_load(s.cpu, s.size, r, rep_.cpu_bandwidth, rep_.overlap_sync);
}

// "Use fewer devices": dp[I][c][a] ≤ dp[I][c-1][a], dp[I][c][a-1]. Applied whenever dp[I]
// changes, so that the walks' targets are as low as they can be.
void Solver::fewer_devices() {
    for (int c = 0; c <= l_; ++c)
        for (int a = 0; a <= k_; ++a) {
            const int L = layer(c, a);
            if (c > 0)
                dpi_[L] = std::min(dpi_[L], dpi_[L - (k_ + 1)]);
            if (a > 0)
                dpi_[L] = std::min(dpi_[L], dpi_[L - 1]);
        }
}

// The walk's targets: per kind, the largest dp[I][layer] that its transitions may still improve.
void Solver::update_targets() {
    for (int kind = 0; kind < kinds(); ++kind) {
        double t = -kInf;  // nothing to beat
        for (std::uint32_t i = trans_->begin[kind]; i < trans_->begin[kind + 1]; ++i) {
            const int L = trans_->down[i].layer;
            if (lower_[L] < dpi_[L])
                t = std::max(t, dpi_[L]);
        }
        target_[kind] = t;
    }
}

inline void Solver::relax(int kind, const Row& j, double load, bool& changed) {
    const std::uint32_t* by_prev = by_prev_ + static_cast<std::size_t>(kind) * (layers_ + 1);
    const Transition* const end = down_trans_ + by_prev[j.lo + j.span];
    for (const Transition* t = down_trans_ + by_prev[j.lo]; t != end; ++t) {
        const double cand = std::max(j.base[t->prev - j.lo], load);
        double& best = dpi_[t->layer];
        if (cand < best) {
            best = cand;
            changed = true;
        }
    }
}

void Solver::changed() {
    fewer_devices();
    update_targets();
}

// The walk without replication, where almost all the time goes.
void Solver::walk_fast(std::uint32_t j, int last, const State& s0) {
    const Ideals::Edge* const first = down_ + down_begin_[j];
    const Ideals::Edge* const end = down_ + down_begin_[j + 1];
    const Ideals::Edge* edge = first;
    for (; edge != end && edge->v < last; ++edge) {
        const int v = edge->v;
        const std::uint32_t lower = edge->lower;
        State s = s0;
        add<false>(v, s);
        const Row dpj = row(lower);
        const bool acc_ok = fits(s);
        const double acc = acc_ok ? s.acc + s.comm : kInf;
        bool improved = false;
        if (acc < target_[0])
            relax(0, dpj, acc, improved);
        if (s.cpu < target_[1])
            relax(1, dpj, s.cpu, improved);
        if (improved)
            changed();
        if ((acc_ok && s.acc + s.committed < target_[0]) || s.cpu < target_[1])
            walk_fast(lower, v, s);
        remove(v);
    }
    pairs_ += static_cast<std::size_t>(edge - first);
}

void Solver::walk_replicated(std::uint32_t j, int last, const State& s0) {
    for (std::uint32_t e = ids_.down_begin[j]; e < ids_.down_begin[j + 1]; ++e) {
        const auto [v, lower] = ids_.down[e];
        if (v >= last)
            break;
        State s = s0;
        add(v, s);
        ++pairs_;
        const Row dpj = row(lower);
        bool improved = false;
        for (int kind = 0; kind < kinds(); ++kind) {
            const double x = load(kind, s, false);
            if (x < target_[kind])
                relax(kind, dpj, x, improved);
        }
        if (improved)
            changed();
        bool alive = false;
        for (int kind = 0; kind < kinds() && !alive; ++kind)
            alive = load(kind, s, true) < target_[kind];
        if (alive)
            walk_replicated(lower, v, s);
        remove(v);
    }
}

// Which layers each ideal stores: those whose lower_ is below the cap. A layer outside can only
// hold values at or above the cap (the work bound on I), or lies on no chain below the cap (the
// bound on V \ I), so reading it as "≥ cap" changes nothing below the cap. A pass over the
// ideals' work sums, so that dp is allocated once.
void Solver::plan_rows() {
    const std::size_t n = ids_.count();
    rows_.assign(n, Stored{0, 0, static_cast<std::uint32_t>(layers_)});  // ∅: every layer, all 0
    std::uint64_t total = layers_;
    for (std::size_t I = 1; I < n; ++I) {
        sum_work(I);
        set_lower_bounds();
        int lo = 0, hi = -1;
        for (int L = 0; L < layers_; ++L)
            if (lower_[L] < cap_) {
                if (hi < 0)
                    lo = L;
                hi = L;
            }
        rows_[I] = {total, lo, static_cast<std::uint32_t>(hi - lo + 1)};
        total += rows_[I].span;
    }
    dp_.assign(total, cap_);  // "≥ cap": values at or above the cap are never needed
    std::fill_n(dp_.begin(), layers_, 0.0);  // ∅ needs no device
}

void Solver::run(const std::optional<Clock::time_point>& deadline,
                 const std::function<void(std::size_t done, std::size_t total)>& progress) {
    const std::size_t n = ids_.count();
    plan_rows();
    row_.resize(layers_);
    dpi_ = row_.data();
    const bool replicated = ra_ > 1 || rc_ > 1;
    down_begin_ = ids_.down_begin.data();
    down_ = ids_.down.data();
    for (std::size_t I = 1; I < n; ++I) {
        check_deadline(deadline);
        if (progress && (I & 1023U) == 0)
            progress(I, n);
        std::fill(row_.begin(), row_.end(), cap_);
        trans_ = I == n - 1 ? &whole_ : &inner_;
        down_trans_ = trans_->down.data();
        by_prev_ = trans_->by_prev.data();
        const State whole = setup(I);
        set_lower_bounds();
        for (const Transition& t : trans_->direct)
            dpi_[t.layer] = std::min(dpi_[t.layer], load(t.kind, whole, false));
        changed();
        if (!trans_->down.empty()) {
            if (replicated)
                walk_replicated(static_cast<std::uint32_t>(I), p_.groups, State{});
            else
                walk_fast(static_cast<std::uint32_t>(I), p_.groups, State{});
        }
        std::copy_n(row_.begin() + rows_[I].lo, rows_[I].span,
                    dp_.begin() + static_cast<std::ptrdiff_t>(rows_[I].begin));
    }
}

// Reconstruction: look for a pair (J, transition into the one layer of trans_) attaining
// `value`, walking like run() so that the loads are computed in the same order (bitwise equal).
void Solver::consider(const Transition& t, std::uint32_t lower, const State& s, double goal,
                      Found& found) const {
    const double cand = std::max(value(lower, t.prev), load(t.kind, s, false));
    if (cand < found.cand)
        found = {lower, t.kind, cand, cand <= goal};
}

void Solver::find_down(std::uint32_t j, int last, const State& s0, double goal, Found& found) {
    const double slack = goal * (1.0 + 1e-12);  // a bound above it cannot attain it
    for (std::uint32_t e = ids_.down_begin[j]; e < ids_.down_begin[j + 1] && !found.exact; ++e) {
        const auto [v, lower] = ids_.down[e];
        if (v >= last)
            break;
        State s = s0;
        add(v, s);
        bool alive = false;
        for (const Transition& t : trans_->down) {
            consider(t, lower, s, goal, found);
            alive |= load(t.kind, s, true) <= slack;
        }
        if (alive && !found.exact)
            find_down(lower, v, s, goal, found);
        remove(v);
    }
}

std::vector<Stage> Solver::reconstruct() {
    std::vector<Stage> stages;
    std::size_t I = full();
    int c = l_, a = k_;
    while (I != 0) {
        const double value = this->value(I, layer(c, a));
        if (!(value < cap_))
            throw DpError("internal: reconstructing a value not below the cap");
        if (c > 0 && this->value(I, layer(c - 1, a)) <= value) {
            --c;
            continue;
        }
        if (a > 0 && this->value(I, layer(c, a - 1)) <= value) {
            --a;
            continue;
        }
        const Transitions only = make_transitions(true, layer(c, a));
        trans_ = &only;
        Found found;
        const State whole = setup(I);
        for (const Transition& t : only.direct)
            consider(t, 0, whole, value, found);
        if (!found.exact && !only.down.empty())
            find_down(static_cast<std::uint32_t>(I), p_.groups, State{}, value, found);
        if (found.kind < 0 || !(found.cand <= value * (1.0 + 1e-9)))
            throw DpError("internal: no sub-ideal attains the dp value");
        Stage stage;
        stage.accelerator = accelerator(found.kind);
        stage.replicas = replicas(found.kind);
        for (int v = 0; v < p_.groups; ++v)
            if (ids_.has(I, v) && !ids_.has(found.lower, v))
                stage.groups.push_back(v);
        (stage.accelerator ? a : c) -= stage.replicas;
        stages.push_back(std::move(stage));
        I = found.lower;
    }
    trans_ = nullptr;
    std::reverse(stages.begin(), stages.end());
    return stages;
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

// Fills result.split / the replica counts from the solver's optimal chain.
void set_split(const Workload& workload, const Prepared& p, Solver& solver, DpResult& result) {
    Split& split = result.split;
    split = Split{};
    split.cpus.assign(workload.max_cpus, {});
    split.accelerators.assign(workload.max_accelerators, {});
    split.objective = solver.objective();
    result.cpu_replicas.assign(workload.max_cpus, 1);
    result.accelerator_replicas.assign(workload.max_accelerators, 1);
    if (!std::isfinite(split.objective))
        return;
    std::vector<int> device_of_group(static_cast<std::size_t>(p.groups), -1);
    int next_cpu = 0, next_acc = 0;
    for (const Stage& stage : solver.reconstruct()) {
        int& next = stage.accelerator ? next_acc : next_cpu;
        auto& replicas = stage.accelerator ? result.accelerator_replicas : result.cpu_replicas;
        const int device = stage.accelerator ? workload.max_cpus + next : next;
        for (int v : stage.groups)
            device_of_group[v] = device;
        replicas[next] = stage.replicas;
        for (int i = 1; i < stage.replicas; ++i)
            replicas[next + i] = 0;
        next += stage.replicas;
    }
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

}  // namespace

DpResult solve_max_load(const Workload& workload, const DpOptions& options) {
    check_replication(options.replication);
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
    Solver linear(p, chain, k, l, kInf, options.replication);
    try {
        linear.run(options.deadline, options.on_progress);
    } catch (const DeadlinePassed&) {
        throw DpError("the time limit passed before the linearized DP (§5.1.2) finished");
    }
    result.objective = linear.objective();
    set_split(workload, p, linear, result);
    result.stats.ideals = chain.count();
    result.stats.pairs = linear.pairs();
    result.stats.dp_values = linear.stored();
    result.stats.dp_seconds = seconds_since(t0);
    if (options.linearize)
        return result;

    t0 = Clock::now();
    // Past the deadline, DPL's split is the best found so far.
    std::optional<Ideals> ids;
    const bool budget_binds = options.max_states > 0 && options.max_states < options.max_ideals;
    try {
        // Over the state budget, DPL's split stands: enumerating stops at the budget, a point
        // that depends on the graph alone.
        if (budget_binds)
            ids = ideals::enumerate_ideals(p.groups, p.pred, options.max_states, options.deadline);
        else
            ids = enumerate_ideals(p, options.max_ideals, options.deadline);
    } catch (const DeadlinePassed&) {
        result.stats.stopped_at_deadline = true;
        return result;
    } catch (const TooManyIdeals&) {
        result.stats.stopped_by_state_budget = true;
        result.stats.ideals_seconds = seconds_since(t0);
        return result;
    }
    result.stats.ideals_seconds = seconds_since(t0);
    result.stats.ideals = ids->count();
    result.stats.hasse_edges = ids->down.size();

    t0 = Clock::now();
    const double cap = options.cap_with_linearization ? result.objective : kInf;
    Solver solver(p, *ids, k, l, cap, options.replication);
    try {
        solver.run(options.deadline, options.on_progress);
    } catch (const DeadlinePassed&) {
        result.stats.stopped_at_deadline = true;
        result.stats.dp_seconds += seconds_since(t0);
        return result;
    }
    result.stats.pairs += solver.pairs();
    result.stats.dp_values = solver.stored();
    if (solver.objective() < result.objective) {  // else DPL's split is already optimal
        result.objective = solver.objective();
        set_split(workload, p, solver, result);
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
    std::vector<int> seen;
    add_transfer_loads(OutgoingEdges(w), dev, cpus, load, seen);
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
