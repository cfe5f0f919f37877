// The placement file, `placement_<placer>.json`: what `hetsim run` writes for every placer
// and the `replay:<file>` placer reads back (docs/DESIGN.md "Schedules"). One format, written
// and read here:
//   {"placer": "...", "point": "...", "workload": "...", "platform": "...",
//    "ops_per_device": {"CPU_P": 12, ...},
//    "ops": [{"op": "<name>", "type": "MatMul", "device": "<device>", "note": "..."}, ...],
//    "schedule": {                                  // only when the placer returns one
//      "order": {"<resource>": ["<op>", ...], ...}, // every execution resource
//      "planned": {"makespan_s": 1.2e-3,            // only when it plans times
//                  "ops": [{"op": "<name>", "start_s": 0.0, "finish_s": 1e-4}, ...]}}}
// Ops are listed in the graph's id order. Times are written with 17 significant digits, so a
// replayed plan has the same doubles.
#pragma once

#include <string>

#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::sim {

struct PlacementFileHeader {
    std::string placer;
    std::string point;
    std::string workload;
};

// The file's text (pretty-printed JSON, 2-space indent, a final newline).
std::string write_placement_file(const PlacementFileHeader& header, const Graph& graph,
                                 const Platform& platform, const Placement& placement);

// Reads a placement file written by hetsim for `graph` on `platform`: every op of the graph
// must be listed once, by name, on a device the platform has; a schedule must name the
// platform's resources and the graph's ops. Throws InputError naming the file and the first
// op, device or resource that does not match (lowering checks the schedule's consistency).
Placement read_placement_file(const std::string& file, const Graph& graph,
                              const Platform& platform);

}  // namespace hetsim::sim
