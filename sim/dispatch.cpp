#include "sim/dispatch.hpp"

#include <algorithm>
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
        s.lane_busy.assign(static_cast<std::size_t>(s.capacity > 0 ? s.capacity : 0), false);
        slots_.push_back(std::move(s));
    }
    touched_.assign(slots_.size(), 1);  // the first start_touched looks at every slot
    const int n = static_cast<int>(index.task_count());
    total_ = static_cast<std::int64_t>(n) * samples;
    remaining_preds_.resize(static_cast<std::size_t>(total_));
    for (int s = 0; s < samples; ++s) {
        for (int t = 0; t < n; ++t) {
            remaining_preds_[static_cast<std::size_t>(s * n + t)] =
                index.tasks[static_cast<std::size_t>(t)].predecessor_count;
        }
    }
    if (n == 0)
        return;
    if (sequential_) {
        // ONNX Runtime's sequential executor: one task at a time in lowering order.
        make_ready({0, 0});
        return;
    }
    for (int s = 0; s < samples; ++s) {
        for (int t = 0; t < n; ++t) {
            if (index.tasks[static_cast<std::size_t>(t)].predecessor_count == 0) {
                make_ready({s, t});
            }
        }
    }
}

void Dispatcher::make_ready(TaskInstance inst) {
    const auto slot =
        static_cast<std::size_t>(index_->tasks[static_cast<std::size_t>(inst.task)].resource);
    std::vector<TaskInstance>& ready = slots_[slot].ready;
    ready.push_back(inst);
    std::push_heap(ready.begin(), ready.end(), std::greater<>{});
    touched_[slot] = 1;
}

int Dispatcher::take_lanes(SlotState& slot, int units) {
    if (slot.capacity < 0) {
        // Unlimited slot: reuse the lowest idle lane, or open a new one.
        for (std::size_t i = 0; i < slot.lane_busy.size(); ++i) {
            if (!slot.lane_busy[i]) {
                slot.lane_busy[i] = true;
                return static_cast<int>(i);
            }
        }
        slot.lane_busy.push_back(true);
        return static_cast<int>(slot.lane_busy.size()) - 1;
    }
    // Lowest run of `units` contiguous idle lanes (a parallel op takes all cores, so
    // with units == capacity this is lane 0).
    for (std::size_t first = 0; first + static_cast<std::size_t>(units) <= slot.lane_busy.size();
         ++first) {
        bool free = true;
        for (int k = 0; k < units && free; ++k)
            free = !slot.lane_busy[first + k];
        if (free) {
            for (int k = 0; k < units; ++k)
                slot.lane_busy[first + k] = true;
            return static_cast<int>(first);
        }
    }
    return -1;
}

void Dispatcher::start_touched(std::vector<StartedTask>& started) {
    started.clear();
    for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
        if (touched_[slot]) {
            touched_[slot] = 0;
            start_ready(static_cast<int>(slot), started);
        }
    }
}

void Dispatcher::start_ready(int slot_index, std::vector<StartedTask>& started) {
    SlotState& slot = slots_[static_cast<std::size_t>(slot_index)];
    std::vector<TaskInstance>& ready = slot.ready;
    skipped_.clear();
    // In priority order, as a sorted set's iteration: a task that does not fit is skipped
    // (and put back), the others start until the slot is full.
    while (!ready.empty()) {
        std::pop_heap(ready.begin(), ready.end(), std::greater<>{});
        const TaskInstance inst = ready.back();
        ready.pop_back();
        const int units =
            slot.capacity < 0 ? 1 : index_->tasks[static_cast<std::size_t>(inst.task)].units;
        if (slot.capacity >= 0 && units > slot.free_units) {
            skipped_.push_back(inst);
            continue;
        }
        const int lane = take_lanes(slot, units);
        if (lane < 0) {  // fragmented lanes: wait for a contiguous run
            skipped_.push_back(inst);
            continue;
        }
        if (slot.capacity >= 0)
            slot.free_units -= units;
        started.push_back(StartedTask{inst, lane});
        if (slot.capacity >= 0 && slot.free_units == 0)
            break;
    }
    for (const TaskInstance& inst : skipped_) {
        ready.push_back(inst);
        std::push_heap(ready.begin(), ready.end(), std::greater<>{});
    }
}

void Dispatcher::complete(const StartedTask& started) {
    const TaskInstance inst = started.instance;
    const auto t = static_cast<std::size_t>(inst.task);
    const ExecIndex::TaskFacts& task = index_->tasks[t];
    const auto resource = static_cast<std::size_t>(task.resource);
    SlotState& slot = slots_[resource];
    const int units = slot.capacity < 0 ? 1 : task.units;
    for (int k = 0; k < units; ++k) {
        slot.lane_busy[static_cast<std::size_t>(started.first_lane + k)] = false;
    }
    if (slot.capacity >= 0)
        slot.free_units += units;
    touched_[resource] = 1;
    ++done_;
    const int n = static_cast<int>(index_->task_count());
    if (sequential_) {
        if (inst.task + 1 < n) {
            make_ready({inst.sample, inst.task + 1});
        } else if (inst.sample + 1 < samples_) {
            make_ready({inst.sample + 1, 0});
        }
        return;
    }
    for (std::int32_t e = index_->first_successor[t]; e < index_->first_successor[t + 1]; ++e) {
        const int succ = index_->successors[static_cast<std::size_t>(e)];
        int& remaining = remaining_preds_[static_cast<std::size_t>(inst.sample * n + succ)];
        if (--remaining == 0)
            make_ready({inst.sample, succ});
    }
}

}  // namespace hetsim::sim
