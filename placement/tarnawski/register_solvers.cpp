// The one registration site of the tarnawski2020 split solvers: each solver's name, its
// arguments (declared once; the registry parses and checks every spec against them and
// `hetsim list placers` prints them) and what it does.
#include <limits>

#include "placement/placer_args.hpp"
#include "placement/tarnawski/baselines/baseline_solvers.hpp"
#include "placement/tarnawski/dp/dp_solver.hpp"
#include "placement/tarnawski/ip/ip_solvers.hpp"
#include "placement/tarnawski/latency/latency_solvers.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/tarnawski_placer.hpp"

namespace hetsim::placement::tarnawski {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The max-load DP's Appendix C.2 replication: the largest r for an accelerator / CPU set (1 =
// off), B of the AllReduce in workload size units per workload time unit (∞ = free
// synchronisation), and App. C.1's overlapped synchronisation.
ArgumentSchema dp_arguments(const char* name) {
    return ArgumentSchema(name)
        .integer("replicas", 1, 1024, "1", "largest replication of an accelerator set (App. C.2)")
        .integer("cpu_replicas", 1, 1024, "1", "largest replication of a CPU set")
        .positive_number("bandwidth", "inf", "AllReduce bandwidth B between accelerators")
        .positive_number("cpu_bandwidth", "inf", "AllReduce bandwidth B between CPUs")
        .boolean("overlap", "0", "synchronisation overlaps the work (App. C.1, ⊕ = max)")
        .time_limit("time", "",
                    "wall-time limit in s: past it the full DP stops and DPL's split is returned "
                    "(default --time-limit; 0 = none)",
                    true)
        .integer("states", 0, 1'000'000'000'000, "0",
                 "the full DP's states (ideals) at most (0 = none): over more, DPL's split is "
                 "returned, the same on every run, unlike one cut by the time limit");
}

// The keys both MIPs take; `warm` lists the warm starts the IP knows.
ArgumentSchema ip_arguments(const char* name, std::vector<std::string> warm) {
    return ArgumentSchema(name)
        .time_limit("time", "",
                    "wall-time limit in s, MIP build included (default --time-limit, else 60; 0 = "
                    "none)",
                    true)
        .number("gap", 0.0, kInfinity, "", "stop at this relative gap (default --gap)")
        .integer("nodes", 0, std::numeric_limits<int>::max(), "0",
                 "CBC's branch-and-bound nodes at most (0 = none); a search stopped by it gives "
                 "the same split on every run, unlike one stopped by the time limit")
        .choice("warm", std::move(warm), "auto", "warm start")
        .boolean("symmetry", "on", "order interchangeable devices (removes k!·ℓ! copies)")
        .integer("log", 0, 3, "1", "CBC's verbosity on the progress stream")
        .integer("ideals", 0, 1'000'000'000'000'000, "20000",
                 "warm=auto: DP up to this many ideals, else DPL");
}

}  // namespace

void register_split_solvers() {
    static const bool done = [] {
        SplitSolverRegistry& registry = SplitSolverRegistry::instance();

        // dp/: the max-load DP over ideals and its linearization.
        registry.add({dp_arguments("tarnawski.dp"),
                      "tarnawski2020 §5.1.1: optimal contiguous split for throughput (max-load DP "
                      "over ideals; k accelerators, ℓ CPUs, memory, training graphs per App. B); "
                      "replicas=R: App. C.2 replication of a set over up to R devices",
                      [](const std::string& spec, const PlacerArguments& args) {
                          return make_dp_solver(spec, args, false);
                      }});
        registry.add({dp_arguments("tarnawski.dpl"),
                      "tarnawski2020 §5.1.2: the DP over the prefixes of one topological order "
                      "(linearization heuristic; fast, not always optimal)",
                      [](const std::string& spec, const PlacerArguments& args) {
                          return make_dp_solver(spec, args, true);
                      }});

        // ip/: the MIPs on CBC.
        registry.add(
            {ip_arguments("tarnawski.ip_throughput", {"auto", "dp", "dpl", "none"})
                 .choice("mode", {"contiguous", "acyclic", "noncontiguous"}, "contiguous",
                         "split space: Def. 3.1 per device, the DP's pipeline order, or any")
                 .bare(),
             "tarnawski2020 §5.1.3/§5.2 (Fig. 6): max-load MIP solved with CBC, warm-started "
             "from the DP (DPL on graphs with many ideals); returns the best split within the "
             "limit with CBC's bound and gap in the stats",
             make_throughput_ip_solver});
        registry.add(
            {ip_arguments("tarnawski.ip_latency",
                          {"auto", "greedy", "dp", "dpl", "cpu", "search", "none"})
                 .integer("q", 1, 64, "1", "contiguous subgraphs per accelerator"),
             "tarnawski2020 §4 (Fig. 3/4, Lemma 4.1): single-sample latency MIP solved with CBC, "
             "warm-started from the best of greedy / max-load DP / all-CPU / tarnawski.latency's "
             "search; bound and gap in the stats",
             make_latency_ip_solver});

        // latency/: our latency placer.
        registry.add({ArgumentSchema("tarnawski.latency")
                          .integer("rounds", 0, std::numeric_limits<std::int64_t>::max(), "200",
                                   "at most this many perturbation rounds")
                          .integer("patience", 0, std::numeric_limits<std::int64_t>::max(), "50",
                                   "stop after this many rounds without a new best")
                          .integer("orders", 0, std::numeric_limits<std::int64_t>::max(), "16",
                                   "random linearizations for sequential-DP seeds")
                          .boolean("contiguous", "0", "keep every accelerator's set contiguous")
                          .boolean("dp", "1", "max-load DP / DPL seeds")
                          .boolean("both", "1", "over any split, also search the contiguous ones"),
                      "latency placer for tarnawski2020 §4: sequential-bound DP seeds over "
                      "linearizations + max-load DP/greedy/offloading-descent seeds, then iterated "
                      "block-move search under the exact §4 latency; memory-feasible, never worse "
                      "than tarnawski.greedy or tarnawski.local_search:restarts=2; with the time "
                      "limit it returns the best "
                      "split found so far",
                      make_latency_placer});

        // baselines/: §6-7's baselines.
        registry.add({ArgumentSchema("tarnawski.greedy"),
                      "tarnawski2020 §7 latency baseline: contract colour classes and cycles, fill "
                      "accelerators in one topological order up to their memory, rest on the CPU "
                      "(ignores costs; Table 4 'Greedy')",
                      make_latency_greedy_solver,
                      {"greedy"}});
        registry.add({ArgumentSchema("tarnawski.local_search")
                          .integer("restarts", 1, std::numeric_limits<std::int64_t>::max(), "10",
                                   "starts: the greedy, all-CPU, then random splits")
                          .integer("steps", 0, std::numeric_limits<std::int64_t>::max(), "",
                                   "at most this many moves per start (default unbounded)")
                          .boolean("contiguous", "0", "keep every accelerator's set contiguous")
                          .time_limit("time", "",
                                      "wall-time limit in s (default --time-limit, else 60; 0 = "
                                      "none)",
                                      true),
                      "best single-block (colour class) moves until a local optimum (§6), from "
                      "the greedy, all-CPU, then random splits (max-load) or random greedy fills "
                      "(latency), seeded; either objective, always memory-feasible",
                      make_local_search_solver,
                      {"local_search"}});
        registry.add({ArgumentSchema("tarnawski.one_accelerator")
                          .integer("rounds", 0, std::numeric_limits<std::int64_t>::max(), "100",
                                   "search rounds of the latency search"),
                      "the best split found with at most one accelerator plus the CPUs (max-load "
                      "DP with k=1 for throughput, tarnawski.latency's search with k=1 for "
                      "latency)",
                      make_one_accelerator_solver,
                      {"one_accelerator"}});
        registry.add({ArgumentSchema("tarnawski.expert")
                          .text("file", "", "split JSON file (experts/*.json format)")
                          .bare()
                          .rest()
                          .required(),
                      "a fixed split from a JSON file, scored under the objective "
                      "(tarnawski2020 §6-7 human-expert baseline)",
                      make_expert_solver,
                      {"expert"}});
        registry.add(
            {ArgumentSchema("tarnawski.scotch")
                 .choice("preset", {"default", "standard", "quality", "speed", "balance"},
                         "default", "Scotch mapping strategy preset")
                 .number("imbalance", 0.0, 1.0, "0.01",
                         "load imbalance ratio (implies preset=standard over default)")
                 .boolean("repair", "on", "repair memory overflows after partitioning")
                 .integer("seed", 0, std::numeric_limits<std::int64_t>::max(), "",
                          "Scotch's random seed (default: the study's seed)")
                 .text("strategy", "", "a raw Scotch mapping strategy; overrides the preset")
                 .rest(),
             "tarnawski2020 §6-7 baseline: libscotch k-way partition of the colour classes "
             "(vertex = Σ p^acc, edge = transfer cost), parts -> accelerators, unsupported "
             "nodes -> CPUs, memory repair; non-contiguous, scored by the §3 max-load",
             make_scotch_solver,
             {"scotch"}});
        registry.add({ArgumentSchema("tarnawski.pipedream")
                          .boolean("branches", "on", "contract biconnected components (step 2)")
                          .choice("inputs", {"ignore", "keep"}, "ignore",
                                  "edges out of zero-latency graph inputs"),
                      "tarnawski2020 §6 baseline: PipeDream's partitioner, the linear DP over a "
                      "topological chain of the graph with branches contracted (biconnected "
                      "components), k accelerators + ℓ CPUs, memory limit, no replication",
                      make_pipedream_solver,
                      {"pipedream"}});
        return true;
    }();
    (void)done;
}

}  // namespace hetsim::placement::tarnawski
