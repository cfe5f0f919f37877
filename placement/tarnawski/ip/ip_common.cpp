// Steps shared by the two IP solvers (ip_throughput.cpp, ip_latency.cpp); see ip_common.hpp.
#include "placement/tarnawski/ip/ip_common.hpp"

#include <fmt/format.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"

namespace hetsim::placement::tarnawski::ip_detail {

const char* contiguity_name(Contiguity c) {
    switch (c) {
        case Contiguity::contiguous:
            return "contiguous";
        case Contiguity::acyclic:
            return "acyclic";
        case Contiguity::noncontiguous:
            return "noncontiguous";
    }
    return "?";
}

bool few_ideals(const Workload& w, std::size_t max_ideals) {
    DpOptions count;
    count.max_ideals = max_ideals;
    try {
        count_ideals(w, count);
        return true;
    } catch (const DpError&) {
        return false;  // too many ideals for a quick exact DP
    }
}

void record_model_size(IpRun& run, const MipModel& mip) {
    run.columns = mip.columns();
    run.rows = mip.rows();
    run.nonzeros = mip.nonzeros();
}

MipResult run_cbc(const MipModel& mip, std::vector<double> warm_columns,
                  const SolveOptions& options, int log_level,
                  const std::vector<std::string>& cbc_arguments, long max_nodes,
                  std::chrono::steady_clock::time_point t0, IpRun& run) {
    MipOptions mo;
    mo.time_limit_s = remaining_budget(options.time_limit_s, t0);
    mo.relative_gap = options.relative_gap;
    mo.seed = options.seed;
    mo.progress = options.progress;
    mo.log_level = log_level;
    mo.extra_arguments = cbc_arguments;
    mo.warm_start = std::move(warm_columns);
    mo.max_nodes = max_nodes;
    if (options.report) {
        // The time share runs over the whole solve (warm start included), as the limit does.
        std::optional<std::chrono::steady_clock::time_point> deadline;
        if (options.time_limit_s > 0.0)
            deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(options.time_limit_s));
        mo.on_progress = [&options, max_nodes, t0, deadline](long nodes, double incumbent) {
            options.report({nodes, max_nodes, "nodes",
                            incumbent < kMipInfinity ? fmt::format("{:.6g}", incumbent) : "",
                            time_fraction(t0, deadline)});
        };
    }
    MipResult r = solve_mip(mip, mo);
    run.warm_accepted = r.warm_start_accepted;
    run.status = r.status;
    run.mip_seconds = r.seconds;
    run.nodes = r.nodes;
    run.bound = r.best_bound;
    run.ip_objective = r.objective;
    // CBC stops early only at its node budget or its time limit (or is stopped at the hard
    // deadline).
    run.node_limit_hit = r.stopped_at_node_limit && !r.stopped_at_deadline;
    run.time_limit_hit =
        !run.node_limit_hit && (r.stopped_at_deadline || r.status == MipStatus::feasible ||
                                r.status == MipStatus::no_solution);
    return r;
}

void finish_run(IpRun& run, const Assignment* warm, std::chrono::steady_clock::time_point t0) {
    // Never return worse than the warm start (CBC may stop before taking it); only a warm
    // start that satisfies the model (same search space) can stand in.
    if (warm && run.warm_accepted &&
        (!run.assignment || run.warm_objective < run.objective - 1e-9)) {
        run.assignment = *warm;
        run.objective = run.warm_objective;
        run.from_warm_start = true;
    }
    // A split in hand is a feasible outcome even if CBC stopped before finding one itself.
    if (run.assignment &&
        (run.status == MipStatus::no_solution || run.status == MipStatus::infeasible))
        run.status = MipStatus::feasible;
    if (run.assignment && std::isfinite(run.bound))
        run.gap = relative_gap(run.objective, run.bound);
    run.seconds = seconds_since(t0);
}

}  // namespace hetsim::placement::tarnawski::ip_detail
