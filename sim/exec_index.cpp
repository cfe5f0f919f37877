#include "sim/exec_index.hpp"

#include <algorithm>
#include <cmath>

#include "sim/fluid_share.hpp"

namespace hetsim::sim {

ExecIndex::ExecIndex(const ExecGraph& exec) {
    const std::size_t components =
        exec.platform != nullptr ? exec.platform->components().size() : 0;
    buffers.reserve(exec.buffers.size());
    for (const Buffer& b : exec.buffers) {
        const bool tracked = b.component >= 0 && static_cast<std::size_t>(b.component) < components;
        if (b.producer < 0 && b.persistent)
            resident_from_start.push_back(static_cast<std::int32_t>(buffers.size()));
        buffers.push_back(
            BufferFacts{b.bytes, tracked ? b.component : -1, b.readers, b.persistent});
    }
    std::vector<double> capacity_Bps;
    for (const SharedResource& r : exec.shared_resources)
        capacity_Bps.push_back(r.capacity_Bps);
    const std::size_t n = exec.tasks.size();
    tasks.reserve(n);
    // The lists' lengths first: filling them then never reallocates (a tenth of the build in
    // memmove otherwise).
    std::size_t successor_count = 0, shared_count = 0, read_count = 0;
    for (const Task& t : exec.tasks) {
        successor_count += t.successors.size();
        duration_sum_ps += static_cast<double>(t.duration_ps);
        shared_count += t.shared.size();
        read_count += t.reads_buffers.size();
    }
    successors.reserve(successor_count);
    shared.reserve(shared_count);
    reads.reserve(read_count);
    input_reads.reserve(read_count);
    first_successor.reserve(n + 1);
    predecessor_counts.reserve(n);
    first_shared.reserve(n + 1);
    first_read.reserve(n + 1);
    first_input.reserve(n + 1);
    for (const Task& t : exec.tasks) {
        const bool link = t.kind == TaskKind::transfer && t.resource >= 0 &&
                          static_cast<std::size_t>(t.resource) < exec.resources.size() &&
                          exec.resources[static_cast<std::size_t>(t.resource)].is_link;
        const bool unread = t.fills_buffer >= 0 &&
                            exec.buffers[static_cast<std::size_t>(t.fills_buffer)].readers == 0;
        const bool flows = t.flow_ps > 0 && !t.shared.empty();
        double alone_progress = 1.0;
        std::int64_t alone_flow_ps = 0;
        if (flows) {
            // The rate max-min fairness gives the flow alone (sim/fluid_share.hpp).
            alone_progress =
                alone_rate_Bps(capacity_Bps, t.flow_rate_Bps, t.shared) / t.flow_rate_Bps;
            alone_flow_ps = std::max<std::int64_t>(
                1, std::llround(static_cast<double>(t.flow_ps) / alone_progress));
        }
        tasks.push_back(TaskFacts{t.duration_ps, t.fixed_ps, t.flow_ps, t.bytes, alone_progress,
                                  alone_flow_ps, t.resource, t.units, t.fills_buffer, t.kind, link,
                                  unread, flows});
        predecessor_counts.push_back(t.predecessor_count);
        if (t.predecessor_count == 0)
            sources.push_back(static_cast<std::int32_t>(tasks.size() - 1));
        first_successor.push_back(static_cast<std::int32_t>(successors.size()));
        successors.insert(successors.end(), t.successors.begin(), t.successors.end());
        first_shared.push_back(static_cast<std::int32_t>(shared.size()));
        shared.insert(shared.end(), t.shared.begin(), t.shared.end());
        first_read.push_back(static_cast<std::int32_t>(reads.size()));
        first_input.push_back(static_cast<std::int32_t>(input_reads.size()));
        for (int b : t.reads_buffers) {
            reads.push_back(b);
            if (exec.buffers[static_cast<std::size_t>(b)].producer < 0)
                input_reads.push_back(b);
        }
    }
    task_count_ = tasks.size();
    buffer_count_ = buffers.size();
    first_successor.push_back(static_cast<std::int32_t>(successors.size()));
    first_shared.push_back(static_cast<std::int32_t>(shared.size()));
    first_read.push_back(static_cast<std::int32_t>(reads.size()));
    first_input.push_back(static_cast<std::int32_t>(input_reads.size()));
}

}  // namespace hetsim::sim
