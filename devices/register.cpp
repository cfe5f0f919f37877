#include "devices/register.hpp"

#include "devices/cpu.hpp"
#include "devices/gpu.hpp"
#include "devices/table.hpp"

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
    registry.add({"table", "device",
                  "a processor whose op times are given per op (the costs_s attribute): "
                  "classic task-graph instances",
                  &build_table});
}

}  // namespace hetsim::devices
