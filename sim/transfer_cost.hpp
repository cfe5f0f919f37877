// The one transfer cost: how hetsim moves a tensor from one memory to another, and what each
// step costs. Lowering builds its transfer and conversion tasks from these steps, so a placer
// that asks here gets exactly what the simulator charges when the move has the platform to
// itself (docs/DESIGN.md "How a platform is simulated").
//
// A move follows the platform's fewest-hop route, store and forward through relays. Each hop
// pays its link's latency, the destination memory's access latency and the bytes at the link's
// bandwidth. A float tensor that must change dtype is converted on the converting side of a
// link (lee2022 §2.3: the CPU, before a transfer leaves it or after one arrives), or in place
// when source and destination share a memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::sim {

struct TransferStep {
    TaskKind kind = TaskKind::transfer;  // transfer or convert
    // transfer: the component the hop leaves and the one it reaches; convert: both are the
    // component that converts.
    std::string from_component;
    std::string to_component;
    int link = -1;  // transfer: index into Platform::links()
    bool forward = true;
    int device = -1;  // convert: the device that runs it (its component's first device)
    DType from_dtype = DType::f32;
    DType to_dtype = DType::f32;  // equal to from_dtype for a transfer
    std::int64_t bytes = 0;       // moved (transfer) or produced (convert)
    // The model's time in seconds, unrounded: a transfer's latency + bytes / bandwidth + the
    // destination's access latency; a conversion's time.
    double seconds = 0.0;
    // What lowering charges, each piece rounded to 1 ps (Task's fields of the same names):
    // transfer: fixed = link latency, access = destination memory latency, flow = bytes at
    // flow_rate_Bps; convert: all of it in fixed_ps.
    std::int64_t fixed_ps = 0;
    std::int64_t access_ps = 0;
    std::int64_t flow_ps = 0;
    double flow_rate_Bps = 0.0;
    std::string name;  // the task name lowering gives it: "x cpu->pim", "x float32->bfloat16"

    std::int64_t duration_ps() const { return fixed_ps + access_ps + flow_ps; }
};

struct TransferCost {
    std::vector<TransferStep> steps;  // in order; empty when nothing moves

    // Sum of the steps' unrounded seconds, hop by hop in route order.
    double seconds() const;
    // Sum of the steps' durations: what lowering charges, serialised, without contention.
    std::int64_t duration_ps() const;
    // Bytes over each hop, in route order (conversions left out).
    std::vector<std::int64_t> bytes_per_hop() const;
};

// The steps that bring `elements` elements of a tensor held in `from_component` as
// `from_dtype` into `to_component` as `to_dtype`. `tensor_name` only names the tasks and the
// errors. Throws LoweringError when no route connects the components, when a conversion is
// needed where nothing converts, or for a duration outside the simulator's range.
TransferCost transfer_cost(const Platform& platform, const std::string& from_component,
                           DType from_dtype, const std::string& to_component, DType to_dtype,
                           std::int64_t elements, std::string_view tensor_name = "tensor");

// A tensor produced on device `from_device` and read by an op on `to_device`, each holding it
// in its own dtype (dtype_on): exactly the tasks lowering adds between the two ops.
TransferCost transfer_cost(const Platform& platform, int from_device, int to_device,
                           const Tensor& tensor);

// The dtype `device` keeps a tensor declared `declared` in: its compute dtype for floats (a
// bf16 PIM holds bf16 activations and weights), the declared one otherwise.
DType dtype_on(const Device& device, DType declared);

// The first device of `component` (it converts for the component and sets its dtype), -1
// when it has none.
int first_device(const Platform& platform, const std::string& component);

// The two linear sums of a route, for models that cost any number of bytes at once (mcm2022
// §5.1): Σ (link latency + destination access latency) and Σ 1 / bandwidth, hop by hop as
// transfer_cost adds them. Throws LoweringError when there is no route.
struct RouteCost {
    double latency_s = 0.0;
    double seconds_per_byte = 0.0;
    double time_s(std::int64_t bytes) const {
        return latency_s + static_cast<double>(bytes) * seconds_per_byte;
    }
};
// With `page_locked`, every hop at its page-locked rate (a copy from or to pinned host
// memory: LinkModel::page_locked_bandwidth_Bps).
RouteCost route_cost(const Platform& platform, const std::string& from_component,
                     const std::string& to_component, bool page_locked = false);

}  // namespace hetsim::sim
