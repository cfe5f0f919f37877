#include "tools/app/place.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <ostream>
#include <sstream>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/tarnawski_placer.hpp"
#include "placement/tarnawski/workload/graph_workload.hpp"
#include "placement/tarnawski/workload/workload.hpp"
#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/placement_rules.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/study.hpp"
#include "tools/app/task_graph.hpp"

namespace hetsim::app {

namespace fs = std::filesystem;
namespace tw = placement::tarnawski;

namespace {

tw::SplitObjective parse_objective(const std::string& text) {
    if (text == "throughput")
        return tw::SplitObjective::throughput;
    if (text == "latency")
        return tw::SplitObjective::latency;
    throw sim::InputError("--objective", "", 0,
                          fmt::format("expected 'throughput' or 'latency', got '{}'", text));
}

// Per device: node count and §3 load, plus the objective line. A replicated split (App. C.2)
// is shown with its replica counts and the loads of one replica without the synchronisation
// term: the bandwidths that term needs are arguments of the placer, not of the split.
std::string describe_split(const tw::Workload& w, const tw::Split& split) {
    const tw::LoadReport loads = tw::evaluate_split(w, split);
    const bool replicated = split.replicated();
    auto replicas = [](const std::vector<int>& counts, std::size_t i) {
        return i < counts.size() ? counts[i] : 1;
    };
    std::ostringstream out;
    out << fmt::format("  {:<8} {:>7} {:>14}{}\n", "device", "nodes",
                       replicated ? "unrepl. load" : "load", replicated ? "  replicas" : "");
    auto row = [&](const std::string& name, std::size_t nodes, double load, int r) {
        out << fmt::format("  {:<8} {:>7} {:>14.6g}{}\n", name, nodes, load,
                           replicated ? fmt::format("  {:>8}", r) : "");
    };
    for (std::size_t c = 0; c < split.cpus.size(); ++c)
        row(fmt::format("CPU{}", c), split.cpus[c].size(), loads.cpu_loads.at(c),
            replicas(split.cpu_replicas, c));
    for (std::size_t f = 0; f < split.accelerators.size(); ++f)
        row(fmt::format("ACC{}", f), split.accelerators[f].size(), loads.accelerator_loads.at(f),
            replicas(split.accelerator_replicas, f));
    out << fmt::format("  {} {:.6g}{}{}\n",
                       replicated ? "max load without replication" : "max load (time per sample)",
                       loads.max_load, loads.memory_ok ? "" : "  [over accelerator memory]",
                       loads.colocation_ok ? "" : "  [colour class split]");
    return out.str();
}

}  // namespace

std::string place(const PlaceRequest& request, std::ostream& progress) {
    register_all();
    // An --out that cannot be written is refused before the solver runs, not after it printed.
    if (!request.out.empty()) {
        try {
            (void)sim::output_target(request.out);
        } catch (const std::exception& e) {
            throw sim::InputError("", "--out", 0, sim::write_failure_message(e, request.out));
        }
        const fs::path folder = fs::path(request.out).parent_path();
        if (!folder.empty() && !fs::is_directory(folder)) {
            throw sim::InputError("", "--out", 0,
                                  fmt::format("cannot write '{}': its folder '{}' does not exist",
                                              request.out, folder.string()));
        }
    }
    // A classic task-graph instance ({"processors", "tasks", "edges"}): any placer of the
    // registry, simulated on table processors (tools/app/task_graph.hpp).
    if (is_task_graph_instance(request.workload))
        return place_task_graph(request);
    tw::register_split_solvers();
    std::unique_ptr<tw::SplitSolver> solver;
    try {
        solver = tw::SplitSolverRegistry::instance().create(request.placer);
    } catch (const placement::PlacementError& e) {
        throw sim::InputError("--placer", "", 0, e.what());
    }
    if (request.time_limit_s < 0.0 || request.relative_gap < 0.0) {
        throw sim::InputError("", "", 0, "--time-limit and --gap must be >= 0");
    }
    // Options that this input or solver does not use were silently ignored. (--time-limit is
    // also the default of searches without a `time=` key, tarnawski.latency's among them.)
    if (request.processors > 0 || !request.bandwidth.empty()) {
        throw sim::InputError(request.processors > 0 ? "--processors" : "--bandwidth", "", 0,
                              "applies to a .stg or WfCommons task graph only");
    }
    // The MIP gap is a key of the MIP solvers' specs (ip_latency, ip_throughput).
    const auto solvers = tw::SplitSolverRegistry::instance().all();
    const auto takes_gap = [](const tw::SplitSolverInfo* info) {
        const auto& keys = info->arguments.keys();
        return std::any_of(keys.begin(), keys.end(), [](const auto& k) { return k.name == "gap"; });
    };
    const std::string solver_name = solver->name().substr(0, solver->name().find(':'));
    const auto chosen = std::find_if(solvers.begin(), solvers.end(),
                                     [&](const auto* info) { return info->name() == solver_name; });
    if (request.relative_gap > 0.0 && chosen != solvers.end() && !takes_gap(*chosen)) {
        std::vector<std::string> mips;
        for (const auto* info : solvers) {
            if (takes_gap(info))
                mips.push_back(info->name());
        }
        throw sim::InputError("--gap", "", 0,
                              fmt::format("'{}' has no MIP gap; --gap applies to {}", solver_name,
                                          fmt::join(mips, ", ")));
    }

    const bool is_study = request.workload.ends_with(".yaml") || request.workload.ends_with(".yml");
    tw::GraphWorkload converted;
    std::optional<StudyConfig> study;
    tw::Workload workload;
    std::string source;
    if (is_study) {
        study = load_study(request.workload, request.overrides);
        try {
            converted = tw::workload_from_graph(*study->graph, study->platform);
        } catch (const tw::SolverError& e) {
            throw sim::InputError(request.workload, "", 0, e.what());
        }
        workload = converted.workload;
        source = fmt::format("{} on {}", study->workload_label, study->platform.name);
    } else {
        if (!request.overrides.empty())
            throw sim::InputError("--set", "", 0, "--set applies to a study YAML only");
        try {
            workload = tw::read_workload(request.workload);
        } catch (const tw::WorkloadError& e) {
            // Its message starts with the file already.
            throw sim::InputError("", "", 0, e.what());
        }
        source = request.workload;
    }

    tw::SolveOptions options;
    options.objective = parse_objective(
        !request.objective.empty()
            ? request.objective
            : (study && study->objective == placement::Objective::latency ? "latency"
                                                                          : "throughput"));
    options.time_limit_s = request.time_limit_s;
    options.relative_gap = request.relative_gap;
    options.seed = request.seed;
    options.progress = &progress;

    const auto start = std::chrono::steady_clock::now();
    tw::SolveResult solved;
    try {
        solved = solver->solve(workload, options);
    } catch (const tw::SolverError& e) {
        // Its message starts with the solver's name already.
        throw sim::InputError("", "", 0, e.what());
    }
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    solved.split.objective = solved.objective;

    std::ostringstream out;
    out << fmt::format("workload {}: {} nodes, {} edges, {} accelerators (M = {:.6g} B), {} CPUs\n",
                       source, workload.node_count(), workload.edge_count(),
                       workload.max_accelerators, workload.max_size_per_accelerator,
                       workload.max_cpus);
    out << fmt::format("placer {} (objective {}): {:.6g}   wall {:.3f} s\n", solver->name(),
                       options.objective == tw::SplitObjective::latency ? "latency" : "throughput",
                       solved.objective, wall_s);
    for (const auto& [key, value] : solved.stats)
        out << fmt::format("  {} = {}\n", key, value);
    out << describe_split(workload, solved.split);

    if (study && solved.split.replicated()) {
        // Keep the split (written below): only its simulation is out of reach.
        out << "not simulated: the split replicates a device set (App. C.2), which the simulator "
               "does not model\n";
    } else if (study) {
        // Simulate the split on the study's platform with its evaluator.
        const sim::Placement placement =
            tw::placement_from_assignment(converted, tw::to_assignment(workload, solved.split));
        // The platform's placement rules (sim/placement_rules.hpp), as `hetsim run` applies
        // them: a split that breaks one is kept (written below) but not simulated.
        const std::string invalid =
            sim::placement_violation(*study->graph, study->platform, placement);
        if (!invalid.empty()) {
            out << "not simulated: the split breaks the platform's placement rule " << invalid
                << "\n";
        } else {
            sim::EvalOptions eval;
            eval.samples = study->samples;
            auto evaluator = sim::make_evaluator(study->evaluator, study->platform, eval);
            const sim::Metrics m =
                evaluator->evaluate(sim::lower(*study->graph, placement, study->platform));
            out << fmt::format("simulated ({}): latency {}, throughput {:.6g}/s\n",
                               study->evaluator, human_time(m.latency_s), m.throughput_per_s);
        }
    }
    if (!request.out.empty()) {
        tw::write_split(solved.split, request.out);
        out << fmt::format("split written to {}\n", request.out);
    }
    return out.str();
}

}  // namespace hetsim::app
