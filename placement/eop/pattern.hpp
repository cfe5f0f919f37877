// EOP's performance patterns (xu2022 §3.2, Fig. 4, Algorithm 1 lines 4-6): an operator's
// execution time as a function of the extent of one partition dimension follows one of three
// shapes, and EOP fits all three to sampled (size, time) points and keeps the least-error one.
//
// - constant: time does not depend on the dimension (Split, or Dense along a dimension that
//   does not change the work the device does).
// - linear: a + b*size. Mostly on GPUs, where the work is spread over so many lanes that
//   time grows smoothly with it.
// - staircase: a + b*ceil(size/w). Work is issued in indivisible units: on a GPU whole waves
//   of thread blocks or whole tiles, on a CPU whole SIMD vectors and whole per-thread chunks.
//   A size that spills one element into a new unit pays for the whole unit, so time stays
//   flat over w sizes and then jumps (the paper sees it mostly on CPUs, Fig. 4(e), (g)).
//
// Errors are relative (each sample's residual divided by its time) because the samples of one
// operator span orders of magnitude: in absolute terms the few large sizes would dominate the
// fit and the pattern would be free to be wildly wrong on the small sub-operators that
// partitioning produces, which is exactly where EOP evaluates it (Step 3, ratios alpha*d).
#pragma once

#include <string_view>
#include <vector>

namespace hetsim::placement::eop {

enum class PatternKind { constant, linear, staircase };
std::string_view to_string(PatternKind kind);  // "constant", "linear", "staircase"

struct Sample {
    double size = 0.0;    // extent of the partition dimension (>= 1)
    double time_s = 0.0;  // measured time (> 0)
};

struct Pattern {
    PatternKind kind = PatternKind::constant;
    double intercept_s = 0.0;  // a
    double slope_s = 0.0;      // b: per unit of size (linear) or per step (staircase)
    double step = 1.0;         // staircase step width w in size units (1 for the others)
    // Relative RMS error over the samples it was fitted to. +infinity for a staircase that
    // could not be fitted (no step width splits the samples into at least two steps), so
    // that it is never chosen.
    double error = 0.0;
    // constant: a; linear: a + b*size; staircase: a + b*ceil(size/step). Never below 0.
    double predict_s(double size) const;
};

// The three fits, in the order constant, linear, staircase. Throws std::invalid_argument for
// fewer than 1 sample, a non-positive time or a size < 1 (message says which sample).
std::vector<Pattern> fit_patterns(const std::vector<Sample>& samples);

// The least-error pattern; a tie (within 1e-12 relative) goes to the simpler (constant, then
// linear, then staircase).
Pattern best_pattern(const std::vector<Sample>& samples);

}  // namespace hetsim::placement::eop
