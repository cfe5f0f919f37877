// bfloat16, the only number format of Silent-PIM's datapath (lee2022 §2.2: "bfloat16 8-way
// vector addition, subtraction, multiplication, and MAC"; §2.3: the CPU converts fp32 <-> bf16
// around every CPU<->PIM transfer).
//
// bf16 is the upper half of an IEEE-754 binary32: 1 sign bit, the same 8 exponent bits, 7
// stored fraction bits (8 significant bits with the implicit one). Every bf16 is therefore
// exactly a float (append 16 zero bits), and float -> bf16 is rounding away the low 16 bits.
// Unit roundoff of round-to-nearest-even: u = 2^-8 (half of 2^-7, the spacing just above 1).
#pragma once

#include <bit>
#include <cstdint>

namespace hetsim::silent_pim {

class bf16 {
public:
    // +0.
    constexpr bf16() = default;
    // Round-to-nearest, ties-to-even (IEEE-754 roundTiesToEven), see round_bits().
    constexpr explicit bf16(float value) : bits_(round_bits(value)) {}

    static constexpr bf16 from_bits(std::uint16_t bits) {
        bf16 b;
        b.bits_ = bits;
        return b;
    }
    constexpr std::uint16_t bits() const { return bits_; }

    // Exact: a bf16 is a float whose low 16 bits are zero.
    constexpr float to_float() const {
        return std::bit_cast<float>(static_cast<std::uint32_t>(bits_) << 16);
    }
    constexpr explicit operator float() const { return to_float(); }

    constexpr bool is_nan() const { return (bits_ & 0x7FFFu) > 0x7F80u; }
    constexpr bool is_inf() const { return (bits_ & 0x7FFFu) == 0x7F80u; }
    constexpr bool sign_bit() const { return (bits_ & 0x8000u) != 0; }

    // The round-to-nearest-even float -> bf16 conversion, on the bit pattern.
    //
    // Dropping the low 16 bits of the float truncates towards zero. Adding 0x7FFF first makes
    // every remainder strictly above one half (> 0x8000) carry into bit 16 and every remainder
    // below one half (< 0x8000) not carry; adding the kept part's lowest bit (bit 16) on top
    // decides the exact tie (0x8000): it carries only when the kept part is odd, so a tie goes
    // to the even neighbour. Because the IEEE encoding of non-NaN values is monotonic in the
    // magnitude bits, the carry propagating into the exponent field is exactly right:
    //   - a fraction that rounds up past 1.111_1111 bumps the exponent (renormalises),
    //   - a value >= max_finite + half an ulp carries into exponent 0xFF with fraction 0,
    //     i.e. overflows to +-inf as roundTiesToEven requires (the tie at exactly
    //     max_finite + half an ulp goes up too: max_finite's fraction 0x7F is odd),
    //   - float subnormals round onto bf16 subnormals (same exponent range, no flush), and
    //     the largest ones carry into the smallest normal,
    //   - +-inf stays +-inf (low bits are zero, so no carry), -0 stays -0.
    // NaN must be handled first: a NaN whose payload sits only in the low 16 bits would
    // otherwise truncate to inf, and one with an all-ones fraction would carry into the sign.
    // It keeps its sign and its top payload bits and gets the quiet bit (bit 6 of bf16) set,
    // so a signalling NaN comes out quiet, as an IEEE conversion does.
    static constexpr std::uint16_t round_bits(float value) {
        const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
        if ((u & 0x7FFFFFFFu) > 0x7F800000u) {
            return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
        }
        const std::uint32_t lsb = (u >> 16) & 1u;
        return static_cast<std::uint16_t>((u + 0x7FFFu + lsb) >> 16);
    }

private:
    std::uint16_t bits_ = 0;
};

static_assert(sizeof(bf16) == 2, "bf16 is stored as its 16-bit pattern in PIM memory");

// Notable bit patterns.
inline constexpr bf16 kBf16MaxFinite = bf16::from_bits(0x7F7F);     // (2 - 2^-7) * 2^127
inline constexpr bf16 kBf16MinNormal = bf16::from_bits(0x0080);     // 2^-126
inline constexpr bf16 kBf16MinSubnormal = bf16::from_bits(0x0001);  // 2^-133
inline constexpr bf16 kBf16Inf = bf16::from_bits(0x7F80);
inline constexpr bf16 kBf16QuietNan = bf16::from_bits(0x7FC0);
// Unit roundoff of RNE to bf16: |bf16(x) - x| <= 2^-8 |x| for x in the normal range.
inline constexpr double kBf16UnitRoundoff = 1.0 / 256.0;

// The vector unit's lane operations (lee2022 §2.2). Each lane computes in fp32 and rounds the
// result to bf16 with RNE. For +, - and * of two bf16 this equals the correctly rounded bf16
// result: a bf16 x bf16 product has at most 16 significant bits and is exact in fp32 (barring
// underflow below 2^-149), and for + and - rounding first to fp32 (24 bits) and then to bf16
// (8 bits) is innocuous because 24 >= 2 * 8 + 2 (Figueroa, "When is double rounding
// innocuous?", 1995). So these are the IEEE bf16 operations, whatever the lane's internals.
constexpr bf16 bf16_add(bf16 a, bf16 b) {
    return bf16(a.to_float() + b.to_float());
}
constexpr bf16 bf16_sub(bf16 a, bf16 b) {
    return bf16(a.to_float() - b.to_float());
}
constexpr bf16 bf16_mul(bf16 a, bf16 b) {
    return bf16(a.to_float() * b.to_float());
}

// One MAC lane step: acc + a * b in fp32 (the vACC accumulator). The product is exact in
// fp32 (see above), so whether the compiler contracts this into an FMA or not the result is
// the same single fp32 rounding of the sum; results are reproducible across targets.
constexpr float bf16_mac(float acc_fp32, bf16 a, bf16 b) {
    return acc_fp32 + a.to_float() * b.to_float();
}

}  // namespace hetsim::silent_pim
