// Silent-PIM at command level (lee2022 §2.2; Kim et al., "Silent-PIM", TPDS 2022): the PIM
// executes "using the standard memory request", so a PIM kernel IS a stream of ordinary DDR4
// reads and writes. This model turns one DMA descriptor {op, src A, src B, dst C, p, q, r,
// operand2} into that request stream and times it on the command-level DDR4 controller
// (interconnect::Ddr4Controller: ACT/RD/WR/PRE/REF under every JESD79-4 constraint). It is
// the reference the closed-form durations of SilentPimDevice are held against.
//
// The datapath (bf16, 8 lanes): vecA = 4 x 128 bit holds one 64-byte burst (32 bf16) loaded by
// a RD; vecB (128 bit) takes the 16 bytes of each clock of a RD burst and the 8 lanes compute
// on them that clock (vecA op vecB, or MAC into vACC); a WR stores the vACC burst (32 results).
//
// Request streams (E = 32 bf16 per burst; "burst" = one 64-byte RD/WR):
//   element-wise, operand2 full (p,r) op (p,r): per output burst k
//       RD A[k] -> vecA, RD B[k] -> vecB (computed as it streams), WR C[k] <- vACC.
//   operand2 row (p,r) op (r): row by row (row i at i r, so with r a multiple of 32 every
//       row starts a burst); per output burst (i, c): RD A[i][c], RD B[c], WR C[i][c]. vecB
//       only fills from a burst, so the row vector's burst c is read again for every row i
//       (from its open DRAM row).
//   operand2 scalar (p,r) op (1): one RD of the scalar's burst into vecA (replicated to the
//       lanes) before everything, then per output burst RD A[k] -> vecB, WR C[k].
//   operand2 column (p,r) op (p,1): the p scalars are packed 32 per burst; per row i one RD
//       of the burst holding scalar i into vecA, then per output burst of the row RD A, WR C.
//   These are the reads the closed form charges: broadcast operands are read once (scalar),
//   once per row (column), or once per output burst from an open row (row vector).
//   matmul (p,q) x (q,r): p vector-matrix products (lee2022 §2.2: "repeating a VM
//       multiplication ... by the number of rows of A"), each streaming the whole weight.
//       B is stored column-block-major: block jb (columns 32 jb .. 32 jb + 31) holds one burst
//       per input k, q consecutive bursts -- the layout a runtime gives a PIM weight so that it
//       streams (a row-major B read in this order would stride 2 r bytes per RD). NOTE: the
//       functional pim_engine indexes B row-major; the two differ in src_b's layout only.
//       For row i, for each block jb:
//         for each 32-element block kb of A's row: RD A[i][kb] -> vecA, then one RD of B
//           per input k of the block (32 bf16 of row k; lane MAC vecA[k] x vecB into vACC);
//         WR C[i][jb] <- vACC.
//   transpose (p,q) -> (q,p): the only burst register a WR can store is vecA, so each output
//       burst gathers its 32 elements one RD each (one per source row), then one WR. Bands of
//       32 source rows outermost, source column j inside: C[j][band] <- A[band rows][j].
//
// Placement (descriptor(kernel)): the PIM memory uses the address mapping
// bank:row:column:bankgroup. Consecutive bursts of an operand rotate over the four bank groups
// (so a stream runs at tCCD_S, the full bus rate), and each bank index owns one 2 GiB address
// range. A, B and C are placed in the ranges of banks 0, 1 and 2, so the interleaved operand
// streams never close each other's rows, and B and C start 1 and 3 bursts into their range so
// that consecutive commands of a stream never share a bank group: "operands A, B, C live in
// different bank groups", which the closed form assumes.
//
// All requests are in_order (a PIM instruction stream must not be reordered); the controller
// may still precharge and activate banks ahead of them (its queue is the lookahead window).
//
// Logic clock: Silent-PIM's lanes run on the DRAM clock, consuming each beat as it arrives.
// A PIM whose logic runs slower (PimCommandOptions::logic_clock_Hz) cannot: the requests after
// a computing RD carry the lanes' busy time as DramRequest::ordered_gap (see PimStream), and
// the controller holds them back by that much. This assumes a burst-wide input buffer in the
// DRAM clock domain (as vecA already is), so that a burst can arrive faster than the lanes
// take it [assumption]; the gather of a transpose and vecA loads are captured in that domain
// and take no lane time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interconnect/address_mapping.hpp"
#include "interconnect/ddr4_controller.hpp"
#include "interconnect/ddr4_timing.hpp"
#include "silent_pim/pim_descriptor.hpp"
#include "silent_pim/silent_pim_device.hpp"

namespace hetsim::silent_pim {

struct PimCommandOptions {
    // PIM memory address mapping (interconnect/address_mapping.hpp), most significant first.
    std::string mapping = "bank:row:column:bankgroup";
    // Controller request queue = how far ahead it sees the stream to prepare banks.
    int queue_depth = 32;
    bool refresh = true;
    // The PIM logic's clock (SilentPimParams::logic_clock_Hz); 0 = the memspec clock.
    double logic_clock_Hz = 0.0;
    // Cycle the first REF is due (0 = tREFI: the kernel starts right after a refresh).
    interconnect::Cycles first_refresh = 0;
    bool record_trace = false;
};

struct PimRun {
    interconnect::Cycles cycles = 0;  // first command at 0 -> last request's data done
    double seconds = 0.0;             // the one conversion: Ddr4Timing::seconds(cycles)
    std::int64_t reads = 0;
    std::int64_t writes = 0;
    interconnect::ControllerStats stats;
    std::vector<interconnect::CommandRecord> trace;  // when options.record_trace
};

class PimCommandModel {
public:
    explicit PimCommandModel(interconnect::Ddr4Timing timing, PimCommandOptions options = {});

    // The standard requests that execute `d`, in issue order (ids 0, 1, ...; all arrive at
    // cycle 0, in_order). Meant for small descriptors; run() streams them instead.
    std::vector<interconnect::DramRequest> requests(const PimDescriptor& d) const;
    // Number of RD and WR requests of `d` without generating them: {reads, writes}.
    std::pair<std::int64_t, std::int64_t> request_counts(const PimDescriptor& d) const;

    PimRun run(const PimDescriptor& d) const;
    PimRun run(const PimKernel& kernel) const { return run(descriptor(kernel)); }

    // Cycles of `d` averaged over the phase of the refresh schedule: a kernel on the graph path
    // starts at an arbitrary point between two REFs, which is what the closed form's refresh
    // factor stands for. Runs with the first REF due at tREFI (m + 1/2) / K, m = 0 .. K-1,
    // K = 8 tREFI / cycles clamped to [8, 512] (so that even a kernel much shorter than tREFI
    // sees refreshes with the right probability); a kernel longer than 64 tREFI, where the
    // phase moves the result by under 0.1 %, runs once (REF due at tREFI / 2).
    double expected_cycles(const PimDescriptor& d) const;
    double expected_cycles(const PimKernel& kernel) const {
        return expected_cycles(descriptor(kernel));
    }

    // The descriptor of a graph-path kernel with the canonical placement described above
    // (element-wise kernels as add: add, sub and mul take the same time, lee2022 §4.2).
    PimDescriptor descriptor(const PimKernel& kernel) const;

    const interconnect::Ddr4Timing& timing() const { return timing_; }
    const interconnect::AddressMapping& mapping() const { return mapping_; }
    const PimCommandOptions& options() const { return options_; }
    // Address of (bank group 0, bank `bank`, row 0, column 0): under the default mapping the
    // start of the 2 GiB range bank index `bank` owns in every bank group.
    std::uint64_t bank_range_base(int bank) const;

private:
    interconnect::Ddr4Timing timing_;
    PimCommandOptions options_;
    interconnect::AddressMapping mapping_;
};

}  // namespace hetsim::silent_pim
