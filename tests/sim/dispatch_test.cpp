// The Dispatcher's policy (sim/dispatch.hpp) against a plain re-statement of it: on random task
// graphs over slots of every shape (one unit, a few, more than one 64-bit word of lanes, and an
// unlimited link direction), every start — instant, task, sample and first lane — is the
// reference's, and no two running tasks share a lane.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "sim/dispatch.hpp"
#include "sim/exec_graph.hpp"
#include "sim/exec_index.hpp"

namespace hetsim::sim {
namespace {

struct Start {
    std::int64_t time_ps;
    int sample, task, first_lane;
    bool operator==(const Start&) const = default;
};

// Slots: capacity 1, 3, 4, 70 (two words of lanes), and an unlimited link direction.
ExecGraph random_graph(std::mt19937& rng, int tasks) {
    ExecGraph exec;
    for (int capacity : {1, 3, 4, 70}) {
        ExecResourceSlot slot;
        slot.process = "dev" + std::to_string(capacity);
        slot.thread = "exec";
        slot.capacity = capacity;
        exec.resources.push_back(slot);
    }
    ExecResourceSlot link;
    link.process = "link";
    link.thread = "a->b";
    link.capacity = 1;
    link.is_link = true;
    link.shared = true;  // starts every ready transfer at once
    exec.resources.push_back(link);
    std::uniform_int_distribution<int> slot_of(0, static_cast<int>(exec.resources.size()) - 1);
    std::uniform_int_distribution<std::int64_t> duration(1, 5);  // few values: many ties
    std::bernoulli_distribution edge(0.15);
    for (int t = 0; t < tasks; ++t) {
        Task task;
        task.name = "t" + std::to_string(t);
        task.resource = slot_of(rng);
        const ExecResourceSlot& slot = exec.resources[static_cast<std::size_t>(task.resource)];
        task.kind = slot.is_link ? TaskKind::transfer : TaskKind::compute;
        task.units = slot.is_link ? 1 : std::uniform_int_distribution<int>(1, slot.capacity)(rng);
        task.duration_ps = task.fixed_ps = duration(rng);
        task.order = t;
        exec.tasks.push_back(task);
    }
    for (int a = 0; a < tasks; ++a) {
        for (int b = a + 1; b < tasks; ++b) {
            if (edge(rng)) {
                exec.tasks[static_cast<std::size_t>(a)].successors.push_back(b);
                ++exec.tasks[static_cast<std::size_t>(b)].predecessor_count;
            }
        }
    }
    return exec;
}

// Runs the dispatcher's starts and completions in time order (each task takes its
// duration_ps), as the AnalyticEvaluator's loop does.
std::vector<Start> run_dispatcher(const ExecGraph& exec, int samples) {
    const ExecIndex index(exec);
    Dispatcher dispatcher(exec, index, samples, /*contention_free=*/false);
    using Event = std::tuple<std::int64_t, std::int64_t, StartedTask>;  // end, start order
    auto later = [](const Event& a, const Event& b) {
        return std::tie(std::get<0>(a), std::get<1>(a)) > std::tie(std::get<0>(b), std::get<1>(b));
    };
    std::priority_queue<Event, std::vector<Event>, decltype(later)> events(later);
    std::vector<Start> starts;
    std::vector<StartedTask> started;
    std::int64_t now = 0, order = 0;
    auto dispatch = [&] {
        dispatcher.start_touched(started);
        for (const StartedTask& s : started) {
            starts.push_back({now, s.instance.sample, s.instance.task, s.first_lane});
            events.emplace(now + exec.tasks[static_cast<std::size_t>(s.instance.task)].duration_ps,
                           order++, s);
        }
    };
    dispatch();
    while (!events.empty()) {
        now = std::get<0>(events.top());
        while (!events.empty() && std::get<0>(events.top()) == now) {
            dispatcher.complete(std::get<2>(events.top()));
            events.pop();
        }
        dispatch();
    }
    EXPECT_TRUE(dispatcher.all_done());
    return starts;
}

// The policy as docs/DESIGN.md states it, with sets and a lane per bool: at each instant,
// every completion due, then each slot in order starts its ready instances greedily in priority
// order (earlier samples, then lowering order), skipping one that does not fit, on the lowest
// run of idle lanes; an unlimited slot starts everything, each on the lowest idle lane.
std::vector<Start> run_reference(const ExecGraph& exec, int samples) {
    const int n = static_cast<int>(exec.tasks.size());
    struct Slot {
        int capacity;  // < 0: unlimited
        std::vector<bool> busy;
        std::set<std::pair<int, int>> ready;  // (sample, task)
    };
    std::vector<Slot> slots;
    for (const ExecResourceSlot& r : exec.resources) {
        const int capacity = r.is_link && r.shared ? -1 : r.capacity;
        slots.push_back({capacity, std::vector<bool>(capacity > 0 ? capacity : 0), {}});
    }
    std::vector<int> remaining(static_cast<std::size_t>(n * samples));
    for (int s = 0; s < samples; ++s) {
        for (int t = 0; t < n; ++t) {
            const Task& task = exec.tasks[static_cast<std::size_t>(t)];
            remaining[static_cast<std::size_t>(s * n + t)] = task.predecessor_count;
            if (task.predecessor_count == 0)
                slots[static_cast<std::size_t>(task.resource)].ready.insert({s, t});
        }
    }
    std::multimap<std::pair<std::int64_t, std::int64_t>, Start> running;  // (end, order)
    std::vector<Start> starts;
    std::int64_t now = 0, order = 0;
    auto dispatch = [&] {
        for (Slot& slot : slots) {
            for (auto it = slot.ready.begin(); it != slot.ready.end();) {
                const auto [sample, t] = *it;
                const Task& task = exec.tasks[static_cast<std::size_t>(t)];
                int lane = -1;
                if (slot.capacity < 0) {
                    lane = 0;
                    while (lane < static_cast<int>(slot.busy.size()) &&
                           slot.busy[static_cast<std::size_t>(lane)])
                        ++lane;
                    if (lane == static_cast<int>(slot.busy.size()))
                        slot.busy.push_back(false);
                    slot.busy[static_cast<std::size_t>(lane)] = true;
                } else {
                    for (int first = 0; first + task.units <= slot.capacity && lane < 0; ++first) {
                        bool idle = true;
                        for (int k = 0; k < task.units; ++k)
                            idle = idle && !slot.busy[static_cast<std::size_t>(first + k)];
                        if (idle)
                            lane = first;
                    }
                    if (lane < 0) {
                        ++it;
                        continue;
                    }
                    for (int k = 0; k < task.units; ++k)
                        slot.busy[static_cast<std::size_t>(lane + k)] = true;
                }
                const Start start{now, sample, t, lane};
                starts.push_back(start);
                running.emplace(std::make_pair(now + task.duration_ps, order++), start);
                it = slot.ready.erase(it);
            }
        }
    };
    dispatch();
    while (!running.empty()) {
        now = running.begin()->first.first;
        while (!running.empty() && running.begin()->first.first == now) {
            const Start done = running.begin()->second;
            running.erase(running.begin());
            const Task& task = exec.tasks[static_cast<std::size_t>(done.task)];
            Slot& slot = slots[static_cast<std::size_t>(task.resource)];
            const int units = slot.capacity < 0 ? 1 : task.units;
            for (int k = 0; k < units; ++k)
                slot.busy[static_cast<std::size_t>(done.first_lane + k)] = false;
            for (int succ : task.successors) {
                if (--remaining[static_cast<std::size_t>(done.sample * n + succ)] == 0) {
                    slots[static_cast<std::size_t>(
                              exec.tasks[static_cast<std::size_t>(succ)].resource)]
                        .ready.insert({done.sample, succ});
                }
            }
        }
        dispatch();
    }
    return starts;
}

TEST(Dispatcher, StartsAsThePolicyStatesOnRandomGraphs) {
    std::mt19937 rng(20261127);
    for (int trial = 0; trial < 60; ++trial) {
        const ExecGraph exec = random_graph(rng, 20 + trial * 3);
        for (int samples : {1, 3}) {
            SCOPED_TRACE("trial " + std::to_string(trial) + ", samples " + std::to_string(samples));
            const std::vector<Start> got = run_dispatcher(exec, samples);
            const std::vector<Start> want = run_reference(exec, samples);
            ASSERT_EQ(got.size(), exec.tasks.size() * static_cast<std::size_t>(samples));
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                ASSERT_EQ(got[i], want[i])
                    << "start " << i << ": got task " << got[i].task << " sample " << got[i].sample
                    << " lane " << got[i].first_lane << " at " << got[i].time_ps << ", want task "
                    << want[i].task << " sample " << want[i].sample << " lane "
                    << want[i].first_lane << " at " << want[i].time_ps;
            }
        }
    }
}

// Many transfers at once on an unlimited link direction: lanes past the first 64-bit word open
// one by one, and freed lanes are reused lowest first.
TEST(Dispatcher, UnlimitedSlotOpensLanesPastOneWord) {
    ExecGraph exec;
    ExecResourceSlot link;
    link.process = "link";
    link.thread = "a->b";
    link.is_link = true;
    link.shared = true;
    exec.resources.push_back(link);
    for (int t = 0; t < 100; ++t) {
        Task task;
        task.kind = TaskKind::transfer;
        task.resource = 0;
        task.duration_ps = task.fixed_ps = 1 + t % 2;  // odd tasks end later
        exec.tasks.push_back(task);
    }
    // Task 100 waits for task 0 (ends at 1 ps) and takes its lane 0 back.
    Task last;
    last.kind = TaskKind::transfer;
    last.resource = 0;
    last.duration_ps = last.fixed_ps = 1;
    last.predecessor_count = 1;
    exec.tasks[0].successors.push_back(100);
    exec.tasks.push_back(last);
    const std::vector<Start> starts = run_dispatcher(exec, 1);
    ASSERT_EQ(starts.size(), 101u);
    for (int t = 0; t < 100; ++t) {
        EXPECT_EQ(starts[static_cast<std::size_t>(t)], (Start{0, 0, t, t}));
    }
    EXPECT_EQ(starts[100], (Start{1, 0, 100, 0}));
}

}  // namespace
}  // namespace hetsim::sim
