// Helpers shared by the tests of the tarnawski2020 split solvers (tests/placement/tarnawski/):
// creating a registered solver, checking its answer, Table 4's rows, small random latency
// instances and their exhaustive optimum.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/tarnawski_placer.hpp"
#include "placement/tarnawski/workload/workload.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski::solver_test {

inline constexpr double kInf = kLatencyInfinity;

inline SolveOptions latency_options(std::uint64_t seed = 1) {
    SolveOptions o;
    o.objective = SplitObjective::latency;
    o.seed = seed;
    return o;
}

// A solver from the one registry every built-in split solver is registered in.
inline std::unique_ptr<SplitSolver> create(const std::string& spec) {
    register_split_solvers();
    return SplitSolverRegistry::instance().create(spec);
}

// Checks a search's progress reports (SolveOptions::report): their units come in the order of
// `phases` (a phase may report nothing), each phase's `done` stays within [0, total] and never
// falls, and the best so far (a score in seconds, "" before there is one) never rises. Returns
// the last best (∞ without one).
inline double check_progress(const std::vector<SearchProgress>& reports,
                             const std::vector<std::string>& phases) {
    std::size_t phase = 0;
    long done = 0;
    double best = kInf;
    for (const SearchProgress& p : reports) {
        while (phase < phases.size() && p.unit != phases[phase]) {
            ++phase;
            done = 0;
        }
        EXPECT_LT(phase, phases.size()) << "unexpected unit '" << p.unit << "'";
        if (phase == phases.size())
            return best;
        EXPECT_GE(p.done, done) << p.unit;
        EXPECT_LE(p.done, p.total) << p.unit;
        EXPECT_GE(p.time_fraction, 0.0);
        EXPECT_LE(p.time_fraction, 1.0);
        done = p.done;
        if (!p.best.empty()) {
            const double b = std::stod(p.best);
            EXPECT_LE(b, best) << p.unit << " " << p.done;
            best = b;
        }
    }
    return best;
}

// Checks a solver's answer: the reported objective is the split's, and the split is complete.
inline LatencyReport check_result(const Workload& w, const SolveResult& r,
                                  SplitObjective objective) {
    const Assignment a = to_assignment(w, r.split);
    EXPECT_EQ(r.split.cpus.size(), static_cast<std::size_t>(w.max_cpus));
    EXPECT_EQ(r.split.accelerators.size(), static_cast<std::size_t>(w.max_accelerators));
    const double value = objective == SplitObjective::latency ? split_latency(w, a)
                                                              : evaluate_assignment(w, a).max_load;
    if (std::isfinite(value)) {
        EXPECT_NEAR(r.objective, value, 1e-9 * std::max(1.0, value));
    } else {
        EXPECT_EQ(r.objective, kInf);
    }
    return evaluate_latency(w, a);
}

struct Table4Row {
    const char* file;
    double greedy;  // Table 4, "Greedy" latency
    double ip;      // Table 4, "IP" latency
};

// Table 4's two latency workloads.
inline const Table4Row kTable4[] = {{"op_bert_l-3_inference.json", 416.20, 408.47},
                                    {"layer_bert24_inference.json", 100.22, 100.22}};

// Small random instances: DAG, memory that binds, some colour classes, non-uniform costs,
// a node unsupported on accelerators now and then.
inline Workload random_instance(std::mt19937_64& rng, int n, int k) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Workload w;
    w.max_accelerators = k;
    w.max_cpus = 1;
    double total = 0.0;
    for (int v = 0; v < n; ++v) {
        const double acc = 0.5 + 4.0 * u(rng);
        std::optional<std::int64_t> color;
        if (u(rng) < 0.25)
            color = 1000 + static_cast<std::int64_t>(rng() % 2);
        w.add_node(100 + v, acc * (1.5 + 6.0 * u(rng)), acc, 1.0 + 9.0 * u(rng), false,
                   u(rng) > 0.08, color);
        total += w.size.back();
    }
    w.max_size_per_accelerator = total * (0.3 + 0.4 * u(rng));
    for (int a = 0; a < n; ++a) {
        const double base = 0.2 + 4.0 * u(rng);
        const bool uniform = u(rng) < 0.7;
        for (int b = a + 1; b < n; ++b)
            if (u(rng) < 0.4)
                w.add_edge(a, b, uniform ? base : 0.2 + 4.0 * u(rng));
    }
    return w;
}

// min §4 latency over all assignments to CPU 0 and the accelerators (CPU cores are pooled).
inline double exhaustive_latency(const Workload& w, bool contiguous, int accelerators = -1) {
    const int n = static_cast<int>(w.node_count());
    const int k = accelerators < 0 ? w.max_accelerators : accelerators;
    const int choices = 1 + k;
    LatencyEvaluator evaluator(w);
    LatencyEvaluator::Options o;
    o.require_contiguous = contiguous;
    std::vector<int> dev(n, 0);
    double best = kInf;
    for_each_assignment(n, choices, [&](const std::vector<int>& digit) {
        for (int v = 0; v < n; ++v)
            dev[v] = digit[v] == 0 ? cpu_device(w, 0) : accelerator_device(w, digit[v] - 1);
        best = std::min(best, evaluator.latency(dev, o));
    });
    return best;
}

// The chain a -> b -> c -> d of the hand computations below: p^acc 4, 3, 2, 5 (p^cpu ten times
// that), outputs c_a = 1, c_b = 0.5, c_c = 2, sizes 1 each.
inline Workload hand_chain(int accelerators, int cpus, double memory) {
    Workload w;
    w.max_accelerators = accelerators;
    w.max_cpus = cpus;
    w.max_size_per_accelerator = memory;
    const double acc[] = {4, 3, 2, 5};
    for (int v = 0; v < 4; ++v)
        w.add_node(v, 10.0 * acc[v], acc[v], 1.0);
    w.add_edge(0, 1, 1.0);
    w.add_edge(1, 2, 0.5);
    w.add_edge(2, 3, 2.0);
    return w;
}

// Every node placed once (to_assignment checks it), colour classes together, memory kept.
inline void expect_valid(const Workload& w, const Split& split, const std::string& what,
                         bool memory = true) {
    Assignment a;
    ASSERT_NO_THROW(a = to_assignment(w, split)) << what;
    const LoadReport r = evaluate_assignment(w, a);
    EXPECT_TRUE(r.colocation_ok) << what;
    EXPECT_TRUE(r.supported_ok) << what;
    if (memory) {
        EXPECT_TRUE(r.memory_ok) << what;
    }
}

}  // namespace hetsim::placement::tarnawski::solver_test
