#include "sim/workloads/random_taskgraph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

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

    // One generator, drawn from in a fixed order, through hetsim's portable draws
    // (sim/random.hpp): the graph depends on the knobs and the seed only.
    std::mt19937_64 rng(c.seed);
    const auto uniform = [&](double lo, double hi) {
        return lo + (hi - lo) * sim::uniform_unit(rng);
    };

    RandomTaskGraph g;
    g.processors = c.processors;
    // Levels (DAGGEN): each about n^fat wide, varied by the regularity.
    const double width = std::max(1.0, std::exp(c.fat * std::log(static_cast<double>(c.tasks))));
    std::vector<std::vector<int>> levels;
    int made = 0;
    while (made < c.tasks) {
        const double spread = 1.0 - c.regularity;
        int size = static_cast<int>(std::lround(width * uniform(1.0 - spread, 1.0 + spread)));
        size = std::clamp(size, 1, c.tasks - made);
        std::vector<int> level;
        for (int k = 0; k < size; ++k) {
            level.push_back(made++);
            g.level.push_back(static_cast<int>(levels.size()));
        }
        levels.push_back(std::move(level));
    }
    // Costs (Topcuoglu §5.1): w_i ~ U[0, 2 w_DAG], w_ij ~ U[w_i (1 - beta/2), w_i (1 + beta/2)].
    g.cost.resize(static_cast<std::size_t>(c.tasks));
    for (int t = 0; t < c.tasks; ++t) {
        const double w = uniform(0.0, 2.0 * c.mean_cost_s);
        for (int p = 0; p < c.processors; ++p)
            g.cost[static_cast<std::size_t>(t)].push_back(
                uniform(w * (1.0 - c.beta / 2.0), w * (1.0 + c.beta / 2.0)));
    }
    // Edges (DAGGEN): each task below the first level gets 1 + up to density x (the tasks of
    // the `jump` levels above it) parents, drawn from those levels; edge costs ~ U[0, 2 CCR
    // w_DAG], so that their mean is CCR times the mean task cost.
    for (std::size_t l = 1; l < levels.size(); ++l) {
        std::vector<int> candidates;
        for (std::size_t up =
                 l > static_cast<std::size_t>(c.jump) ? l - static_cast<std::size_t>(c.jump) : 0;
             up < l; ++up)
            candidates.insert(candidates.end(), levels[up].begin(), levels[up].end());
        for (int t : levels[l]) {
            const auto extra = static_cast<std::int64_t>(
                std::floor(c.density * static_cast<double>(candidates.size()) * uniform(0.0, 1.0)));
            const std::int64_t parents =
                std::min<std::int64_t>(1 + extra, static_cast<std::int64_t>(candidates.size()));
            std::vector<int> pool = candidates;
            for (std::int64_t k = 0; k < parents; ++k) {
                const std::size_t pick = sim::uniform_index(rng, pool.size());
                g.edges.push_back({pool[pick], t, uniform(0.0, 2.0 * c.ccr * c.mean_cost_s)});
                pool[pick] = pool.back();
                pool.pop_back();
            }
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
