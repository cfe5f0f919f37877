// Max-min fair sharing of bandwidths between concurrent flows (progressive filling,
// Bertsekas & Gallager, "Data Networks", §6.5.2). The DES uses it for every shared
// resource: a link direction with `arbitration: shared` (processor sharing: n equal flows
// get bandwidth/n each) and a memory that declares a bandwidth (the streaming part of the
// ops of its devices and the DMA streams in and out of it). Pure C++, no SystemC.
#pragma once

#include <span>
#include <vector>

namespace hetsim::sim {

struct FluidFlow {
    double cap_Bps = 0.0;               // the rate the flow reaches alone (> 0)
    const std::vector<int>* resources;  // shared resources it crosses (indices)
};

// Rates (bytes/s) of `flows` over resources of `capacity_Bps`: every flow gets the same rate
// until it reaches its cap or one of its resources is full, and so on (max-min fairness).
// Deterministic; a flow that crosses no resource gets its cap.
std::vector<double> max_min_fair_rates(const std::vector<double>& capacity_Bps,
                                       const std::vector<FluidFlow>& flows);

// The rate max_min_fair_rates gives `flow` when it is the only flow: bitwise the same number,
// without the working vectors (the DES asks it at every flow phase that runs alone).
double alone_rate_Bps(const std::vector<double>& capacity_Bps, double cap_Bps,
                      std::span<const int> resources);
// The same rates, written to `rate`, with the working vectors kept in `scratch`: the DES
// re-shares at every change of its flows and reuses both (no allocation per change).
struct FluidScratch {
    std::vector<char> frozen;
    std::vector<double> left;
    std::vector<int> unfrozen_on;
};
void max_min_fair_rates(const std::vector<double>& capacity_Bps,
                        const std::vector<FluidFlow>& flows, std::vector<double>& rate,
                        FluidScratch& scratch);

}  // namespace hetsim::sim
