#include "devices/register.hpp"

#include "devices/cpu.hpp"
#include "devices/gpu.hpp"

namespace hetsim::devices {

void register_components(sim::ComponentRegistry& registry) {
    registry.add({"cpu", "device",
                  "multicore CPU: serial and parallel devices, roofline with caches, GEMM "
                  "efficiency curve, fork/join overhead, fp32<->bf16 conversion",
                  &build_cpu});
    registry.add({"gpu", "device",
                  "GPU / PCIe accelerator: roofline behind kernel launches, minimum-occupancy "
                  "efficiency curve, one kernel per timestep for recurrent ops",
                  &build_gpu});
}

}  // namespace hetsim::devices
