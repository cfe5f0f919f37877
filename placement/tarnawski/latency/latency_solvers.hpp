// tarnawski.latency, our placer for the §4 single-sample latency: sequential-bound DP /
// max-load DP / greedy / offloading-descent seeds, then iterated class-move search under the
// exact §4 latency; any split by default, contiguous=1 for Table 4's contiguous space. It
// reports its split's objective under SolveOptions::objective (§4 latency, or the §3 max-load
// for throughput).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/split_solver.hpp"

namespace hetsim::placement::tarnawski {

// The solver of a spec; its keys (rounds, patience, orders, contiguous, dp, both) are declared
// in register_solvers.cpp.
std::unique_ptr<SplitSolver> make_latency_placer(const std::string& spec,
                                                 const PlacerArguments& arguments);

// tarnawski.latency's search, also used by one_accelerator.
//  1. seeds: the §7 greedy (stack and queue orders), the max-load DP and DPL splits (§5.1; for
//     latency run with one CPU, since §4 pools the cores), and the sequential-bound DP
//     (latency_search.hpp) over the stack, queue and `orders` random topological orders of
//     the blocks (colour classes and the cycles they close contracted, App. B), and
//     local_search's first two starts: steepest descents from the greedy and from the
//     all-CPU split (so the result is never worse than local_search:restarts=2);
//  2. the four best distinct seeds are improved by first-improvement descent whose moves put
//     one colour class on another device, under the exact objective (split_latency);
//  3. iterated local search: perturb the current split (a random walk of 1-4 feasible class
//     moves, or every fourth round a fresh sequential-DP seed from a random order), descend,
//     keep the result if no worse, and go back to the best after 16 failures in a row; stop
//     after `rounds` rounds or `patience` rounds without a new best;
//  4. a final steepest descent (best move of the whole neighbourhood) on the best split.
// Every step keeps splits feasible (memory, support, colour classes, no deadlock) and, with
// contiguous = true, every accelerator's nodes contiguous (Def. 3.1, as the Fig. 3 IP and
// Table 4), so the result is never worse than the greedy seed. Deterministic for a seed
// (SolveOptions::seed) unless the time limit (SolveOptions::time_limit_s) cuts it short; the
// DP seeds do not check the time limit (they take well under a second on the shared graphs).
// Arguments of the spec: rounds=N, patience=N, orders=N, contiguous=0|1, dp=0|1.
struct LatencyPlacerParams {
    std::uint64_t rounds = 200;   // at most this many perturbation rounds
    std::uint64_t patience = 50;  // stop after this many rounds without a new best
    std::uint64_t orders = 16;    // random linearizations for sequential-DP seeds
    // Restrict accelerators to contiguous sets (Table 4's IP space). Off by default: §4 runs a
    // non-contiguous accelerator's pieces one at a time, and the larger space is never worse
    // in practice (ResNet50 layer graph 188.90 against 201.55; tight-memory BERT-base 0.63 s
    // against 1.89 s).
    bool contiguous = false;
    bool dp_seeds = true;  // max-load DP / DPL seeds
    // Over any split, also run the search restricted to contiguous splits and return the better
    // result (each search gets half of the time budget): the unrestricted moves rarely reach the
    // contiguous optima (Table 4's BERT-12 op graph: 729.5699 unrestricted, 729.5671 contiguous;
    // BERT-6: 438.0636 against 438.0625). both=0 runs the unrestricted search alone.
    bool both_spaces = true;
    int accelerators = -1;  // usable accelerators (negative: all k)
    std::string name = "tarnawski.latency";
    // Progress reports (SolveOptions::report) of one of both searches: its units say which
    // ("seeds (any splits)"), and its best so far starts at the first search's.
    std::string progress_space;
    double progress_best_before = kLatencyInfinity;
};
SolveResult place_for_latency(const Workload& workload, const SolveOptions& options,
                              const LatencyPlacerParams& params);

}  // namespace hetsim::placement::tarnawski
