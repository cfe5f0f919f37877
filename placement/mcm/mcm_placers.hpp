// mcm2022's placers on a chiplet ring (papers/mcm2022-rl-chiplet-partitioning.txt §5.1,
// spec/placement.md "mcm"), one file each, registered in placement/registry.cpp:
//   mcm.greedy   the production-compiler baseline: a balanced contiguous fill of the chips in
//                topological order, repaired by the solver's FIX mode where Eq. 4 breaks
//   mcm.random   Random search: SAMPLE (Algorithm 1) with a uniform distribution per sample
//   mcm.sa       simulated annealing over the per-node distributions, SAMPLE per candidate
//   mcm.bound    the relaxed chain DP (Eq. 4 ignored): a proven bound, and the chain attaining
//                it, which may break Eq. 4
//   mcm.optimal  the exact optimum of the analytical model where tractable: the adjacent-cut
//                chain DP's partition, improved and proven by branch and bound
// They find the chips by role (chiplet_ring_order), never by name.
#pragma once

#include <string>

#include "placement/placer.hpp"
#include "placement/placer_args.hpp"

namespace hetsim::placement::mcm {

#define HETSIM_MCM_PLACER(Class)                                         \
    class Class final : public Placer {                                  \
    public:                                                              \
        explicit Class(const std::string& arguments);                    \
        static PlacerInfo info();                                        \
        std::string name() const override { return spec_; }              \
        PlacementResult place(const PlacementContext& context) override; \
                                                                         \
    private:                                                             \
        std::string spec_;                                               \
        PlacerArguments arguments_;                                      \
    };

HETSIM_MCM_PLACER(GreedyPlacer)
HETSIM_MCM_PLACER(RandomSearchPlacer)
HETSIM_MCM_PLACER(AnnealingPlacer)
HETSIM_MCM_PLACER(BoundPlacer)
HETSIM_MCM_PLACER(OptimalPlacer)

#undef HETSIM_MCM_PLACER

}  // namespace hetsim::placement::mcm
