// "replay:<file>": the placement of a `placement_<placer>.json` that hetsim wrote, its
// schedule included, evaluated again (sim/placement_file.hpp). A file that does not fit the
// study's graph or platform is an error naming the first op, device or resource that does not
// match; a path that is not a regular file (a directory, a FIFO), is larger than
// sim::kMaxInputFileBytes or cannot be read is an error naming it.
#pragma once

#include <string>

#include "placement/placer.hpp"
#include "placement/placer_args.hpp"

namespace hetsim::placement {

class ReplayPlacer final : public Placer {
public:
    explicit ReplayPlacer(const std::string& arguments);
    static PlacerInfo info();

    std::string name() const override { return "replay:" + file_; }
    PlacementResult place(const PlacementContext& context) override;

private:
    std::string file_;
};

}  // namespace hetsim::placement
