// mcm.rl (mcm2022 §4-5): the placer and its pre-training, as the rest of hetsim sees them.
// Nothing here includes libtorch (agent.cpp alone does), so the app layer can register the
// placer and call the trainer without its headers.
//
//   mcm.rl:checkpoint=PATH|none,finetune=N,samples=M,...   (rl_placer.cpp)
//     checkpoint  a pre-trained policy (`hetsim train mcm.rl`); default the one hetsim ships,
//                 checkpoints/mcm_rl.pt on the config search path; `none` = RL from scratch
//     finetune    samples spent on PPO updates on the target graph (0 = zero-shot); the rest
//                 of `samples` are drawn from the tuned policy without updates
//     samples     the whole sample budget (each sample one evaluation, as for mcm.random)
// Pre-training, `hetsim train mcm.rl`, is tools/app/train.cpp.
#pragma once

#include "placement/placer.hpp"

namespace hetsim::placement::mcm::rl {

// The placer's registry entry.
PlacerInfo rl_placer_info();
// Adds mcm.rl to the mcm family. Called by the app layer: hetsim_placement, whose
// PlacerRegistry::instance() registers the other families, does not link this library.
void register_placers(PlacerRegistry& registry);

}  // namespace hetsim::placement::mcm::rl
