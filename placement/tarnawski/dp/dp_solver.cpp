#include "placement/tarnawski/dp/dp_solver.hpp"

#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/latency/latency.hpp"

namespace hetsim::placement::tarnawski {

namespace {

class DpSolver final : public SplitSolver {
public:
    DpSolver(std::string spec, bool linearize, ReplicationOptions replication,
             std::optional<double> time_limit_s, std::size_t max_states)
        : spec_(std::move(spec)),
          linearize_(linearize),
          replication_(replication),
          time_limit_s_(time_limit_s),
          max_states_(max_states) {}
    std::string name() const override { return spec_; }

protected:
    SolveResult solve_placeable(const Workload& workload,
                                const SolveOptions& options) const override {
        DpOptions dp;
        dp.linearize = linearize_;
        dp.replication = replication_;
        // Past the time limit the full DP stops and DPL's split is the answer (max_load_dp.hpp).
        // Its own time=S first, else the command's --time-limit.
        const double limit_s = time_limit_s_.value_or(options.time_limit_s);
        if (limit_s > 0.0)
            dp.deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(limit_s));
        dp.max_states = max_states_;
        if (options.report) {
            const auto start = std::chrono::steady_clock::now();
            const auto deadline = dp.deadline;
            dp.on_progress = [&options, start, deadline](std::size_t done, std::size_t total) {
                options.report({static_cast<long>(done), static_cast<long>(total), "ideals", "",
                                time_fraction(start, deadline)});
            };
        }
        DpResult r;
        try {
            r = solve_max_load(workload, dp);
        } catch (const DpError& e) {
            throw SolverError(fmt::format("{}: {}", spec_, e.what()));
        }
        SolveResult out;
        if (!std::isfinite(r.objective)) {
            // No contiguous split fits the accelerators' memory (only possible without a CPU):
            // an empty split, which SplitSolver::solve reports.
            out.split.cpus.assign(static_cast<std::size_t>(workload.max_cpus), {});
            out.split.accelerators.assign(static_cast<std::size_t>(workload.max_accelerators), {});
            out.objective = r.objective;
            out.split.objective = r.objective;
            out.stats["ideals"] = std::to_string(r.stats.ideals);
            return out;
        }
        out.split = r.split;
        if (replication_.enabled()) {
            out.split.cpu_replicas = r.cpu_replicas;
            out.split.accelerator_replicas = r.accelerator_replicas;
        }
        // The DP minimises the max load (time per sample); under the latency objective its
        // split is scored by the §4 latency (the "DP evaluated for latency" baseline of §7).
        const double latency = split_latency(workload, to_assignment(workload, r.split));
        out.objective = options.objective == SplitObjective::latency ? latency : r.objective;
        out.split.objective = out.objective;
        out.stats["max_load"] = fmt::format("{:.9g}", r.objective);
        out.stats["latency"] = fmt::format("{:.9g}", latency);
        out.stats["groups"] = std::to_string(r.stats.groups);
        out.stats["ideals"] = std::to_string(r.stats.ideals);
        out.stats["pairs"] = std::to_string(r.stats.pairs);
        out.stats["dp_wall_s"] = fmt::format("{:.6f}", r.stats.dp_seconds);
        out.stats["time_limit_hit"] = std::to_string(r.stats.stopped_at_deadline ? 1 : 0);
        out.stats["state_limit_hit"] = std::to_string(r.stats.stopped_by_state_budget ? 1 : 0);
        if (options.progress != nullptr) {
            *options.progress << fmt::format("{}: {} groups, {} ideals, max load {:.6g}\n", spec_,
                                             r.stats.groups, r.stats.ideals, r.objective);
        }
        return out;
    }

private:
    std::string spec_;
    bool linearize_;
    ReplicationOptions replication_;
    std::optional<double> time_limit_s_;
    std::size_t max_states_;  // DpOptions::max_states
};

}  // namespace

std::unique_ptr<SplitSolver> make_dp_solver(const std::string& spec,
                                            const PlacerArguments& arguments, bool linearize) {
    ReplicationOptions replication;
    replication.max_accelerator_replicas = static_cast<int>(arguments.integer("replicas"));
    replication.max_cpu_replicas = static_cast<int>(arguments.integer("cpu_replicas"));
    replication.accelerator_bandwidth = arguments.number("bandwidth");
    replication.cpu_bandwidth = arguments.number("cpu_bandwidth");
    replication.overlap_sync = arguments.boolean("overlap");
    const std::optional<double> time_limit_s =
        arguments.has("time") ? std::optional<double>(arguments.number("time")) : std::nullopt;
    return std::make_unique<DpSolver>(spec, linearize, replication, time_limit_s,
                                      static_cast<std::size_t>(arguments.integer("states")));
}

}  // namespace hetsim::placement::tarnawski
