// Command-level DDR4 controller for one x64 rank (JESD79-4), the reference the closed-form
// timing formulas are held against (docs/DESIGN.md "Transaction level, not cycle level, on the
// graph path"; spec/simulator.md "DDR4 channel").
//
// Model:
//  - Banks: bank groups x banks, each idle or active with one open row (open-page policy:
//    a row stays open until a request for another row of that bank, or a refresh, closes it).
//  - Commands ACT, RD, WR, PRE, PREA, REF, at most one per clock on the command bus. Every
//    JESD79-4 constraint is kept in memspec cycles (Ddr4Timing):
//      ACT->RD/WR tRCD, ACT->PRE tRAS, PRE->ACT tRP, ACT->ACT same bank tRC,
//      ACT->ACT other bank tRRD_L (same bank group) / tRRD_S (other bank group),
//      at most four ACTs in any tFAW window,
//      RD->RD and WR->WR tCCD_L (same bank group) / tCCD_S (other bank group),
//      RD->WR: the write's data may start 2 clocks after the read's data ends
//        (RL + BL/2 - WL + 2 tCK, AL = 0, 1 tCK preambles); data bursts never overlap,
//      WR->RD: WL + BL/2 + tWTR_L (same bank group) / tWTR_S (other bank group),
//      RD->PRE tRTP, WR->PRE WL + BL/2 + tWR (write recovery),
//      PREA->REF tRP, REF->ACT/REF tRFC; a REF is due every tREFI.
//    Read data occupies the data bus from RD + CL for BL/2 clocks, write data from WR + CWL.
//  - Scheduling: one request queue (queue_depth entries, filled in arrival order), FR-FCFS:
//    on each clock the first ready command wins, column commands (row hits) before row
//    commands (ACT/PRE), the oldest request first within each class. A PRE that would close
//    a row an older queued request still hits is not issued. Refresh has priority: once a
//    REF is due no other command issues; open banks are closed with PREA, then REF, and the
//    rank is blocked for tRFC (no postponement, no per-bank refresh).
//  - Ordered requests (`in_order`): their column commands issue in arrival order among
//    themselves (a PIM instruction stream must not be reordered); their ACT/PRE may still be
//    issued ahead of time to prepare banks (the controller's lookahead). An ordered request
//    may also ask for a minimum distance to the previous ordered column command
//    (DramRequest::ordered_gap): the pace of a device computing on the stream.
//
// A read completes when its last data beat has been transferred (RD + CL + BL/2), a write
// when its data has been transferred (WR + CWL + BL/2).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "interconnect/address_mapping.hpp"
#include "interconnect/ddr4_timing.hpp"

namespace hetsim::interconnect {

enum class DramCommand { ACT, RD, WR, PRE, PREA, REF };
std::string_view to_string(DramCommand c);

enum class RequestKind { read, write };

struct DramRequest {
    std::uint64_t id = 0;
    RequestKind kind = RequestKind::read;
    std::uint64_t address = 0;  // byte address; the burst holding it is accessed
    Cycles arrival = 0;         // first cycle the controller may act on it
    bool in_order = false;      // column command in arrival order among in_order requests
    // in_order only: the column command issues at least this many clocks after the previous
    // in_order request's column command. A device that computes on the stream more slowly
    // than the bus delivers it (a PIM whose logic clock is below the DRAM clock) holds the
    // stream back this way; 0 = only the JEDEC constraints.
    Cycles ordered_gap = 0;
};

inline constexpr std::uint64_t kNoRequest = std::numeric_limits<std::uint64_t>::max();

// One issued command. PREA and REF address every bank (bank_group = bank = -1). ACT and PRE
// carry the row opened or closed; RD and WR also the column (column = -1 otherwise).
struct CommandRecord {
    Cycles cycle = 0;
    DramCommand command = DramCommand::ACT;
    int bank_group = -1;
    int bank = -1;
    std::int64_t row = -1;
    std::int64_t column = -1;
    std::uint64_t request = kNoRequest;  // the request it was issued for

    friend bool operator==(const CommandRecord&, const CommandRecord&) = default;
};

struct Completion {
    std::uint64_t id = 0;
    Cycles cycle = 0;
};

struct ControllerOptions {
    int queue_depth = 32;
    bool refresh = true;
    // Cycle at which the first REF is due (then every tREFI); 0 means tREFI, i.e. the run
    // starts right after a refresh.
    Cycles first_refresh = 0;
    bool record_trace = true;
    bool record_completions = true;
};

struct ControllerStats {
    std::int64_t act = 0, rd = 0, wr = 0, pre = 0, prea = 0, ref = 0;
    std::int64_t row_hits = 0;       // column command without an ACT for this request
    std::int64_t row_misses = 0;     // the bank was idle: ACT first
    std::int64_t row_conflicts = 0;  // another row was open: PRE, ACT first
};

class Ddr4Controller {
public:
    // Pulls the next request (arrival cycles non-decreasing); false when there are no more.
    using RequestSource = std::function<bool(DramRequest&)>;

    Ddr4Controller(Ddr4Timing timing, AddressMapping mapping, ControllerOptions options = {});
    explicit Ddr4Controller(const Ddr4Timing& timing)
        : Ddr4Controller(timing, AddressMapping(timing)) {}

    // Adds a request for the next run(); requests are served in arrival order (ties in
    // enqueue order) as far as FR-FCFS keeps it.
    void enqueue(const DramRequest& request);
    void enqueue(std::uint64_t id, RequestKind kind, std::uint64_t address, Cycles arrival = 0);

    // Serves every enqueued request; returns the cycle at which the last one completed.
    // The controller keeps its state (open rows, clock, refresh phase) across runs.
    Cycles run();
    // Serves the requests `source` produces, pulled as the queue has room.
    Cycles run(const RequestSource& source);

    const std::vector<Completion>& completions() const { return completions_; }
    std::optional<Cycles> completion_of(std::uint64_t id) const;
    const std::vector<CommandRecord>& trace() const { return trace_; }
    const ControllerStats& stats() const { return stats_; }
    const Ddr4Timing& timing() const { return t_; }
    const AddressMapping& mapping() const { return map_; }
    // Cycle of the last command issued (-1 before any).
    Cycles last_command_cycle() const { return last_cmd_; }

private:
    struct Entry {
        DramRequest req;
        DramAddress addr;
        int bank = 0;  // flat bank index
        bool needed_act = false;
        bool needed_pre = false;
    };
    struct Bank {
        std::int64_t open_row = -1;
        Cycles act_ready = 0;  // tRP after PRE, tRC after ACT, tRFC after REF
        Cycles pre_ready = 0;  // tRAS after ACT, tRTP after RD, write recovery after WR
        Cycles col_ready = 0;  // tRCD after ACT
    };
    struct Group {
        Cycles act_ready = 0;  // tRRD_L
        Cycles rd_ready = 0;   // tCCD_L after RD/WR, tWTR_L after WR
        Cycles wr_ready = 0;   // tCCD_L after RD/WR
    };

    Cycles earliest_act(const Entry& e) const;
    Cycles earliest_col(const Entry& e) const;
    void issue(DramCommand c, Cycles at, const Entry* e);
    void refresh_now();
    void record(Cycles at, DramCommand c, int bg, int bank, std::int64_t row, std::int64_t col,
                std::uint64_t request);

    Ddr4Timing t_;
    AddressMapping map_;
    ControllerOptions opt_;

    std::vector<Bank> banks_;
    std::vector<Group> groups_;
    Cycles act_ready_ = 0;          // tRRD_S
    Cycles rd_ready_ = 0;           // tCCD_S after RD/WR, tWTR_S after WR
    Cycles wr_ready_ = 0;           // tCCD_S after RD/WR
    Cycles data_free_ = 0;          // first clock the data bus is free
    bool data_read_ = true;         // direction of the last burst on the data bus
    Cycles faw_[4] = {0, 0, 0, 0};  // the last four ACTs (ring)
    int faw_count_ = 0;
    int faw_next_ = 0;
    Cycles last_cmd_ = -1;
    Cycles last_ordered_col_ = 0;  // the last in_order RD/WR (its ordered_gap counts from it)
    bool ordered_col_seen_ = false;
    Cycles now_ = 0;
    Cycles next_refresh_ = 0;
    Cycles last_done_ = 0;

    std::deque<DramRequest> pending_;  // enqueued, not yet run
    std::vector<Entry> queue_;         // the request queue, oldest first
    std::vector<Completion> completions_;
    std::vector<CommandRecord> trace_;
    ControllerStats stats_;
};

}  // namespace hetsim::interconnect
