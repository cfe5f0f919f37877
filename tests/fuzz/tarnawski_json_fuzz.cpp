// tarnawski2020's JSON instance (placement/tarnawski/workload), as `hetsim place F.json` reads
// it. place.cpp turns every WorkloadError into bad input (exit 2), so the harness accepts it too.
#include "placement/tarnawski/workload/workload.hpp"
#include "tests/fuzz/fuzz_target.hpp"

HETSIM_FUZZ_TARGET(tarnawski_json) {
    namespace tw = hetsim::placement::tarnawski;
    const auto path = hetsim::fuzz::write_input(data, size, ".json");
    hetsim::fuzz::expect_clean("tarnawski_json", [&] {
        try {
            (void)tw::read_workload(path);
        } catch (const tw::WorkloadError&) {
        }
    });
}
