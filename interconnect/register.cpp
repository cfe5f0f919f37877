#include "interconnect/register.hpp"

#include "interconnect/dma_link.hpp"

namespace hetsim::interconnect {

void register_components(sim::ComponentRegistry& registry) {
    registry.add({"dma",
                  "link",
                  "DMA between two components, per-direction bandwidth and latency, optional "
                  "fp32<->bf16 conversion on one endpoint (lee2022 §2.3)",
                  &build_dma_link,
                  {{"forward.bandwidth", sim::Quantity::bandwidth, 1e6, 1e12,
                    "streaming bandwidth, first endpoint to second"},
                   {"forward.latency", sim::Quantity::time, 1e-9, 1e-2, "per-transfer latency"},
                   {"backward.bandwidth", sim::Quantity::bandwidth, 1e6, 1e12,
                    "streaming bandwidth, second endpoint to first"},
                   {"backward.latency", sim::Quantity::time, 1e-9, 1e-2, "per-transfer latency"},
                   {"bandwidth", sim::Quantity::bandwidth, 1e6, 1e12, "both directions"},
                   {"latency", sim::Quantity::time, 1e-9, 1e-2, "both directions"}}});
    registry.add(
        {"pcie",
         "link",
         "PCIe link, full duplex: latency + bytes / bandwidth per direction",
         &build_pcie_link,
         {{"bandwidth", sim::Quantity::bandwidth, 1e6, 1e12, "streaming bandwidth per direction"},
          {"latency", sim::Quantity::time, 1e-9, 1e-2, "per-transfer latency"},
          {"host_staging_bandwidth", sim::Quantity::bandwidth, 1e6, 1e12,
           "pageable host buffers: the host-side copy into the driver's pinned buffer"},
          {"forward.host_staging_bandwidth", sim::Quantity::bandwidth, 1e6, 1e12,
           "the staging rate, first endpoint to second"},
          {"backward.host_staging_bandwidth", sim::Quantity::bandwidth, 1e6, 1e12,
           "the staging rate, second endpoint to first"}}});
}

}  // namespace hetsim::interconnect
