// The dispatch policy both evaluators share: which ready task instances start on a resource
// slot when units free up. Time is not kept here: the AnalyticEvaluator advances it in a
// plain event loop, the DesEvaluator with SystemC events. Sharing the policy is what makes
// the two agree exactly wherever the DES sees no contention the analytic model ignores.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/exec_graph.hpp"
#include "sim/exec_index.hpp"

namespace hetsim::sim {

struct TaskInstance {
    int sample = 0;
    int task = 0;
    bool operator<(const TaskInstance& o) const {
        // Earlier samples first, then the lowering's (topological) order.
        return sample != o.sample ? sample < o.sample : task < o.task;
    }
    bool operator>(const TaskInstance& o) const { return o < *this; }
};

struct StartedTask {
    TaskInstance instance;
    int first_lane = 0;  // lanes [first_lane, first_lane + units) on its slot's tracks
};

class Dispatcher {
public:
    // `contention_free` (the AnalyticEvaluator): every link slot accepts any number of
    // concurrent transfers at full speed. Otherwise (the DES) a slot of a shared link
    // direction accepts any number too (the DES divides its bandwidth), and a `fifo` one
    // serves one transfer at a time (one DMA queue per direction).
    // `index` is exec's (ExecIndex), and must outlive the dispatcher.
    Dispatcher(const ExecGraph& exec, const ExecIndex& index, int samples, bool contention_free);

    // Starts every ready instance that fits, on each slot touched since the last call (every
    // slot at the first), in slot order and on each slot greedily in priority order. Writes
    // them to `started`, which it clears first (a buffer the caller reuses: no allocation per
    // instant once it has grown).
    void start_touched(std::vector<StartedTask>& started);
    // Marks an instance done and touches the slots that may now start something.
    void complete(const StartedTask& started);

    bool all_done() const { return done_ == total_; }
    int samples() const { return samples_; }

private:
    struct SlotState {
        int capacity = 1;  // < 0: unlimited
        int free_units = 1;
        // One bit per lane, set while busy (bit i of word i / 64). Bits, not std::vector<bool>:
        // the lowest idle lane is a count of trailing ones per word, a run of idle lanes a few
        // shifts, instead of a loop over proxies (take_lanes was 7 % of the AnalyticEvaluator's
        // time, des_bench under perf).
        std::vector<std::uint64_t> busy;
        // A binary min-heap (std::push_heap with std::greater) of ready instances, each as one
        // 64-bit key ordered as TaskInstance (key_of): O(log n) to make ready and to start the
        // best. A std::set cost a node allocation per insertion (a tenth of the DES's time in
        // malloc and free, des_bench under perf), a sorted vector a memmove per start.
        std::vector<std::uint64_t> ready;
    };
    // Sample in the high word, task in the low: comparing keys compares as TaskInstance does.
    static std::uint64_t key_of(TaskInstance inst) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(inst.sample)) << 32) |
               static_cast<std::uint32_t>(inst.task);
    }
    // The lowest `bits` bits set (bits in 0..64).
    static std::uint64_t low_bits(int bits) {
        return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    }
    static TaskInstance instance_of(std::uint64_t key) {
        return {static_cast<int>(key >> 32), static_cast<int>(key & 0xffffffffu)};
    }
    void make_ready(TaskInstance inst);
    void start_ready(int slot, std::vector<StartedTask>& started);
    static int take_lanes(SlotState& slot, int units);
    static void free_lanes(SlotState& slot, int first, int units);

    int samples_;
    bool sequential_;
    std::vector<SlotState> slots_;
    std::vector<int> remaining_preds_;  // per sample * task
    // One bit per slot that may start something (start_touched visits them in slot order by
    // counting trailing zeros, with no pass over every slot per instant: that pass was 4 % of
    // the DES's instructions on BERT-base, des_bench under callgrind).
    std::vector<std::uint64_t> touched_;
    void touch(std::size_t slot) { touched_[slot / 64] |= std::uint64_t{1} << (slot % 64); }
    std::vector<std::uint64_t> skipped_;  // start_ready: ready but not fitting, put back
    // The tasks' slots, units and successors, packed (sim/exec_index.hpp).
    const ExecIndex* index_;
    std::int64_t done_ = 0, total_ = 0;
};

// The per-task hot path, inline: both evaluators call it once or more per task.

inline void Dispatcher::make_ready(TaskInstance inst) {
    const auto slot =
        static_cast<std::size_t>(index_->tasks[static_cast<std::size_t>(inst.task)].resource);
    std::vector<std::uint64_t>& ready = slots_[slot].ready;
    ready.push_back(key_of(inst));
    std::push_heap(ready.begin(), ready.end(), std::greater<>{});
    touch(slot);
}

inline int Dispatcher::take_lanes(SlotState& slot, int units) {
    auto set_busy = [&](int lane) {
        slot.busy[static_cast<std::size_t>(lane) / 64] |= std::uint64_t{1} << (lane % 64);
    };
    if (slot.capacity < 0 || units == 1) {
        // The lowest idle lane; an unlimited slot opens a new one when all are busy.
        for (std::size_t w = 0; w < slot.busy.size(); ++w) {
            if (slot.busy[w] == ~std::uint64_t{0})
                continue;
            const int lane = static_cast<int>(w * 64) + std::countr_one(slot.busy[w]);
            if (slot.capacity >= 0 && lane >= slot.capacity)
                return -1;
            set_busy(lane);
            return lane;
        }
        if (slot.capacity >= 0)
            return -1;
        slot.busy.push_back(1);
        return static_cast<int>(slot.busy.size() - 1) * 64;
    }
    // Lowest run of `units` contiguous idle lanes (a parallel op takes all cores, so
    // with units == capacity this is lane 0).
    if (slot.capacity <= 64) {
        // One word: bit i of `run` is set when lanes i .. i + units - 1 are all idle.
        const std::uint64_t idle = ~slot.busy[0] & low_bits(slot.capacity);
        std::uint64_t run = idle;
        for (int k = 1; k < units && run != 0; ++k)
            run &= idle >> k;
        if (run == 0)
            return -1;
        const int first = std::countr_zero(run);
        slot.busy[0] |= low_bits(units) << first;
        return first;
    }
    auto is_busy = [&](int lane) {
        return (slot.busy[static_cast<std::size_t>(lane) / 64] >> (lane % 64)) & 1u;
    };
    for (int first = 0; first + units <= slot.capacity; ++first) {
        bool free = true;
        for (int k = 0; k < units && free; ++k)
            free = !is_busy(first + k);
        if (free) {
            for (int k = 0; k < units; ++k)
                set_busy(first + k);
            return first;
        }
    }
    return -1;
}

inline void Dispatcher::free_lanes(SlotState& slot, int first, int units) {
    if (first % 64 + units <= 64) {
        slot.busy[static_cast<std::size_t>(first) / 64] &= ~(low_bits(units) << (first % 64));
        return;
    }
    for (int lane = first; lane < first + units; ++lane)
        slot.busy[static_cast<std::size_t>(lane) / 64] &= ~(std::uint64_t{1} << (lane % 64));
}

inline void Dispatcher::start_touched(std::vector<StartedTask>& started) {
    started.clear();
    for (std::size_t w = 0; w < touched_.size(); ++w) {
        while (touched_[w] != 0) {
            const int bit = std::countr_zero(touched_[w]);
            touched_[w] &= touched_[w] - 1;
            start_ready(static_cast<int>(w * 64) + bit, started);
        }
    }
}

inline void Dispatcher::start_ready(int slot_index, std::vector<StartedTask>& started) {
    SlotState& slot = slots_[static_cast<std::size_t>(slot_index)];
    std::vector<std::uint64_t>& ready = slot.ready;
    if (ready.empty() || slot.free_units == 0)
        return;  // nothing ready, or full (an unlimited slot's free_units is negative)
    skipped_.clear();
    // In priority order, as a sorted set's iteration: a task that does not fit is skipped
    // (and put back), the others start until the slot is full.
    while (!ready.empty()) {
        std::pop_heap(ready.begin(), ready.end(), std::greater<>{});
        const std::uint64_t key = ready.back();
        const TaskInstance inst = instance_of(key);
        ready.pop_back();
        const int units =
            slot.capacity < 0 ? 1 : index_->tasks[static_cast<std::size_t>(inst.task)].units;
        if (slot.capacity >= 0 && units > slot.free_units) {
            skipped_.push_back(key);
            continue;
        }
        const int lane = take_lanes(slot, units);
        if (lane < 0) {  // fragmented lanes: wait for a contiguous run
            skipped_.push_back(key);
            continue;
        }
        if (slot.capacity >= 0)
            slot.free_units -= units;
        started.push_back(StartedTask{inst, lane});
        if (slot.capacity >= 0 && slot.free_units == 0)
            break;
    }
    for (const std::uint64_t key : skipped_) {
        ready.push_back(key);
        std::push_heap(ready.begin(), ready.end(), std::greater<>{});
    }
}

inline void Dispatcher::complete(const StartedTask& started) {
    const TaskInstance inst = started.instance;
    const auto t = static_cast<std::size_t>(inst.task);
    const ExecIndex::TaskFacts& task = index_->tasks[t];
    const auto resource = static_cast<std::size_t>(task.resource);
    SlotState& slot = slots_[resource];
    const int units = slot.capacity < 0 ? 1 : task.units;
    free_lanes(slot, started.first_lane, units);
    if (slot.capacity >= 0)
        slot.free_units += units;
    touch(resource);
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
