// One link of mcm2022's uni-directional inter-chip ring (§3, Fig. 2b: "only uni-directional
// links among adjacent chips"): `type: ring_link`, always one-way (endpoints[0] ->
// endpoints[1]). A transfer of b bytes alone on it takes latency + b / bandwidth; a transfer
// from chip a to chip b crosses every link in between, store and forward through each chip's
// SRAM (the platform's routes with the chips declared relays), so it takes
// (b - a) x (latency + bytes / bandwidth) without contention.
#pragma once

#include <string>

#include "sim/platform.hpp"

namespace hetsim::mcm_ring {

class RingLinkModel final : public sim::LinkModel {
public:
    RingLinkModel(double latency_s, double bandwidth_Bps);
    std::string type() const override { return "ring_link"; }
    // Only `forward` exists; the backward values are never used (routes do not cross a one-way
    // link backwards).
    double latency_s(bool) const override { return latency_s_; }
    double bandwidth_Bps(bool) const override { return bandwidth_Bps_; }
    // Perfetto: one process "ring" with a thread per link ("ring3 chip3->chip4"), next to a
    // process per chip, so the pipeline and its bottleneck chip are visible at a glance.
    std::string trace_process() const override { return "ring"; }

private:
    double latency_s_;
    double bandwidth_Bps_;
};

// Factory behind `type: ring_link`:
//   ring0: {type: ring_link, endpoints: [chip0, chip1], bandwidth: 25 GB/s, latency: 200 ns,
//           arbitration: shared | fifo}
// `backward:` or `one_way:` fail: a ring link has one direction; declare the other direction
// as its own ring_link if the hardware has it.
void build_ring_link(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);

}  // namespace hetsim::mcm_ring
