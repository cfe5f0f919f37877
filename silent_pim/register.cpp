#include "silent_pim/register.hpp"

#include "silent_pim/silent_pim_device.hpp"

namespace hetsim::silent_pim {

void register_components(sim::ComponentRegistry& registry) {
    registry.add({"silent_pim", "device",
                  "Silent-PIM: DDR4 PIM driven by standard requests, bf16 8-way add/sub/mul/MAC "
                  "(lee2022 §2.2); closed-form op durations from JEDEC timing",
                  &build_silent_pim});
}

}  // namespace hetsim::silent_pim
