// Helpers shared by the tests of tarnawski2020's integer programs (tests/placement/tarnawski/ip/):
// small random DAGs, their transitive closure and Definition 3.1's contiguity, and the
// tolerance to which CBC's optima agree with exhaustive search.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski::ip_test {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// CBC stops when no node can improve the incumbent by more than its cutoff increment (1e-5
// absolute by default), so optima agree to that, not to the last bit.
inline void expect_same_optimum(double ip, double exact, const std::string& what) {
    if (std::isinf(exact)) {
        EXPECT_TRUE(std::isinf(ip)) << what << ": IP " << ip << ", exhaustive infeasible";
        return;
    }
    EXPECT_NEAR(ip, exact, 1e-4 + 1e-6 * std::fabs(exact)) << what;
}

struct Instance {
    Workload w;
    bool training = false;
};

// 6-9 nodes (file order topological), 1 CPU and 1-2 accelerators, random costs, sizes and
// memory (sometimes binding), occasional colour classes, nodes unsupported on accelerators,
// non-uniform outgoing costs, and (throughput only) a backward part.
inline Instance random_instance(std::mt19937_64& rng, bool allow_training, bool positive) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Instance t;
    Workload& w = t.w;
    const int n = 6 + static_cast<int>(u(rng) * 4);  // 6..9
    w.max_cpus = 1;
    w.max_accelerators = u(rng) < 0.5 ? 1 : 2;
    t.training = allow_training && u(rng) < 0.25;
    const int backward_from = t.training ? n - 2 - static_cast<int>(u(rng) * 2) : n;
    double total = 0.0;
    for (int v = 0; v < n; ++v) {
        const bool zero = !positive && u(rng) < 0.15;
        const double acc = zero ? 0.0 : 0.5 + 4.0 * u(rng);
        const double cpu = zero ? 0.0 : acc * (1.0 + 4.0 * u(rng));
        const double size = std::floor(1.0 + 9.0 * u(rng));
        total += size;
        std::optional<std::int64_t> color;
        if (u(rng) < 0.2)
            color = static_cast<std::int64_t>(u(rng) * 2);  // classes 0 and 1
        const bool supported = u(rng) > 0.1;
        w.add_node(10 + v, cpu, acc, size, v >= backward_from, supported, color);
    }
    std::vector<double> cost(n);
    for (auto& c : cost)
        c = 0.1 + 2.5 * u(rng);
    const bool nonuniform = u(rng) < 0.3;
    const double density = 0.25 + 0.35 * u(rng);
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
            if (u(rng) < density)
                w.add_edge(a, b, nonuniform && u(rng) < 0.5 ? 0.1 + 2.0 * u(rng) : cost[a]);
    const bool tight = u(rng) < 0.4;
    w.max_size_per_accelerator = tight ? std::floor(total * (0.35 + 0.4 * u(rng))) : 1e9;
    return t;
}

// Transitive closure over the edges accepted by `use` (bit w of reach[v]: w reachable from v
// by a path of length >= 1).
inline std::vector<unsigned> closure(const Workload& w, bool forward_only) {
    const int n = static_cast<int>(w.node_count());
    std::vector<unsigned> reach(n, 0);
    for (int v = n - 1; v >= 0; --v)  // file order is topological in these instances
        for (std::size_t e = 0; e < w.edge_count(); ++e) {
            if (w.edge_source[e] != v)
                continue;
            const int d = w.edge_dest[e];
            if (forward_only && (w.is_backward[v] || w.is_backward[d]))
                continue;
            reach[v] |= (1u << d) | reach[d];
        }
    return reach;
}

// Definition 3.1: no u ∈ S, v ∉ S, w ∈ S with v reachable from u and w from v (within the
// nodes `considered`).
inline bool contiguous(unsigned set, unsigned considered, const std::vector<unsigned>& reach) {
    unsigned after = 0;  // nodes reachable from S
    for (int v = 0; v < static_cast<int>(reach.size()); ++v)
        if (set >> v & 1)
            after |= reach[v];
    for (int v = 0; v < static_cast<int>(reach.size()); ++v) {
        if (!(considered >> v & 1) || (set >> v & 1) || !(after >> v & 1))
            continue;
        if (reach[v] & set)
            return false;
    }
    return true;
}

}  // namespace hetsim::placement::tarnawski::ip_test
