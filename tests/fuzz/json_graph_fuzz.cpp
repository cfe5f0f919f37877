// hetsim's JSON graph (sim/workloads/json_graph.hpp), read as a study's `workload: {json: F}`.
#include "sim/workloads/json_graph.hpp"
#include "tests/fuzz/fuzz_target.hpp"

HETSIM_FUZZ_TARGET(json_graph) {
    const auto path = hetsim::fuzz::write_input(data, size, ".json");
    hetsim::fuzz::expect_clean("json_graph",
                               [&] { (void)hetsim::sim::workloads::load_json_graph(path); });
}
