// Fitting EOP's three performance patterns (xu2022 §3.2 Step 2). Every model is linear in its
// parameters once the staircase step w is fixed, so each fit is a weighted linear least-squares
// problem: row i is scaled by 1/t_i, which turns the objective into the relative error the
// patterns are compared by (see pattern.hpp for why relative).
#include "placement/eop/pattern.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Dense>

namespace hetsim::placement::eop {
namespace {

// Errors are already relative to the sample times, so two fits whose errors differ by less
// than this are the same fit up to rounding; the simpler one (or the smaller step) wins.
constexpr double kTieTolerance = 1e-12;

// At most this many staircase step widths are tried. Beyond that the widths are spaced
// geometrically: the fit is a cheap O(n) least-squares solve per width, but sizes sampled up
// to millions would make an exhaustive scan quadratic for no gain, since a step that large
// is only resolvable to a few per cent anyway.
constexpr std::size_t kMaxStepCandidates = 4096;

bool strictly_better(double candidate_error, double best_error) {
    if (std::isinf(best_error)) {
        return candidate_error < best_error;  // inf - tolerance*inf would be NaN
    }
    return candidate_error < best_error - kTieTolerance * std::max(1.0, best_error);
}

void validate(const std::vector<Sample>& samples) {
    if (samples.empty()) {
        throw std::invalid_argument("eop::fit_patterns: no samples (need at least 1)");
    }
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const Sample& s = samples[i];
        // Written as negated comparisons so that NaN is rejected too.
        if (!(std::isfinite(s.size) && s.size >= 1.0)) {
            throw std::invalid_argument("eop::fit_patterns: sample " + std::to_string(i) +
                                        " has size " + std::to_string(s.size) +
                                        " (must be finite and >= 1)");
        }
        if (!(std::isfinite(s.time_s) && s.time_s > 0.0)) {
            throw std::invalid_argument("eop::fit_patterns: sample " + std::to_string(i) +
                                        " has time_s " + std::to_string(s.time_s) +
                                        " (must be finite and > 0)");
        }
    }
}

double relative_rms_error(const Pattern& pattern, const std::vector<Sample>& samples) {
    double sum_sq = 0.0;
    for (const Sample& s : samples) {
        const double rel = (pattern.predict_s(s.size) - s.time_s) / s.time_s;
        sum_sq += rel * rel;
    }
    return std::sqrt(sum_sq / static_cast<double>(samples.size()));
}

// Minimises sum(((a + b*x_i - t_i) / t_i)^2) over a (and b when with_slope).
// Returns {a, b}; b = 0 without a slope.
Eigen::Vector2d weighted_fit(const std::vector<Sample>& samples,
                             const std::vector<double>& regressor, bool with_slope) {
    const auto n = static_cast<Eigen::Index>(samples.size());
    Eigen::MatrixXd design(n, with_slope ? 2 : 1);
    // Each row divided by t_i: the target t_i/t_i is 1.
    const Eigen::VectorXd target = Eigen::VectorXd::Ones(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const double inv_t = 1.0 / samples[static_cast<std::size_t>(i)].time_s;
        design(i, 0) = inv_t;
        if (with_slope) {
            design(i, 1) = regressor[static_cast<std::size_t>(i)] * inv_t;
        }
    }
    const Eigen::VectorXd params = design.colPivHouseholderQr().solve(target);
    return {params(0), with_slope ? params(1) : 0.0};
}

Pattern fit_constant(const std::vector<Sample>& samples) {
    const Eigen::Vector2d ab = weighted_fit(samples, {}, false);
    Pattern p;
    p.kind = PatternKind::constant;
    p.intercept_s = ab(0);
    p.error = relative_rms_error(p, samples);
    return p;
}

std::size_t distinct_count(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return static_cast<std::size_t>(std::unique(values.begin(), values.end()) - values.begin());
}

Pattern fit_linear(const std::vector<Sample>& samples) {
    std::vector<double> sizes;
    sizes.reserve(samples.size());
    for (const Sample& s : samples) {
        sizes.push_back(s.size);
    }
    Pattern p;
    p.kind = PatternKind::linear;
    if (distinct_count(sizes) < 2) {
        // A slope is not identifiable from one size: the best linear fit is the constant one.
        p.intercept_s = fit_constant(samples).intercept_s;
    } else {
        const Eigen::Vector2d ab = weighted_fit(samples, sizes, true);
        p.intercept_s = ab(0);
        p.slope_s = ab(1);
    }
    p.error = relative_rms_error(p, samples);
    return p;
}

// Integer step widths 2..max(2, floor(max_size/2)). A wider step would leave every sample on
// one of at most two steps: a single jump, which is no evidence of a repeating staircase.
std::vector<double> step_candidates(double max_size) {
    const double widest = std::max(2.0, std::floor(max_size / 2.0));
    const double count = widest - 2.0 + 1.0;
    std::vector<double> steps;
    if (count <= static_cast<double>(kMaxStepCandidates)) {
        for (double w = 2.0; w <= widest; w += 1.0) {
            steps.push_back(w);
        }
        return steps;
    }
    // Too many to scan: kMaxStepCandidates widths spaced geometrically from 2 to `widest`,
    // rounded to integers (duplicates at the narrow end removed).
    const double ratio = widest / 2.0;
    steps.reserve(kMaxStepCandidates);
    for (std::size_t k = 0; k < kMaxStepCandidates; ++k) {
        const double frac = static_cast<double>(k) / static_cast<double>(kMaxStepCandidates - 1);
        const double w = std::round(2.0 * std::pow(ratio, frac));
        if (steps.empty() || w > steps.back()) {
            steps.push_back(w);
        }
    }
    return steps;
}

Pattern fit_staircase(const std::vector<Sample>& samples) {
    Pattern best;
    best.kind = PatternKind::staircase;
    best.error = std::numeric_limits<double>::infinity();  // unless some step width fits

    double max_size = 0.0;
    for (const Sample& s : samples) {
        max_size = std::max(max_size, s.size);
    }
    std::vector<double> steps_taken(samples.size());
    for (const double w : step_candidates(max_size)) {
        for (std::size_t i = 0; i < samples.size(); ++i) {
            steps_taken[i] = std::ceil(samples[i].size / w);
        }
        // All samples on one step: the step height b is not identifiable at this width.
        if (distinct_count(steps_taken) < 2) {
            continue;
        }
        const Eigen::Vector2d ab = weighted_fit(samples, steps_taken, true);
        Pattern p;
        p.kind = PatternKind::staircase;
        p.intercept_s = ab(0);
        p.slope_s = ab(1);
        p.step = w;
        p.error = relative_rms_error(p, samples);
        // Widths are scanned in increasing order, so a tie keeps the smaller width.
        if (strictly_better(p.error, best.error)) {
            best = p;
        }
    }
    return best;
}

}  // namespace

std::string_view to_string(PatternKind kind) {
    switch (kind) {
        case PatternKind::constant:
            return "constant";
        case PatternKind::linear:
            return "linear";
        case PatternKind::staircase:
            return "staircase";
    }
    return "unknown";
}

double Pattern::predict_s(double size) const {
    double time_s = intercept_s;
    switch (kind) {
        case PatternKind::constant:
            break;
        case PatternKind::linear:
            time_s += slope_s * size;
            break;
        case PatternKind::staircase:
            time_s += slope_s * std::ceil(size / step);
            break;
    }
    // A fitted line may cross zero outside the sampled range; a time cannot.
    return std::max(0.0, time_s);
}

std::vector<Pattern> fit_patterns(const std::vector<Sample>& samples) {
    validate(samples);
    return {fit_constant(samples), fit_linear(samples), fit_staircase(samples)};
}

Pattern best_pattern(const std::vector<Sample>& samples) {
    const std::vector<Pattern> fits = fit_patterns(samples);
    // fits are ordered simplest first, so only a clearly lower error displaces the incumbent.
    Pattern best = fits.front();
    for (std::size_t i = 1; i < fits.size(); ++i) {
        if (strictly_better(fits[i].error, best.error)) {
            best = fits[i];
        }
    }
    return best;
}

}  // namespace hetsim::placement::eop
