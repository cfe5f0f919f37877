// "exhaustive[:<max_placements>]": the exact optimum under the study's evaluator by
// enumerating every assignment of ops to capable devices. It is the reference the exact
// placers are tested against (spec/placement.md: lee2022.als equals it on small graphs) and
// duet §VI-C's upper bound; it refuses, before any evaluation, when the space is too large.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/placer.hpp"

namespace hetsim::placement {

// Size of the space of placements: the product over ops of their capable-device counts.
struct SearchSpace {
    std::vector<std::size_t> choices;  // per op id: number of capable devices
    std::uint64_t size = 1;            // exact product, valid when !overflow
    bool overflow = false;             // the product exceeds 2^64 - 1
    double log10_size = 0.0;
    // "2^3 · 3^40 ≈ 1.2e20" or "2^3 · 3^2 = 72"; "1" when no op has a choice.
    std::string describe() const;
};

SearchSpace search_space(const sim::Graph& graph, const sim::Platform& platform);

class ExhaustivePlacer final : public Placer {
public:
    static constexpr std::uint64_t kDefaultMaxPlacements = 100000;

    // `arguments`: empty (default limit) or a positive integer limit.
    explicit ExhaustivePlacer(const std::string& arguments);
    static PlacerInfo info();

    std::string name() const override;
    PlacementResult place(const PlacementContext& context) override;

    std::uint64_t max_placements() const { return max_placements_; }

private:
    std::uint64_t max_placements_ = kDefaultMaxPlacements;
    bool explicit_limit_ = false;
};

}  // namespace hetsim::placement
