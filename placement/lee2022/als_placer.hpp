// "lee2022.als": lee2022's optimal model partitioning (§3.3). Algorithm 1 profiles the node
// and DA-edge costs with real runs of the study's evaluator (profiler.hpp), then the modified
// assembly-line scheduling DP of Eq. 2 runs over the DCG in topological order and returns the
// placement of minimum sequential latency: the sum of its node costs plus the cost of every
// tensor copy it needs (once per destination memory, as lowering copies). That is exactly
// the latency of ONNX Runtime's sequential executor (`dispatch: sequential`), the paper's
// setting; on a dataflow platform it is the placement's total work, not its makespan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "placement/lee2022/da_edges.hpp"
#include "placement/lee2022/profiler.hpp"
#include "placement/placer.hpp"

namespace hetsim::placement::lee2022 {

struct AlsSolution {
    sim::Placement placement;
    std::int64_t cost_ps = 0;    // the DP's optimum: predicted sequential latency
    std::size_t max_states = 0;  // largest DP frontier (states at one step)
    int max_live_tensors = 0;    // widest frontier in live tensors
};

// The DP over profiled costs. Throws PlacementError when a frontier would exceed
// `max_states` states (naming the op and the frontier width) or when a cost it needs was
// never measured.
AlsSolution solve_als(const DaEdges& da, const ProfiledCosts& costs,
                      std::size_t max_states = 1000000);

// The objective the DP minimises, for any placement: node costs plus the cost of each copy
// in DaEdges::moves(placement). Throws PlacementError for an unmeasured cost.
std::int64_t sequential_cost_ps(const DaEdges& da, const ProfiledCosts& costs,
                                const sim::Placement& placement);

class AlsPlacer final : public Placer {
public:
    static constexpr std::size_t kDefaultMaxStates = 1000000;

    // `arguments`: empty, or a positive integer bound on the DP's states per step.
    explicit AlsPlacer(const std::string& arguments);
    static PlacerInfo info();

    std::string name() const override;
    PlacementResult place(const PlacementContext& context) override;

private:
    std::size_t max_states_ = kDefaultMaxStates;
    bool explicit_limit_ = false;
};

}  // namespace hetsim::placement::lee2022
