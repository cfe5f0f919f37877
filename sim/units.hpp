// Quantities with explicit units in configs ("12 GB/s", "1.5 GHz", "16 GiB", "5 us");
// inside hetsim everything is SI base units (s, Hz, B/s, B).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace hetsim::sim {

enum class Quantity {
    time,       // s, ms, us, ns, ps           -> seconds
    frequency,  // Hz, kHz, MHz, GHz           -> hertz
    bandwidth,  // B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, TB/s -> bytes per second
    data_size,  // B, KB, MB, GB, KiB, MiB, GiB, TiB              -> bytes
    rate,       // FLOP/s, GFLOP/s, TFLOP/s, or 1/s, /s          -> per second
};

std::string_view to_string(Quantity quantity);

class UnitError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parses "<number> <unit>" (space optional). A bare number is an error: units are explicit.
// Decimal prefixes are powers of 1000, binary ones (Ki, Mi, Gi) powers of 1024.
// Throws UnitError with a message saying what was expected, e.g.
//   "expected a bandwidth with a unit such as '12 GB/s', got '12'".
double parse_quantity(std::string_view text, Quantity quantity);

// Human-readable rendering with a fitting prefix, e.g. 1.2e10 B/s -> "12 GB/s", rounded to
// `significant_digits` (fitted constants are written with more than the default three).
std::string format_quantity(double value_si, Quantity quantity, int significant_digits = 3);

}  // namespace hetsim::sim
