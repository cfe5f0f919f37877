// The pending events of an evaluator's run (a task's end, the end of its fixed phase), the
// earliest first and, at equal times, in push order: both evaluators process simultaneous
// events in the same deterministic order.
//
// Why not std::priority_queue<Event>: an event (time, order, StartedTask, a flag) is a 29-byte
// struct, written field by field and then copied with 16-byte moves at every sift, so every
// push and pop stalled on store-to-load forwarding (des_bench under perf: a fifth of the DES's
// own time). Here the heap holds 16-byte keys (time, push order and payload slot, each an
// 8-byte word) and the payloads sit still in a pool.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hetsim::sim {

template <typename Payload>
class EventQueue {
public:
    bool empty() const { return heap_.empty(); }
    std::int64_t top_time_ps() const { return heap_.front().time_ps; }
    // How many events were pushed before the top one (its push order).
    std::uint64_t top_sequence() const { return heap_.front().order >> kSlotBits; }
    const Payload& top() const { return pool_[slot_of(heap_.front())]; }
    std::uint64_t pushed() const { return sequence_; }

    void push(std::int64_t time_ps, const Payload& payload) {
        std::uint32_t slot;
        if (!free_.empty()) {
            slot = free_.back();
            free_.pop_back();
            pool_[slot] = payload;
        } else {
            if (pool_.size() >= kMaxSlots)
                throw std::length_error("EventQueue: more than 2^27 pending events");
            slot = static_cast<std::uint32_t>(pool_.size());
            pool_.push_back(payload);
        }
        // Sift up: move parents down into the hole, then write the key once.
        const Key key{time_ps, (sequence_++ << kSlotBits) | slot};
        std::size_t hole = heap_.size();
        heap_.push_back(key);
        while (hole > 0) {
            const std::size_t parent = (hole - 1) / 2;
            if (!less(key, heap_[parent]))
                break;
            heap_[hole] = heap_[parent];
            hole = parent;
        }
        heap_[hole] = key;
    }

    // Removes the top event and returns its payload.
    Payload pop() {
        const std::uint32_t slot = slot_of(heap_.front());
        free_.push_back(slot);
        const Key last = heap_.back();
        heap_.pop_back();
        const std::size_t n = heap_.size();
        if (n > 0) {
            // Sift the last key down from the root.
            std::size_t hole = 0;
            for (;;) {
                std::size_t child = 2 * hole + 1;
                if (child >= n)
                    break;
                if (child + 1 < n && less(heap_[child + 1], heap_[child]))
                    ++child;
                if (!less(heap_[child], last))
                    break;
                heap_[hole] = heap_[child];
                hole = child;
            }
            heap_[hole] = last;
        }
        return pool_[slot];
    }

    void clear() {
        heap_.clear();
        pool_.clear();
        free_.clear();
        sequence_ = 0;
    }

private:
    // Pending events never outnumber a run's task instances, which check_run_limits keeps
    // under 2^27; 37 bits of push order allow 10^11 pushes in a run.
    static constexpr int kSlotBits = 27;
    static constexpr std::size_t kMaxSlots = std::size_t{1} << kSlotBits;
    struct Key {
        std::int64_t time_ps;
        std::uint64_t order;  // push sequence << kSlotBits | payload slot: unique
    };
    static bool less(const Key& a, const Key& b) {
        return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.order < b.order;
    }
    static std::uint32_t slot_of(const Key& k) {
        return static_cast<std::uint32_t>(k.order & (kMaxSlots - 1));
    }
    std::vector<Key> heap_;
    std::vector<Payload> pool_;
    std::vector<std::uint32_t> free_;
    std::uint64_t sequence_ = 0;
};

}  // namespace hetsim::sim
