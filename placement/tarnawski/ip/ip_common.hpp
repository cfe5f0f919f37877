// Internal helpers shared by the tarnawski2020 IP solvers (ip_throughput.cpp, ip_latency.cpp,
// ip_solver.cpp). Not part of the public API.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "placement/tarnawski/ip/cbc_mip.hpp"
#include "placement/tarnawski/ip/ip_solvers.hpp"
#include "placement/tarnawski/solver_common.hpp"
#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski::ip_detail {

// Colour classes (Appendix B): nodes of one class must share a device, so the throughput IP
// gives a class one set of x variables instead of the paper's equality constraints x_u = x_v.
// A node without a class is a group of its own. Groups are numbered by their first node.
struct Groups {
    std::vector<int> of_node;
    std::vector<std::vector<int>> nodes;
    int count() const { return static_cast<int>(nodes.size()); }
};

inline Groups colour_groups(const Workload& w) {
    const ColourClasses classes = colour_classes(w);
    Groups g;
    g.of_node = classes.of_node;
    g.nodes.resize(classes.count);
    for (int v = 0; v < static_cast<int>(w.node_count()); ++v)
        g.nodes[g.of_node[v]].push_back(v);
    return g;
}

inline bool runs_on_accelerator(const Workload& w, int v) {
    return w.supported_on_accelerator[v] && std::isfinite(w.accelerator_latency[v]);
}

// (objective - bound) / objective, 0 when the bound meets the objective up to rounding.
inline double relative_gap(double objective, double bound) {
    const double gap =
        (objective - std::min(bound, objective)) / std::max(std::fabs(objective), 1e-9);
    return gap < 1e-12 ? 0.0 : gap;
}

// The warm starts (DP, the latency search) may use the first half of the time limit, so that
// the MIP's build and CBC get the rest (none without a limit).
inline std::optional<std::chrono::steady_clock::time_point> warm_start_deadline(
    const SolveOptions& options, std::chrono::steady_clock::time_point t0) {
    if (!(options.time_limit_s > 0.0))
        return std::nullopt;
    return t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(options.time_limit_s / 2.0));
}

// Whether the whole time limit has passed since t0: then the MIP is not even built (a
// 10,000-node model takes seconds), and the warm start is the answer.
inline bool out_of_time(const SolveOptions& options, std::chrono::steady_clock::time_point t0) {
    return options.time_limit_s > 0.0 && seconds_since(t0) >= options.time_limit_s;
}

// What is left of a wall-clock budget for CBC after the warm start (0 = no limit). CBC always
// gets a little time so that it can at least take the warm start and report a bound.
inline double remaining_budget(double limit_s, std::chrono::steady_clock::time_point t0) {
    if (limit_s <= 0.0)
        return 0.0;
    const double left = limit_s - seconds_since(t0);
    return left > 0.2 ? left : 0.2;
}

// The search space as spelled in specs, logs and the "contiguity" stat.
const char* contiguity_name(Contiguity contiguity);

// Whether the forward part has at most `max_ideals` ideals, i.e. whether the exact DP is a quick
// warm start (WarmStart::automatic); otherwise the IPs start from DPL.
bool few_ideals(const Workload& w, std::size_t max_ideals);

// Marks the nodes from which some node with is_target(v) can be reached along the edges given
// by `predecessors` (the targets included): z = 1 in the "only if" direction of the proof of
// Lemma 4.1, used to complete a warm start's columns.
template <typename IsTarget>
std::vector<char> nodes_reaching(const std::vector<std::vector<int>>& predecessors,
                                 IsTarget is_target) {
    const int n = static_cast<int>(predecessors.size());
    std::vector<char> reaches(n, 0);
    std::vector<int> stack;
    for (int v = 0; v < n; ++v)
        if (is_target(v)) {
            reaches[v] = 1;
            stack.push_back(v);
        }
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        for (int u : predecessors[v])
            if (!reaches[u]) {
                reaches[u] = 1;
                stack.push_back(u);
            }
    }
    return reaches;
}

// Records the model's size in `run` (for the log line and the stats).
void record_model_size(IpRun& run, const MipModel& mip);

// Runs CBC on `mip` with what is left of the solve's budget since t0 and at most `max_nodes`
// branch-and-bound nodes (0 = no node limit), from `warm_columns` (empty = no MIP start), and
// records CBC's outcome in `run` (status, bound, nodes, ...). Reports the nodes done (of
// `max_nodes`) through SolveOptions::report.
MipResult run_cbc(const MipModel& mip, std::vector<double> warm_columns,
                  const SolveOptions& options, int log_level,
                  const std::vector<std::string>& cbc_arguments, long max_nodes,
                  std::chrono::steady_clock::time_point t0, IpRun& run);

// Completes a run whose split (if CBC found one) is in run.assignment / run.objective: falls
// back to the warm start when CBC found nothing better, fixes the status and sets gap and time.
void finish_run(IpRun& run, const Assignment* warm, std::chrono::steady_clock::time_point t0);

}  // namespace hetsim::placement::tarnawski::ip_detail
