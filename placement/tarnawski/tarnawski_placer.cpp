#include "placement/tarnawski/tarnawski_placer.hpp"

#include <fmt/format.h>

#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/workload/graph_workload.hpp"

namespace hetsim::placement::tarnawski {

namespace {

class SplitSolverPlacer final : public Placer {
public:
    explicit SplitSolverPlacer(std::unique_ptr<SplitSolver> solver) : solver_(std::move(solver)) {}
    std::string name() const override { return solver_->name(); }

    PlacementResult place(const PlacementContext& context) override {
        try {
            const GraphWorkload gw = workload_from_graph(context.graph, context.platform);
            SolveOptions options;
            options.objective = context.objective == Objective::latency
                                    ? SplitObjective::latency
                                    : SplitObjective::throughput;
            options.seed = context.seed;
            SolveResult solved = solver_->solve(gw.workload, options);
            if (solved.split.replicated()) {
                // The DES runs one copy of each device's ops; data-parallel replicas of a set
                // (App. C.2) would need the batch split across devices, which it does not model.
                throw PlacementError(fmt::format(
                    "{}: the split replicates a device set (App. C.2), which the simulator does "
                    "not model; use replication on tarnawski JSON workloads with `hetsim place`",
                    solver_->name()));
            }
            PlacementResult result;
            result.placement =
                placement_from_assignment(gw, to_assignment(gw.workload, solved.split));
            result.stats = std::move(solved.stats);
            result.stats["predicted_objective"] = fmt::format("{:.9g}", solved.objective);
            result.stats["cpus"] = std::to_string(gw.workload.max_cpus);
            result.stats["accelerators"] = std::to_string(gw.workload.max_accelerators);
            return result;
        } catch (const WorkloadError& e) {
            throw PlacementError(fmt::format("{}: {}", solver_->name(), e.what()));
        }
    }

private:
    std::unique_ptr<SplitSolver> solver_;
};

}  // namespace

void add_split_solver_placers(PlacerRegistry& registry) {
    register_split_solvers();
    for (const SplitSolverInfo* info : SplitSolverRegistry::instance().all()) {
        const std::string name = info->name();
        registry.add(PlacerInfo{
            name, info->arguments.usage(), info->description + " [tarnawski2020 split solver]",
            [name](const std::string& arguments) -> std::unique_ptr<Placer> {
                return std::make_unique<SplitSolverPlacer>(
                    SplitSolverRegistry::instance().create(join_placer_spec(name, arguments)));
            },
            info->arguments.key_help()});
    }
}

}  // namespace hetsim::placement::tarnawski
