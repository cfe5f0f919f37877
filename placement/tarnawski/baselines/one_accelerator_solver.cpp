// `one_accelerator`: the best split we find that uses at most one accelerator (plus the CPUs).
// It answers "what does splitting across several accelerators buy?" (§4: model parallelism
// helps when the model does not fit one accelerator or has parallel branches).
//  * throughput: the exact max-load DP (§5.1.1) on the instance with k = 1, i.e. the optimal
//    contiguous split over one accelerator and the ℓ CPUs (tarnawski.latency's search with
//    k = 1 when the DP refuses the graph);
//  * latency: tarnawski.latency's search (latency_solvers.hpp) with k = 1: greedy and
//    sequential-DP seeds, max-load DP seeds with k = 1, and block-move search. When M is below
//    the model size (as in Table 4's workloads) the rest must run on the CPUs.
// Arguments: rounds=N (search rounds, default 100).
#include <cmath>

#include <fmt/format.h>

#include "placement/tarnawski/baselines/baseline_solvers.hpp"
#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/latency/latency_search.hpp"
#include "placement/tarnawski/latency/latency_solvers.hpp"

namespace hetsim::placement::tarnawski {

namespace {

class OneAcceleratorSolver final : public SplitSolver {
public:
    OneAcceleratorSolver(std::string spec, std::uint64_t rounds)
        : spec_(std::move(spec)), rounds_(rounds) {}
    std::string name() const override { return spec_; }

protected:
    SolveResult solve_placeable(const Workload& w, const SolveOptions& options) const override {
        if (options.objective == SplitObjective::throughput) {
            Workload one = w;
            one.max_accelerators = std::min(1, w.max_accelerators);
            try {
                const DpResult r = solve_max_load(one);
                SolveResult out;
                if (!std::isfinite(r.objective)) {
                    // With k = 1 the DP is exact: nothing fits one accelerator's memory and
                    // there is no CPU. An empty split, which SplitSolver::solve reports.
                    out.split.cpus.assign(static_cast<std::size_t>(w.max_cpus), {});
                    out.split.accelerators.assign(static_cast<std::size_t>(w.max_accelerators), {});
                    out.objective = r.objective;
                    out.split.objective = r.objective;
                    out.stats["method"] = "max_load_dp";
                    return out;
                }
                const Assignment a = to_assignment(one, r.split);
                out.objective = split_objective(w, a, options.objective);
                out.split = to_split(w, a, out.objective);
                out.stats["method"] = "max_load_dp";
                out.stats["ideals"] = std::to_string(r.stats.ideals);
                return out;
            } catch (const DpError&) {
                // fall through to the search
            }
        }
        LatencyPlacerParams p;
        p.accelerators = 1;
        p.rounds = rounds_;
        p.name = spec_;
        SolveResult out = place_for_latency(w, options, p);
        out.stats["method"] = "search";
        return out;
    }

private:
    std::string spec_;
    std::uint64_t rounds_;
};

}  // namespace

std::unique_ptr<SplitSolver> make_one_accelerator_solver(const std::string& spec,
                                                         const PlacerArguments& arguments) {
    return std::make_unique<OneAcceleratorSolver>(
        spec, static_cast<std::uint64_t>(arguments.integer("rounds")));
}

}  // namespace hetsim::placement::tarnawski
