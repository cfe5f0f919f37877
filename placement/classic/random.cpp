#include "placement/classic/random.hpp"

#include <fmt/format.h>

#include <memory>

namespace hetsim::placement {

RandomPlacer::RandomPlacer(const std::string& arguments) {
    if (!arguments.empty()) {
        throw PlacementError(fmt::format(
            "placer 'random' takes no arguments (got 'random:{}'); its seed is the study's "
            "seed",
            arguments));
    }
}

PlacerInfo RandomPlacer::info() {
    return PlacerInfo{
        "random", "random",
        "each op uniformly among the devices that can run it, seeded by the study seed "
        "(duet §VI-C)",
        [](const std::string& arguments) { return std::make_unique<RandomPlacer>(arguments); }};
}

PlacementResult RandomPlacer::place(const PlacementContext& context) {
    std::mt19937_64 rng(context.seed);
    const int op_count = context.graph.op_count();
    PlacementResult result;
    result.placement.device_of_op.resize(static_cast<std::size_t>(op_count));
    // Op id order, one draw per op with more than one choice: the placement depends only on
    // the graph, the platform's capabilities and the seed.
    for (int op_id = 0; op_id < op_count; ++op_id) {
        const std::vector<int> capable = capable_devices(context.graph, context.platform, op_id);
        result.placement.device_of_op[static_cast<std::size_t>(op_id)] =
            capable[uniform_index(rng, capable.size())];
    }
    result.stats["seed"] = std::to_string(context.seed);
    return result;
}

}  // namespace hetsim::placement
