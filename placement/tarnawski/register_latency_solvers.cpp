// Registration of the latency-oriented SplitSolvers (latency_solvers.hpp).
#include "placement/tarnawski/latency_solvers.hpp"

namespace hetsim::placement::tarnawski {

void register_latency_solvers(SplitSolverRegistry& registry) {
    registry.add({"greedy", "greedy",
                  "tarnawski2020 §7 latency baseline: contract colour classes and cycles, fill "
                  "accelerators in one topological order up to their memory, rest on the CPU "
                  "(ignores costs; Table 4 'Greedy')",
                  make_latency_greedy_solver});
    registry.add({"local_search", "local_search[:restarts=N,steps=N,contiguous=0|1,time=S]",
                  "best single-block (colour class) moves until a local optimum (§6), 10 starts: "
                  "the greedy, all-CPU, then random splits (max-load) or random greedy fills "
                  "(latency), seeded; either objective, always memory-feasible; time=S (default "
                  "60, 0 = none)",
                  make_local_search_solver});
    registry.add({"one_accelerator", "one_accelerator[:rounds=N]",
                  "the best split found with at most one accelerator plus the CPUs (max-load DP "
                  "with k=1 for throughput, tarnawski.latency's search with k=1 for latency)",
                  make_one_accelerator_solver});
    registry.add({"expert", "expert:<split.json>",
                  "a fixed split from a JSON file (experts/*.json format), scored under the "
                  "objective (tarnawski2020 §6-7 human-expert baseline)",
                  make_expert_solver});
    registry.add({"tarnawski.latency",
                  "tarnawski.latency[:rounds=N,patience=N,orders=N,contiguous=0|1,dp=0|1,"
                  "both=0|1]",
                  "latency placer for tarnawski2020 §4: sequential-bound DP seeds over "
                  "linearizations + max-load DP/greedy/offloading-descent seeds, then iterated "
                  "block-move search under the exact §4 latency; memory-feasible, never worse "
                  "than greedy or local_search:restarts=2; contiguous=1 keeps every "
                  "accelerator's set contiguous (Table 4's IP space); over any split it also "
                  "runs the contiguous search and keeps the better split (both=0: off)",
                  make_latency_placer});
}

}  // namespace hetsim::placement::tarnawski
