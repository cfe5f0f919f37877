#include "placement/tarnawski/split_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hetsim::placement::tarnawski {

SolveResult SplitSolver::solve(const Workload& w, const SolveOptions& options) const {
    if (const auto defect = find_unplaceable(w))
        throw SolverError(fmt::format("{}: workload {}: {}", name(), defect->where, defect->what));
    SolveResult result = solve_placeable(w, options);
    if (std::isfinite(result.objective))
        return result;
    std::vector<std::uint8_t> placed(w.node_count(), 0);
    std::size_t placed_count = 0;
    for (const auto* devices : {&result.split.cpus, &result.split.accelerators})
        for (const auto& ids : *devices)
            for (std::int64_t id : ids)
                if (auto it = w.index.find(id); it != w.index.end() && !placed[it->second]) {
                    placed[it->second] = 1;
                    ++placed_count;
                }
    if (placed_count == w.node_count())
        return result;  // a split over a constraint, scored ∞: the caller sees which
    // No split at all. With a CPU the all-CPU split is feasible (§3 gives CPUs no memory limit),
    // so this is the accelerators' memory (constraint (3)) binding with no CPU.
    if (w.max_cpus > 0)
        throw SolverError(fmt::format("{}: no feasible split found", name()));
    double bytes = 0.0;
    for (double b : w.size)
        bytes += b;
    throw SolverError(fmt::format(
        "{}: no feasible split found: without a CPU (maxCPUs 0) the nodes ({} B in all) must fit "
        "the accelerators (maxFPGAs {}, maxSizePerFPGA {} B each); expected a CPU, more "
        "accelerators or more memory",
        name(), bytes, w.max_accelerators, w.max_size_per_accelerator));
}

SplitSolverRegistry& SplitSolverRegistry::instance() {
    static SplitSolverRegistry registry;
    return registry;
}

void SplitSolverRegistry::add(SplitSolverInfo info) {
    const std::string name = info.name();
    solvers_.insert_or_assign(name, std::move(info));
}

bool SplitSolverRegistry::has(const std::string& name) const {
    return solvers_.count(name) != 0;
}

std::unique_ptr<SplitSolver> SplitSolverRegistry::create(const std::string& spec) const {
    PlacerSpec parts = split_placer_spec(spec);
    for (const auto& [name, info] : solvers_) {
        const auto& old = info.deprecated_names;
        if (std::find(old.begin(), old.end(), parts.name) != old.end()) {
            warn_deprecated_placer_name(parts.name, name);
            parts.name = name;
            break;
        }
    }
    auto it = solvers_.find(parts.name);
    if (it == solvers_.end()) {
        std::vector<std::string> names;
        for (const auto& [n, info] : solvers_)
            names.push_back(n);
        throw PlacementError(unknown_placer_message(parts.name, names));
    }
    const SplitSolverInfo& info = it->second;
    return info.factory(join_placer_spec(parts.name, parts.arguments),
                        info.arguments.parse(parts.arguments));
}

std::vector<const SplitSolverInfo*> SplitSolverRegistry::all() const {
    std::vector<const SplitSolverInfo*> out;
    for (const auto& [name, info] : solvers_)
        out.push_back(&info);
    return out;
}

Assignment to_assignment(const Workload& w, const Split& split) {
    if (split.cpus.size() > static_cast<std::size_t>(w.max_cpus) ||
        split.accelerators.size() > static_cast<std::size_t>(w.max_accelerators)) {
        throw WorkloadError(fmt::format(
            "split uses {} CPUs and {} accelerators; the workload has {} and {}", split.cpus.size(),
            split.accelerators.size(), w.max_cpus, w.max_accelerators));
    }
    Assignment a;
    a.device_of_node.assign(w.node_count(), -1);
    auto assign = [&](const std::vector<std::int64_t>& ids, int device) {
        for (auto id : ids) {
            const int v = w.index_of(id);
            if (a.device_of_node[static_cast<std::size_t>(v)] >= 0)
                throw WorkloadError(fmt::format("node {} is placed twice", id));
            a.device_of_node[static_cast<std::size_t>(v)] = device;
        }
    };
    for (std::size_t c = 0; c < split.cpus.size(); ++c)
        assign(split.cpus[c], cpu_device(w, static_cast<int>(c)));
    for (std::size_t f = 0; f < split.accelerators.size(); ++f)
        assign(split.accelerators[f], accelerator_device(w, static_cast<int>(f)));
    for (std::size_t v = 0; v < w.node_count(); ++v) {
        if (a.device_of_node[v] < 0)
            throw WorkloadError(fmt::format("node {} is not placed", w.id[v]));
    }
    return a;
}

Split to_split(const Workload& w, const Assignment& assignment, double objective) {
    Split split;
    split.cpus.resize(static_cast<std::size_t>(w.max_cpus));
    split.accelerators.resize(static_cast<std::size_t>(w.max_accelerators));
    for (std::size_t v = 0; v < w.node_count(); ++v) {
        const int d = assignment.device_of_node.at(v);
        if (d < 0 || d >= w.max_cpus + w.max_accelerators) {
            throw WorkloadError(fmt::format("node {} is on device {}; the workload has {}", w.id[v],
                                            d, w.max_cpus + w.max_accelerators));
        }
        if (is_accelerator_device(w, d))
            split.accelerators[static_cast<std::size_t>(d - w.max_cpus)].push_back(w.id[v]);
        else
            split.cpus[static_cast<std::size_t>(d)].push_back(w.id[v]);
    }
    split.objective = objective;
    return split;
}

}  // namespace hetsim::placement::tarnawski
