#include "placement/mcm/analytic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "placement/mcm/constraints.hpp"

namespace hetsim::placement::mcm {

AnalyticModel::AnalyticModel(const McmProblem& problem) : problem_(&problem) {
    const int chips = problem.chip_count();
    loads_.resize(static_cast<std::size_t>(chips));
    link_bytes_.resize(static_cast<std::size_t>(chips) + 1);
    link_count_.resize(static_cast<std::size_t>(chips) + 1);
    words_ = (chips + 63) / 64;
    const auto bits = static_cast<std::size_t>(chips) * static_cast<std::size_t>(words_);
    succ_.resize(bits);
    reach_.resize(bits);
    long_.resize(bits);
    // The host link is a pipeline stage of its own, the same for every partition.
    for (const Flow& flow : problem.flows()) {
        if (flow.producer < 0 && !flow.consumers.empty())
            host_in_s_ += problem.host_in().time_s(flow.bytes);
    }
}

void AnalyticModel::compute_loads(const std::vector<int>& chip_of_op) {
    const McmProblem& p = *problem_;
    const int chips = p.chip_count();
    for (ChipLoad& load : loads_)
        load = ChipLoad{};
    for (int op = 0; op < p.op_count(); ++op) {
        const int c = chip_of_op[static_cast<std::size_t>(op)];
        ChipLoad& load = loads_[static_cast<std::size_t>(c)];
        load.compute_s += p.op_time_s(op, c);
        ++load.ops;
    }
    // Link c carries a tensor from its producer's chip a (0 for a graph input) up to its
    // farthest consumer's chip b: a difference array over [a, b).
    std::fill(link_bytes_.begin(), link_bytes_.end(), 0.0);
    std::fill(link_count_.begin(), link_count_.end(), 0.0);
    for (const Flow& flow : p.flows()) {
        const int from =
            flow.producer < 0 ? 0 : chip_of_op[static_cast<std::size_t>(flow.producer)];
        int to = from;
        for (int consumer : flow.consumers)
            to = std::max(to, chip_of_op[static_cast<std::size_t>(consumer)]);
        if (to > from) {
            link_bytes_[static_cast<std::size_t>(from)] += static_cast<double>(flow.bytes);
            link_bytes_[static_cast<std::size_t>(to)] -= static_cast<double>(flow.bytes);
            link_count_[static_cast<std::size_t>(from)] += 1.0;
            link_count_[static_cast<std::size_t>(to)] -= 1.0;
        }
        if (flow.graph_output && flow.producer >= 0)
            loads_[static_cast<std::size_t>(from)].host_out_s +=
                p.host_out(from).time_s(flow.bytes);
    }
    double bytes = 0.0, count = 0.0;
    for (int c = 0; c + 1 < chips; ++c) {
        bytes += link_bytes_[static_cast<std::size_t>(c)];
        count += link_count_[static_cast<std::size_t>(c)];
        const RouteCost& hop = p.ring_hop(c);
        loads_[static_cast<std::size_t>(c)].ring_s =
            count * hop.latency_s + bytes * hop.seconds_per_byte;
    }
    // Weights: resident once on every chip one of their ops runs on.
    for (const WeightUse& w : p.weights()) {
        int first = -1;
        for (std::size_t i = 0; i < w.ops.size(); ++i) {
            const int c = chip_of_op[static_cast<std::size_t>(w.ops[i])];
            bool seen = c == first;
            for (std::size_t j = 0; j < i && !seen && first >= 0; ++j)
                seen = chip_of_op[static_cast<std::size_t>(w.ops[j])] == c;
            if (!seen)
                loads_[static_cast<std::size_t>(c)].weight_bytes += w.bytes;
            if (first < 0)
                first = c;
        }
    }
}

double AnalyticModel::time_per_sample_s(const std::vector<int>& chip_of_op) {
    compute_loads(chip_of_op);
    double worst = host_in_s_;
    for (const ChipLoad& load : loads_)
        worst = std::max(worst, load.load_s());
    return worst;
}

bool AnalyticModel::static_constraints_hold(const std::vector<int>& chip_of_op) {
    const McmProblem& p = *problem_;
    const int chips = p.chip_count();
    const auto w = static_cast<std::size_t>(words_);
    std::fill(succ_.begin(), succ_.end(), 0);
    // Eq. 2, and the chip graph of Eq. 4.
    for (const McmProblem::Edge& e : p.edges()) {
        const int a = chip_of_op[static_cast<std::size_t>(e.from)];
        const int b = chip_of_op[static_cast<std::size_t>(e.to)];
        if (a > b)
            return false;
        if (a < b)
            succ_[static_cast<std::size_t>(a) * w + static_cast<std::size_t>(b) / 64] |=
                std::uint64_t{1} << (b % 64);
    }
    // Eq. 3: the used chips are 0..k.
    std::vector<bool> used(static_cast<std::size_t>(chips), false);
    int highest = -1;
    for (int c : chip_of_op) {
        used[static_cast<std::size_t>(c)] = true;
        highest = std::max(highest, c);
    }
    for (int c = 0; c < highest; ++c) {
        if (!used[static_cast<std::size_t>(c)])
            return false;
    }
    // Eq. 4: no chip edge a -> b when b is also reachable from a in two or more chip edges.
    // Chip edges go up in index, so reach (>= 1 edge) and long (>= 2 edges) fill from the top.
    for (int a = chips - 1; a >= 0; --a) {
        std::uint64_t* reach = &reach_[static_cast<std::size_t>(a) * w];
        std::uint64_t* longer = &long_[static_cast<std::size_t>(a) * w];
        const std::uint64_t* succ = &succ_[static_cast<std::size_t>(a) * w];
        std::fill(reach, reach + w, 0);
        std::fill(longer, longer + w, 0);
        for (int b = a + 1; b < chips; ++b) {
            if ((succ[b / 64] >> (b % 64) & 1) == 0)
                continue;
            const std::uint64_t* reach_b = &reach_[static_cast<std::size_t>(b) * w];
            for (std::size_t i = 0; i < w; ++i)
                longer[i] |= reach_b[i];
        }
        for (std::size_t i = 0; i < w; ++i) {
            if ((succ[i] & longer[i]) != 0)
                return false;
            reach[i] = succ[i] | longer[i];
        }
    }
    return true;
}

bool AnalyticModel::weights_fit(const std::vector<int>& chip_of_op) {
    compute_loads(chip_of_op);
    const auto& capacity = problem_->capacity_bytes();
    for (std::size_t c = 0; c < loads_.size(); ++c) {
        if (capacity[c] > 0 && loads_[c].weight_bytes > capacity[c])
            return false;
    }
    return true;
}

AnalyticResult AnalyticModel::evaluate(const std::vector<int>& chip_of_op, bool check) {
    const McmProblem& p = *problem_;
    AnalyticResult result;
    if (check) {
        // The messages come from the reference checker; the fast one decides.
        if (!static_constraints_hold(chip_of_op)) {
            const auto violations = check_static_constraints(p.graph(), chip_of_op, p.chip_count());
            result.valid = false;
            result.reason = violations.empty() ? std::string("static constraints violated")
                                               : violations.front().message;
        }
    }
    compute_loads(chip_of_op);
    result.host_in_s = host_in_s_;
    result.time_per_sample_s = host_in_s_;
    for (int c = 0; c < p.chip_count(); ++c) {
        const ChipLoad& load = loads_[static_cast<std::size_t>(c)];
        if (load.ops > 0)
            result.chips_used = c + 1;
        if (load.load_s() > result.time_per_sample_s) {
            result.time_per_sample_s = load.load_s();
            result.bottleneck_chip = c;
        }
        const std::int64_t capacity = p.capacity_bytes()[static_cast<std::size_t>(c)];
        if (check && result.valid && capacity > 0 && load.weight_bytes > capacity) {
            result.valid = false;
            result.reason =
                fmt::format("weights: chip {} holds {} B of weights, more than its {} B of SRAM", c,
                            load.weight_bytes, capacity);
        }
    }
    result.chips = loads_;
    result.throughput_per_s = result.time_per_sample_s > 0.0
                                  ? 1.0 / result.time_per_sample_s
                                  : std::numeric_limits<double>::infinity();
    return result;
}

}  // namespace hetsim::placement::mcm
