// `hetsim calibrate --bound` (tools/app/bound.hpp): the fewest rows any model monotone in a
// GEMM's sizes must get wrong, on hand-computed cases and against brute force over every subset
// of small random sets; the floors it prints; and its refusal of a file without GEMM rows.
#include "tools/app/bound.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "sim/config.hpp"
#include "tests/fixtures/calibrate_fixtures.hpp"
#include "tests/fixtures/cli_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::app {
namespace {

using Sizes = std::array<double, 4>;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;

Sizes mnk(double m, double n, double k) {
    return {1.0, m, n, k};
}

TEST(MonotoneBound, MonotoneTimesCostNothing) {
    // Larger in every size and slower: some monotone model is exact on every row.
    const std::vector<Sizes> sizes = {mnk(2, 2, 2), mnk(4, 4, 4), mnk(8, 8, 8), mnk(8, 2, 2)};
    const std::vector<double> times = {1e-6, 2e-6, 8e-6, 3e-6};
    const MonotoneFloor f = monotone_floor(sizes, times);
    EXPECT_EQ(f.inverted_pairs, 0u);
    // (2,2,2) <= each of the others, (4,4,4) <= (8,8,8), (8,2,2) <= (8,8,8).
    EXPECT_EQ(f.ordered_pairs, 5u);
    EXPECT_EQ(f.floor.median, 0.0);
    EXPECT_EQ(f.floor.p90, 0.0);
    EXPECT_EQ(f.floor.max, 0.0);
    EXPECT_EQ(f.must_exceed_5, 0u);
    EXPECT_TRUE(f.worst.empty());
}

TEST(MonotoneBound, OneInvertedPairSplitsItsRatio) {
    // (2,2,2) in 10 us but (4,4,4) in 5 us: predictions p1 <= p2 within x of both need
    // 10 (1 - x) <= 5 (1 + x), x >= 1/3. Below it one of the two rows must be wrong.
    const std::vector<Sizes> sizes = {mnk(2, 2, 2), mnk(4, 4, 4)};
    const std::vector<double> times = {10e-6, 5e-6};
    EXPECT_EQ(monotone_must_exceed(sizes, times, 0.0), 1u);
    EXPECT_EQ(monotone_must_exceed(sizes, times, 0.33), 1u);
    EXPECT_EQ(monotone_must_exceed(sizes, times, 1.0 / 3.0 + 1e-12), 0u);
    const MonotoneFloor f = monotone_floor(sizes, times);
    EXPECT_EQ(f.inverted_pairs, 1u);
    EXPECT_DOUBLE_EQ(f.floor.max, 1.0 / 3.0);
    // Of two rows the median and p90 interpolate from the smaller error, which can be 0.
    EXPECT_EQ(f.floor.median, 0.0);
    EXPECT_EQ(f.floor.p90, 0.0);
    ASSERT_EQ(f.worst.size(), 1u);
    EXPECT_EQ(f.worst[0].smaller, 0u);
    EXPECT_EQ(f.worst[0].larger, 1u);
    EXPECT_DOUBLE_EQ(f.worst[0].ratio, 2.0);
}

TEST(MonotoneBound, AChainCountsAMatchingNotItsPairs) {
    // A <= B <= C measured 10, 5 and 2.5 us. Exact predictions keep one row of three (2 wrong);
    // at x = 0.4 B and C fit ([3, 7] and [1.5, 3.5]) but A ([6, 14]) cannot sit below C: 1
    // wrong; from x = 0.6 (10 x 0.4 = 2.5 x 1.6; just above it, for rounding) none.
    const std::vector<Sizes> sizes = {mnk(2, 2, 2), mnk(3, 3, 3), mnk(4, 4, 4)};
    const std::vector<double> times = {10e-6, 5e-6, 2.5e-6};
    EXPECT_EQ(monotone_must_exceed(sizes, times, 0.0), 2u);
    EXPECT_EQ(monotone_must_exceed(sizes, times, 0.4), 1u);
    EXPECT_EQ(monotone_must_exceed(sizes, times, 0.6 + 1e-12), 0u);
    const MonotoneFloor f = monotone_floor(sizes, times);
    EXPECT_EQ(f.inverted_pairs, 3u);
    EXPECT_DOUBLE_EQ(f.floor.max, 0.6);
    // The median (rank 1 of 0..2) needs two rows within x: B and C fit from x = 1/3.
    EXPECT_DOUBLE_EQ(f.floor.median, 1.0 / 3.0);
    EXPECT_EQ(f.must_exceed_15, 2u);
}

TEST(MonotoneBound, RowsOfDifferentClassesAreNotCompared) {
    // The inverted pair of the test above, its rows in two classes (two row alignments): a
    // model may treat them apart, so nothing need be wrong. In one class the floor is back.
    const std::vector<Sizes> sizes = {mnk(2, 2, 2), mnk(4, 4, 4)};
    const std::vector<double> times = {10e-6, 5e-6};
    EXPECT_EQ(monotone_must_exceed(sizes, times, 0.0, {16 * 32 + 16, 2 * 32 + 16}), 0u);
    const MonotoneFloor apart = monotone_floor(sizes, times, {1, 2});
    EXPECT_EQ(apart.ordered_pairs, 0u);
    EXPECT_EQ(apart.floor.max, 0.0);
    EXPECT_DOUBLE_EQ(monotone_floor(sizes, times, {3, 3}).floor.max, 1.0 / 3.0);
}

TEST(MonotoneBound, IncomparableSizesNeverConflict) {
    // Neither (4,1,1) <= (1,4,1) nor the reverse: any times can be met exactly.
    const std::vector<Sizes> sizes = {mnk(4, 1, 1), mnk(1, 4, 1), {2.0, 1.0, 1.0, 1.0}};
    const std::vector<double> times = {1e-6, 9e-6, 4e-6};
    const MonotoneFloor f = monotone_floor(sizes, times);
    EXPECT_EQ(f.ordered_pairs, 0u);
    EXPECT_EQ(f.floor.max, 0.0);
}

// The fewest rows no monotone model can keep within x, by brute force: the largest subset S
// for which the least monotone assignment p_i = max over j in S below i of t_j (1 - x) stays
// within t_i (1 + x) (any monotone assignment within x is at least that one). Only rows of the
// same class (all, without classes) are below one another.
std::size_t brute_force_must_exceed(const std::vector<Sizes>& sizes,
                                    const std::vector<double>& times, double x,
                                    const std::vector<int>& classes = {}) {
    const std::size_t n = times.size();
    std::size_t best = 0;
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
        bool feasible = true;
        for (std::size_t i = 0; i < n && feasible; ++i) {
            if (!(mask & (1u << i)))
                continue;
            double least = 0.0;
            for (std::size_t j = 0; j < n; ++j) {
                const bool below = (classes.empty() || classes[i] == classes[j]) &&
                                   sizes[j][0] <= sizes[i][0] && sizes[j][1] <= sizes[i][1] &&
                                   sizes[j][2] <= sizes[i][2] && sizes[j][3] <= sizes[i][3];
                if ((mask & (1u << j)) && below)
                    least = std::max(least, times[j] * (1.0 - x));
            }
            feasible = least <= times[i] * (1.0 + x);
        }
        if (feasible)
            best = std::max<std::size_t>(best, static_cast<std::size_t>(__builtin_popcount(mask)));
    }
    return n - best;
}

TEST(MonotoneBound, MatchesBruteForceOnRandomSets) {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> side(1, 3);
    std::uniform_real_distribution<double> log_time(0.0, 1.5);
    for (int trial = 0; trial < 200; ++trial) {
        const std::size_t n = 2 + static_cast<std::size_t>(trial % 8);  // 2..9 rows
        std::vector<Sizes> sizes;
        std::vector<double> times;
        for (std::size_t i = 0; i < n; ++i) {
            sizes.push_back({static_cast<double>(side(rng) == 1 ? 2 : 1),
                             static_cast<double>(side(rng)), static_cast<double>(side(rng)),
                             static_cast<double>(side(rng))});
            times.push_back(1e-6 * std::pow(10.0, log_time(rng)));
        }
        // Every other trial also splits the rows into two classes (row alignments).
        std::vector<int> classes;
        for (std::size_t i = 0; trial % 2 == 1 && i < n; ++i)
            classes.push_back(side(rng) == 1 ? 1 : 0);
        for (double x : {0.0, 0.05, 0.15, 0.3, 0.6}) {
            ASSERT_EQ(monotone_must_exceed(sizes, times, x),
                      brute_force_must_exceed(sizes, times, x))
                << "trial " << trial << ", x = " << x;
            ASSERT_EQ(monotone_must_exceed(sizes, times, x, classes),
                      brute_force_must_exceed(sizes, times, x, classes))
                << "trial " << trial << " with classes, x = " << x;
        }
        // The max floor is the least x at which every row fits.
        const MonotoneFloor f = monotone_floor(sizes, times);
        EXPECT_EQ(brute_force_must_exceed(sizes, times, f.floor.max * (1.0 + 1e-9)), 0u)
            << "trial " << trial;
        if (f.floor.max > 0.0) {
            EXPECT_GT(brute_force_must_exceed(sizes, times, f.floor.max * (1.0 - 1e-9)), 0u)
                << "trial " << trial;
        }
    }
}

// A valid platform with a GPU "G" (the constants do not matter here).
const std::string kPlatform = hetsim::testing::platform_yaml(0.7, 0.8, "4 us", "12 GB/s");

TEST(MonotoneBound, CommandPrintsTheFloorPerGroup) {
    register_all();
    TempDir dir;
    const auto platform = dir.write("platform.yaml", kPlatform);
    // Two GEMMs inverted by 2x, one larger and slower, a bf16 GEMM (a group of its own) and a
    // convolution (no GEMM: skipped). Nothing here runs the DES: SystemC elaborates once per
    // process.
    const auto csv = dir.write("rows.csv",
                               "device,workload,knobs,scope,time_s\n"
                               "G,matmul,m=16;k=64;n=64,kernel,10e-6\n"
                               "G,matmul,m=32;k=64;n=64,kernel,5e-6\n"
                               "G,matmul,m=64;k=64;n=64,kernel,20e-6\n"
                               "G,matmul,m=16;k=64;n=64;bf16=1,kernel,7e-6\n"
                               "G,conv,height=8;width=8,kernel,2e-5\n");
    const BoundReport report = bound_platform(platform.string(), csv.string());
    EXPECT_EQ(report.skipped, 1u);
    ASSERT_EQ(report.groups.size(), 2u);
    const BoundGroup& f32 =
        report.groups[1].dtype == "float32" ? report.groups[1] : report.groups[0];
    EXPECT_EQ(f32.rows.size(), 3u);
    EXPECT_EQ(f32.any.inverted_pairs, 1u);
    EXPECT_DOUBLE_EQ(f32.any.floor.max, 5.0 / 15.0);
    EXPECT_EQ(f32.any.must_exceed_15, 1u);
    // Rows of 64 fp32 values: one alignment class, the same floor.
    EXPECT_EQ(f32.within_alignment.ordered_pairs, f32.any.ordered_pairs);
    EXPECT_DOUBLE_EQ(f32.within_alignment.floor.max, 5.0 / 15.0);

    const auto out = run_hetsim("calibrate " + platform.string() + " --bound " + csv.string());
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_THAT(out.output, HasSubstr("4 of 5 rows time a one-op GEMM"));
    EXPECT_THAT(out.output, HasSubstr("G, kernel, float32: 3 rows, 3 ordered pairs, 1 measured "
                                      "slower for the smaller size"));
    EXPECT_THAT(out.output,
                HasSubstr("max >= 33.3 %; at least 1 row more than 15 % off, 1 more than 5 %"));
    EXPECT_THAT(out.output, HasSubstr("within each row alignment of A and B (3 of the pairs, 1 "
                                      "inverted): median >= 0.0 %"));
    EXPECT_THAT(out.output, HasSubstr("16x64x64 10 us (line 2) vs 32x64x64 5 us (line 3): x2.00"));
}

TEST(MonotoneBound, RefusesAFileWithoutGemmRows) {
    register_all();
    TempDir dir;
    const auto platform = dir.write("platform.yaml", kPlatform);
    const auto csv = dir.write("copies.csv",
                               "device,workload,knobs,scope,time_s\n"
                               "G,copy,bytes=4096;direction=host_to_device,transfer,2e-5\n");
    const auto out = run_hetsim("calibrate " + platform.string() + " --bound " + csv.string());
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_THAT(out.output, HasSubstr("copies.csv: no row times a one-op GEMM (a graph of one "
                                      "MatMul or Gemm): --bound compares GEMM sizes"));
    const auto both = run_hetsim("calibrate " + platform.string() + " --bound " + csv.string() +
                                 " --check " + csv.string());
    EXPECT_NE(both.exit_code, 0);
}

}  // namespace
}  // namespace hetsim::app
