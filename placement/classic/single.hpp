// "single:<device>": the whole graph on one device, the baseline every speedup in the
// papers is quoted against (lee2022 §4.3 "CPU serial", duet §VI single-device runs).
#pragma once

#include <string>

#include "placement/placer.hpp"

namespace hetsim::placement {

class SinglePlacer final : public Placer {
public:
    // `arguments` is the device name; empty -> PlacementError with the usage.
    explicit SinglePlacer(const std::string& arguments);
    static PlacerInfo info();

    std::string name() const override { return "single:" + device_; }
    PlacementResult place(const PlacementContext& context) override;

private:
    std::string device_;
};

}  // namespace hetsim::placement
