// Lowering: (Graph, Placement, Platform) -> ExecGraph, where every cross-device transfer
// and every dtype conversion is an explicit task with its duration already costed. Both
// evaluators run the same ExecGraph, so their differences are contention and queueing only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::sim {

// op id -> device index. Every op is placed.
struct Placement {
    std::vector<int> device_of_op;
    // Optional per-op note (e.g. "fallback: PIM cannot run Erf"), same length or empty.
    std::vector<std::string> notes;
};

enum class TaskKind : std::uint8_t { compute, convert, transfer };
std::string_view to_string(TaskKind kind);

struct Task {
    TaskKind kind = TaskKind::compute;
    std::string name;     // op name, or "<tensor> CPU->PIM"
    int op = -1;          // compute: graph op id
    int tensor = -1;      // convert/transfer: graph tensor id
    int device = -1;      // compute/convert: device index whose resource runs it
    int link = -1;        // transfer: index into Platform::links()
    bool forward = true;  // transfer direction on the link
    int resource = -1;    // ExecGraph resource slot it occupies (see ExecGraph::resources)
    int units = 1;        // resource units it occupies
    // Durations are costed once at lowering and rounded to the DES time resolution (1 ps),
    // so both evaluators work on the same integers and agree exactly without contention.
    std::int64_t duration_ps = 0;
    std::int64_t bytes = 0;  // transfer/convert: bytes moved or produced
    std::vector<int> successors;
    int predecessor_count = 0;
    int order = 0;  // dispatch priority within a sample: lower first (topological)
};

// A resource slot of the ExecGraph: a device resource or one direction of a link.
struct ExecResourceSlot {
    std::string process;  // trace process: resource or link name
    std::string thread;   // trace thread: "exec" or "a->b"
    int capacity = 1;
    bool is_link = false;
};

struct ExecGraph {
    std::vector<Task> tasks;  // in dispatch order (Task::order == index)
    std::vector<ExecResourceSlot> resources;
    DispatchMode dispatch = DispatchMode::dataflow;
    const Graph* graph = nullptr;        // for trace args (op type, shapes)
    const Platform* platform = nullptr;  // for trace args (device names)
    int compute_task_count() const;
};

// Resource slots of a platform, in the order lowering and the DES use: every ExecResource,
// then for every link its forward and backward direction.
std::vector<ExecResourceSlot> resource_slots(const Platform& platform);
int link_slot(const Platform& platform, int link_index, bool forward);

constexpr double kSecondsPerPs = 1e-12;
std::int64_t to_ps(double seconds);

// Thrown when a placement cannot be lowered (unsupported op on its device, no route
// between two components, a conversion nobody can do). The message names op and device.
class LoweringError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Builds the ExecGraph of one sample. Transfers follow the platform's routes; a float
// tensor crossing components whose devices compute in different dtypes gets a convert task
// on the link's converting component (before a transfer leaving it, after one arriving).
// Graph inputs start in the host component; graph outputs are brought back to it.
ExecGraph lower(const Graph& graph, const Placement& placement, const Platform& platform);

}  // namespace hetsim::sim
