#include "placement/classic/single.hpp"

#include <fmt/format.h>

#include <memory>

namespace hetsim::placement {

SinglePlacer::SinglePlacer(const std::string& arguments) {
    const auto devices = split_device_list("single", arguments, "one device: single:<device>");
    device_ = devices.front();
    if (devices.size() != 1) {
        throw PlacementError(fmt::format(
            "placer 'single' needs exactly one device: single:<device> (got 'single:{}')",
            arguments));
    }
}

PlacerInfo SinglePlacer::info() {
    return PlacerInfo{
        "single", "single:<device>",
        "everything on one device; an op it cannot run falls back to the first device (in "
        "platform order) that can, with a note",
        [](const std::string& arguments) { return std::make_unique<SinglePlacer>(arguments); }};
}

PlacementResult SinglePlacer::place(const PlacementContext& context) {
    const int target = resolve_devices(context.platform, {device_}, name()).front();
    const sim::Device& device = context.platform.device(target);
    const int op_count = context.graph.op_count();

    PlacementResult result;
    sim::Placement& placement = result.placement;
    placement.device_of_op.assign(static_cast<std::size_t>(op_count), target);
    placement.notes.assign(static_cast<std::size_t>(op_count), std::string{});
    int fallbacks = 0;
    for (int op_id = 0; op_id < op_count; ++op_id) {
        const sim::Op& op = context.graph.op(op_id);
        const sim::Support support = device.model->supports(context.graph, op);
        if (support.ok)
            continue;
        // The spec's fallback (spec/placement.md "Baselines"): the first capable device in
        // platform order, as ONNX Runtime falls back to its CPU provider. capable_devices()
        // throws, naming the op, when no device at all can run it.
        const int fallback = capable_devices(context.graph, context.platform, op_id).front();
        const auto index = static_cast<std::size_t>(op_id);
        placement.device_of_op[index] = fallback;
        placement.notes[index] =
            fmt::format("fallback: {} cannot run {} ({}); placed on {}", device.name, op.type,
                        support.reason, context.platform.device(fallback).name);
        ++fallbacks;
    }
    if (fallbacks == 0)
        placement.notes.clear();
    result.stats["fallback_ops"] = std::to_string(fallbacks);
    return result;
}

}  // namespace hetsim::placement
