#include "interconnect/ddr4_timing.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace hetsim::interconnect {

namespace {

// JESD79-4 speed bins. Cycle counts are the nanosecond minimums of the standard divided by
// tCK and rounded up; the ns values are given next to each so they can be checked.
// Devices: 8 Gb x8 (1 KB page, 65536 rows x 1024 columns, 16 banks), eight of them per x64
// rank, which is what the tRRD/tFAW "1 KB page" columns of the standard apply to.
Ddr4Timing ddr4_2400() {
    Ddr4Timing t;
    t.name = "DDR4-2400";
    t.tCK_ps = 1e6 / 1200.0;  // 1200 MHz clock: 0.833 ns
    t.CL = 16;                // 2400R: 16-16-16 (13.32 ns)
    t.CWL = 12;               // lower CWL option of the 2400 bin (1 tCK write preamble)
    t.tRCD = 16;              // 13.32 ns
    t.tRP = 16;               // 13.32 ns
    t.tRAS = 39;              // 32 ns
    t.tRC = 55;               // tRAS + tRP
    t.tCCD_S = 4;             // 4 nCK
    t.tCCD_L = 6;             // max(5 nCK, 5 ns)
    t.tRRD_S = 4;             // max(4 nCK, 3.3 ns), 1 KB page
    t.tRRD_L = 6;             // max(4 nCK, 4.9 ns), 1 KB page
    t.tFAW = 26;              // 21 ns, 1 KB page
    t.tWR = 18;               // 15 ns
    t.tWTR_S = 3;             // max(2 nCK, 2.5 ns)
    t.tWTR_L = 9;             // max(4 nCK, 7.5 ns)
    t.tRTP = 9;               // max(4 nCK, 7.5 ns)
    t.tREFI = 9360;           // 7.8 us
    t.tRFC = 420;             // 350 ns (8 Gb)
    t.rows = 65536;
    t.columns = 1024;
    return t;
}

Ddr4Timing ddr4_3200() {
    Ddr4Timing t;
    t.name = "DDR4-3200";
    t.tCK_ps = 625.0;  // 1600 MHz clock
    t.CL = 22;         // 3200AA: 22-22-22 (13.75 ns)
    t.CWL = 16;        // lower CWL option of the 3200 bin
    t.tRCD = 22;
    t.tRP = 22;
    t.tRAS = 52;      // 32 ns
    t.tRC = 74;       // tRAS + tRP (45.75 ns)
    t.tCCD_S = 4;     // 4 nCK
    t.tCCD_L = 8;     // max(5 nCK, 5 ns)
    t.tRRD_S = 4;     // max(4 nCK, 2.5 ns)
    t.tRRD_L = 8;     // max(4 nCK, 4.9 ns)
    t.tFAW = 34;      // 21 ns
    t.tWR = 24;       // 15 ns
    t.tWTR_S = 4;     // max(2 nCK, 2.5 ns)
    t.tWTR_L = 12;    // max(4 nCK, 7.5 ns)
    t.tRTP = 12;      // max(4 nCK, 7.5 ns)
    t.tREFI = 12480;  // 7.8 us
    t.tRFC = 560;     // 350 ns (8 Gb)
    t.rows = 65536;
    t.columns = 1024;
    return t;
}

}  // namespace

std::vector<std::string> ddr4_speed_bins() {
    return {"DDR4-2400", "DDR4-3200"};
}

std::optional<Ddr4Timing> find_ddr4_timing(std::string_view speed_bin) {
    if (speed_bin == "DDR4-2400")
        return ddr4_2400();
    if (speed_bin == "DDR4-3200")
        return ddr4_3200();
    return std::nullopt;
}

Ddr4Timing ddr4_timing(std::string_view speed_bin) {
    if (auto t = find_ddr4_timing(speed_bin))
        return *t;
    throw std::invalid_argument(fmt::format("unknown DDR4 speed bin '{}'; known: {}", speed_bin,
                                            fmt::join(ddr4_speed_bins(), ", ")));
}

}  // namespace hetsim::interconnect
