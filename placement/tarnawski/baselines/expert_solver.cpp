// `expert:<path>`: a fixed split read from a JSON file in the experts/ format
// ({"cpus":[{"nodes":[...]}], "fpgas":[{"nodes":[...]}]}), e.g. the human-expert splits of
// tarnawski2020 §6/§7, reported under the requested objective (§4 latency or §3 max-load).
// The split is returned unchanged (an infeasible one has objective ∞; stats say why).
#include <fmt/format.h>

#include "placement/tarnawski/baselines/baseline_solvers.hpp"
#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/latency/latency_search.hpp"

namespace hetsim::placement::tarnawski {

namespace {

class ExpertSolver final : public SplitSolver {
public:
    explicit ExpertSolver(std::string path) : path_(std::move(path)) {}
    std::string name() const override { return "tarnawski.expert:" + path_; }

protected:
    SolveResult solve_placeable(const Workload& w, const SolveOptions& options) const override {
        Split split;
        Assignment a;
        try {
            split = read_split(path_);
            a = to_assignment(w, split);
        } catch (const WorkloadError& e) {
            throw SolverError(fmt::format("tarnawski.expert: {}", e.what()));
        }
        SolveResult out;
        out.objective = split_objective(w, a, options.objective);
        out.split = to_split(w, a, out.objective);
        const LatencyReport lat = evaluate_latency(w, a);
        const LoadReport load = evaluate_assignment(w, a);
        out.stats["latency"] = fmt::format("{:.9g}", lat.latency);
        out.stats["max_load"] = fmt::format("{:.9g}", load.max_load);
        out.stats["memory_ok"] = lat.memory_ok ? "1" : "0";
        out.stats["supported_ok"] = lat.supported_ok ? "1" : "0";
        out.stats["colocation_ok"] = load.colocation_ok ? "1" : "0";
        out.stats["contiguous"] = lat.contiguous ? "1" : "0";
        double worst = 0.0;
        for (double b : lat.accelerator_bytes)
            worst = std::max(worst, b);
        out.stats["max_accelerator_bytes"] = fmt::format("{:.0f}", worst);
        return out;
    }

private:
    std::string path_;
};

}  // namespace

std::unique_ptr<SplitSolver> make_expert_solver(const std::string&,
                                                const PlacerArguments& arguments) {
    return std::make_unique<ExpertSolver>(arguments.text("file"));
}

}  // namespace hetsim::placement::tarnawski
