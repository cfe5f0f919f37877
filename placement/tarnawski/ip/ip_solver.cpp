// tarnawski.ip_throughput and tarnawski.ip_latency as SplitSolvers (ip_solvers.hpp).
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "placement/tarnawski/ip/ip_common.hpp"
#include "placement/tarnawski/ip/ip_solvers.hpp"
#include "placement/tarnawski/latency/latency_search.hpp"

namespace hetsim::placement::tarnawski {

namespace {

// Arguments common to both IPs (declared in register_solvers.cpp).
struct CommonArguments {
    std::optional<double> time_limit_s;
    std::optional<double> relative_gap;
};

CommonArguments common_arguments(const PlacerArguments& args) {
    CommonArguments out;
    if (args.has("time"))
        out.time_limit_s = args.number("time");
    if (args.has("gap"))
        out.relative_gap = args.number("gap");
    return out;
}

WarmStart warm_start(const std::string& name) {
    static const std::map<std::string, WarmStart> starts = {
        {"auto", WarmStart::automatic}, {"dp", WarmStart::dp},   {"dpl", WarmStart::dpl},
        {"greedy", WarmStart::greedy},  {"cpu", WarmStart::cpu}, {"search", WarmStart::search},
        {"none", WarmStart::none}};
    return starts.at(name);
}

// A MIP without a time limit may run for hours on a 300-node graph (the paper's solver often
// stopped at its limit with large gaps, Table 4), so a placer used from a study or from
// `hetsim place` without --time-limit gets kDefaultSearchTimeLimit_s; time=0 asks for none.

SolveOptions with_overrides(const SolveOptions& options, const CommonArguments& args) {
    SolveOptions o = options;
    if (args.time_limit_s)
        o.time_limit_s = *args.time_limit_s;
    else if (o.time_limit_s <= 0.0)
        o.time_limit_s = kDefaultSearchTimeLimit_s;
    if (args.relative_gap)
        o.relative_gap = *args.relative_gap;
    return o;
}

SolveResult to_result(const std::string& spec, const Workload& w, const IpRun& run,
                      const SolveOptions& options, const char* own_objective) {
    if (!run.assignment) {
        throw SolverError(fmt::format(
            "{}: no feasible split ({}{})", spec, to_string(run.status),
            run.status == MipStatus::no_solution ? ", nothing found within the time limit" : ""));
    }
    SolveResult out;
    // The interface reports the split under the requested objective; the IP's own objective
    // (what it minimised) is in the stats.
    out.objective = split_objective(w, *run.assignment, options.objective);
    out.split = to_split(w, *run.assignment, out.objective);
    auto number = [](double x) { return fmt::format("{:.9g}", x); };
    out.stats[own_objective] = number(run.objective);
    out.stats["status"] = to_string(run.status);
    out.stats["ip_objective"] = number(run.ip_objective);
    out.stats["bound"] = number(run.bound);
    out.stats["gap"] = number(run.gap);
    out.stats["warm_start"] = run.warm_source.empty() ? "none" : run.warm_source;
    out.stats["warm_objective"] = number(run.warm_objective);
    out.stats["warm_accepted"] = run.warm_accepted ? "1" : "0";
    out.stats["from_warm_start"] = run.from_warm_start ? "1" : "0";
    out.stats["nodes"] = std::to_string(run.nodes);
    out.stats["time_limit_hit"] = run.time_limit_hit ? "1" : "0";
    out.stats["node_limit_hit"] = run.node_limit_hit ? "1" : "0";
    out.stats["columns"] = std::to_string(run.columns);
    out.stats["rows"] = std::to_string(run.rows);
    out.stats["nonzeros"] = std::to_string(run.nonzeros);
    out.stats["mip_wall_s"] = fmt::format("{:.3f}", run.mip_seconds);
    out.stats["total_wall_s"] = fmt::format("{:.3f}", run.seconds);
    if (options.progress) {
        *options.progress << fmt::format(
            "{}: {} {} {:.6g} (bound {:.6g}, gap {:.2f}%), warm start {} {:.6g}, {:.1f} s\n", spec,
            to_string(run.status), own_objective, run.objective, run.bound, 100.0 * run.gap,
            out.stats["warm_start"], run.warm_objective, run.seconds);
    }
    return out;
}

// Either IP as a SplitSolver: `solve_ip` runs it (solve_throughput_ip / solve_latency_ip),
// `describe` adds the options that tell the runs apart to the stats.
template <typename IpOptions>
class IpSolver final : public SplitSolver {
public:
    using SolveIp = IpRun (*)(const Workload&, const IpOptions&, const SolveOptions&);
    using Describe = void (*)(const IpOptions&, SolveResult&);

    IpSolver(std::string spec, IpOptions ip, CommonArguments args, SolveIp solve_ip,
             const char* own_objective, Describe describe)
        : spec_(std::move(spec)),
          ip_(std::move(ip)),
          args_(args),
          solve_ip_(solve_ip),
          own_objective_(own_objective),
          describe_(describe) {}
    std::string name() const override { return spec_; }

protected:
    SolveResult solve_placeable(const Workload& w, const SolveOptions& options) const override {
        const SolveOptions o = with_overrides(options, args_);
        const IpRun run = solve_ip_(w, ip_, o);
        SolveResult out = to_result(spec_, w, run, o, own_objective_);
        describe_(ip_, out);
        return out;
    }

private:
    std::string spec_;
    IpOptions ip_;
    CommonArguments args_;
    SolveIp solve_ip_;
    const char* own_objective_;  // the stat that holds the IP's own objective
    Describe describe_;
};

// The arguments both IPs take, copied into their options.
template <typename IpOptions>
void apply_common(const PlacerArguments& args, IpOptions& ip) {
    ip.warm_start = warm_start(args.choice("warm"));
    ip.break_symmetry = args.boolean("symmetry");
    ip.log_level = static_cast<int>(args.integer("log"));
    ip.dp_max_ideals = static_cast<std::size_t>(args.integer("ideals"));
    ip.max_nodes = static_cast<long>(args.integer("nodes"));
}

}  // namespace

std::unique_ptr<SplitSolver> make_throughput_ip_solver(const std::string& spec,
                                                       const PlacerArguments& args) {
    static const std::map<std::string, Contiguity> modes = {
        {"contiguous", Contiguity::contiguous},
        {"acyclic", Contiguity::acyclic},
        {"noncontiguous", Contiguity::noncontiguous}};
    ThroughputIpOptions ip;
    ip.contiguity = modes.at(args.choice("mode"));
    apply_common(args, ip);
    return std::make_unique<IpSolver<ThroughputIpOptions>>(
        spec, ip, common_arguments(args), solve_throughput_ip, "max_load",
        [](const ThroughputIpOptions& o, SolveResult& out) {
            out.stats["contiguity"] = ip_detail::contiguity_name(o.contiguity);
        });
}

std::unique_ptr<SplitSolver> make_latency_ip_solver(const std::string& spec,
                                                    const PlacerArguments& args) {
    LatencyIpOptions ip;
    ip.subgraphs_per_accelerator = static_cast<int>(args.integer("q"));
    apply_common(args, ip);
    return std::make_unique<IpSolver<LatencyIpOptions>>(
        spec, ip, common_arguments(args), solve_latency_ip, "latency",
        [](const LatencyIpOptions& o, SolveResult& out) {
            out.stats["q"] = std::to_string(o.subgraphs_per_accelerator);
        });
}

}  // namespace hetsim::placement::tarnawski
