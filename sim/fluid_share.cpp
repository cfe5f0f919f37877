#include "sim/fluid_share.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace hetsim::sim {

std::vector<double> max_min_fair_rates(const std::vector<double>& capacity_Bps,
                                       const std::vector<FluidFlow>& flows) {
    std::vector<double> rate;
    FluidScratch scratch;
    max_min_fair_rates(capacity_Bps, flows, rate, scratch);
    return rate;
}

double alone_rate_Bps(const std::vector<double>& capacity_Bps, double cap_Bps,
                      std::span<const int> resources) {
    // max_min_fair_rates with one flow: the fast path when no resource is oversubscribed (a
    // resource listed twice is asked for twice the cap, as there), else one round of
    // progressive filling: delta = min(min_r capacity_r / 1, cap), snapped to the cap within
    // the same margin.
    if (!(cap_Bps > 0.0))
        throw std::invalid_argument("max_min_fair_rates: a flow's cap must be > 0");
    bool oversubscribed = false;
    for (std::size_t i = 0; i < resources.size() && !oversubscribed; ++i) {
        const int r = resources[i];
        const auto times = std::count(resources.begin(), resources.end(), r);
        double asked = 0.0;
        for (long k = 0; k < times; ++k)
            asked += cap_Bps;
        oversubscribed = asked > capacity_Bps[static_cast<std::size_t>(r)];
    }
    if (!oversubscribed)
        return cap_Bps;
    // A flow faster than a resource alone: the rounds themselves.
    const std::vector<int> list(resources.begin(), resources.end());
    const std::vector<FluidFlow> one{FluidFlow{cap_Bps, &list}};
    std::vector<double> rate;
    FluidScratch scratch;
    max_min_fair_rates(capacity_Bps, one, rate, scratch);
    return rate[0];
}

void max_min_fair_rates(const std::vector<double>& capacity_Bps,
                        const std::vector<FluidFlow>& flows, std::vector<double>& rate,
                        FluidScratch& scratch) {
    const std::size_t n_flows = flows.size();
    rate.assign(n_flows, 0.0);
    std::vector<char>& frozen = scratch.frozen;
    frozen.assign(n_flows, 0);
    std::vector<int>& unfrozen_on = scratch.unfrozen_on;  // unfrozen flows per resource
    unfrozen_on.assign(capacity_Bps.size(), 0);
    std::size_t active = 0;
    // Fast path: when no resource is asked for more than it has, progressive filling ends
    // with every flow at its cap (each round's share left/n is at least the smallest cap left),
    // so the rounds can be skipped. Most instants of a DES run are like that.
    std::vector<double>& asked = scratch.left;
    asked.assign(capacity_Bps.size(), 0.0);
    for (std::size_t f = 0; f < n_flows; ++f) {
        if (!(flows[f].cap_Bps > 0.0))
            throw std::invalid_argument("max_min_fair_rates: a flow's cap must be > 0");
        if (flows[f].resources != nullptr) {
            for (int r : *flows[f].resources)
                asked[static_cast<std::size_t>(r)] += flows[f].cap_Bps;
        }
    }
    bool oversubscribed = false;
    for (std::size_t r = 0; r < capacity_Bps.size() && !oversubscribed; ++r)
        oversubscribed = asked[r] > capacity_Bps[r];
    if (!oversubscribed) {
        for (std::size_t f = 0; f < n_flows; ++f)
            rate[f] = flows[f].cap_Bps;
        return;
    }
    std::vector<double>& left = scratch.left;  // unallocated capacity
    left = capacity_Bps;
    for (std::size_t f = 0; f < n_flows; ++f) {
        if (flows[f].resources == nullptr || flows[f].resources->empty()) {
            rate[f] = flows[f].cap_Bps;
            frozen[f] = 1;
            continue;
        }
        for (int r : *flows[f].resources)
            ++unfrozen_on[static_cast<std::size_t>(r)];
        ++active;
    }
    // Each round raises every unfrozen flow by the same amount, up to the first cap reached
    // or resource filled, then freezes the flows that cannot grow any more. At least one
    // flow freezes per round.
    while (active > 0) {
        double delta = std::numeric_limits<double>::infinity();
        for (std::size_t r = 0; r < left.size(); ++r) {
            if (unfrozen_on[r] > 0)
                delta = std::min(delta, left[r] / unfrozen_on[r]);
        }
        for (std::size_t f = 0; f < n_flows; ++f) {
            if (!frozen[f])
                delta = std::min(delta, flows[f].cap_Bps - rate[f]);
        }
        delta = std::max(delta, 0.0);
        for (std::size_t f = 0; f < n_flows; ++f) {
            if (frozen[f])
                continue;
            rate[f] += delta;
            for (int r : *flows[f].resources)
                left[static_cast<std::size_t>(r)] -= delta;
        }
        // A resource is full when what is left is below a relative rounding margin.
        auto full = [&](int r) {
            const auto ri = static_cast<std::size_t>(r);
            return left[ri] <= 1e-12 * capacity_Bps[ri];
        };
        for (std::size_t f = 0; f < n_flows; ++f) {
            if (frozen[f])
                continue;
            const bool at_cap = rate[f] >= flows[f].cap_Bps * (1.0 - 1e-12);
            if (at_cap)
                rate[f] = flows[f].cap_Bps;  // exactly: an uncontended flow runs at its cap
            bool stop = at_cap;
            for (int r : *flows[f].resources)
                stop = stop || full(r);
            if (!stop)
                continue;
            frozen[f] = 1;
            --active;
            for (int r : *flows[f].resources)
                --unfrozen_on[static_cast<std::size_t>(r)];
        }
    }
}

}  // namespace hetsim::sim
