#include "placement/classic/priority.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace hetsim::placement {

PriorityPlacer::PriorityPlacer(const std::string& arguments)
    : devices_(split_device_list("priority", arguments,
                                 "a comma-separated device list: "
                                 "priority:<d1>,<d2>,...")) {}

PlacerInfo PriorityPlacer::info() {
    return PlacerInfo{
        "priority", "priority:<d1>,<d2>,...",
        "ONNX Runtime's partitioner: each op to the first listed device that supports it "
        "(lee2022 §2.1)",
        [](const std::string& arguments) { return std::make_unique<PriorityPlacer>(arguments); }};
}

std::string PriorityPlacer::name() const {
    return fmt::format("priority:{}", fmt::join(devices_, ","));
}

PlacementResult PriorityPlacer::place(const PlacementContext& context) {
    const std::vector<int> order = resolve_devices(context.platform, devices_, name());
    const int op_count = context.graph.op_count();

    PlacementResult result;
    result.placement.device_of_op.assign(static_cast<std::size_t>(op_count), -1);
    std::vector<int> ops_per_device(order.size(), 0);
    for (int op_id = 0; op_id < op_count; ++op_id) {
        const sim::Op& op = context.graph.op(op_id);
        std::vector<std::string> reasons;
        int chosen = -1;
        for (std::size_t rank = 0; rank < order.size() && chosen < 0; ++rank) {
            const sim::Device& device = context.platform.device(order[rank]);
            const sim::Support support = device.model->supports(context.graph, op);
            if (support.ok) {
                chosen = order[rank];
                ++ops_per_device[rank];
            } else {
                reasons.push_back(fmt::format("{}: {}", device.name, support.reason));
            }
        }
        if (chosen < 0) {
            // ONNX Runtime would silently hand the op to its CPU provider; hetsim refuses, so
            // a study never reports a placement the user's list did not describe.
            std::vector<std::string> others;
            for (int d = 0; d < context.platform.device_count(); ++d) {
                if (std::find(order.begin(), order.end(), d) != order.end())
                    continue;
                const sim::Device& device = context.platform.device(d);
                if (device.model->supports(context.graph, op).ok)
                    others.push_back(device.name);
            }
            throw PlacementError(fmt::format(
                "placer '{}': no listed device supports op '{}' ({}): {}{}", name(), op.name,
                op.type, fmt::join(reasons, "; "),
                others.empty() ? std::string{"; no other device of the platform supports it"}
                               : fmt::format("; add a device that can run it to the list: {}",
                                             fmt::join(others, ", "))));
        }
        result.placement.device_of_op[static_cast<std::size_t>(op_id)] = chosen;
    }
    for (std::size_t rank = 0; rank < order.size(); ++rank) {
        result.stats["ops_on_" + devices_[rank]] = std::to_string(ops_per_device[rank]);
    }
    return result;
}

}  // namespace hetsim::placement
