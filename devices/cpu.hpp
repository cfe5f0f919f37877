// Multicore CPU: `type: cpu`. One ExecResource with `cores` units; each entry of `devices:`
// is a logical device in serial mode (one core, CPU_S) or parallel mode (all cores with a
// fork/join per op, CPU_P), as in lee2022 §4.1. The op cost is a roofline
// (spec/simulator.md "CPU"):
//     op_time = op_overhead [+ fork_join_overhead + cores x fork_join_per_core]
//               + max(compute, memory) [+ steps x recurrent_step_overhead]
//     compute = FLOPs / (cores x flops_per_cycle x clock x class efficiency [x GEMM M curve])
//               [x granularity]
// in which bytes that fit in cache after their first touch are not re-read from DRAM, and
// small ops are latency-bound (the fixed overheads dominate).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/op_table.hpp"
#include "sim/platform.hpp"

namespace hetsim::devices {

enum class CpuMode { serial, parallel };

struct CpuParams {
    int cores = 1;
    double clock_hz = 0.0;
    double flops_per_cycle = 0.0;     // per core, sustained by the BLAS kernels (not the peak)
    std::int64_t l1d_bytes = 0;       // per core
    std::int64_t l2_bytes = 0;        // last-level unless l3_bytes > 0
    std::int64_t l3_bytes = 0;        // 0 = none
    double dram_bandwidth_Bps = 0.0;  // one core streaming (STREAM-like)
    double dram_bandwidth_all_cores_Bps = 0.0;  // all cores streaming together
    double op_overhead_s = 0.0;                 // framework dispatch per op (both modes)
    double fork_join_overhead_s = 0.0;          // thread-pool fork/join per op (parallel)
    // Hockney half-performance length of GEMM in its M dimension: efficiency
    // M / (M + gemm_n_half); 0 = always at flops_per_cycle.
    double gemm_n_half = 0.0;
    std::int64_t memory_bytes = 0;  // 0 = unlimited
    // Fraction of flops_per_cycle each class of op reaches (issue 25: no single roofline fits
    // DUET Table II's conv, dense and LSTM rates at once). 1 = the sustained GEMM rate.
    double conv_efficiency = 1.0;
    double matmul_efficiency = 1.0;
    double elementwise_efficiency = 1.0;  // element-wise, reductions, normalisations
    double data_movement_efficiency = 1.0;
    double recurrent_efficiency = 1.0;
    double recurrent_step_overhead_s = 0.0;  // per step and direction of a fused RNN op
    // A TVM-like runtime runs every op on its thread pool, LSTM/GRU/RNN and data movement
    // included; ONNX Runtime (lee2022 §4.3) does not, so the parallel mode refuses those
    // unless this is set.
    bool parallel_every_op = false;
    double fork_join_per_core_s = 0.0;   // fork/join grows with the threads woken and joined
    double convert_bandwidth_Bps = 0.0;  // fp32<->bf16 conversion, bytes of fp32 per second
    double convert_overhead_s = 0.0;     // fixed cost per conversion call
    // Quantisation of the work (issue 27; xu2022 §3.2 sees CPU times rise in stairs): a
    // compiled loop nest vectorises its innermost axis in `simd_lanes`-wide vectors (a partial
    // vector costs a whole one) and, with `parallel_outer_loop`, the parallel mode gives each
    // core whole iterations of the outer loop (the output's rows), the slowest core setting
    // the time. 0 / false: work is perfectly divisible (ONNX Runtime's MLAS, the default).
    int simd_lanes = 0;
    bool parallel_outer_loop = false;

    std::int64_t last_level_cache_bytes() const { return l3_bytes > 0 ? l3_bytes : l2_bytes; }
};

// The terms of one op's cost, for tests and explanations.
struct CpuOpCost {
    double flops = 0.0;
    double efficiency = 1.0;  // fraction of flops_per_cycle reached (GEMM only)
    double dram_bytes = 0.0;  // bytes moved to/from DRAM
    double compute_s = 0.0;
    double memory_s = 0.0;
    double overhead_s = 0.0;
    double total_s = 0.0;
};

class CpuModel final : public sim::DeviceModel {
public:
    CpuModel(CpuParams params, CpuMode mode);

    std::string type() const override { return "cpu"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::host_cpu; }
    // Serial mode runs every op; parallel mode only the ops ONNX Runtime has thread-parallel
    // kernels for (see parallelizable()).
    sim::Support supports(const sim::Graph& graph, const sim::Op& op) const override;
    // +infinity for an op supports() rejects.
    double op_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    // Roofline split: the dispatch (and fork/join) overhead is fixed; the DRAM bytes stream
    // over max(compute, memory) time, so a memory-bound op wants the mode's full DRAM
    // bandwidth and a compute-bound one less (docs/DESIGN.md "Contention").
    Timing op_timing(const sim::Graph& graph, const sim::Op& op) const override;
    sim::DType compute_dtype() const override { return sim::DType::f32; }

    CpuOpCost cost(const sim::Graph& graph, const sim::Op& op) const;
    // DRAM traffic of one execution of `op` (bytes), see cpu.cpp for the per-class rules.
    double dram_bytes(const sim::Graph& graph, const sim::Op& op) const;
    // GEMM efficiency for M rows of the left operand: M / (M + gemm_n_half).
    double gemm_efficiency(double m) const;
    // >= 1: the compute time's rise from whole SIMD vectors and whole outer-loop iterations
    // per core (CpuParams::simd_lanes, parallel_outer_loop); 1 when both are off.
    double granularity(const sim::Graph& graph, const sim::Op& op, bool parallel) const;

    // Whether ONNX Runtime runs `op_type` with its intra-op thread pool (lee2022 §4.3 (2):
    // CPU_P takes the "thread-parallelizable operators").
    static bool parallelizable(std::string_view op_type);
    // The fraction of flops_per_cycle an op of `category` reaches.
    double class_efficiency(sim::OpCategory category) const;
    // Fixed cost of one op: dispatch, plus the fork/join of all cores in parallel mode.
    double overhead_s() const;

    const CpuParams& params() const { return params_; }
    CpuMode mode() const { return mode_; }

private:
    CpuParams params_;
    CpuMode mode_;
};

// fp32<->bf16 conversion done by this CPU for transfers to/from a bf16 device (lee2022 §2.3:
// "the CPU performed the conversion", similar time in both directions).
class CpuConversionModel final : public sim::ConversionModel {
public:
    CpuConversionModel(double bandwidth_Bps, double overhead_s);
    double conversion_time_s(std::int64_t elements, sim::DType from, sim::DType to) const override;

private:
    double bandwidth_Bps_;
    double overhead_s_;
};

// Factory behind `type: cpu` (registered in devices/register.cpp).
void build_cpu(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);

}  // namespace hetsim::devices
