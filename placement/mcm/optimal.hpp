// mcm.optimal's exact search: branch and bound on Gecode over the solver's model (Eq. 2-4 and
// the chips' weight capacity, solver.hpp) with the §5.1 analytical time per sample
// (analytic.hpp) as the objective. Started from an incumbent (the adjacent-cut chain DP's
// partition, chain_dp.hpp) and a proven lower bound (the relaxed chain DP), it stops as soon as
// the incumbent meets the bound, else when the search space is exhausted (proven optimal) or
// at the deadline (best found so far, not proven). Gecode stays inside optimal.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "placement/mcm/problem.hpp"

namespace hetsim::placement::mcm {

struct OptimalOptions {
    // A valid partition to start from (its time is the first bound to beat); empty = none.
    // solve_optimal throws std::invalid_argument when it breaks Eq. 2-4 or the SRAM bound.
    std::vector<int> incumbent;
    // A proven lower bound on the optimum (0 = none): the search stops once the incumbent is
    // within `relative_gap` of it.
    double lower_bound_s = 0.0;
    double relative_gap = 1e-9;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // Branch-and-bound nodes at most (0 = none): the work budget. A search it stops returns the
    // same partition on every run, which one stopped at the deadline need not.
    std::int64_t node_limit = 0;
    // Hears the nodes explored so far and the best time per sample (0 before one), every few
    // thousand nodes. Empty = none.
    std::function<void(std::int64_t nodes, double best_s)> on_progress;
};

struct OptimalResult {
    bool found = false;   // a valid partition is known (the incumbent or a better one)
    bool proven = false;  // it is optimal: the search finished, or it meets the lower bound
    double time_per_sample_s = 0.0;
    std::vector<int> chip_of_op;
    std::int64_t nodes = 0;
    std::int64_t failures = 0;
    bool node_limit_hit = false;  // OptimalOptions::node_limit ended the search
    double seconds = 0.0;
};

OptimalResult solve_optimal(const McmProblem& problem, const OptimalOptions& options = {});

}  // namespace hetsim::placement::mcm
