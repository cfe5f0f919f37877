// "random": each op on a device drawn uniformly among those that can run it — the Random
// schedule of duet §VI-C (Fig. 13) and the sample generator for evaluator-agreement studies
// (docs/DESIGN.md "Principles"). Deterministic: the same seed gives the same placement.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "placement/placer.hpp"
#include "sim/random.hpp"

namespace hetsim::placement {

class RandomPlacer final : public Placer {
public:
    // Takes no arguments (the seed is the study's, PlacementContext::seed).
    explicit RandomPlacer(const std::string& arguments);
    static PlacerInfo info();

    std::string name() const override { return "random"; }
    PlacementResult place(const PlacementContext& context) override;
};

// The portable draws (sim/random.hpp), under the names the placers have always used.
using sim::uniform_index;
using sim::uniform_unit;

}  // namespace hetsim::placement
