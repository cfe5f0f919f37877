// The chain DPs of chain_dp.hpp: tarnawski2020 §5.1.1's max-load DP over ideals with mcm2022's
// chip loads (§5.1, analytic.hpp) and constraints (§3, Eq. 2-4 + weights in SRAM).
#include "placement/mcm/chain_dp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>

#include "placement/ideals/ideal_lattice.hpp"

namespace hetsim::placement::mcm {

namespace {

using Clock = std::chrono::steady_clock;
using ideals::check_deadline;
using ideals::DeadlinePassed;
using ideals::enumerate_ideals;
using ideals::IdealLattice;
using ideals::prefix_ideals;
using ideals::TooManyIdeals;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kUnlimitedBytes = std::numeric_limits<std::int64_t>::max();
// Bounds are sums in another order than the loads they bound: they are loosened by this much.
constexpr double kBoundSlack = 1e-9;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The problem in label space: ops relabelled 0..n-1 in a depth-first topological order (so that
// the prefixes the linearized DP uses follow paths, as tarnawski2020 §5.1.2's do), with each
// chip's additive cost per op and the facts the cut and the weights need.
struct Instance {
    int n = 0;
    int chips = 0;
    std::vector<int> op_of_label;
    std::vector<std::vector<int>> pred, succ;  // op edges (Eq. 2's E), in labels
    // a[c * n + v]: what op v adds to chip c's load wherever its chain puts it, its compute
    // plus the host transfers of the graph outputs it produces (§5.1: compute_c + host_out_c).
    std::vector<double> add;
    std::vector<double> add_min;  // min over chips, for the work bounds
    bool uniform = true;          // every chip's row of `add` is the same
    // Tensors that can cross a ring link: producer label (-1: graph input, at chip 0) and
    // consumer labels; per label the flows it produces and consumes.
    struct CutFlow {
        int producer = -1;
        std::vector<int> consumers;
        std::int64_t bytes = 0;
    };
    std::vector<CutFlow> flows;
    std::vector<std::vector<int>> produces, consumes;
    // Weights: per label the weight tensors it reads (each once), and each tensor's ops.
    std::vector<std::vector<int>> weights_of;
    std::vector<std::vector<int>> weight_ops;
    std::vector<std::int64_t> weight_bytes;
    std::vector<std::int64_t> capacity;  // per chip; kUnlimitedBytes for 0
    // Σ_{c<k} and Σ_{c>=k} of the capacities (saturating), k = 0..chips.
    std::vector<std::int64_t> capacity_below, capacity_from;
    std::vector<RouteCost> hop;  // chip c -> c + 1
    double host_in_s = 0.0;
    // A floor under every chain's time per sample, exact in floating point: the host stage, and
    // the largest op alone (its chip's load is a sum of non-negative terms including it).
    double floor_s = 0.0;
    double total_add_min = 0.0;
    std::int64_t total_weights = 0;
};

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    return a > kUnlimitedBytes - b ? kUnlimitedBytes : a + b;
}

// Depth-first (stack-based Kahn) topological order over problem.edges(), ties by op id.
std::vector<int> depth_first_order(const McmProblem& problem) {
    const int n = problem.op_count();
    std::vector<std::vector<int>> out(static_cast<std::size_t>(n));
    std::vector<int> indeg(static_cast<std::size_t>(n), 0);
    for (const McmProblem::Edge& e : problem.edges()) {
        out[static_cast<std::size_t>(e.from)].push_back(e.to);
        ++indeg[static_cast<std::size_t>(e.to)];
    }
    std::vector<int> stack, order;
    for (int v = n - 1; v >= 0; --v)
        if (indeg[static_cast<std::size_t>(v)] == 0)
            stack.push_back(v);
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        order.push_back(v);
        auto& next = out[static_cast<std::size_t>(v)];
        std::sort(next.begin(), next.end());
        for (auto it = next.rbegin(); it != next.rend(); ++it)
            if (--indeg[static_cast<std::size_t>(*it)] == 0)
                stack.push_back(*it);
    }
    if (static_cast<int>(order.size()) != n)
        throw ChainDpError(fmt::format("graph '{}' has a cycle", problem.graph().name()));
    return order;
}

Instance make_instance(const McmProblem& problem) {
    Instance in;
    const int n = problem.op_count();
    const int chips = problem.chip_count();
    in.n = n;
    in.chips = chips;
    in.op_of_label = depth_first_order(problem);
    std::vector<int> label(static_cast<std::size_t>(n));
    for (int v = 0; v < n; ++v)
        label[static_cast<std::size_t>(in.op_of_label[static_cast<std::size_t>(v)])] = v;
    auto label_of = [&](int op) { return label[static_cast<std::size_t>(op)]; };

    in.pred.assign(static_cast<std::size_t>(n), {});
    in.succ.assign(static_cast<std::size_t>(n), {});
    for (const McmProblem::Edge& e : problem.edges()) {
        in.succ[static_cast<std::size_t>(label_of(e.from))].push_back(label_of(e.to));
        in.pred[static_cast<std::size_t>(label_of(e.to))].push_back(label_of(e.from));
    }

    in.add.assign(static_cast<std::size_t>(chips) * static_cast<std::size_t>(n), 0.0);
    for (int c = 0; c < chips; ++c)
        for (int v = 0; v < n; ++v)
            in.add[static_cast<std::size_t>(c) * n + v] =
                problem.op_time_s(in.op_of_label[static_cast<std::size_t>(v)], c);
    in.produces.assign(static_cast<std::size_t>(n), {});
    in.consumes.assign(static_cast<std::size_t>(n), {});
    for (const Flow& flow : problem.flows()) {
        const int producer = flow.producer < 0 ? -1 : label_of(flow.producer);
        if (flow.graph_output && producer >= 0) {
            for (int c = 0; c < chips; ++c)
                in.add[static_cast<std::size_t>(c) * n + producer] +=
                    problem.host_out(c).time_s(flow.bytes);
        }
        if (flow.producer < 0 && !flow.consumers.empty())
            in.host_in_s += problem.host_in().time_s(flow.bytes);  // as AnalyticModel sums it
        if (flow.consumers.empty())
            continue;  // never on a ring link
        Instance::CutFlow cut{producer, {}, flow.bytes};
        for (int op : flow.consumers)
            cut.consumers.push_back(label_of(op));
        const int id = static_cast<int>(in.flows.size());
        if (producer >= 0)
            in.produces[static_cast<std::size_t>(producer)].push_back(id);
        for (int v : cut.consumers)
            in.consumes[static_cast<std::size_t>(v)].push_back(id);
        in.flows.push_back(std::move(cut));
    }
    in.add_min.assign(static_cast<std::size_t>(n), kInf);
    for (int c = 0; c < chips; ++c)
        for (int v = 0; v < n; ++v) {
            const double a = in.add[static_cast<std::size_t>(c) * n + v];
            in.add_min[static_cast<std::size_t>(v)] =
                std::min(in.add_min[static_cast<std::size_t>(v)], a);
            if (a != in.add[static_cast<std::size_t>(v)])
                in.uniform = false;
        }
    in.floor_s = in.host_in_s;
    for (double a : in.add_min) {
        in.total_add_min += a;
        in.floor_s = std::max(in.floor_s, a);
    }

    in.weights_of.assign(static_cast<std::size_t>(n), {});
    for (const WeightUse& w : problem.weights()) {
        const int id = static_cast<int>(in.weight_bytes.size());
        in.weight_bytes.push_back(w.bytes);
        in.total_weights += w.bytes;
        std::vector<int> ops;
        for (int op : w.ops) {
            ops.push_back(label_of(op));
            in.weights_of[static_cast<std::size_t>(label_of(op))].push_back(id);
        }
        in.weight_ops.push_back(std::move(ops));
    }
    for (std::int64_t bytes : problem.capacity_bytes())
        in.capacity.push_back(bytes > 0 ? bytes : kUnlimitedBytes);
    in.capacity_below.assign(static_cast<std::size_t>(chips) + 1, 0);
    in.capacity_from.assign(static_cast<std::size_t>(chips) + 1, 0);
    for (int c = 0; c < chips; ++c)
        in.capacity_below[static_cast<std::size_t>(c) + 1] =
            saturating_add(in.capacity_below[static_cast<std::size_t>(c)],
                           in.capacity[static_cast<std::size_t>(c)]);
    for (int c = chips - 1; c >= 0; --c)
        in.capacity_from[static_cast<std::size_t>(c)] =
            saturating_add(in.capacity_from[static_cast<std::size_t>(c) + 1],
                           in.capacity[static_cast<std::size_t>(c)]);
    for (int c = 0; c + 1 < chips; ++c)
        in.hop.push_back(problem.ring_hop(c));
    return in;
}

// dp[I][k] = the least max(F, loads of chips 0..k-1) over chains ∅ = I_0 ⊂ ... ⊂ I_k = I of
// the space whose chips' weights fit, chip c holding I_{c+1} \ I_c (non-empty, Eq. 3):
//   dp[∅][0] = F,   dp[I][k] = min_{J ⊊ I} max(dp[J][k-1], load_{k-1}(J, I)),
//   load_c(J, I) = [A_c(I) - A_c(J)] + B_c(I),
// A_c additive over ops (compute and host outputs on chip c, `Instance::add`), B_c(I) the ring
// term of the tensors crossing link c -> c+1, which are those produced in I (or fed by the
// host) with a consumer outside I: it depends on I alone (chain_dp.hpp). k = 1 (J = ∅) is
// evaluated directly, k ≥ 2 in the walks. The floor F = max(host_in, max_v min_c a_c(v)) lies
// under every chain's time per sample (exactly: a chip's load is a floating-point sum of
// non-negative terms, one of them its op's a_c(v)), so starting at F changes no optimum, folds
// the host stage in (the optimum is min_k dp[V][k]) and closes layers that reach it.
//
// The cap is an achievable time (the linearized DP's, or ∞): only values below it are stored,
// the others read "≥ cap". Every value on an optimal chain below the cap stays exact:
//  * the walk from I reaches each J ⊊ I once by removing maximal ops in decreasing label order
//    (tarnawski2020 §5.1.1's sub-ideal walk), S = I \ J growing by one op per step; the load of
//    S on any chip only grows along a branch (B(I) is fixed for I, A is a sum of non-negative
//    times, and floating-point addition of non-negative terms is monotone), and so do S's
//    resident weights. A branch is left as soon as, for every open layer k, S's load reaches
//    dp[I][k] or S's weights exceed chip k-1's SRAM: nothing below it can improve dp[I];
//  * the walk starts below I, at the largest ideal T ⊆ I that every useful J lies in: J must
//    be "live" (hold some value below the cap; the union of live ideals is an ideal), and in the
//    adjacent-cut space hold no producer of a tensor leaving I (nor anything above one, J being
//    an ideal): the space's condition on (J, I) is exactly "no edge from J to V \ I", so every
//    J ⊆ T satisfies it. S starts as I \ T; T itself is the first candidate;
//  * a layer (I, k) is not stored when no chain through it ends below the cap: k > |I|
//    (Eq. 3), I ≠ V with k = C (no chip left), the weights of I's ops beyond the SRAM of chips
//    0..k-1 or those of V \ I's beyond chips k..C-1 (each weight is resident on at least one
//    chip of its ops), chip k-1's load bound B_{k-1}(I) + min over I's maximal ops of a(v), or
//    the work bounds: dp[I][k] ≥ Σ_{v∈I} min_c a_c(v) / k (some chip gets at least the mean)
//    and the chain's end ≥ Σ_{v∉I} min_c a_c(v) / (C - k) (sums loosened by kBoundSlack);
//  * a layer whose bound reaches its current value is closed (already optimal).
class ChainSolver {
public:
    // `prefixes`: ids is prefix_ideals(n) (the linearized DP) rather than all ideals.
    ChainSolver(const Instance& in, const IdealLattice& ids, bool prefixes, bool adjacent,
                double cap)
        : in_(in), ids_(ids), prefixes_(prefixes), adjacent_(adjacent), cap_(cap) {}

    // Throws DeadlinePassed. `progress` (may be empty) hears every 1024th ideal.
    void run(const std::optional<Clock::time_point>& deadline,
             const std::function<void(std::size_t, std::size_t)>& progress = {});
    // min_k dp[V][k] (the cap when nothing is below it) and the k attaining it.
    double best(int& chips) const;
    // The chip of every label along an optimal chain of `chips` chips; needs best() < cap.
    std::vector<int> reconstruct(int chips);
    std::size_t pairs() const { return pairs_; }
    std::size_t stored() const { return dp_.size(); }

private:
    struct Stored {
        std::uint64_t begin = 0;  // into dp_
        std::int32_t lo = 0;      // first stored layer
        std::int32_t span = 0;    // stored layers lo .. lo + span - 1
    };
    struct PerIdeal {
        std::int64_t cut_bytes = 0;
        std::int32_t cut_count = 0;
        std::int32_t size = 0;
        double add0 = 0.0;     // A_0(I): the load of I on chip 0 without its cut
        double add_min = 0.0;  // Σ_{v∈I} min_c a_c(v)
        std::int64_t weights_in = 0;
    };

    std::size_t full() const { return ids_.count() - 1; }
    double value(std::size_t J, int k) const {
        const Stored& r = rows_[J];
        const auto i = static_cast<unsigned>(k - r.lo);
        return i < static_cast<unsigned>(r.span) ? dp_[r.begin + i] : cap_;
    }
    // B_{k-1}(I): the ring term of chip k - 1 holding the top of I.
    double ring(std::size_t I, int k) const {
        const PerIdeal& p = per_[I];
        if (p.cut_count == 0)
            return 0.0;  // also I = V on the last chip, which has no outgoing ring link
        const RouteCost& hop = in_.hop[static_cast<std::size_t>(k - 1)];
        return static_cast<double>(p.cut_count) * hop.latency_s +
               static_cast<double>(p.cut_bytes) * hop.seconds_per_byte;
    }
    double add(int chip, int v) const {
        return in_.add[static_cast<std::size_t>(chip) * static_cast<std::size_t>(in_.n) +
                       static_cast<std::size_t>(v)];
    }
    void plan();
    // remove_ = the ops of I no useful J ⊆ I holds, in decreasing label order (an up-set of
    // I): in the adjacent-cut space the producers of tensors leaving I and all above them in
    // I; and the ops outside live_, the union of the ideals solved so far that hold a value
    // below the cap (only those can be J: the others' dp values all read "≥ cap").
    void removal_set(std::size_t I);
    // Moves from I down to the largest ideal of the lattice without an op of remove_,
    // removing ops as the walk does (`step` gets each removed label); returns its id.
    template <typename Step>
    std::uint32_t descend(std::size_t I, Step step) const;
    std::int64_t add_weights(int v);
    void remove_weights(int v);
    template <bool Uniform>
    bool visit(std::uint32_t J, const double* acc, std::int64_t weights);
    template <bool Uniform>
    void walk(std::uint32_t j, int last, int depth, std::int64_t weights);
    void check_clock();

    const Instance& in_;
    const IdealLattice& ids_;
    const bool prefixes_;
    const bool adjacent_;
    const double cap_;
    const std::optional<Clock::time_point>* deadline_ = nullptr;
    std::vector<PerIdeal> per_;
    std::vector<Stored> rows_;
    std::vector<double> dp_;
    // The ideal I being solved: its walk layers klo_..khi_ (k ≥ 2), their ring terms, SRAM and
    // work bounds, and dp[I] over all layers.
    int klo_ = 0, khi_ = -1;
    std::vector<double> ring_, lower_, row_;
    std::vector<std::int64_t> sram_;
    std::vector<double> acc_;            // the walk's S load per depth: 1 (uniform) or per layer
    int width_ = 1;                      // acc_ doubles per depth
    std::vector<int> weight_count_;      // ops of S reading each weight tensor
    std::vector<int> remove_, removed_;  // removed_: what descend() removed (prefixes: more)
    std::vector<std::uint8_t> mark_;
    std::vector<std::uint64_t> live_;   // bitset over labels
    std::vector<std::uint32_t> start_;  // per ideal: where its walk started (reconstruct)
    std::size_t pairs_ = 0;
};

void ChainSolver::check_clock() {
    if ((pairs_ & 0x3fff) == 0)
        check_deadline(*deadline_);
}

// Per ideal, from its canonical parent P = I \ {t} (the last down edge: t is I's largest
// label): the cut, |I|, A_0(I), the work sum and the weights of I's ops; then the layers to
// store (see the class comment). The weights of V \ I's ops are only needed here.
void ChainSolver::plan() {
    const std::size_t count = ids_.count();
    const int chips = in_.chips;
    per_.assign(count, PerIdeal{});
    rows_.assign(count, Stored{});
    std::vector<std::int64_t> weights_out(count, 0);
    PerIdeal& empty = per_[0];
    for (const Instance::CutFlow& f : in_.flows)
        if (f.producer < 0) {
            ++empty.cut_count;
            empty.cut_bytes += f.bytes;
        }
    weights_out[0] = in_.total_weights;
    rows_[0] = {0, 0, 1};  // dp[∅][0] = F
    std::uint64_t total = 1;
    for (std::size_t I = 1; I < count; ++I) {
        const IdealLattice::Edge top = ids_.down[ids_.down_begin[I + 1] - 1];
        const int t = top.v;
        const std::size_t P = top.lower;
        PerIdeal p = per_[P];
        auto all_in = [&](const std::vector<int>& labels, int except) {
            for (int u : labels)
                if (u != except && !ids_.has(I, u))
                    return false;
            return true;
        };
        // Flows t produces now cross link "I" unless all their consumers are in I; flows t
        // consumes were crossing it (producer in P or the host, t outside P) and stop when t
        // was their last consumer outside.
        for (int f : in_.produces[static_cast<std::size_t>(t)]) {
            const Instance::CutFlow& flow = in_.flows[static_cast<std::size_t>(f)];
            if (!all_in(flow.consumers, -1)) {
                ++p.cut_count;
                p.cut_bytes += flow.bytes;
            }
        }
        for (int f : in_.consumes[static_cast<std::size_t>(t)]) {
            const Instance::CutFlow& flow = in_.flows[static_cast<std::size_t>(f)];
            if ((flow.producer < 0 || ids_.has(P, flow.producer)) && all_in(flow.consumers, t)) {
                --p.cut_count;
                p.cut_bytes -= flow.bytes;
            }
        }
        ++p.size;
        p.add0 += add(0, t);
        p.add_min += in_.add_min[static_cast<std::size_t>(t)];
        std::int64_t out = weights_out[P];
        for (int w : in_.weights_of[static_cast<std::size_t>(t)]) {
            const auto& ops = in_.weight_ops[static_cast<std::size_t>(w)];
            bool in_parent = false;
            for (int u : ops)
                in_parent |= u != t && ids_.has(P, u);
            if (!in_parent)
                p.weights_in += in_.weight_bytes[static_cast<std::size_t>(w)];
            if (all_in(ops, -1))
                out -= in_.weight_bytes[static_cast<std::size_t>(w)];
        }
        weights_out[I] = out;
        per_[I] = p;

        const bool whole = I + 1 == count;
        const double rest = in_.total_add_min - p.add_min;
        int lo = 1, hi = std::min(p.size, whole ? chips : chips - 1);
        // Chip k - 1 carries I's cut and holds a maximal op of I: its load is at least
        // B_{k-1}(I) + min over I's maximal ops (exactly: sums of non-negative terms).
        double top_min = kInf;
        for (std::uint32_t e = ids_.down_begin[I]; e < ids_.down_begin[I + 1]; ++e)
            top_min = std::min(top_min, in_.add_min[static_cast<std::size_t>(ids_.down[e].v)]);
        auto last_chip_bound = [&](int k) { return ring(I, k) + top_min >= cap_; };
        while (lo <= hi && (p.weights_in > in_.capacity_below[static_cast<std::size_t>(lo)] ||
                            std::max(in_.floor_s, p.add_min / lo * (1.0 - kBoundSlack)) >= cap_ ||
                            last_chip_bound(lo)))
            ++lo;
        while (lo <= hi && !whole &&
               (out > in_.capacity_from[static_cast<std::size_t>(hi)] ||
                rest / (chips - hi) * (1.0 - kBoundSlack) >= cap_ || last_chip_bound(hi)))
            --hi;
        rows_[I] = {total, lo, std::max(0, hi - lo + 1)};
        total += static_cast<std::uint64_t>(rows_[I].span);
    }
    dp_.assign(total, cap_);
    dp_[0] = in_.floor_s;
}

void ChainSolver::removal_set(std::size_t I) {
    remove_.clear();
    mark_.resize(static_cast<std::size_t>(in_.n), 0);  // all 0 between calls
    const std::uint64_t* row = ids_.row(I);
    auto mark = [&](int v) {
        if (!mark_[static_cast<std::size_t>(v)]) {
            mark_[static_cast<std::size_t>(v)] = 1;
            remove_.push_back(v);
        }
    };
    if (adjacent_) {
        for (int x = 0; x < ids_.words; ++x)
            for (std::uint64_t b = row[x]; b != 0; b &= b - 1) {
                const int v = 64 * x + std::countr_zero(b);
                for (int t : in_.succ[static_cast<std::size_t>(v)])
                    if (!ids_.has(I, t)) {
                        mark(v);
                        break;
                    }
            }
        // Close upwards inside I: an ideal without v holds nothing above v.
        for (std::size_t i = 0; i < remove_.size(); ++i)
            for (int t : in_.succ[static_cast<std::size_t>(remove_[i])])
                if (ids_.has(I, t))
                    mark(t);
    }
    // I \ live_ is an up-set of I (live_ is a union of ideals).
    for (int x = 0; x < ids_.words; ++x)
        for (std::uint64_t b = row[x] & ~live_[static_cast<std::size_t>(x)]; b != 0; b &= b - 1)
            mark(64 * x + std::countr_zero(b));
    for (int v : remove_)
        mark_[static_cast<std::size_t>(v)] = 0;
    std::sort(remove_.begin(), remove_.end(), std::greater<>());
}

// In the full lattice every op of remove_ is maximal when its turn comes (what lies above it in
// I is in remove_ too, with larger labels), so exactly those ops are removed; in the prefix
// lattice the top op is removed until none of them is left (the largest prefix below).
template <typename Step>
std::uint32_t ChainSolver::descend(std::size_t I, Step step) const {
    auto cur = static_cast<std::uint32_t>(I);
    for (int u : remove_) {
        while (ids_.has(cur, u)) {
            const IdealLattice::Edge* first = ids_.down.data() + ids_.down_begin[cur];
            const IdealLattice::Edge* last = ids_.down.data() + ids_.down_begin[cur + 1];
            const IdealLattice::Edge* e = std::lower_bound(
                first, last, u, [](const IdealLattice::Edge& a, int v) { return a.v < v; });
            if (e == last || e->v != u) {
                if (!prefixes_)
                    throw ChainDpError("chain DP: internal: an op to remove is not maximal");
                e = last - 1;  // the prefix's top, above u
            }
            step(e->v);
            cur = e->lower;
        }
    }
    return cur;
}

std::int64_t ChainSolver::add_weights(int v) {
    std::int64_t bytes = 0;
    for (int w : in_.weights_of[static_cast<std::size_t>(v)])
        if (weight_count_[static_cast<std::size_t>(w)]++ == 0)
            bytes += in_.weight_bytes[static_cast<std::size_t>(w)];
    return bytes;
}

void ChainSolver::remove_weights(int v) {
    for (int w : in_.weights_of[static_cast<std::size_t>(v)])
        --weight_count_[static_cast<std::size_t>(w)];
}

// Relaxes dp[I][k] for the walk layers from J with S = I \ J (its load per layer in acc, its
// weights), and says whether a larger S may still improve some layer.
template <bool Uniform>
bool ChainSolver::visit(std::uint32_t J, const double* acc, std::int64_t weights) {
    ++pairs_;
    check_clock();
    const Stored& r = rows_[J];
    bool alive = false;
    for (int k = klo_; k <= khi_; ++k) {
        const int i = k - klo_;
        if (weights > sram_[static_cast<std::size_t>(i)])
            continue;
        const double load = acc[Uniform ? 0 : i] + ring_[static_cast<std::size_t>(i)];
        double& best = row_[static_cast<std::size_t>(k)];
        const auto j = static_cast<unsigned>(k - 1 - r.lo);
        if (j < static_cast<unsigned>(r.span)) {
            const double cand = std::max(dp_[r.begin + j], load);
            if (cand < best)
                best = cand;
        }
        alive |= load < best && lower_[static_cast<std::size_t>(i)] < best;
    }
    return alive;
}

template <bool Uniform>
void ChainSolver::walk(std::uint32_t j, int last, int depth, std::int64_t weights) {
    const double* acc = &acc_[static_cast<std::size_t>(depth) * width_];
    double* next = &acc_[static_cast<std::size_t>(depth + 1) * width_];
    for (std::uint32_t e = ids_.down_begin[j]; e < ids_.down_begin[j + 1]; ++e) {
        const IdealLattice::Edge edge = ids_.down[e];
        if (edge.v >= last)
            break;
        if constexpr (Uniform) {
            next[0] = acc[0] + add(0, edge.v);
        } else {
            for (int i = 0; i < width_; ++i)
                next[i] = acc[i] + add(klo_ + i - 1, edge.v);
        }
        const std::int64_t w = weights + add_weights(edge.v);
        if (visit<Uniform>(edge.lower, next, w))
            walk<Uniform>(edge.lower, edge.v, depth + 1, w);
        remove_weights(edge.v);
    }
}

void ChainSolver::run(const std::optional<Clock::time_point>& deadline,
                      const std::function<void(std::size_t, std::size_t)>& progress) {
    deadline_ = &deadline;
    plan();
    const std::size_t count = ids_.count();
    const int chips = in_.chips;
    row_.assign(static_cast<std::size_t>(chips) + 1, cap_);
    ring_.resize(static_cast<std::size_t>(chips));
    lower_.resize(static_cast<std::size_t>(chips));
    sram_.resize(static_cast<std::size_t>(chips));
    weight_count_.assign(in_.weight_bytes.size(), 0);
    width_ = in_.uniform ? 1 : chips;
    acc_.assign(static_cast<std::size_t>(in_.n + 2) * static_cast<std::size_t>(width_), 0.0);
    live_.assign(static_cast<std::size_t>(ids_.words), 0);  // ∅ is live
    start_.assign(count, 0);
    for (std::size_t I = 1; I < count; ++I) {
        check_deadline(deadline);
        if (progress && (I & 1023U) == 0)
            progress(I, count);
        const Stored& r = rows_[I];
        if (r.span == 0)
            continue;
        const PerIdeal& p = per_[I];
        std::fill(row_.begin(), row_.end(), cap_);
        // k = 1: all of I on chip 0 (J = ∅).
        if (r.lo == 1 && p.weights_in <= in_.capacity[0])
            row_[1] = std::min(row_[1], std::max(in_.floor_s, p.add0 + ring(I, 1)));
        klo_ = std::max(2, r.lo);
        khi_ = r.lo + r.span - 1;
        if (klo_ <= khi_) {
            for (int k = klo_; k <= khi_; ++k) {
                const auto i = static_cast<std::size_t>(k - klo_);
                ring_[i] = ring(I, k);
                sram_[i] = in_.capacity[static_cast<std::size_t>(k - 1)];
                // dp values are never below the floor (exactly): no slack on it.
                lower_[i] = std::max({in_.floor_s, p.add_min / k * (1.0 - kBoundSlack), ring_[i]});
            }
            if (!in_.uniform)
                width_ = khi_ - klo_ + 1;
            std::fill_n(acc_.begin(), width_, 0.0);
            std::int64_t weights = 0;
            removal_set(I);
            removed_.clear();
            const std::uint32_t start = descend(I, [&](int v) {
                removed_.push_back(v);
                if (in_.uniform) {
                    acc_[0] += add(0, v);
                } else {
                    for (int i = 0; i < width_; ++i)
                        acc_[static_cast<std::size_t>(i)] += add(klo_ + i - 1, v);
                }
                weights += add_weights(v);
            });
            start_[I] = start;
            const bool alive = start == I    ? true
                               : in_.uniform ? visit<true>(start, acc_.data(), weights)
                                             : visit<false>(start, acc_.data(), weights);
            if (alive) {
                if (in_.uniform)
                    walk<true>(start, in_.n, 0, weights);
                else
                    walk<false>(start, in_.n, 0, weights);
            }
            for (int v : removed_)
                remove_weights(v);
        }
        std::copy_n(row_.begin() + r.lo, r.span,
                    dp_.begin() + static_cast<std::ptrdiff_t>(r.begin));
        if (std::any_of(row_.begin() + r.lo, row_.begin() + r.lo + r.span,
                        [&](double v) { return v < cap_; })) {
            const std::uint64_t* row = ids_.row(I);
            for (int x = 0; x < ids_.words; ++x)
                live_[static_cast<std::size_t>(x)] |= row[x];
        }
    }
}

double ChainSolver::best(int& chips) const {
    double value = cap_;
    chips = 0;
    for (int k = 1; k <= in_.chips; ++k)
        if (this->value(full(), k) < value) {
            value = this->value(full(), k);
            chips = k;
        }
    return value;
}

// Walks as run() does, with the one layer k, so that every load is computed in the same order
// (bitwise equal), and takes the first J with max(dp[J][k-1], load) <= dp[I][k].
std::vector<int> ChainSolver::reconstruct(int chips) {
    std::vector<int> chip(static_cast<std::size_t>(in_.n), -1);
    std::size_t I = full();
    weight_count_.assign(in_.weight_bytes.size(), 0);
    for (int k = chips; k >= 1; --k) {
        const double goal = value(I, k);
        if (!(goal < cap_))
            throw ChainDpError("chain DP: internal: reconstructing a value not below the cap");
        std::size_t J = 0;
        if (k > 1) {
            const int c = k - 1;
            const double ring_term = ring(I, k);
            const std::int64_t sram = in_.capacity[static_cast<std::size_t>(c)];
            bool found = false;
            auto accept = [&](std::uint32_t lower, double s, std::int64_t w) {
                if (w <= sram && std::max(value(lower, k - 1), s + ring_term) <= goal) {
                    J = lower;
                    found = true;
                }
                return w <= sram && s + ring_term <= goal;  // may a larger S still attain it?
            };
            // Depth-first like walk(), stopping at the first J found.
            auto search = [&](auto&& self, std::uint32_t j, int last, double s,
                              std::int64_t w) -> void {
                for (std::uint32_t e = ids_.down_begin[j]; e < ids_.down_begin[j + 1] && !found;
                     ++e) {
                    const IdealLattice::Edge edge = ids_.down[e];
                    if (edge.v >= last)
                        break;
                    const double s2 = s + add(c, edge.v);
                    const std::int64_t w2 = w + add_weights(edge.v);
                    if (accept(edge.lower, s2, w2) && !found)
                        self(self, edge.lower, edge.v, s2, w2);
                    remove_weights(edge.v);
                }
            };
            // The walk of run(): down to where it started (I minus an up-set of I, removed in
            // decreasing label order), then below.
            double s = 0.0;
            std::int64_t w = 0;
            const std::uint32_t start = start_[I];
            remove_.clear();
            for (int v = in_.n - 1; v >= 0; --v)
                if (ids_.has(I, v) && !ids_.has(start, v))
                    remove_.push_back(v);
            if (descend(I, [&](int v) {
                    s += add(c, v);
                    w += add_weights(v);
                }) != start)
                throw ChainDpError("chain DP: internal: the walk's start is not reproduced");
            if (start == I || accept(start, s, w)) {
                if (!found)
                    search(search, start, in_.n, s, w);
            }
            for (int v : remove_)
                remove_weights(v);
            if (!found)
                throw ChainDpError("chain DP: internal: no sub-ideal attains the dp value");
        }
        for (int v = 0; v < in_.n; ++v)
            if (ids_.has(I, v) && !ids_.has(J, v))
                chip[static_cast<std::size_t>(v)] = k - 1;
        I = J;
    }
    if (I != 0)
        throw ChainDpError("chain DP: internal: the chain does not start at the empty ideal");
    return chip;
}

}  // namespace

ChainDpResult solve_chain_dp(const McmProblem& problem, const ChainDpOptions& options) {
    const auto t0 = Clock::now();
    ChainDpResult result;
    result.time_per_sample_s = kInf;
    const Instance in = make_instance(problem);
    const bool adjacent = options.space == ChainSpace::kAdjacentCuts;
    auto finish = [&](ChainSolver& solver, int chips, double value) {
        const std::vector<int> chip_of_label = solver.reconstruct(chips);
        result.feasible = true;
        result.time_per_sample_s = value;
        result.chips_used = chips;
        result.chip_of_op.assign(static_cast<std::size_t>(in.n), -1);
        for (int v = 0; v < in.n; ++v)
            result
                .chip_of_op[static_cast<std::size_t>(in.op_of_label[static_cast<std::size_t>(v)])] =
                chip_of_label[static_cast<std::size_t>(v)];
    };
    if (in.n == 0) {  // nothing to place: the host stage alone
        result.feasible = true;
        result.time_per_sample_s = in.host_in_s;
        result.wall_s = seconds_since(t0);
        return result;
    }
    try {
        // The linearized DP (tarnawski2020 §5.1.2): its chains are chains of the full lattice,
        // so its optimum is achievable and caps the full DP.
        double cap = kInf;
        const IdealLattice prefixes = prefix_ideals(in.n);
        ChainSolver linear(in, prefixes, true, adjacent, kInf);
        int linear_chips = 0;
        if (options.linearized_cap) {
            linear.run(options.deadline);
            result.pairs += linear.pairs();
            cap = linear.best(linear_chips);
            result.linearized_time_per_sample_s = cap;
            // The linearized chain meets a lower bound of every chain: it is optimal, and the
            // lattice is not needed (the floor, or the mean load over all C chips).
            const double bound =
                std::max(in.floor_s, in.total_add_min / in.chips * (1.0 - kBoundSlack));
            if (linear_chips > 0 && cap <= bound) {
                finish(linear, linear_chips, cap);
                result.wall_s = seconds_since(t0);
                return result;
            }
        }
        IdealLattice ids;
        try {
            ids = enumerate_ideals(in.n, in.pred, options.max_ideals, options.deadline);
        } catch (const TooManyIdeals&) {
            throw ChainDpError(fmt::format(
                "graph '{}' ({} ops) has more than {} ideals (ChainDpOptions::max_ideals); the "
                "chain DP needs every ideal",
                problem.graph().name(), in.n, options.max_ideals));
        }
        result.ideals = ids.count();
        ChainSolver solver(in, ids, false, adjacent, cap);
        solver.run(options.deadline, options.on_progress);
        result.pairs += solver.pairs();
        result.dp_values = solver.stored();
        int chips = 0;
        const double value = solver.best(chips);
        if (chips > 0)
            finish(solver, chips, value);
        else if (linear_chips > 0)  // nothing below the cap: the linearized chain is optimal
            finish(linear, linear_chips, cap);
    } catch (const DeadlinePassed&) {
        result.stopped = true;
        result.feasible = false;
        result.time_per_sample_s = kInf;
        result.chip_of_op.clear();
        result.chips_used = 0;
    }
    result.wall_s = seconds_since(t0);
    return result;
}

}  // namespace hetsim::placement::mcm
