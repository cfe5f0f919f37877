// The lattice of ideals (down-closed vertex sets) of a DAG, shared by the max-load DPs over
// ideals: tarnawski2020 §5.1.1 (placement/tarnawski/dp/) and mcm2022's chain DP
// (placement/mcm/chain_dp.hpp). A chain ∅ = I_0 ⊂ I_1 ⊂ ... ⊂ I_k = V of ideals is a split
// whose device graph is acyclic, so both DPs walk this lattice and never an ideal × ideal table.
//
// Vertices are labels 0..n-1 in a topological order (every predecessor has a smaller label).
// Ideals are generated once each, by cardinality, without deduplication: I ∪ {v} is made from I
// only for v above every label of I (each ideal has one such parent, I \ {max I}). The Hasse
// diagram downwards (I -> I \ {v} for each maximal v of I) follows from the parent's without
// lookups: I \ {v} is the child of (parent \ {v}) with label max I.
// O(𝓘 · (n · W + width · log n)) time and O(𝓘 · (W + width)) memory for 𝓘 ideals,
// W = ⌈n/64⌉ words per bitset, plus 12 bytes per ideal while enumerating.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

namespace hetsim::placement::ideals {

// Ideals with ids ordered by cardinality (J ⊂ I ⇒ id(J) < id(I); ∅ is 0 and the whole vertex
// set is last), as bitsets, with the Hasse diagram downwards: down[down_begin[I] ..
// down_begin[I + 1]) = (v, id(I \ {v})) for every maximal v of I, by v ascending.
struct IdealLattice {
    struct Edge {
        std::int32_t v;
        std::uint32_t lower;
    };
    int words = 1;
    std::vector<std::uint64_t> bits;  // ideal-major, `words` per ideal
    std::vector<std::uint32_t> down_begin;
    std::vector<Edge> down;
    std::size_t count() const { return down_begin.size() - 1; }
    const std::uint64_t* row(std::size_t ideal) const { return &bits[ideal * words]; }
    bool has(std::size_t ideal, int v) const { return (row(ideal)[v >> 6] >> (v & 63)) & 1; }
};

// Thrown by enumerate_ideals when a deadline passes (callers turn it into their own fallback).
struct DeadlinePassed {};

inline void check_deadline(const std::optional<std::chrono::steady_clock::time_point>& deadline) {
    if (deadline && std::chrono::steady_clock::now() >= *deadline)
        throw DeadlinePassed{};
}

// Thrown by enumerate_ideals when the DAG has more than `limit` ideals (callers name their
// graph in their own error).
class TooManyIdeals : public std::runtime_error {
public:
    explicit TooManyIdeals(std::size_t limit);
    std::size_t limit() const { return limit_; }

private:
    std::size_t limit_;
};

// All ideals of the DAG on labels 0..n-1 whose predecessors are pred[v] (all < v). Throws
// TooManyIdeals past max_ideals (∅ included), DeadlinePassed past the deadline (checked every
// 1024 ideals), std::invalid_argument when a predecessor label is not below its vertex's.
IdealLattice enumerate_ideals(
    int n, const std::vector<std::vector<int>>& pred, std::size_t max_ideals,
    const std::optional<std::chrono::steady_clock::time_point>& deadline = std::nullopt);

// The n + 1 prefixes {0..i-1} of the label order (the linearization of tarnawski2020 §5.1.2):
// ideals of any DAG the labels order topologically, each with one down edge (its top label).
IdealLattice prefix_ideals(int n);

}  // namespace hetsim::placement::ideals
