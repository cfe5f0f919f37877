#include "interconnect/ddr4_timing.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/config.hpp"

namespace hetsim::interconnect {
namespace {

TEST(Ddr4Timing, Ddr4_2400SpeedBinInCycles) {
    const Ddr4Timing t = named_memspec("ddr4-2400");
    EXPECT_EQ(t.name, "DDR4-2400");
    EXPECT_NEAR(t.tCK_ps, 833.333, 1e-3);  // 1200 MHz memspec clock
    EXPECT_EQ(t.tCK_ps, 1e6 / 1200.0);     // exactly: the file spells this double
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
    const Ddr4Timing t = named_memspec("ddr4-2400");
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
    const Ddr4Timing t = named_memspec("ddr4-2400");
    // 1024 columns x 8 B (eight x8 devices) = 8 KiB per open row of the rank.
    EXPECT_EQ(t.row_bytes(), 8192);
    // 65536 rows x 8 KiB x 16 banks = 8 GiB (eight 8 Gb devices).
    EXPECT_EQ(t.capacity_bytes(), std::int64_t{8} << 30);
}

TEST(Ddr4Timing, DerivedTurnarounds) {
    const Ddr4Timing t = named_memspec("ddr4-2400");
    // RD->WR = RL + BL/2 - WL + 2 = 16 + 4 - 12 + 2.
    EXPECT_EQ(t.read_to_write_cycles(), 10);
    // WR->RD (other bank group) = WL + BL/2 + tWTR_S = 12 + 4 + 3.
    EXPECT_EQ(t.write_to_read_cycles(), 19);
    EXPECT_EQ(t.write_data_done_cycles(), 16);
    EXPECT_EQ(t.row_switch_cycles(), 32);
    // WR->RD in the same bank group = 12 + 4 + tWTR_L 9; RD->RD of another row of the same
    // bank = tRTP 9 + tRP 16 + tRCD 16.
    EXPECT_EQ(t.write_to_read_same_group_cycles(), 25);
    EXPECT_EQ(t.read_row_switch_cycles(), 41);
    // A refresh takes PREA->REF tRP 16 + tRFC 420 + re-activation tRCD 16 = 452 of every
    // 9360 cycles (Ddr4Controller's RefreshPrechargesOpenRowsFirst): stretch 9360 / 8908.
    EXPECT_EQ(t.refresh_cycles(), 452);
    EXPECT_DOUBLE_EQ(t.refresh_factor(), 9360.0 / 8908.0);
}

TEST(Ddr4Timing, Ddr4_3200SpeedBin) {
    const Ddr4Timing t = named_memspec("ddr4-3200");
    EXPECT_EQ(t.name, "DDR4-3200");
    EXPECT_EQ(t.tCK_ps, 625.0);
    EXPECT_EQ(t.CL, 22);
    EXPECT_EQ(t.CWL, 16);
    EXPECT_EQ(t.tRCD, 22);
    EXPECT_EQ(t.tRP, 22);
    EXPECT_EQ(t.tRAS, 52);
    EXPECT_EQ(t.tRC, 74);
    EXPECT_EQ(t.tCCD_S, 4);
    EXPECT_EQ(t.tCCD_L, 8);
    EXPECT_EQ(t.tRRD_S, 4);
    EXPECT_EQ(t.tRRD_L, 8);
    EXPECT_EQ(t.tFAW, 34);
    EXPECT_EQ(t.tWR, 24);
    EXPECT_EQ(t.tWTR_S, 4);
    EXPECT_EQ(t.tWTR_L, 12);
    EXPECT_EQ(t.tRTP, 12);
    EXPECT_EQ(t.tREFI, 12480);
    EXPECT_EQ(t.tRFC, 560);
    EXPECT_EQ(t.rows, 65536);
    EXPECT_EQ(t.columns, 1024);
    // 1600 cycles x 0.625 ns = 1 us; 64 B / 2.5 ns = 25.6 GB/s.
    EXPECT_NEAR(t.seconds(1600), 1e-6, 1e-18);
    EXPECT_NEAR(t.peak_bandwidth_Bps(), 25.6e9, 1.0);
}

// --- memspec files -----------------------------------------------------------------------

std::string memspec_path(const std::string& file) {
    return std::string(HETSIM_SOURCE_DIR) + "/configs/memspecs/" + file;
}

void expect_same_timing(const Ddr4Timing& a, const Ddr4Timing& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.tCK_ps, b.tCK_ps);  // exactly: the file spells the same double
    EXPECT_EQ(a.CL, b.CL);
    EXPECT_EQ(a.CWL, b.CWL);
    EXPECT_EQ(a.tRCD, b.tRCD);
    EXPECT_EQ(a.tRP, b.tRP);
    EXPECT_EQ(a.tRAS, b.tRAS);
    EXPECT_EQ(a.tRC, b.tRC);
    EXPECT_EQ(a.tCCD_S, b.tCCD_S);
    EXPECT_EQ(a.tCCD_L, b.tCCD_L);
    EXPECT_EQ(a.tRRD_S, b.tRRD_S);
    EXPECT_EQ(a.tRRD_L, b.tRRD_L);
    EXPECT_EQ(a.tFAW, b.tFAW);
    EXPECT_EQ(a.tWR, b.tWR);
    EXPECT_EQ(a.tWTR_S, b.tWTR_S);
    EXPECT_EQ(a.tWTR_L, b.tWTR_L);
    EXPECT_EQ(a.tRTP, b.tRTP);
    EXPECT_EQ(a.tREFI, b.tREFI);
    EXPECT_EQ(a.tRFC, b.tRFC);
    EXPECT_EQ(a.BL, b.BL);
    EXPECT_EQ(a.bank_groups, b.bank_groups);
    EXPECT_EQ(a.banks_per_group, b.banks_per_group);
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(a.columns, b.columns);
    EXPECT_EQ(a.bus_width_bits, b.bus_width_bits);
}

std::string memspec_text() {
    std::ifstream in(memspec_path("ddr4-2400.yaml"));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string memspec_error(const std::string& text) {
    try {
        (void)parse_memspec(sim::ConfigNode::from_string(text, "mine.yaml"));
    } catch (const sim::InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an InputError";
    return {};
}

TEST(Memspec, UnknownKeySuggestsTheClosest) {
    const std::string e =
        memspec_error(std::regex_replace(memspec_text(), std::regex("tFAW:"), "tFAV:"));
    EXPECT_NE(e.find("mine.yaml"), std::string::npos) << e;
    EXPECT_NE(e.find("did you mean 'tFAW'"), std::string::npos) << e;
}

TEST(Memspec, MissingKeyNamesThePath) {
    const std::string e =
        memspec_error(std::regex_replace(memspec_text(), std::regex("  tRTP: 9 .*\\n"), ""));
    EXPECT_NE(e.find("timing"), std::string::npos) << e;
    EXPECT_NE(e.find("missing key 'tRTP'"), std::string::npos) << e;
}

TEST(Memspec, BadValues) {
    EXPECT_NE(memspec_error(std::regex_replace(memspec_text(), std::regex("CL: 16"), "CL: 0"))
                  .find("timing.CL"),
              std::string::npos);
    EXPECT_NE(
        memspec_error(std::regex_replace(memspec_text(), std::regex("tREFI: 9360"), "tREFI: 400"))
            .find("must exceed tRFC"),
        std::string::npos);
    EXPECT_THROW((void)load_memspec(memspec_path("no-such-file.yaml")), sim::InputError);
}

TEST(Memspec, ANameIsTheFileInConfigsMemspecs) {
    expect_same_timing(named_memspec("ddr4-2400"), load_memspec(memspec_path("ddr4-2400.yaml")));
    expect_same_timing(named_memspec("ddr4-3200"), load_memspec(memspec_path("ddr4-3200.yaml")));
    EXPECT_EQ(memspec_names(), (std::vector<std::string>{"ddr4-2400", "ddr4-3200"}));
}

TEST(Memspec, UnknownNameListsTheKnownOnes) {
    for (const std::string name : {"ddr4-2401", "DDR4-2400", "../memspecs/ddr4-2400", ""}) {
        EXPECT_FALSE(find_memspec_file(name).has_value()) << name;
        try {
            (void)named_memspec(name);
            ADD_FAILURE() << "'" << name << "' was accepted";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("unknown memspec '" + name + "'"), std::string::npos) << what;
            EXPECT_NE(what.find("known: ddr4-2400, ddr4-3200"), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
    try {
        (void)named_memspec("ddr4-2401");
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("(did you mean 'ddr4-2400'?)"), std::string::npos)
            << e.what();
    }
}

// Sets HETSIM_CONFIG_PATH for one test (an installed binary finds its memspecs through it).
class ConfigPathOverride {
public:
    explicit ConfigPathOverride(const std::string& value) { ::setenv(kVar, value.c_str(), 1); }
    ~ConfigPathOverride() { ::unsetenv(kVar); }

private:
    static constexpr const char* kVar = "HETSIM_CONFIG_PATH";
};

TEST(Memspec, ConfigPathFoldersComeFirst) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("hetsim_memspec_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "memspecs");
    // A site memspec of a new name, and one that shadows a shipped name.
    std::ofstream(dir / "memspecs" / "ddr4-site.yaml")
        << std::regex_replace(memspec_text(), std::regex("name: DDR4-2400"), "name: Site");
    std::ofstream(dir / "memspecs" / "ddr4-3200.yaml")
        << std::regex_replace(memspec_text(), std::regex("name: DDR4-2400"), "name: Shadow");
    {
        const ConfigPathOverride env("/no/such/folder:" + dir.string());
        EXPECT_EQ(named_memspec("ddr4-site").name, "Site");
        EXPECT_EQ(named_memspec("ddr4-site").CL, 16);
        EXPECT_EQ(named_memspec("ddr4-3200").name, "Shadow");
        EXPECT_EQ(named_memspec("ddr4-2400").name, "DDR4-2400");  // still from configs/
        EXPECT_EQ(memspec_names(),
                  (std::vector<std::string>{"ddr4-2400", "ddr4-3200", "ddr4-site"}));
    }
    EXPECT_FALSE(find_memspec_file("ddr4-site").has_value());
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetsim::interconnect
