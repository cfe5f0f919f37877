// INTERNAL to placement/mcm: included only by solver.cpp, optimal.cpp and gecode_model.cpp.
// It includes Gecode, which must stay out of every header the rest of hetsim includes.
//
// The constraint model of mcm2022 §3 on Gecode, shared by the sampler (solver.cpp, §4.2) and
// the exact search (optimal.cpp): one IntVar per op with domain 0..C-1 (chip of the op, chips in
// ring order) and
//   Eq. 2  f(u) <= f(v) per edge                      Gecode's binary rel propagators
//   Eq. 3  the used chips are exactly 0..k            NoSkip
//   Eq. 4  no chip triangle                           ChipTriangle, with the implied "two
//          chips per transitive edge" rule folded in
//   Eq. 3+4 implied: f(v) - f(u) <= 1 + |P(u, v)|     binary linear propagators per edge
//   SRAM   resident weights of a chip <= its SRAM     WeightCapacity (per chip, and interval
//          (optional)                                 energy) and CapacityPaths (along paths)
// Each propagator's comment in gecode_model.cpp argues why it never removes a value of a valid
// completion (soundness) and why it fails every full assignment that violates its constraint;
// the implied ones are not needed for that, only for propagating early.
#pragma once

#include <gecode/int.hh>
#include <gecode/search.hh>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "placement/mcm/problem.hpp"

namespace hetsim::placement::mcm::detail {

// The instance reduced to flat arrays, built once per solver and shared (never copied) by every
// space and propagator: Gecode copies spaces at every recomputation point, so the propagators
// keep only their dynamic state and a pointer to this.
struct ModelData {
    int ops = 0;
    int chips = 0;
    int words = 1;  // 64-bit words of a chip bitset

    std::vector<int> topo;  // Graph::topo_order
    // Deduplicated op -> op edges (McmProblem::edges) and their CSR adjacency.
    std::vector<McmProblem::Edge> edges;
    std::vector<int> succ_begin, succ;  // succ[succ_begin[u] .. succ_begin[u+1])
    std::vector<int> pred_begin, pred;

    // Transitive edges (u, v) — another op path leads from u to v — with the ops strictly
    // between them (on some u -> v path). Every valid partition puts those ops on f(u) or f(v)
    // (see ChipTriangle). Groups beyond kMaxGroupMembers members in total are left out
    // (the rule is implied, so leaving it out only weakens propagation).
    struct Group {
        int from = -1;
        int to = -1;
    };
    std::vector<Group> groups;
    std::vector<int> member_begin, members;      // ops strictly between from and to
    std::vector<int> op_group_begin, op_groups;  // groups an op is in (member or endpoint)
    static constexpr std::size_t kMaxGroupMembers = 4'000'000;

    // Per edge (same index as `edges`): the largest chip step f(v) - f(u) any valid partition
    // can take on it, 1 + |P(u, v)| with P(u, v) the ops that are neither ancestors of u (or
    // u), nor descendants of v (or v), nor between u and v (see PartitionSpace's constructor).
    // chips - 1 (no bound) when the reachability bitsets were not built.
    std::vector<int> edge_max_step;

    // Weights (McmProblem::weights): bytes per weight, the weights each op reads, per-chip
    // capacity (0 = unlimited), and the ops by the bytes of their weights, largest first.
    std::vector<std::int64_t> weight_bytes;
    std::vector<int> op_weight_begin, op_weights;
    std::vector<std::int64_t> op_need_bytes;   // Σ bytes of the op's weights
    std::vector<std::int64_t> op_share_bytes;  // Σ floor(bytes / readers) of the op's weights
    std::vector<int> ops_by_need;              // ops with weights, op_need_bytes descending
    std::vector<std::int64_t> capacity_bytes;
    // The ops with a positive share, in topological order, their shares, and links (indices
    // into cap_ops) where a path of share-free ops joins two of them (CapacityPaths).
    std::vector<int> cap_ops;
    std::vector<std::int64_t> cap_share;
    std::vector<int> cap_succ_begin, cap_succ, cap_pred_begin, cap_pred;
    std::int64_t total_weight_bytes = 0;

    explicit ModelData(const McmProblem& problem);
};

// The partitioning model: x[u] = chip of op u.
class PartitionSpace : public Gecode::Space {
public:
    // Posts Eq. 2-4 and, with `weight_capacity`, the SRAM bound on resident weights (only when
    // some chip has a capacity). The space may be failed afterwards (status()).
    PartitionSpace(const ModelData& data, bool weight_capacity);
    PartitionSpace(PartitionSpace& other);
    Gecode::Space* copy() override;

    const ModelData& data() const { return *data_; }
    Gecode::IntVarArray& vars() { return x_; }
    const Gecode::IntVarArray& vars() const { return x_; }
    // The chip of every op; every variable must be assigned.
    std::vector<int> assignment() const;

protected:
    const ModelData* data_;
    Gecode::IntVarArray x_;
};

// Posts the ChipTriangle, NoSkip and WeightCapacity propagators on x (exposed for the tests of
// optimal.cpp's subclass; PartitionSpace's constructor calls these).
void post_no_skip(Gecode::Home home, const Gecode::IntVarArgs& x, const ModelData& data);
void post_chip_triangle(Gecode::Home home, const Gecode::IntVarArgs& x, const ModelData& data);
void post_weight_capacity(Gecode::Home home, const Gecode::IntVarArgs& x, const ModelData& data);

// A Search::Stop for a steady_clock deadline, a failure limit and/or a node limit of one
// engine. The node limit is mcm.optimal's work budget: where it stops the search depends on
// the model alone, so the result is the same on every run, unlike at the deadline. `progress`
// (may be empty) hears the engine's statistics every 4096 calls.
class DeadlineStop : public Gecode::Search::Stop {
public:
    using Progress = std::function<void(const Gecode::Search::Statistics&)>;
    DeadlineStop(std::int64_t fail_limit, bool has_deadline,
                 std::chrono::steady_clock::time_point deadline, std::int64_t node_limit = 0,
                 Progress progress = {})
        : fail_limit_(fail_limit),
          node_limit_(node_limit),
          has_deadline_(has_deadline),
          deadline_(deadline),
          progress_(std::move(progress)) {}
    bool stop(const Gecode::Search::Statistics& s, const Gecode::Search::Options&) override;
    bool deadline_passed() const { return deadline_passed_; }
    bool node_limit_reached() const { return node_limit_reached_; }

private:
    std::int64_t fail_limit_;  // <= 0: none
    std::int64_t node_limit_;  // <= 0: none
    bool has_deadline_;
    std::chrono::steady_clock::time_point deadline_;
    Progress progress_;
    bool deadline_passed_ = false;
    bool node_limit_reached_ = false;
    unsigned calls_ = 0;
};

}  // namespace hetsim::placement::mcm::detail
