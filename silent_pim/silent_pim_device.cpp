#include "silent_pim/silent_pim_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sim/op_semantics.hpp"

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

bool is_float(sim::DType t) {
    return t == sim::DType::f32 || t == sim::DType::bf16 || t == sim::DType::f16;
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

SilentPimDevice::SilentPimDevice(SilentPimParams params) : params_(std::move(params)) {
    if (params_.timing.tCK_ps <= 0.0 || params_.offload_overhead_s < 0.0) {
        throw std::invalid_argument("SilentPimDevice: needs a memspec and offload_overhead >= 0");
    }
}

std::int64_t SilentPimDevice::elements_per_burst() const {
    return params_.timing.burst_bytes() / sim::dtype_size_bytes(sim::DType::bf16);
}

std::int64_t SilentPimDevice::row_openings(std::int64_t bursts) const {
    // A stream of consecutive bursts opens one DRAM row per row_bytes (8 KiB for x64 with
    // 1024 columns): 128 bursts per ACT.
    if (bursts <= 0)
        return 0;
    return ceil_div(bursts * params_.timing.burst_bytes(), params_.timing.row_bytes());
}

// --- closed-form command streams -----------------------------------------------------------
//
// Cycle accounting: each command is charged the spacing to the command that follows it:
//   RD -> RD  tCCD_S  (operands A, B, C live in different bank groups, so consecutive
//                      bursts use the short CCD and the data bus runs back to back)
//   RD -> WR  RL + BL/2 - WL + 2      (bus turnaround, JESD79-4)
//   WR -> RD  WL + BL/2 + tWTR_S      (write-to-read, different bank group)
// The final WR is charged WL + BL/2 (its data on the bus) instead of WR -> RD.
// Row activations: every operand stream opens a new row each 8 KiB it crosses, charged
// tRP + tRCD per opening (the PIM command sequence does not pre-activate; bank-level
// overlap of activations is left to the command-level model). Turnarounds are paid per
// burst where the datapath forces them (one vecA, one output burst of vACC), row openings
// are amortised per DRAM row.

double SilentPimDevice::elementwise_cycles(std::int64_t rows, std::int64_t cols,
                                           Operand2 operand2) const {
    const interconnect::Ddr4Timing& t = params_.timing;
    const std::int64_t per_burst = elements_per_burst();
    const double ccd = t.tCCD_S;
    const double rd_wr = t.read_to_write_cycles();
    const double wr_rd = t.write_to_read_cycles();
    const double open = t.row_switch_cycles();
    const double finish = t.write_data_done_cycles() - wr_rd;
    // Output bursts (chunks). With a broadcast operand the rows of A are burst-aligned so
    // that each chunk of A lines up with its part of the row vector / its row's scalar.
    const std::int64_t bursts_per_row = ceil_div(std::max<std::int64_t>(cols, 1), per_burst);
    const std::int64_t chunks =
        operand2 == Operand2::full ? ceil_div(rows * cols, per_burst) : rows * bursts_per_row;
    const double a_and_c_openings = 2.0 * static_cast<double>(row_openings(chunks));
    double cycles = 0.0;
    switch (operand2) {
        case Operand2::full:
            // Per 64-B chunk: RD A -> vecA (32 bf16), RD B -> vecB at 16 B per clock, the 8
            // lanes compute vecA op vecB into vACC during the burst; WR C <- vACC. vecA and
            // vACC hold one burst each, so the write-back (and its turnarounds) is per chunk.
            cycles = static_cast<double>(chunks) * (ccd + rd_wr + wr_rd) +
                     (a_and_c_openings + static_cast<double>(row_openings(chunks))) * open;
            break;
        case Operand2::row: {
            // Same stream as `full`: B's part for this chunk must still be read (vecB is only
            // filled by a burst), but the row vector is small and re-read from the same open
            // row for every row of A; only when it spans several DRAM rows is it reopened
            // per row of A.
            const std::int64_t b_open = row_openings(bursts_per_row);
            const double b_openings = static_cast<double>(b_open <= 1 ? b_open : rows * b_open);
            cycles = static_cast<double>(chunks) * (ccd + rd_wr + wr_rd) +
                     (a_and_c_openings + b_openings) * open;
            break;
        }
        case Operand2::scalar:
            // The scalar is loaded (replicated) into vecA once and reused: per chunk only
            // RD A -> vecB (lanes compute against vecA) and WR C.
            cycles = ccd + static_cast<double>(chunks) * (rd_wr + wr_rd) +
                     (a_and_c_openings + 1.0) * open;
            break;
        case Operand2::column:
            // One RD per row of A loads that row's scalar into vecA (reused for the row's
            // chunks); the p scalars are packed 32 per burst in one short stream.
            cycles =
                static_cast<double>(rows) * ccd + static_cast<double>(chunks) * (rd_wr + wr_rd) +
                (a_and_c_openings + static_cast<double>(row_openings(ceil_div(rows, per_burst)))) *
                    open;
            break;
    }
    return cycles + finish;
}

double SilentPimDevice::matmul_cycles(std::int64_t p, std::int64_t q, std::int64_t r) const {
    // lee2022 §2.2: A x B = C is p vector-matrix products, one per row of A, each streaming
    // the whole q x r weight (so the weight is read p times). For each 32-column block of C:
    //   for each 32-element block of the row of A: RD A -> vecA (32 inputs), then one RD of
    //   B per input k (row k of the weight's column block: 32 bf16 arriving 8 per clock;
    //   the 8 lanes MAC vecA[k] x vecB into vACC, 32 MACs per burst);
    //   then WR C <- vACC (32 outputs).
    // The weight is stored column-block-major (each block's q bursts contiguous), so it
    // streams sequentially through DRAM rows.
    const interconnect::Ddr4Timing& t = params_.timing;
    const std::int64_t per_burst = elements_per_burst();
    const std::int64_t col_blocks = ceil_div(r, per_burst);
    const std::int64_t k_blocks = ceil_div(q, per_burst);
    const double ccd = t.tCCD_S;
    const double rd_wr = t.read_to_write_cycles();
    const double wr_rd = t.write_to_read_cycles();
    // q RD B + k_blocks RD A back to back, the last RD turns the bus to the WR, the WR back.
    const double block = static_cast<double>(q + k_blocks - 1) * ccd + rd_wr + wr_rd;
    const double openings = static_cast<double>(p * row_openings(q * col_blocks) +  // weight
                                                row_openings(p * k_blocks) +        // A
                                                row_openings(p * col_blocks));      // C
    return static_cast<double>(p * col_blocks) * block + openings * t.row_switch_cycles() +
           (t.write_data_done_cycles() - wr_rd);
}

double SilentPimDevice::transpose_cycles(std::int64_t rows, std::int64_t cols) const {
    // A (rows x cols) weight written as (cols x rows) so that Gemm's transB=1 weight can be
    // streamed by the vector-matrix product (lee2022 §4.3: "Gemm requires input weight
    // transpose, which is not a friendly operation for PIM"). The only burst-wide register
    // that can be written back is vecA, so each output burst gathers its 32 elements one per
    // RD (each from a different source row), then one WR: one RD per element.
    const interconnect::Ddr4Timing& t = params_.timing;
    const std::int64_t per_burst = elements_per_burst();
    const std::int64_t writes = cols * ceil_div(rows, per_burst);
    const std::int64_t reads = rows * cols;
    const double rd_wr = t.read_to_write_cycles();
    const double wr_rd = t.write_to_read_cycles();
    // Source pages are assumed to stay open across a 32-row band (consecutive pages in
    // different banks), so each is opened once; the destination streams.
    const double openings =
        static_cast<double>(row_openings(rows * ceil_div(cols, per_burst)) + row_openings(writes));
    return static_cast<double>(reads - writes) * t.tCCD_S +
           static_cast<double>(writes) * (rd_wr + wr_rd) + openings * t.row_switch_cycles() +
           (t.write_data_done_cycles() - wr_rd);
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

    switch (sim::classify(type)) {
        case sim::OpClass::elementwise:
            return reject(fmt::format(
                "Silent-PIM has no {} unit (lee2022 §2.2: no complex functions such as exp or "
                "tanh; the bf16 datapath only adds, subtracts, multiplies and MACs)",
                type));
        case sim::OpClass::reduction:
            return reject(fmt::format(
                "Silent-PIM cannot run {}: its 8 lanes have no cross-lane reduction or complex "
                "function (lee2022 §2.2); {}",
                type, kTable2));
        case sim::OpClass::data_movement:
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
    node.expect_keys({"type", "device", "memspec", "offload_overhead", "memory"});
    SilentPimParams params;
    const sim::ConfigNode memspec = node.at("memspec");
    const std::string bin = memspec.as_string();
    auto timing = interconnect::find_ddr4_timing(bin);
    if (!timing) {
        const std::string hint = sim::did_you_mean(bin, interconnect::ddr4_speed_bins());
        memspec.fail(fmt::format("unknown DDR4 speed bin '{}'{}; known: {}", bin,
                                 hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                 fmt::join(interconnect::ddr4_speed_bins(), ", ")));
    }
    params.timing = *timing;
    params.offload_overhead_s = node.get_quantity("offload_overhead", sim::Quantity::time, 0.0);
    if (params.offload_overhead_s < 0.0) {
        node["offload_overhead"].fail(
            fmt::format("must be >= 0, got '{}'", node["offload_overhead"].as_string()));
    }
    if (node.has("memory")) {
        params.memory_bytes = static_cast<std::int64_t>(
            std::llround(node.require_positive_quantity("memory", sim::Quantity::data_size)));
    }
    const std::string device_name = node.at("device").as_string();
    if (device_name.empty())
        node["device"].fail("expected a device name, e.g. PIM");

    sim::Component component;
    component.name = name;
    component.type = "silent_pim";
    component.memory_bytes = params.memory_bytes;
    // No converter: PIM memory is uncacheable and the CPU converts (lee2022 §2.3).
    platform.add_component(std::move(component));

    const int resource = platform.add_resource(sim::ExecResource{name, 1});
    sim::Device d;
    d.name = device_name;
    d.component = name;
    d.resource = resource;
    d.units = 1;
    d.model = std::make_shared<SilentPimDevice>(std::move(params));
    platform.add_device(std::move(d));
}

}  // namespace hetsim::silent_pim
