#include "silent_pim/pim_command_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "interconnect/ddr4_controller.hpp"
#include "interconnect/ddr4_timing.hpp"
#include "silent_pim/silent_pim_device.hpp"

namespace hetsim::silent_pim {
namespace {

using interconnect::CommandRecord;
using interconnect::Cycles;
using interconnect::DramCommand;
using interconnect::DramRequest;
using interconnect::RequestKind;

const interconnect::Ddr4Timing k2400 = interconnect::named_memspec("ddr4-2400");
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

PimKernel elementwise(std::int64_t p, std::int64_t r, Operand2 o) {
    PimKernel k;
    k.kind = PimKernel::Kind::elementwise;
    k.p = p;
    k.r = r;
    k.operand2 = o;
    return k;
}
PimKernel matmul(std::int64_t p, std::int64_t q, std::int64_t r) {
    PimKernel k;
    k.kind = PimKernel::Kind::matmul;
    k.p = p;
    k.q = q;
    k.r = r;
    return k;
}
PimKernel transpose(std::int64_t rows, std::int64_t cols) {
    PimKernel k;
    k.kind = PimKernel::Kind::transpose;
    k.p = rows;
    k.q = cols;
    return k;
}

SilentPimDevice closed_form(const interconnect::Ddr4Timing& t, double logic_clock_Hz = 0.0) {
    SilentPimParams p;
    p.timing = t;
    p.logic_clock_Hz = logic_clock_Hz;
    return SilentPimDevice(p);
}

PimCommandModel command_level(const interconnect::Ddr4Timing& t, double logic_clock_Hz,
                              bool refresh = true) {
    PimCommandOptions o;
    o.logic_clock_Hz = logic_clock_Hz;
    o.refresh = refresh;
    return PimCommandModel(t, o);
}

// A command of a trace in row 0 (ACTs carry no column).
CommandRecord cmd(Cycles cycle, DramCommand c, int bg, int bank, std::int64_t column,
                  std::uint64_t request) {
    return CommandRecord{cycle, c, bg, bank, 0, c == DramCommand::ACT ? -1 : column, request};
}

// --- the request streams -------------------------------------------------------------------

TEST(PimCommandModel, CanonicalPlacement) {
    const PimCommandModel m(k2400);
    EXPECT_EQ(m.mapping().order(), "bank:row:column:bankgroup");
    // A, B and C in the ranges of bank indices 0, 1, 2 (2 GiB each), B and C 1 and 3 bursts in.
    const PimDescriptor d = m.descriptor(elementwise(4, 64, Operand2::full));
    EXPECT_EQ(d.op, PimOp::add);
    EXPECT_EQ(d.src_a, 0u);
    EXPECT_EQ(d.src_b, 2 * kGiB + 64);
    EXPECT_EQ(d.dst_c, 4 * kGiB + 3 * 64);
    EXPECT_EQ(m.mapping().decode(d.src_b), (interconnect::DramAddress{1, 1, 0, 0}));
    EXPECT_EQ(m.mapping().decode(d.dst_c), (interconnect::DramAddress{3, 2, 0, 0}));
}

TEST(PimCommandModel, ElementwiseStreams) {
    const PimCommandModel m(k2400);
    auto kinds_and_addresses = [&](const PimDescriptor& d) {
        std::vector<std::pair<RequestKind, std::uint64_t>> out;
        for (const DramRequest& r : m.requests(d)) {
            EXPECT_TRUE(r.in_order);
            out.emplace_back(r.kind, r.address);
        }
        return out;
    };
    const auto R = RequestKind::read;
    const auto W = RequestKind::write;
    PimDescriptor d;
    d.src_a = 0x10000;
    d.src_b = 0x20000;
    d.dst_c = 0x30000;
    d.p = 2;
    d.r = 64;
    // full (2x64): 4 output bursts of RD A, RD B, WR C at the same offsets.
    d.operand2 = Operand2::full;
    auto s = kinds_and_addresses(d);
    ASSERT_EQ(s.size(), 12u);
    EXPECT_EQ(s[9], std::make_pair(R, std::uint64_t{0x10000 + 192}));
    EXPECT_EQ(s[10], std::make_pair(R, std::uint64_t{0x20000 + 192}));
    EXPECT_EQ(s[11], std::make_pair(W, std::uint64_t{0x30000 + 192}));
    // row: the row vector's 2 bursts again for row 1.
    d.operand2 = Operand2::row;
    s = kinds_and_addresses(d);
    ASSERT_EQ(s.size(), 12u);
    EXPECT_EQ(s[6], std::make_pair(R, std::uint64_t{0x10000 + 128}));
    EXPECT_EQ(s[7], std::make_pair(R, std::uint64_t{0x20000}));
    EXPECT_EQ(s[10], std::make_pair(R, std::uint64_t{0x20000 + 64}));
    // scalar: one RD of the scalar, then RD A, WR C per output burst.
    d.operand2 = Operand2::scalar;
    s = kinds_and_addresses(d);
    ASSERT_EQ(s.size(), 9u);
    EXPECT_EQ(s[0], std::make_pair(R, std::uint64_t{0x20000}));
    EXPECT_EQ(s[1], std::make_pair(R, std::uint64_t{0x10000}));
    EXPECT_EQ(s[2], std::make_pair(W, std::uint64_t{0x30000}));
    // column: per row the burst holding its scalar (B + 2 i), then the row's bursts.
    d.operand2 = Operand2::column;
    s = kinds_and_addresses(d);
    ASSERT_EQ(s.size(), 10u);
    EXPECT_EQ(s[0], std::make_pair(R, std::uint64_t{0x20000}));
    EXPECT_EQ(s[5], std::make_pair(R, std::uint64_t{0x20002}));
    EXPECT_EQ(s[6], std::make_pair(R, std::uint64_t{0x10000 + 128}));
    for (Operand2 o : {Operand2::full, Operand2::row, Operand2::scalar, Operand2::column}) {
        d.operand2 = o;
        const auto [reads, writes] = m.request_counts(d);
        const auto all = m.requests(d);
        EXPECT_EQ(reads + writes, static_cast<std::int64_t>(all.size()));
        EXPECT_EQ(writes, std::count_if(all.begin(), all.end(), [](const DramRequest& r) {
                      return r.kind == RequestKind::write;
                  }));
    }
}

TEST(PimCommandModel, MatmulStreamsTheWeightColumnBlockMajor) {
    // (1x64) x (64x64): per column block jb: RD A[0..31], 32 RD B, RD A[32..63], 32 RD B,
    // WR C[jb]. B's block jb is q = 64 consecutive bursts from B + 64 x 64 x jb.
    const PimCommandModel m(k2400);
    PimDescriptor d;
    d.op = PimOp::matmul;
    d.src_a = 0;
    d.src_b = 0x100000;
    d.dst_c = 0x200000;
    d.p = 1;
    d.q = 64;
    d.r = 64;
    const auto s = m.requests(d);
    ASSERT_EQ(s.size(), 2u * (2 + 64 + 1));
    EXPECT_EQ(s[0].address, 0u);
    EXPECT_EQ(s[1].address, 0x100000u);
    EXPECT_EQ(s[32].address, 0x100000u + 31 * 64);
    EXPECT_EQ(s[33].address, 64u);  // A's second k block
    EXPECT_EQ(s[34].address, 0x100000u + 32 * 64);
    EXPECT_EQ(s[66].kind, RequestKind::write);
    EXPECT_EQ(s[66].address, 0x200000u);
    EXPECT_EQ(s[67].address, 0u);                   // block 1: A again
    EXPECT_EQ(s[68].address, 0x100000u + 64 * 64);  // B's block 1
    EXPECT_EQ(s[133].address, 0x200000u + 64);      // C[0][32..63]
    EXPECT_EQ(m.request_counts(d), std::make_pair(std::int64_t{132}, std::int64_t{2}));
}

TEST(PimCommandModel, TransposeGathersOneReadPerElement) {
    // (3x64) -> (64x3): band 0 (rows 0..2) outermost, column j inside: RD of the burst of
    // each source row holding column j, then WR C[j][0..2] at C + 2 x 3 x j.
    const PimCommandModel m(k2400);
    PimDescriptor d;
    d.op = PimOp::transpose;
    d.src_a = 0;
    d.dst_c = 0x8000;
    d.p = 3;
    d.q = 64;
    const auto s = m.requests(d);
    ASSERT_EQ(s.size(), 64u * 4);
    EXPECT_EQ(s[0].address, 0u);
    EXPECT_EQ(s[1].address, 128u);  // row 1 starts 64 x 2 bytes on
    EXPECT_EQ(s[2].address, 256u);
    EXPECT_EQ(s[3].kind, RequestKind::write);
    EXPECT_EQ(s[3].address, 0x8000u);
    EXPECT_EQ(s[4 * 33].address, 64u);  // column 33: second burst of row 0
    EXPECT_EQ(s[4 * 33 + 3].address, 0x8000u + 2 * 3 * 33);
    EXPECT_EQ(m.request_counts(d), std::make_pair(std::int64_t{192}, std::int64_t{64}));
}

// --- timing ----------------------------------------------------------------------------------

TEST(PimCommandModel, TinyElementwiseTraceByHand) {
    // (1x64)+(1x64), canonical placement: output burst k reads A in bank group k (bank 0), B in
    // k+1 (bank 1), writes C in k+3 (bank 2). Requests: 0 RD A0, 1 RD B0, 2 WR C0, 3 RD A1,
    // 4 RD B1, 5 WR C1. The controller activates ahead in request order:
    //   ACT A0 (bg0 b0) 0; ACT B0 (bg1 b1) 4 (tRRD_S); ACT C0 (bg3 b2) 8; ACT A1 (bg1 b0) 12
    //   (tRRD_S from 8; tRRD_L from bg1's ACT at 4 would allow 10);
    //   RD A0 16 (tRCD), RD B0 20 (tRCD after 4, tCCD_S after 16);
    //   ACT B1 (bg2 b1): the fifth ACT, tFAW after the one at 0: 26;
    //   WR C0 30 (RD -> WR = 16 + 4 - 12 + 2 = 10 after RD B0);
    //   ACT C1 (bg0 b2): tFAW after the ACT at 4 = 30, the bus is taken by the WR: 31;
    //   RD A1 49 (WR data ends 30 + 16 = 46, + tWTR_S 3, other bank group);
    //   RD B1 53 (tCCD_S); WR C1 63 (+10, column 8: C's fifth burst); done 63 + 16 = 79.
    PimCommandOptions o;
    o.record_trace = true;
    const PimCommandModel m(k2400, o);
    const PimRun run = m.run(elementwise(1, 64, Operand2::full));
    const std::vector<CommandRecord> expected = {
        cmd(0, DramCommand::ACT, 0, 0, 0, 0),  cmd(4, DramCommand::ACT, 1, 1, 0, 1),
        cmd(8, DramCommand::ACT, 3, 2, 0, 2),  cmd(12, DramCommand::ACT, 1, 0, 0, 3),
        cmd(16, DramCommand::RD, 0, 0, 0, 0),  cmd(20, DramCommand::RD, 1, 1, 0, 1),
        cmd(26, DramCommand::ACT, 2, 1, 0, 4), cmd(30, DramCommand::WR, 3, 2, 0, 2),
        cmd(31, DramCommand::ACT, 0, 2, 0, 5), cmd(49, DramCommand::RD, 1, 0, 0, 3),
        cmd(53, DramCommand::RD, 2, 1, 0, 4),  cmd(63, DramCommand::WR, 0, 2, 8, 5),
    };
    EXPECT_EQ(run.trace, expected);
    EXPECT_EQ(run.cycles, 79);
    EXPECT_EQ(run.reads, 4);
    EXPECT_EQ(run.writes, 2);
    EXPECT_DOUBLE_EQ(run.seconds, k2400.seconds(79));
    // The closed form counts the same: 16 + 2 x (4 + 10 + 19) - 19 + 16 = 79.
    EXPECT_DOUBLE_EQ(closed_form(k2400).elementwise_cycles(1, 64, Operand2::full), 79);
}

TEST(PimCommandModel, ClosedFormIsExactForStreamsWithoutRefresh) {
    // Without refresh the element-wise streams of the closed form are the command-level
    // schedule, clock for clock (row changes hidden, bus turnarounds as counted).
    PimCommandOptions o;
    o.refresh = false;
    const PimCommandModel m(k2400, o);
    const SilentPimDevice pim = closed_form(k2400);
    for (Operand2 op : {Operand2::full, Operand2::row, Operand2::scalar}) {
        for (std::int64_t p : {1, 16, 64}) {
            const PimKernel k = elementwise(p, 3072, op);
            EXPECT_DOUBLE_EQ(pim.kernel_cycles(k), static_cast<double>(m.run(k).cycles))
                << "p=" << p << " operand2=" << static_cast<int>(op);
        }
    }
    EXPECT_EQ(m.run(elementwise(64, 3072, Operand2::full)).cycles, 202765);
    // And the refresh-phase average is just the run when there is no refresh.
    EXPECT_DOUBLE_EQ(m.expected_cycles(elementwise(8, 512, Operand2::full)),
                     static_cast<double>(m.run(elementwise(8, 512, Operand2::full)).cycles));
}

TEST(PimCommandModel, RefreshCostsWhatTheClosedFormCharges) {
    // A 64 x 3072 add (~22 tREFI) with and without refresh: each REF takes tRP + tRFC + tRCD =
    // 452 clocks from the stream, give or take the drain before the PREA.
    PimCommandOptions off;
    off.refresh = false;
    const PimKernel k = elementwise(64, 3072, Operand2::full);
    const PimRun with = PimCommandModel(k2400).run(k);
    const PimRun without = PimCommandModel(k2400, off).run(k);
    ASSERT_GT(with.stats.ref, 0);
    const double per_refresh =
        static_cast<double>(with.cycles - without.cycles) / static_cast<double>(with.stats.ref);
    EXPECT_GE(per_refresh, k2400.refresh_cycles());
    EXPECT_LE(per_refresh, k2400.refresh_cycles() + 16);
}

// --- a logic clock apart from the DRAM clock ---------------------------------------------------

TEST(PimLogicClock, LaneCyclesPerBurst) {
    // BL8 = 4 beats, one per logic clock, in DDR4-2400 memspec clocks (1200 MHz), rounded up.
    EXPECT_EQ(lane_cycles_per_burst(k2400, 0.0), 4);  // the memspec clock
    EXPECT_EQ(lane_cycles_per_burst(k2400, 1.2e9), 4);
    EXPECT_EQ(lane_cycles_per_burst(k2400, 2.4e9), 2);
    EXPECT_EQ(lane_cycles_per_burst(k2400, 600e6), 8);   // exact ratio: no rounding up
    EXPECT_EQ(lane_cycles_per_burst(k2400, 500e6), 10);  // 9.6 -> 10
    EXPECT_EQ(lane_cycles_per_burst(k2400, 150e6), 32);
    EXPECT_EQ(lane_cycles_per_burst(interconnect::named_memspec("ddr4-3200"), 400e6), 16);
}

TEST(PimLogicClock, AtOrAboveTheMemspecClockNothingChanges) {
    // The stream is bound by the DRAM bus: lanes as fast as the bus or faster leave every
    // command where it was, in both models.
    const PimCommandModel base(k2400);
    const SilentPimDevice base_closed = closed_form(k2400);
    for (double f : {1.2e9, 2.4e9}) {
        const PimCommandModel m = command_level(k2400, f);
        const SilentPimDevice pim = closed_form(k2400, f);
        for (const PimKernel& k :
             {elementwise(8, 512, Operand2::full), elementwise(8, 768, Operand2::column),
              matmul(4, 768, 768), transpose(512, 512)}) {
            EXPECT_EQ(m.run(k).cycles, base.run(k).cycles) << f;
            EXPECT_DOUBLE_EQ(pim.kernel_cycles(k), base_closed.kernel_cycles(k)) << f;
        }
    }
}

TEST(PimLogicClock, QuarterClockElementwiseByHand) {
    // 300 MHz lanes on DDR4-2400: 16 memspec clocks per burst. One output burst of 64 x 1
    // twice (p = 1, r = 64): RD A 16, RD B 20, the WR of vACC waits for the lanes:
    // RD B + CL + 16 - CWL = 20 + 20 = 40 (JEDEC alone: 30); RD A 40 + 19 = 59, RD B 63,
    // WR 83; data done 83 + 12 + 4 = 99 = 16 + 2 x (4 + 20 + 19) - 19 + 16.
    const PimCommandModel m = command_level(k2400, 300e6, false);
    const PimRun run = m.run(elementwise(1, 64, Operand2::full));
    EXPECT_EQ(run.cycles, 99);
    EXPECT_DOUBLE_EQ(closed_form(k2400, 300e6).elementwise_cycles(1, 64, Operand2::full), 99);
}

TEST(PimLogicClock, ClosedFormIsExactForElementwiseStreamsWithoutRefresh) {
    for (double f : {600e6, 300e6, 150e6}) {
        const PimCommandModel m = command_level(k2400, f, false);
        const SilentPimDevice pim = closed_form(k2400, f);
        for (Operand2 op : {Operand2::full, Operand2::row, Operand2::scalar}) {
            const PimKernel k = elementwise(16, 3072, op);
            EXPECT_DOUBLE_EQ(pim.kernel_cycles(k), static_cast<double>(m.run(k).cycles))
                << f << " Hz, operand2=" << to_string(op);
        }
    }
}

TEST(PimLogicClock, SlowLanesBindTheMatmulWeightStream) {
    // At 150 MHz every weight burst holds the lanes 32 memspec clocks instead of tCCD_S = 4:
    // a (1 x 768) x (768 x 768) product streams 24 x 768 = 18,432 weight bursts, so the
    // command level takes at least 18,432 x 32 clocks, and at most that plus what the stream
    // spends outside the lanes at the memspec clock.
    const PimKernel k = matmul(1, 768, 768);
    const Cycles slow = command_level(k2400, 150e6, false).run(k).cycles;
    const Cycles fast = command_level(k2400, 0.0, false).run(k).cycles;
    EXPECT_GE(slow, 18432 * 32);
    EXPECT_LE(slow, 18432 * 32 + fast - 18432 * 4);
    // An element-wise add computes one burst in ~33 clocks of bus turnarounds: halving the
    // lanes' clock (8 clocks a burst) costs it nothing but the vACC write wait, 4 + 8 = 12 > 10.
    const PimKernel add = elementwise(64, 512, Operand2::full);
    const Cycles add_half = command_level(k2400, 600e6, false).run(add).cycles;
    const Cycles add_full = command_level(k2400, 0.0, false).run(add).cycles;
    EXPECT_EQ(add_half - add_full, 1024 * 2);
}

// --- the closed form held within 5 % of the command level -------------------------------------

// The graph path's duration of a kernel in clocks: SilentPimDevice::kernel_cycles stretched by
// refresh exactly as kernel_time_s() does. The reference: the command-level model averaged
// over the refresh phase (expected_cycles), since a kernel starts anywhere in the schedule.
struct GridResult {
    double worst = 0.0;
    std::string where;
};

void check(const PimCommandModel& m, const SilentPimDevice& pim, const PimKernel& k,
           const std::string& label, GridResult& g) {
    const double closed = pim.kernel_cycles(k) * m.timing().refresh_factor();
    const double reference = m.expected_cycles(k);
    const double error = (closed - reference) / reference;
    EXPECT_LE(std::abs(error), 0.05)
        << label << ": closed form " << closed << " vs command level " << reference;
    if (std::abs(error) >= std::abs(g.worst)) {
        g.worst = error;
        g.where = label;
    }
}

void report(const char* what, const GridResult& g) {
    std::printf("%s: worst closed-form error %+.2f %% (%s)\n", what, 100.0 * g.worst,
                g.where.c_str());
}

// lee2022 Table 2's weight shapes (q, r).
const std::vector<std::pair<std::int64_t, std::int64_t>> kTable2Weights = {
    {512, 512}, {512, 2048}, {2048, 512}, {768, 768}, {768, 3072}, {3072, 768}, {768, 2304}};

TEST(PimClosedFormGrid, ElementwiseWithin5Percent) {
    const PimCommandModel m(k2400);
    const SilentPimDevice pim = closed_form(k2400);
    GridResult g;
    for (std::int64_t p : {1, 8, 16, 64}) {
        for (std::int64_t r : {512, 768, 2048, 3072}) {
            for (Operand2 o : {Operand2::full, Operand2::row, Operand2::scalar, Operand2::column}) {
                check(m, pim, elementwise(p, r, o),
                      "(" + std::to_string(p) + "x" + std::to_string(r) + ") " + to_string(o), g);
            }
        }
    }
    report("element-wise", g);
}

TEST(PimClosedFormGrid, MatmulWithin5Percent) {
    const PimCommandModel m(k2400);
    const SilentPimDevice pim = closed_form(k2400);
    GridResult g;
    for (std::int64_t p : {1, 8, 16, 64}) {
        for (const auto& [q, r] : kTable2Weights) {
            check(m, pim, matmul(p, q, r),
                  "(" + std::to_string(p) + "x" + std::to_string(q) + ")x(" + std::to_string(q) +
                      "x" + std::to_string(r) + ")",
                  g);
        }
    }
    report("matmul", g);
}

TEST(PimClosedFormGrid, TransposeWithin5Percent) {
    // Each Table 2 weight transposed, in both orientations: (r x q) is what a Gemm with
    // transB = 1 transposes (SilentPimDevice::plan), (q x r) the other way round.
    const PimCommandModel m(k2400);
    const SilentPimDevice pim = closed_form(k2400);
    GridResult g;
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
    for (const auto& [q, r] : kTable2Weights) {
        for (const auto& s : {std::make_pair(r, q), std::make_pair(q, r)}) {
            if (std::find(shapes.begin(), shapes.end(), s) == shapes.end())
                shapes.push_back(s);
        }
    }
    for (const auto& [rows, cols] : shapes) {
        check(m, pim, transpose(rows, cols),
              "(" + std::to_string(rows) + "x" + std::to_string(cols) + ")^T", g);
    }
    report("transpose", g);
}

TEST(PimClosedFormGrid, SlowLogicClocksWithin5Percent) {
    // Lanes at 1/2, 1/4 and 1/8 of the DDR4-2400 memspec clock, and at an inexact 500 MHz.
    GridResult g;
    for (double f : {600e6, 500e6, 300e6, 150e6}) {
        const PimCommandModel m = command_level(k2400, f);
        const SilentPimDevice pim = closed_form(k2400, f);
        const std::string at = " @" + std::to_string(static_cast<int>(f / 1e6)) + " MHz";
        for (Operand2 o : {Operand2::full, Operand2::row, Operand2::scalar, Operand2::column})
            check(m, pim, elementwise(16, 768, o), std::string("(16x768) ") + to_string(o) + at, g);
        for (const auto& [q, r] : kTable2Weights) {
            check(m, pim, matmul(8, q, r),
                  "(8x" + std::to_string(q) + ")x(" + std::to_string(q) + "x" + std::to_string(r) +
                      ")" + at,
                  g);
        }
    }
    report("logic clock", g);
}

TEST(PimClosedFormGrid, Ddr4_3200SpotChecks) {
    // The formulas are written in JEDEC parameters, not DDR4-2400 numbers: a few shapes on
    // the 3200AA bin (tCCD_L 8, tWTR_L 12, CL 22, CWL 16, tRFC 560 of 12480).
    const interconnect::Ddr4Timing t = interconnect::named_memspec("ddr4-3200");
    const PimCommandModel m(t);
    const SilentPimDevice pim = closed_form(t);
    GridResult g;
    for (Operand2 o : {Operand2::full, Operand2::row, Operand2::scalar, Operand2::column})
        check(m, pim, elementwise(16, 768, o), std::string("(16x768) ") + to_string(o), g);
    check(m, pim, matmul(8, 512, 512), "(8x512)x(512x512)", g);
    check(m, pim, matmul(1, 768, 3072), "(1x768)x(768x3072)", g);
    check(m, pim, transpose(512, 512), "(512x512)^T", g);
    check(m, pim, transpose(512, 2048), "(512x2048)^T", g);
    report("DDR4-3200", g);
}

}  // namespace
}  // namespace hetsim::silent_pim
