// tarnawski2020's mixed-integer programs, solved with CBC (cbc_mip.hpp):
//
//  * tarnawski.ip_throughput — §5.1.3 / Fig. 6: minimise the maximum device load (time per
//    sample of the pipelined schedule, §5.1; FW_i + BW_i for training, §5.3 / Appendix A) over
//      contiguous     every device holds a contiguous set (Def. 3.1) of the forward part,
//                     encoded by Lemma 4.1's z variables — Fig. 6 with constraint (16), as in
//                     the published code (also on CPUs, forward nodes only);
//      acyclic        additionally the devices can be ordered into a pipeline (every cut edge
//                     goes forward in the order): exactly the DP's search space (§5.1.1, the
//                     chain of ideals), so the optimum equals solve_max_load's. Two contiguous
//                     sets can feed each other, so `contiguous` can be strictly better;
//      noncontiguous  no contiguity constraint (§5.2).
//    Warm start: the DP's optimal contiguous split (or DPL's on graphs with many ideals).
//
//  * tarnawski.ip_latency — §4 / Fig. 3 (q = 1) and Fig. 4 (q contiguous subgraphs per
//    accelerator, q >= 1), linearised as in Lemma 4.1: minimise the single-sample latency when
//    every accelerator subgraph is invoked once (inputs in, compute, outputs out) and the CPUs
//    (all of them, §4 assumes ℓ >= the width of G) run nodes as soon as their inputs are ready.
//    Warm start: the best by latency of the greedy split (latency.hpp), the max-load DP split,
//    all-on-CPU and tarnawski.latency's search (latency_solvers.hpp).
//
// Both return the best split found within the time limit with CBC's proven bound and gap; the
// split is never worse than the warm start. SolveResult::objective evaluates the split under
// SolveOptions::objective (max-load: evaluate_assignment; latency: split_latency), the IP's own
// objective is in the stats ("ip_objective", "bound", "gap", ...).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "placement/tarnawski/ip/cbc_mip.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

enum class Contiguity { contiguous, acyclic, noncontiguous };

enum class WarmStart {
    automatic,  // throughput: DP if the graph has few ideals, else DPL; latency: best of all
    dp,         // the max-load DP (§5.1.1)
    dpl,        // the DP with linearization (§5.1.2)
    greedy,     // latency only: the §7 greedy baseline (latency.hpp)
    cpu,        // latency only: everything on the CPUs
    search,     // latency only: tarnawski.latency's search (latency_solvers.hpp)
    none,
};

struct ThroughputIpOptions {
    Contiguity contiguity = Contiguity::contiguous;
    WarmStart warm_start = WarmStart::automatic;
    std::size_t dp_max_ideals = 20'000;  // automatic: DP up to this many ideals, else DPL
    // Accelerators (and CPUs) are interchangeable: order them by the first colour group they
    // hold, which removes the k!·ℓ! copies of every split from the search.
    bool break_symmetry = true;
    std::optional<Assignment> initial;       // an explicit warm start (overrides warm_start)
    int log_level = 1;                       // CBC's log level when SolveOptions::progress is set
    std::vector<std::string> cbc_arguments;  // extra `cbc` command-line arguments
    long max_nodes = 0;  // CBC's branch-and-bound nodes at most (0 = none; MipOptions::max_nodes)
};

struct LatencyIpOptions {
    int subgraphs_per_accelerator = 1;  // q of Fig. 4; 1 = Fig. 3 (contiguous)
    WarmStart warm_start = WarmStart::automatic;
    std::size_t dp_max_ideals = 20'000;
    bool break_symmetry = true;  // order the accelerators by their first node (as above)
    std::optional<Assignment> initial;
    int log_level = 1;
    std::vector<std::string> cbc_arguments;
    long max_nodes = 0;  // CBC's branch-and-bound nodes at most (0 = none; MipOptions::max_nodes)
};

// One IP run: the split found and what CBC proved about it.
struct IpRun {
    std::optional<Assignment> assignment;  // none if infeasible / nothing found
    // Max-load (evaluate_assignment) or §4 latency (split_latency) of `assignment`.
    double objective = kMipInfinity;
    double ip_objective = kMipInfinity;  // CBC's incumbent value (∞ if CBC found none)
    double bound = -kMipInfinity;        // CBC's proven lower bound on the optimum
    double gap = kMipInfinity;           // (objective - bound) / objective
    MipStatus status = MipStatus::error;
    bool from_warm_start = false;  // CBC found nothing better than the warm start
    std::string warm_source;       // "dp", "dpl", "greedy", "cpu", "given" or "" (none)
    double warm_objective = kMipInfinity;
    bool warm_accepted = false;  // the warm start satisfied the model (CBC got it)
    double seconds = 0.0;        // total wall time (warm start + model + CBC)
    double mip_seconds = 0.0;    // CBC's wall time
    long nodes = 0;
    // The time limit ended the run (CBC stopped or was stopped, or no time was left for it):
    // `assignment` is the best split found so far.
    bool time_limit_hit = false;
    // The node budget (`nodes=N`) ended CBC's search: reproducible, unlike the time limit.
    bool node_limit_hit = false;
    int columns = 0, rows = 0;
    std::size_t nonzeros = 0;
};

IpRun solve_throughput_ip(const Workload& workload, const ThroughputIpOptions& ip,
                          const SolveOptions& options);
IpRun solve_latency_ip(const Workload& workload, const LatencyIpOptions& ip,
                       const SolveOptions& options);

// The §4 latency of a split given as q subgraph slots per accelerator, computed the way the
// Fig. 3/4 IP models it: slot[v] = 0 for the CPU pool, (i-1)·q + t for the t-th subgraph of
// accelerator i (t = 1..q, run in that order). ∞ if an accelerator is over memory, holds an
// unsupported node, or the subgraphs cannot be invoked once each (their dependencies form a
// cycle, e.g. a slot that is not contiguous).
double slot_latency(const Workload& workload, const std::vector<int>& slot, int q);

// tarnawski.ip_throughput and tarnawski.ip_latency as SplitSolvers (ip_solver.cpp), e.g.
// "tarnawski.ip_throughput:noncontiguous,time=60" or "tarnawski.ip_latency:q=2,time=60,gap=0.01";
// their keys are declared in register_solvers.cpp. time (wall seconds, the MIP's build
// included) and gap (relative) override SolveOptions::time_limit_s and relative_gap; with
// neither, the run stops after kDefaultSearchTimeLimit_s (split_solver.hpp) and time=0 removes
// the limit.
std::unique_ptr<SplitSolver> make_throughput_ip_solver(const std::string& spec,
                                                       const PlacerArguments& arguments);
std::unique_ptr<SplitSolver> make_latency_ip_solver(const std::string& spec,
                                                    const PlacerArguments& arguments);

}  // namespace hetsim::placement::tarnawski
