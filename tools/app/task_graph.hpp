// Classic task-graph instances (issue 24 item 7, docs/DESIGN.md "Classic task-graph
// instances"): the scheduling literature's format, where costs are given rather than
// modelled.
//
//   {"processors": P,
//    "names": ["P1", "P2", ...],                       // optional processor names
//    "tasks": [{"id": 0, "cost": [w_0, ..., w_{P-1}]}, ...],
//    "edges": [{"from": 0, "to": 1, "comm": c}, ...]}
//
// Costs and comm are seconds; a `null` cost means the task cannot run on that processor. The
// Standard Task Graph Set's .stg text format is read too (identical processors, no
// communication; `--processors N`), and WfCommons' WfFormat JSON (task runtimes and file
// sizes on `--processors N` identical processors linked at `--bandwidth`).
// The instance is simulated as P `table` processors (devices/table.hpp), each its own
// execution resource, fully connected by contention-free links (`arbitration: none`): an edge
// costs `comm` between two processors and 0 on one. Each edge is a tensor of comm x 1e9 bytes
// over 1 GB/s links (1 ns resolution); a task without successors writes an empty output.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "tools/app/place.hpp"

namespace hetsim::app {

struct TaskGraphInstance {
    sim::Graph graph;        // op k is task k of the file (its `id` in the op's name "t<id>")
    sim::Platform platform;  // device p is processor p
    std::vector<std::string> task_labels;  // by op id: each task's id as the file wrote it
    bool numeric_ids = true;               // JSON and .stg ids are integers
};

// True for a .stg file, a .json file whose top level has both "processors" and "tasks", or a
// WfCommons instance (a top-level "workflow" with its tasks).
bool is_task_graph_instance(const std::string& file);

// Throws InputError (exit 2) naming the file and the task or edge for a bad instance: a
// missing or malformed key, a cost row of the wrong length, a negative or non-numeric cost or
// comm, an edge to an unknown task, a duplicate id or edge, a cycle.
// A .stg file (the Standard Task Graph Set, Kasahara lab) runs on `processors` identical
// processors without communication, a WfCommons workflow on `processors` identical processors
// whose links carry its files at `bandwidth_Bps` (default 1 GB/s; given for another format,
// bad input); `processors` must be 0 for a JSON instance,
// whose comm times are carried at 1 GB/s (1 ns a byte).
TaskGraphInstance load_task_graph_instance(const std::string& file, int processors = 0,
                                           std::optional<double> bandwidth_Bps = std::nullopt);

// The workload name `hetsim place` takes for a generated instance:
// `hetsim place random_taskgraph --processors Q --set tasks=N --set ccr=C ...` (knobs of
// sim/workloads/random_taskgraph.hpp: tasks, fat, density, regularity, jump, ccr, beta,
// mean_cost, seed; Q defaults to 4).
inline constexpr const char* kRandomTaskGraph = "random_taskgraph";
TaskGraphInstance random_task_graph_instance(const std::vector<std::string>& settings,
                                             int processors);

// `hetsim place INSTANCE.json --placer NAME [--out FILE]`: runs the placer on the instance,
// simulates its placement (schedule included) with the DES, prints the makespan and writes
// {"makespan": M, "schedule": [{"task", "processor", "start", "finish"}, ...]} to --out.
std::string place_task_graph(const PlaceRequest& request);

}  // namespace hetsim::app
