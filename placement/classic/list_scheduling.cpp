#include "placement/classic/list_scheduling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

#include "placement/placer_args.hpp"
#include "sim/transfer_cost.hpp"

namespace hetsim::placement::classic {

bool cost_less(double a, double b) {
    if (std::isinf(a) || std::isinf(b))
        return a < b;
    return a < b - 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

bool cost_equal(double a, double b) {
    return !cost_less(a, b) && !cost_less(b, a);
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One processor's busy intervals, for insertion-based scheduling (HEFT §4.1: a task may take
// the earliest idle slot between two scheduled tasks that is long enough).
class Timeline {
public:
    // The earliest start >= ready of a slot of `duration`; with insertion, idle gaps count.
    double earliest(double ready, double duration, bool insertion) const {
        if (!insertion)
            return std::max(ready, busy_.empty() ? 0.0 : busy_.back().second);
        // Intervals do not overlap, so their finishes are sorted too: skip those that end by
        // `ready` (a binary search), then take the first gap long enough.
        auto it = std::partition_point(busy_.begin(), busy_.end(),
                                       [&](const auto& b) { return b.second <= ready; });
        double t = ready;
        for (; it != busy_.end(); ++it) {
            if (!cost_less(it->first, t + duration))  // fits before this interval
                return t;
            t = std::max(t, it->second);
        }
        return t;
    }
    void add(double start, double finish) {
        const auto at = std::lower_bound(busy_.begin(), busy_.end(), std::make_pair(start, finish));
        busy_.insert(at, {start, finish});
    }
    double last_finish() const { return busy_.empty() ? 0.0 : busy_.back().second; }

private:
    std::vector<std::pair<double, double>> busy_;  // sorted by start
};

// A schedule under construction.
struct Builder {
    const SchedulingProblem& p;
    ListSchedule s;
    std::vector<Timeline> timelines;
    std::vector<bool> done;

    explicit Builder(const SchedulingProblem& problem)
        : p(problem),
          timelines(static_cast<std::size_t>(problem.processors)),
          done(static_cast<std::size_t>(problem.tasks), false) {
        s.processor.assign(static_cast<std::size_t>(p.tasks), -1);
        s.start.assign(static_cast<std::size_t>(p.tasks), 0.0);
        s.finish.assign(static_cast<std::size_t>(p.tasks), 0.0);
    }

    // When all of t's inputs can be on processor q.
    double data_ready(int t, int q) const {
        double ready = p.input_ready[static_cast<std::size_t>(t)][static_cast<std::size_t>(q)];
        for (int e : p.in_edges[static_cast<std::size_t>(t)]) {
            const auto& edge = p.edges[static_cast<std::size_t>(e)];
            const auto from = static_cast<std::size_t>(edge.from);
            ready = std::max(ready, s.finish[from] + p.comm(edge, s.processor[from], q));
        }
        return ready;
    }
    double cost(int t, int q) const {
        return p.cost[static_cast<std::size_t>(t)][static_cast<std::size_t>(q)];
    }
    double start_on(int t, int q, bool insertion) const {
        return timelines[static_cast<std::size_t>(q)].earliest(data_ready(t, q), cost(t, q),
                                                               insertion);
    }
    void place(int t, int q, double start) {
        const auto i = static_cast<std::size_t>(t);
        s.processor[i] = q;
        s.start[i] = start;
        s.finish[i] = start + cost(t, q);
        timelines[static_cast<std::size_t>(q)].add(s.start[i], s.finish[i]);
        done[i] = true;
        s.placed.push_back(t);
    }
    bool ready(int t) const {
        for (int e : p.in_edges[static_cast<std::size_t>(t)]) {
            if (!done[static_cast<std::size_t>(p.edges[static_cast<std::size_t>(e)].from)])
                return false;
        }
        return !done[static_cast<std::size_t>(t)];
    }
    // The processor with the least `score(q)` (ties to the lower index).
    template <typename Score>
    int best_processor(int t, Score score) const {
        int best = -1;
        double best_score = kInf;
        for (int q = 0; q < p.processors; ++q) {
            if (std::isinf(cost(t, q)))
                continue;
            const double v = score(q);
            if (best < 0 || cost_less(v, best_score)) {
                best = q;
                best_score = v;
            }
        }
        if (best < 0)
            throw PlacementError(fmt::format("task {} runs on no processor", t));
        return best;
    }
    // Insertion-based earliest finish (HEFT, CPOP's non-critical tasks).
    void place_by_eft(int t) {
        const int q = best_processor(t, [&](int r) { return start_on(t, r, true) + cost(t, r); });
        place(t, q, start_on(t, q, true));
    }
};

// Repeatedly the ready task with the highest priority (ties to the lower id), placed by
// `place(t)`: the ready-list form every rank-based scheduler here shares. The ready list is
// scanned each step: O(n x width), and ties are judged with the same tolerance everywhere.
template <typename Place>
ListSchedule by_priority(const SchedulingProblem& p, const std::vector<double>& priority,
                         Builder& b, Place place) {
    std::vector<int> waiting(static_cast<std::size_t>(p.tasks));
    std::vector<int> ready;
    for (int t = 0; t < p.tasks; ++t) {
        waiting[static_cast<std::size_t>(t)] =
            static_cast<int>(p.in_edges[static_cast<std::size_t>(t)].size());
        if (waiting[static_cast<std::size_t>(t)] == 0)
            ready.push_back(t);
    }
    while (!ready.empty()) {
        std::size_t pick = 0;
        for (std::size_t k = 1; k < ready.size(); ++k) {
            const double a = priority[static_cast<std::size_t>(ready[pick])];
            const double c = priority[static_cast<std::size_t>(ready[k])];
            if (cost_less(a, c) || (cost_equal(a, c) && ready[k] < ready[pick]))
                pick = k;
        }
        const int t = ready[pick];
        ready[pick] = ready.back();
        ready.pop_back();
        place(t);
        for (int e : p.out_edges[static_cast<std::size_t>(t)]) {
            const int to = p.edges[static_cast<std::size_t>(e)].to;
            if (--waiting[static_cast<std::size_t>(to)] == 0)
                ready.push_back(to);
        }
    }
    return b.s;
}

// Tasks in a topological order of the edges (Kahn, lower id first).
std::vector<int> topological(const SchedulingProblem& p) {
    std::vector<int> indegree(static_cast<std::size_t>(p.tasks), 0);
    for (const auto& e : p.edges)
        ++indegree[static_cast<std::size_t>(e.to)];
    std::vector<int> order, ready;
    for (int t = 0; t < p.tasks; ++t) {
        if (indegree[static_cast<std::size_t>(t)] == 0)
            ready.push_back(t);
    }
    while (!ready.empty()) {
        const auto it = std::min_element(ready.begin(), ready.end());
        const int t = *it;
        ready.erase(it);
        order.push_back(t);
        for (int e : p.out_edges[static_cast<std::size_t>(t)]) {
            const int to = p.edges[static_cast<std::size_t>(e)].to;
            if (--indegree[static_cast<std::size_t>(to)] == 0)
                ready.push_back(to);
        }
    }
    return order;
}

}  // namespace

double SchedulingProblem::mean_cost(int task) const {
    double sum = 0.0;
    int n = 0;
    for (double c : cost[static_cast<std::size_t>(task)]) {
        if (std::isinf(c))
            continue;
        sum += c;
        ++n;
    }
    return n > 0 ? sum / n : kInf;
}

double ListSchedule::makespan() const {
    return finish.empty() ? 0.0 : *std::max_element(finish.begin(), finish.end());
}

SchedulingProblem scheduling_problem(const sim::Graph& graph, const sim::Platform& platform) {
    SchedulingProblem p;
    p.tasks = graph.op_count();
    p.processors = static_cast<int>(platform.resources().size());
    const auto P = static_cast<std::size_t>(p.processors);
    std::vector<int> representative(P, -1);
    for (int r = 0; r < p.processors; ++r) {
        const std::vector<int> devices = platform.devices_on_resource(r);
        if (!devices.empty())
            representative[static_cast<std::size_t>(r)] = devices.front();
    }
    p.cost.assign(static_cast<std::size_t>(p.tasks), std::vector<double>(P, kInf));
    p.device.assign(static_cast<std::size_t>(p.tasks), std::vector<int>(P, -1));
    for (int t = 0; t < p.tasks; ++t) {
        const sim::Op& op = graph.op(t);
        for (int r = 0; r < p.processors; ++r) {
            // The fastest mode of the processor (ties to the lower device index).
            for (int d : platform.devices_on_resource(r)) {
                const sim::Device& device = platform.device(d);
                if (!device.model->supports(graph, op).ok)
                    continue;
                const double c = device.model->op_time_s(graph, op);
                auto& best = p.cost[static_cast<std::size_t>(t)][static_cast<std::size_t>(r)];
                if (cost_less(c, best) || std::isinf(best)) {
                    best = c;
                    p.device[static_cast<std::size_t>(t)][static_cast<std::size_t>(r)] = d;
                }
            }
        }
        if (std::all_of(p.cost[static_cast<std::size_t>(t)].begin(),
                        p.cost[static_cast<std::size_t>(t)].end(),
                        [](double c) { return std::isinf(c); })) {
            (void)capable_devices(graph, platform, t);  // throws with every device's reason
        }
    }
    // Seconds to move `tensor` from processor a to b, each holding it as its first device does.
    std::map<std::tuple<int, int, int>, double> moves;
    const auto move_s = [&](int tensor, int a, int b) {
        if (a == b)
            return 0.0;
        const auto key = std::make_tuple(tensor, a, b);
        if (const auto it = moves.find(key); it != moves.end())
            return it->second;
        double s = kInf;
        try {
            s = sim::transfer_cost(platform, representative[static_cast<std::size_t>(a)],
                                   representative[static_cast<std::size_t>(b)],
                                   graph.tensor(tensor))
                    .seconds();
        } catch (const std::exception&) {
            s = kInf;  // no route: the pair cannot feed each other
        }
        moves.emplace(key, s);
        return s;
    };
    p.in_edges.resize(static_cast<std::size_t>(p.tasks));
    p.out_edges.resize(static_cast<std::size_t>(p.tasks));
    p.input_ready.assign(static_cast<std::size_t>(p.tasks), std::vector<double>(P, 0.0));
    const int host = sim::first_device(platform, platform.host_component);
    const int host_resource = host >= 0 ? platform.device(host).resource : -1;
    for (int t = 0; t < p.tasks; ++t) {
        std::map<int, std::vector<int>> tensors_from;  // producer -> tensors it sends t
        for (int tensor : graph.op(t).inputs) {
            const sim::Tensor& x = graph.tensor(tensor);
            if (x.kind == sim::TensorKind::input && host_resource >= 0) {
                for (int q = 0; q < p.processors; ++q) {
                    auto& ready =
                        p.input_ready[static_cast<std::size_t>(t)][static_cast<std::size_t>(q)];
                    ready = std::max(ready, move_s(tensor, host_resource, q));
                }
            }
            if (x.producer >= 0) {
                auto& list = tensors_from[x.producer];
                if (std::find(list.begin(), list.end(), tensor) == list.end())
                    list.push_back(tensor);
            }
        }
        for (const auto& [from, tensors] : tensors_from) {
            SchedulingProblem::Edge e;
            e.from = from;
            e.to = t;
            e.comm.assign(P * P, 0.0);
            double sum = 0.0;
            int pairs = 0;
            for (int a = 0; a < p.processors; ++a) {
                for (int b = 0; b < p.processors; ++b) {
                    if (a == b)
                        continue;
                    double c = 0.0;
                    for (int tensor : tensors)
                        c += move_s(tensor, a, b);
                    e.comm[static_cast<std::size_t>(a * p.processors + b)] = c;
                    if (std::isfinite(c)) {
                        sum += c;
                        ++pairs;
                    }
                }
            }
            e.mean_comm = pairs > 0 ? sum / pairs : 0.0;
            const int index = static_cast<int>(p.edges.size());
            p.edges.push_back(std::move(e));
            p.in_edges[static_cast<std::size_t>(t)].push_back(index);
            p.out_edges[static_cast<std::size_t>(from)].push_back(index);
        }
    }
    return p;
}

SchedulingProblem scheduling_problem(const std::vector<std::vector<double>>& cost,
                                     const std::vector<GivenEdge>& edges) {
    SchedulingProblem p;
    p.tasks = static_cast<int>(cost.size());
    p.processors = cost.empty() ? 0 : static_cast<int>(cost.front().size());
    const auto P = static_cast<std::size_t>(p.processors);
    p.cost = cost;
    p.device.assign(cost.size(), std::vector<int>(P, -1));
    for (std::size_t t = 0; t < cost.size(); ++t) {
        if (cost[t].size() != P)
            throw std::invalid_argument(
                fmt::format("task {} has {} costs, expected {}", t, cost[t].size(), P));
        for (std::size_t q = 0; q < P; ++q)
            p.device[t][q] = std::isinf(cost[t][q]) ? -1 : static_cast<int>(q);
    }
    p.in_edges.resize(cost.size());
    p.out_edges.resize(cost.size());
    p.input_ready.assign(cost.size(), std::vector<double>(P, 0.0));
    for (const GivenEdge& g : edges) {
        if (g.from < 0 || g.to < 0 || g.from >= p.tasks || g.to >= p.tasks)
            throw std::invalid_argument(fmt::format("edge {} -> {}: no such task", g.from, g.to));
        SchedulingProblem::Edge e{g.from, g.to, std::vector<double>(P * P, g.comm_s), g.comm_s};
        for (std::size_t q = 0; q < P; ++q)
            e.comm[q * P + q] = 0.0;
        const int index = static_cast<int>(p.edges.size());
        p.in_edges[static_cast<std::size_t>(g.to)].push_back(index);
        p.out_edges[static_cast<std::size_t>(g.from)].push_back(index);
        p.edges.push_back(std::move(e));
    }
    return p;
}

double schedule_length_ratio(const SchedulingProblem& p, double makespan) {
    std::vector<double> longest(static_cast<std::size_t>(p.tasks), 0.0);
    double cp = 0.0;
    for (int t : topological(p)) {
        const auto& row = p.cost[static_cast<std::size_t>(t)];
        double head = 0.0;
        for (int e : p.in_edges[static_cast<std::size_t>(t)])
            head = std::max(
                head, longest[static_cast<std::size_t>(p.edges[static_cast<std::size_t>(e)].from)]);
        longest[static_cast<std::size_t>(t)] = head + *std::min_element(row.begin(), row.end());
        cp = std::max(cp, longest[static_cast<std::size_t>(t)]);
    }
    return cp > 0.0 ? makespan / cp : 0.0;
}

std::vector<double> upward_rank(const SchedulingProblem& p) {
    // Topcuoglu Eq. 3: rank_u(i) = w_i + max over successors j of (c_ij + rank_u(j)), on mean
    // costs (w: over the processors that can run i; c: over distinct processor pairs).
    std::vector<double> rank(static_cast<std::size_t>(p.tasks), 0.0);
    const std::vector<int> order = topological(p);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int t = *it;
        double tail = 0.0;
        for (int e : p.out_edges[static_cast<std::size_t>(t)]) {
            const auto& edge = p.edges[static_cast<std::size_t>(e)];
            tail = std::max(tail, edge.mean_comm + rank[static_cast<std::size_t>(edge.to)]);
        }
        rank[static_cast<std::size_t>(t)] = p.mean_cost(t) + tail;
    }
    return rank;
}

std::vector<double> downward_rank(const SchedulingProblem& p) {
    // Topcuoglu Eq. 4: rank_d(i) = max over predecessors j of (rank_d(j) + w_j + c_ji): the
    // predecessor's mean cost, not the task's own.
    std::vector<double> rank(static_cast<std::size_t>(p.tasks), 0.0);
    for (int t : topological(p)) {
        double head = 0.0;
        for (int e : p.in_edges[static_cast<std::size_t>(t)]) {
            const auto& edge = p.edges[static_cast<std::size_t>(e)];
            head = std::max(head, rank[static_cast<std::size_t>(edge.from)] +
                                      p.mean_cost(edge.from) + edge.mean_comm);
        }
        rank[static_cast<std::size_t>(t)] = head;
    }
    return rank;
}

std::vector<std::vector<double>> optimistic_cost_table(const SchedulingProblem& p) {
    // Arabnejad and Barbosa Eq. 5: OCT(t_i, p_k) = max over successors t_j of
    // min over p_w of (OCT(t_j, p_w) + w(t_j, p_w) + c_ij), c_ij = 0 when p_w = p_k; exit
    // tasks 0. The successor's cost is in, the task's own is not.
    const auto P = static_cast<std::size_t>(p.processors);
    std::vector<std::vector<double>> oct(static_cast<std::size_t>(p.tasks),
                                         std::vector<double>(P, 0.0));
    const std::vector<int> order = topological(p);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int t = *it;
        for (int k = 0; k < p.processors; ++k) {
            double worst = 0.0;
            for (int e : p.out_edges[static_cast<std::size_t>(t)]) {
                const auto& edge = p.edges[static_cast<std::size_t>(e)];
                const auto j = static_cast<std::size_t>(edge.to);
                double best = kInf;
                for (int w = 0; w < p.processors; ++w) {
                    const double c = p.cost[j][static_cast<std::size_t>(w)];
                    if (std::isinf(c))
                        continue;
                    best = std::min(best, oct[j][static_cast<std::size_t>(w)] + c +
                                              (w == k ? 0.0 : edge.mean_comm));
                }
                worst = std::max(worst, best);
            }
            oct[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] = worst;
        }
    }
    return oct;
}

ListSchedule heft(const SchedulingProblem& p) {
    Builder b(p);
    return by_priority(p, upward_rank(p), b, [&](int t) { b.place_by_eft(t); });
}

ListSchedule cpop(const SchedulingProblem& p) {
    const std::vector<double> up = upward_rank(p), down = downward_rank(p);
    std::vector<double> priority(static_cast<std::size_t>(p.tasks));
    for (std::size_t t = 0; t < priority.size(); ++t)
        priority[t] = up[t] + down[t];
    // The critical path: from the entry task of highest priority (|CP|), each time the
    // successor whose priority equals |CP| (ties to the lower id), to an exit task.
    std::vector<bool> critical(static_cast<std::size_t>(p.tasks), false);
    int t = -1;
    for (int s = 0; s < p.tasks; ++s) {
        if (p.in_edges[static_cast<std::size_t>(s)].empty() &&
            (t < 0 || cost_less(priority[static_cast<std::size_t>(t)],
                                priority[static_cast<std::size_t>(s)])))
            t = s;
    }
    const double cp = t >= 0 ? priority[static_cast<std::size_t>(t)] : 0.0;
    while (t >= 0) {
        critical[static_cast<std::size_t>(t)] = true;
        int next = -1;
        for (int e : p.out_edges[static_cast<std::size_t>(t)]) {
            const int j = p.edges[static_cast<std::size_t>(e)].to;
            if (cost_equal(priority[static_cast<std::size_t>(j)], cp) && (next < 0 || j < next))
                next = j;
        }
        t = next;
    }
    // The processor that runs the whole critical path fastest (ties to the lower index).
    int cp_processor = -1;
    double best = kInf;
    for (int q = 0; q < p.processors; ++q) {
        double sum = 0.0;
        for (int s = 0; s < p.tasks; ++s) {
            if (critical[static_cast<std::size_t>(s)])
                sum += p.cost[static_cast<std::size_t>(s)][static_cast<std::size_t>(q)];
        }
        if (cp_processor < 0 || cost_less(sum, best)) {
            cp_processor = q;
            best = sum;
        }
    }
    Builder b(p);
    return by_priority(p, priority, b, [&](int s) {
        if (critical[static_cast<std::size_t>(s)] && std::isfinite(b.cost(s, cp_processor)))
            b.place(s, cp_processor, b.start_on(s, cp_processor, true));
        else
            b.place_by_eft(s);
    });
}

ListSchedule peft(const SchedulingProblem& p) {
    const std::vector<std::vector<double>> oct = optimistic_cost_table(p);
    // rank_oct: the mean OCT over the processors that can run the task.
    std::vector<double> rank(static_cast<std::size_t>(p.tasks), 0.0);
    for (int t = 0; t < p.tasks; ++t) {
        double sum = 0.0;
        int n = 0;
        for (int q = 0; q < p.processors; ++q) {
            if (std::isinf(p.cost[static_cast<std::size_t>(t)][static_cast<std::size_t>(q)]))
                continue;
            sum += oct[static_cast<std::size_t>(t)][static_cast<std::size_t>(q)];
            ++n;
        }
        rank[static_cast<std::size_t>(t)] = n > 0 ? sum / n : 0.0;
    }
    Builder b(p);
    return by_priority(p, rank, b, [&](int t) {
        // O_EFT = EFT + OCT (insertion-based EFT).
        const int q = b.best_processor(t, [&](int r) {
            return b.start_on(t, r, true) + b.cost(t, r) +
                   oct[static_cast<std::size_t>(t)][static_cast<std::size_t>(r)];
        });
        b.place(t, q, b.start_on(t, q, true));
    });
}

MemoryLimits memory_limits(const sim::Graph& graph, const sim::Platform& platform) {
    MemoryLimits m;
    const int processors = static_cast<int>(platform.resources().size());
    std::vector<int> representative(static_cast<std::size_t>(processors), -1);
    for (int r = 0; r < processors; ++r) {
        const std::vector<int> devices = platform.devices_on_resource(r);
        if (!devices.empty())
            representative[static_cast<std::size_t>(r)] = devices.front();
        const sim::Component* c =
            devices.empty() ? nullptr
                            : platform.find_component(platform.device(devices.front()).component);
        m.capacity.push_back(c ? c->memory_bytes : 0);
    }
    for (int t = 0; t < graph.op_count(); ++t) {
        const sim::Op& op = graph.op(t);
        std::vector<std::int64_t> out(static_cast<std::size_t>(processors), 0);
        for (int r = 0; r < processors; ++r) {
            const int d = representative[static_cast<std::size_t>(r)];
            for (int tensor : op.outputs) {
                const sim::Tensor& x = graph.tensor(tensor);
                out[static_cast<std::size_t>(r)] +=
                    d < 0 ? x.size_bytes()
                          : x.elements() *
                                sim::dtype_size_bytes(sim::dtype_on(platform.device(d), x.dtype));
            }
        }
        m.output_bytes.push_back(std::move(out));
        std::vector<std::pair<int, std::int64_t>> weights;
        for (int tensor : op.inputs) {
            const sim::Tensor& x = graph.tensor(tensor);
            if (x.kind == sim::TensorKind::weight)
                weights.push_back({tensor, x.size_bytes()});
        }
        m.weights.push_back(std::move(weights));
    }
    return m;
}

ListSchedule etf(const SchedulingProblem& p, const MemoryLimits* limits) {
    // Each step: among ready tasks and processors, the pair that can start earliest (no
    // insertion: a processor is free after its last task); ties to the higher static level
    // (upward rank), then the lower task id, then the lower processor index.
    const std::vector<double> level = upward_rank(p);
    Builder b(p);
    const auto P = static_cast<std::size_t>(p.processors);
    std::vector<std::int64_t> used(P, 0);
    std::vector<std::set<int>> resident(P);  // weights already on each processor
    const auto needs = [&](int t, int q) {
        std::int64_t bytes =
            limits->output_bytes[static_cast<std::size_t>(t)][static_cast<std::size_t>(q)];
        for (const auto& [tensor, size] : limits->weights[static_cast<std::size_t>(t)]) {
            if (!resident[static_cast<std::size_t>(q)].count(tensor))
                bytes += size;
        }
        return bytes;
    };
    const auto fits = [&](int t, int q) {
        const std::int64_t cap = limits->capacity[static_cast<std::size_t>(q)];
        return cap <= 0 || used[static_cast<std::size_t>(q)] + needs(t, q) <= cap;
    };
    for (int placed = 0; placed < p.tasks; ++placed) {
        int best_t = -1, best_q = -1, blocked = -1;
        double best_start = kInf;
        for (int t = 0; t < p.tasks; ++t) {
            if (!b.ready(t))
                continue;
            for (int q = 0; q < p.processors; ++q) {
                if (std::isinf(b.cost(t, q)))
                    continue;
                if (limits && !fits(t, q)) {
                    blocked = blocked < 0 ? t : blocked;
                    continue;
                }
                const double start = b.start_on(t, q, false);
                const bool better = best_t < 0 || cost_less(start, best_start) ||
                                    (cost_equal(start, best_start) &&
                                     (cost_less(level[static_cast<std::size_t>(best_t)],
                                                level[static_cast<std::size_t>(t)]) ||
                                      (cost_equal(level[static_cast<std::size_t>(best_t)],
                                                  level[static_cast<std::size_t>(t)]) &&
                                       t < best_t)));
                if (better) {
                    best_t = t;
                    best_q = q;
                    best_start = start;
                }
            }
        }
        if (best_t < 0) {
            std::vector<std::string> left;
            for (int q = 0; q < p.processors; ++q) {
                left.push_back(fmt::format("{}: {} of {} bytes free, it needs {}", q,
                                           limits->capacity[static_cast<std::size_t>(q)] -
                                               used[static_cast<std::size_t>(q)],
                                           limits->capacity[static_cast<std::size_t>(q)],
                                           needs(blocked, q)));
            }
            throw PlacementError(
                fmt::format("nothing fits: task {} fits in no processor's memory ({})", blocked,
                            fmt::join(left, "; ")));
        }
        if (limits) {
            used[static_cast<std::size_t>(best_q)] += needs(best_t, best_q);
            for (const auto& [tensor, size] : limits->weights[static_cast<std::size_t>(best_t)])
                resident[static_cast<std::size_t>(best_q)].insert(tensor);
        }
        b.place(best_t, best_q, best_start);
    }
    return b.s;
}

sim::Placement to_placement(const SchedulingProblem& problem, const ListSchedule& s) {
    sim::Placement placement;
    const auto n = static_cast<std::size_t>(problem.tasks);
    placement.device_of_op.resize(n);
    placement.schedule.order.resize(static_cast<std::size_t>(problem.processors));
    placement.schedule.planned_start_s = s.start;
    placement.schedule.planned_finish_s = s.finish;
    for (std::size_t t = 0; t < n; ++t) {
        placement.device_of_op[t] = problem.device[t][static_cast<std::size_t>(s.processor[t])];
        placement.schedule.order[static_cast<std::size_t>(s.processor[t])].push_back(
            static_cast<int>(t));
    }
    // Each processor's tasks by planned start; equal starts (zero-time tasks) in the order the
    // scheduler placed them, which respects the graph.
    std::vector<int> position(n);
    for (std::size_t k = 0; k < s.placed.size(); ++k)
        position[static_cast<std::size_t>(s.placed[k])] = static_cast<int>(k);
    for (auto& order : placement.schedule.order) {
        std::sort(order.begin(), order.end(), [&](int a, int b) {
            const auto i = static_cast<std::size_t>(a), j = static_cast<std::size_t>(b);
            return s.start[i] != s.start[j] ? s.start[i] < s.start[j] : position[i] < position[j];
        });
    }
    return placement;
}

// --- the placer -------------------------------------------------------------------------------

namespace {

const char* algorithm_name(ListAlgorithm a) {
    switch (a) {
        case ListAlgorithm::heft:
            return "heft";
        case ListAlgorithm::cpop:
            return "cpop";
        case ListAlgorithm::peft:
            return "peft";
        case ListAlgorithm::etf:
            return "etf";
    }
    return "heft";
}

}  // namespace

ListSchedulerPlacer::ListSchedulerPlacer(ListAlgorithm algorithm, const std::string& arguments)
    : algorithm_(algorithm) {
    ArgumentSchema(algorithm_name(algorithm)).parse(arguments);  // none: a clear error for any
}

std::string ListSchedulerPlacer::name() const {
    return algorithm_name(algorithm_);
}

PlacerInfo ListSchedulerPlacer::info(ListAlgorithm algorithm) {
    const char* description = "";
    switch (algorithm) {
        case ListAlgorithm::heft:
            description =
                "HEFT (Topcuoglu, Hariri, Wu, IEEE TPDS 2002): upward rank on mean costs, "
                "insertion-based earliest finish; rank ties to the lower op id, processor ties "
                "to the lower resource index";
            break;
        case ListAlgorithm::cpop:
            description =
                "CPOP (Topcuoglu et al. 2002): upward + downward rank, the critical path on the "
                "processor that runs it fastest, other tasks by insertion-based EFT; ties as HEFT";
            break;
        case ListAlgorithm::peft:
            description =
                "PEFT (Arabnejad, Barbosa, IEEE TPDS 2014): optimistic cost table, rank = mean "
                "OCT, processor = argmin EFT + OCT; ties as HEFT";
            break;
        case ListAlgorithm::etf:
            description =
                "ETF (Hwang et al., SIAM J. Comput. 1989): the ready task and processor that "
                "start earliest; ties to the higher upward rank, then the lower op id, then the "
                "lower resource index";
            break;
    }
    const std::string name = algorithm_name(algorithm);
    return PlacerInfo{name, name, description, [algorithm](const std::string& a) {
                          return std::make_unique<ListSchedulerPlacer>(algorithm, a);
                      }};
}

PlacementResult ListSchedulerPlacer::place(const PlacementContext& context) {
    const sim::Graph& graph = context.graph;
    const SchedulingProblem problem = scheduling_problem(graph, context.platform);
    ListSchedule s;
    switch (algorithm_) {
        case ListAlgorithm::heft:
            s = heft(problem);
            break;
        case ListAlgorithm::cpop:
            s = cpop(problem);
            break;
        case ListAlgorithm::peft:
            s = peft(problem);
            break;
        case ListAlgorithm::etf:
            s = etf(problem);
            break;
    }
    PlacementResult result;
    result.placement = to_placement(problem, s);
    result.stats["processors"] = std::to_string(problem.processors);
    return result;
}

}  // namespace hetsim::placement::classic
