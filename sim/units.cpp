#include "sim/units.hpp"

#include "sim/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

namespace hetsim::sim {

namespace {

// A unit is a power of ten times a power of two: decimal prefixes are applied by shifting the
// decimal exponent of the number text before it is converted, so "5 us" becomes the double
// nearest to 5e-6 (5 * 1e-6 would be one ulp off); binary prefixes and bits (/8) are exact
// powers of two.
struct Unit {
    std::string name;
    Quantity quantity;
    int decimal_exponent;
    int binary_exponent;
    double multiplier = 1.0;  // minutes and hours: 60 and 3600 (exact in binary)
};

struct Prefix {
    std::string_view symbol;
    int decimal_exponent;
    int binary_exponent;
};

constexpr std::array kDecimalPrefixes{
    Prefix{"", 0, 0},  Prefix{"k", 3, 0},  Prefix{"K", 3, 0},  Prefix{"M", 6, 0},
    Prefix{"G", 9, 0}, Prefix{"T", 12, 0}, Prefix{"P", 15, 0},
};
constexpr std::array kBinaryPrefixes{
    Prefix{"Ki", 0, 10}, Prefix{"Mi", 0, 20}, Prefix{"Gi", 0, 30},
    Prefix{"Ti", 0, 40}, Prefix{"Pi", 0, 50},
};
constexpr int kBitsPerByteLog2 = 3;

std::vector<Unit> build_unit_table() {
    std::vector<Unit> units;
    auto add_prefixed = [&units](std::string_view base, Quantity quantity, int binary_exponent,
                                 bool binary_prefixes) {
        for (const Prefix& prefix : kDecimalPrefixes) {
            units.push_back({std::string(prefix.symbol) + std::string(base), quantity,
                             prefix.decimal_exponent, binary_exponent});
        }
        if (binary_prefixes) {
            for (const Prefix& prefix : kBinaryPrefixes) {
                units.push_back({std::string(prefix.symbol) + std::string(base), quantity, 0,
                                 prefix.binary_exponent + binary_exponent});
            }
        }
    };

    units.push_back({"s", Quantity::time, 0, 0});
    units.push_back({"ms", Quantity::time, -3, 0});
    units.push_back({"us", Quantity::time, -6, 0});
    units.push_back({"\u00b5s", Quantity::time, -6, 0});  // micro sign
    units.push_back({"\u03bcs", Quantity::time, -6, 0});  // Greek mu, what many keyboards type
    units.push_back({"ns", Quantity::time, -9, 0});
    units.push_back({"ps", Quantity::time, -12, 0});
    units.push_back({"min", Quantity::time, 0, 0, 60.0});  // time limits: "timeout: 10 min"
    units.push_back({"h", Quantity::time, 0, 0, 3600.0});

    add_prefixed("Hz", Quantity::frequency, 0, false);

    add_prefixed("B/s", Quantity::bandwidth, 0, true);
    add_prefixed("bit/s", Quantity::bandwidth, -kBitsPerByteLog2, true);
    add_prefixed("b/s", Quantity::bandwidth, -kBitsPerByteLog2, false);
    add_prefixed("bps", Quantity::bandwidth, -kBitsPerByteLog2, false);

    add_prefixed("B", Quantity::data_size, 0, true);
    add_prefixed("bit", Quantity::data_size, -kBitsPerByteLog2, true);
    add_prefixed("bits", Quantity::data_size, -kBitsPerByteLog2, true);
    add_prefixed("b", Quantity::data_size, -kBitsPerByteLog2, false);

    add_prefixed("FLOP/s", Quantity::rate, 0, false);
    add_prefixed("FLOPS", Quantity::rate, 0, false);
    add_prefixed("OP/s", Quantity::rate, 0, false);
    add_prefixed("OPS", Quantity::rate, 0, false);
    // "/s" with a prefix ("3 G/s") is what format_quantity prints for a rate.
    add_prefixed("/s", Quantity::rate, 0, false);
    units.push_back({"1/s", Quantity::rate, 0, 0});
    return units;
}

const std::vector<Unit>& unit_table() {
    static const std::vector<Unit> table = build_unit_table();
    return table;
}

const Unit* find_unit(std::string_view name) {
    for (const Unit& unit : unit_table()) {
        if (unit.name == name) {
            return &unit;
        }
    }
    return nullptr;
}

// What error messages list: the common spellings, not every alias of the table.
std::string_view accepted_units(Quantity quantity) {
    switch (quantity) {
        case Quantity::time:
            return "h, min, s, ms, us (or \u00b5s), ns, ps";
        case Quantity::frequency:
            return "Hz, kHz, MHz, GHz";
        case Quantity::bandwidth:
            return "B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, Mbit/s, Gbit/s "
                   "(or Gb/s)";
        case Quantity::data_size:
            return "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB, bit, Gbit (or Gb)";
        case Quantity::rate:
            return "/s (or 1/s), FLOP/s, GFLOP/s, TFLOP/s";
    }
    return "";
}

std::string_view example(Quantity quantity) {
    switch (quantity) {
        case Quantity::time:
            return "5 us";
        case Quantity::frequency:
            return "1.5 GHz";
        case Quantity::bandwidth:
            return "12 GB/s";
        case Quantity::data_size:
            return "16 GiB";
        case Quantity::rate:
            return "312 TFLOP/s";
    }
    return "";
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && is_space(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && is_space(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

// Converts `number` (already validated by from_chars) scaled by 10^decimal_exponent with a
// single rounding, by rewriting its exponent: "1.5e3" with +6 -> "1.5e9".
double scale_decimal(std::string_view number, int decimal_exponent) {
    double value = 0.0;
    if (decimal_exponent == 0) {
        std::from_chars(number.data(), number.data() + number.size(), value);
        return value;
    }
    long long exponent = 0;
    std::string_view mantissa = number;
    if (auto e = number.find_first_of("eE"); e != std::string_view::npos) {
        mantissa = number.substr(0, e);
        std::string_view exponent_text = number.substr(e + 1);
        if (!exponent_text.empty() && exponent_text.front() == '+') {
            exponent_text.remove_prefix(1);
        }
        auto [ptr, ec] = std::from_chars(exponent_text.data(),
                                         exponent_text.data() + exponent_text.size(), exponent);
        if (ec != std::errc() || ptr != exponent_text.data() + exponent_text.size()) {
            // An absurd exponent; the caller's range check reports it.
            return std::numeric_limits<double>::infinity();
        }
    }
    std::string rewritten = fmt::format("{}e{}", mantissa, exponent + decimal_exponent);
    auto [ptr, ec] = std::from_chars(rewritten.data(), rewritten.data() + rewritten.size(), value);
    if (ec == std::errc::result_out_of_range) {
        // from_chars leaves `value` untouched on overflow and underflow alike.
        return exponent + decimal_exponent > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    }
    return value;
}

}  // namespace

std::string_view to_string(Quantity quantity) {
    switch (quantity) {
        case Quantity::time:
            return "time";
        case Quantity::frequency:
            return "frequency";
        case Quantity::bandwidth:
            return "bandwidth";
        case Quantity::data_size:
            return "data size";
        case Quantity::rate:
            return "rate";
    }
    return "unknown quantity";
}

double parse_quantity(std::string_view text, Quantity quantity) {
    const std::string_view trimmed = trim(text);
    std::string_view rest = trimmed;
    // from_chars rejects a leading '+', which people do write ("+5 ns").
    if (rest.size() >= 2 && rest.front() == '+' && rest[1] != '-' && rest[1] != '+') {
        rest.remove_prefix(1);
    }
    double value = 0.0;
    auto [number_end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
    if (ec == std::errc::invalid_argument) {
        throw UnitError(fmt::format("expected a {} such as '{}', got '{}'", to_string(quantity),
                                    example(quantity), trimmed));
    }
    const std::string_view number(rest.data(), static_cast<std::size_t>(number_end - rest.data()));
    if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
        throw UnitError(fmt::format("expected a finite {} such as '{}', got '{}'",
                                    to_string(quantity), example(quantity), trimmed));
    }

    const std::string_view unit_text = trim(rest.substr(number.size()));
    if (unit_text.empty()) {
        throw UnitError(fmt::format("expected a {} with a unit such as '{}', got '{}'",
                                    to_string(quantity), example(quantity), trimmed));
    }
    const Unit* unit = find_unit(unit_text);
    if (unit == nullptr) {
        // A non-breaking space or another invisible character would print like an accepted
        // unit (' GB/s'): shown as its bytes.
        const std::string shown = shown_bytes(unit_text);
        const bool invisible = shown != unit_text;
        throw UnitError(fmt::format("unknown unit '{}' in '{}'{}; a {} takes one of: {}", shown,
                                    trimmed,
                                    invisible ? " (it has a non-ASCII or control character, such "
                                                "as a non-breaking space)"
                                              : "",
                                    to_string(quantity), accepted_units(quantity)));
    }
    if (unit->quantity != quantity) {
        throw UnitError(fmt::format("'{}' is a {}, but a {} is expected; use one of: {}", trimmed,
                                    to_string(unit->quantity), to_string(quantity),
                                    accepted_units(quantity)));
    }

    const double value_si =
        std::ldexp(scale_decimal(number, unit->decimal_exponent), unit->binary_exponent) *
        unit->multiplier;
    if (!std::isfinite(value_si)) {
        throw UnitError(fmt::format("{} '{}' is out of range", to_string(quantity), trimmed));
    }
    // Past these a clock or a bandwidth is a typo (a unit prefix too far, an exponent's sign),
    // and the durations it gives would leave the simulator's time range (2^62 ps).
    // (A sign is the caller's to refuse: "must be > 0" says more about a negative value.)
    if (quantity == Quantity::frequency && value_si > 0.0 && (value_si < 1.0 || value_si > 1e15))
        throw UnitError(fmt::format("frequency '{}' is outside 1 Hz to 1 PHz", trimmed));
    if (quantity == Quantity::bandwidth && value_si > 0.0 && (value_si < 1.0 || value_si > 1e18))
        throw UnitError(fmt::format("bandwidth '{}' is outside 1 B/s to 1 EB/s", trimmed));
    if (quantity == Quantity::data_size) {
        // Sizes become byte counts (int64): past 2^63 B they would wrap, and a capacity or a
        // cache of a fraction of a byte is a typo.
        if (value_si >= 0x1p63)
            throw UnitError(
                fmt::format("data size '{}' is more than 8 EiB, the largest hetsim "
                            "counts in bytes",
                            trimmed));
        if (value_si > 0.0 && value_si < 1.0)
            throw UnitError(fmt::format("data size '{}' is less than one byte", trimmed));
    }
    return value_si;
}

namespace {

struct FormatPrefix {
    int decimal_exponent;
    std::string_view unit;
};

// Ascending; the first entry also serves values below it, the last values above it.
std::vector<FormatPrefix> format_units(Quantity quantity) {
    switch (quantity) {
        case Quantity::time:
            return {{-12, "ps"}, {-9, "ns"}, {-6, "us"}, {-3, "ms"}, {0, "s"}};
        case Quantity::frequency:
            return {{0, "Hz"}, {3, "kHz"}, {6, "MHz"}, {9, "GHz"}, {12, "THz"}};
        case Quantity::bandwidth:
            return {{0, "B/s"}, {3, "kB/s"}, {6, "MB/s"}, {9, "GB/s"}, {12, "TB/s"}, {15, "PB/s"}};
        case Quantity::data_size:
            return {{0, "B"}, {3, "kB"}, {6, "MB"}, {9, "GB"}, {12, "TB"}, {15, "PB"}};
        case Quantity::rate:
            return {{0, "/s"}, {3, "k/s"}, {6, "M/s"}, {9, "G/s"}, {12, "T/s"}, {15, "P/s"}};
    }
    return {{0, ""}};
}

// "1.50" -> "1.5", "12.0" -> "12", "120" stays.
std::string strip_trailing_zeros(std::string digits) {
    if (digits.find('.') == std::string::npos) {
        return digits;
    }
    while (digits.back() == '0') {
        digits.pop_back();
    }
    if (digits.back() == '.') {
        digits.pop_back();
    }
    return digits;
}

// Sizes such as 16 GiB or 1.5 MiB read better in binary units; only when that is exact in
// three significant digits, so 1e9 B stays "1 GB" rather than "954 MiB".
std::string format_binary_size(double bytes) {
    constexpr std::array<std::string_view, 5> kUnits{"KiB", "MiB", "GiB", "TiB", "PiB"};
    for (int n = static_cast<int>(kUnits.size()); n >= 1; --n) {
        const double scaled = std::ldexp(bytes, -10 * n);
        if (scaled < 1.0) {
            continue;
        }
        const std::string text = fmt::format("{:.3g}", scaled);
        if (scaled < 1000.0 && std::strtod(text.c_str(), nullptr) == scaled) {
            return fmt::format("{} {}", text, kUnits[static_cast<std::size_t>(n - 1)]);
        }
        return "";
    }
    return "";
}

}  // namespace

std::string format_quantity(double value_si, Quantity quantity, int significant_digits) {
    significant_digits = std::clamp(significant_digits, 1, 17);
    const std::vector<FormatPrefix> units = format_units(quantity);
    const auto base = std::find_if(units.begin(), units.end(), [](const FormatPrefix& prefix) {
        return prefix.decimal_exponent == 0;
    });
    if (!std::isfinite(value_si)) {
        return fmt::format("{} {}", value_si, base->unit);
    }
    if (value_si == 0.0) {
        return fmt::format("0 {}", base->unit);
    }
    const std::string_view sign = value_si < 0 ? "-" : "";
    const double magnitude = std::fabs(value_si);

    if (quantity == Quantity::data_size && significant_digits == 3) {
        if (std::string binary = format_binary_size(magnitude); !binary.empty()) {
            return fmt::format("{}{}", sign, binary);
        }
    }

    // Round to the significant digits first so that 999.7 picks "1 k", not "1000".
    const std::string scientific = fmt::format("{:.{}e}", magnitude, significant_digits - 1);
    const double rounded = std::strtod(scientific.c_str(), nullptr);
    const int exponent = std::atoi(scientific.c_str() + scientific.find('e') + 1);

    const FormatPrefix* chosen = &units.front();
    for (const FormatPrefix& prefix : units) {
        if (prefix.decimal_exponent <= exponent) {
            chosen = &prefix;
        }
    }
    const double scaled = chosen->decimal_exponent >= 0
                              ? rounded / std::pow(10.0, chosen->decimal_exponent)
                              : rounded * std::pow(10.0, -chosen->decimal_exponent);
    const int decimals =
        std::max(0, significant_digits - 1 - (exponent - chosen->decimal_exponent));
    return fmt::format("{}{} {}", sign,
                       strip_trailing_zeros(fmt::format("{:.{}f}", scaled, decimals)),
                       chosen->unit);
}

}  // namespace hetsim::sim
