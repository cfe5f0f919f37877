// tarnawski2020 Appendix C.2 replication: the replicated loads of a split (see replication.hpp).
#include "placement/tarnawski/dp/replication.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"

namespace hetsim::placement::tarnawski {

void check_replication(const ReplicationOptions& o) {
    if (o.max_accelerator_replicas < 1 || o.max_cpu_replicas < 1)
        throw DpError(fmt::format("replica limits must be at least 1, got {} and {}",
                                  o.max_accelerator_replicas, o.max_cpu_replicas));
    if (!(o.accelerator_bandwidth > 0.0) || !(o.cpu_bandwidth > 0.0))
        throw DpError(fmt::format("replication bandwidths must be positive, got {} and {}",
                                  o.accelerator_bandwidth, o.cpu_bandwidth));
}

namespace {

// Checks one kind's counts against its device sets; returns them with empty = all ones.
std::vector<int> checked_counts(const std::vector<std::vector<std::int64_t>>& sets,
                                const std::vector<int>& counts, int limit, const char* kind) {
    if (counts.empty())
        return std::vector<int>(sets.size(), 1);
    if (counts.size() != sets.size())
        throw WorkloadError(
            fmt::format("{} {} replica counts for {} devices", counts.size(), kind, sets.size()));
    std::size_t covered = 0;  // devices before this index are leads or replicas of a lead
    for (std::size_t d = 0; d < counts.size(); ++d) {
        const int r = counts[d];
        if (r == 0) {
            if (d >= covered)
                throw WorkloadError(
                    fmt::format("{} {} is marked as a replica of no earlier device", kind, d));
            if (!sets[d].empty())
                throw WorkloadError(
                    fmt::format("{} {} serves as a replica but holds nodes itself", kind, d));
            continue;
        }
        if (d < covered)
            throw WorkloadError(fmt::format("{} {} is inside another set's replicas", kind, d));
        if (r < 0 || r > limit || d + static_cast<std::size_t>(r) > counts.size())
            throw WorkloadError(fmt::format("{} {} has {} replicas (limit {}, {} devices)", kind, d,
                                            r, limit, counts.size()));
        covered = d + static_cast<std::size_t>(r);
    }
    return counts;
}

}  // namespace

LoadReport evaluate_replicated_split(const Workload& w, const Split& split,
                                     const std::vector<int>& cpu_replicas,
                                     const std::vector<int>& accelerator_replicas,
                                     const ReplicationOptions& options) {
    check_replication(options);
    LoadReport r = evaluate_split(w, split);  // unreplicated loads, memory, support, colocation
    const auto cpu_r = checked_counts(split.cpus, cpu_replicas, options.max_cpu_replicas, "CPU");
    const auto acc_r = checked_counts(split.accelerators, accelerator_replicas,
                                      options.max_accelerator_replicas, "accelerator");
    auto bytes_of = [&](const std::vector<std::int64_t>& ids) {
        double bytes = 0.0;
        for (auto id : ids)
            bytes += w.size[static_cast<std::size_t>(w.index_of(id))];
        return bytes;
    };
    for (std::size_t d = 0; d < split.cpus.size(); ++d)
        r.cpu_loads[d] = cpu_r[d] == 0
                             ? 0.0
                             : replicated_load(r.cpu_loads[d], bytes_of(split.cpus[d]), cpu_r[d],
                                               options.cpu_bandwidth, options.overlap_sync);
    for (std::size_t d = 0; d < split.accelerators.size(); ++d)
        r.accelerator_loads[d] =
            acc_r[d] == 0
                ? 0.0
                : replicated_load(r.accelerator_loads[d], bytes_of(split.accelerators[d]), acc_r[d],
                                  options.accelerator_bandwidth, options.overlap_sync);
    r.max_load = 0.0;
    for (const auto* loads : {&r.cpu_loads, &r.accelerator_loads})
        for (double x : *loads)
            r.max_load = std::max(r.max_load, x);
    if (!r.memory_ok || !r.supported_ok)
        r.max_load = std::numeric_limits<double>::infinity();
    return r;
}

}  // namespace hetsim::placement::tarnawski
