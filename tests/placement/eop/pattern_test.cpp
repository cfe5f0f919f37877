// EOP's performance patterns (xu2022 §3.2): exact synthetic linear, staircase and constant
// data are each recognised with their parameters recovered; the constant tie goes to the
// simplest pattern; noisy linear data still predicts unsampled sizes; the fit minimises the
// relative error (checked against hand-computed optima); bad input names its sample.
#include "placement/eop/pattern.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace hetsim::placement::eop {
namespace {

std::vector<Sample> sampled(int first, int last, double (*time_of)(double)) {
    std::vector<Sample> samples;
    for (int n = first; n <= last; ++n) {
        samples.push_back({static_cast<double>(n), time_of(static_cast<double>(n))});
    }
    return samples;
}

void expect_rel_near(double actual, double expected, double rel_tol) {
    EXPECT_NEAR(actual, expected, rel_tol * std::abs(expected)) << "expected " << expected;
}

TEST(EopPatternTest, ToStringNamesEveryKind) {
    EXPECT_EQ(to_string(PatternKind::constant), "constant");
    EXPECT_EQ(to_string(PatternKind::linear), "linear");
    EXPECT_EQ(to_string(PatternKind::staircase), "staircase");
}

TEST(EopPatternTest, FitPatternsReturnsThreeInDocumentedOrder) {
    const auto samples = sampled(1, 16, [](double n) { return 1e-6 + 1e-7 * n; });
    const std::vector<Pattern> fits = fit_patterns(samples);
    ASSERT_EQ(fits.size(), 3u);
    EXPECT_EQ(fits[0].kind, PatternKind::constant);
    EXPECT_EQ(fits[1].kind, PatternKind::linear);
    EXPECT_EQ(fits[2].kind, PatternKind::staircase);
    EXPECT_EQ(fits[0].step, 1.0);
    EXPECT_EQ(fits[1].step, 1.0);
    EXPECT_EQ(fits[0].slope_s, 0.0);
}

TEST(EopPatternTest, RecoversExactLinearData) {
    const auto samples = sampled(1, 64, [](double n) { return 2e-6 + 3e-7 * n; });
    const Pattern best = best_pattern(samples);
    EXPECT_EQ(best.kind, PatternKind::linear);
    expect_rel_near(best.intercept_s, 2e-6, 1e-9);
    expect_rel_near(best.slope_s, 3e-7, 1e-9);
    EXPECT_LT(best.error, 1e-12);
    // The other two cannot follow a line: their errors must be clearly worse.
    const std::vector<Pattern> fits = fit_patterns(samples);
    EXPECT_GT(fits[0].error, 0.1);
    EXPECT_GT(fits[2].error, 1e-3);
}

TEST(EopPatternTest, RecoversExactStaircaseData) {
    const auto samples = sampled(1, 64, [](double n) { return 5e-6 + 4e-6 * std::ceil(n / 8.0); });
    const Pattern best = best_pattern(samples);
    EXPECT_EQ(best.kind, PatternKind::staircase);
    EXPECT_EQ(best.step, 8.0);
    expect_rel_near(best.intercept_s, 5e-6, 1e-9);
    expect_rel_near(best.slope_s, 4e-6, 1e-9);
    EXPECT_LT(best.error, 1e-12);
    // Flat within a step, jumping by b at the step boundary.
    EXPECT_DOUBLE_EQ(best.predict_s(17.0), best.predict_s(24.0));
    expect_rel_near(best.predict_s(25.0) - best.predict_s(24.0), 4e-6, 1e-9);
    // A line through a staircase misses by a visible fraction.
    EXPECT_GT(fit_patterns(samples)[1].error, 0.01);
}

TEST(EopPatternTest, ConstantDataTieGoesToConstant) {
    const auto samples = sampled(1, 32, [](double) { return 7e-6; });
    const std::vector<Pattern> fits = fit_patterns(samples);
    // All three fit exactly (slope 0) ...
    for (const Pattern& p : fits) {
        EXPECT_LT(p.error, 1e-12) << to_string(p.kind);
    }
    // ... and the simplest wins the tie.
    const Pattern best = best_pattern(samples);
    EXPECT_EQ(best.kind, PatternKind::constant);
    expect_rel_near(best.intercept_s, 7e-6, 1e-12);
    EXPECT_DOUBLE_EQ(best.predict_s(1000.0), best.intercept_s);
}

TEST(EopPatternTest, NoisyLinearDataPredictsUnsampledSizes) {
    std::mt19937 rng(20220101u);
    std::uniform_real_distribution<double> noise(-0.01, 0.01);
    const auto truth = [](double n) { return 2e-6 + 3e-7 * n; };
    const std::vector<int> held_out = {17, 40, 63};
    std::vector<Sample> samples;
    for (int n = 1; n <= 64; ++n) {
        if (std::find(held_out.begin(), held_out.end(), n) != held_out.end()) {
            continue;
        }
        const double size = static_cast<double>(n);
        samples.push_back({size, truth(size) * (1.0 + noise(rng))});
    }
    const std::vector<Pattern> fits = fit_patterns(samples);
    const Pattern& linear = fits[1];
    // Uniform +-1 % noise has an RMS of 1/sqrt(3) %: the line explains everything else.
    EXPECT_LT(linear.error, 0.01);
    expect_rel_near(linear.slope_s, 3e-7, 0.03);
    const Pattern best = best_pattern(samples);
    EXPECT_TRUE(best.kind == PatternKind::linear || best.error > linear.error - 0.01)
        << "best " << to_string(best.kind) << " error " << best.error;
    for (const int n : held_out) {
        const double size = static_cast<double>(n);
        expect_rel_near(best.predict_s(size), truth(size), 0.03);
        expect_rel_near(linear.predict_s(size), truth(size), 0.03);
    }
    expect_rel_near(linear.predict_s(96.0), truth(96.0), 0.03);
}

TEST(EopPatternTest, ConstantFitMinimisesRelativeNotAbsoluteError) {
    // Two samples three decades apart. In absolute terms the best constant is their mean,
    // ~0.5 ms, 500x off the small one; minimising sum(((a - t_i)/t_i)^2) instead gives
    // a = (1/t1 + 1/t2) / (1/t1^2 + 1/t2^2), which stays close to the small sample.
    const double t1 = 1e-6;
    const double t2 = 1e-3;
    const std::vector<Sample> samples = {{1.0, t1}, {1.0, t2}};
    const double a = (1.0 / t1 + 1.0 / t2) / (1.0 / (t1 * t1) + 1.0 / (t2 * t2));
    const double r1 = (a - t1) / t1;
    const double r2 = (a - t2) / t2;
    const double error = std::sqrt((r1 * r1 + r2 * r2) / 2.0);

    const std::vector<Pattern> fits = fit_patterns(samples);
    expect_rel_near(fits[0].intercept_s, a, 1e-9);
    expect_rel_near(fits[0].error, error, 1e-9);
    EXPECT_LT(fits[0].intercept_s, 1.01e-6);
    // One distinct size: the linear fit has no slope and equals the constant fit.
    EXPECT_EQ(fits[1].slope_s, 0.0);
    expect_rel_near(fits[1].intercept_s, a, 1e-9);
}

TEST(EopPatternTest, LinearFitThroughTwoPointsIsExact) {
    // Wildly different magnitudes; a line through two points fits both exactly regardless.
    const std::vector<Sample> samples = {{1.0, 1e-6}, {1000.0, 2e-2}};
    const Pattern linear = fit_patterns(samples)[1];
    const double slope_s = (2e-2 - 1e-6) / 999.0;
    expect_rel_near(linear.slope_s, slope_s, 1e-9);
    expect_rel_near(linear.intercept_s, 1e-6 - slope_s, 1e-9);
    EXPECT_LT(linear.error, 1e-9);
    EXPECT_EQ(best_pattern(samples).kind, PatternKind::linear);
}

TEST(EopPatternTest, LinearFitWeightsSmallSamplesEqually) {
    // Three points with an outlier-ish large sample: relative weighting balances the relative
    // residuals; check the normal equations of the relative objective hold (the gradient of
    // sum(r_i^2), r_i = (a + b*x_i - t_i)/t_i, vanishes) and that the small samples keep a
    // small relative residual even though the large one is three decades bigger.
    const std::vector<Sample> samples = {{1.0, 1e-6}, {2.0, 2e-6}, {1000.0, 5e-3}};
    const Pattern linear = fit_patterns(samples)[1];
    double grad_a = 0.0;
    double grad_b = 0.0;
    for (const Sample& s : samples) {
        const double r = (linear.intercept_s + linear.slope_s * s.size - s.time_s) / s.time_s;
        grad_a += r / s.time_s;
        grad_b += r * s.size / s.time_s;
    }
    EXPECT_NEAR(grad_a * 1e-6, 0.0, 1e-9);
    EXPECT_NEAR(grad_b * 1e-6, 0.0, 1e-6);
    // An absolute fit would pass near the 5 ms point and miss the 1 us one by ~100 %.
    for (const Sample& s : samples) {
        EXPECT_LT(std::abs(linear.predict_s(s.size) - s.time_s) / s.time_s, 0.8);
    }
}

TEST(EopPatternTest, StaircaseWithoutTwoStepsIsNeverChosen) {
    // Sizes 1 and 2: the only candidate width 2 puts both on one step.
    const std::vector<Sample> samples = {{1.0, 1e-6}, {2.0, 3e-6}};
    const std::vector<Pattern> fits = fit_patterns(samples);
    EXPECT_EQ(fits[2].kind, PatternKind::staircase);
    EXPECT_EQ(fits[2].error, std::numeric_limits<double>::infinity());
    EXPECT_EQ(best_pattern(samples).kind, PatternKind::linear);
    // A single sample: constant is exact and wins.
    const Pattern single = best_pattern({{4.0, 2e-6}});
    EXPECT_EQ(single.kind, PatternKind::constant);
    expect_rel_near(single.intercept_s, 2e-6, 1e-12);
}

TEST(EopPatternTest, LargeSizesUseBoundedStepCandidates) {
    // max_size 2e6 would mean ~1e6 integer widths; the geometric candidate set (spacing
    // ~0.3 %) must still reach a step of 65536, far beyond the first 4096 integers.
    std::vector<Sample> samples;
    for (double n = 1000.0; n <= 2.0e6; n += 7919.0) {
        samples.push_back({n, 1e-5 + 2e-6 * std::ceil(n / 65536.0)});
    }
    const Pattern best = best_pattern(samples);
    EXPECT_EQ(best.kind, PatternKind::staircase);
    EXPECT_NEAR(best.step, 65536.0, 0.005 * 65536.0);
    EXPECT_LT(best.error, 0.02);
    EXPECT_LT(best.error, 0.5 * fit_patterns(samples)[1].error);
}

TEST(EopPatternTest, PredictionNeverNegative) {
    // A steep decreasing line crosses zero just past the samples.
    const std::vector<Sample> samples = {{1.0, 1e-3}, {2.0, 1e-6}};
    const Pattern linear = fit_patterns(samples)[1];
    ASSERT_LT(linear.slope_s, 0.0);
    EXPECT_EQ(linear.predict_s(10.0), 0.0);
    EXPECT_GE(linear.predict_s(2.5), 0.0);
    Pattern stair;
    stair.kind = PatternKind::staircase;
    stair.intercept_s = 1e-6;
    stair.slope_s = -1e-6;
    stair.step = 4.0;
    EXPECT_EQ(stair.predict_s(100.0), 0.0);
    Pattern constant;
    constant.intercept_s = -1.0;
    EXPECT_EQ(constant.predict_s(1.0), 0.0);
}

void expect_invalid(const std::vector<Sample>& samples, const std::string& needle) {
    try {
        fit_patterns(samples);
        ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_THROW(best_pattern(samples), std::invalid_argument);
}

TEST(EopPatternTest, BadInputThrowsNamingTheSample) {
    expect_invalid({}, "no samples");
    expect_invalid({{1.0, 1e-6}, {2.0, 0.0}}, "sample 1");
    expect_invalid({{1.0, 1e-6}, {2.0, 2e-6}, {3.0, -1e-6}}, "sample 2");
    expect_invalid({{0.0, 1e-6}}, "sample 0");
    expect_invalid({{1.0, 1e-6}, {0.5, 1e-6}}, "sample 1");
    expect_invalid({{1.0, std::nan("")}}, "sample 0");
    expect_invalid({{1.0, 1e-6}, {std::nan(""), 1e-6}}, "sample 1");
}

}  // namespace
}  // namespace hetsim::placement::eop
