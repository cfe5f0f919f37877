#include "sim/random.hpp"

#include <cstdint>

namespace hetsim::sim {

std::size_t uniform_index(std::mt19937_64& rng, std::size_t n) {
    if (n <= 1)
        return 0;
    const std::uint64_t range = n;
    // Largest multiple of `range` representable in the generator's output space; draws at or
    // above it would bias the low indices, so they are redrawn.
    const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % range;
    std::uint64_t draw = rng();
    while (draw >= limit)
        draw = rng();
    return static_cast<std::size_t>(draw % range);
}

double uniform_unit(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace hetsim::sim
