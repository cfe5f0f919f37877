#include "sim/units.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace hetsim::sim {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The message of the UnitError that parse_quantity throws, or a marker when it throws none.
std::string parse_error(std::string_view text, Quantity quantity) {
    try {
        parse_quantity(text, quantity);
    } catch (const UnitError& error) {
        return error.what();
    }
    return "<no error>";
}

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * kKiB;
constexpr double kGiB = 1024.0 * kMiB;
constexpr double kTiB = 1024.0 * kGiB;

TEST(ParseQuantity, BandwidthDecimalAndBinaryPrefixes) {
    EXPECT_EQ(parse_quantity("12 GB/s", Quantity::bandwidth), 12e9);
    EXPECT_EQ(parse_quantity("12GB/s", Quantity::bandwidth), 12e9);
    EXPECT_EQ(parse_quantity("1e9 B/s", Quantity::bandwidth), 1e9);
    EXPECT_EQ(parse_quantity("800 MB/s", Quantity::bandwidth), 800e6);
    EXPECT_EQ(parse_quantity("3 kB/s", Quantity::bandwidth), 3e3);
    EXPECT_EQ(parse_quantity("3 KB/s", Quantity::bandwidth), 3e3);
    EXPECT_EQ(parse_quantity("2 TB/s", Quantity::bandwidth), 2e12);
    EXPECT_EQ(parse_quantity("16 GiB/s", Quantity::bandwidth), 16 * kGiB);
    EXPECT_EQ(parse_quantity("1 KiB/s", Quantity::bandwidth), kKiB);
    EXPECT_EQ(parse_quantity("1.5 MiB/s", Quantity::bandwidth), 1.5 * kMiB);
}

TEST(ParseQuantity, BandwidthInBitsIsDividedByEight) {
    EXPECT_EQ(parse_quantity("100 Gbit/s", Quantity::bandwidth), 12.5e9);
    EXPECT_EQ(parse_quantity("100 Gb/s", Quantity::bandwidth), 12.5e9);
    EXPECT_EQ(parse_quantity("8 bit/s", Quantity::bandwidth), 1.0);
    EXPECT_EQ(parse_quantity("400 Mbit/s", Quantity::bandwidth), 50e6);
}

TEST(ParseQuantity, DataSizes) {
    EXPECT_EQ(parse_quantity("16 GiB", Quantity::data_size), 16 * kGiB);
    EXPECT_EQ(parse_quantity("16GiB", Quantity::data_size), 16 * kGiB);
    EXPECT_EQ(parse_quantity("2 TiB", Quantity::data_size), 2 * kTiB);
    EXPECT_EQ(parse_quantity("64 KiB", Quantity::data_size), 64 * kKiB);
    EXPECT_EQ(parse_quantity("512 MiB", Quantity::data_size), 512 * kMiB);
    EXPECT_EQ(parse_quantity("4 KB", Quantity::data_size), 4000.0);
    EXPECT_EQ(parse_quantity("4 kB", Quantity::data_size), 4000.0);
    EXPECT_EQ(parse_quantity("40 MB", Quantity::data_size), 40e6);
    EXPECT_EQ(parse_quantity("80 GB", Quantity::data_size), 80e9);
    EXPECT_EQ(parse_quantity("7 B", Quantity::data_size), 7.0);
    EXPECT_EQ(parse_quantity("16 bit", Quantity::data_size), 2.0);
    EXPECT_EQ(parse_quantity("1 Gb", Quantity::data_size), 125e6);
}

TEST(ParseQuantity, TimesAreTheNearestDoubleToTheDecimalValue) {
    EXPECT_EQ(parse_quantity("5us", Quantity::time), 5e-6);
    EXPECT_EQ(parse_quantity("5 us", Quantity::time), 5e-6);
    EXPECT_EQ(parse_quantity("5 \u00b5s", Quantity::time), 5e-6);
    EXPECT_EQ(parse_quantity("0.1 us", Quantity::time), 1e-7);
    EXPECT_EQ(parse_quantity("2 s", Quantity::time), 2.0);
    EXPECT_EQ(parse_quantity("3 ms", Quantity::time), 3e-3);
    EXPECT_EQ(parse_quantity("2.5 ns", Quantity::time), 2.5e-9);
    EXPECT_EQ(parse_quantity("700 ps", Quantity::time), 700e-12);
    EXPECT_EQ(parse_quantity("1.5e3 ns", Quantity::time), 1.5e-6);
    EXPECT_EQ(parse_quantity("1.5E+3 ns", Quantity::time), 1.5e-6);
}

TEST(ParseQuantity, MinutesAndHoursForTimeLimits) {
    EXPECT_EQ(parse_quantity("10 min", Quantity::time), 600.0);
    EXPECT_EQ(parse_quantity("1.5 h", Quantity::time), 5400.0);
    EXPECT_THROW(parse_quantity("10 mins", Quantity::time), UnitError);
}

TEST(ParseQuantity, Frequencies) {
    EXPECT_EQ(parse_quantity("1.5 GHz", Quantity::frequency), 1.5e9);
    EXPECT_EQ(parse_quantity("800MHz", Quantity::frequency), 800e6);
    EXPECT_EQ(parse_quantity("32 kHz", Quantity::frequency), 32e3);
    EXPECT_EQ(parse_quantity("50 Hz", Quantity::frequency), 50.0);
}

TEST(ParseQuantity, Rates) {
    EXPECT_EQ(parse_quantity("312 TFLOP/s", Quantity::rate), 312e12);
    EXPECT_EQ(parse_quantity("19.5 GFLOP/s", Quantity::rate), 19.5e9);
    EXPECT_EQ(parse_quantity("100 FLOP/s", Quantity::rate), 100.0);
    EXPECT_EQ(parse_quantity("1000 1/s", Quantity::rate), 1000.0);
    EXPECT_EQ(parse_quantity("1000/s", Quantity::rate), 1000.0);
    EXPECT_EQ(parse_quantity("3 G/s", Quantity::rate), 3e9);
}

TEST(ParseQuantity, SignsAndSurroundingSpaces) {
    EXPECT_EQ(parse_quantity("-3 GB/s", Quantity::bandwidth), -3e9);
    EXPECT_EQ(parse_quantity("+4 ns", Quantity::time), 4e-9);
    EXPECT_EQ(parse_quantity("  12  GB/s  ", Quantity::bandwidth), 12e9);
    EXPECT_EQ(parse_quantity("0 B", Quantity::data_size), 0.0);
}

TEST(ParseQuantity, BareNumberNamesAnExampleUnitOfTheQuantity) {
    EXPECT_EQ(parse_error("12", Quantity::bandwidth),
              "expected a bandwidth with a unit such as '12 GB/s', got '12'");
    EXPECT_EQ(parse_error("5", Quantity::time),
              "expected a time with a unit such as '5 us', got '5'");
    EXPECT_EQ(parse_error("16", Quantity::data_size),
              "expected a data size with a unit such as '16 GiB', got '16'");
    EXPECT_EQ(parse_error("2", Quantity::frequency),
              "expected a frequency with a unit such as '1.5 GHz', got '2'");
}

TEST(ParseQuantity, WrongDimensionListsTheAcceptedUnits) {
    EXPECT_THAT(parse_error("5 us", Quantity::bandwidth),
                AllOf(HasSubstr("'5 us' is a time, but a bandwidth is expected"), HasSubstr("GB/s"),
                      HasSubstr("GiB/s"), HasSubstr("Gbit/s")));
    EXPECT_THAT(parse_error("16 GiB", Quantity::bandwidth),
                HasSubstr("'16 GiB' is a data size, but a bandwidth is expected"));
    EXPECT_THAT(parse_error("1 GHz", Quantity::time),
                AllOf(HasSubstr("is a frequency, but a time is expected"), HasSubstr("ns")));
}

TEST(ParseQuantity, UnknownUnitIsNamed) {
    EXPECT_THAT(parse_error("12 GBps", Quantity::bandwidth),
                AllOf(HasSubstr("unknown unit 'GBps' in '12 GBps'"), HasSubstr("GB/s")));
    // Case matters: "gb" could be gigabits or gigabytes.
    EXPECT_THAT(parse_error("4 gb", Quantity::data_size), HasSubstr("unknown unit 'gb'"));
}

TEST(ParseQuantity, RejectsNonFiniteAndGarbage) {
    EXPECT_THAT(parse_error("nan GB/s", Quantity::bandwidth), HasSubstr("finite"));
    EXPECT_THAT(parse_error("inf GB/s", Quantity::bandwidth), HasSubstr("finite"));
    EXPECT_THAT(parse_error("1e999 GB/s", Quantity::bandwidth), HasSubstr("finite"));
    EXPECT_THAT(parse_error("1e307 TB/s", Quantity::bandwidth), HasSubstr("out of range"));
    EXPECT_EQ(parse_error("fast", Quantity::bandwidth),
              "expected a bandwidth such as '12 GB/s', got 'fast'");
    EXPECT_EQ(parse_error("", Quantity::time), "expected a time such as '5 us', got ''");
    EXPECT_THAT(parse_error("GB/s", Quantity::bandwidth), HasSubstr("got 'GB/s'"));
    EXPECT_THAT(parse_error("1.2.3 GB/s", Quantity::bandwidth),
                HasSubstr("unknown unit '.3 GB/s'"));
    EXPECT_THAT(parse_error("0x10 B", Quantity::data_size), HasSubstr("unknown unit 'x10 B'"));
}

TEST(FormatQuantity, PicksAFittingDecimalPrefix) {
    EXPECT_EQ(format_quantity(1.2e10, Quantity::bandwidth), "12 GB/s");
    EXPECT_EQ(format_quantity(1.5e9, Quantity::frequency), "1.5 GHz");
    EXPECT_EQ(format_quantity(5e-6, Quantity::time), "5 us");
    EXPECT_EQ(format_quantity(2.5e-9, Quantity::time), "2.5 ns");
    EXPECT_EQ(format_quantity(312e12, Quantity::rate), "312 T/s");
    EXPECT_EQ(format_quantity(7.0, Quantity::rate), "7 /s");
    EXPECT_EQ(format_quantity(50.0, Quantity::frequency), "50 Hz");
}

TEST(FormatQuantity, RoundsToThreeSignificantDigits) {
    EXPECT_EQ(format_quantity(1.23456e10, Quantity::bandwidth), "12.3 GB/s");
    EXPECT_EQ(format_quantity(123456.0, Quantity::frequency), "123 kHz");
    // Rounding up crosses into the next prefix instead of printing "1000 MHz".
    EXPECT_EQ(format_quantity(999.7e6, Quantity::frequency), "1 GHz");
    // Beyond the largest prefix the digits stay, without an exponent.
    EXPECT_EQ(format_quantity(3600.0, Quantity::time), "3600 s");
    // Below the smallest prefix, decimals.
    EXPECT_EQ(format_quantity(5e-15, Quantity::time), "0.005 ps");
}

TEST(FormatQuantity, DataSizesUseBinaryPrefixesOnlyWhenExact) {
    EXPECT_EQ(format_quantity(16 * kGiB, Quantity::data_size), "16 GiB");
    EXPECT_EQ(format_quantity(1.5 * kMiB, Quantity::data_size), "1.5 MiB");
    EXPECT_EQ(format_quantity(kKiB, Quantity::data_size), "1 KiB");
    EXPECT_EQ(format_quantity(1e9, Quantity::data_size), "1 GB");
    EXPECT_EQ(format_quantity(40e6, Quantity::data_size), "40 MB");
    EXPECT_EQ(format_quantity(1025.0, Quantity::data_size), "1.02 kB");
    EXPECT_EQ(format_quantity(512.0, Quantity::data_size), "512 B");
    // Bandwidths are always decimal.
    EXPECT_EQ(format_quantity(16 * kGiB, Quantity::bandwidth), "17.2 GB/s");
}

TEST(FormatQuantity, ZeroNegativeAndNonFinite) {
    EXPECT_EQ(format_quantity(0.0, Quantity::time), "0 s");
    EXPECT_EQ(format_quantity(0.0, Quantity::bandwidth), "0 B/s");
    EXPECT_EQ(format_quantity(-3e9, Quantity::bandwidth), "-3 GB/s");
    EXPECT_EQ(format_quantity(-16 * kGiB, Quantity::data_size), "-16 GiB");
    EXPECT_EQ(format_quantity(INFINITY, Quantity::time), "inf s");
}

TEST(FormatQuantity, RoundTripsThroughParse) {
    for (const auto& [text, quantity] : std::vector<std::pair<std::string, Quantity>>{
             {"12 GB/s", Quantity::bandwidth},
             {"1.5 GHz", Quantity::frequency},
             {"5 us", Quantity::time},
             {"16 GiB", Quantity::data_size},
             {"312 T/s", Quantity::rate},
             {"700 ps", Quantity::time},
         }) {
        EXPECT_EQ(format_quantity(parse_quantity(text, quantity), quantity), text);
    }
}

TEST(QuantityNames, ReadAsNouns) {
    EXPECT_EQ(to_string(Quantity::time), "time");
    EXPECT_EQ(to_string(Quantity::frequency), "frequency");
    EXPECT_EQ(to_string(Quantity::bandwidth), "bandwidth");
    EXPECT_EQ(to_string(Quantity::data_size), "data size");
    EXPECT_EQ(to_string(Quantity::rate), "rate");
}

}  // namespace
}  // namespace hetsim::sim
