#include "placement/classic/replay.hpp"

#include <fmt/format.h>

#include <ios>
#include <memory>
#include <stdexcept>

#include "sim/atomic_file.hpp"
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
    // Checked before the reader opens the file: a FIFO would block it forever, and a directory
    // or a file of gigabytes fails only after a long read.
    sim::check_input_file(file_, "a placement_<placer>.json written by hetsim");
    PlacementResult result;
    try {
        result.placement = sim::read_placement_file(file_, context.graph, context.platform);
    } catch (const std::ios_base::failure& e) {
        // A regular file whose read fails (/proc/self/mem): basic_filebuf::underflow throws
        // through the JSON parser.
        throw std::invalid_argument(
            fmt::format("{}: cannot read the file ({}), expected a placement_<placer>.json "
                        "written by hetsim",
                        file_, e.code().message()));
    }
    result.stats["file"] = file_;
    return result;
}

}  // namespace hetsim::placement
