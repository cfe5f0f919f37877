// bf16 conversion and lane arithmetic (silent_pim/bf16.hpp): hand-picked bit patterns for
// every case of round-to-nearest-even, and an independent reference (rounding via frexp and
// nearbyint in double, not the bit trick) on random inputs.
#include "silent_pim/bf16.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace hetsim::silent_pim {
namespace {

float f32(std::uint32_t bits) {
    return std::bit_cast<float>(bits);
}
std::uint16_t rne(std::uint32_t float_bits) {
    return bf16(f32(float_bits)).bits();
}

// Compile-time: the conversion is constexpr.
static_assert(bf16(1.0f).bits() == 0x3F80);
static_assert(bf16(-2.0f).bits() == 0xC000);
static_assert(bf16::from_bits(0x3F80).to_float() == 1.0f);

TEST(Bf16, ExactValuesConvertUnchanged) {
    EXPECT_EQ(bf16(0.0f).bits(), 0x0000);
    EXPECT_EQ(bf16(1.0f).bits(), 0x3F80);
    EXPECT_EQ(bf16(-1.5f).bits(), 0xBFC0);
    EXPECT_EQ(bf16(0.5f).bits(), 0x3F00);
    EXPECT_EQ(bf16(3.0f).bits(), 0x4040);
}

TEST(Bf16, TiesGoToEvenBothWays) {
    // 1 + 2^-8 is exactly halfway between 1.0 (0x3F80, even) and 1 + 2^-7 (0x3F81, odd).
    EXPECT_EQ(rne(0x3F808000), 0x3F80);  // tie, kept part even: rounds down
    // Halfway between 0x3F81 (odd) and 0x3F82 (even).
    EXPECT_EQ(rne(0x3F818000), 0x3F82);  // tie, kept part odd: rounds up
    // The same for negative numbers (magnitude rounding, sign unchanged).
    EXPECT_EQ(rne(0xBF808000), 0xBF80);
    EXPECT_EQ(rne(0xBF818000), 0xBF82);
    // Ties in another binade.
    EXPECT_EQ(rne(0x42C68000), 0x42C6);
    EXPECT_EQ(rne(0x42C78000), 0x42C8);
}

TEST(Bf16, NonTiesGoToNearest) {
    EXPECT_EQ(rne(0x3F807FFF), 0x3F80);  // just below half an ulp: down
    EXPECT_EQ(rne(0x3F808001), 0x3F81);  // just above: up (even though 0x3F80 is even)
    EXPECT_EQ(rne(0x3F817FFF), 0x3F81);  // just below the tie of an odd value: down
    EXPECT_EQ(rne(0x3F80FFFF), 0x3F81);
    EXPECT_EQ(rne(0xBF808001), 0xBF81);
}

TEST(Bf16, RoundingCarriesIntoTheExponent) {
    // 0x3FFF = 1.9921875 (odd); the tie above it rounds up to 2.0 (0x4000).
    EXPECT_EQ(rne(0x3FFF8000), 0x4000);
    EXPECT_EQ(bf16::from_bits(rne(0x3FFF8000)).to_float(), 2.0f);
    EXPECT_EQ(rne(0x3FFFFFFF), 0x4000);
}

TEST(Bf16, MaxFiniteAndOverflowToInfinity) {
    EXPECT_EQ(rne(0x7F7F0000), 0x7F7F);  // max finite bf16 is a float
    EXPECT_EQ(kBf16MaxFinite.to_float(), std::ldexp(2.0f - std::ldexp(1.0f, -7), 127));
    EXPECT_EQ(rne(0x7F7F7FFF), 0x7F7F);  // below max + half ulp: stays finite
    // Exactly max + half an ulp: a tie; max's last fraction bit is 1 (odd), so RNE goes up to
    // 2^128, which overflows to inf as IEEE roundTiesToEven does.
    EXPECT_EQ(rne(0x7F7F8000), 0x7F80);
    EXPECT_EQ(bf16(std::numeric_limits<float>::max()).bits(), 0x7F80);  // FLT_MAX -> inf
    EXPECT_EQ(rne(0xFF7F8000), 0xFF80);                                 // -inf
    EXPECT_EQ(rne(0xFF7F7FFF), 0xFF7F);
    EXPECT_TRUE(bf16(std::numeric_limits<float>::max()).is_inf());
}

TEST(Bf16, InfinitiesStayInfinite) {
    EXPECT_EQ(bf16(std::numeric_limits<float>::infinity()).bits(), 0x7F80);
    EXPECT_EQ(bf16(-std::numeric_limits<float>::infinity()).bits(), 0xFF80);
    EXPECT_TRUE(std::isinf(kBf16Inf.to_float()));
}

TEST(Bf16, NanStaysAQuietNan) {
    EXPECT_EQ(rne(0x7FC00000), 0x7FC0);  // canonical quiet NaN
    EXPECT_EQ(rne(0xFFC00000), 0xFFC0);  // sign kept
    // Signalling NaN with its payload only in the discarded low bits: naive truncation would
    // give 0x7F80 (inf); the conversion must give a quiet NaN.
    EXPECT_EQ(rne(0x7F800001), 0x7FC0);
    EXPECT_EQ(rne(0xFF800001), 0xFFC0);
    // All-ones payload: adding the rounding bias would carry into the sign bit.
    EXPECT_EQ(rne(0x7FFFFFFF), 0x7FFF);
    // Signalling NaN with payload in the kept bits: quiet bit set, top payload kept.
    EXPECT_EQ(rne(0x7FA00000), 0x7FE0);
    EXPECT_EQ(rne(0x7FBFFFFF), 0x7FFF);
    EXPECT_TRUE(bf16(std::numeric_limits<float>::quiet_NaN()).is_nan());
    EXPECT_TRUE(bf16(std::numeric_limits<float>::signaling_NaN()).is_nan());
    EXPECT_NE(bf16(std::numeric_limits<float>::signaling_NaN()).bits() & 0x0040, 0);
    EXPECT_TRUE(std::isnan(kBf16QuietNan.to_float()));
}

TEST(Bf16, SubnormalsAreKeptAndRounded) {
    // bf16 has fp32's exponent range, so its subnormals are floats 0x0000_0000 .. 0x007F_0000
    // in steps of 0x0001_0000: no flush to zero.
    EXPECT_EQ(rne(0x00010000), 0x0001);  // min subnormal 2^-133
    EXPECT_EQ(kBf16MinSubnormal.to_float(), std::ldexp(1.0f, -133));
    EXPECT_EQ(rne(0x00008000), 0x0000);  // tie between 0 (even) and min subnormal
    EXPECT_EQ(rne(0x00008001), 0x0001);
    EXPECT_EQ(rne(0x00018000), 0x0002);  // tie between 0x0001 (odd) and 0x0002
    EXPECT_EQ(rne(0x00028000), 0x0002);  // tie between 0x0002 (even) and 0x0003
    EXPECT_EQ(rne(0x00000001), 0x0000);  // smallest float subnormal underflows to +0
    EXPECT_EQ(rne(0x80000001), 0x8000);  // ... and to -0 when negative
    EXPECT_EQ(rne(0x007F0000), 0x007F);  // largest bf16 subnormal
    EXPECT_EQ(rne(0x007F8000), 0x0080);  // tie above it (odd) carries into min normal
    EXPECT_EQ(rne(0x007FFFFF), 0x0080);  // largest float subnormal -> min normal
    EXPECT_EQ(kBf16MinNormal.to_float(), std::numeric_limits<float>::min());
    EXPECT_EQ(rne(0x80018000), 0x8002);
}

TEST(Bf16, NegativeZero) {
    EXPECT_EQ(bf16(-0.0f).bits(), 0x8000);
    EXPECT_TRUE(std::signbit(bf16::from_bits(0x8000).to_float()));
    EXPECT_EQ(bf16::from_bits(0x8000).to_float(), 0.0f);
    EXPECT_TRUE(bf16(-0.0f).sign_bit());
    EXPECT_FALSE(bf16(0.0f).sign_bit());
}

TEST(Bf16, ToFloatIsExactAndRoundTripsEveryPattern) {
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const bf16 b = bf16::from_bits(static_cast<std::uint16_t>(bits));
        const float f = b.to_float();
        ASSERT_EQ(std::bit_cast<std::uint32_t>(f), bits << 16) << "pattern " << bits;
        if (b.is_nan()) {
            ASSERT_TRUE(std::isnan(f));
            // Quiet NaNs round-trip; signalling ones come back quiet.
            ASSERT_EQ(bf16(f).bits(), bits | 0x0040) << "pattern " << bits;
        } else {
            ASSERT_EQ(bf16(f).bits(), bits) << "pattern " << bits;
        }
    }
}

// Independent reference: round a finite double to 8 significant bits with nearbyint in
// round-to-nearest-even mode (exact in double), for results in bf16's normal range.
double rne8(double x) {
    if (x == 0.0) {
        return x;
    }
    int e = 0;
    const double m = std::frexp(x, &e);             // x = m * 2^e, 0.5 <= |m| < 1
    const double kept = std::nearbyint(m * 256.0);  // 8 significant bits, ties to even
    return std::ldexp(kept, e - 8);
}

TEST(Bf16, MatchesAnIndependentRneOnRandomFloats) {
    ASSERT_EQ(std::fegetround(), FE_TONEAREST);
    std::mt19937 gen(20220501);
    for (int n = 0; n < 2'000'000; ++n) {
        // Random sign and fraction, exponent field 1..253 (normal and far from overflow).
        const std::uint32_t bits = (gen() & 0x807FFFFFu) | ((1u + gen() % 253u) << 23);
        const float x = f32(bits);
        const double want = rne8(static_cast<double>(x));
        ASSERT_EQ(static_cast<double>(bf16(x).to_float()), want) << "float bits " << bits;
    }
}

TEST(Bf16, LaneOpsAreCorrectlyRounded) {
    const bf16 one(1.0f);
    // 1 + 2^-8 is a tie: to even (1.0). 1 + 3 * 2^-9 is above the tie: 1 + 2^-7.
    EXPECT_EQ(bf16_add(one, bf16(std::ldexp(1.0f, -8))).bits(), 0x3F80);
    EXPECT_EQ(bf16_add(one, bf16(3.0f * std::ldexp(1.0f, -9))).bits(), 0x3F81);
    EXPECT_EQ(bf16_sub(one, one).bits(), 0x0000);  // x - x = +0 in RNE
    EXPECT_EQ(bf16_mul(bf16(-0.0f), one).bits(), 0x8000);
    EXPECT_TRUE(bf16_mul(kBf16MaxFinite, bf16(2.0f)).is_inf());
    EXPECT_TRUE(bf16_add(kBf16MaxFinite, kBf16MaxFinite).is_inf());
    EXPECT_TRUE(bf16_sub(kBf16Inf, kBf16Inf).is_nan());

    // Against the double reference: a + b, a - b, a * b of bf16 operands within 2^+-20 are
    // exact in double, so rne8 of them is the correctly rounded bf16 result.
    std::mt19937 gen(7);
    auto random_bf16 = [&gen] {
        const std::uint32_t bits = (gen() & 0x807F0000u) | ((107u + gen() % 40u) << 23);
        return bf16::from_bits(static_cast<std::uint16_t>(bits >> 16));
    };
    for (int n = 0; n < 500'000; ++n) {
        const bf16 a = random_bf16();
        const bf16 b = random_bf16();
        const double x = a.to_float(), y = b.to_float();
        ASSERT_EQ(bf16_add(a, b).to_float(), rne8(x + y)) << x << " + " << y;
        ASSERT_EQ(bf16_sub(a, b).to_float(), rne8(x - y)) << x << " - " << y;
        ASSERT_EQ(bf16_mul(a, b).to_float(), rne8(x * y)) << x << " * " << y;
        // The MAC's product is exact in fp32: the fp32 result equals the double product.
        ASSERT_EQ(static_cast<double>(bf16_mac(0.0f, a, b)), x * y);
    }
}

TEST(Bf16, MacAccumulatesInFp32) {
    // 1 + 2^-8 stays exact in the fp32 accumulator (it would round back to 1 in bf16).
    const float acc = bf16_mac(1.0f, bf16(1.0f), bf16(std::ldexp(1.0f, -8)));
    EXPECT_EQ(acc, 1.0f + std::ldexp(1.0f, -8));
    // ... and fp32 rounding happens per step: 2^24 + 1 rounds to 2^24 (tie to even).
    EXPECT_EQ(bf16_mac(std::ldexp(1.0f, 24), bf16(1.0f), bf16(1.0f)), std::ldexp(1.0f, 24));
}

}  // namespace
}  // namespace hetsim::silent_pim
