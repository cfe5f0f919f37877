#include "interconnect/ddr4_timing.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace hetsim::interconnect {
namespace {

TEST(Ddr4Timing, Ddr4_2400SpeedBinInCycles) {
    const Ddr4Timing t = ddr4_timing("DDR4-2400");
    EXPECT_EQ(t.name, "DDR4-2400");
    EXPECT_NEAR(t.tCK_ps, 833.333, 1e-3);  // 1200 MHz memspec clock
    EXPECT_EQ(t.CL, 16);
    EXPECT_EQ(t.CWL, 12);
    EXPECT_EQ(t.tRCD, 16);
    EXPECT_EQ(t.tRP, 16);
    EXPECT_EQ(t.tRAS, 39);
    EXPECT_EQ(t.tRC, t.tRAS + t.tRP);
    EXPECT_EQ(t.tCCD_S, 4);
    EXPECT_EQ(t.tCCD_L, 6);
    EXPECT_EQ(t.tRRD_S, 4);
    EXPECT_EQ(t.tRRD_L, 6);
    EXPECT_EQ(t.tFAW, 26);
    EXPECT_EQ(t.tWR, 18);
    EXPECT_EQ(t.tWTR_S, 3);
    EXPECT_EQ(t.tWTR_L, 9);
    EXPECT_EQ(t.tRTP, 9);
    EXPECT_EQ(t.tREFI, 9360);
    EXPECT_EQ(t.tRFC, 420);
    EXPECT_EQ(t.BL, 8);
    EXPECT_EQ(t.bank_groups, 4);
    EXPECT_EQ(t.banks_per_group, 4);
    EXPECT_EQ(t.banks(), 16);
    EXPECT_EQ(t.bus_width_bits, 64);
}

TEST(Ddr4Timing, CyclesToSecondsInOnePlace) {
    const Ddr4Timing t = ddr4_timing("DDR4-2400");
    // 12 cycles x (1 / 1.2 GHz) = 10 ns exactly.
    EXPECT_NEAR(t.seconds(12), 10e-9, 1e-21);
    EXPECT_NEAR(t.clock_hz(), 1.2e9, 1e-3);
    // BL8 = 4 tCK = 3.333 ns; every derived time goes through seconds().
    EXPECT_EQ(t.burst_cycles(), 4);
    EXPECT_DOUBLE_EQ(t.burst_time_s(), t.seconds(4));
    EXPECT_NEAR(t.burst_time_s(), 10e-9 / 3.0, 1e-21);
    // 64 B per burst every 3.333 ns = 19.2 GB/s.
    EXPECT_EQ(t.burst_bytes(), 64);
    EXPECT_NEAR(t.peak_bandwidth_Bps(), 19.2e9, 1.0);
}

TEST(Ddr4Timing, Organisation) {
    const Ddr4Timing t = ddr4_timing("DDR4-2400");
    // 1024 columns x 8 B (eight x8 devices) = 8 KiB per open row of the rank.
    EXPECT_EQ(t.row_bytes(), 8192);
    // 65536 rows x 8 KiB x 16 banks = 8 GiB (eight 8 Gb devices).
    EXPECT_EQ(t.capacity_bytes(), std::int64_t{8} << 30);
}

TEST(Ddr4Timing, DerivedTurnarounds) {
    const Ddr4Timing t = ddr4_timing("DDR4-2400");
    // RD->WR = RL + BL/2 - WL + 2 = 16 + 4 - 12 + 2.
    EXPECT_EQ(t.read_to_write_cycles(), 10);
    // WR->RD (other bank group) = WL + BL/2 + tWTR_S = 12 + 4 + 3.
    EXPECT_EQ(t.write_to_read_cycles(), 19);
    EXPECT_EQ(t.write_data_done_cycles(), 16);
    EXPECT_EQ(t.row_switch_cycles(), 32);
    // Refresh takes 420 of every 9360 cycles: stretch 9360 / 8940.
    EXPECT_DOUBLE_EQ(t.refresh_factor(), 9360.0 / 8940.0);
}

TEST(Ddr4Timing, Ddr4_3200SpeedBin) {
    const Ddr4Timing t = ddr4_timing("DDR4-3200");
    EXPECT_DOUBLE_EQ(t.tCK_ps, 625.0);
    EXPECT_EQ(t.CL, 22);
    EXPECT_EQ(t.tRCD, 22);
    EXPECT_EQ(t.tRP, 22);
    EXPECT_EQ(t.tRAS, 52);
    EXPECT_EQ(t.tCCD_L, 8);
    EXPECT_EQ(t.tFAW, 34);
    // 1600 cycles x 0.625 ns = 1 us; 64 B / 2.5 ns = 25.6 GB/s.
    EXPECT_NEAR(t.seconds(1600), 1e-6, 1e-18);
    EXPECT_NEAR(t.peak_bandwidth_Bps(), 25.6e9, 1.0);
}

TEST(Ddr4Timing, UnknownSpeedBin) {
    EXPECT_FALSE(find_ddr4_timing("DDR4-2401").has_value());
    try {
        (void)ddr4_timing("DDR4-2401");
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("DDR4-2401"), std::string::npos) << what;
        EXPECT_NE(what.find("DDR4-2400"), std::string::npos) << what;
    }
    EXPECT_EQ(ddr4_speed_bins().size(), 2u);
}

}  // namespace
}  // namespace hetsim::interconnect
