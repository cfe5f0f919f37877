// tarnawski2020 Appendix C.2: replication (PipeDream's hybrid model-/data-parallel split). A
// device set S of the pipeline may run on r devices of one kind at once, each replica holding
// all of S and processing every r-th sample, so that the average time per sample is
//   acc(S, r) = acc(S) / r  ⊕  (r - 1) · Σ_{v∈S} m_v / (r · B)
// where acc(S) is the §3/§5.1.1 load (compute + transfers) of S on one accelerator, the second
// term is the weight synchronisation by an efficient AllReduce over bandwidth B, and ⊕ is + (the
// paper's default of non-overlapping communication) or max (overlapping it, App. C.1). CPUs are
// treated likewise (footnote 8): cpu(S, r) = cpu(S) / r ⊕ (r - 1) · Σ m_v / (r · B_cpu). Every
// replica must fit the accelerator memory, Σ_{v∈S} m_v ≤ M, as without replication. For r = 1
// the load is exactly the unreplicated one.
//
// In the DP (App. C.2), the accelerator branch max(dp[I'][k'-1][ℓ'], acc(I \ I')) becomes
//   min_{r=1..k'} max(dp[I'][k'-r][ℓ'], acc(I \ I', r)),
// and the CPU branch likewise, an O(max(k, ℓ)) factor in time and none in memory.
//
// A replicated split is reported as a Split with the set on the first of its r devices and the
// other r - 1 devices empty, plus per-device replica counts: r on the first device, 0 on the
// devices serving as its replicas, 1 on every other device (used or not).
#pragma once

#include <limits>
#include <vector>

#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {

struct LoadReport;  // max_load_dp.hpp, which includes this header

struct ReplicationOptions {
    // Largest r for an accelerator set / a CPU set; 1 = no replication (the default).
    int max_accelerator_replicas = 1;
    int max_cpu_replicas = 1;
    // B in bytes per time unit of the workload's latencies; ∞ = free synchronisation.
    double accelerator_bandwidth = std::numeric_limits<double>::infinity();
    double cpu_bandwidth = std::numeric_limits<double>::infinity();
    // App. C.1: synchronisation overlaps the per-sample work (⊕ = max) instead of adding to it.
    bool overlap_sync = false;

    bool enabled() const { return max_accelerator_replicas > 1 || max_cpu_replicas > 1; }
};

// acc(S, r) (or cpu(S, r)) from the unreplicated load and Σ_{v∈S} m_v. Nondecreasing in `load`
// and `weight_bytes`; returns `load` unchanged for r = 1.
inline double replicated_load(double load, double weight_bytes, int replicas, double bandwidth,
                              bool overlap_sync) {
    if (replicas == 1)
        return load;
    const double per_sample = load / replicas;
    const double sync = (replicas - 1) * weight_bytes / (replicas * bandwidth);
    return overlap_sync ? (per_sample > sync ? per_sample : sync) : per_sample + sync;
}

// Throws DpError (max_load_dp.hpp) for replica counts below 1 or non-positive bandwidths.
void check_replication(const ReplicationOptions& options);

// The App. C.2 loads of a replicated split (see above for the replica counts; a count vector may
// be empty = all ones). max_load and the per-device loads are those of the replicated devices;
// replica devices report load 0 and must be empty. Throws WorkloadError when the counts do not
// fit the split (wrong length, a replica device holding nodes, a set replicated past the last
// device, r above the options' maximum).
LoadReport evaluate_replicated_split(const Workload& workload, const Split& split,
                                     const std::vector<int>& cpu_replicas,
                                     const std::vector<int>& accelerator_replicas,
                                     const ReplicationOptions& options);

}  // namespace hetsim::placement::tarnawski
