// A 64-bit FNV-1a digest: a content fingerprint to tell two inputs apart (a checkpoint's dataset
// manifest, a sweep's design point), not a security hash.
#pragma once

#include <cstdint>
#include <string_view>

namespace hetsim::sim {

inline constexpr std::uint64_t kFnv1aOffset = 14695981039346656037ull;

// Continues the digest `h` over `bytes` (start with kFnv1aOffset).
constexpr std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t h = kFnv1aOffset) {
    for (const char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace hetsim::sim
