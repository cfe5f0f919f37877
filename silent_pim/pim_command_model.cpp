#include "silent_pim/pim_command_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hetsim::silent_pim {

namespace {

using interconnect::Cycles;
using interconnect::DramRequest;
using interconnect::RequestKind;

constexpr std::int64_t kElementBytes = 2;  // bf16

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

// The request stream of one descriptor, generated lazily a small batch at a time (one output
// burst's requests), so that a matmul of millions of requests never sits in memory.
//
// The lanes' pace: the request after a RD whose burst the lanes compute on (vecB) carries
// lane_gaps_after_compute() as its ordered_gap. At the DRAM clock both gaps are below what
// JEDEC already imposes, so the stream is the one of Silent-PIM as built.
class PimStream {
public:
    PimStream(const PimDescriptor& d, std::int64_t per_burst, LaneGaps gaps)
        : d_(d), e_(per_burst), bytes_(per_burst * kElementBytes), gaps_(gaps) {
        if (d_.p < 0 || d_.q < 0 || d_.r < 0)
            throw std::invalid_argument("PimCommandModel: negative descriptor dimension");
        switch (d_.op) {
            case PimOp::add:
            case PimOp::sub:
            case PimOp::mul:
                outer_ = d_.operand2 == Operand2::full || d_.operand2 == Operand2::scalar
                             ? ceil_div(d_.p * d_.r, e_)
                             : d_.p;
                break;
            case PimOp::matmul:
                // one step per (row i, column block jb, k block kb)
                outer_ = d_.p * ceil_div(d_.r, e_) * ceil_div(d_.q, e_);
                break;
            case PimOp::transpose:
                // one step per (band of 32 source rows, source column j)
                outer_ = ceil_div(d_.p, e_) * d_.q;
                break;
        }
        if (d_.q == 0 && d_.op != PimOp::add && d_.op != PimOp::sub && d_.op != PimOp::mul)
            outer_ = 0;
        if (d_.r == 0 && d_.op != PimOp::transpose)
            outer_ = 0;
    }

    bool next(DramRequest& out) {
        while (pos_ == batch_.size()) {
            if (step_ >= outer_)
                return false;
            batch_.clear();
            pos_ = 0;
            fill(step_++);
        }
        out = batch_[pos_++];
        out.id = id_++;
        return true;
    }

private:
    // A RD; `compute`: the lanes compute on its burst (it arrives in vecB).
    void rd(std::uint64_t a, bool compute = false) {
        batch_.push_back(make(RequestKind::read, a));
        after_compute_ = compute;
    }
    void wr(std::uint64_t a) {
        batch_.push_back(make(RequestKind::write, a));
        after_compute_ = false;
    }
    DramRequest make(RequestKind k, std::uint64_t a) const {
        DramRequest r;
        r.kind = k;
        r.address = a;
        r.arrival = 0;
        r.in_order = true;
        if (after_compute_)
            r.ordered_gap = k == RequestKind::read ? gaps_.read : gaps_.write;
        return r;
    }
    std::uint64_t el(std::int64_t elements) const {
        return static_cast<std::uint64_t>(elements * kElementBytes);
    }

    void fill(std::int64_t s) {
        switch (d_.op) {
            case PimOp::add:
            case PimOp::sub:
            case PimOp::mul:
                fill_elementwise(s);
                return;
            case PimOp::matmul:
                fill_matmul(s);
                return;
            case PimOp::transpose:
                fill_transpose(s);
                return;
        }
    }

    void fill_elementwise(std::int64_t s) {
        const std::int64_t r = d_.r;
        switch (d_.operand2) {
            case Operand2::full: {
                // Output burst s: RD A -> vecA, RD B -> vecB (lanes compute), WR C <- vACC.
                const std::uint64_t off = el(s * e_);
                rd(d_.src_a + off);
                rd(d_.src_b + off, true);
                wr(d_.dst_c + off);
                return;
            }
            case Operand2::row:
                // Row i of A against the row vector: its burst c re-read for every row.
                for (std::int64_t c = 0; c * e_ < r; ++c) {
                    const std::uint64_t off = el(s * r + c * e_);
                    rd(d_.src_a + off);
                    rd(d_.src_b + el(c * e_), true);
                    wr(d_.dst_c + off);
                }
                return;
            case Operand2::scalar: {
                // The scalar's burst once into vecA, then A through vecB and WR C.
                if (s == 0)
                    rd(d_.src_b);
                const std::uint64_t off = el(s * e_);
                rd(d_.src_a + off, true);
                wr(d_.dst_c + off);
                return;
            }
            case Operand2::column:
                // Row s: the burst holding scalar s into vecA, then the row's output bursts.
                rd(d_.src_b + el(s));
                for (std::int64_t c = 0; c * e_ < r; ++c) {
                    const std::uint64_t off = el(s * r + c * e_);
                    rd(d_.src_a + off, true);
                    wr(d_.dst_c + off);
                }
                return;
        }
    }

    void fill_matmul(std::int64_t s) {
        const std::int64_t q = d_.q, r = d_.r;
        const std::int64_t k_blocks = ceil_div(q, e_);
        const std::int64_t col_blocks = ceil_div(r, e_);
        const std::int64_t kb = s % k_blocks;
        const std::int64_t jb = (s / k_blocks) % col_blocks;
        const std::int64_t i = s / (k_blocks * col_blocks);
        // 32 inputs of A's row i into vecA.
        rd(d_.src_a + el(i * q + kb * e_));
        // One burst of B per input k: row k of column block jb, stored column-block-major
        // (block jb = q consecutive bursts), so the weight streams.
        const std::int64_t k_end = std::min(q, (kb + 1) * e_);
        for (std::int64_t k = kb * e_; k < k_end; ++k)
            rd(d_.src_b + static_cast<std::uint64_t>((jb * q + k) * bytes_), true);
        if (kb == k_blocks - 1)
            wr(d_.dst_c + el(i * r + jb * e_));  // vACC: 32 outputs of row i
    }

    void fill_transpose(std::int64_t s) {
        const std::int64_t rows = d_.p, cols = d_.q;
        const std::int64_t j = s % cols;
        const std::int64_t band = s / cols;
        const std::int64_t i0 = band * e_;
        const std::int64_t i_end = std::min(rows, i0 + e_);
        // One RD per element: the burst of source row i that holds column j.
        const std::int64_t j0 = j / e_ * e_;
        for (std::int64_t i = i0; i < i_end; ++i)
            rd(d_.src_a + el(i * cols + j0));
        wr(d_.dst_c + el(j * rows + i0));  // vecA: C[j][i0 .. i0+32)
    }

    PimDescriptor d_;
    std::int64_t e_;
    std::int64_t bytes_;
    LaneGaps gaps_;
    bool after_compute_ = false;  // the last request so far is a RD the lanes compute on
    std::int64_t outer_ = 0;
    std::int64_t step_ = 0;
    std::uint64_t id_ = 0;
    std::vector<DramRequest> batch_;
    std::size_t pos_ = 0;
};

PimStream stream_of(const PimDescriptor& d, const interconnect::Ddr4Timing& t,
                    const PimCommandOptions& o) {
    return PimStream(d, t.burst_bytes() / kElementBytes,
                     lane_gaps_after_compute(t, o.logic_clock_Hz));
}

}  // namespace

PimCommandModel::PimCommandModel(interconnect::Ddr4Timing timing, PimCommandOptions options)
    : timing_(std::move(timing)),
      options_(std::move(options)),
      mapping_(interconnect::AddressMapping::parse(timing_, options_.mapping)) {}

std::vector<DramRequest> PimCommandModel::requests(const PimDescriptor& d) const {
    PimStream stream = stream_of(d, timing_, options_);
    std::vector<DramRequest> out;
    DramRequest r;
    while (stream.next(r))
        out.push_back(r);
    return out;
}

std::pair<std::int64_t, std::int64_t> PimCommandModel::request_counts(
    const PimDescriptor& d) const {
    const std::int64_t e = timing_.burst_bytes() / kElementBytes;
    const std::int64_t p = d.p, q = d.q, r = d.r;
    switch (d.op) {
        case PimOp::add:
        case PimOp::sub:
        case PimOp::mul: {
            const std::int64_t flat = ceil_div(p * r, e);
            const std::int64_t per_row = p * ceil_div(r, e);
            switch (d.operand2) {
                case Operand2::full:
                    return {2 * flat, flat};
                case Operand2::row:
                    return {2 * per_row, per_row};
                case Operand2::scalar:
                    return {flat + (flat > 0 ? 1 : 0), flat};
                case Operand2::column:
                    return {per_row + (r > 0 ? p : 0), per_row};
            }
            break;
        }
        case PimOp::matmul:
            if (q == 0)
                return {0, 0};
            return {p * ceil_div(r, e) * (ceil_div(q, e) + q), p * ceil_div(r, e)};
        case PimOp::transpose:
            return {p * q, q * ceil_div(p, e)};
    }
    return {0, 0};
}

PimRun PimCommandModel::run(const PimDescriptor& d) const {
    interconnect::ControllerOptions co;
    co.queue_depth = options_.queue_depth;
    co.refresh = options_.refresh;
    co.first_refresh = options_.first_refresh;
    co.record_trace = options_.record_trace;
    co.record_completions = false;
    interconnect::Ddr4Controller controller(timing_, mapping_, co);
    PimStream stream = stream_of(d, timing_, options_);
    PimRun out;
    out.cycles = controller.run([&stream](DramRequest& r) { return stream.next(r); });
    out.seconds = timing_.seconds(static_cast<double>(out.cycles));
    out.stats = controller.stats();
    out.reads = out.stats.rd;
    out.writes = out.stats.wr;
    if (options_.record_trace)
        out.trace = controller.trace();
    return out;
}

double PimCommandModel::expected_cycles(const PimDescriptor& d) const {
    if (!options_.refresh)
        return static_cast<double>(run(d).cycles);
    PimCommandOptions o = options_;
    o.record_trace = false;
    const Cycles refi = timing_.tREFI;
    o.first_refresh = std::max<Cycles>(1, refi / 2);
    const Cycles once = PimCommandModel(timing_, o).run(d).cycles;
    if (once >= 64 * refi)
        return static_cast<double>(once);
    const Cycles phases = std::clamp<Cycles>(ceil_div(8 * refi, std::max<Cycles>(once, 1)), 8, 512);
    double sum = 0.0;
    for (Cycles m = 0; m < phases; ++m) {
        o.first_refresh = std::max<Cycles>(1, (2 * m + 1) * refi / (2 * phases));
        sum += static_cast<double>(PimCommandModel(timing_, o).run(d).cycles);
    }
    return sum / static_cast<double>(phases);
}

std::uint64_t PimCommandModel::bank_range_base(int bank) const {
    interconnect::DramAddress a;
    a.bank = bank;
    return mapping_.encode(a);
}

PimDescriptor PimCommandModel::descriptor(const PimKernel& k) const {
    PimDescriptor d;
    switch (k.kind) {
        case PimKernel::Kind::elementwise:
            d.op = PimOp::add;
            d.p = k.p;
            d.r = k.r;
            d.operand2 = k.operand2;
            break;
        case PimKernel::Kind::matmul:
            d.op = PimOp::matmul;
            d.p = k.p;
            d.q = k.q;
            d.r = k.r;
            break;
        case PimKernel::Kind::transpose:
            d.op = PimOp::transpose;
            d.p = k.p;
            d.q = k.q;
            break;
    }
    // A, B, C in the ranges of banks 0, 1, 2. B starts 1 burst and C 3 bursts into its range:
    // output burst k then reads A in bank group k, B in k + 1 and writes C in k - 1 (mod 4),
    // so no two consecutive commands of the stream share a bank group (RD A -> RD B at
    // tCCD_S, WR C -> the next RD A and RD B at tWTR_S).
    const auto burst = static_cast<std::uint64_t>(timing_.burst_bytes());
    d.src_a = bank_range_base(0);
    d.src_b = bank_range_base(1) + burst;
    d.dst_c = bank_range_base(2) + 3 * burst;
    return d;
}

}  // namespace hetsim::silent_pim
