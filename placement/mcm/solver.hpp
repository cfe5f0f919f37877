// mcm2022 §4.2's constraint solver on Gecode: one integer variable per op with domain
// 0..C-1, the static constraints (Eq. 2-4) posted as propagators, and the two ways of turning a
// distribution or a candidate into a valid partition:
//   SAMPLE (Algorithm 1): visit the ops in a node order; for each, sample a chip from p_u
//     restricted to its current domain, fix it, propagate, and backtrack on failure;
//   FIX (Algorithm 2): keep the candidate's chip for every op whose chip is still in its
//     domain (in the node order), then give the others random chips from their domains.
// Optionally (SolverOptions::weight_capacity) each chip's resident weights are bounded by its
// SRAM as a propagator too, so every partition it returns passes the analytical model's checks.
// Gecode stays inside solver.cpp: this header includes none of it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "placement/mcm/problem.hpp"

namespace hetsim::placement::mcm {

struct SolverOptions {
    // Post Σ weights of a chip <= its SRAM (a weight shared by several ops counted once per
    // chip) besides Eq. 2-4.
    bool weight_capacity = true;
    // Failures (backtracks) the first attempt of a call may meet before the solver restarts
    // with a fresh random node order and fresh draws; each further attempt of the same call
    // may meet twice as many as the one before (geometric restarts, capped at 2^20 times this),
    // so the common case restarts early out of a dead end while a hard instance still gets
    // long searches. <= 0: no limit (one attempt, a complete search).
    std::int64_t fail_limit = 100;
    // Attempts per call; a call that exhausts them returns nullopt.
    int max_attempts = 50;
    // Wall-clock deadline for a call (none = unlimited); past it the call returns nullopt.
    std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct SolverStats {
    std::int64_t calls = 0;
    std::int64_t solutions = 0;
    std::int64_t failures = 0;  // propagation failures (backtracks) over all calls
    std::int64_t restarts = 0;  // attempts abandoned at their failure limit
    std::int64_t attempts = 0;  // attempts started (restarts + the last one of each call)
    std::int64_t nodes = 0;     // search nodes (decisions tried) over all calls
    double seconds = 0.0;
};

class PartitionSolver {
public:
    PartitionSolver(const McmProblem& problem, SolverOptions options = {});
    ~PartitionSolver();
    PartitionSolver(const PartitionSolver&) = delete;
    PartitionSolver& operator=(const PartitionSolver&) = delete;

    // Algorithm 1 (SAMPLE). `p` is op_count x chip_count, row-major: op u's weight for chip c
    // (need not be normalised); empty = uniform. An op whose weights are all zero on its current
    // domain samples uniformly from the domain. `order` is the node order (a permutation of the
    // op ids); empty = a fresh uniformly random order per attempt, as §4.2 does by default.
    // Returns a partition satisfying Eq. 2-4 (and the weight capacity when enabled), or
    // nullopt when none was found within the options' limits (or none exists).
    std::optional<std::vector<int>> sample(const std::vector<double>& p, std::mt19937_64& rng,
                                           const std::vector<int>& order = {});

    // Algorithm 2 (FIX): `candidate` is a chip per op (any values in 0..C-1).
    std::optional<std::vector<int>> fix(const std::vector<int>& candidate, std::mt19937_64& rng,
                                        const std::vector<int>& order = {});

    const SolverStats& stats() const { return stats_; }
    const McmProblem& problem() const { return *problem_; }

private:
    struct Impl;
    const McmProblem* problem_;
    SolverOptions options_;
    SolverStats stats_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace hetsim::placement::mcm
