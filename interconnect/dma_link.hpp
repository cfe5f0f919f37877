// A point-to-point link driven by a DMA engine per direction: `type: dma` (the Zynq PS<->PL
// DMA of lee2022 §2.3) and `type: pcie` (PCIe 3.0 between a host and an accelerator). Both
// are the same cost model: a transfer of b bytes alone on its direction takes
// latency + b / bandwidth (spec/simulator.md "PCIe link and DMA"); the DES shares the
// bandwidth between concurrent transfers of one direction.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "sim/platform.hpp"

namespace hetsim::interconnect {

struct LinkDirection {
    double bandwidth_Bps = 0.0;
    double latency_s = 0.0;  // per transfer: descriptor setup, doorbell, completion
    // pcie: > 0 when the host's buffers are pageable (a framework's default tensors): CUDA
    // copies such a buffer through a pinned staging buffer on the host at this rate, then
    // DMAs it, one after the other, so a transfer's bytes pay 1 / bandwidth +
    // 1 / host_staging_bandwidth. 0 = page-locked host buffers, the DMA rate alone.
    double host_staging_bandwidth_Bps = 0.0;
};

struct DmaLinkParams {
    std::string type = "dma";  // "dma" or "pcie": the YAML type that built it
    LinkDirection forward;     // endpoint_a -> endpoint_b
    LinkDirection backward;    // endpoint_b -> endpoint_a
    // Component that converts fp32<->bf16 for transfers over this link (lee2022 §2.3: the
    // CPU does it in both directions); empty = the link does not convert.
    std::string convert_on;
};

class DmaLinkModel final : public sim::LinkModel {
public:
    explicit DmaLinkModel(DmaLinkParams params);

    std::string type() const override { return params_.type; }
    double latency_s(bool forward) const override {
        return (forward ? params_.forward : params_.backward).latency_s;
    }
    double bandwidth_Bps(bool forward) const override {
        const LinkDirection& d = forward ? params_.forward : params_.backward;
        if (d.host_staging_bandwidth_Bps <= 0.0)
            return d.bandwidth_Bps;
        return 1.0 / (1.0 / d.bandwidth_Bps + 1.0 / d.host_staging_bandwidth_Bps);
    }
    double page_locked_bandwidth_Bps(bool forward) const override {
        return (forward ? params_.forward : params_.backward).bandwidth_Bps;
    }
    std::string converting_component() const override { return params_.convert_on; }

    const DmaLinkParams& params() const { return params_; }

private:
    DmaLinkParams params_;
};

// The shared keys of a link component (also read by mcm_ring's ring_link): `endpoints:`, two
// distinct component names (whether they exist is checked by sim::parse_platform), and
// `arbitration: shared | fifo` (default shared).
std::pair<std::string, std::string> parse_endpoints(const sim::ConfigNode& node);
sim::Arbitration parse_arbitration(const sim::ConfigNode& node);

// Factories behind `type: dma` and `type: pcie` (registered in interconnect/register.cpp).
//   dma:  { type: dma, endpoints: [cpu, pim], forward: {bandwidth: .., latency: ..},
//           backward: {bandwidth: .., latency: ..}, convert_on: cpu }
//   pcie: { type: pcie, endpoints: [host, gpu], bandwidth: 12 GB/s, latency: 5 us,
//           forward: {..optional override..}, backward: {..}, convert_on: host,
//           host_staging_bandwidth: 13 GB/s (optional: pageable host buffers; also a
//           forward/backward override) }
// Both also take `one_way: true` (only endpoints[0] -> endpoints[1] exists; a dma then
// needs no `backward`) and `arbitration: shared | fifo` (docs/DESIGN.md "Contention").
void build_dma_link(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);
void build_pcie_link(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);

}  // namespace hetsim::interconnect
