#include "placement/mcm/enumerate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "placement/mcm/constraints.hpp"

namespace hetsim::placement::mcm {

namespace {

struct Search {
    const sim::Graph& graph;
    int chip_count;
    std::vector<int> chip_of_op;
    std::vector<std::vector<int>> found;

    void assign(std::size_t position) {
        const std::vector<int>& order = graph.topo_order();
        if (position == order.size()) {
            if (check_static_constraints(graph, chip_of_op, chip_count).empty())
                found.push_back(chip_of_op);
            return;
        }
        const int op = order[position];
        int lowest = 0;  // Eq. 2: no lower than any producer (already assigned: topo order)
        for (int p : graph.predecessors(op))
            lowest = std::max(lowest, chip_of_op[static_cast<std::size_t>(p)]);
        for (int chip = lowest; chip < chip_count; ++chip) {
            chip_of_op[static_cast<std::size_t>(op)] = chip;
            assign(position + 1);
        }
    }
};

}  // namespace

std::vector<std::vector<int>> enumerate_valid_partitions(const sim::Graph& graph, int chip_count) {
    if (graph.op_count() > kMaxEnumeratedOps) {
        throw std::invalid_argument(fmt::format(
            "enumerate_valid_partitions: graph '{}' has {} ops, at most {} are enumerated",
            graph.name(), graph.op_count(), kMaxEnumeratedOps));
    }
    if (chip_count < 1) {
        throw std::invalid_argument(
            fmt::format("enumerate_valid_partitions: chip_count must be >= 1, got {}", chip_count));
    }
    Search search{
        graph, chip_count, std::vector<int>(static_cast<std::size_t>(graph.op_count())), {}};
    search.assign(0);
    return std::move(search.found);
}

}  // namespace hetsim::placement::mcm
