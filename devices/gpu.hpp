// GPU / PCIe accelerator: `type: gpu`. One device per component (its own memory, reached over
// a link such as PCIe). The op cost is a kernel model kept physical (spec/simulator.md "GPU",
// issue 25): SMs, clock, FLOP per cycle, memory bandwidth, a launch cost and a kernel floor,
// with the efficiency a function of the shape through three mechanisms only:
//
//   GEMM and convolution (implicit GEMM): the output is cut into tiles of tm x tn, one thread
//   block each, optionally split along K into s slices (split-K). Blocks run in waves over the
//   SMs, so a wave that is one block over costs a whole block time (wave quantisation), and
//   edge tiles are computed whole (tile quantisation). One block costs, per K step,
//       2 tm tn / (FLOP/cycle x compute_efficiency)  +  (tm + tn) x bytes / tile_load_Bpc
//   cycles (the FMAs and the operand loads that feed them share the SM's issue slots, so a
//   small tile, with fewer FMAs per loaded operand, runs further below peak), plus a fixed
//   block_overhead_cycles (prologue, epilogue). As cuBLAS's heuristic does, the tile and split
//   with the least time are taken. The kernel cannot beat streaming its operands once from
//   device memory.
//
//   Memory-bound kernels stream their bytes at memory_bandwidth x bandwidth_efficiency
//   (achievable versus peak), or run at the FLOP rate if that is slower.
//
//   Every kernel pays kernel_latency on the GPU (the floor of an empty kernel: launch to
//   completion) and launch_overhead on the host that issues it.
//
// A fused recurrent op (LSTM, GRU, RNN) is one GEMM for its input projection over all steps,
// then per step one GEMM of the recurrent weights and the element-wise gates fused into it,
// each step costing recurrent_step_latency instead of a kernel launch (cuDNN's persistent
// recurrent kernels; zhang2021 §II: DUET finds small RNNs faster on the CPU).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/platform.hpp"

namespace hetsim::devices {

struct GpuTile {
    int m = 128;
    int n = 128;
};

struct GpuParams {
    int sms = 1;
    double clock_hz = 0.0;
    double fp32_flops_per_cycle_per_sm = 0.0;  // FMA lanes x 2 (Volta: 64 x 2 = 128)
    // Tensor-core rate for 16-bit operands; 0 = the fp32 rate.
    double bf16_flops_per_cycle_per_sm = 0.0;
    double memory_bandwidth_Bps = 0.0;  // device memory (HBM2 / GDDR6), peak
    double launch_overhead_s = 0.0;     // per kernel, host side
    // The free parameters (devices/register.cpp declares their bounds for `calibrate --fit`);
    // the defaults make a plain roofline.
    double compute_efficiency = 1.0;        // fraction of FLOP/cycle the GEMM inner loop reaches
    double bandwidth_efficiency = 1.0;      // achievable / peak memory bandwidth
    double tile_load_Bpc = 0.0;             // operand bytes per cycle per SM feeding FMAs; 0 = free
    double block_overhead_cycles = 0.0;     // per thread block
    double kernel_latency_s = 0.0;          // per kernel, device side
    double recurrent_step_latency_s = 0.0;  // per recurrent step inside a fused RNN kernel
    std::vector<GpuTile> gemm_tiles;        // candidate tiles; empty = default_gemm_tiles()
    std::vector<int> split_k = {1, 2, 4, 8, 16};  // candidate K splits
    std::int64_t memory_bytes = 0;                // 0 = unlimited
    std::set<std::string> unsupported_ops;        // op types the accelerator cannot run

    double peak_flops() const { return sms * clock_hz * fp32_flops_per_cycle_per_sm; }
    double flops_per_cycle_per_sm(sim::DType dtype) const;
    double achievable_bandwidth_Bps() const { return memory_bandwidth_Bps * bandwidth_efficiency; }
};

// CUTLASS's and cuBLAS's usual thread-block tiles.
const std::vector<GpuTile>& default_gemm_tiles();

// One GEMM kernel's choice and cost, for tests and explanations.
struct GemmKernelCost {
    GpuTile tile;
    int split_k = 1;
    double blocks = 0.0;
    double waves = 0.0;
    double compute_s = 0.0;  // the waves of blocks
    double memory_s = 0.0;   // the operands streamed once
    double total_s = 0.0;    // device side, without kernel_latency
};

struct GpuOpCost {
    double kernels = 1.0;
    double device_s = 0.0;  // on the GPU: every kernel's body and kernel_latency
    double host_s = 0.0;    // kernels x launch_overhead
    double total_s = 0.0;   // host_s + device_s
};

class GpuModel final : public sim::DeviceModel {
public:
    explicit GpuModel(GpuParams params);
    std::string type() const override { return "gpu"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::gpu; }
    sim::Support supports(const sim::Graph& graph, const sim::Op& op) const override;
    double op_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    double kernel_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    GpuOpCost cost(const sim::Graph& graph, const sim::Op& op) const;
    // Body of one GEMM kernel (batch products of m x k by k x n, operands of `dtype`) at the
    // best tile and split.
    GemmKernelCost gemm(double batch, double m, double n, double k, sim::DType dtype) const;
    const GpuParams& params() const { return params_; }

private:
    double streaming_s(double bytes, double flops) const;
    GpuParams params_;
};

// Factory behind `type: gpu` (registered in devices/register.cpp).
void build_gpu(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);

}  // namespace hetsim::devices
