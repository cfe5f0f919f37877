// A compute die of mcm2022's multi-chip TPU package (papers/mcm2022-rl-chiplet-partitioning.txt
// §3, §5: 36 edge-TPU-class dies on a one-way ring): `type: chiplet`, role `chiplet`, one
// device per component named after the component (placements say `chip7`), its SRAM the
// component's `memory:` capacity.
//
// Cost model (no roofline: every operand is in on-chip SRAM, mcm2022 §3 "each chip has tens of
// MBs SRAM", so compute sets the time):
//     op_time = op_overhead + FLOPs / rate(category)
//     rate = matmul_rate (OP/s, 1 MAC = 2 OPs) for matmul, conv and recurrent ops (the systolic
//            array runs the gate GEMMs of an LSTM too); elementwise_rate for every other op.
// Views (Reshape, Flatten, ...) cost nothing: they alias their input, the compiler changes an
// address and emits no instruction, so they do not even pay the overhead. Data-movement ops
// (Transpose, Concat, ...) have no FLOPs and pay the overhead only: their SRAM-local copy is
// not modelled.
#pragma once

#include <string>

#include "sim/platform.hpp"

namespace hetsim::mcm_ring {

// The placement rule a platform with chiplets keeps (sim/placement_rules.hpp).
inline constexpr const char* kChipletRingRule = "mcm2022.chiplet_ring";

struct ChipletParams {
    double matmul_rate_ops = 0.0;       // OP/s of the MAC array (2 OPs per MAC)
    double elementwise_rate_ops = 0.0;  // OP/s of the vector unit, every non-MAC op
    double op_overhead_s = 0.0;         // per executed op (instruction issue, sync)
    // The dtype the die keeps float tensors in: weights and activations in its SRAM and on the
    // ring take its size (an Edge TPU runs int8-quantised models only, so mcm36 says int8).
    sim::DType dtype = sim::DType::f32;
};

class ChipletModel final : public sim::DeviceModel {
public:
    explicit ChipletModel(ChipletParams params);
    std::string type() const override { return "chiplet"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::chiplet; }
    // Every op: mcm2022 partitions the whole graph onto the chiplets (Eq. 1, f: V -> chips),
    // nothing falls back to the host, so a chip that refused an op would make the search
    // space of §3 smaller than the paper's.
    sim::Support supports(const sim::Graph& graph, const sim::Op& op) const override;
    double op_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    sim::DType compute_dtype() const override { return params_.dtype; }
    const ChipletParams& params() const { return params_; }

private:
    ChipletParams params_;
};

// The host that feeds the ring and drains it (issue 13: "the host feeds chip 0 and receives
// from the last used chip"): `type: ring_host`, role host_cpu, where graph inputs start and
// outputs end (the platform's `host:`). It runs no op (supports() says no, with the reason), so
// no placer puts work on it; its memory is unlimited.
class RingHostModel final : public sim::DeviceModel {
public:
    // `dtype`: what the host hands the ring and takes back (the package's dtype, so that no
    // conversion sits on the host links; a host that quantises would be a ConversionModel).
    explicit RingHostModel(sim::DType dtype = sim::DType::f32) : dtype_(dtype) {}
    std::string type() const override { return "ring_host"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::host_cpu; }
    sim::Support supports(const sim::Graph& graph, const sim::Op& op) const override;
    double op_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    sim::DType compute_dtype() const override { return dtype_; }

private:
    sim::DType dtype_;
};

// Factories behind `type: chiplet` and `type: ring_host` (mcm_ring/register.cpp).
//   chip0: {type: chiplet, matmul_rate: 4 TOPS, elementwise_rate: 0.25 TOPS,
//           op_overhead: 1 us, memory: 32 MiB, dtype: int8}     (dtype default float32)
//   host:  {type: ring_host, dtype: int8}                        (dtype default float32)
void build_chiplet(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);
void build_ring_host(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);

}  // namespace hetsim::mcm_ring
