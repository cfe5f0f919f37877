#include "silent_pim/register.hpp"

#include "silent_pim/silent_pim_device.hpp"

namespace hetsim::silent_pim {

void register_components(sim::ComponentRegistry& registry) {
    registry.add(
        {"silent_pim",
         "device",
         "Silent-PIM: DDR4 PIM driven by standard requests, bf16 8-way add/sub/mul/MAC "
         "(lee2022 §2.2); closed-form op durations from JEDEC timing",
         &build_silent_pim,
         // The DDR4 timing is JEDEC's (memspec) and stays; what `calibrate --fit` may
         // fit is the host-side cost of starting a PIM kernel and the host transpose.
         {{"offload_overhead", sim::Quantity::time, 1e-8, 1e-3, "host-side cost of one PIM kernel"},
          {"weight_transpose.per_element", sim::Quantity::time, 1e-11, 1e-5,
           "host transpose of a weight, per element"}}});
}

}  // namespace hetsim::silent_pim
