#include "silent_pim/silent_pim_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sim/device_component.hpp"
#include "sim/op_table.hpp"
#include "sim/yaml_params.hpp"

namespace hetsim::silent_pim {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

sim::Shape strip_leading_ones(const sim::Shape& s) {
    std::size_t i = 0;
    while (i + 1 < s.size() && s[i] == 1)
        ++i;
    return sim::Shape(s.begin() + static_cast<std::ptrdiff_t>(i), s.end());
}

const char* kTable2 = "lee2022 Table 2 lists only Gemm, MatMul and element-wise add/sub/mul";

// Relation of `other` to an element-wise output of shape `out` (lee2022 Table 2 (1)-(7)),
// or nullopt when the PIM has no kernel for it.
std::optional<Operand2> classify_operand2(const sim::Shape& out, const sim::Shape& other) {
    const std::int64_t n_out = sim::element_count(out);
    const std::int64_t n_other = sim::element_count(other);
    if (n_other == n_out)
        return Operand2::full;
    if (n_other == 1)
        return Operand2::scalar;
    const sim::Shape s = strip_leading_ones(other);
    if (out.empty())
        return std::nullopt;
    if (s.size() == 1 && s[0] == out.back())
        return Operand2::row;
    if (s.size() == 2 && s[1] == 1 && out.size() >= 2 && s[0] == out[out.size() - 2]) {
        return Operand2::column;
    }
    return std::nullopt;
}

std::string dtype_problem(const sim::Graph& graph, const sim::Op& op) {
    for (int t : op.inputs) {
        const sim::Tensor& tensor = graph.tensor(t);
        if (!is_float(tensor.dtype)) {
            return fmt::format("Silent-PIM computes in bfloat16 only; {} '{}' reads {} tensor '{}'",
                               op.type, op.name, sim::to_string(tensor.dtype), tensor.name);
        }
    }
    return {};
}

}  // namespace

interconnect::Cycles lane_cycles_per_burst(const interconnect::Ddr4Timing& t,
                                           double logic_clock_Hz) {
    const int beats = t.burst_cycles();
    if (logic_clock_Hz <= 0.0)
        return beats;
    // beats logic clocks = beats x f_memspec / f_logic memspec clocks; the tolerance keeps an
    // exact ratio (e.g. 600 MHz against 1200 MHz) from rounding up.
    const double memspec_clocks = beats / (logic_clock_Hz * t.tCK_ps * 1e-12);
    return std::max<interconnect::Cycles>(
        1, static_cast<interconnect::Cycles>(std::ceil(memspec_clocks - 1e-9)));
}

LaneGaps lane_gaps_after_compute(const interconnect::Ddr4Timing& t, double logic_clock_Hz) {
    const interconnect::Cycles lane = lane_cycles_per_burst(t, logic_clock_Hz);
    return {lane, t.CL - t.CWL + lane};
}

SilentPimDevice::SilentPimDevice(SilentPimParams params) : params_(std::move(params)) {
    if (params_.timing.tCK_ps <= 0.0 || params_.offload_overhead_s < 0.0 ||
        params_.logic_clock_Hz < 0.0) {
        throw std::invalid_argument(
            "SilentPimDevice: needs a memspec, offload_overhead >= 0 and logic_clock >= 0");
    }
}

std::int64_t SilentPimDevice::elements_per_burst() const {
    return params_.timing.burst_bytes() / sim::dtype_size_bytes(sim::DType::bf16);
}

// --- closed-form command streams -----------------------------------------------------------
//
// Each kernel is the request stream of the command-level model (silent_pim/pim_command_model:
// the same RD/WR order, the same operand placement and address mapping), counted in closed
// form instead of being simulated. tests/silent_pim/pim_command_model_test.cpp holds these
// formulas within 5 % of that model over lee2022 Table 2's shapes.
//
// Placement and mapping (pim_command_model.hpp): A, B and C each own the address range of one
// bank index; consecutive 64-byte bursts of an operand rotate over the four bank groups; B and
// C start 1 and 3 bursts into their range. Hence, in JESD79-4 terms (DDR4-2400 values):
//   RD -> RD, other bank group      tCCD_S                       4
//   RD -> WR                        RL + BL/2 - WL + 2            10  (bus turnaround)
//   WR -> RD, other bank group      WL + BL/2 + tWTR_S            19
//   WR -> RD, same bank group       WL + BL/2 + tWTR_L            25
//   last WR -> its data done        WL + BL/2                     16
//   first ACT -> first RD           tRCD                          16
// and a stream's row changes are free: its next DRAM row is in the other banks' rows of the
// same bank index, which the controller precharges and activates while the current bursts
// stream (its queue looks ahead). Two exceptions, both counted below: the weight stream of a
// matmul meets its own banks again after one row group (tRTP + tRP + tRCD = 41 from the last
// RD of a bank to the first RD of its next row, where the stream would have come back to that
// bank 4 x tCCD_S = 16 later: 25 lost), and a transpose's gather reads one bank only (see
// transpose_cycles).
// Where two commands fall in bank groups unrelated to each other, the same group (1 in 4)
// costs the long spacing: that expectation is added. Refresh is left to kernel_time_s().
//
// A logic clock below the memspec clock (SilentPimParams::logic_clock_Hz) keeps the lanes
// busy `lane` clocks per computed burst (lane_cycles_per_burst), and the command-level model
// holds the stream back by as much (pim_command_model.hpp): a RD after a computed burst comes
// at least `lane` after it, a WR of vACC at least CL + lane - CWL. At the memspec clock
// (lane = BL/2) both are below tCCD_S and RD -> WR, and the formulas are Silent-PIM's.

namespace {

// Spacings of the PIM streams in memspec clocks.
struct Spacing {
    double ccd_s, ccd_l, rd_wr, wr_rd, wr_rd_same, wr_done, first_rd, rd_switch, groups;
    // After a RD the lanes compute on: to the next RD, and to the WR of vACC.
    double computed_rd, computed_rd_wr;
    // Expected extra of a RD -> RD / WR -> RD pair in unrelated bank groups.
    double rd_rd_same_group() const { return (ccd_l - ccd_s) / groups; }
    double wr_rd_same_group() const { return (wr_rd_same - wr_rd) / groups; }
    // The same after a computed burst, `computed_rd` apart already.
    double computed_rd_same_group() const { return std::max(0.0, ccd_l - computed_rd) / groups; }
};

Spacing spacing(const interconnect::Ddr4Timing& t, double logic_clock_Hz) {
    Spacing s;
    s.ccd_s = t.tCCD_S;
    s.ccd_l = t.tCCD_L;
    s.rd_wr = t.read_to_write_cycles();
    s.wr_rd = t.write_to_read_cycles();
    s.wr_rd_same = t.write_to_read_same_group_cycles();
    s.wr_done = t.write_data_done_cycles();
    s.first_rd = t.tRCD;
    s.rd_switch = t.read_row_switch_cycles();
    s.groups = t.bank_groups;
    const LaneGaps lane = lane_gaps_after_compute(t, logic_clock_Hz);
    s.computed_rd = std::max(s.ccd_s, static_cast<double>(lane.read));
    s.computed_rd_wr = std::max(s.rd_wr, static_cast<double>(lane.write));
    return s;
}

// Bytes of one row group: one DRAM row in each bank group of a bank index (4 x 8 KiB).
std::int64_t row_group_bytes(const interconnect::Ddr4Timing& t) {
    return t.row_bytes() * t.bank_groups;
}

}  // namespace

double SilentPimDevice::elementwise_cycles(std::int64_t rows, std::int64_t cols,
                                           Operand2 operand2) const {
    const Spacing s = spacing(params_.timing, params_.logic_clock_Hz);
    const std::int64_t e = elements_per_burst();
    if (rows <= 0 || cols <= 0)
        return 0.0;
    // Output bursts: A as one flat stream (full, scalar) or row by row (row, column: each row
    // starts a burst so that it lines up with the row vector / its row's scalar).
    const std::int64_t flat = ceil_div(rows * cols, e);
    const std::int64_t per_row = rows * ceil_div(cols, e);
    // The stream starts tRCD after the first ACT; per output burst the commands below; the last
    // burst's WR -> RD spacing is replaced by its write data time.
    const double start = s.first_rd;
    const double end = s.wr_done - s.wr_rd;
    switch (operand2) {
        case Operand2::full:
            // RD A -> vecA (tCCD_S) RD B -> vecB, lanes compute (turnaround) WR C <- vACC
            // (tWTR_S) next RD A: vecA and vACC hold one burst, so every output burst pays the
            // bus turnarounds. 4 + 10 + 19 = 33 clocks per 64 bytes of output.
            return start + static_cast<double>(flat) * (s.ccd_s + s.computed_rd_wr + s.wr_rd) + end;
        case Operand2::row:
            // The same three commands per output burst; the row vector's burst is re-read (vecB
            // fills only from a burst) from its DRAM row, which stays open in its own bank.
            return start + static_cast<double>(per_row) * (s.ccd_s + s.computed_rd_wr + s.wr_rd) +
                   end;
        case Operand2::scalar:
            // One RD loads the scalar into vecA for the whole kernel; then per output burst
            // RD A -> vecB and WR C: 10 + 19 = 29.
            return start + s.ccd_s + static_cast<double>(flat) * (s.computed_rd_wr + s.wr_rd) + end;
        case Operand2::column:
            // Per row one RD of the burst holding the row's scalar (p scalars packed 32 per
            // burst) into vecA, then the row's output bursts as for scalar. The scalar's burst
            // sits in a bank group unrelated to its neighbours (WR C before, RD A after).
            return start +
                   static_cast<double>(rows) *
                       (s.ccd_s + s.rd_rd_same_group() + s.wr_rd_same_group()) +
                   static_cast<double>(per_row) * (s.computed_rd_wr + s.wr_rd) + end;
    }
    return 0.0;
}

double SilentPimDevice::matmul_cycles(std::int64_t p, std::int64_t q, std::int64_t r) const {
    // lee2022 §2.2: A x B = C is p vector-matrix products, one per row of A, each streaming
    // the whole q x r weight (so the weight is read p times). For each 32-column block of C:
    //   for each 32-element block of the row of A: RD A -> vecA (32 inputs), then one RD of B
    //   per input k (row k of the weight's column block: 32 bf16 arriving 8 per clock; the
    //   8 lanes MAC vecA[k] x vecB into vACC, 32 MACs per burst);
    //   then WR C <- vACC (32 outputs).
    // The weight is stored column-block-major (each block's q bursts contiguous), so it
    // streams through its rows, its bursts rotating over the bank groups at tCCD_S.
    const interconnect::Ddr4Timing& t = params_.timing;
    const Spacing s = spacing(t, params_.logic_clock_Hz);
    const std::int64_t e = elements_per_burst();
    if (p <= 0 || q <= 0 || r <= 0)
        return 0.0;
    const std::int64_t col_blocks = ceil_div(r, e);
    const std::int64_t k_blocks = ceil_div(q, e);
    // q RD B + k_blocks RD A back to back: tCCD_S after each RD A, and after each RD B but
    // the last the lanes' pace (tCCD_S at the memspec clock); each RD A sits between two
    // weight bursts in an unrelated bank group (1 in 4: tCCD_L on either side); the last RD
    // turns the bus to the WR, the WR back to the next block's RD A (unrelated bank groups).
    const double block =
        static_cast<double>(q - 1) * s.computed_rd + static_cast<double>(k_blocks) * s.ccd_s +
        static_cast<double>(k_blocks) * (s.rd_rd_same_group() + s.computed_rd_same_group()) +
        s.computed_rd_wr + s.wr_rd + s.wr_rd_same_group();
    // The weight crosses a row group every 32 KiB: the bank of the first burst in the new rows
    // waits tRTP + tRP + tRCD after its last read instead of the 4 x tCCD_S (4 lane times
    // below the memspec clock) the stream takes to come back to it (the other three banks
    // change rows in its shadow).
    // A weight larger than one row group does so n times per product (the last crossing
    // wraps around to its start for the next row of A).
    const std::int64_t weight_groups =
        ceil_div(q * col_blocks * t.burst_bytes(), row_group_bytes(t));
    const double crossing = std::max(0.0, s.rd_switch - s.groups * s.computed_rd);
    const double crossings = weight_groups > 1 ? static_cast<double>(p * weight_groups - 1) : 0.0;
    return s.first_rd + static_cast<double>(p * col_blocks) * block + crossings * crossing +
           (s.wr_done - s.wr_rd - s.wr_rd_same_group());
}

double SilentPimDevice::transpose_cycles(std::int64_t rows, std::int64_t cols) const {
    // A (rows x cols) weight written as (cols x rows) so that Gemm's transB=1 weight can be
    // streamed by the vector-matrix product (lee2022 §4.3: "Gemm requires input weight
    // transpose, which is not a friendly operation for PIM"). The only burst-wide register
    // that can be written back is vecA, so each output burst gathers its 32 elements one per
    // RD (each from a different source row: a band of 32 rows, column j), then one WR. Bands
    // outermost, columns inside.
    const interconnect::Ddr4Timing& t = params_.timing;
    const Spacing s = spacing(t, params_.logic_clock_Hz);
    const std::int64_t e = elements_per_burst();
    if (rows <= 0 || cols <= 0)
        return 0.0;
    const std::int64_t outputs = cols * ceil_div(rows, e);
    const double n = static_cast<double>(std::min(rows, e));  // RDs per output burst
    const std::int64_t row_bytes = cols * sim::dtype_size_bytes(sim::DType::bf16);
    // Source rows a whole number of bank-group rotations apart (cols a multiple of 128) put a
    // column's 32 elements in one bank: tCCD_L between the gather's reads.
    const bool one_bank = row_bytes % (t.burst_bytes() * t.bank_groups) == 0;
    const double gap = one_bank ? s.ccd_l : s.ccd_s;
    // DRAM rows (row groups) the band spans in that bank: with more than one, every output
    // burst walks them all and returns to the first for the next column, and each change of
    // row in the bank costs tRTP + tRP + tRCD from the last read (tRAS permitting) instead of
    // tCCD_L. The WR's turnarounds hide under the change back to the first row.
    const std::int64_t groups =
        one_bank ? ceil_div(std::min(rows, e) * row_bytes, row_group_bytes(t)) : 1;
    const double turnaround = s.rd_wr + s.wr_rd + s.wr_rd_same_group();
    double per_output = 0.0;
    double last_gap = turnaround;
    if (groups <= 1) {
        // The band's rows stay open for all its columns (each opened once, ahead of use).
        per_output = (n - 1.0) * gap + turnaround;
    } else {
        const double g = static_cast<double>(groups);
        const double reads_per_visit = n / g;
        const double visit_switch =
            std::max(t.tRTP + (reads_per_visit - 1.0) * gap, static_cast<double>(t.tRAS - t.tRCD)) -
            (reads_per_visit - 1.0) * gap + t.tRP + t.tRCD;
        last_gap = std::max(turnaround, visit_switch);
        per_output = (n - g) * gap + (g - 1.0) * visit_switch + last_gap;
    }
    // The last output burst ends with its WR and the WR's data instead of the gap to a next.
    return s.first_rd + static_cast<double>(outputs) * per_output - last_gap + s.rd_wr + s.wr_done;
}

double SilentPimDevice::kernel_cycles(const PimKernel& k) const {
    switch (k.kind) {
        case PimKernel::Kind::elementwise:
            return elementwise_cycles(k.p, k.r, k.operand2);
        case PimKernel::Kind::matmul:
            return matmul_cycles(k.p, k.q, k.r);
        case PimKernel::Kind::transpose:
            return transpose_cycles(k.p, k.q);
    }
    return 0.0;
}

double SilentPimDevice::kernel_time_s(const PimKernel& kernel) const {
    const interconnect::Ddr4Timing& t = params_.timing;
    if (kernel.kind == PimKernel::Kind::transpose && params_.host_transpose_element_s > 0.0) {
        // The host transposes: every element is an uncached load and store over the PS-PL
        // port (lee2022 §2.3: PIM memory is uncacheable), no DMA descriptor and no PIM work.
        return static_cast<double>(kernel.p * kernel.q) * params_.host_transpose_element_s;
    }
    // One DMA descriptor per kernel (issue + completion), then the command stream in
    // memspec clocks, stretched by refresh (tRFC out of every tREFI).
    return params_.offload_overhead_s + t.seconds(kernel_cycles(kernel)) * t.refresh_factor();
}

// --- op support and lowering -----------------------------------------------------------------

PimPlan SilentPimDevice::plan(const sim::Graph& graph, const sim::Op& op) const {
    PimPlan plan;
    auto reject = [&](std::string why) {
        plan.support = sim::Support::no(std::move(why));
        plan.kernels.clear();
        return plan;
    };
    const std::string& type = op.type;

    if (type == "Add" || type == "Sub" || type == "Mul") {
        if (op.inputs.size() != 2 || op.outputs.size() != 1) {
            return reject(
                fmt::format("Silent-PIM {} needs exactly two inputs and one output", type));
        }
        if (auto problem = dtype_problem(graph, op); !problem.empty())
            return reject(problem);
        const sim::Shape& out = graph.tensor(op.outputs[0]).shape;
        const sim::Shape& a = graph.tensor(op.inputs[0]).shape;
        const sim::Shape& b = graph.tensor(op.inputs[1]).shape;
        const std::int64_t n_out = sim::element_count(out);
        // The streamed operand must have the output's shape; the other one is classified
        // against it (either order: the datapath computes vecA op vecB for both).
        const sim::Shape* other = nullptr;
        if (sim::element_count(a) == n_out) {
            other = &b;
        } else if (sim::element_count(b) == n_out) {
            other = &a;
        }
        std::optional<Operand2> kind;
        if (other != nullptr)
            kind = classify_operand2(out, *other);
        if (!kind) {
            return reject(fmt::format(
                "Silent-PIM element-wise {} needs the second operand to have the same shape, "
                "a row (r), a scalar (1) or a column (p,1) (lee2022 Table 2); got {} and {}",
                type, sim::to_string(a), sim::to_string(b)));
        }
        PimKernel k;
        k.kind = PimKernel::Kind::elementwise;
        k.r = out.empty() ? 1 : out.back();
        k.p = k.r == 0 ? 0 : n_out / k.r;
        k.operand2 = *kind;
        plan.kernels.push_back(k);
        plan.support = sim::Support::yes();
        return plan;
    }

    if (type == "MatMul") {
        if (op.inputs.size() != 2)
            return reject("Silent-PIM MatMul needs two inputs");
        if (auto problem = dtype_problem(graph, op); !problem.empty())
            return reject(problem);
        const sim::Shape& a = graph.tensor(op.inputs[0]).shape;
        const sim::Shape b = strip_leading_ones(graph.tensor(op.inputs[1]).shape);
        if (b.size() != 2 || a.empty()) {
            return reject(fmt::format(
                "Silent-PIM MatMul needs a 2-D right operand (p,q)x(q,r): it repeats one "
                "vector-matrix product per row of A over a single matrix (lee2022 §2.2, "
                "Table 2); got {} x {}",
                sim::to_string(a), sim::to_string(graph.tensor(op.inputs[1]).shape)));
        }
        PimKernel k;
        k.kind = PimKernel::Kind::matmul;
        k.q = a.back();
        // Leading dimensions of A are just more rows: one vector-matrix product per row.
        k.p = k.q == 0 ? 0 : sim::element_count(a) / k.q;
        k.r = b[1];
        plan.kernels.push_back(k);
        plan.support = sim::Support::yes();
        return plan;
    }

    if (type == "Gemm") {
        if (op.inputs.size() < 2)
            return reject("Silent-PIM Gemm needs at least two inputs");
        if (auto problem = dtype_problem(graph, op); !problem.empty())
            return reject(problem);
        if (op.attr_int("transA", 0) != 0) {
            return reject(
                "Silent-PIM Gemm needs an untransposed A (transA = 0): the rows of A "
                "feed the vector-matrix products (lee2022 §2.2)");
        }
        if (op.attr_float("alpha", 1.0) != 1.0 || op.attr_float("beta", 1.0) != 1.0) {
            return reject(
                "Silent-PIM Gemm supports alpha = beta = 1 only (lee2022 Table 2: "
                "(p,q) x (q,r) + (r))");
        }
        const sim::Shape& a = graph.tensor(op.inputs[0]).shape;
        const sim::Shape& w = graph.tensor(op.inputs[1]).shape;
        if (a.size() != 2 || w.size() != 2) {
            return reject("Silent-PIM Gemm needs 2-D operands (lee2022 Table 2)");
        }
        const bool trans_b = op.attr_int("transB", 0) != 0;
        const std::int64_t p = a[0];
        const std::int64_t q = a[1];
        const std::int64_t r = trans_b ? w[0] : w[1];
        if (trans_b) {
            // Table 2 Gemm (2): (p,q) x (r,q)^T + (r): supported but slow (§4.3).
            PimKernel t;
            t.kind = PimKernel::Kind::transpose;
            t.p = r;
            t.q = q;
            plan.kernels.push_back(t);
        }
        PimKernel mm;
        mm.kind = PimKernel::Kind::matmul;
        mm.p = p;
        mm.q = q;
        mm.r = r;
        plan.kernels.push_back(mm);
        if (op.inputs.size() >= 3) {
            // lee2022 §4.2: "the execution time of Gemm is a sum of execution time in a
            // matrix-matrix multiplication and an element-wise addition".
            const sim::Shape& c = graph.tensor(op.inputs[2]).shape;
            auto kind = classify_operand2(sim::Shape{p, r}, c);
            if (!kind) {
                return reject(
                    fmt::format("Silent-PIM Gemm bias must be (r), (1), (p,1) or "
                                "(p,r) (lee2022 Table 2); got {}",
                                sim::to_string(c)));
            }
            PimKernel add;
            add.kind = PimKernel::Kind::elementwise;
            add.p = p;
            add.r = r;
            add.operand2 = *kind;
            plan.kernels.push_back(add);
        }
        plan.support = sim::Support::yes();
        return plan;
    }

    switch (sim::op_category(type)) {
        case sim::OpCategory::elementwise:
            return reject(fmt::format(
                "Silent-PIM has no {} unit (lee2022 §2.2: no complex functions such as exp or "
                "tanh; the bf16 datapath only adds, subtracts, multiplies and MACs)",
                type));
        case sim::OpCategory::reduction:
        case sim::OpCategory::normalization:
            return reject(fmt::format(
                "Silent-PIM cannot run {}: its 8 lanes have no cross-lane reduction or complex "
                "function (lee2022 §2.2); {}",
                type, kTable2));
        case sim::OpCategory::view:
        case sim::OpCategory::data_movement:
            return reject(
                fmt::format("Silent-PIM does not run data movement ({}); {}", type, kTable2));
        default:
            return reject(fmt::format("Silent-PIM does not support {}; {}", type, kTable2));
    }
}

sim::Support SilentPimDevice::supports(const sim::Graph& graph, const sim::Op& op) const {
    return plan(graph, op).support;
}

double SilentPimDevice::op_time_s(const sim::Graph& graph, const sim::Op& op) const {
    const PimPlan p = plan(graph, op);
    if (!p.support.ok)
        return std::numeric_limits<double>::infinity();
    double total = 0.0;
    for (const auto& k : p.kernels)
        total += kernel_time_s(k);
    return total;
}

// --- YAML ------------------------------------------------------------------------------------

void build_silent_pim(const sim::ConfigNode& node, const std::string& name,
                      sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(sim::device_component_keys(
        {"device", "memspec", "offload_overhead", "memory", "weight_transpose", "logic_clock"}));
    SilentPimParams params;
    params.timing = interconnect::memspec_from_config(node.at("memspec"));
    // logic_clock: memspec (the default: the lanes run on the DRAM clock) or a frequency.
    if (node.has("logic_clock") &&
        !(node.at("logic_clock").is_scalar() && node.at("logic_clock").as_string() == "memspec")) {
        params.logic_clock_Hz =
            node.require_positive_quantity("logic_clock", sim::Quantity::frequency);
    }
    params.offload_overhead_s = sim::non_negative_time(node, "offload_overhead");
    if (node.has("weight_transpose")) {
        // weight_transpose: pim                               (gather kernel on the PIM)
        //                   {on: host, per_element: 120 ns}   (the CPU, uncached accesses)
        const sim::ConfigNode wt = node.at("weight_transpose");
        if (wt.is_scalar()) {
            if (wt.as_string() != "pim") {
                wt.fail(fmt::format("expected 'pim' or {{on: host, per_element: <time>}}, got '{}'",
                                    wt.as_string()));
            }
        } else {
            wt.expect_map();
            wt.expect_keys({"on", "per_element"});
            const std::string on = wt.at("on").as_string();
            if (on == "host") {
                params.host_transpose_element_s =
                    wt.require_positive_quantity("per_element", sim::Quantity::time);
            } else if (on != "pim") {
                wt["on"].fail(fmt::format("expected 'pim' or 'host', got '{}'", on));
            } else if (wt.has("per_element")) {
                wt["per_element"].fail("only a host transpose has a per-element time");
            }
        }
    }
    params.memory_bytes =
        sim::bytes_of(sim::optional_positive(node, "memory", sim::Quantity::data_size, 0.0));
    const std::string device_name = node.at("device").as_string();
    if (device_name.empty())
        node["device"].fail("expected a device name, e.g. PIM");

    // No converter: PIM memory is uncacheable and the CPU converts (lee2022 §2.3).
    sim::DeviceComponentSpec spec;
    spec.memory_bytes = params.memory_bytes;
    spec.devices.push_back(
        sim::DeviceSpec{device_name, std::make_shared<SilentPimDevice>(std::move(params))});
    sim::add_device_component(node, name, std::move(spec), platform);
}

}  // namespace hetsim::silent_pim
