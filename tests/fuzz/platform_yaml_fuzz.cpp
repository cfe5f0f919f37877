// A platform YAML (usage.md "Platforms"): devices, memories, links and routes, with every
// component's parameters checked by its registered type.
#include "sim/platform.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tools/app/registration.hpp"

HETSIM_FUZZ_TARGET(platform_yaml) {
    hetsim::app::register_all();
    const auto path = hetsim::fuzz::write_input(data, size, ".yaml");
    hetsim::fuzz::expect_clean("platform_yaml",
                               [&] { (void)hetsim::sim::load_platform(path.string()); });
}
