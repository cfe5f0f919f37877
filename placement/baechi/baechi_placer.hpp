// Baechi's memory-constrained placers (Jeon, Hong, Chen, Wang, Gupta, "Baechi: fast device
// placement of machine learning graphs", ACM SoCC 2020, §4), on a platform's execution
// resources with the memory model of classic::MemoryLimits:
//   baechi.m_topo  §4.1: ops in topological order fill the processors one after another, each
//                  up to its share of the graph's memory (the total over the processors, and
//                  never past its capacity); an op a processor cannot run, or that does not
//                  fit, goes to the next one with room.
//   baechi.m_etf   §4.2: ETF (classic/list_scheduling.hpp) where a (task, processor) pair is a
//                  candidate only if the task fits in what the processor has left.
//   baechi.m_sct   §4.3: Hanen and Munier's SCT: a favourite-child LP (on CBC) picks for each
//                  op at most one child to run right after it on its processor, then m-ETF
//                  with the favourite child urgent (placement/baechi/m_sct.hpp).
// All three say which op fits nowhere, with what it needs and what is left, instead of
// returning a placement that overflows.
#pragma once

#include <string>

#include "placement/placer.hpp"

namespace hetsim::placement::baechi {

enum class BaechiMode { m_topo, m_etf, m_sct };

class BaechiPlacer final : public Placer {
public:
    BaechiPlacer(BaechiMode mode, const std::string& arguments);
    std::string name() const override;
    PlacementResult place(const PlacementContext& context) override;
    static PlacerInfo info(BaechiMode mode);

private:
    BaechiMode mode_;
};

}  // namespace hetsim::placement::baechi
