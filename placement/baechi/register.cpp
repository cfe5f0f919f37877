// The baechi family (Jeon et al., SoCC 2020): memory-constrained placement.
#include "placement/baechi/baechi_placer.hpp"
#include "placement/families.hpp"

namespace hetsim::placement::baechi {

void register_placers(PlacerRegistry& registry) {
    registry.family("baechi", "Jeon et al. SoCC 2020 Baechi: memory-constrained placement")
        .add(BaechiPlacer::info(BaechiMode::m_topo))
        .add(BaechiPlacer::info(BaechiMode::m_etf))
        .add(BaechiPlacer::info(BaechiMode::m_sct));
}

}  // namespace hetsim::placement::baechi
