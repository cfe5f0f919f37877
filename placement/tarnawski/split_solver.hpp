// The SplitSolver family: tarnawski2020's placement problem (§3) solved directly on a
// Workload (the paper's JSON instance, or one converted from a hetsim graph). Every solver
// (DP, DPL, the MIPs, the §6-7 baselines, the latency search) implements this interface and
// is registered by name; `hetsim place` runs one on a JSON workload, and the Placer adapter
// (tarnawski_placer.hpp) runs one on a sim::Graph + Platform.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "placement/placer.hpp"
#include "placement/placer_args.hpp"
#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

enum class SplitObjective {
    throughput,  // minimise the maximum device load, time per sample (§3, §5)
    latency,     // minimise the §4 single-sample latency
};

struct SolveOptions {
    SplitObjective objective = SplitObjective::throughput;
    double time_limit_s = 0.0;  // 0 = none; solvers that search stop at this wall time
    double relative_gap = 0.0;  // MIP: stop when (incumbent - bound) / incumbent <= gap
    std::uint64_t seed = 1;
    std::ostream* progress = nullptr;  // progress lines (MIP log, search rounds); null = quiet
    // How far a long search is (CBC's nodes, the DP's ideals), for the study runner's progress
    // line (PlacementContext::report_progress); empty = nobody listens.
    ProgressSink report = {};
};

struct SolveResult {
    Split split;             // one entry per CPU and per accelerator (Workload::max_*)
    double objective = 0.0;  // of `split` under options.objective (∞ if infeasible)
    std::map<std::string, std::string> stats;  // solver facts: ideals, nodes, gap, ...
};

class SplitSolver {
public:
    virtual ~SplitSolver() = default;
    virtual std::string name() const = 0;  // the spec it was created from

    // The one entry point of every solver. Throws SolverError naming the solver, before it
    // runs, for a workload no split can place (find_unplaceable: no device, a node no device
    // takes, a cyclic graph), so that no solver meets one. A split it returns places every
    // node; its objective is ∞ when the split breaks a constraint (a heuristic's split over
    // memory). A solver that finds no split at all (only possible without CPUs) throws
    // SolverError "no feasible split found".
    SolveResult solve(const Workload& workload, const SolveOptions& options) const;

protected:
    // The solver proper, on a workload find_unplaceable accepts. It returns an empty split
    // (one empty entry per device) with objective ∞ when it finds no feasible one.
    virtual SolveResult solve_placeable(const Workload& workload,
                                        const SolveOptions& options) const = 0;
};

// A solver that cannot run on this input or a bad solver spec; the message says why. A
// PlacementError, so a bad spec reads the same whether it names a placer or a split solver.
class SolverError : public PlacementError {
public:
    using PlacementError::PlacementError;
};

// Creates a solver from its spec ("tarnawski.ip_latency:q=2") and its arguments, already
// parsed and checked against SplitSolverInfo::arguments by the registry.
using SplitSolverFactory = std::function<std::unique_ptr<SplitSolver>(
    const std::string& spec, const PlacerArguments& arguments)>;

struct SplitSolverInfo {
    ArgumentSchema arguments;  // the solver's name and its keys; the usage is generated from it
    std::string description;
    SplitSolverFactory factory;
    // Names before the family prefix ("greedy" for "tarnawski.greedy"): still accepted for
    // one release, with a deprecation warning (warn_deprecated_placer_name).
    std::vector<std::string> deprecated_names = {};

    const std::string& name() const { return arguments.placer(); }
};

// Wall-time budget of the searches and MIPs (local_search, the IPs) when neither their own
// time=S argument nor SolveOptions::time_limit_s gives one: they improve until stopped, and an
// unbounded run on a few-hundred-node graph takes hours (Table 4's solver stopped at 1 h).
inline constexpr double kDefaultSearchTimeLimit_s = 60.0;

class SplitSolverRegistry {
public:
    static SplitSolverRegistry& instance();
    void add(SplitSolverInfo info);  // replaces a solver of the same name
    bool has(const std::string& name) const;
    // Throws PlacementError for an unknown name (with "did you mean") or bad arguments.
    std::unique_ptr<SplitSolver> create(const std::string& spec) const;
    std::vector<const SplitSolverInfo*> all() const;  // sorted by name

private:
    std::map<std::string, SplitSolverInfo> solvers_;
};

// --- assignments: the node -> device form most solvers work in ---------------------------

// Device numbering of an Assignment: CPUs 0..ℓ-1, then accelerators ℓ..ℓ+k-1.
struct Assignment {
    std::vector<int> device_of_node;  // by node index
};

inline int cpu_device(const Workload&, int cpu) {
    return cpu;
}
inline int accelerator_device(const Workload& w, int accelerator) {
    return w.max_cpus + accelerator;
}
inline bool is_accelerator_device(const Workload& w, int device) {
    return device >= w.max_cpus;
}

// Split <-> Assignment. to_assignment throws WorkloadError like evaluate_split for unknown,
// repeated or missing nodes or too many devices.
Assignment to_assignment(const Workload& workload, const Split& split);
Split to_split(const Workload& workload, const Assignment& assignment, double objective);

}  // namespace hetsim::placement::tarnawski
