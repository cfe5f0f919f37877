// tarnawski.ip_throughput and tarnawski.ip_latency as SplitSolvers (ip_solvers.hpp).
#include <cmath>
#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "placement/tarnawski/ip_common.hpp"
#include "placement/tarnawski/ip_solvers.hpp"
#include "placement/tarnawski/latency_search.hpp"

namespace hetsim::placement::tarnawski {

namespace {

constexpr const char* kThroughputUsage =
    "tarnawski.ip_throughput[:contiguous|acyclic|noncontiguous][,time=S (default 60, 0 = none)]"
    "[,gap=G]"
    "[,warm=auto|dp|dpl|none][,symmetry=on|off][,log=0|1][,ideals=N]";
constexpr const char* kLatencyUsage =
    "tarnawski.ip_latency[:q=N][,time=S (default 60, 0 = none)][,gap=G]"
    "[,warm=auto|greedy|dp|dpl|cpu|search|none]"
    "[,symmetry=on|off][,log=0|1][,ideals=N]";

// Arguments common to both IPs; `extra` handles the solver's own keys (returns false when the
// token is unknown).
struct CommonArguments {
    std::optional<double> time_limit_s;
    std::optional<double> relative_gap;
    WarmStart warm = WarmStart::automatic;
    bool break_symmetry = true;
    int log_level = 1;
    std::size_t dp_max_ideals = 20'000;
};

template <typename Extra>
CommonArguments parse_arguments(const std::string& solver, const char* usage,
                                const std::string& arguments, bool latency, Extra&& extra) {
    CommonArguments out;
    auto fail = [&](const std::string& why) {
        return SolverError(fmt::format("{}: {} (usage: {})", solver, why, usage));
    };
    auto number = [&](const std::string& key, const std::string& value) {
        try {
            std::size_t used = 0;
            const double x = std::stod(value, &used);
            if (used != value.size() || !std::isfinite(x) || x < 0.0)
                throw std::invalid_argument(value);
            return x;
        } catch (const std::exception&) {
            throw fail(fmt::format("{}={} is not a non-negative number", key, value));
        }
    };
    std::istringstream tokens(arguments);
    for (std::string token; std::getline(tokens, token, ',');) {
        if (token.empty())
            continue;
        const auto eq = token.find('=');
        const std::string key = token.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : token.substr(eq + 1);
        if (extra(key, value, eq != std::string::npos))
            continue;
        if (eq == std::string::npos)
            throw fail(fmt::format("unknown argument '{}'", token));
        if (key == "time") {
            out.time_limit_s = number(key, value);
        } else if (key == "gap") {
            out.relative_gap = number(key, value);
        } else if (key == "warm") {
            if (value == "auto") {
                out.warm = WarmStart::automatic;
            } else if (value == "dp") {
                out.warm = WarmStart::dp;
            } else if (value == "dpl") {
                out.warm = WarmStart::dpl;
            } else if (value == "none") {
                out.warm = WarmStart::none;
            } else if (latency && value == "greedy") {
                out.warm = WarmStart::greedy;
            } else if (latency && value == "search") {
                out.warm = WarmStart::search;
            } else if (latency && value == "cpu") {
                out.warm = WarmStart::cpu;
            } else {
                throw fail(fmt::format("unknown warm start '{}'", value));
            }
        } else if (key == "symmetry") {
            if (value == "on" || value == "1" || value == "true")
                out.break_symmetry = true;
            else if (value == "off" || value == "0" || value == "false")
                out.break_symmetry = false;
            else
                throw fail(fmt::format("symmetry={} (expected on or off)", value));
        } else if (key == "log") {
            const double level = number(key, value);
            if (level != std::floor(level) || level > 3.0)
                throw fail(fmt::format("log={} (expected 0, 1, 2 or 3)", value));
            out.log_level = static_cast<int>(level);
        } else if (key == "ideals") {
            // Checked before the cast: a double past 2^64 does not convert to size_t.
            const double ideals = number(key, value);
            if (ideals != std::floor(ideals) || ideals > 1e15)
                throw fail(fmt::format("ideals={} (expected an integer up to 1e15)", value));
            out.dp_max_ideals = static_cast<std::size_t>(ideals);
        } else {
            throw fail(fmt::format("unknown argument '{}'", key));
        }
    }
    return out;
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
    out.stats["columns"] = std::to_string(run.columns);
    out.stats["rows"] = std::to_string(run.rows);
    out.stats["nonzeros"] = std::to_string(run.nonzeros);
    out.stats["mip_s"] = fmt::format("{:.3f}", run.mip_seconds);
    out.stats["total_s"] = fmt::format("{:.3f}", run.seconds);
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
    SolveResult solve(const Workload& w, const SolveOptions& options) const override {
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
void apply_common(const CommonArguments& args, IpOptions& ip) {
    ip.warm_start = args.warm;
    ip.break_symmetry = args.break_symmetry;
    ip.log_level = args.log_level;
    ip.dp_max_ideals = args.dp_max_ideals;
}

std::string spec_of(const char* name, const std::string& arguments) {
    return arguments.empty() ? name : fmt::format("{}:{}", name, arguments);
}

std::unique_ptr<SplitSolver> make_throughput(const std::string& arguments) {
    constexpr const char* name = "tarnawski.ip_throughput";
    ThroughputIpOptions ip;
    const CommonArguments args =
        parse_arguments(name, kThroughputUsage, arguments, false,
                        [&](const std::string& key, const std::string& value, bool has_value) {
                            const std::string mode = has_value ? (key == "mode" ? value : "") : key;
                            if (mode == "contiguous")
                                ip.contiguity = Contiguity::contiguous;
                            else if (mode == "acyclic")
                                ip.contiguity = Contiguity::acyclic;
                            else if (mode == "noncontiguous")
                                ip.contiguity = Contiguity::noncontiguous;
                            else
                                return false;
                            return true;
                        });
    apply_common(args, ip);
    return std::make_unique<IpSolver<ThroughputIpOptions>>(
        spec_of(name, arguments), ip, args, solve_throughput_ip, "max_load",
        [](const ThroughputIpOptions& o, SolveResult& out) {
            out.stats["contiguity"] = ip_detail::contiguity_name(o.contiguity);
        });
}

std::unique_ptr<SplitSolver> make_latency(const std::string& arguments) {
    constexpr const char* name = "tarnawski.ip_latency";
    LatencyIpOptions ip;
    const CommonArguments args = parse_arguments(
        name, kLatencyUsage, arguments, true,
        [&](const std::string& key, const std::string& value, bool has_value) {
            if (key != "q" || !has_value)
                return false;
            std::size_t used = 0;
            int q = 0;
            try {
                q = std::stoi(value, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != value.size() || q < 1 || q > 64)
                throw SolverError(fmt::format("{}: q={} is not an integer in 1..64 (usage: {})",
                                              name, value, kLatencyUsage));
            ip.subgraphs_per_accelerator = q;
            return true;
        });
    apply_common(args, ip);
    return std::make_unique<IpSolver<LatencyIpOptions>>(
        spec_of(name, arguments), ip, args, solve_latency_ip, "latency",
        [](const LatencyIpOptions& o, SolveResult& out) {
            out.stats["q"] = std::to_string(o.subgraphs_per_accelerator);
        });
}

}  // namespace

void register_ip_solvers(SplitSolverRegistry& registry) {
    registry.add({"tarnawski.ip_throughput", kThroughputUsage,
                  "tarnawski2020 §5.1.3/§5.2 (Fig. 6): max-load MIP solved with CBC, warm-started "
                  "from the DP (DPL on graphs with many ideals); contiguous = Def. 3.1 per device "
                  "(Lemma 4.1), acyclic = the DP's pipeline-ordered space, noncontiguous = any "
                  "split. time=S / gap=G override the solve options (wall seconds, relative gap); "
                  "returns the best split within the limit with CBC's bound and gap in the stats",
                  make_throughput});
    registry.add(
        {"tarnawski.ip_latency", kLatencyUsage,
         "tarnawski2020 §4 (Fig. 3/4, Lemma 4.1): single-sample latency MIP solved with "
         "CBC, q contiguous subgraphs per accelerator (default 1 = contiguous), "
         "warm-started from the best of greedy / max-load DP / all-CPU / tarnawski.latency's "
         "search; time=S / gap=G "
         "override the solve options; bound and gap in the stats",
         make_latency});
}

}  // namespace hetsim::placement::tarnawski
