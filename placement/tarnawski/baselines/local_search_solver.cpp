// `local_search`: steepest-descent single-block moves with restarts, for either objective.
//
// The paper's throughput baseline (§6, after [MKA07]) moves single nodes; a node of a colour
// class cannot move alone (App. B), so a move here puts one colour class (a node without a
// class is its own) on another device: CPU 0 or an accelerator for the §4 latency, where all
// CPU cores are one pool, and any CPU or accelerator for the max-load. Each descent takes the
// best improving move of the whole neighbourhood until none improves. Moves must keep the
// split feasible (memory M, support, colour classes; for latency no deadlock). §7 remarks
// that it is not clear how to design a local search that satisfies the memory bounds; we
// start only from feasible splits and stay feasible:
//   start 0: the §7 greedy;  start 1: everything on the CPU (if ℓ > 0);
//   start 2, 3, ...: for the max-load, a uniformly random split as §6 describes (each block on
//   a device drawn uniformly among those it fits on, memory counted as blocks are placed); for
//   the latency, where a random split is mostly deadlocked or dominated by transfers, the
//   greedy fill of a random topological order with each accelerator capped at a random
//   fraction (30-100 %) of M. Both from SolveOptions::seed.
// Splits need not be contiguous (the §4 latency runs non-contiguous contents as pieces,
// §4.1); contiguous=1 restricts the search to contiguous accelerator sets.
// Arguments: restarts=N (starts, default 10 as in §6), steps=N (improving moves per descent,
// default unbounded), contiguous=0|1 (default 0). Stops at SolveOptions::time_limit_s.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "placement/tarnawski/baselines/baseline_solvers.hpp"
#include "placement/tarnawski/latency/latency_search.hpp"

namespace hetsim::placement::tarnawski {

namespace {

// A uniformly random feasible split of `blocks` (the §6 starting point): blocks in random
// order, each on a device drawn among the CPUs and the accelerators with room for it.
std::vector<int> random_split(const Workload& w, const Blocks& blocks, std::mt19937_64& rng) {
    std::vector<int> order(static_cast<std::size_t>(blocks.count()));
    for (int b = 0; b < blocks.count(); ++b)
        order[static_cast<std::size_t>(b)] = b;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<double> used(static_cast<std::size_t>(w.max_accelerators), 0.0);
    std::vector<int> dev(w.node_count(), cpu_device(w, 0));
    std::vector<int> candidates;
    for (int b : order) {
        candidates.clear();
        for (int c = 0; c < w.max_cpus; ++c)
            candidates.push_back(cpu_device(w, c));
        for (int a = 0; a < w.max_accelerators; ++a)
            if (blocks.accelerator_ok[b] &&
                used[static_cast<std::size_t>(a)] + blocks.bytes[b] <= w.max_size_per_accelerator)
                candidates.push_back(accelerator_device(w, a));
        if (candidates.empty())  // ℓ = 0 and nothing fits: infeasible whatever we pick
            candidates.push_back(accelerator_device(w, 0));
        std::uniform_int_distribution<std::size_t> pick(0, candidates.size() - 1);
        const int d = candidates[pick(rng)];
        if (is_accelerator_device(w, d))
            used[static_cast<std::size_t>(d - accelerator_device(w, 0))] += blocks.bytes[b];
        for (int v : blocks.nodes[b])
            dev[static_cast<std::size_t>(v)] = d;
    }
    return dev;
}

class LocalSearchSolver final : public SplitSolver {
public:
    LocalSearchSolver(std::string spec, std::uint64_t restarts, std::uint64_t steps,
                      bool contiguous, std::optional<double> time_limit_s)
        : spec_(std::move(spec)),
          restarts_(restarts),
          steps_(steps),
          contiguous_(contiguous),
          time_limit_s_(time_limit_s) {}
    std::string name() const override { return spec_; }

protected:
    SolveResult solve_placeable(const Workload& w, const SolveOptions& options) const override {
        const double limit_s = time_limit_s_                ? *time_limit_s_
                               : options.time_limit_s > 0.0 ? options.time_limit_s
                                                            : kDefaultSearchTimeLimit_s;
        const auto deadline = deadline_after(limit_s);
        const Blocks moves = make_blocks(w, false);
        const Blocks starts = make_blocks(w, true);
        SplitScorer scorer(w, options.objective, contiguous_);
        BlockDescent descent(w, moves, scorer);
        std::mt19937_64 rng(options.seed);
        std::uniform_real_distribution<double> fraction(0.3, 1.0);

        std::vector<int> best;
        double best_score = kLatencyInfinity;
        std::uint64_t done = 0, best_start = 0;
        const auto started = Clock::now();
        // Restarts done, the best score so far (the descent's current one when lower).
        auto report = [&](double current) {
            options.report({static_cast<long>(done), static_cast<long>(restarts_), "restarts",
                            score_text(std::min(best_score, current)),
                            time_fraction(started, deadline)});
        };
        for (std::uint64_t r = 0; r < restarts_; ++r) {
            if (r > 0 && past(deadline))
                break;
            std::vector<int> dev;
            if (r == 0) {
                dev = latency_greedy(w).device_of_node;
            } else if (r == 1 && w.max_cpus > 0) {
                dev.assign(w.node_count(), cpu_device(w, 0));
            } else if (options.objective == SplitObjective::throughput && !contiguous_) {
                dev = random_split(w, moves, rng);
            } else {
                std::vector<double> cap(static_cast<std::size_t>(w.max_accelerators));
                for (double& c : cap)
                    c = fraction(rng);
                dev = greedy_fill(w, starts, block_order(starts, BlockOrder::random, &rng), -1, cap)
                          .device_of_node;
            }
            if (options.objective == SplitObjective::latency)
                pool_cpus(w, dev);
            DescentOptions d;
            d.steepest = true;
            d.max_steps = steps_;
            d.deadline = deadline;
            if (options.report)
                d.on_progress = report;
            const double s = descent.descend(dev, d, rng);
            ++done;
            if (options.progress != nullptr)
                *options.progress << fmt::format("{}: start {} -> {:.6g}\n", spec_, r, s);
            if (best.empty() || s < best_score) {
                best = dev;
                best_score = s;
                best_start = r;
            }
            if (options.report)
                report(s);
        }
        SolveResult out;
        const Assignment a{best};
        out.objective = split_objective(w, a, options.objective);
        out.split = to_split(w, a, out.objective);
        out.stats["restarts"] = std::to_string(done);
        out.stats["best_start"] = std::to_string(best_start);
        out.stats["evaluations"] = std::to_string(scorer.evaluations());
        out.stats["moves"] = std::to_string(descent.moves());
        out.stats["blocks"] = std::to_string(moves.count());
        return out;
    }

private:
    std::string spec_;
    std::uint64_t restarts_, steps_;
    bool contiguous_;
    std::optional<double> time_limit_s_;
};

}  // namespace

std::unique_ptr<SplitSolver> make_local_search_solver(const std::string& spec,
                                                      const PlacerArguments& arguments) {
    std::optional<double> time_limit_s;
    if (arguments.has("time"))
        time_limit_s = arguments.number("time");
    return std::make_unique<LocalSearchSolver>(
        spec, static_cast<std::uint64_t>(arguments.integer("restarts")),
        arguments.has("steps") ? static_cast<std::uint64_t>(arguments.integer("steps"))
                               : UINT64_MAX,
        arguments.boolean("contiguous"), time_limit_s);
}

}  // namespace hetsim::placement::tarnawski
