// mcm2022 §4.2's constraint solver on Gecode (solver.hpp): the model of gecode_model.hpp, a
// brancher that follows a node order and draws each op's chip (Algorithm 1 SAMPLE) or keeps the
// candidate's (Algorithm 2 FIX), and Gecode's depth-first engine for the backtracking.
//
// Algorithm 1 and 2 as a DFS: a decision on op u is the binary choice (x_u = c | x_u != c).
// When propagation fails under x_u = c, the engine backtracks to the second alternative, which
// excludes c from u's domain, and the brancher then decides on u again from what is left —
// exactly "set_domain backtracks to a previous i" of Algorithm 1, with the failed value ruled out.
// Gecode recomputes the state of a backtracked node from a copy (every kCopyDistance
// decisions), so a backtrack costs a few commits instead of an undo log. An attempt that meets
// its failure limit (SolverOptions::fail_limit times the Luby sequence over the attempts of a call)
// is abandoned and a new one starts from the root with a fresh node order (when none was given) and
// fresh draws; a DFS that runs out of alternatives has proven that no valid partition exists (the
// propagators are sound and the branching complete).
//
// Determinism: every random draw comes from the caller's std::mt19937_64 through the helpers
// below (no std:: distribution, whose results differ between standard libraries), in an order
// fixed by the DFS, so the same seed gives the same partitions unless a deadline cuts a call.
#include "placement/mcm/solver.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cmath>
#include <stdexcept>

#include "placement/classic/random.hpp"
#include "placement/mcm/analytic.hpp"
#include "placement/mcm/gecode_model.hpp"
#include "placement/mcm/search.hpp"

namespace hetsim::placement::mcm {

namespace {

using Gecode::ExecStatus;
using Gecode::Home;
using Gecode::Space;
using Gecode::ViewArray;
using Gecode::Int::IntView;

// Decisions between two copies of a space in the DFS (Search::Options::c_d). A SAMPLE on a
// BERT-large graph takes about a thousand decisions and few backtracks, so copies dominate at
// Gecode's default of 8; larger distances make a backtrack recompute more commits.
constexpr unsigned kCopyDistance = 16;
constexpr unsigned kAdaptiveDistance = 4;

// The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ... (i >= 1): restart limits
// within a constant factor of the best fixed limit for any run-time distribution (Luby, Sinclair
// and Zuckerman 1993).
std::int64_t luby(int i) {
    for (int k = 1;; ++k) {
        if (i == (1 << k) - 1)
            return std::int64_t{1} << (k - 1);
        if (i < (1 << k) - 1)
            return luby(i - (1 << (k - 1)) + 1);
    }
}

// What one attempt does: the node order and how each op's chip is picked.
struct Plan {
    bool fix = false;
    std::vector<int> order;
    const std::vector<double>* weights = nullptr;  // SAMPLE: op x chip, empty = uniform
    const std::vector<int>* candidate = nullptr;   // FIX
    std::mt19937_64* rng = nullptr;
    int chips = 0;
};

// Decides ops in the plan's order. SAMPLE: the next unassigned op, a chip drawn from p_u on its
// domain. FIX: positions 0..N-1 are the first pass of Algorithm 2 (an unassigned op whose
// candidate chip is still in its domain gets it; the others are skipped, which is the "set_domain
// (u, D_u)" no-op), positions N..2N-1 the second (a uniform chip from the domain of every op
// still unassigned). The position only moves past ops that every descendant space would skip
// too (assigned, or candidate chip gone: domains only shrink along a branch), so a space
// recomputed from an older copy makes the same decisions.
class PlanBrancher : public Gecode::Brancher {
public:
    PlanBrancher(Home home, ViewArray<IntView>& x, const Plan& plan)
        : Brancher(home), x_(x), plan_(&plan) {}
    PlanBrancher(Space& home, PlanBrancher& b) : Brancher(home, b), plan_(b.plan_), pos_(b.pos_) {
        x_.update(home, b.x_);
    }
    static void post(Home home, ViewArray<IntView>& x, const Plan& plan) {
        (void)new (home) PlanBrancher(home, x, plan);
    }
    Gecode::Brancher* copy(Space& home) override { return new (home) PlanBrancher(home, *this); }
    std::size_t dispose(Space& home) override {
        (void)Brancher::dispose(home);
        return sizeof(*this);
    }

    bool status(const Space&) const override {
        const int n = x_.size();
        const std::vector<int>& order = plan_->order;
        if (!plan_->fix) {
            while (pos_ < n && x_[order[static_cast<std::size_t>(pos_)]].assigned())
                ++pos_;
            return pos_ < n;
        }
        while (pos_ < n) {
            const int u = order[static_cast<std::size_t>(pos_)];
            if (!x_[u].assigned() && x_[u].in((*plan_->candidate)[static_cast<std::size_t>(u)]))
                return true;
            ++pos_;
        }
        while (pos_ < 2 * n) {
            if (!x_[order[static_cast<std::size_t>(pos_ - n)]].assigned())
                return true;
            ++pos_;
        }
        return false;
    }

    const Gecode::Choice* choice(Space&) override {
        const int n = x_.size();
        const int u = order_at(pos_);
        const IntView x = x_[u];
        int chip = -1;
        if (plan_->fix && pos_ < n) {
            chip = (*plan_->candidate)[static_cast<std::size_t>(u)];
        } else if (!plan_->fix && plan_->weights != nullptr && !plan_->weights->empty()) {
            const double* w = plan_->weights->data() + static_cast<std::size_t>(u) * plan_->chips;
            double total = 0.0;
            for (Gecode::Int::ViewValues<IntView> v(x); v(); ++v)
                total += w[v.val()];
            if (total > 0.0) {
                const double r = uniform_unit(*plan_->rng) * total;
                double at = 0.0;
                for (Gecode::Int::ViewValues<IntView> v(x); v(); ++v) {
                    if (w[v.val()] <= 0.0)
                        continue;
                    chip = v.val();  // the last positive one absorbs rounding
                    at += w[v.val()];
                    if (r < at)
                        break;
                }
            }
        }
        if (chip < 0) {
            std::uint64_t k = uniform_index(*plan_->rng, x.size());
            for (Gecode::Int::ViewRanges<IntView> r(x); r(); ++r) {
                if (k < r.width()) {
                    chip = r.min() + static_cast<int>(k);
                    break;
                }
                k -= r.width();
            }
        }
        return new OpChip(*this, u, chip);
    }

    const Gecode::Choice* choice(const Space&, Gecode::Archive& e) override {
        int op = 0, chip = 0;
        e >> op >> chip;
        return new OpChip(*this, op, chip);
    }

    ExecStatus commit(Space& home, const Gecode::Choice& c, unsigned int alternative) override {
        const auto& oc = static_cast<const OpChip&>(c);
        const Gecode::ModEvent me =
            alternative == 0 ? x_[oc.op].eq(home, oc.chip) : x_[oc.op].nq(home, oc.chip);
        return Gecode::me_failed(me) ? Gecode::ES_FAILED : Gecode::ES_OK;
    }

    void print(const Space&, const Gecode::Choice& c, unsigned int alternative,
               std::ostream& o) const override {
        const auto& oc = static_cast<const OpChip&>(c);
        o << "op " << oc.op << (alternative == 0 ? " = " : " != ") << oc.chip;
    }

private:
    class OpChip : public Gecode::Choice {
    public:
        int op;
        int chip;
        OpChip(const Brancher& b, int op0, int chip0) : Choice(b, 2), op(op0), chip(chip0) {}
        void archive(Gecode::Archive& e) const override {
            Choice::archive(e);
            e << op << chip;
        }
    };

    int order_at(int pos) const {
        const int n = x_.size();
        return plan_->order[static_cast<std::size_t>(pos < n ? pos : pos - n)];
    }

    ViewArray<IntView> x_;
    const Plan* plan_;
    mutable int pos_ = 0;
};

}  // namespace

namespace {

void check_order(const std::vector<int>& order, int ops) {
    if (order.empty())
        return;
    if (static_cast<int>(order.size()) != ops) {
        throw std::invalid_argument(
            fmt::format("node order has {} entries, the graph has {} ops", order.size(), ops));
    }
    std::vector<bool> seen(static_cast<std::size_t>(ops), false);
    for (int op : order) {
        if (op < 0 || op >= ops || seen[static_cast<std::size_t>(op)]) {
            throw std::invalid_argument(fmt::format(
                "node order is not a permutation of the op ids 0..{} (op {})", ops - 1, op));
        }
        seen[static_cast<std::size_t>(op)] = true;
    }
}

}  // namespace

struct PartitionSolver::Impl {
    detail::ModelData data;
    std::unique_ptr<detail::PartitionSpace> root;  // propagated once, cloned per attempt
    bool root_failed = false;
    AnalyticModel model;  // the independent check of every partition returned (debug builds)

    Impl(const McmProblem& problem, const SolverOptions& options) : data(problem), model(problem) {
        root = std::make_unique<detail::PartitionSpace>(data, options.weight_capacity);
        root_failed = root->status() == Gecode::SS_FAILED;
    }

    // Attempts until a partition, a proof that none exists, max_attempts or the deadline.
    std::optional<std::vector<int>> run(Plan& plan, std::mt19937_64& rng,
                                        const std::vector<int>& order, const SolverOptions& options,
                                        SolverStats& stats);
};

PartitionSolver::PartitionSolver(const McmProblem& problem, SolverOptions options)
    : problem_(&problem), options_(options), impl_(std::make_unique<Impl>(problem, options)) {}

PartitionSolver::~PartitionSolver() = default;

std::optional<std::vector<int>> PartitionSolver::sample(const std::vector<double>& p,
                                                        std::mt19937_64& rng,
                                                        const std::vector<int>& order) {
    const std::size_t cells = static_cast<std::size_t>(problem_->op_count()) *
                              static_cast<std::size_t>(problem_->chip_count());
    if (!p.empty() && p.size() != cells) {
        throw std::invalid_argument(fmt::format(
            "SAMPLE: p has {} entries, expected op_count x chip_count = {}", p.size(), cells));
    }
    for (double w : p) {
        if (!(w >= 0.0) || !std::isfinite(w))
            throw std::invalid_argument(fmt::format("SAMPLE: p has weight {}, expected >= 0", w));
    }
    Plan plan;
    plan.weights = &p;
    return impl_->run(plan, rng, order, options_, stats_);
}

std::optional<std::vector<int>> PartitionSolver::fix(const std::vector<int>& candidate,
                                                     std::mt19937_64& rng,
                                                     const std::vector<int>& order) {
    if (static_cast<int>(candidate.size()) != problem_->op_count()) {
        throw std::invalid_argument(
            fmt::format("FIX: candidate has {} entries, the graph has {} ops", candidate.size(),
                        problem_->op_count()));
    }
    for (int c : candidate) {
        if (c < 0 || c >= problem_->chip_count()) {
            throw std::invalid_argument(fmt::format("FIX: candidate chip {}, expected 0..{}", c,
                                                    problem_->chip_count() - 1));
        }
    }
    Plan plan;
    plan.fix = true;
    plan.candidate = &candidate;
    return impl_->run(plan, rng, order, options_, stats_);
}

std::optional<std::vector<int>> PartitionSolver::Impl::run(Plan& plan, std::mt19937_64& rng,
                                                           const std::vector<int>& order,
                                                           const SolverOptions& options,
                                                           SolverStats& stats) {
    const auto started = std::chrono::steady_clock::now();
    const int ops = data.ops;
    check_order(order, ops);
    ++stats.calls;
    plan.rng = &rng;
    plan.chips = data.chips;
    auto finish = [&](std::optional<std::vector<int>> result) {
        stats.seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        if (result) {
            ++stats.solutions;
            assert(model.static_constraints_hold(*result));
            assert(!options.weight_capacity || model.weights_fit(*result));
        }
        return result;
    };
    if (root_failed)
        return finish(std::nullopt);

    for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
        if (options.deadline && std::chrono::steady_clock::now() >= *options.deadline)
            break;
        ++stats.attempts;
        if (!order.empty()) {
            plan.order = order;
        } else {
            // §4.2: "By default, we generate a random order each time."
            plan.order = random_order(ops, rng);
        }
        auto* space = static_cast<detail::PartitionSpace*>(root->clone());
        {
            ViewArray<IntView> views(*space, Gecode::IntVarArgs(space->vars()));
            PlanBrancher::post(*space, views, plan);
        }
        const std::int64_t fail_limit =
            options.fail_limit <= 0 ? 0 : options.fail_limit * luby(attempt + 1);
        detail::DeadlineStop stop(
            fail_limit, options.deadline.has_value(),
            options.deadline.value_or(std::chrono::steady_clock::time_point{}));
        Gecode::Search::Options search;
        search.clone = false;  // the engine owns `space`
        search.c_d = kCopyDistance;
        search.a_d = kAdaptiveDistance;
        search.stop = &stop;
        Gecode::DFS<detail::PartitionSpace> engine(space, search);
        std::unique_ptr<detail::PartitionSpace> solution(engine.next());
        const Gecode::Search::Statistics s = engine.statistics();
        stats.failures += static_cast<std::int64_t>(s.fail);
        stats.nodes += static_cast<std::int64_t>(s.node);
        if (solution)
            return finish(solution->assignment());
        if (!engine.stopped())
            return finish(std::nullopt);  // exhausted: no valid partition exists
        if (stop.deadline_passed())
            break;
        ++stats.restarts;
    }
    return finish(std::nullopt);
}

}  // namespace hetsim::placement::mcm
