#include "sim/workloads/random_dag.hpp"

#include <fmt/format.h>

#include <random>
#include <vector>

namespace hetsim::sim::workloads {

namespace {

// Uniform in [0, n) by rejection: the same sequence on every standard library (the
// std::uniform_int_distribution algorithm is implementation-defined).
std::uint64_t uniform(std::mt19937_64& rng, std::uint64_t n) {
    const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % n;
    std::uint64_t draw = rng();
    while (draw >= limit)
        draw = rng();
    return draw % n;
}

bool chance(std::mt19937_64& rng, std::int64_t percent) {
    return static_cast<std::int64_t>(uniform(rng, 100)) < percent;
}

}  // namespace

Graph build_random_dag(const RandomDagConfig& c) {
    std::mt19937_64 rng(c.seed);
    Graph g(fmt::format("random_dag_s{}_n{}", c.seed, c.nodes));
    const Shape shape{c.batch, c.hidden};
    const int input = g.add_tensor("x", shape, DType::f32, TensorKind::input);
    std::vector<std::vector<int>> layers{{input}};  // tensors produced per layer (0: input)
    auto pick = [&](const std::vector<int>& from) {
        return from[static_cast<std::size_t>(uniform(rng, from.size()))];
    };
    static const char* const kUnary[] = {"Relu", "Tanh", "Sigmoid"};
    std::int64_t made = 0;
    while (made < c.nodes) {
        const auto size = std::min<std::int64_t>(
            c.nodes - made,
            1 + static_cast<std::int64_t>(uniform(rng, static_cast<std::uint64_t>(c.width))));
        const std::size_t layer = layers.size();
        const std::vector<int>& previous = layers[layer - 1];
        std::vector<int> produced;
        for (std::int64_t i = 0; i < size; ++i, ++made) {
            const std::string name = fmt::format("n{}", made);
            const int first = pick(previous);
            const int out = g.add_tensor(name + "_out", shape, DType::f32);
            if (layer >= 2 && chance(rng, c.skip_percent)) {
                // A skip edge: add a tensor from two or more layers back.
                const int skipped = pick(layers[static_cast<std::size_t>(uniform(rng, layer - 1))]);
                g.add_op(name, "Add", {first, skipped}, {out});
            } else if (chance(rng, c.matmul_percent)) {
                const int w =
                    g.add_tensor(name + "_w", {c.hidden, c.hidden}, DType::f32, TensorKind::weight);
                g.add_op(name, "MatMul", {first, w}, {out});
            } else if (previous.size() > 1 && uniform(rng, 2) == 0) {
                // A second, different tensor of the layer before.
                const auto offset = 1 + uniform(rng, previous.size() - 1);
                std::size_t at = 0;
                while (previous[at] != first)
                    ++at;
                g.add_op(name, "Add", {first, previous[(at + offset) % previous.size()]}, {out});
            } else {
                g.add_op(name, kUnary[uniform(rng, 3)], {first}, {out});
            }
            produced.push_back(out);
        }
        layers.push_back(std::move(produced));
    }
    for (int t = 0; t < g.tensor_count(); ++t) {
        const Tensor& tensor = g.tensor(t);
        if (tensor.kind == TensorKind::activation && tensor.consumers.empty())
            g.mark_output(t);
    }
    return g;
}

}  // namespace hetsim::sim::workloads
