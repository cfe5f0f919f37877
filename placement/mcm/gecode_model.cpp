// The Gecode model of mcm2022 §3 (Eq. 2-4 and the SRAM bound on resident weights); see
// gecode_model.hpp. The three custom propagators below keep their dynamic state in space memory
// (copied with the space, so backtracking restores it) and read the instance from ModelData.
//
// Gecode conventions relied on (MPG, "Advisors"): an advisor runs on every change of its view,
// also for changes its own propagator makes; a propagator that returns ES_FIX drops every
// scheduling its advisors requested while it ran, so a propagator whose own pruning can wake its
// advisors either loops to its own fixpoint (ChipTriangle, WeightCapacity) or returns ES_NOFIX
// (NoSkip). Spaces are copied only when stable, so the queues of newly assigned ops are empty
// whenever a propagator is copied.
#include "placement/mcm/gecode_model.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <utility>

namespace hetsim::placement::mcm::detail {
namespace {

using Gecode::Advisor;
using Gecode::Council;
using Gecode::ExecStatus;
using Gecode::Home;
using Gecode::ModEvent;
using Gecode::ModEventDelta;
using Gecode::Propagator;
using Gecode::PropCost;
using Gecode::Space;
using Gecode::ViewArray;
using Gecode::Int::IntView;
using Word = std::uint64_t;

// ---- chip bitsets (`words` 64-bit words; chips ascending) ----

bool test_bit(const Word* b, int i) {
    return ((b[i >> 6] >> (i & 63)) & 1U) != 0;
}
void set_bit(Word* b, int i) {
    b[i >> 6] |= Word{1} << (i & 63);
}
bool intersects(const Word* a, const Word* b, int words) {
    for (int i = 0; i < words; ++i) {
        if ((a[i] & b[i]) != 0)
            return true;
    }
    return false;
}
void set_range(Word* b, int lo, int hi) {
    for (int i = lo; i <= hi;) {
        const int word = i >> 6;
        const int first = i & 63;
        const int last = std::min(63, first + (hi - i));
        const Word mask =
            (last == 63 ? ~Word{0} : ((Word{1} << (last + 1)) - 1)) & ~((Word{1} << first) - 1);
        b[word] |= mask;
        i += last - first + 1;
    }
}
// The domain of x as a bitset.
void domain_bits(IntView x, Word* out, int words) {
    std::fill(out, out + words, 0);
    for (Gecode::Int::ViewRanges<IntView> r(x); r(); ++r)
        set_range(out, r.min(), r.max());
}

// A Gecode range iterator over the set bits of a bitset of `bits` bits.
class BitRanges {
public:
    BitRanges(const Word* b, int bits) : b_(b), bits_(bits) { find(0); }
    bool operator()() const { return min_ <= max_; }
    void operator++() { find(max_ + 2); }  // max_ + 1 is clear
    int min() const { return min_; }
    int max() const { return max_; }
    unsigned int width() const { return static_cast<unsigned int>(max_ - min_ + 1); }

private:
    int next(int from, bool set) const {
        for (int i = from; i < bits_;) {
            const Word w = set ? b_[i >> 6] : ~b_[i >> 6];
            const Word rest = w >> (i & 63);
            if (rest != 0)
                return std::min(bits_, i + std::countr_zero(rest));
            i = (i & ~63) + 64;
        }
        return bits_;
    }
    void find(int from) {
        min_ = next(from, true);
        if (min_ >= bits_) {
            min_ = 1;
            max_ = 0;
            return;
        }
        max_ = next(min_, false) - 1;
    }
    const Word* b_;
    int bits_;
    int min_ = 1, max_ = 0;
};

// Removes the chips of `forbidden` from x (a scratch buffer of `words` words is clobbered).
ModEvent remove_chips(Space& home, IntView x, const Word* forbidden, Word* scratch, int words,
                      int chips) {
    domain_bits(x, scratch, words);
    bool any = false;
    for (int i = 0; i < words; ++i) {
        scratch[i] &= forbidden[i];
        any = any || scratch[i] != 0;
    }
    if (!any)
        return Gecode::ME_GEN_NONE;
    BitRanges r(scratch, chips);
    return x.minus_r(home, r, false);
}

// An advisor that knows the index of its view.
class IndexAdvisor : public Advisor {
public:
    int i;
    IndexAdvisor(Space& home, Propagator& p, Council<IndexAdvisor>& c, int i0)
        : Advisor(home, p, c), i(i0) {}
    IndexAdvisor(Space& home, IndexAdvisor& a) : Advisor(home, a), i(a.i) {}
};

// The teardown of a propagator that watches its views through IndexAdvisors.
void dispose_advised(Space& home, Propagator& p, ViewArray<IntView>& x,
                     Council<IndexAdvisor>& council) {
    for (Gecode::Advisors<IndexAdvisor> as(council); as(); ++as)
        x[as.advisor().i].cancel(home, as.advisor());
    council.dispose(home);
    (void)p.Propagator::dispose(home);
}

// What an advised propagator returns after a run that reached its fixpoint: failure, or
// subsumed once every view is assigned (no advisor left), else at fixpoint.
ExecStatus fixpoint_or_subsumed(Space& home, Propagator& p, ExecStatus status,
                                Council<IndexAdvisor>& council) {
    if (status == Gecode::ES_FAILED)
        return status;
    return council.empty() ? home.ES_SUBSUMED(p) : Gecode::ES_FIX;
}

// Space memory for n objects; none for n = 0 (Gecode's allocator requires a positive size:
// an op-less graph, a graph without transitive edges or weights).
template <class T>
T* alloc_array(Space& home, std::size_t n) {
    return n == 0 ? nullptr : home.alloc<T>(n);
}

template <class T>
T* copy_array(Space& home, const T* from, std::size_t n) {
    T* to = alloc_array<T>(home, n);
    if (n > 0)
        std::memcpy(to, from, n * sizeof(T));
    return to;
}

// ============================================================================================
// Eq. 4 (mcm2022 §3): for every cut edge (u, v), δ(f(u), f(v)) = 1, δ being the longest path in
// the chip graph (an edge a -> b per cut op edge from chip a to chip b). Under Eq. 2 the chip
// graph is a DAG going up in index, and Eq. 4 says that no chip edge (a, b) has another path
// a ⇝ b of two or more edges: the chip graph is its own transitive reduction.
//
// State: the chip graph G_A of the op edges whose two ends are assigned (succ), its reachability
// (reach[a] = chips reachable from a by >= 1 edge), and the forbidden-chip matrix F derived from
// them; per transitive-edge group the lowest and highest chip assigned in it.
//
// Failure. G_A only grows along a branch (assignments are never undone within a branch) and a
// redundant edge stays redundant in every supergraph (the edge and the longer path both persist).
// So when adding a chip edge (a, b) makes some edge redundant, every completion violates Eq. 4
// and failing is sound. Adding (a, b) (not yet in G_A) makes an edge redundant iff
//   (i)  b is already reachable from a (the new edge itself is redundant), or
//   (ii) some edge (x, y) of G_A has x ∈ Anc*(a) and y ∈ Desc*(b) (x ⇝ a -> b ⇝ y is a new
//        path of >= 2 edges beside it; (x, y) != (a, b) since (a, b) is new),
// and every new path uses the new edge, so these are all the cases. Completeness on a full
// assignment: then every op edge has both ends assigned, G_A is the chip graph, and each of its
// edges was checked when inserted against the edges inserted before it — the last-inserted
// edge of a redundant pair (edge, path) sees the other, so some insertion failed.
//
// Pruning (an op edge with exactly one end assigned). With u assigned to a and v unassigned,
// chip b > a for v would add (a, b); if (a, b) is not in G_A and (i) or (ii) holds for it, every
// completion with f(v) = b contains G_A + (a, b), which has a redundant edge: removing b from
// v's domain removes no value of a valid completion. F[a][b] marks exactly these (a, b); the
// symmetric case (v assigned to b, u unassigned) removes the chips a with F[a][b]. F only grows
// along a branch, so an edge pruned with an older F needs re-pruning only when F changes (the
// propagator then rescans every half-assigned edge).
//
// Implied rule (two chips per transitive edge). If op edge (u, v) has another op path
// u -> w1 -> ... -> v, then every op w on such a path has f(w) ∈ {f(u), f(v)} in every valid
// partition: the chips along the path do not decrease (Eq. 2); if f(u) < f(v) the distinct chips
// on the path form a chip path from f(u) to f(v) beside the chip edge (f(u), f(v)), so it must
// be that edge alone — no chip strictly between. Hence the ops X = {u} ∪ B ∪ {v} (B: the ops on
// u -> v paths) take at most two chips, f(u) the lower (it precedes all of X) and f(v) the
// higher. The propagator fails when X shows three assigned chips, and once it shows two, L < H,
// it fixes f(u) = L, f(v) = H and removes the chips strictly between from B. All consequences
// of a constraint every valid partition satisfies, so sound; not needed for completeness.
// ============================================================================================
class ChipTriangle : public Propagator {
public:
    ChipTriangle(Home home, ViewArray<IntView>& x, const ModelData& d)
        : Propagator(home), x_(x), council_(home), d_(&d) {
        allocate(home);
        const std::size_t bits = chip_words();
        std::fill(succ_, succ_ + bits, 0);
        std::fill(reach_, reach_ + bits, 0);
        std::fill(forb_row_, forb_row_ + bits, 0);
        std::fill(forb_col_, forb_col_ + bits, 0);
        for (std::size_t g = 0; g < d.groups.size(); ++g) {
            group_lo_[g] = -1;
            group_hi_[g] = -1;
            group_done_[g] = 0;
        }
        for (int i = 0; i < x_.size(); ++i) {
            if (x_[i].assigned())
                pending_[tail_++] = i;
            else
                x_[i].subscribe(home, *new (home) IndexAdvisor(home, *this, council_, i));
        }
        IntView::schedule(home, *this, Gecode::Int::ME_INT_VAL);
    }

    ChipTriangle(Space& home, ChipTriangle& p) : Propagator(home, p), d_(p.d_) {
        assert(p.head_ == p.tail_);
        x_.update(home, p.x_);
        council_.update(home, p.council_);
        const std::size_t bits = p.chip_words();
        const std::size_t groups = p.d_->groups.size();
        succ_ = copy_array(home, p.succ_, 4 * bits + static_cast<std::size_t>(p.d_->words));
        reach_ = succ_ + bits;
        forb_row_ = reach_ + bits;
        forb_col_ = forb_row_ + bits;
        scratch_ = forb_col_ + bits;
        group_lo_ = copy_array(home, p.group_lo_, 2 * groups);
        group_hi_ = group_lo_ + groups;
        group_done_ = copy_array(home, p.group_done_, groups);
        pending_ = alloc_array<int>(home, static_cast<std::size_t>(p.d_->ops));
        forb_valid_ = p.forb_valid_;
    }

    Propagator* copy(Space& home) override { return new (home) ChipTriangle(home, *this); }

    PropCost cost(const Space&, const ModEventDelta&) const override {
        return PropCost::linear(PropCost::HI, x_.size());
    }

    void reschedule(Space& home) override {
        IntView::schedule(home, *this, Gecode::Int::ME_INT_VAL);
    }

    ExecStatus advise(Space& home, Advisor& a0, const Gecode::Delta&) override {
        auto& a = static_cast<IndexAdvisor&>(a0);
        if (!x_[a.i].assigned())
            return Gecode::ES_FIX;
        pending_[tail_++] = a.i;
        a.dispose(home, council_);
        return Gecode::ES_NOFIX;
    }

    ExecStatus propagate(Space& home, const ModEventDelta&) override {
        const ExecStatus status = run(home);
        head_ = tail_ = 0;
        return fixpoint_or_subsumed(home, *this, status, council_);
    }

    std::size_t dispose(Space& home) override {
        dispose_advised(home, *this, x_, council_);
        return sizeof(*this);
    }

    static ExecStatus post(Home home, ViewArray<IntView>& x, const ModelData& d) {
        (void)new (home) ChipTriangle(home, x, d);
        return Gecode::ES_OK;
    }

private:
    std::size_t chip_words() const {
        return static_cast<std::size_t>(d_->chips) * static_cast<std::size_t>(d_->words);
    }
    Word* row(Word* m, int chip) const { return m + static_cast<std::size_t>(chip) * d_->words; }
    const Word* row(const Word* m, int chip) const {
        return m + static_cast<std::size_t>(chip) * d_->words;
    }

    void allocate(Space& home) {
        const std::size_t bits = chip_words();
        const std::size_t groups = d_->groups.size();
        succ_ = alloc_array<Word>(home, 4 * bits + static_cast<std::size_t>(d_->words));
        reach_ = succ_ + bits;
        forb_row_ = reach_ + bits;
        forb_col_ = forb_row_ + bits;
        scratch_ = forb_col_ + bits;
        group_lo_ = alloc_array<int>(home, 2 * groups);
        group_hi_ = group_lo_ + groups;
        group_done_ = alloc_array<unsigned char>(home, groups);
        pending_ = alloc_array<int>(home, static_cast<std::size_t>(d_->ops));
    }

    bool is_ancestor_or_self(int x, int a) const { return x == a || test_bit(row(reach_, x), a); }

    // Inserts chip edge (a, b), a < b, not yet in G_A; false when it makes an edge redundant.
    bool add_chip_edge(int a, int b) {
        const int w = d_->words;
        const Word* reach_b = row(reach_, b);
        if (test_bit(row(reach_, a), b))
            return false;  // (i)
        for (int x = 0; x <= a; ++x) {
            if (!is_ancestor_or_self(x, a))
                continue;
            const Word* succ_x = row(succ_, x);
            if (test_bit(succ_x, b) || intersects(succ_x, reach_b, w))
                return false;  // (ii)
        }
        set_bit(row(succ_, a), b);
        for (int x = 0; x <= a; ++x) {
            if (!is_ancestor_or_self(x, a))
                continue;
            Word* reach_x = row(reach_, x);
            set_bit(reach_x, b);
            for (int i = 0; i < w; ++i)
                reach_x[i] |= reach_b[i];
        }
        forb_valid_ = false;
        return true;
    }

    // F[a][b] (rows) and its transpose (columns): chip pairs a < b, (a, b) not in G_A, for which
    // (i) or (ii) holds.
    void compute_forbidden() {
        const int chips = d_->chips;
        const int w = d_->words;
        const std::size_t bits = chip_words();
        std::fill(forb_row_, forb_row_ + bits, 0);
        std::fill(forb_col_, forb_col_ + bits, 0);
        Word* reachable = scratch_;  // U(a): successors of a's ancestors (and of a)
        for (int a = 0; a < chips; ++a) {
            std::fill(reachable, reachable + w, 0);
            for (int x = 0; x <= a; ++x) {
                if (!is_ancestor_or_self(x, a))
                    continue;
                const Word* succ_x = row(succ_, x);
                for (int i = 0; i < w; ++i)
                    reachable[i] |= succ_x[i];
            }
            const Word* succ_a = row(succ_, a);
            const Word* reach_a = row(reach_, a);
            for (int b = a + 1; b < chips; ++b) {
                if (test_bit(succ_a, b))
                    continue;
                const bool forbidden = test_bit(reach_a, b) || test_bit(reachable, b) ||
                                       intersects(reachable, row(reach_, b), w);
                if (forbidden) {
                    set_bit(row(forb_row_, a), b);
                    set_bit(row(forb_col_, b), a);
                }
            }
        }
        forb_valid_ = true;
    }

    // Prunes op z (unassigned) with F's row or column of the assigned end's chip.
    ModEvent prune(Space& home, int z, const Word* forbidden) {
        return remove_chips(home, x_[z], forbidden, scratch_, d_->words, d_->chips);
    }

    ExecStatus prune_group(Space& home, std::size_t g) {
        const int lo = group_lo_[g];
        const int hi = group_hi_[g];
        const ModelData::Group& group = d_->groups[g];
        GECODE_ME_CHECK(x_[group.from].eq(home, lo));
        GECODE_ME_CHECK(x_[group.to].eq(home, hi));
        if (hi - lo >= 2) {
            const int begin = d_->member_begin[g];
            const int end = d_->member_begin[g + 1];
            for (int k = begin; k < end; ++k) {
                Gecode::Iter::Ranges::Singleton between(lo + 1, hi - 1);
                GECODE_ME_CHECK(
                    x_[d_->members[static_cast<std::size_t>(k)]].minus_r(home, between, false));
            }
        }
        return Gecode::ES_OK;
    }

    // Chip edges of assigned op w's edges to assigned neighbours, and w's groups.
    ExecStatus absorb(Space& home, int w) {
        const int cw = x_[w].val();
        for (int k = d_->succ_begin[w]; k < d_->succ_begin[w + 1]; ++k) {
            const IntView z = x_[d_->succ[static_cast<std::size_t>(k)]];
            if (!z.assigned())
                continue;
            const int cz = z.val();
            if (cw > cz)
                return Gecode::ES_FAILED;  // Eq. 2, before its own propagator sees it
            if (cw < cz && !test_bit(row(succ_, cw), cz) && !add_chip_edge(cw, cz))
                return Gecode::ES_FAILED;
        }
        for (int k = d_->pred_begin[w]; k < d_->pred_begin[w + 1]; ++k) {
            const IntView z = x_[d_->pred[static_cast<std::size_t>(k)]];
            if (!z.assigned())
                continue;
            const int cz = z.val();
            if (cz > cw)
                return Gecode::ES_FAILED;
            if (cz < cw && !test_bit(row(succ_, cz), cw) && !add_chip_edge(cz, cw))
                return Gecode::ES_FAILED;
        }
        for (int k = d_->op_group_begin[w]; k < d_->op_group_begin[w + 1]; ++k) {
            const auto g = static_cast<std::size_t>(d_->op_groups[static_cast<std::size_t>(k)]);
            if (group_done_[g] != 0)
                continue;
            int& lo = group_lo_[g];
            int& hi = group_hi_[g];
            if (lo < 0) {
                lo = hi = cw;
            } else if (cw != lo && cw != hi) {
                if (lo != hi)
                    return Gecode::ES_FAILED;  // a third chip in the group
                (cw < lo ? lo : hi) = cw;
            }
            if (lo < hi) {
                group_done_[g] = 1;
                GECODE_ES_CHECK(prune_group(home, g));
            }
        }
        return Gecode::ES_OK;
    }

    ExecStatus run(Space& home) {
        bool rescan = !forb_valid_;
        while (head_ < tail_ || rescan) {
            const int begin = head_;
            const int end = tail_;
            head_ = end;
            for (int k = begin; k < end; ++k)
                GECODE_ES_CHECK(absorb(home, pending_[k]));
            if (!forb_valid_ || rescan) {
                // F changed: every half-assigned edge may lose more chips.
                compute_forbidden();
                rescan = false;
                for (const McmProblem::Edge& e : d_->edges) {
                    const IntView u = x_[e.from];
                    const IntView v = x_[e.to];
                    if (u.assigned() && !v.assigned())
                        GECODE_ME_CHECK(prune(home, e.to, row(forb_row_, u.val())));
                    else if (!u.assigned() && v.assigned())
                        GECODE_ME_CHECK(prune(home, e.from, row(forb_col_, v.val())));
                }
            } else {
                for (int k = begin; k < end; ++k) {
                    const int w = pending_[k];
                    const int cw = x_[w].val();
                    for (int j = d_->succ_begin[w]; j < d_->succ_begin[w + 1]; ++j) {
                        const int z = d_->succ[static_cast<std::size_t>(j)];
                        if (!x_[z].assigned())
                            GECODE_ME_CHECK(prune(home, z, row(forb_row_, cw)));
                    }
                    for (int j = d_->pred_begin[w]; j < d_->pred_begin[w + 1]; ++j) {
                        const int z = d_->pred[static_cast<std::size_t>(j)];
                        if (!x_[z].assigned())
                            GECODE_ME_CHECK(prune(home, z, row(forb_col_, cw)));
                    }
                }
            }
            // Pruning can assign ops (their advisors append to pending_); F may have changed
            // again only through absorb, which the next round handles.
        }
        return Gecode::ES_OK;
    }

    ViewArray<IntView> x_;
    Council<IndexAdvisor> council_;
    const ModelData* d_;
    Word* succ_ = nullptr;      // G_A adjacency, chips x words
    Word* reach_ = nullptr;     // >= 1 edge reachability
    Word* forb_row_ = nullptr;  // F[a] = chips b forbidden for a successor of an op on a
    Word* forb_col_ = nullptr;  // F^T[b] = chips a forbidden for a predecessor of an op on b
    Word* scratch_ = nullptr;   // words
    int* group_lo_ = nullptr;
    int* group_hi_ = nullptr;
    unsigned char* group_done_ = nullptr;
    int* pending_ = nullptr;  // newly assigned ops not yet absorbed
    int head_ = 0, tail_ = 0;
    bool forb_valid_ = true;  // G_A starts empty, and so does F
};

// ============================================================================================
// Eq. 3 (mcm2022 §3): d <= f(u) => some op is on d, i.e. the used chips are exactly 0..k.
//
// State: supp[d] = number of ops whose domain contains d (kept exact from a per-op mirror of
// the domain, since Gecode's delta of a domain change may only bound what was removed),
// assigned[d] = ops assigned to d, need = max over ops of min(dom) (the highest used chip is at
// least need), cap = the lowest chip no op can take (C when none).
//
// Rules, each sound because it holds in every valid completion:
//  (a) a chip d <= need with supp[d] = 0: in a completion some op is on a chip >= need >= d
//      but no op can be on d, violating Eq. 3 -> fail;
//  (b) a chip d <= need with supp[d] = 1 and no op assigned to it: the one op that can take d
//      must (else d is unused below a used chip) -> assign it;
//  (c) a chip e with supp[e] = 0: e is unused in every completion, so the highest used chip is
//      below e, and no op can be on a chip above e -> x <= e - 1 for every op.
// Completeness on a full assignment: need is then the highest used chip k and supp[d] counts
// the ops on d, so a chip d < k without ops fails (a).
// ============================================================================================
class NoSkip : public Propagator {
public:
    NoSkip(Home home, ViewArray<IntView>& x, const ModelData& d)
        : Propagator(home), x_(x), council_(home), d_(&d) {
        allocate(home);
        const int chips = d.chips;
        std::fill(supp_, supp_ + chips, 0);
        std::fill(assigned_, assigned_ + chips, 0);
        for (int i = 0; i < x_.size(); ++i) {
            Word* m = mirror(i);
            domain_bits(x_[i], m, d.words);
            for (Gecode::Int::ViewValues<IntView> v(x_[i]); v(); ++v)
                ++supp_[v.val()];
            need_ = std::max(need_, x_[i].min());
            if (x_[i].assigned())
                ++assigned_[x_[i].val()];
            else
                x_[i].subscribe(home, *new (home) IndexAdvisor(home, *this, council_, i));
        }
        cap_ = chips;
        IntView::schedule(home, *this, Gecode::Int::ME_INT_BND);
    }

    NoSkip(Space& home, NoSkip& p) : Propagator(home, p), d_(p.d_), need_(p.need_), cap_(p.cap_) {
        x_.update(home, p.x_);
        council_.update(home, p.council_);
        const auto chips = static_cast<std::size_t>(d_->chips);
        supp_ = copy_array(home, p.supp_, 2 * chips);
        assigned_ = supp_ + chips;
        mirror_ = copy_array(home, p.mirror_, mirror_words() + static_cast<std::size_t>(d_->words));
        scratch_ = mirror_ + mirror_words();
    }

    Propagator* copy(Space& home) override { return new (home) NoSkip(home, *this); }

    PropCost cost(const Space&, const ModEventDelta&) const override {
        return PropCost::linear(PropCost::LO, x_.size());
    }

    void reschedule(Space& home) override {
        IntView::schedule(home, *this, Gecode::Int::ME_INT_BND);
    }

    ExecStatus advise(Space& home, Advisor& a0, const Gecode::Delta&) override {
        auto& a = static_cast<IndexAdvisor&>(a0);
        const IntView v = x_[a.i];
        const int w = d_->words;
        Word* m = mirror(a.i);
        domain_bits(v, scratch_, w);
        bool wake = false;
        for (int i = 0; i < w; ++i) {
            Word removed = m[i] & ~scratch_[i];
            while (removed != 0) {
                const int chip = i * 64 + std::countr_zero(removed);
                removed &= removed - 1;
                if (--supp_[chip] <= 1)
                    wake = true;
            }
            m[i] = scratch_[i];
        }
        if (v.min() > need_) {
            need_ = v.min();
            wake = true;
        }
        if (v.assigned()) {
            ++assigned_[v.val()];
            a.dispose(home, council_);
        }
        return wake ? Gecode::ES_NOFIX : Gecode::ES_FIX;
    }

    ExecStatus propagate(Space& home, const ModEventDelta&) override {
        const int chips = d_->chips;
        bool changed = false;
        // (a), (b); need may grow while this loop assigns ops.
        for (int d = 0; d <= need_ && d < chips; ++d) {
            if (supp_[d] == 0)
                return Gecode::ES_FAILED;
            if (supp_[d] == 1 && assigned_[d] == 0) {
                for (int i = 0; i < x_.size(); ++i) {
                    if (x_[i].in(d)) {
                        GECODE_ME_CHECK(x_[i].eq(home, d));
                        changed = true;
                        break;
                    }
                }
            }
        }
        // (c)
        int first_unsupported = 0;
        while (first_unsupported < chips && supp_[first_unsupported] > 0)
            ++first_unsupported;
        if (first_unsupported < cap_) {
            cap_ = first_unsupported;
            if (cap_ == 0)
                return Gecode::ES_FAILED;
            for (int i = 0; i < x_.size(); ++i)
                GECODE_ME_CHECK(x_[i].lq(home, cap_ - 1));
            changed = true;
        }
        if (council_.empty() && !changed)
            return home.ES_SUBSUMED(*this);
        return changed ? Gecode::ES_NOFIX : Gecode::ES_FIX;
    }

    std::size_t dispose(Space& home) override {
        dispose_advised(home, *this, x_, council_);
        return sizeof(*this);
    }

    static ExecStatus post(Home home, ViewArray<IntView>& x, const ModelData& d) {
        (void)new (home) NoSkip(home, x, d);
        return Gecode::ES_OK;
    }

private:
    std::size_t mirror_words() const {
        return static_cast<std::size_t>(d_->ops) * static_cast<std::size_t>(d_->words);
    }
    Word* mirror(int i) { return mirror_ + static_cast<std::size_t>(i) * d_->words; }
    void allocate(Space& home) {
        const auto chips = static_cast<std::size_t>(d_->chips);
        supp_ = alloc_array<int>(home, 2 * chips);
        assigned_ = supp_ + chips;
        mirror_ = alloc_array<Word>(home, mirror_words() + static_cast<std::size_t>(d_->words));
        scratch_ = mirror_ + mirror_words();
    }

    ViewArray<IntView> x_;
    Council<IndexAdvisor> council_;
    const ModelData* d_;
    int* supp_ = nullptr;
    int* assigned_ = nullptr;
    Word* mirror_ = nullptr;
    Word* scratch_ = nullptr;
    int need_ = 0;
    int cap_ = 0;
};

// ============================================================================================
// SRAM bound on resident weights (§3 Fig. 2f; AnalyticModel::weights_fit): for every chip c
// with a capacity, Σ bytes of the weights used by some op on c <= capacity(c), a weight shared
// by several ops counted once per chip.
//
// State: resident[t] = chips on which an assigned op reads weight t; used[c] = Σ bytes of the
// weights resident on c; unplaced = Σ bytes of weights no assigned op reads yet.
// Rules (sound: assignments only add residents along a branch, so used[c] only grows):
//  (a) used[c] > capacity(c) -> fail (every completion holds at least these weights on c);
//  (b) op u unassigned, c in its domain: putting u on c adds the bytes of u's weights not yet
//      resident on c; when that exceeds capacity(c) - used[c], (a) would hold for every
//      completion with f(u) = c -> remove c. Only ops whose total weight bytes exceed the
//      slack can lose c, so the ops are visited by those bytes, largest first, stopping early;
//  (c) every unplaced weight becomes resident on some chip in every completion, so
//      unplaced > Σ_c slack(c) -> fail (only when every chip has a capacity);
//  (d) interval energy: the ops whose domains lie inside a chip interval [a, b] run there in
//      every completion, so every weight one of them reads is resident on some chip of
//      [a, b]. share(u) = Σ over u's weights t of floor(bytes_t / readers_t) sums, over any
//      set of ops, to at most the bytes of the distinct weights they read; so
//      Σ_{dom(u) ⊆ [a, b]} share(u) > SRAM of [a, b] -> fail. This catches at the decision
//      that causes it what (a) sees only once the ops are assigned: an op put on chip c pushes
//      all its ancestors into [0, c], whose SRAM may not hold their weights. Kept incremental
//      (cells by domain bounds, updated by the advisors), O(C^2) per check.
// Completeness on a full assignment: used[c] is then exactly the chip's resident weight bytes
// (AnalyticModel's weight_bytes), and (a) fails iff weights_fit is false.
// ============================================================================================
class WeightCapacity : public Propagator {
public:
    WeightCapacity(Home home, ViewArray<IntView>& x, const ModelData& d)
        : Propagator(home), x_(x), council_(home), d_(&d) {
        allocate(home);
        std::fill(resident_, resident_ + resident_words(), 0);
        std::fill(used_, used_ + d.chips, 0);
        std::fill(changed_, changed_ + d.chips, 1);  // first run: every chip's rule (b)
        unplaced_ = d.total_weight_bytes;
        std::fill(cells_, cells_ + cell_count(), 0);
        for (int i = 0; i < x_.size(); ++i) {
            if (d.op_weight_begin[i] == d.op_weight_begin[i + 1])
                continue;  // reads no weight
            bounds_[2 * i] = x_[i].min();
            bounds_[2 * i + 1] = x_[i].max();
            cell(x_[i].min(), x_[i].max()) += d.op_share_bytes[static_cast<std::size_t>(i)];
            if (x_[i].assigned())
                pending_[tail_++] = i;
            else
                x_[i].subscribe(home, *new (home) IndexAdvisor(home, *this, council_, i));
        }
        IntView::schedule(home, *this, Gecode::Int::ME_INT_VAL);
    }

    WeightCapacity(Space& home, WeightCapacity& p)
        : Propagator(home, p), d_(p.d_), unplaced_(p.unplaced_) {
        assert(p.head_ == p.tail_ && !p.energy_dirty_);
        x_.update(home, p.x_);
        council_.update(home, p.council_);
        resident_ = copy_array(home, p.resident_, resident_words());
        used_ = copy_array(home, p.used_, static_cast<std::size_t>(d_->chips));
        changed_ = copy_array(home, p.changed_, static_cast<std::size_t>(d_->chips));
        pending_ = alloc_array<int>(home, static_cast<std::size_t>(d_->ops));
        bounds_ = copy_array(home, p.bounds_, 2 * static_cast<std::size_t>(d_->ops));
        cells_ = copy_array(home, p.cells_, cell_count());
        row_ = alloc_array<std::int64_t>(home, static_cast<std::size_t>(d_->chips));
        energy_dirty_ = false;
    }

    Propagator* copy(Space& home) override { return new (home) WeightCapacity(home, *this); }

    PropCost cost(const Space&, const ModEventDelta&) const override {
        return PropCost::linear(PropCost::LO, x_.size());
    }

    void reschedule(Space& home) override {
        IntView::schedule(home, *this, Gecode::Int::ME_INT_VAL);
    }

    ExecStatus advise(Space& home, Advisor& a0, const Gecode::Delta&) override {
        auto& a = static_cast<IndexAdvisor&>(a0);
        const IntView v = x_[a.i];
        bool wake = false;
        int& lo = bounds_[2 * a.i];
        int& hi = bounds_[2 * a.i + 1];
        if (v.min() != lo || v.max() != hi) {
            const std::int64_t share = d_->op_share_bytes[static_cast<std::size_t>(a.i)];
            cell(lo, hi) -= share;
            lo = v.min();
            hi = v.max();
            cell(lo, hi) += share;
            if (share > 0)
                energy_dirty_ = wake = true;
        }
        if (v.assigned()) {
            pending_[tail_++] = a.i;
            a.dispose(home, council_);
            wake = true;
        }
        return wake ? Gecode::ES_NOFIX : Gecode::ES_FIX;
    }

    ExecStatus propagate(Space& home, const ModEventDelta&) override {
        ExecStatus status = run(home);
        if (status != Gecode::ES_FAILED && energy_dirty_)
            status = check_intervals();
        energy_dirty_ = false;
        head_ = tail_ = 0;
        return fixpoint_or_subsumed(home, *this, status, council_);
    }

    std::size_t dispose(Space& home) override {
        dispose_advised(home, *this, x_, council_);
        return sizeof(*this);
    }

    static ExecStatus post(Home home, ViewArray<IntView>& x, const ModelData& d) {
        (void)new (home) WeightCapacity(home, x, d);
        return Gecode::ES_OK;
    }

private:
    std::size_t resident_words() const {
        return d_->weight_bytes.size() * static_cast<std::size_t>(d_->words);
    }
    Word* resident(int t) { return resident_ + static_cast<std::size_t>(t) * d_->words; }
    void allocate(Space& home) {
        resident_ = alloc_array<Word>(home, resident_words());
        used_ = alloc_array<std::int64_t>(home, static_cast<std::size_t>(d_->chips));
        changed_ = alloc_array<unsigned char>(home, static_cast<std::size_t>(d_->chips));
        pending_ = alloc_array<int>(home, static_cast<std::size_t>(d_->ops));
        bounds_ = alloc_array<int>(home, 2 * static_cast<std::size_t>(d_->ops));
        cells_ = alloc_array<std::int64_t>(home, cell_count());
        row_ = alloc_array<std::int64_t>(home, static_cast<std::size_t>(d_->chips));
    }
    std::size_t cell_count() const {
        return static_cast<std::size_t>(d_->chips) * static_cast<std::size_t>(d_->chips);
    }
    std::int64_t& cell(int lo, int hi) {
        return cells_[static_cast<std::size_t>(lo) * d_->chips + hi];
    }

    // Rule (d). E(a, b) = Σ_{a <= lo <= hi <= b} cell(lo, hi), row by row from the top chip:
    // E(a, b) = Σ_{hi <= b} cell(a, hi) + E(a + 1, b).
    ExecStatus check_intervals() {
        const int chips = d_->chips;
        std::fill(row_, row_ + chips, 0);  // E(a + 1, ·)
        for (int a = chips - 1; a >= 0; --a) {
            std::int64_t run = 0, room = 0;
            bool unlimited = false;
            for (int b = a; b < chips; ++b) {
                run += cell(a, b);
                row_[b] += run;
                const std::int64_t c = capacity(b);
                unlimited = unlimited || c <= 0;
                room += c;
                if (!unlimited && row_[b] > room)
                    return Gecode::ES_FAILED;
            }
        }
        return Gecode::ES_OK;
    }

    std::int64_t capacity(int c) const { return d_->capacity_bytes[static_cast<std::size_t>(c)]; }

    // Bytes of op u's weights not yet resident on chip c.
    std::int64_t extra_bytes(int u, int c) {
        std::int64_t extra = 0;
        for (int k = d_->op_weight_begin[u]; k < d_->op_weight_begin[u + 1]; ++k) {
            const int t = d_->op_weights[static_cast<std::size_t>(k)];
            if (!test_bit(resident(t), c))
                extra += d_->weight_bytes[static_cast<std::size_t>(t)];
        }
        return extra;
    }

    ExecStatus run(Space& home) {
        const int chips = d_->chips;
        bool again = true;
        while (again) {
            again = false;
            while (head_ < tail_) {
                const int w = pending_[head_++];
                const int c = x_[w].val();
                for (int k = d_->op_weight_begin[w]; k < d_->op_weight_begin[w + 1]; ++k) {
                    const int t = d_->op_weights[static_cast<std::size_t>(k)];
                    Word* r = resident(t);
                    if (test_bit(r, c))
                        continue;
                    bool placed = false;
                    for (int i = 0; i < d_->words && !placed; ++i)
                        placed = r[i] != 0;
                    if (!placed)
                        unplaced_ -= d_->weight_bytes[static_cast<std::size_t>(t)];
                    set_bit(r, c);
                    used_[c] += d_->weight_bytes[static_cast<std::size_t>(t)];
                    changed_[c] = 1;
                }
            }
            bool all_capped = true;
            std::int64_t total_slack = 0;
            for (int c = 0; c < chips; ++c) {
                if (capacity(c) <= 0) {
                    all_capped = false;
                    changed_[c] = 0;
                    continue;
                }
                const std::int64_t slack = capacity(c) - used_[c];
                if (slack < 0)
                    return Gecode::ES_FAILED;  // (a)
                total_slack += slack;
                if (changed_[c] == 0)
                    continue;
                changed_[c] = 0;
                for (int u : d_->ops_by_need) {  // (b)
                    if (d_->op_need_bytes[static_cast<std::size_t>(u)] <= slack)
                        break;
                    if (x_[u].assigned() || !x_[u].in(c))
                        continue;
                    if (extra_bytes(u, c) > slack)
                        GECODE_ME_CHECK(x_[u].nq(home, c));
                }
            }
            if (all_capped && unplaced_ > total_slack)
                return Gecode::ES_FAILED;  // (c)
            again = head_ < tail_;         // (b) assigned ops: absorb them too
        }
        return Gecode::ES_OK;
    }

    ViewArray<IntView> x_;
    Council<IndexAdvisor> council_;
    const ModelData* d_;
    Word* resident_ = nullptr;
    std::int64_t* used_ = nullptr;
    unsigned char* changed_ = nullptr;
    int* pending_ = nullptr;
    int head_ = 0, tail_ = 0;
    std::int64_t unplaced_ = 0;
    int* bounds_ = nullptr;          // [2 op]: min and max of the op's domain as in cells_
    std::int64_t* cells_ = nullptr;  // [lo * chips + hi]: Σ share of the ops with those bounds
    std::int64_t* row_ = nullptr;    // scratch of check_intervals
    bool energy_dirty_ = true;
};

// ============================================================================================
// SRAM along paths (implied by the SRAM bound and Eq. 2): the ops of an op path take
// nondecreasing chips, so each chip holds a contiguous stretch of the path, and the weights that
// stretch reads (at least Σ share(w), share as in WeightCapacity (d)) are resident there. Packing
// a path's shares into chips in path order, each chip up to its SRAM, next-fit uses the fewest
// chips, and next-fit is monotone in where it starts. So, scanning the ops in topological order
// with a position (chip, bytes used of it) per op,
//   up(u) = max_lex( next_fit((min dom u, 0), share u),
//                    max over predecessors p of next_fit(up(p), share u) )
// is a position no completion can put u below: f(u) >= up(u).chip. The reverse scan from the
// successors and the domains' maxima gives f(u) <= down(u).chip. Both prune bounds (sound: each
// removes only chips below/above what every completion needs) and fail when a path's weights
// cannot fit between its ends. This is the reasoning that stops a draw from putting an op of
// layer 5 and one of layer 9 on one chip: what (d) and (a) of WeightCapacity see only once the
// ops between are squeezed there. The scans run over the ops with a share only (cap_ops), linked
// where a path of share-free ops joins them: a share-free op adds nothing to a position, and its
// bounds reach the ops after and before it through Eq. 2. O(cap ops + their links) per run.
// ============================================================================================
class CapacityPaths : public Propagator {
public:
    // x: the views of ModelData::cap_ops, in that order.
    CapacityPaths(Home home, ViewArray<IntView>& x, const ModelData& d)
        : Propagator(home), x_(x), d_(&d) {
        Space& space = home;
        scratch_ = alloc_array<Position>(space, static_cast<std::size_t>(x_.size()));
        x_.subscribe(home, *this, Gecode::Int::PC_INT_BND);
    }
    CapacityPaths(Space& home, CapacityPaths& p) : Propagator(home, p), d_(p.d_) {
        x_.update(home, p.x_);
        scratch_ = alloc_array<Position>(home, static_cast<std::size_t>(x_.size()));
    }
    Propagator* copy(Space& home) override { return new (home) CapacityPaths(home, *this); }
    PropCost cost(const Space&, const ModEventDelta&) const override {
        // After the cheaper propagators: the scans are worth running once per fixpoint.
        return PropCost::quadratic(PropCost::LO, x_.size());
    }
    void reschedule(Space& home) override { x_.reschedule(home, *this, Gecode::Int::PC_INT_BND); }
    std::size_t dispose(Space& home) override {
        x_.cancel(home, *this, Gecode::Int::PC_INT_BND);
        (void)Propagator::dispose(home);
        return sizeof(*this);
    }
    static ExecStatus post(Home home, ViewArray<IntView>& x, const ModelData& d) {
        (void)new (home) CapacityPaths(home, x, d);
        return Gecode::ES_OK;
    }

    ExecStatus propagate(Space& home, const ModEventDelta&) override {
        const ModelData& d = *d_;
        const int n = x_.size();
        Position* at = scratch_;
        // Lower bounds, topological order.
        for (int i = 0; i < n; ++i) {
            const std::int64_t share = d.cap_share[static_cast<std::size_t>(i)];
            Position best = up(Position{x_[i].min(), 0}, share);
            for (int k = d.cap_pred_begin[static_cast<std::size_t>(i)];
                 k < d.cap_pred_begin[static_cast<std::size_t>(i) + 1]; ++k) {
                const Position p = up(at[d.cap_pred[static_cast<std::size_t>(k)]], share);
                if (p.chip > best.chip || (p.chip == best.chip && p.bytes > best.bytes))
                    best = p;
            }
            at[i] = best;
            if (best.chip > x_[i].min())
                GECODE_ME_CHECK(x_[i].gq(home, best.chip));
        }
        // Upper bounds, reverse topological order.
        for (int i = n - 1; i >= 0; --i) {
            const std::int64_t share = d.cap_share[static_cast<std::size_t>(i)];
            Position best = down(Position{x_[i].max(), 0}, share);
            for (int k = d.cap_succ_begin[static_cast<std::size_t>(i)];
                 k < d.cap_succ_begin[static_cast<std::size_t>(i) + 1]; ++k) {
                const Position p = down(at[d.cap_succ[static_cast<std::size_t>(k)]], share);
                if (p.chip < best.chip || (p.chip == best.chip && p.bytes > best.bytes))
                    best = p;
            }
            at[i] = best;
            if (best.chip < x_[i].max())
                GECODE_ME_CHECK(x_[i].lq(home, best.chip));
        }
        return Gecode::ES_FIX;
    }

private:
    struct Position {
        int chip;
        std::int64_t bytes;  // of the chip's SRAM taken by the path so far
    };
    std::int64_t capacity(int c) const { return d_->capacity_bytes[static_cast<std::size_t>(c)]; }
    // next-fit of `share` bytes from `p` going up the ring; chip = chips when nothing fits.
    Position up(Position p, std::int64_t share) const {
        if (share == 0 || p.chip >= d_->chips)
            return p;
        if (capacity(p.chip) <= 0 || p.bytes + share <= capacity(p.chip))
            return {p.chip, p.bytes + share};
        int c = p.chip + 1;
        while (c < d_->chips && capacity(c) > 0 && share > capacity(c))
            ++c;
        return {c, c < d_->chips ? share : 0};
    }
    // The same going down; chip = -1 when nothing fits.
    Position down(Position p, std::int64_t share) const {
        if (share == 0 || p.chip < 0)
            return p;
        if (capacity(p.chip) <= 0 || p.bytes + share <= capacity(p.chip))
            return {p.chip, p.bytes + share};
        int c = p.chip - 1;
        while (c >= 0 && capacity(c) > 0 && share > capacity(c))
            --c;
        return {c, c >= 0 ? share : 0};
    }

    ViewArray<IntView> x_;
    const ModelData* d_;
    Position* scratch_ = nullptr;
};

template <class P>
void post_global(Home home, const Gecode::IntVarArgs& x, const ModelData& data) {
    if (home.failed())
        return;
    ViewArray<IntView> views(home, x);
    if (P::post(home, views, data) != Gecode::ES_OK)
        home.fail();
}

}  // namespace

ModelData::ModelData(const McmProblem& problem)
    : ops(problem.op_count()), chips(problem.chip_count()), words((chips + 63) / 64) {
    const auto n = static_cast<std::size_t>(ops);
    edges = problem.edges();
    topo = problem.graph().topo_order();
    auto csr = [&](bool forward, std::vector<int>& begin, std::vector<int>& adj) {
        begin.assign(n + 1, 0);
        for (const McmProblem::Edge& e : edges)
            ++begin[static_cast<std::size_t>(forward ? e.from : e.to) + 1];
        for (std::size_t i = 0; i < n; ++i)
            begin[i + 1] += begin[i];
        adj.resize(edges.size());
        std::vector<int> at(begin.begin(), begin.end() - 1);
        for (const McmProblem::Edge& e : edges)
            adj[static_cast<std::size_t>(at[static_cast<std::size_t>(forward ? e.from : e.to)]++)] =
                forward ? e.to : e.from;
    };
    csr(true, succ_begin, succ);
    csr(false, pred_begin, pred);

    // Transitive edges and the ops between their ends: descendant and ancestor bitsets over
    // the ops (n^2 bits; skipped for very large graphs, the rule being optional).
    groups.clear();
    member_begin.assign(1, 0);
    edge_max_step.assign(edges.size(), std::max(0, chips - 1));
    const std::size_t op_words = (n + 63) / 64;
    if (n > 0 && n <= 16384) {
        std::vector<Word> desc(n * op_words, 0), anc(n * op_words, 0);
        auto bits = [&](std::vector<Word>& m, int op) {
            return &m[op_words * static_cast<std::size_t>(op)];
        };
        for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
            Word* d = bits(desc, *it);
            for (int k = succ_begin[static_cast<std::size_t>(*it)];
                 k < succ_begin[static_cast<std::size_t>(*it) + 1]; ++k) {
                const int s = succ[static_cast<std::size_t>(k)];
                set_bit(d, s);
                const Word* ds = bits(desc, s);
                for (std::size_t i = 0; i < op_words; ++i)
                    d[i] |= ds[i];
            }
        }
        for (int op : topo) {
            Word* a = bits(anc, op);
            for (int k = pred_begin[static_cast<std::size_t>(op)];
                 k < pred_begin[static_cast<std::size_t>(op) + 1]; ++k) {
                const int p = pred[static_cast<std::size_t>(k)];
                set_bit(a, p);
                const Word* ap = bits(anc, p);
                for (std::size_t i = 0; i < op_words; ++i)
                    a[i] |= ap[i];
            }
        }
        edge_max_step.assign(edges.size(), std::max(0, chips - 1));
        for (std::size_t k = 0; k < edges.size(); ++k) {
            const McmProblem::Edge& e = edges[k];
            // |P(u, v)| = n - |anc*(u) ∪ desc*(v) ∪ (desc(u) ∩ anc(v))|.
            const Word* anc_u = bits(anc, e.from);
            const Word* desc_v = bits(desc, e.to);
            const Word* desc_u = bits(desc, e.from);
            const Word* anc_v = bits(anc, e.to);
            std::size_t covered = 0;
            for (std::size_t i = 0; i < op_words; ++i)
                covered += static_cast<std::size_t>(
                    std::popcount(anc_u[i] | desc_v[i] | (desc_u[i] & anc_v[i])));
            covered += 2;  // u and v themselves
            const std::size_t others = n - std::min(n, covered);
            edge_max_step[k] = static_cast<int>(
                std::min<std::size_t>(others + 1, static_cast<std::size_t>(chips - 1)));
        }
        for (const McmProblem::Edge& e : edges) {
            const Word* d = bits(desc, e.from);
            const Word* a = bits(anc, e.to);
            const std::size_t before = members.size();
            for (std::size_t i = 0; i < op_words; ++i) {
                Word between = d[i] & a[i];
                while (between != 0) {
                    members.push_back(static_cast<int>(i * 64) + std::countr_zero(between));
                    between &= between - 1;
                }
            }
            if (members.size() == before)
                continue;  // not transitive
            if (members.size() > kMaxGroupMembers) {
                members.resize(before);
                break;
            }
            groups.push_back({e.from, e.to});
            member_begin.push_back(static_cast<int>(members.size()));
        }
    }
    {
        std::vector<int> count(n + 1, 0);
        auto each_op = [&](auto&& f) {
            for (std::size_t g = 0; g < groups.size(); ++g) {
                f(groups[g].from, g);
                f(groups[g].to, g);
                for (int k = member_begin[g]; k < member_begin[g + 1]; ++k)
                    f(members[static_cast<std::size_t>(k)], g);
            }
        };
        each_op([&](int op, std::size_t) { ++count[static_cast<std::size_t>(op) + 1]; });
        for (std::size_t i = 0; i < n; ++i)
            count[i + 1] += count[i];
        op_group_begin = count;
        op_groups.resize(static_cast<std::size_t>(count[n]));
        std::vector<int> at(count.begin(), count.end() - 1);
        each_op([&](int op, std::size_t g) {
            op_groups[static_cast<std::size_t>(at[static_cast<std::size_t>(op)]++)] =
                static_cast<int>(g);
        });
    }

    // Weights.
    capacity_bytes = problem.capacity_bytes();
    op_need_bytes.assign(n, 0);
    op_share_bytes.assign(n, 0);
    std::vector<int> count(n + 1, 0);
    for (const WeightUse& w : problem.weights()) {
        weight_bytes.push_back(w.bytes);
        total_weight_bytes += w.bytes;
        for (int op : w.ops) {
            ++count[static_cast<std::size_t>(op) + 1];
            op_need_bytes[static_cast<std::size_t>(op)] += w.bytes;
            op_share_bytes[static_cast<std::size_t>(op)] +=
                w.bytes / static_cast<std::int64_t>(w.ops.size());
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        count[i + 1] += count[i];
    op_weight_begin = count;
    op_weights.resize(static_cast<std::size_t>(count[n]));
    {
        std::vector<int> at(count.begin(), count.end() - 1);
        for (std::size_t t = 0; t < problem.weights().size(); ++t) {
            for (int op : problem.weights()[t].ops)
                op_weights[static_cast<std::size_t>(at[static_cast<std::size_t>(op)]++)] =
                    static_cast<int>(t);
        }
    }
    for (int op = 0; op < ops; ++op) {
        if (op_need_bytes[static_cast<std::size_t>(op)] > 0)
            ops_by_need.push_back(op);
    }
    // The ops with a share, in topological order, and their links: op a -> op b when a path
    // from a reaches b through share-free ops only.
    {
        std::vector<int> index(n, -1);
        for (int op : topo) {
            if (op_share_bytes[static_cast<std::size_t>(op)] > 0) {
                index[static_cast<std::size_t>(op)] = static_cast<int>(cap_ops.size());
                cap_ops.push_back(op);
                cap_share.push_back(op_share_bytes[static_cast<std::size_t>(op)]);
            }
        }
        std::vector<std::pair<int, int>> links;
        std::vector<int> seen(n, -1), stack;
        for (std::size_t i = 0; i < cap_ops.size(); ++i) {
            stack.assign(1, cap_ops[i]);
            while (!stack.empty()) {
                const int at = stack.back();
                stack.pop_back();
                for (int k = succ_begin[static_cast<std::size_t>(at)];
                     k < succ_begin[static_cast<std::size_t>(at) + 1]; ++k) {
                    const int next = succ[static_cast<std::size_t>(k)];
                    if (seen[static_cast<std::size_t>(next)] == static_cast<int>(i))
                        continue;
                    seen[static_cast<std::size_t>(next)] = static_cast<int>(i);
                    if (index[static_cast<std::size_t>(next)] >= 0)
                        links.emplace_back(static_cast<int>(i),
                                           index[static_cast<std::size_t>(next)]);
                    else
                        stack.push_back(next);
                }
            }
        }
        const std::size_t m = cap_ops.size();
        auto build = [&](bool forward, std::vector<int>& begin, std::vector<int>& adj) {
            begin.assign(m + 1, 0);
            for (const auto& [a, b] : links)
                ++begin[static_cast<std::size_t>(forward ? a : b) + 1];
            for (std::size_t i = 0; i < m; ++i)
                begin[i + 1] += begin[i];
            adj.resize(links.size());
            std::vector<int> at(begin.begin(), begin.end() - 1);
            for (const auto& [a, b] : links)
                adj[static_cast<std::size_t>(at[static_cast<std::size_t>(forward ? a : b)]++)] =
                    forward ? b : a;
        };
        build(true, cap_succ_begin, cap_succ);
        build(false, cap_pred_begin, cap_pred);
    }
    std::stable_sort(ops_by_need.begin(), ops_by_need.end(), [&](int a, int b) {
        return op_need_bytes[static_cast<std::size_t>(a)] >
               op_need_bytes[static_cast<std::size_t>(b)];
    });
}

void post_no_skip(Home home, const Gecode::IntVarArgs& x, const ModelData& data) {
    post_global<NoSkip>(home, x, data);
}
void post_chip_triangle(Home home, const Gecode::IntVarArgs& x, const ModelData& data) {
    post_global<ChipTriangle>(home, x, data);
}
void post_weight_capacity(Home home, const Gecode::IntVarArgs& x, const ModelData& data) {
    post_global<WeightCapacity>(home, x, data);
    if (home.failed() || data.cap_ops.empty())
        return;
    Gecode::IntVarArgs cap_vars;
    for (int op : data.cap_ops)
        cap_vars << x[op];
    post_global<CapacityPaths>(home, cap_vars, data);
}

PartitionSpace::PartitionSpace(const ModelData& data, bool weight_capacity)
    : data_(&data), x_(*this, data.ops, 0, data.chips - 1) {
    // Eq. 2: acyclic dataflow on the one-way ring.
    for (const McmProblem::Edge& e : data.edges)
        Gecode::rel(*this, x_[e.from], Gecode::IRT_LQ, x_[e.to]);
    // Implied by Eq. 3 and Eq. 4 (mcm2022 §3): the chip step along an edge (u, v) is at most
    // 1 + |P(u, v)|. Every chip c with f(u) < c < f(v) holds some op y (Eq. 3: c is below the
    // used chip f(v)); y is no ancestor of u (else f(y) <= f(u)), no descendant of v (else
    // f(y) >= f(v)), and not between u and v (ChipTriangle's two-chips rule puts those on f(u)
    // or f(v)); so y is in P(u, v), and distinct chips hold distinct ops. Bounds propagation of
    // these difference constraints along paths keeps two ops a few edges apart from drawing
    // chips that the ops between them could never fill, a dead end plain DFS finds only late.
    for (std::size_t k = 0; k < data.edges.size(); ++k) {
        const McmProblem::Edge& e = data.edges[k];
        if (data.edge_max_step[k] < data.chips - 1) {
            Gecode::linear(*this, Gecode::IntArgs({1, -1}),
                           Gecode::IntVarArgs({x_[e.to], x_[e.from]}), Gecode::IRT_LQ,
                           data.edge_max_step[k]);
        }
    }
    const Gecode::IntVarArgs args(x_);
    post_chip_triangle(*this, args, data);
    post_no_skip(*this, args, data);
    const bool any_capacity = std::any_of(data.capacity_bytes.begin(), data.capacity_bytes.end(),
                                          [](std::int64_t c) { return c > 0; });
    if (weight_capacity && any_capacity && !data.weight_bytes.empty())
        post_weight_capacity(*this, args, data);
}

PartitionSpace::PartitionSpace(PartitionSpace& other) : Gecode::Space(other), data_(other.data_) {
    x_.update(*this, other.x_);
}

Gecode::Space* PartitionSpace::copy() {
    return new PartitionSpace(*this);
}

std::vector<int> PartitionSpace::assignment() const {
    std::vector<int> chips(static_cast<std::size_t>(x_.size()));
    for (int i = 0; i < x_.size(); ++i)
        chips[static_cast<std::size_t>(i)] = x_[i].val();
    return chips;
}

bool DeadlineStop::stop(const Gecode::Search::Statistics& s, const Gecode::Search::Options&) {
    if (fail_limit_ > 0 && static_cast<std::int64_t>(s.fail) >= fail_limit_)
        return true;
    if (node_limit_ > 0 && static_cast<std::int64_t>(s.node) >= node_limit_) {
        node_limit_reached_ = true;
        return true;
    }
    ++calls_;
    if (progress_ && (calls_ & 4095U) == 0)
        progress_(s);
    if (has_deadline_ && (calls_ & 15U) == 0 && std::chrono::steady_clock::now() >= deadline_) {
        deadline_passed_ = true;
        return true;
    }
    return false;
}

}  // namespace hetsim::placement::mcm::detail
