// Silent-PIM (lee2022 §2.2, Kim et al. TPDS 2022): a DDR4 device whose bf16 8-way vector
// unit (add, sub, mul, MAC) is driven by standard RD/WR requests that keep JEDEC timing.
// Registers: vecA = 4 x 128 bit (one 64-byte burst = 32 bf16), vecB = 128 bit filled on
// every clock of a burst (8 bf16 per clock, consumed by the 8 lanes that clock), vACC
// accumulators. Work arrives as DMA descriptors {src A, src B, dst C, p, q, r}.
//
// This file holds the closed-form op-duration model used on the graph path. Each op is
// lowered to one or more PIM kernels (one descriptor each); a kernel's duration is the
// cycle count of its RD/WR command stream under DDR4 timing (interconnect/ddr4_timing.hpp),
// stretched by refresh, plus the per-descriptor offload overhead. The streams, operand
// placement and address mapping are those of the command-level model
// (silent_pim/pim_command_model.hpp), which tests hold these formulas to within 5 %.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interconnect/ddr4_timing.hpp"
#include "silent_pim/pim_descriptor.hpp"
#include "sim/platform.hpp"

namespace hetsim::silent_pim {

struct SilentPimParams {
    interconnect::Ddr4Timing timing;  // a memspec, e.g. interconnect::named_memspec("ddr4-2400")
    double offload_overhead_s = 0.0;  // DMA descriptor issue + completion, per PIM kernel
    // Who writes a transB = 1 Gemm weight transposed before the vector-matrix products:
    // 0 = the PIM itself (a gather kernel, transpose_cycles()); > 0 = the host CPU, one
    // element at a time through the uncacheable PIM-side memory, this many seconds each.
    double host_transpose_element_s = 0.0;
    std::int64_t memory_bytes = 0;  // 0 = unlimited
    // Clock of the PIM logic (the 8 lanes). 0 = the memspec clock: Silent-PIM computes on
    // each beat as the DRAM delivers it (lee2022 §2.2), and lee2022 §4.1 scaled its FPGA
    // prototype's performance to that. A slower logic clock paces the streams; a faster one
    // changes nothing, the stream being bound by the DRAM bus.
    double logic_clock_Hz = 0.0;
};

// Memspec clocks the 8 lanes are busy with one burst: BL/2 beats of 8 bf16, one beat per
// logic clock, rounded up to the memspec clock on which the next command can issue. At the
// memspec clock this is BL/2, the time the burst takes on the bus.
interconnect::Cycles lane_cycles_per_burst(const interconnect::Ddr4Timing& t,
                                           double logic_clock_Hz);

// What the lanes' busy time asks of the next request after a RD they compute on, in memspec
// clocks from that RD's command: a RD (its data overwrites vecA or the burst buffer) `lane`
// later; the WR of vACC until CL + lane - CWL (its data leaves after the last MAC). At the
// memspec clock both are below JEDEC's tCCD_S and RD -> WR.
struct LaneGaps {
    interconnect::Cycles read = 0;
    interconnect::Cycles write = 0;
};
LaneGaps lane_gaps_after_compute(const interconnect::Ddr4Timing& t, double logic_clock_Hz);

struct PimKernel {
    enum class Kind { elementwise, matmul, transpose };
    Kind kind = Kind::elementwise;
    // elementwise: rows x cols output, second operand `operand2`.
    // matmul:      (p,q) x (q,r), p repeated vector-matrix products.
    // transpose:   an (p,q) matrix written as (q,p).
    std::int64_t p = 0, q = 0, r = 0;
    Operand2 operand2 = Operand2::full;
};

// What the PIM does for one graph op: whether it can, and the kernels it issues.
struct PimPlan {
    sim::Support support;
    std::vector<PimKernel> kernels;
};

class SilentPimDevice final : public sim::DeviceModel {
public:
    explicit SilentPimDevice(SilentPimParams params);

    std::string type() const override { return "silent_pim"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::pim; }
    sim::Support supports(const sim::Graph& graph, const sim::Op& op) const override;
    // +infinity for an op supports() rejects.
    double op_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    sim::DType compute_dtype() const override { return sim::DType::bf16; }

    // The lowering of `op` to PIM kernels (lee2022 Table 2), or why it cannot run.
    PimPlan plan(const sim::Graph& graph, const sim::Op& op) const;

    // Command-stream cycle counts in memspec clocks, refresh excluded.
    double kernel_cycles(const PimKernel& kernel) const;
    double elementwise_cycles(std::int64_t rows, std::int64_t cols, Operand2 operand2) const;
    double matmul_cycles(std::int64_t p, std::int64_t q, std::int64_t r) const;
    double transpose_cycles(std::int64_t rows, std::int64_t cols) const;
    // One kernel: offload overhead + its cycles in seconds, stretched by refresh.
    double kernel_time_s(const PimKernel& kernel) const;

    const SilentPimParams& params() const { return params_; }
    // bf16 elements per 64-byte burst (32 for DDR4 x64 BL8).
    std::int64_t elements_per_burst() const;

private:
    SilentPimParams params_;
};

// Factory behind `type: silent_pim` (registered in silent_pim/register.cpp).
void build_silent_pim(const sim::ConfigNode& node, const std::string& name,
                      sim::Platform& platform);

}  // namespace hetsim::silent_pim
