#include "devices/register.hpp"

#include "devices/cpu.hpp"

namespace hetsim::devices {

void register_components(sim::ComponentRegistry& registry) {
    registry.add({"cpu", "device",
                  "multicore CPU: serial and parallel devices, roofline with caches, GEMM "
                  "efficiency curve, fork/join overhead, fp32<->bf16 conversion",
                  &build_cpu});
}

}  // namespace hetsim::devices
