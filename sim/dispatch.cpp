#include "sim/dispatch.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <stdexcept>

namespace hetsim::sim {

Dispatcher::Dispatcher(const ExecGraph& exec, const ExecIndex& index, int samples,
                       bool contention_free)
    : samples_(samples), sequential_(exec.dispatch == DispatchMode::sequential), index_(&index) {
    if (samples < 1)
        throw std::invalid_argument("Dispatcher: samples must be >= 1");
    for (const auto& r : exec.resources) {
        SlotState s;
        s.capacity = (r.is_link && (contention_free || r.shared)) ? -1 : r.capacity;
        s.free_units = s.capacity;
        s.busy.assign(static_cast<std::size_t>(std::max(1, (s.capacity + 63) / 64)), 0);
        slots_.push_back(std::move(s));
    }
    touched_.assign((slots_.size() + 63) / 64, 0);
    for (std::size_t slot = 0; slot < slots_.size(); ++slot)
        touch(slot);  // the first start_touched looks at every slot
    const int n = static_cast<int>(index.task_count());
    total_ = static_cast<std::int64_t>(n) * samples;
    remaining_preds_.reserve(static_cast<std::size_t>(total_));
    for (int s = 0; s < samples; ++s) {
        remaining_preds_.insert(remaining_preds_.end(), index.predecessor_counts.begin(),
                                index.predecessor_counts.end());
    }
    if (n == 0)
        return;
    if (sequential_) {
        // ONNX Runtime's sequential executor: one task at a time in lowering order.
        make_ready({0, 0});
        return;
    }
    for (int s = 0; s < samples; ++s) {
        for (const std::int32_t t : index.sources)
            make_ready({s, t});
    }
}

}  // namespace hetsim::sim
