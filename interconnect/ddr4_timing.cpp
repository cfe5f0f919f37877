#include "interconnect/ddr4_timing.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "sim/config.hpp"

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

namespace {

int positive_int(const sim::ConfigNode& parent, const std::string& key) {
    const sim::ConfigNode n = parent.at(key);
    const std::int64_t v = n.as_int();
    if (v <= 0 || v > 1'000'000'000)
        n.fail(fmt::format("must be a positive cycle count, got {}", v));
    return static_cast<int>(v);
}

}  // namespace

Ddr4Timing parse_memspec(const sim::ConfigNode& node) {
    node.expect_map();
    node.expect_keys({"name", "architecture", "timing"});
    Ddr4Timing t;
    t.name = node.at("name").as_string();
    if (t.name.empty())
        node.at("name").fail("expected a speed-bin name, e.g. DDR4-2400");

    const sim::ConfigNode arch = node.at("architecture");
    arch.expect_map();
    arch.expect_keys(
        {"bank_groups", "banks_per_group", "rows", "columns", "burst_length", "bus_width_bits"});
    t.bank_groups = positive_int(arch, "bank_groups");
    t.banks_per_group = positive_int(arch, "banks_per_group");
    t.rows = positive_int(arch, "rows");
    t.columns = positive_int(arch, "columns");
    t.BL = positive_int(arch, "burst_length");
    t.bus_width_bits = positive_int(arch, "bus_width_bits");
    if (t.BL % 2 != 0 || t.columns % t.BL != 0) {
        arch.at("burst_length")
            .fail(fmt::format("must be even and divide columns ({}), got {}", t.columns, t.BL));
    }

    const sim::ConfigNode tm = node.at("timing");
    tm.expect_map();
    tm.expect_keys({"tCK_ps", "CL", "CWL", "tRCD", "tRP", "tRAS", "tRC", "tCCD_S", "tCCD_L",
                    "tRRD_S", "tRRD_L", "tFAW", "tWR", "tWTR_S", "tWTR_L", "tRTP", "tREFI",
                    "tRFC"});
    const sim::ConfigNode tck = tm.at("tCK_ps");
    t.tCK_ps = tck.as_double();
    if (!(t.tCK_ps > 0.0))
        tck.fail(fmt::format("must be > 0 ps, got {}", tck.as_string()));
    t.CL = positive_int(tm, "CL");
    t.CWL = positive_int(tm, "CWL");
    t.tRCD = positive_int(tm, "tRCD");
    t.tRP = positive_int(tm, "tRP");
    t.tRAS = positive_int(tm, "tRAS");
    t.tRC = positive_int(tm, "tRC");
    t.tCCD_S = positive_int(tm, "tCCD_S");
    t.tCCD_L = positive_int(tm, "tCCD_L");
    t.tRRD_S = positive_int(tm, "tRRD_S");
    t.tRRD_L = positive_int(tm, "tRRD_L");
    t.tFAW = positive_int(tm, "tFAW");
    t.tWR = positive_int(tm, "tWR");
    t.tWTR_S = positive_int(tm, "tWTR_S");
    t.tWTR_L = positive_int(tm, "tWTR_L");
    t.tRTP = positive_int(tm, "tRTP");
    t.tREFI = positive_int(tm, "tREFI");
    t.tRFC = positive_int(tm, "tRFC");
    if (t.tREFI <= t.tRFC) {
        tm.at("tREFI").fail(fmt::format(
            "must exceed tRFC ({}) or the rank never serves a request, got {}", t.tRFC, t.tREFI));
    }
    return t;
}

Ddr4Timing load_memspec(const std::filesystem::path& path) {
    return parse_memspec(sim::ConfigNode::load_file(path));
}

}  // namespace hetsim::interconnect
