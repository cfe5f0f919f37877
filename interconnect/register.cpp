#include "interconnect/register.hpp"

#include "interconnect/dma_link.hpp"

namespace hetsim::interconnect {

void register_components(sim::ComponentRegistry& registry) {
    registry.add({"dma", "link",
                  "DMA between two components, per-direction bandwidth and latency, optional "
                  "fp32<->bf16 conversion on one endpoint (lee2022 §2.3)",
                  &build_dma_link});
    registry.add({"pcie", "link",
                  "PCIe link, full duplex: latency + bytes / bandwidth per direction",
                  &build_pcie_link});
}

}  // namespace hetsim::interconnect
