#include "placement/classic/replay.hpp"

#include <memory>

#include "sim/placement_file.hpp"

namespace hetsim::placement {

namespace {

ArgumentSchema schema() {
    return ArgumentSchema("replay")
        .text("file", "", "a placement_<placer>.json written by hetsim")
        .bare()
        .rest()
        .required();
}

}  // namespace

ReplayPlacer::ReplayPlacer(const std::string& arguments)
    : file_(schema().parse(arguments).text("file")) {}

PlacerInfo ReplayPlacer::info() {
    const ArgumentSchema s = schema();
    return PlacerInfo{"replay", s.usage(),
                      "the placement (and schedule) of a placement file hetsim wrote, evaluated "
                      "again: same graph and platform, same numbers",
                      [](const std::string& a) { return std::make_unique<ReplayPlacer>(a); },
                      s.key_help()};
}

PlacementResult ReplayPlacer::place(const PlacementContext& context) {
    PlacementResult result;
    result.placement = sim::read_placement_file(file_, context.graph, context.platform);
    result.stats["file"] = file_;
    return result;
}

}  // namespace hetsim::placement
