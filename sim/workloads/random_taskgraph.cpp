#include "sim/workloads/random_taskgraph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>

#include "sim/op_table.hpp"
#include "sim/random.hpp"

namespace hetsim::sim::workloads {

namespace {

void require(bool ok, const char* knob, const std::string& what) {
    if (!ok)
        throw std::invalid_argument(fmt::format("random_taskgraph: {} {}", knob, what));
}

}  // namespace

RandomTaskGraph random_taskgraph(const RandomTaskGraphConfig& c) {
    require(c.tasks >= 1 && c.tasks <= 1'000'000, "tasks", "must be in 1..1000000");
    require(c.processors >= 1 && c.processors <= 4096, "processors", "must be in 1..4096");
    require(c.fat >= 0.0 && c.fat <= 1.0, "fat", "must be in [0, 1]");
    require(c.density >= 0.0 && c.density <= 1.0, "density", "must be in [0, 1]");
    require(c.regularity >= 0.0 && c.regularity <= 1.0, "regularity", "must be in [0, 1]");
    require(c.jump >= 1, "jump", "must be >= 1");
    require(c.ccr >= 0.0 && std::isfinite(c.ccr), "ccr", "must be >= 0");
    require(c.beta >= 0.0 && c.beta <= 2.0, "beta", "must be in [0, 2]");
    require(c.mean_cost_s > 0.0 && std::isfinite(c.mean_cost_s), "mean_cost", "must be > 0");
    const std::int64_t costs = std::int64_t{c.tasks} * c.processors;
    if (costs > kMaxRandomTaskGraphCosts) {
        throw std::invalid_argument(fmt::format(
            "random_taskgraph: tasks {} x processors {} = {} task costs, over the limit of {}: "
            "lower tasks or processors",
            c.tasks, c.processors, costs, kMaxRandomTaskGraphCosts));
    }

    // One generator, drawn from in a fixed order, through hetsim's portable draws
    // (sim/random.hpp): the graph depends on the knobs and the seed only.
    std::mt19937_64 rng(c.seed);
    const auto uniform = [&](double lo, double hi) {
        return lo + (hi - lo) * sim::uniform_unit(rng);
    };

    RandomTaskGraph g;
    g.processors = c.processors;
    // Levels (DAGGEN): each about n^fat wide, varied by the regularity. Tasks are numbered level
    // by level, so level l is the ids [first[l], first[l + 1]).
    const double width = std::max(1.0, std::exp(c.fat * std::log(static_cast<double>(c.tasks))));
    std::vector<int> first{0};
    while (first.back() < c.tasks) {
        const int made = first.back();
        const double spread = 1.0 - c.regularity;
        int size = static_cast<int>(std::lround(width * uniform(1.0 - spread, 1.0 + spread)));
        size = std::clamp(size, 1, c.tasks - made);
        g.level.insert(g.level.end(), static_cast<std::size_t>(size),
                       static_cast<int>(first.size()) - 1);
        first.push_back(made + size);
    }
    const std::size_t levels = first.size() - 1;
    // The candidate parents of a task in level l: the tasks of the `jump` levels above it, the
    // ids [first[l - jump], first[l]) (from 0 near the top).
    const auto candidates_from = [&](std::size_t l) {
        return first[l > static_cast<std::size_t>(c.jump) ? l - static_cast<std::size_t>(c.jump)
                                                          : 0];
    };
    // A task gets at most 1 + floor(density x candidates) parents (below): the most edges these
    // levels allow, counted before a cost or an edge is drawn, so that a dense, fat graph is
    // refused at once instead of exhausting memory.
    std::int64_t most_edges = 0;
    for (std::size_t l = 1; l < levels; ++l) {
        const std::int64_t candidates = first[l] - candidates_from(l);
        const auto extra =
            static_cast<std::int64_t>(std::floor(c.density * static_cast<double>(candidates)));
        most_edges += std::int64_t{first[l + 1] - first[l]} * std::min(1 + extra, candidates);
    }
    if (most_edges > kMaxRandomTaskGraphEdges) {
        throw std::invalid_argument(fmt::format(
            "random_taskgraph: tasks {}, fat {:g} %, density {:g} % and jump {} allow up to {} "
            "edges, over the limit of {}: lower tasks, fat, density or jump",
            c.tasks, c.fat * 100.0, c.density * 100.0, c.jump, most_edges,
            kMaxRandomTaskGraphEdges));
    }
    // Costs (Topcuoglu §5.1): w_i ~ U[0, 2 w_DAG], w_ij ~ U[w_i (1 - beta/2), w_i (1 + beta/2)].
    g.cost.resize(static_cast<std::size_t>(c.tasks));
    for (int t = 0; t < c.tasks; ++t) {
        const double w = uniform(0.0, 2.0 * c.mean_cost_s);
        std::vector<double>& row = g.cost[static_cast<std::size_t>(t)];
        row.reserve(static_cast<std::size_t>(c.processors));
        for (int p = 0; p < c.processors; ++p)
            row.push_back(uniform(w * (1.0 - c.beta / 2.0), w * (1.0 + c.beta / 2.0)));
    }
    // Edges (DAGGEN): each task below the first level gets 1 + up to density x (the tasks of
    // the `jump` levels above it) parents, drawn from those levels without replacement; edge
    // costs ~ U[0, 2 CCR w_DAG], so that their mean is CCR times the mean task cost. The draw
    // picks from a pool of the candidates in id order and moves the last one into the picked
    // slot. The pool is `order`'s slice of the candidates' ids, and each pick is a swap that is
    // undone after the task: every task starts from the candidates in id order, as drawn, at a
    // cost per edge, not per candidate (a wide level with a low density made 10^10 copies).
    std::vector<int> order(static_cast<std::size_t>(c.tasks));
    std::iota(order.begin(), order.end(), 0);
    std::vector<std::pair<std::size_t, std::size_t>> swaps;
    g.edges.reserve(static_cast<std::size_t>(most_edges));
    for (std::size_t l = 1; l < levels; ++l) {
        const auto lo = static_cast<std::size_t>(candidates_from(l));
        const std::size_t candidates = static_cast<std::size_t>(first[l]) - lo;
        for (int t = first[l]; t < first[l + 1]; ++t) {
            const auto extra = static_cast<std::int64_t>(
                std::floor(c.density * static_cast<double>(candidates) * uniform(0.0, 1.0)));
            const std::int64_t parents =
                std::min<std::int64_t>(1 + extra, static_cast<std::int64_t>(candidates));
            std::size_t pool = candidates;
            for (std::int64_t k = 0; k < parents; ++k) {
                const std::size_t pick = lo + sim::uniform_index(rng, pool);
                const std::size_t last = lo + --pool;
                g.edges.push_back({order[pick], t, uniform(0.0, 2.0 * c.ccr * c.mean_cost_s)});
                std::swap(order[pick], order[last]);
                swaps.push_back({pick, last});
            }
            for (auto it = swaps.rbegin(); it != swaps.rend(); ++it)
                std::swap(order[it->first], order[it->second]);
            swaps.clear();
        }
    }
    std::sort(g.edges.begin(), g.edges.end(), [](const auto& a, const auto& b) {
        return a.to != b.to ? a.to < b.to : a.from < b.from;
    });
    return g;
}

Graph task_graph(const std::string& name, const std::vector<std::string>& labels,
                 const std::vector<std::vector<double>>& cost,
                 const std::vector<TaskGraphEdge>& edges) {
    Graph g(name);
    std::vector<std::vector<int>> inputs(cost.size()), outputs(cost.size());
    for (const TaskGraphEdge& e : edges) {
        const int tensor =
            g.add_tensor(fmt::format("e{}_{}", labels[static_cast<std::size_t>(e.from)],
                                     labels[static_cast<std::size_t>(e.to)]),
                         {e.bytes}, DType::i8);
        outputs[static_cast<std::size_t>(e.from)].push_back(tensor);
        inputs[static_cast<std::size_t>(e.to)].push_back(tensor);
    }
    for (std::size_t t = 0; t < cost.size(); ++t) {
        if (outputs[t].empty())
            outputs[t].push_back(g.add_tensor(fmt::format("t{}.done", labels[t]), {0}, DType::i8));
        g.add_op(fmt::format("t{}", labels[t]), "Task", inputs[t], outputs[t],
                 {{kTaskCostsAttribute, cost[t]}});
    }
    g.finalize();
    return g;
}

std::int64_t task_graph_edge_bytes(double comm_s) {
    return static_cast<std::int64_t>(std::llround(comm_s * 1e9));
}

Graph build_random_taskgraph(const RandomTaskGraphConfig& config) {
    const RandomTaskGraph r = random_taskgraph(config);
    std::vector<std::string> labels;
    for (std::size_t t = 0; t < r.cost.size(); ++t)
        labels.push_back(std::to_string(t));
    std::vector<TaskGraphEdge> edges;
    for (const auto& e : r.edges)
        edges.push_back({e.from, e.to, task_graph_edge_bytes(e.comm_s)});
    return task_graph("random_taskgraph", labels, r.cost, edges);
}

}  // namespace hetsim::sim::workloads
