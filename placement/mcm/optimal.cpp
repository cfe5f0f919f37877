// mcm.optimal's exact search (optimal.hpp): Gecode's branch-and-bound engine over the model of
// gecode_model.hpp (Eq. 2-4 and the chips' weight capacity) with the §5.1 analytical time per
// sample as the objective.
//
// The objective is a double in seconds, kept out of integer variables: the space carries the
// time to beat (ub, the best exact time found so far) and the CostBound propagator below
// bounds every chip's load from below given the partial assignment; it fails a node whose bound
// reaches ub and removes the chips an op cannot join without reaching it. A solution is accepted
// only after its exact re-evaluation with AnalyticModel::time_per_sample_s; constrain() then
// lowers ub to that exact value and wakes CostBound through a dedicated variable (`epoch`)
// whose lower bound it raises, since a change of a plain member would not schedule a propagator.
// The bounds are sums of doubles in another order than AnalyticModel's, so a node is pruned only
// when its bound exceeds ub by a relative margin far above their rounding error (kMargin): a
// partition strictly better than ub is never pruned, hence the search is exact.
#include "placement/mcm/optimal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/constraints.hpp"
#include "placement/mcm/gecode_model.hpp"

namespace hetsim::placement::mcm {

namespace {

using Gecode::ExecStatus;
using Gecode::Home;
using Gecode::ModEventDelta;
using Gecode::Propagator;
using Gecode::PropCost;
using Gecode::Space;
using Gecode::ViewArray;
using Gecode::Int::IntView;

// Relative margin between a lower bound and the time to beat before a node is pruned. The
// bounds and AnalyticModel each add at most a few thousand positive doubles (relative error
// below 1e-12); 1e-10 leaves two orders of magnitude.
constexpr double kMargin = 1e-10;

// The analytical model's terms, flat (see analytic.hpp).
struct CostData {
    int ops = 0;
    int chips = 0;
    std::vector<double> op_time_s;  // [op * chips + chip]
    struct FlowTerm {
        int producer = -1;  // -1: graph input, enters at chip 0
        int consumer_begin = 0, consumer_end = 0;
        bool graph_output = false;
        double bytes = 0.0;
        std::int64_t int_bytes = 0;
    };
    std::vector<FlowTerm> flows;
    std::vector<int> consumers;
    std::vector<int> output_flow_begin, output_flows;   // graph outputs each op produces
    std::vector<double> hop_latency_s, hop_s_per_byte;  // link c -> c + 1
    std::vector<RouteCost> host_out;
    double host_in_s = 0.0;

    explicit CostData(const McmProblem& problem)
        : ops(problem.op_count()), chips(problem.chip_count()) {
        op_time_s.resize(static_cast<std::size_t>(ops) * static_cast<std::size_t>(chips));
        for (int op = 0; op < ops; ++op) {
            for (int c = 0; c < chips; ++c)
                op_time_s[static_cast<std::size_t>(op) * chips + c] = problem.op_time_s(op, c);
        }
        std::vector<int> outputs_of(static_cast<std::size_t>(ops) + 1, 0);
        for (const Flow& flow : problem.flows()) {
            FlowTerm term;
            term.producer = flow.producer;
            term.consumer_begin = static_cast<int>(consumers.size());
            consumers.insert(consumers.end(), flow.consumers.begin(), flow.consumers.end());
            term.consumer_end = static_cast<int>(consumers.size());
            term.graph_output = flow.graph_output && flow.producer >= 0;
            term.bytes = static_cast<double>(flow.bytes);
            term.int_bytes = flow.bytes;
            if (term.graph_output)
                ++outputs_of[static_cast<std::size_t>(flow.producer) + 1];
            if (flow.producer < 0 && !flow.consumers.empty())
                host_in_s += problem.host_in().time_s(flow.bytes);
            flows.push_back(term);
        }
        for (int op = 0; op < ops; ++op)
            outputs_of[static_cast<std::size_t>(op) + 1] +=
                outputs_of[static_cast<std::size_t>(op)];
        output_flow_begin = outputs_of;
        output_flows.resize(static_cast<std::size_t>(outputs_of.back()));
        std::vector<int> at(outputs_of.begin(), outputs_of.end() - 1);
        for (std::size_t f = 0; f < flows.size(); ++f) {
            if (flows[f].graph_output) {
                const auto p = static_cast<std::size_t>(flows[f].producer);
                output_flows[static_cast<std::size_t>(at[p]++)] = static_cast<int>(f);
            }
        }
        for (int c = 0; c + 1 < chips; ++c) {
            hop_latency_s.push_back(problem.ring_hop(c).latency_s);
            hop_s_per_byte.push_back(problem.ring_hop(c).seconds_per_byte);
        }
        for (int c = 0; c < chips; ++c)
            host_out.push_back(problem.host_out(c));
    }
    double time_s(int op, int chip) const {
        return op_time_s[static_cast<std::size_t>(op) * chips + chip];
    }
    // Seconds op `op`'s graph outputs take to the host from `chip`.
    double output_s(int op, int chip) const {
        double s = 0.0;
        for (int k = output_flow_begin[static_cast<std::size_t>(op)];
             k < output_flow_begin[static_cast<std::size_t>(op) + 1]; ++k) {
            s += host_out[static_cast<std::size_t>(chip)].time_s(
                flows[static_cast<std::size_t>(output_flows[static_cast<std::size_t>(k)])]
                    .int_bytes);
        }
        return s;
    }
};

class OptimalSpace;

// ============================================================================================
// Lower bound of the time per sample (§5.1) given a partial assignment, against ub:
//   compute_c  >= Σ times of the ops assigned to c
//   host_out_c >= Σ graph outputs of ops assigned to c, from c
//   ring_c     >= Σ tensors certain to cross link c: a tensor whose producer can be no higher
//                 than a_hi = max dom(producer) (0 for a graph input) and one of whose consumers
//                 no lower than b_lo = max over consumers of min dom crosses every link
//                 a_hi <= c < b_lo in every completion (it crosses [a, b) with a <= a_hi and
//                 b >= b_lo)
// Every term only grows in a completion, so LB = max(host_in, max_c load_c) is a lower bound of
// the time of every completion. Rules (each removes only completions whose time is >= ub, and
// the search looks for times < ub):
//  (a) LB >= ub -> fail;
//  (b) chip c for unassigned op u: load_c + t_c(u) + u's outputs from c >= ub -> remove c;
//  (c) the unassigned ops add at least Σ_u min_{c in dom u} t_c(u) of compute to chips no higher
//      than the highest chip any domain has, and an improving completion leaves each such chip
//      below ub: if that sum >= Σ_c (ub - load_c)^+ over those chips -> fail.
// "x >= ub" is tested as x >= ub (1 + kMargin) (see the file comment).
// ============================================================================================
class CostBound : public Propagator {
public:
    CostBound(Home home, ViewArray<IntView>& x, IntView epoch, const CostData& d);
    CostBound(Space& home, CostBound& p) : Propagator(home, p), d_(p.d_) {
        x_.update(home, p.x_);
        epoch_.update(home, p.epoch_);
        scratch_ = home.alloc<double>(scratch_size());
    }
    Propagator* copy(Space& home) override { return new (home) CostBound(home, *this); }
    PropCost cost(const Space&, const ModEventDelta&) const override {
        return PropCost::linear(PropCost::HI, x_.size());
    }
    void reschedule(Space& home) override {
        x_.reschedule(home, *this, Gecode::Int::PC_INT_BND);
        epoch_.reschedule(home, *this, Gecode::Int::PC_INT_BND);
    }
    std::size_t dispose(Space& home) override {
        x_.cancel(home, *this, Gecode::Int::PC_INT_BND);
        epoch_.cancel(home, *this, Gecode::Int::PC_INT_BND);
        (void)Propagator::dispose(home);
        return sizeof(*this);
    }
    ExecStatus propagate(Space& home, const ModEventDelta&) override;

private:
    std::size_t scratch_size() const { return 3 * static_cast<std::size_t>(d_->chips) + 1; }

    ViewArray<IntView> x_;
    IntView epoch_;
    const CostData* d_;
    double* scratch_ = nullptr;  // load, link bytes, link count (chips + 1)
};

class OptimalSpace : public detail::PartitionSpace {
public:
    OptimalSpace(const detail::ModelData& data, const CostData& cost, AnalyticModel& model,
                 const std::vector<int>& branch_order, double ub_s)
        : PartitionSpace(data, true),
          epoch_(*this, 0, Gecode::Int::Limits::max),
          cost_(&cost),
          model_(&model),
          ub_s_(ub_s) {
        if (failed())
            return;
        ViewArray<IntView> views(*this, Gecode::IntVarArgs(x_));
        (void)new (*this) CostBound(*this, views, IntView(epoch_), cost);
        // Ops in topological order, lowest chip first: the partition grows chip by chip, and
        // CostBound's rule (b) closes a chip once it is as loaded as the best time so far.
        Gecode::IntVarArgs ordered;
        for (int op : branch_order)
            ordered << x_[op];
        Gecode::branch(*this, ordered, Gecode::INT_VAR_NONE(), Gecode::INT_VAL_MIN());
    }
    OptimalSpace(OptimalSpace& other)
        : PartitionSpace(other), cost_(other.cost_), model_(other.model_), ub_s_(other.ub_s_) {
        epoch_.update(*this, other.epoch_);
    }
    Space* copy() override { return new OptimalSpace(*this); }

    // The BAB engine's "be better than `best`": ub = min(ub, exact time of best), and a change of
    // epoch to wake CostBound.
    void constrain(const Space& best) override {
        const auto& b = static_cast<const OptimalSpace&>(best);
        ub_s_ = std::min(ub_s_, b.exact_time_s());
        Gecode::rel(*this, epoch_, Gecode::IRT_GQ, epoch_.min() + 1);
    }

    double ub_s() const { return ub_s_; }
    double exact_time_s() const {
        if (exact_s_ < 0.0)
            exact_s_ = model_->time_per_sample_s(assignment());
        return exact_s_;
    }

private:
    Gecode::IntVar epoch_;
    const CostData* cost_;
    AnalyticModel* model_;  // not thread-safe: the engine runs single-threaded
    double ub_s_;
    mutable double exact_s_ = -1.0;
};

CostBound::CostBound(Home home, ViewArray<IntView>& x, IntView epoch, const CostData& d)
    : Propagator(home), x_(x), epoch_(epoch), d_(&d) {
    scratch_ = static_cast<Space&>(home).alloc<double>(scratch_size());
    x_.subscribe(home, *this, Gecode::Int::PC_INT_BND);
    epoch_.subscribe(home, *this, Gecode::Int::PC_INT_BND);
}

ExecStatus CostBound::propagate(Space& home, const ModEventDelta&) {
    const CostData& d = *d_;
    const int chips = d.chips;
    const double limit = static_cast<const OptimalSpace&>(home).ub_s() * (1.0 + kMargin);
    if (d.host_in_s >= limit)
        return Gecode::ES_FAILED;
    double* load = scratch_;
    double* link_bytes = load + chips;
    double* link_count = link_bytes + chips;  // chips + 1 entries
    std::fill(scratch_, scratch_ + scratch_size(), 0.0);
    int highest = 0;  // the highest chip any domain has
    for (int op = 0; op < d.ops; ++op) {
        const IntView v = x_[op];
        highest = std::max(highest, v.max());
        if (v.assigned())
            load[v.val()] += d.time_s(op, v.val()) + d.output_s(op, v.val());
    }
    for (const CostData::FlowTerm& f : d.flows) {
        const int a_hi = f.producer < 0 ? 0 : x_[f.producer].max();
        int b_lo = -1;
        for (int k = f.consumer_begin; k < f.consumer_end; ++k)
            b_lo = std::max(b_lo, x_[d.consumers[static_cast<std::size_t>(k)]].min());
        if (a_hi < b_lo) {
            link_bytes[a_hi] += f.bytes;
            link_count[a_hi] += 1.0;
            link_bytes[b_lo] -= f.bytes;  // b_lo <= chips - 1
            link_count[b_lo] -= 1.0;
        }
    }
    double bytes = 0.0, count = 0.0;
    for (int c = 0; c + 1 < chips; ++c) {
        bytes += link_bytes[c];
        count += link_count[c];
        load[c] += count * d.hop_latency_s[static_cast<std::size_t>(c)] +
                   bytes * d.hop_s_per_byte[static_cast<std::size_t>(c)];
    }
    double room = 0.0;  // (c)
    for (int c = 0; c < chips; ++c) {
        if (load[c] >= limit)
            return Gecode::ES_FAILED;  // (a)
        if (c <= highest)
            room += limit - load[c];
    }
    double needed = 0.0;
    bool pruned = false;
    for (int op = 0; op < d.ops; ++op) {
        const IntView v = x_[op];
        if (v.assigned())
            continue;
        double least = std::numeric_limits<double>::infinity();
        for (Gecode::Int::ViewValues<IntView> c(v); c(); ++c)
            least = std::min(least, d.time_s(op, c.val()));
        needed += least;
        // (b): the chips op cannot join; collected first, the view's values are being iterated.
        int drop[64];
        int drops = 0;
        for (Gecode::Int::ViewValues<IntView> c(v); c(); ++c) {
            if (load[c.val()] + d.time_s(op, c.val()) + d.output_s(op, c.val()) >= limit) {
                if (drops == 64)
                    break;
                drop[drops++] = c.val();
            }
        }
        for (int i = 0; i < drops; ++i) {
            GECODE_ME_CHECK(x_[op].nq(home, drop[i]));
            pruned = true;
        }
    }
    if (needed >= room)
        return Gecode::ES_FAILED;  // (c)
    return pruned ? Gecode::ES_NOFIX : Gecode::ES_FIX;
}

bool valid_partition(AnalyticModel& model, const std::vector<int>& f) {
    return model.static_constraints_hold(f) && model.weights_fit(f);
}

}  // namespace

OptimalResult solve_optimal(const McmProblem& problem, const OptimalOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    OptimalResult result;
    AnalyticModel model(problem);
    double ub = std::numeric_limits<double>::infinity();
    if (!options.incumbent.empty()) {
        const auto& f = options.incumbent;
        if (static_cast<int>(f.size()) != problem.op_count()) {
            throw std::invalid_argument(
                fmt::format("solve_optimal: incumbent has {} entries, the graph has {} ops",
                            f.size(), problem.op_count()));
        }
        for (int c : f) {
            if (c < 0 || c >= problem.chip_count()) {
                throw std::invalid_argument(
                    fmt::format("solve_optimal: incumbent chip {}, expected 0..{}", c,
                                problem.chip_count() - 1));
            }
        }
        if (!valid_partition(model, f)) {
            const auto violations =
                check_static_constraints(problem.graph(), f, problem.chip_count());
            throw std::invalid_argument(
                fmt::format("solve_optimal: the incumbent is not a valid partition ({})",
                            violations.empty() ? std::string("its weights exceed a chip's SRAM")
                                               : violations.front().message));
        }
        result.found = true;
        result.chip_of_op = f;
        result.time_per_sample_s = model.time_per_sample_s(f);
        ub = result.time_per_sample_s;
    }
    auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    auto meets_bound = [&] {
        return result.found && options.lower_bound_s > 0.0 &&
               result.time_per_sample_s <= options.lower_bound_s * (1.0 + options.relative_gap);
    };
    if (meets_bound()) {
        result.proven = true;
        result.seconds = seconds();
        return result;
    }

    const detail::ModelData data(problem);
    const CostData cost(problem);
    auto* root = new OptimalSpace(data, cost, model, problem.graph().topo_order(), ub);
    detail::DeadlineStop::Progress progress;
    if (options.on_progress)
        progress = [&](const Gecode::Search::Statistics& s) {
            options.on_progress(static_cast<std::int64_t>(s.node),
                                result.found ? result.time_per_sample_s : 0.0);
        };
    detail::DeadlineStop stop(0, options.deadline.has_value(),
                              options.deadline.value_or(std::chrono::steady_clock::time_point{}),
                              options.node_limit, std::move(progress));
    Gecode::Search::Options search;
    search.clone = false;
    search.stop = &stop;
    Gecode::BAB<OptimalSpace> engine(root, search);
    bool stopped_early = false;
    while (OptimalSpace* s = engine.next()) {
        std::unique_ptr<OptimalSpace> solution(s);
        const double t = solution->exact_time_s();
        if (!result.found || t < result.time_per_sample_s) {
            result.found = true;
            result.time_per_sample_s = t;
            result.chip_of_op = solution->assignment();
        }
        if (meets_bound()) {
            stopped_early = true;
            break;
        }
    }
    result.proven = stopped_early || !engine.stopped();
    result.node_limit_hit = !result.proven && stop.node_limit_reached();
    const Gecode::Search::Statistics s = engine.statistics();
    result.nodes = static_cast<std::int64_t>(s.node);
    result.failures = static_cast<std::int64_t>(s.fail);
    result.seconds = seconds();
    return result;
}

}  // namespace hetsim::placement::mcm
