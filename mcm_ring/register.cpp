#include "mcm_ring/register.hpp"

#include "mcm_ring/chiplet.hpp"
#include "mcm_ring/ring_link.hpp"

namespace hetsim::mcm_ring {

void register_components(sim::ComponentRegistry& registry) {
    registry.add({"chiplet", "device",
                  "compute die of a multi-chip package (mcm2022): overhead + FLOPs / rate, MAC "
                  "rate for matmul/conv/recurrent, element-wise rate otherwise, SRAM capacity",
                  &build_chiplet});
    registry.add({"ring_host", "device",
                  "host of a chiplet ring: holds graph inputs and outputs, runs no op",
                  &build_ring_host});
    registry.add({"ring_link", "link",
                  "one-way inter-chip ring link (mcm2022 §3): latency + bytes / bandwidth per hop",
                  &build_ring_link});
}

}  // namespace hetsim::mcm_ring
