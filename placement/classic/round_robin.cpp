#include "placement/classic/round_robin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace hetsim::placement {

RoundRobinPlacer::RoundRobinPlacer(const std::string& arguments) {
    if (!arguments.empty()) {
        throw PlacementError(fmt::format(
            "placer 'round_robin' takes no arguments (got 'round_robin:{}')", arguments));
    }
}

PlacerInfo RoundRobinPlacer::info() {
    return PlacerInfo{
        "round_robin", "round_robin",
        "ops in topological order cycle through the devices in platform order, "
        "skipping devices that cannot run the op (duet §VI-C)",
        [](const std::string& arguments) { return std::make_unique<RoundRobinPlacer>(arguments); }};
}

PlacementResult RoundRobinPlacer::place(const PlacementContext& context) {
    const int device_count = context.platform.device_count();
    PlacementResult result;
    result.placement.device_of_op.assign(static_cast<std::size_t>(context.graph.op_count()), -1);
    int next = 0;  // the device whose turn it is
    for (int op_id : context.graph.topo_order()) {
        const std::vector<int> capable = capable_devices(context.graph, context.platform, op_id);
        // The first capable device at or after the one whose turn it is, wrapping around; the
        // turn then passes to the device after the one used, so an incapable device loses its
        // turn instead of shifting the whole cycle.
        int chosen = capable.front();
        for (int step = 0; step < device_count; ++step) {
            const int candidate = (next + step) % device_count;
            if (std::find(capable.begin(), capable.end(), candidate) != capable.end()) {
                chosen = candidate;
                break;
            }
        }
        result.placement.device_of_op[static_cast<std::size_t>(op_id)] = chosen;
        next = (chosen + 1) % device_count;
    }
    return result;
}

}  // namespace hetsim::placement
