// Portable random draws: the same sequence on every standard library, which docs/DESIGN.md's
// byte-for-byte determinism across machines needs (std::uniform_int_distribution's and
// std::uniform_real_distribution's algorithms are implementation-defined).
#pragma once

#include <cstddef>
#include <random>

namespace hetsim::sim {

// A uniform index in [0, n) drawn by rejection.
std::size_t uniform_index(std::mt19937_64& rng, std::size_t n);
// A uniform double in [0, 1) from the top 53 bits of one draw.
double uniform_unit(std::mt19937_64& rng);

}  // namespace hetsim::sim
