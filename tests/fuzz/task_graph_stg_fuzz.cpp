// A Standard Task Graph Set (.stg) file on 4 identical processors (tools/app/task_graph.hpp).
#include "tests/fuzz/fuzz_target.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/task_graph.hpp"

HETSIM_FUZZ_TARGET(task_graph_stg) {
    hetsim::app::register_all();
    const auto path = hetsim::fuzz::write_input(data, size, ".stg");
    hetsim::fuzz::expect_clean("task_graph_stg", [&] {
        (void)hetsim::app::load_task_graph_instance(path.string(), /*processors=*/4);
    });
}
