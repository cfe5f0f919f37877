#include "interconnect/ddr4_controller.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hetsim::interconnect {

std::string_view to_string(DramCommand c) {
    switch (c) {
        case DramCommand::ACT:
            return "ACT";
        case DramCommand::RD:
            return "RD";
        case DramCommand::WR:
            return "WR";
        case DramCommand::PRE:
            return "PRE";
        case DramCommand::PREA:
            return "PREA";
        case DramCommand::REF:
            return "REF";
    }
    return "?";
}

Ddr4Controller::Ddr4Controller(Ddr4Timing timing, AddressMapping mapping, ControllerOptions options)
    : t_(std::move(timing)), map_(std::move(mapping)), opt_(options) {
    if (opt_.queue_depth < 1)
        throw std::invalid_argument("Ddr4Controller: queue_depth must be >= 1");
    if (t_.tREFI <= t_.tRFC && opt_.refresh)
        throw std::invalid_argument("Ddr4Controller: tREFI must exceed tRFC");
    banks_.assign(static_cast<std::size_t>(t_.banks()), Bank{});
    groups_.assign(static_cast<std::size_t>(t_.bank_groups), Group{});
    next_refresh_ = opt_.first_refresh > 0 ? opt_.first_refresh : t_.tREFI;
    queue_.reserve(static_cast<std::size_t>(opt_.queue_depth));
}

void Ddr4Controller::enqueue(const DramRequest& request) {
    pending_.push_back(request);
}

void Ddr4Controller::enqueue(std::uint64_t id, RequestKind kind, std::uint64_t address,
                             Cycles arrival) {
    DramRequest r;
    r.id = id;
    r.kind = kind;
    r.address = address;
    r.arrival = arrival;
    enqueue(r);
}

std::optional<Cycles> Ddr4Controller::completion_of(std::uint64_t id) const {
    for (const Completion& c : completions_) {
        if (c.id == id)
            return c.cycle;
    }
    return std::nullopt;
}

Cycles Ddr4Controller::run() {
    std::stable_sort(
        pending_.begin(), pending_.end(),
        [](const DramRequest& a, const DramRequest& b) { return a.arrival < b.arrival; });
    std::deque<DramRequest> requests;
    requests.swap(pending_);
    return run([&requests](DramRequest& r) {
        if (requests.empty())
            return false;
        r = requests.front();
        requests.pop_front();
        return true;
    });
}

// --- timing of the next command for one queued request ---------------------------------------

Cycles Ddr4Controller::earliest_act(const Entry& e) const {
    const Bank& b = banks_[static_cast<std::size_t>(e.bank)];
    const Group& g = groups_[static_cast<std::size_t>(e.addr.bank_group)];
    Cycles c = std::max({b.act_ready, g.act_ready, act_ready_});
    // tFAW: the fifth ACT waits until the oldest of the last four is tFAW old.
    if (faw_count_ == 4)
        c = std::max(c, faw_[faw_next_] + t_.tFAW);
    return c;
}

Cycles Ddr4Controller::earliest_col(const Entry& e) const {
    const Bank& b = banks_[static_cast<std::size_t>(e.bank)];
    const Group& g = groups_[static_cast<std::size_t>(e.addr.bank_group)];
    // The device's pace (DramRequest::ordered_gap), on top of the JEDEC constraints.
    const Cycles paced =
        e.req.in_order && ordered_col_seen_ ? last_ordered_col_ + e.req.ordered_gap : Cycles{0};
    if (e.req.kind == RequestKind::read) {
        // Data from RD + CL must find the bus free (implied by tCCD / tWTR, kept explicit).
        return std::max({b.col_ready, g.rd_ready, rd_ready_, data_free_ - t_.CL, paced});
    }
    // A write after a read: its data may start 2 clocks after the read data ends, i.e.
    // RD -> WR >= RL + BL/2 - WL + 2 (JESD79-4, 1 tCK preambles).
    const Cycles bus = data_free_ + (data_read_ ? 2 : 0) - t_.CWL;
    return std::max({b.col_ready, g.wr_ready, wr_ready_, bus, paced});
}

// --- issuing ----------------------------------------------------------------------------------

void Ddr4Controller::record(Cycles at, DramCommand c, int bg, int bank, std::int64_t row,
                            std::int64_t col, std::uint64_t request) {
    if (opt_.record_trace)
        trace_.push_back(CommandRecord{at, c, bg, bank, row, col, request});
}

void Ddr4Controller::issue(DramCommand c, Cycles at, const Entry* e) {
    last_cmd_ = at;
    if ((c == DramCommand::RD || c == DramCommand::WR) && e->req.in_order) {
        last_ordered_col_ = at;
        ordered_col_seen_ = true;
    }
    switch (c) {
        case DramCommand::ACT: {
            Bank& b = banks_[static_cast<std::size_t>(e->bank)];
            Group& g = groups_[static_cast<std::size_t>(e->addr.bank_group)];
            b.open_row = e->addr.row;
            b.col_ready = at + t_.tRCD;
            b.pre_ready = std::max(b.pre_ready, at + t_.tRAS);
            b.act_ready = std::max(b.act_ready, at + t_.tRC);
            g.act_ready = std::max(g.act_ready, at + t_.tRRD_L);
            act_ready_ = std::max(act_ready_, at + t_.tRRD_S);
            faw_[faw_next_] = at;
            faw_next_ = (faw_next_ + 1) % 4;
            faw_count_ = std::min(faw_count_ + 1, 4);
            ++stats_.act;
            record(at, c, e->addr.bank_group, e->addr.bank, e->addr.row, -1, e->req.id);
            break;
        }
        case DramCommand::PRE: {
            Bank& b = banks_[static_cast<std::size_t>(e->bank)];
            record(at, c, e->addr.bank_group, e->addr.bank, b.open_row, -1, e->req.id);
            b.open_row = -1;
            b.act_ready = std::max(b.act_ready, at + t_.tRP);
            ++stats_.pre;
            break;
        }
        case DramCommand::RD: {
            Bank& b = banks_[static_cast<std::size_t>(e->bank)];
            Group& g = groups_[static_cast<std::size_t>(e->addr.bank_group)];
            b.pre_ready = std::max(b.pre_ready, at + t_.tRTP);
            g.rd_ready = std::max(g.rd_ready, at + t_.tCCD_L);
            g.wr_ready = std::max(g.wr_ready, at + t_.tCCD_L);
            rd_ready_ = std::max(rd_ready_, at + t_.tCCD_S);
            wr_ready_ = std::max(wr_ready_, at + t_.tCCD_S);
            data_free_ = at + t_.CL + t_.burst_cycles();
            data_read_ = true;
            ++stats_.rd;
            record(at, c, e->addr.bank_group, e->addr.bank, e->addr.row, e->addr.column, e->req.id);
            break;
        }
        case DramCommand::WR: {
            Bank& b = banks_[static_cast<std::size_t>(e->bank)];
            Group& g = groups_[static_cast<std::size_t>(e->addr.bank_group)];
            const Cycles data_end = at + t_.CWL + t_.burst_cycles();
            b.pre_ready = std::max(b.pre_ready, data_end + t_.tWR);
            g.wr_ready = std::max(g.wr_ready, at + t_.tCCD_L);
            g.rd_ready = std::max(g.rd_ready, data_end + t_.tWTR_L);
            rd_ready_ = std::max(rd_ready_, data_end + t_.tWTR_S);
            wr_ready_ = std::max(wr_ready_, at + t_.tCCD_S);
            data_free_ = data_end;
            data_read_ = false;
            ++stats_.wr;
            record(at, c, e->addr.bank_group, e->addr.bank, e->addr.row, e->addr.column, e->req.id);
            break;
        }
        case DramCommand::PREA: {
            for (Bank& b : banks_) {
                b.open_row = -1;
                b.act_ready = std::max(b.act_ready, at + t_.tRP);
            }
            ++stats_.prea;
            record(at, c, -1, -1, -1, -1, kNoRequest);
            break;
        }
        case DramCommand::REF: {
            for (Bank& b : banks_)
                b.act_ready = std::max(b.act_ready, at + t_.tRFC);
            ++stats_.ref;
            record(at, c, -1, -1, -1, -1, kNoRequest);
            break;
        }
    }
}

void Ddr4Controller::refresh_now() {
    // All banks must be precharged (tRP) before REF: close the open ones with one PREA once
    // each may be precharged (tRAS, tRTP, write recovery).
    Cycles at = std::max(now_, last_cmd_ + 1);
    bool any_open = false;
    Cycles prea = at;
    for (const Bank& b : banks_) {
        if (b.open_row >= 0) {
            any_open = true;
            prea = std::max(prea, b.pre_ready);
        }
    }
    if (any_open) {
        issue(DramCommand::PREA, prea, nullptr);
        at = prea + 1;
    }
    Cycles ref = at;
    for (const Bank& b : banks_)
        ref = std::max(ref, b.act_ready);
    issue(DramCommand::REF, ref, nullptr);
    now_ = ref;
    next_refresh_ += t_.tREFI;
}

// --- the scheduler ----------------------------------------------------------------------------

Cycles Ddr4Controller::run(const RequestSource& source) {
    DramRequest next;
    bool have_next = source(next);
    Cycles last_arrival = have_next ? next.arrival : 0;
    std::vector<char> hit_seen(banks_.size(), 0);
    const auto depth = static_cast<std::size_t>(opt_.queue_depth);

    for (;;) {
        // Admit arrived requests while the queue has room.
        while (have_next && queue_.size() < depth && next.arrival <= now_) {
            Entry e;
            e.req = next;
            e.addr = map_.decode(next.address);
            e.bank = map_.flat_bank(e.addr);
            queue_.push_back(e);
            have_next = source(next);
            if (have_next) {
                if (next.arrival < last_arrival) {
                    throw std::invalid_argument(fmt::format(
                        "Ddr4Controller: request {} arrives at {} before an earlier one ({})",
                        next.id, next.arrival, last_arrival));
                }
                last_arrival = next.arrival;
            }
        }
        const bool room = queue_.size() < depth;
        if (queue_.empty()) {
            if (!have_next)
                break;
            if (opt_.refresh && next_refresh_ <= next.arrival) {
                now_ = std::max(now_, next_refresh_);
                refresh_now();
            } else {
                now_ = std::max(now_, next.arrival);
            }
            continue;
        }

        // FR-FCFS: the first command ready wins; at equal cycles a column command (row hit)
        // beats a row command, and within a class the oldest request wins.
        const Cycles floor = std::max(now_, last_cmd_ + 1);
        Cycles best_at = std::numeric_limits<Cycles>::max();
        bool best_col = false;
        std::size_t best_i = 0;
        DramCommand best_cmd = DramCommand::ACT;
        std::fill(hit_seen.begin(), hit_seen.end(), 0);
        bool ordered_seen = false;
        for (std::size_t i = 0; i < queue_.size(); ++i) {
            const Entry& e = queue_[i];
            const Bank& b = banks_[static_cast<std::size_t>(e.bank)];
            if (b.open_row == e.addr.row) {
                if (!(e.req.in_order && ordered_seen)) {
                    const Cycles c = std::max(floor, earliest_col(e));
                    if (c < best_at || (c == best_at && !best_col)) {
                        best_at = c;
                        best_col = true;
                        best_i = i;
                        best_cmd =
                            e.req.kind == RequestKind::read ? DramCommand::RD : DramCommand::WR;
                    }
                }
                hit_seen[static_cast<std::size_t>(e.bank)] = 1;
            } else if (b.open_row < 0) {
                const Cycles c = std::max(floor, earliest_act(e));
                if (c < best_at) {
                    best_at = c;
                    best_col = false;
                    best_i = i;
                    best_cmd = DramCommand::ACT;
                }
            } else if (!hit_seen[static_cast<std::size_t>(e.bank)]) {
                // Row conflict: close the open row unless an older request still hits it.
                const Cycles c = std::max(floor, b.pre_ready);
                if (c < best_at) {
                    best_at = c;
                    best_col = false;
                    best_i = i;
                    best_cmd = DramCommand::PRE;
                }
            }
            if (e.req.in_order)
                ordered_seen = true;
        }

        // A request arriving by then is considered first (it may have a better command).
        if (have_next && room && next.arrival <= best_at &&
            !(opt_.refresh && next_refresh_ <= next.arrival)) {
            now_ = std::max(now_, next.arrival);
            continue;
        }
        if (opt_.refresh && next_refresh_ <= best_at) {
            now_ = std::max(now_, next_refresh_);
            refresh_now();
            continue;
        }

        Entry& e = queue_[best_i];
        issue(best_cmd, best_at, &e);
        now_ = best_at;
        if (best_cmd == DramCommand::ACT) {
            e.needed_act = true;
        } else if (best_cmd == DramCommand::PRE) {
            e.needed_pre = true;
        } else {
            const Cycles done =
                best_at + (best_cmd == DramCommand::RD ? t_.CL : t_.CWL) + t_.burst_cycles();
            if (e.needed_pre) {
                ++stats_.row_conflicts;
            } else if (e.needed_act) {
                ++stats_.row_misses;
            } else {
                ++stats_.row_hits;
            }
            if (opt_.record_completions)
                completions_.push_back(Completion{e.req.id, done});
            last_done_ = std::max(last_done_, done);
            queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(best_i));
        }
    }
    return last_done_;
}

}  // namespace hetsim::interconnect
