// "random": each op on a device drawn uniformly among those that can run it — the Random
// schedule of duet §VI-C (Fig. 13) and the sample generator for evaluator-agreement studies
// (docs/DESIGN.md "Principles"). Deterministic: the same seed gives the same placement.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "placement/placer.hpp"

namespace hetsim::placement {

class RandomPlacer final : public Placer {
public:
    // Takes no arguments (the seed is the study's, PlacementContext::seed).
    explicit RandomPlacer(const std::string& arguments);
    static PlacerInfo info();

    std::string name() const override { return "random"; }
    PlacementResult place(const PlacementContext& context) override;
};

// A uniform index in [0, n) drawn by rejection, so the sequence is the same on every
// standard library (std::uniform_int_distribution's algorithm is implementation-defined,
// which would break docs/DESIGN.md's byte-for-byte determinism across machines).
std::size_t uniform_index(std::mt19937_64& rng, std::size_t n);
// A uniform double in [0, 1) from the top 53 bits of one draw: the same value on every standard
// library (std::uniform_real_distribution is implementation-defined too).
double uniform_unit(std::mt19937_64& rng);

}  // namespace hetsim::placement
