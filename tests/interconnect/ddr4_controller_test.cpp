#include "interconnect/ddr4_controller.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "interconnect/address_mapping.hpp"
#include "interconnect/ddr4_timing.hpp"

namespace hetsim::interconnect {
namespace {

// Every expected cycle below is worked out by hand from the DDR4-2400 bin (JESD79-4, 2400R):
//   CL 16, CWL 12, tRCD 16, tRP 16, tRAS 39, tRC 55, tCCD_S 4, tCCD_L 6, tRRD_S 4, tRRD_L 6,
//   tFAW 26, tWR 18, tWTR_S 3, tWTR_L 9, tRTP 9, tREFI 9360, tRFC 420, BL8 = 4 clocks of data.
// A read completes at RD + CL + 4 (last data beat), a write at WR + CWL + 4.

const Ddr4Timing kT = named_memspec("ddr4-2400");

// Byte address of (bank group, bank, row, column) under the controller's default mapping
// row:bank:bankgroup:column.
std::uint64_t at(int bg, int bank, std::int64_t row, std::int64_t column = 0) {
    return AddressMapping(kT).encode(DramAddress{bg, bank, row, column});
}

DramRequest rd(std::uint64_t id, std::uint64_t address, Cycles arrival = 0, bool ordered = false) {
    return DramRequest{id, RequestKind::read, address, arrival, ordered};
}
DramRequest wr(std::uint64_t id, std::uint64_t address, Cycles arrival = 0, bool ordered = false) {
    return DramRequest{id, RequestKind::write, address, arrival, ordered};
}

CommandRecord cmd(Cycles cycle, DramCommand c, int bg, int bank, std::int64_t row,
                  std::int64_t column, std::uint64_t request) {
    return CommandRecord{cycle, c, bg, bank, row, column, request};
}

Cycles done(const Ddr4Controller& c, std::uint64_t id) {
    const auto cycle = c.completion_of(id);
    EXPECT_TRUE(cycle.has_value()) << "request " << id;
    return cycle.value_or(-1);
}

// The cycles at which each command of kind `c` was issued.
std::vector<Cycles> cycles_of(const Ddr4Controller& ctl, DramCommand c) {
    std::vector<Cycles> out;
    for (const CommandRecord& r : ctl.trace()) {
        if (r.command == c)
            out.push_back(r.cycle);
    }
    return out;
}

TEST(Ddr4Controller, RowHitsInOneBankGroupAreTccdLApart) {
    // Default mapping: consecutive 64-B bursts stream one row of one bank (same bank group).
    // ACT at 0, first RD at tRCD = 16, then each row hit tCCD_L = 6 later: 16, 22, ..., 58.
    Ddr4Controller ctl(kT);
    for (std::uint64_t i = 0; i < 8; ++i)
        ctl.enqueue(rd(i, i * 64));
    EXPECT_EQ(ctl.run(), 58 + 16 + 4);  // last RD 58 + CL + BL/2 = 78
    EXPECT_EQ(cycles_of(ctl, DramCommand::ACT), std::vector<Cycles>({0}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::RD),
              std::vector<Cycles>({16, 22, 28, 34, 40, 46, 52, 58}));
    EXPECT_EQ(done(ctl, 0), 36);
    EXPECT_EQ(ctl.stats().row_misses, 1);
    EXPECT_EQ(ctl.stats().row_hits, 7);
    EXPECT_EQ(ctl.trace()[1], cmd(16, DramCommand::RD, 0, 0, 0, 0, 0));
    EXPECT_EQ(ctl.trace()[2], cmd(22, DramCommand::RD, 0, 0, 0, 8, 1));  // next burst: col 8
}

TEST(Ddr4Controller, BankGroupInterleavedStreamRunsAtTccdS) {
    // row:bank:column:bankgroup puts consecutive bursts in bank groups 0, 1, 2, 3, 0, ...
    // ACTs for the four groups tRRD_S = 4 apart: 0, 4, 8, 12; RDs from tRCD after the first:
    // 16, 20, 24, 28 (each tRCD after its ACT and tCCD_S after the previous RD); the 5th burst
    // is group 0 again: max(16 + tCCD_L, 28 + tCCD_S) = 32, then 36, 40, 44: one burst per
    // 4 clocks, the data bus never idle (19.2 GB/s) against 6 clocks in one bank group.
    Ddr4Controller ctl(kT, AddressMapping::parse(kT, "row:bank:column:bankgroup"));
    for (std::uint64_t i = 0; i < 8; ++i)
        ctl.enqueue(rd(i, i * 64));
    EXPECT_EQ(ctl.run(), 44 + 20);
    EXPECT_EQ(cycles_of(ctl, DramCommand::ACT), std::vector<Cycles>({0, 4, 8, 12}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::RD),
              std::vector<Cycles>({16, 20, 24, 28, 32, 36, 40, 44}));
    EXPECT_EQ(ctl.trace()[8], cmd(32, DramCommand::RD, 0, 0, 0, 8, 4));
}

TEST(Ddr4Controller, OneCommandPerClockColumnCommandFirst) {
    // R0 opens bank group 0 (ACT 0, RD ready at 16). R1 arrives at 16 needing an ACT in bank
    // group 1, also ready at 16 (tRRD_S long past). One command per clock, and FR-FCFS puts the
    // column command first: RD R0 at 16, ACT R1 at 17, RD R1 at 17 + tRCD = 33.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0)));
    ctl.enqueue(rd(1, at(1, 0, 0), 16));
    ctl.run();
    const std::vector<CommandRecord> expected = {
        cmd(0, DramCommand::ACT, 0, 0, 0, -1, 0),
        cmd(16, DramCommand::RD, 0, 0, 0, 0, 0),
        cmd(17, DramCommand::ACT, 1, 0, 0, -1, 1),
        cmd(33, DramCommand::RD, 1, 0, 0, 0, 1),
    };
    EXPECT_EQ(ctl.trace(), expected);
    EXPECT_EQ(done(ctl, 1), 33 + 20);
}

TEST(Ddr4Controller, RowMissPaysTrasTrpTrcd) {
    // R0 row 0, R1 row 1 of the same bank. ACT 0, RD R0 16. PRE for R1: tRAS after the ACT
    // (39) and tRTP after the RD (25) -> 39; ACT tRP later 55 (= tRC after the first ACT);
    // RD tRCD later 71; data done 71 + CL + 4 = 91.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0)));
    ctl.enqueue(rd(1, at(0, 0, 1)));
    EXPECT_EQ(ctl.run(), 91);
    const std::vector<CommandRecord> expected = {
        cmd(0, DramCommand::ACT, 0, 0, 0, -1, 0),  cmd(16, DramCommand::RD, 0, 0, 0, 0, 0),
        cmd(39, DramCommand::PRE, 0, 0, 0, -1, 1),  // closes row 0
        cmd(55, DramCommand::ACT, 0, 0, 1, -1, 1), cmd(71, DramCommand::RD, 0, 0, 1, 0, 1),
    };
    EXPECT_EQ(ctl.trace(), expected);
    EXPECT_EQ(done(ctl, 0), 36);
    EXPECT_EQ(ctl.stats().row_conflicts, 1);
}

TEST(Ddr4Controller, ReadToPrechargeWaitsTrtp) {
    // A late row hit R1 (arrives 35) reads at 35; the miss R2 (arrives 36) may precharge at
    // max(tRAS: 0 + 39, tRTP: 35 + 9 = 44) = 44, ACT 60, RD 76, done 96.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0)));
    ctl.enqueue(rd(1, at(0, 0, 0, 8), 35));
    ctl.enqueue(rd(2, at(0, 0, 1), 36));
    ctl.run();
    EXPECT_EQ(cycles_of(ctl, DramCommand::RD), std::vector<Cycles>({16, 35, 76}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::PRE), std::vector<Cycles>({44}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::ACT), std::vector<Cycles>({0, 60}));
    EXPECT_EQ(done(ctl, 2), 96);
}

TEST(Ddr4Controller, WriteRecoveryBeforePrecharge) {
    // WR R0 at tRCD = 16, its data on the bus 16 + CWL = 28 .. 32. PRE for R1 (other row):
    // max(tRAS 39, data end 32 + tWR 18 = 50) = 50; ACT 66; RD 82; done 102. The write itself
    // completes at 16 + CWL + 4 = 32.
    Ddr4Controller ctl(kT);
    ctl.enqueue(wr(0, at(0, 0, 0)));
    ctl.enqueue(rd(1, at(0, 0, 1)));
    ctl.run();
    EXPECT_EQ(done(ctl, 0), 32);
    EXPECT_EQ(cycles_of(ctl, DramCommand::PRE), std::vector<Cycles>({50}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::ACT), std::vector<Cycles>({0, 66}));
    EXPECT_EQ(done(ctl, 1), 102);
}

TEST(Ddr4Controller, ReadToWriteTurnaround) {
    // RD R0 (group 0) at 16, its data 32 .. 36. WR R1 (group 1, ACT 4, ready at 20 by tRCD):
    // its data may start 2 clocks after the read data, 38, so WR at 38 - CWL = 26
    // (= RL + BL/2 - WL + 2 = 16 + 4 - 12 + 2 = 10 after the RD). Done 26 + 16 = 42.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0)));
    ctl.enqueue(wr(1, at(1, 0, 0)));
    ctl.run();
    EXPECT_EQ(cycles_of(ctl, DramCommand::ACT), std::vector<Cycles>({0, 4}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::RD), std::vector<Cycles>({16}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::WR), std::vector<Cycles>({26}));
    EXPECT_EQ(done(ctl, 1), 42);
    EXPECT_EQ(kT.read_to_write_cycles(), 10);
}

TEST(Ddr4Controller, WriteToReadTurnaroundByBankGroup) {
    // WR R0 (group 0) at 16: data ends 16 + CWL + 4 = 32.
    // Read in another bank group (ACT 4): 32 + tWTR_S 3 = 35.
    {
        Ddr4Controller ctl(kT);
        ctl.enqueue(wr(0, at(0, 0, 0)));
        ctl.enqueue(rd(1, at(1, 0, 0)));
        ctl.run();
        EXPECT_EQ(cycles_of(ctl, DramCommand::WR), std::vector<Cycles>({16}));
        EXPECT_EQ(cycles_of(ctl, DramCommand::RD), std::vector<Cycles>({35}));
        EXPECT_EQ(done(ctl, 1), 55);
    }
    // Read in the same bank group (the same open row): 32 + tWTR_L 9 = 41.
    {
        Ddr4Controller ctl(kT);
        ctl.enqueue(wr(0, at(0, 0, 0)));
        ctl.enqueue(rd(1, at(0, 0, 0, 8)));
        ctl.run();
        EXPECT_EQ(cycles_of(ctl, DramCommand::RD), std::vector<Cycles>({41}));
        EXPECT_EQ(done(ctl, 1), 61);
    }
}

TEST(Ddr4Controller, FifthActivateWaitsForTheFawWindow) {
    // Five banks: groups 0, 1, 2, 3 (bank 0) and group 0 bank 1. ACTs tRRD_S apart: 0, 4, 8,
    // 12; the fifth could go at 16 by tRRD_S (tRRD_L from 0 is 6) but four ACTs in any tFAW
    // window: not before 0 + 26. Meanwhile RDs at 16, 20, 24 (tRCD after their ACTs, tCCD_S
    // apart); ACT #5 at 26, RD R3 at 28, RD R4 at 26 + tRCD = 42, done 62.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0)));
    ctl.enqueue(rd(1, at(1, 0, 0)));
    ctl.enqueue(rd(2, at(2, 0, 0)));
    ctl.enqueue(rd(3, at(3, 0, 0)));
    ctl.enqueue(rd(4, at(0, 1, 0)));
    ctl.run();
    EXPECT_EQ(cycles_of(ctl, DramCommand::ACT), std::vector<Cycles>({0, 4, 8, 12, 26}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::RD), std::vector<Cycles>({16, 20, 24, 28, 42}));
    EXPECT_EQ(done(ctl, 4), 62);
}

TEST(Ddr4Controller, FrFcfsServesARowHitBeforeAnOlderMiss) {
    // R0 opens row 0 (ACT 0, RD 16). R1 (arrives 1) wants row 1 of the same bank, R2 (arrives
    // 2) row 0 again. R1's PRE may not close row 0 while the older R0 still hits it; after RD
    // R0 it could go at max(tRAS 39, tRTP 25) = 39, but R2's row hit is ready at 16 + tCCD_L =
    // 22 and goes first (first ready); then PRE 39, ACT 55, RD R1 71 (done 91).
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0)));
    ctl.enqueue(rd(1, at(0, 0, 1), 1));
    ctl.enqueue(rd(2, at(0, 0, 0, 8), 2));
    ctl.run();
    const std::vector<CommandRecord> expected = {
        cmd(0, DramCommand::ACT, 0, 0, 0, -1, 0),  cmd(16, DramCommand::RD, 0, 0, 0, 0, 0),
        cmd(22, DramCommand::RD, 0, 0, 0, 8, 2),   cmd(39, DramCommand::PRE, 0, 0, 0, -1, 1),
        cmd(55, DramCommand::ACT, 0, 0, 1, -1, 1), cmd(71, DramCommand::RD, 0, 0, 1, 0, 1),
    };
    EXPECT_EQ(ctl.trace(), expected);
    EXPECT_EQ(done(ctl, 2), 42);
    EXPECT_EQ(done(ctl, 1), 91);
}

TEST(Ddr4Controller, InOrderRequestsAreNotReordered) {
    // The same three requests as a PIM stream (in_order): R2 waits for R1. PRE 39, ACT 55,
    // RD R1 71; R2 needs row 0 back: PRE at max(tRAS 55 + 39 = 94, tRTP 71 + 9 = 80) = 94,
    // ACT 110, RD 126, done 146.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0), 0, true));
    ctl.enqueue(rd(1, at(0, 0, 1), 1, true));
    ctl.enqueue(rd(2, at(0, 0, 0, 8), 2, true));
    ctl.run();
    EXPECT_EQ(cycles_of(ctl, DramCommand::RD), std::vector<Cycles>({16, 71, 126}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::PRE), std::vector<Cycles>({39, 94}));
    EXPECT_EQ(done(ctl, 2), 146);
}

TEST(Ddr4Controller, OrderedGapHoldsTheNextColumnCommandBack) {
    // Two reads streaming over bank groups 0 and 1 (RD 16, then tCCD_S: 20) and a write.
    // With ordered_gap 11 on the second read it issues at 16 + 11 = 27; the write asks for 30
    // after it: 57, past the RD -> WR turnaround (27 + 10 = 37). Ordered gaps count only from
    // the previous in_order column command.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0), 0, true));
    DramRequest second = rd(1, at(1, 0, 0), 0, true);
    second.ordered_gap = 11;
    ctl.enqueue(second);
    DramRequest third = wr(2, at(2, 0, 0), 0, true);
    third.ordered_gap = 30;
    ctl.enqueue(third);
    ctl.run();
    EXPECT_EQ(cycles_of(ctl, DramCommand::RD), std::vector<Cycles>({16, 27}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::WR), std::vector<Cycles>({57}));
    EXPECT_EQ(done(ctl, 2), 57 + 12 + 4);

    // A gap below what JEDEC already imposes changes nothing.
    Ddr4Controller plain(kT);
    plain.enqueue(rd(0, at(0, 0, 0), 0, true));
    DramRequest small = rd(1, at(1, 0, 0), 0, true);
    small.ordered_gap = 3;
    plain.enqueue(small);
    plain.run();
    EXPECT_EQ(cycles_of(plain, DramCommand::RD), std::vector<Cycles>({16, 20}));
}

TEST(Ddr4Controller, RefreshDelaysAPendingRequestByTrfc) {
    // A read arriving at tREFI = 9360 finds the REF due: all banks are idle (no PREA needed),
    // REF at 9360, ACT tRFC later at 9780, RD 9796, done 9816 -- tRFC = 420 later than without
    // refresh (ACT 9360, RD 9376, done 9396).
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0), 9360));
    EXPECT_EQ(ctl.run(), 9816);
    const std::vector<CommandRecord> expected = {
        cmd(9360, DramCommand::REF, -1, -1, -1, -1, kNoRequest),
        cmd(9780, DramCommand::ACT, 0, 0, 0, -1, 0),
        cmd(9796, DramCommand::RD, 0, 0, 0, 0, 0),
    };
    EXPECT_EQ(ctl.trace(), expected);

    ControllerOptions off;
    off.refresh = false;
    Ddr4Controller no_ref(kT, AddressMapping(kT), off);
    no_ref.enqueue(rd(0, at(0, 0, 0), 9360));
    EXPECT_EQ(no_ref.run(), 9396);
    EXPECT_EQ(9816 - 9396, kT.tRFC);
}

TEST(Ddr4Controller, RefreshPrechargesOpenRowsFirst) {
    // Row 0 is left open by R0 (ACT 0, RD 16). R1, a row hit arriving at 9360, would read at
    // once; the due REF comes first: PREA at 9360 (tRAS, tRTP long met), REF tRP later at 9376,
    // ACT tRFC later at 9796, RD 9812, done 9832: tRP + tRFC + tRCD = 452 later than the hit
    // (RD 9360, done 9380) -- Ddr4Timing::refresh_cycles(), what the closed form charges.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0)));
    ctl.enqueue(rd(1, at(0, 0, 0, 8), 9360));
    EXPECT_EQ(ctl.run(), 9832);
    const std::vector<CommandRecord> expected = {
        cmd(0, DramCommand::ACT, 0, 0, 0, -1, 0),
        cmd(16, DramCommand::RD, 0, 0, 0, 0, 0),
        cmd(9360, DramCommand::PREA, -1, -1, -1, -1, kNoRequest),
        cmd(9376, DramCommand::REF, -1, -1, -1, -1, kNoRequest),
        cmd(9796, DramCommand::ACT, 0, 0, 0, -1, 1),
        cmd(9812, DramCommand::RD, 0, 0, 0, 8, 1),
    };
    EXPECT_EQ(ctl.trace(), expected);
    EXPECT_EQ(9832 - 9380, kT.refresh_cycles());
}

TEST(Ddr4Controller, RefreshRecursEveryTrefi) {
    // An idle rank with a request at 3 tREFI + 1: REFs at 9360, 18720 and 28080 (each tREFI
    // after the previous due time); the request then waits for the last one's tRFC:
    // ACT 28500, RD 28516.
    Ddr4Controller ctl(kT);
    ctl.enqueue(rd(0, at(0, 0, 0), 3 * 9360 + 1));
    ctl.run();
    EXPECT_EQ(cycles_of(ctl, DramCommand::REF), std::vector<Cycles>({9360, 18720, 28080}));
    EXPECT_EQ(cycles_of(ctl, DramCommand::RD), std::vector<Cycles>({28516}));
    EXPECT_EQ(ctl.stats().ref, 3);
}

TEST(Ddr4Controller, SourceStreamsRequestsThroughABoundedQueue) {
    // A streamed source and enqueue() give the same schedule; the queue depth bounds the
    // lookahead but not the result of a simple stream.
    ControllerOptions small;
    small.queue_depth = 2;
    Ddr4Controller a(kT, AddressMapping(kT), small);
    std::uint64_t next = 0;
    const Cycles streamed = a.run([&next](DramRequest& r) {
        if (next == 16)
            return false;
        r = DramRequest{next, RequestKind::read, next * 64, 0, false};
        ++next;
        return true;
    });
    Ddr4Controller b(kT);
    for (std::uint64_t i = 0; i < 16; ++i)
        b.enqueue(rd(i, i * 64));
    EXPECT_EQ(streamed, b.run());
    EXPECT_EQ(streamed, 16 + 15 * 6 + 20);  // 16 row hits tCCD_L apart
    EXPECT_EQ(a.completions().size(), 16u);
}

TEST(Ddr4Controller, RejectsRequestsOutOfArrivalOrder) {
    Ddr4Controller ctl(kT);
    int n = 0;
    EXPECT_THROW(ctl.run([&n](DramRequest& r) {
        if (n == 2)
            return false;
        r = DramRequest{static_cast<std::uint64_t>(n), RequestKind::read, 0, n == 0 ? 10 : 5,
                        false};
        ++n;
        return true;
    }),
                 std::invalid_argument);
}

}  // namespace
}  // namespace hetsim::interconnect
