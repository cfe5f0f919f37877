// Building blocks shared by the latency-oriented SplitSolvers (greedy, local_search,
// one_accelerator, tarnawski.latency): contraction of colour classes into blocks, the §7
// greedy, topological orders of blocks, the sequential-bound DP over a linearization, and a
// block-move descent under either objective.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/solver_common.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

// Groups of nodes that always share a device: colour classes (App. B), and with merge_cycles
// also the strongly connected components of the class-contracted graph (App. B, step 1 of the
// §7 greedy): a contiguous split keeps such a component on one device.
struct Blocks {
    std::vector<int> block_of_node;
    std::vector<std::vector<int>> nodes;       // per block, in the evaluator's topological order
    std::vector<double> bytes;                 // Σ m_v
    std::vector<std::uint8_t> accelerator_ok;  // every node supported on accelerators
    // Block graph in edge-file order, one entry per edge between different blocks.
    std::vector<std::vector<int>> succ;
    std::vector<int> indegree;  // entries of succ pointing at the block
    bool acyclic = true;        // always true with merge_cycles
    int count() const { return static_cast<int>(nodes.size()); }
};
Blocks make_blocks(const Workload& workload, bool merge_cycles);

// Topological orders of an acyclic block graph.
//  * stack: Kahn's algorithm taking the most recently readied block first, sources in block
//    order: the "DFS-ish" order of the published greedy, which gives Table 4's greedy values;
//  * queue: Kahn's algorithm first-in first-out (breadth first);
//  * random: a uniformly random ready block each step.
enum class BlockOrder { stack, queue, random };
std::vector<int> block_order(const Blocks& blocks, BlockOrder kind, std::mt19937_64* rng = nullptr);

// §7 greedy fill along `order`: open an accelerator, put blocks on it while they fit in M, then
// open the next; a block larger than M, one unsupported on accelerators, and every block after
// the last accelerator is full go to CPU 0. At most `accelerators` accelerators are used
// (negative: all k). fill_fraction (default 1) caps each accelerator's bytes at fraction · M,
// for the randomised starts of the searches. Without CPUs (ℓ = 0) leftovers go to the last
// accelerator (infeasible, latency ∞).
Assignment greedy_fill(const Workload& workload, const Blocks& blocks,
                       const std::vector<int>& order, int accelerators = -1,
                       const std::vector<double>& fill_fraction = {});

// The §7 latency greedy: colour classes and cycles contracted, stack order, greedy fill.
Assignment latency_greedy(const Workload& workload, int accelerators = -1);

// The "sequential" DP over a linearization (in the spirit of §5.1.2's DPL): split `order` into
// consecutive segments, each on its own accelerator (memory ≤ M, all supported) or on the CPUs,
// minimising Σ segment durations, where an accelerator segment lasts in + compute + out
// transfers (§4) and a CPU segment its longest path of p^cpu. Each segment only depends on
// earlier ones, so the sum bounds the §4 latency of the split from above (pieces may overlap
// in time, never conflict). Returns nullopt when no feasible segmentation exists.
struct LinearSplit {
    Assignment assignment;
    double bound = 0.0;  // Σ segment durations ≥ split_latency
};
using Clock = std::chrono::steady_clock;

// The deadline that SolveOptions::time_limit_s seconds from now give (0 = none), and whether
// it has passed.
std::optional<Clock::time_point> deadline_after(double seconds);
bool past(const std::optional<Clock::time_point>& deadline);

// nullopt also when `deadline` passes first (the DP is quadratic in the blocks: seconds on
// 10,000-node graphs).
std::optional<LinearSplit> linear_latency_dp(
    const Workload& workload, const Blocks& blocks, const std::vector<int>& order,
    int accelerators = -1, const std::optional<Clock::time_point>& deadline = std::nullopt);

// The objective a search minimises: §4 latency (all CPUs pooled into CPU 0) or the §3 max-load.
class SplitScorer {
public:
    SplitScorer(const Workload& workload, SplitObjective objective, bool require_contiguous);
    // ∞ when infeasible (memory, support, colour classes, deadlock, contiguity if required).
    double operator()(const std::vector<int>& device_of_node);
    SplitObjective objective() const { return objective_; }
    std::uint64_t evaluations() const { return evaluations_; }

    // evaluate_assignment(...).max_load (∞ also when a colour class is split), computed the
    // same way in the same order but without allocating: the searches call it ~10^6 times.
    double max_load(const std::vector<int>& device_of_node);

private:
    const Workload& w_;
    SplitObjective objective_;
    bool require_contiguous_;
    LatencyEvaluator latency_;
    // max_load: successors (CSR) in edge order with uniform outgoing costs, dense colour
    // classes (-1 without one), and scratch space reused across calls.
    OutgoingEdges edges_;
    std::vector<int> color_, class_device_, seen_;
    std::vector<double> load_, bytes_;
    std::uint64_t evaluations_ = 0;
};

// Block-move local search. A move puts one block on another device; the targets are CPU 0
// (latency: all cores are one pool) or every CPU (throughput), and accelerators
// 0..accelerators-1. Stops at a local optimum, after max_steps improving moves, or at the
// deadline.
struct DescentOptions {
    bool steepest = true;   // best move of the whole neighbourhood; else first improving move
    int accelerators = -1;  // usable accelerators (negative: all k)
    std::uint64_t max_steps = UINT64_MAX;
    std::optional<Clock::time_point> deadline;
    // Hears the current score after each move taken and every 256 blocks of a steepest scan
    // (a scan of a 10,000-node graph takes seconds): the searches' progress reports. May be
    // empty.
    std::function<void(double current)> on_progress;
};
class BlockDescent {
public:
    BlockDescent(const Workload& workload, const Blocks& blocks, SplitScorer& scorer);
    // Improves device_of_node in place (blocks must be consistent: one device per block);
    // returns its score.
    double descend(std::vector<int>& device_of_node, const DescentOptions& options,
                   std::mt19937_64& rng);
    // Devices a block may move to.
    std::vector<int> targets(int accelerators) const;
    void move(std::vector<int>& device_of_node, int block, int device) const;
    std::uint64_t moves() const { return moves_; }

private:
    const Workload& w_;
    const Blocks& blocks_;
    SplitScorer& score_;
    std::uint64_t moves_ = 0;
};

// The device of each block (its first node's), and back.
std::vector<int> block_devices(const Blocks& blocks, const std::vector<int>& device_of_node);
bool blocks_consistent(const Blocks& blocks, const std::vector<int>& device_of_node);

// Normalises an assignment for the latency objective: every CPU node onto CPU 0 (the CPU cores
// are one pool in §4, and colour classes then stay on one device for evaluate_assignment too).
void pool_cpus(const Workload& workload, std::vector<int>& device_of_node);

// Objective of an assignment under `objective` (∞ if infeasible), for SolveResult.
double split_objective(const Workload& workload, const Assignment& assignment,
                       SplitObjective objective);

}  // namespace hetsim::placement::tarnawski
