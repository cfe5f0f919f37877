#include "placement/tarnawski/dp_solver.hpp"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "placement/tarnawski/latency.hpp"
#include "placement/tarnawski/max_load_dp.hpp"

namespace hetsim::placement::tarnawski {

namespace {

class DpSolver final : public SplitSolver {
public:
    DpSolver(std::string spec, bool linearize, ReplicationOptions replication)
        : spec_(std::move(spec)), linearize_(linearize), replication_(replication) {}
    std::string name() const override { return spec_; }

    SolveResult solve(const Workload& workload, const SolveOptions& options) const override {
        DpOptions dp;
        dp.linearize = linearize_;
        dp.replication = replication_;
        DpResult r;
        try {
            r = solve_max_load(workload, dp);
        } catch (const DpError& e) {
            throw SolverError(fmt::format("{}: {}", spec_, e.what()));
        }
        SolveResult out;
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
        out.stats["dp_s"] = fmt::format("{:.6f}", r.stats.dp_seconds);
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
};

constexpr const char* kArguments =
    "[:replicas=R][,cpu_replicas=R][,bandwidth=B][,cpu_bandwidth=B][,overlap=0|1]";

// Appendix C.2 replication: replicas / cpu_replicas = the largest r for an accelerator / CPU
// set (1 = off), bandwidth / cpu_bandwidth = B of the AllReduce in workload size units per
// workload time unit (default ∞ = free synchronisation), overlap=1 = App. C.1 (⊕ = max).
ReplicationOptions parse_replication(const std::string& name, const std::string& arguments) {
    ReplicationOptions r;
    auto fail = [&](const std::string& why) {
        return SolverError(fmt::format("{}: {} (usage: {}{})", name, why, name, kArguments));
    };
    auto number = [&](const std::string& key, const std::string& value) {
        std::size_t used = 0;
        double x = 0.0;
        try {
            x = std::stod(value, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != value.size() || std::isnan(x) || x <= 0.0)
            throw fail(fmt::format("{}={} is not a positive number", key, value));
        return x;
    };
    auto count = [&](const std::string& key, const std::string& value) {
        const double x = number(key, value);
        if (x != std::floor(x) || x > 1024)
            throw fail(fmt::format("{}={} is not an integer in 1..1024", key, value));
        return static_cast<int>(x);
    };
    std::istringstream tokens(arguments);
    for (std::string token; std::getline(tokens, token, ',');) {
        if (token.empty())
            continue;
        const auto eq = token.find('=');
        if (eq == std::string::npos)
            throw fail(fmt::format("unknown argument '{}'", token));
        const std::string key = token.substr(0, eq), value = token.substr(eq + 1);
        if (key == "replicas")
            r.max_accelerator_replicas = count(key, value);
        else if (key == "cpu_replicas")
            r.max_cpu_replicas = count(key, value);
        else if (key == "bandwidth")
            r.accelerator_bandwidth = number(key, value);
        else if (key == "cpu_bandwidth")
            r.cpu_bandwidth = number(key, value);
        else if (key == "overlap" && (value == "0" || value == "1"))
            r.overlap_sync = value == "1";
        else
            throw fail(fmt::format("unknown argument '{}'", token));
    }
    return r;
}

std::unique_ptr<SplitSolver> make(const std::string& name, const std::string& arguments,
                                  bool linearize) {
    const ReplicationOptions replication = parse_replication(name, arguments);
    const std::string spec = arguments.empty() ? name : fmt::format("{}:{}", name, arguments);
    return std::make_unique<DpSolver>(spec, linearize, replication);
}

}  // namespace

void register_dp_solvers(SplitSolverRegistry& registry) {
    registry.add({"tarnawski.dp", std::string("tarnawski.dp") + kArguments,
                  "tarnawski2020 §5.1.1: optimal contiguous split for throughput (max-load DP "
                  "over ideals; k accelerators, ℓ CPUs, memory, training graphs per App. B); "
                  "replicas=R: App. C.2 replication of a set over up to R devices",
                  [](const std::string& a) { return make("tarnawski.dp", a, false); }});
    registry.add({"tarnawski.dpl", std::string("tarnawski.dpl") + kArguments,
                  "tarnawski2020 §5.1.2: the DP over the prefixes of one topological order "
                  "(linearization heuristic; fast, not always optimal)",
                  [](const std::string& a) { return make("tarnawski.dpl", a, true); }});
}

}  // namespace hetsim::placement::tarnawski
