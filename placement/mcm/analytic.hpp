// mcm2022 §5.1's analytical cost model of a partition: "estimates the latency of running all
// nodes assigned to each chip, and returns the maximal latency of all chips". The package runs
// a layer pipeline (§3: throughput is its objective), so a partition's time per sample is the
// load of its slowest stage and its throughput the inverse.
//
// The load of chip c under partition f (all terms alone on their resource, no overlap):
//   compute_c  = Σ_{u: f(u)=c} t_c(u)                        (the chiplet's op time)
//   ring_c     = Σ_{x crossing link c -> c+1} (latency_c + bytes_x / bandwidth_c)
//   host_out_c = Σ_{graph outputs x produced on c} route(c -> host) time of x
//   load_c     = compute_c + ring_c + host_out_c
// A tensor produced on chip a (a graph input: entering at chip 0) whose consumers reach up to
// chip b crosses every link a..b-1 once (store and forward through the chips between, each
// staged copy reused by later readers), so link c carries it iff a <= c < b. The host link
// into chip 0 is a stage of its own: host_in = Σ_{graph inputs} route(host -> chip 0) time.
//   time per sample = max(host_in, max_c load_c),   throughput = 1 / time per sample.
// Validity (what the analytical model can check): Eq. 2-4 (check_static_constraints) and each
// chip's resident weights within its SRAM (a weight tensor counted once per chip it is used
// on). Live activations, the compiler's schedule and samples in flight are the DES's part
// (des_check.hpp), as the hardware's is in §5.4.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/mcm/problem.hpp"

namespace hetsim::placement::mcm {

struct ChipLoad {
    double compute_s = 0.0;
    double ring_s = 0.0;      // outgoing ring link, relayed tensors included
    double host_out_s = 0.0;  // graph outputs to the host
    std::int64_t weight_bytes = 0;
    int ops = 0;
    double load_s() const { return compute_s + ring_s + host_out_s; }
};

struct AnalyticResult {
    bool valid = true;   // Eq. 2-4 hold and every chip's weights fit
    std::string reason;  // the first violation when !valid
    double time_per_sample_s = 0.0;
    double throughput_per_s = 0.0;
    int bottleneck_chip = -1;  // -1: the host input link
    double host_in_s = 0.0;
    int chips_used = 0;
    std::vector<ChipLoad> chips;
};

// Reusable scratch space, so that search loops evaluate thousands of partitions per second
// without allocating (tools/bench/mcm_bench.cpp measures it).
class AnalyticModel {
public:
    explicit AnalyticModel(const McmProblem& problem);

    // Loads and time per sample; with `check`, validity as above (the first violation as the
    // reason). Partitions that break Eq. 2 still get loads: backward tensors cross no link.
    AnalyticResult evaluate(const std::vector<int>& chip_of_op, bool check = true);

    // max(host_in, max_c load_c) only: the search loops' objective.
    double time_per_sample_s(const std::vector<int>& chip_of_op);

    // True when Eq. 2-4 hold (no messages; the fast form of check_static_constraints).
    bool static_constraints_hold(const std::vector<int>& chip_of_op);
    // True when every chip's resident weights fit its SRAM.
    bool weights_fit(const std::vector<int>& chip_of_op);

    const McmProblem& problem() const { return *problem_; }

private:
    void compute_loads(const std::vector<int>& chip_of_op);

    const McmProblem* problem_;
    double host_in_s_ = 0.0;
    std::vector<ChipLoad> loads_;
    std::vector<double> link_bytes_, link_count_;     // difference arrays over links
    std::vector<std::uint64_t> succ_, reach_, long_;  // chip graph bitsets, words_ per chip
    std::vector<int> last_chip_of_weight_;
    int words_ = 1;
};

}  // namespace hetsim::placement::mcm
