// JEDEC DDR4 timing (JESD79-4) of one x64 rank, kept in clock cycles of the memspec clock
// tCK, as DRAMSys memspecs do. Every cycle count becomes seconds through ONE function,
// Ddr4Timing::seconds(), so the unit conversion that DRAM simulators classically get wrong
// lives in exactly one place (spec/simulator.md "DDR4 channel").
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetsim::sim {
class ConfigNode;
}

namespace hetsim::interconnect {

// A count of memspec clock cycles (tCK). Times in the command-level models are integers of
// this type; seconds come only from Ddr4Timing::seconds().
using Cycles = std::int64_t;

struct Ddr4Timing {
    std::string name;  // speed bin, "DDR4-2400"

    // The memspec clock period. The data rate is 2 / tCK (double data rate).
    double tCK_ps = 0.0;

    // All of these are in tCK cycles (JESD79-4 names).
    int CL = 0;      // read latency (CAS latency, AL = 0)
    int CWL = 0;     // write latency
    int tRCD = 0;    // ACT -> RD/WR, same bank
    int tRP = 0;     // PRE -> ACT, same bank
    int tRAS = 0;    // ACT -> PRE, same bank
    int tRC = 0;     // ACT -> ACT, same bank (tRAS + tRP)
    int tCCD_S = 0;  // RD->RD or WR->WR, different bank group
    int tCCD_L = 0;  // RD->RD or WR->WR, same bank group
    int tRRD_S = 0;  // ACT -> ACT, different bank group
    int tRRD_L = 0;  // ACT -> ACT, same bank group
    int tFAW = 0;    // window for four ACTs
    int tWR = 0;     // end of write data -> PRE (write recovery)
    int tWTR_S = 0;  // end of write data -> RD, different bank group
    int tWTR_L = 0;  // end of write data -> RD, same bank group
    int tRTP = 0;    // RD -> PRE
    int tREFI = 0;   // average refresh interval
    int tRFC = 0;    // refresh cycle time (REF -> next valid command)

    // Organisation: BL8 bursts on a 64-bit bus, 4 bank groups x 4 banks, x8 devices.
    int BL = 8;
    int bank_groups = 4;
    int banks_per_group = 4;
    std::int64_t rows = 0;
    std::int64_t columns = 0;  // per device row (page); x8 devices side by side form x64
    int bus_width_bits = 64;

    // --- the one cycles -> seconds conversion --------------------------------------------
    double seconds(double cycles) const { return cycles * tCK_ps * 1e-12; }

    double clock_hz() const { return 1e12 / tCK_ps; }
    int banks() const { return bank_groups * banks_per_group; }
    // A burst occupies the data bus for BL/2 clocks (two beats per clock).
    int burst_cycles() const { return BL / 2; }
    double burst_time_s() const { return seconds(burst_cycles()); }
    // Bytes one burst moves: BL beats of the bus width (64 B for BL8 x64).
    std::int64_t burst_bytes() const { return std::int64_t{BL} * bus_width_bits / 8; }
    // Bytes of one open row across the rank (page size x devices): 1024 columns x 8 B.
    std::int64_t row_bytes() const { return columns * bus_width_bits / 8; }
    std::int64_t capacity_bytes() const { return rows * row_bytes() * banks(); }
    // Bus peak: one burst every BL/2 clocks (19.2 GB/s for DDR4-2400).
    double peak_bandwidth_Bps() const {
        return static_cast<double>(burst_bytes()) / burst_time_s();
    }

    // Derived command-to-command spacings used by the PIM command streams (JESD79-4 §4.x
    // "read to write" and "write to read" timing, 1 tCK preambles, AL = 0):
    //   RD -> WR: RL + BL/2 - WL + 2 (bus turnaround)
    int read_to_write_cycles() const { return CL + BL / 2 + 2 - CWL; }
    //   WR -> RD, different bank group: WL + BL/2 + tWTR_S
    int write_to_read_cycles() const { return CWL + BL / 2 + tWTR_S; }
    //   WR -> RD, same bank group: WL + BL/2 + tWTR_L
    int write_to_read_same_group_cycles() const { return CWL + BL / 2 + tWTR_L; }
    //   last WR command -> its data fully on the bus
    int write_data_done_cycles() const { return CWL + BL / 2; }
    //   opening another row of a bank: PRE then ACT
    int row_switch_cycles() const { return tRP + tRCD; }
    //   RD of one row -> RD of another row of the same bank: RD -> PRE tRTP, PRE -> ACT tRP,
    //   ACT -> RD tRCD (tRAS already met)
    int read_row_switch_cycles() const { return tRTP + tRP + tRCD; }
    // Clocks a refresh takes from the stream: PREA -> REF tRP, REF -> ACT tRFC, then the rows
    // are opened again, ACT -> RD/WR tRCD (what the command-level controller shows).
    int refresh_cycles() const { return tRP + tRFC + tRCD; }
    // Time-dilation from refresh: the rank is unavailable refresh_cycles() out of every tREFI.
    // An expectation: a kernel starts at an arbitrary point of the refresh schedule.
    double refresh_factor() const {
        return static_cast<double>(tREFI) / static_cast<double>(tREFI - refresh_cycles());
    }
};

// Memspec files (configs/memspecs/ddr4-2400.yaml, ddr4-3200.yaml), DRAMSys-style: the
// organisation and every JESD79-4 timing in tCK cycles, tCK in ps. They are the only place
// the DDR4 speed bins live:
//   name: DDR4-2400
//   architecture: {bank_groups, banks_per_group, rows, columns, burst_length, bus_width_bits}
//   timing: {tCK_ps, CL, CWL, tRCD, tRP, tRAS, tRC, tCCD_S, tCCD_L, tRRD_S, tRRD_L, tFAW,
//            tWR, tWTR_S, tWTR_L, tRTP, tREFI, tRFC}
// Every key is required; an unknown key fails with "did you mean", a missing one names its
// YAML path (sim::InputError: file, line, path).
Ddr4Timing load_memspec(const std::filesystem::path& path);
Ddr4Timing parse_memspec(const sim::ConfigNode& node);

// Memspecs by name: "<name>" is memspecs/<name>.yaml in the config search path
// (sim::config_search_path(): $HETSIM_CONFIG_PATH, ./configs, the source tree's configs/), so
// `memspec: ddr4-2400` loads configs/memspecs/ddr4-2400.yaml.
std::vector<std::string> memspec_names();  // sorted, every folder of the search path
std::optional<std::filesystem::path> find_memspec_file(std::string_view name);
// Throws std::invalid_argument naming `name` and the known names when there is no such file.
Ddr4Timing named_memspec(std::string_view name);
// A platform YAML's `memspec: <name>` value: fails naming `node` (with the known names and a
// "did you mean") when the name is unknown.
Ddr4Timing memspec_from_config(const sim::ConfigNode& node);

}  // namespace hetsim::interconnect
