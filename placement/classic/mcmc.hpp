// "mcmc": FlexFlow's search (Jia, Zaharia, Aiken, "Beyond data and model parallelism for deep
// neural networks", SysML 2019, §5): a Markov chain over placements. Each step moves one op,
// drawn uniformly among those with a choice, to another device that can run it, drawn
// uniformly; the study's evaluator scores the candidate (one profile run), and the Metropolis
// rule accepts it with probability min(1, exp(-beta x delta)), delta the relative change of
// the objective's cost. The best placement seen is returned. The chain starts from the best
// single device (or, when no device runs every op, each op on its first capable device).
// Seeded by the study's seed; it stops after `samples` steps or `time` seconds, whichever comes
// first, and returns the best found so far.
#pragma once

#include <string>

#include "placement/placer.hpp"

namespace hetsim::placement::classic {

class McmcPlacer final : public Placer {
public:
    explicit McmcPlacer(const std::string& arguments);
    std::string name() const override;
    PlacementResult place(const PlacementContext& context) override;
    static PlacerInfo info();

private:
    std::string arguments_;
    long samples_ = 1000;
    double time_s_ = 30.0;
    double beta_ = 20.0;
};

}  // namespace hetsim::placement::classic
