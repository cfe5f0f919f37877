// GPU / PCIe accelerator: `type: gpu`. One device per component (its own memory, reached over
// a link such as PCIe). The op cost (spec/simulator.md "GPU") is a roofline behind a kernel
// launch, with a minimum-occupancy efficiency curve:
//     op_time = kernels x launch_overhead + max(FLOPs / (peak x occupancy), bytes / bandwidth)
//     occupancy = threads / (threads + occupancy_half_threads),  threads = output elements
// so small batch / hidden sizes run far below peak. A recurrent op (LSTM, GRU, RNN) is one
// kernel per timestep, which is why its GPU time is dominated by launches (zhang2021 §II:
// DUET finds RNNs faster on the CPU).
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "sim/platform.hpp"

namespace hetsim::devices {

struct GpuParams {
    int sms = 1;
    double clock_hz = 0.0;
    double fp32_flops_per_cycle_per_sm = 0.0;  // FMA lanes x 2 (Volta: 64 x 2 = 128)
    double memory_bandwidth_Bps = 0.0;         // device memory (HBM2 / GDDR6)
    double launch_overhead_s = 0.0;            // per kernel, host side
    double occupancy_half_threads = 0.0;       // threads at which half the peak is reached
    std::int64_t memory_bytes = 0;             // 0 = unlimited
    std::set<std::string> unsupported_ops;     // op types the accelerator cannot run

    double peak_flops() const { return sms * clock_hz * fp32_flops_per_cycle_per_sm; }
};

struct GpuOpCost {
    double kernels = 1.0;
    double occupancy = 1.0;
    double compute_s = 0.0;
    double memory_s = 0.0;
    double total_s = 0.0;
};

class GpuModel final : public sim::DeviceModel {
public:
    explicit GpuModel(GpuParams params);
    std::string type() const override { return "gpu"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::gpu; }
    sim::Support supports(const sim::Graph& graph, const sim::Op& op) const override;
    double op_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    GpuOpCost cost(const sim::Graph& graph, const sim::Op& op) const;
    const GpuParams& params() const { return params_; }

private:
    GpuParams params_;
};

// Factory behind `type: gpu` (registered in devices/register.cpp).
void build_gpu(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);

}  // namespace hetsim::devices
