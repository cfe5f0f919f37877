// A small mixed-integer programming layer over COIN-OR CBC for tarnawski2020's integer
// programs (Fig. 3/4 latency, Fig. 6 max-load). Only std types appear here: CBC's headers stay
// in cbc_mip.cpp.
//
// The model is built row by row (MipModel), then solve_mip() loads it into an
// OsiClpSolverInterface and runs it through CbcMain0/CbcMain1, i.e. the `cbc` stand-alone
// driver, so that CBC's preprocessing, cut generators and primal heuristics all run (a bare
// CbcModel::branchAndBound() runs none of them unless configured one by one). A full column
// vector can be passed as a MIP start; CBC completes and checks it and keeps it as the first
// incumbent.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace hetsim::placement::tarnawski {

inline constexpr double kMipInfinity = std::numeric_limits<double>::infinity();

// A minimisation MIP: columns with bounds, costs and integrality; rows lower <= a·x <= upper.
class MipModel {
public:
    // Adds a column and returns its index. Names are for logs and the MIP start; they are made
    // unique by appending the index when empty or repeated.
    int add_column(double lower, double upper, double cost, bool integer, std::string name = {});
    int add_binary(std::string name = {}, double cost = 0.0) {
        return add_column(0.0, 1.0, cost, true, std::move(name));
    }
    int add_continuous(double lower, double upper, std::string name = {}, double cost = 0.0) {
        return add_column(lower, upper, cost, false, std::move(name));
    }

    using Terms = std::vector<std::pair<int, double>>;  // (column, coefficient)
    // lower <= Σ coefficient·x[column] <= upper; repeated columns are summed, zeros dropped.
    int add_row(const Terms& terms, double lower, double upper);
    int add_le(const Terms& terms, double upper) { return add_row(terms, -kMipInfinity, upper); }
    int add_ge(const Terms& terms, double lower) { return add_row(terms, lower, kMipInfinity); }
    int add_eq(const Terms& terms, double value) { return add_row(terms, value, value); }

    void set_bounds(int column, double lower, double upper);
    void set_cost(int column, double cost);

    int columns() const { return static_cast<int>(column_lower_.size()); }
    int rows() const { return static_cast<int>(row_lower_.size()); }
    std::size_t nonzeros() const { return row_columns_.size(); }
    const std::string& column_name(int column) const { return column_names_.at(column); }

    // The largest violation of a bound, a row or integrality by `x` (0 = feasible), and where.
    double max_violation(const std::vector<double>& x, std::string* where = nullptr) const;
    double objective_of(const std::vector<double>& x) const;

private:
    friend struct MipSolverAccess;
    std::vector<double> column_lower_, column_upper_, column_cost_;
    std::vector<std::uint8_t> column_integer_;
    std::vector<std::string> column_names_;
    std::vector<double> row_lower_, row_upper_;
    std::vector<std::size_t> row_start_{0};  // CSR
    std::vector<int> row_columns_;
    std::vector<double> row_values_;
};

struct MipOptions {
    double time_limit_s = 0.0;  // wall-clock seconds, 0 = none
    // Branch-and-bound nodes at most, 0 = none (CBC's -maxNodes). A search stopped by it ends at
    // the same node on every run with the same seed, so its result is reproducible, which a
    // search stopped by the clock is not.
    long max_nodes = 0;
    double relative_gap = 0.0;  // stop when (incumbent - bound) / |incumbent| <= gap
    std::uint64_t seed = 1;     // CBC's random seed (heuristics, tie breaking)
    // CBC log lines go here (one line per message), never to stdout; null = quiet.
    std::ostream* progress = nullptr;
    // CBC's -log when `progress` is set: 0 = quiet, 1 = normal (higher values are capped at 1:
    // CBC's sub-MIP preprocessing would print on stdout).
    int log_level = 1;
    std::vector<double> warm_start;    // a full column vector (MIP start); empty = none
    std::string log_prefix = "cbc: ";  // prepended to every progress line
    // Extra `cbc` command-line arguments, inserted before -solve (e.g. {"-cuts", "off"}).
    std::vector<std::string> extra_arguments;
    // Called as the tree search goes, at most every 0.2 s: the nodes so far and the incumbent's
    // objective (kMipInfinity before one). Empty = none. With a time limit CBC runs in a child
    // process, whose reports reach it through a pipe.
    std::function<void(long nodes, double incumbent)> on_progress;
};

enum class MipStatus {
    optimal,      // proven optimal (within the gap)
    feasible,     // stopped (time limit) with an incumbent
    infeasible,   // proven infeasible
    no_solution,  // stopped without an incumbent
    error,        // CBC failed (unbounded, numerical trouble)
};
const char* to_string(MipStatus status);

struct MipResult {
    MipStatus status = MipStatus::error;
    double objective = kMipInfinity;    // of `solution`
    double best_bound = -kMipInfinity;  // proven lower bound
    double gap = kMipInfinity;          // (objective - bound) / max(|objective|, 1e-9)
    std::vector<double> solution;       // empty unless feasible/optimal
    double seconds = 0.0;               // wall time of the CBC run
    long nodes = 0;                     // branch-and-bound nodes
    bool warm_start_accepted = false;   // the MIP start passed our own feasibility check
    std::string error;                  // CBC's exception text when status == error
    // CBC did not return by its time limit (+5 % + 0.5 s) and was stopped (no_solution).
    bool stopped_at_deadline = false;
    bool stopped_at_node_limit = false;  // MipOptions::max_nodes ended the search
    bool has_solution() const { return !solution.empty(); }
};

MipResult solve_mip(const MipModel& model, const MipOptions& options = {});

}  // namespace hetsim::placement::tarnawski
