// Lowering: (Graph, Placement, Platform) -> ExecGraph, where every cross-device transfer
// and every dtype conversion is an explicit task with its duration already costed. Both
// evaluators run the same ExecGraph, so their differences are contention and queueing only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::sim {

// A placer's plan beyond the mapping (docs/DESIGN.md "Schedules"): for each execution
// resource (Platform::resources()), the order in which its ops start, and optionally when each
// op was planned to start and finish. An op starts when its inputs are ready *and* the op
// before it in its resource's order has finished.
struct Schedule {
    // [resource index] -> op ids in start order. Empty: no schedule (the dispatcher's own
    // policy, lowest lowering order first). Otherwise one list per resource, and every op in
    // exactly the list of its device's resource.
    std::vector<std::vector<int>> order;
    // Per op id, the planned start and finish in seconds; empty when the placer plans none.
    std::vector<double> planned_start_s;
    std::vector<double> planned_finish_s;

    bool empty() const { return order.empty(); }
    bool has_plan() const { return !planned_finish_s.empty(); }
    double planned_makespan_s() const;  // the latest planned finish; 0 without a plan
};

// One graph pass as a placement records it (sim/passes/passes.hpp): its name and arguments.
struct RewriteStep {
    std::string pass;                         // "replicate_input"
    std::map<std::string, std::string> args;  // {"tensor": "x"}
};

// A placer's rewritten graph (docs/DESIGN.md "Graph rewrites"): ops split into parts, fused
// groups, replicated inputs. The placement then places `graph`'s ops, not the study's.
struct Rewrite {
    std::shared_ptr<const Graph> graph;  // null: no rewrite
    // Provenance: per op of `graph`, the ids of the original graph's ops it came from (one for
    // an op kept or a part of a split op, several for a fused group, none for an op the
    // rewrite added, such as a Split or Concat).
    std::vector<std::vector<int>> origin;
    std::vector<RewriteStep> steps;  // the passes, in order: what replays it
    bool empty() const { return graph == nullptr; }
};

// op id -> device index. Every op is placed.
struct Placement {
    std::vector<int> device_of_op;
    // Optional per-op note (e.g. "fallback: PIM cannot run Erf"), same length or empty.
    std::vector<std::string> notes;
    Schedule schedule = {};  // optional
    // Optional: the graph the placement is for, when the placer rewrote the study's. Op ids in
    // device_of_op, notes and schedule are then that graph's.
    Rewrite rewrite = {};
};

// The graph `placement` places: its rewrite's, else `original`.
inline const Graph& placed_graph(const Graph& original, const Placement& placement) {
    return placement.rewrite.graph ? *placement.rewrite.graph : original;
}

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
    // duration_ps = fixed_ps + access_ps + flow_ps is what the task takes alone: the
    // AnalyticEvaluator's number. The DES runs the pieces (docs/DESIGN.md "Contention"):
    // first fixed_ps (never shared: op overheads, a link's latency), plus for a transfer the
    // access latency its TLM-2.0 write into the destination memory annotates (access_ps
    // here), then flow_ps of streaming at flow_rate_Bps through the shared resources in
    // `shared`, slowed down when they are oversubscribed.
    std::int64_t duration_ps = 0;
    std::int64_t fixed_ps = 0;
    std::int64_t access_ps = 0;
    std::int64_t flow_ps = 0;
    double flow_rate_Bps = 0.0;
    std::vector<int> shared;  // indices into ExecGraph::shared_resources
    // Memory: the buffer this task fills (-1: none) and the buffers it reads; a buffer is
    // freed when its last reader finishes (docs/DESIGN.md "Memory capacity").
    int fills_buffer = -1;
    std::vector<int> reads_buffers;
    std::int64_t bytes = 0;  // transfer/convert: bytes moved or produced
    std::vector<int> successors;
    int predecessor_count = 0;
    int order = 0;  // dispatch priority within a sample: lower first (topological)
    // A compute task's planned start from the placement's Schedule (-1: none); the trace
    // marks a task that started later.
    std::int64_t planned_start_ps = -1;
};

// A resource slot of the ExecGraph: a device resource or one direction of a link.
struct ExecResourceSlot {
    std::string process;  // trace process: resource or link name
    std::string thread;   // trace thread: "exec" or "a->b"
    int capacity = 1;
    bool is_link = false;
    // A link direction without a queue (`shared` or `none` arbitration): the dispatcher
    // starts every ready transfer at once; a `shared` one divides its bandwidth among them.
    bool shared = false;
};

// A bandwidth shared by concurrent flows in the DES: a memory that declares a bandwidth,
// or a link direction with `arbitration: shared`.
struct SharedResource {
    std::string name;  // "mem:cpu", "link:pcie0:cpu->acc0"
    double capacity_Bps = 0.0;
};

// Bytes resident in one component's memory: a weight, a graph input, or one copy of a
// tensor (produced there, converted there, or transferred there).
struct Buffer {
    int component = -1;  // index into Platform::components()
    std::int64_t bytes = 0;
    int tensor = -1;
    int producer = -1;        // task that fills it; -1: present before the run
    int readers = 0;          // tasks that read it; freed after the last one finishes
    bool persistent = false;  // weights and graph outputs in the host: never freed in a run
};

struct ExecIndex;  // sim/exec_index.hpp

struct ExecGraph {
    std::vector<Task> tasks;  // in dispatch order (Task::order == index)
    std::vector<ExecResourceSlot> resources;
    std::vector<SharedResource> shared_resources;
    std::vector<Buffer> buffers;
    DispatchMode dispatch = DispatchMode::dataflow;
    const Graph* graph = nullptr;        // for trace args (op type, shapes)
    const Platform* platform = nullptr;  // for trace args (device names)
    // What the evaluators' runs read, packed (sim/exec_index.hpp). lower() builds it, so that
    // every evaluation of one lowered graph reuses it; an evaluator builds its own when it is
    // missing. Code that edits an ExecGraph after lowering must reset it.
    std::shared_ptr<const ExecIndex> index;
    int compute_task_count() const;
};

// Resource slots of a platform, in the order lowering and the DES use: every ExecResource,
// then for every link its forward and backward direction.
std::vector<ExecResourceSlot> resource_slots(const Platform& platform);
int link_slot(const Platform& platform, int link_index, bool forward);

constexpr double kSecondsPerPs = 1e-12;
// The DES's time is a 64-bit count of picoseconds; hetsim keeps every run below 2^62 ps
// (about 53 days of simulated time) so that sums of durations cannot overflow.
constexpr std::int64_t kMaxSimulatedPs = std::int64_t{1} << 62;
// Rounds to the nearest ps. `what` names the task in the error for a negative, NaN or
// out-of-range duration.
std::int64_t to_ps(double seconds, std::string_view what = "a cost model");

// Thrown when a placement cannot be lowered (unsupported op on its device, no route
// between two components, a conversion nobody can do). The message names op and device.
class LoweringError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A run that would pass one of the simulator's limits (simulated time range, memory for
// its bookkeeping), detected before it starts. Bad input, like a LoweringError.
class LimitError : public LoweringError {
public:
    using LoweringError::LoweringError;
};

// Throws LimitError when `samples` back-to-back samples of `tasks` tasks whose durations sum to
// `duration_sum_ps` could overflow the simulated time range or need more bookkeeping memory
// than hetsim allows.
void check_run_limits(std::size_t tasks, double duration_sum_ps, int samples);

// Checks `schedule` against the graph and platform: one order per resource, every op once in
// its device's resource's order, planned times (if any) one per op, finite, finish >= start,
// and the orders consistent with the graph's dependencies. Throws LoweringError naming the
// first op or resource that does not fit. Returns the op order lowering follows (a
// topological order of the graph plus the schedule's chains, earliest planned start first, or
// earliest in the graph's topological order) and each op's predecessor on its resource.
struct ScheduledOrder {
    std::vector<int> ops;                   // in lowering order
    std::vector<int> previous_on_resource;  // per op id: the op before it, -1 for a first
};
ScheduledOrder scheduled_op_order(const Graph& graph, const Placement& placement,
                                  const Platform& platform);

// Builds the ExecGraph of one sample of placed_graph(graph, placement): a placement with a
// rewrite is lowered on its rewritten graph. Transfers follow the platform's routes; a float
// tensor crossing components whose devices compute in different dtypes gets a convert task
// on the link's converting component (before a transfer leaving it, after one arriving).
// Graph inputs start in the host component; graph outputs are brought back to it.
ExecGraph lower(const Graph& graph, const Placement& placement, const Platform& platform);

}  // namespace hetsim::sim
