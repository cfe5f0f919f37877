// A classic task-graph instance in JSON (processors, tasks, costs and comm times) or a WfCommons
// workflow, as `hetsim place INSTANCE.json` reads it (tools/app/task_graph.hpp).
#include "tests/fuzz/fuzz_target.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/task_graph.hpp"

HETSIM_FUZZ_TARGET(task_graph_json) {
    hetsim::app::register_all();
    const auto path = hetsim::fuzz::write_input(data, size, ".json");
    hetsim::fuzz::expect_clean("task_graph_json", [&] {
        if (hetsim::app::is_task_graph_instance(path.string()))
            (void)hetsim::app::load_task_graph_instance(path.string());
    });
}
