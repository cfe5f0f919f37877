// The Fig. 6 max-load IP (ip_throughput.cpp) against exhaustive search on small random DAGs, in
// its three search spaces (contiguous per Def. 3.1, the DP's acyclic space, non-contiguous),
// and against solve_max_load on the shared workloads.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/ip/cbc_mip.hpp"
#include "placement/tarnawski/ip/ip_solvers.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "tests/placement/tarnawski/ip/ip_test_support.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

using namespace ip_test;

struct ThroughputOptima {
    double all = kInf, contiguous = kInf, acyclic = kInf;
};

ThroughputOptima exhaustive_max_load(const Workload& w) {
    const int n = static_cast<int>(w.node_count());
    const int devices = w.max_cpus + w.max_accelerators;
    const auto reach = closure(w, /*forward_only=*/true);
    unsigned forward = 0;
    for (int v = 0; v < n; ++v)
        if (!w.is_backward[v])
            forward |= 1u << v;
    ThroughputOptima best;
    for_each_assignment(n, devices, [&](const std::vector<int>& dev) {
        const LoadReport r = evaluate_assignment(w, Assignment{dev});
        if (!r.colocation_ok || std::isinf(r.max_load))
            return;
        best.all = std::min(best.all, r.max_load);
        bool ok = true;
        for (int d = 0; d < devices && ok; ++d) {
            unsigned set = 0;
            for (int v = 0; v < n; ++v)
                if (dev[v] == d && !w.is_backward[v])
                    set |= 1u << v;
            ok = contiguous(set, forward, reach);
        }
        if (!ok)
            return;
        best.contiguous = std::min(best.contiguous, r.max_load);
        if (devices_acyclic(w, dev, devices))
            best.acyclic = std::min(best.acyclic, r.max_load);
    });
    return best;
}

// Definition 3.1 for every device of an assignment, on graphs of any size: no node outside a
// device's set is both reachable from it and reaching it (forward part only).
bool every_device_contiguous(const Workload& w, const std::vector<int>& dev) {
    const int n = static_cast<int>(w.node_count());
    std::vector<std::vector<int>> succ(n), pred(n);
    for (std::size_t e = 0; e < w.edge_count(); ++e) {
        const int u = w.edge_source[e], v = w.edge_dest[e];
        if (w.is_backward[u] || w.is_backward[v])
            continue;
        succ[u].push_back(v);
        pred[v].push_back(u);
    }
    auto sweep = [&](int d, const std::vector<std::vector<int>>& next) {
        std::vector<char> seen(n, 0);
        std::vector<int> stack;
        for (int v = 0; v < n; ++v)
            if (dev[v] == d && !w.is_backward[v])
                stack.push_back(v);
        while (!stack.empty()) {
            const int v = stack.back();
            stack.pop_back();
            for (int x : next[v])
                if (!seen[x]) {
                    seen[x] = 1;
                    stack.push_back(x);
                }
        }
        return seen;
    };
    const int devices = w.max_cpus + w.max_accelerators;
    for (int d = 0; d < devices; ++d) {
        const auto after = sweep(d, succ), before = sweep(d, pred);
        for (int v = 0; v < n; ++v)
            if (dev[v] != d && !w.is_backward[v] && after[v] && before[v])
                return false;
    }
    return true;
}

// Checks an IP run's split: every node placed, colour classes together, contiguous when asked,
// and the objective it reports is the split's max-load.
void expect_consistent_throughput(const Workload& w, const IpRun& run, const std::string& what,
                                  Contiguity contiguity = Contiguity::noncontiguous) {
    if (!run.assignment)
        return;
    if (contiguity != Contiguity::noncontiguous) {
        EXPECT_TRUE(every_device_contiguous(w, run.assignment->device_of_node)) << what;
    }
    const LoadReport r = evaluate_assignment(w, *run.assignment);
    EXPECT_TRUE(r.colocation_ok) << what;
    EXPECT_NEAR(r.max_load, run.objective, 1e-9 * (1.0 + run.objective)) << what;
    if (std::isfinite(run.ip_objective) && !run.from_warm_start) {
        EXPECT_NEAR(run.ip_objective, run.objective, 1e-5 * (1.0 + run.objective)) << what;
    }
    if (std::isfinite(run.bound)) {
        EXPECT_LE(run.bound, run.objective + 1e-6) << what;
    }
}

TEST(TarnawskiIpThroughput, EqualsExhaustiveSearchInAllThreeSpaces) {
    std::mt19937_64 rng(2020);
    SolveOptions options;
    options.seed = 7;
    int finite = 0, strictly_better_noncontiguous = 0;
    for (int trial = 0; trial < 8; ++trial) {
        const Instance t = random_instance(rng, /*allow_training=*/true, /*positive=*/false);
        const Workload& w = t.w;
        const ThroughputOptima exact = exhaustive_max_load(w);
        const std::string what =
            "trial " + std::to_string(trial) + "\n" + workload_to_json(w).dump();
        ThroughputIpOptions ip;
        ip.warm_start = WarmStart::none;  // CBC must find the optimum itself
        ip.break_symmetry = trial % 3 != 2;
        ip.contiguity = Contiguity::noncontiguous;
        const IpRun all = solve_throughput_ip(w, ip, options);
        ip.contiguity = Contiguity::contiguous;
        const IpRun contiguous = solve_throughput_ip(w, ip, options);
        ip.contiguity = Contiguity::acyclic;
        const IpRun acyclic = solve_throughput_ip(w, ip, options);

        expect_same_optimum(all.objective, exact.all, "noncontiguous, " + what);
        expect_same_optimum(contiguous.objective, exact.contiguous, "contiguous, " + what);
        expect_same_optimum(acyclic.objective, exact.acyclic, "acyclic, " + what);
        expect_consistent_throughput(w, contiguous, what, Contiguity::contiguous);
        expect_consistent_throughput(w, acyclic, what, Contiguity::acyclic);
        for (const IpRun* run : {&all, &contiguous, &acyclic}) {
            expect_consistent_throughput(w, *run, what);
            if (std::isfinite(run->objective)) {
                EXPECT_EQ(run->status, MipStatus::optimal) << what;
            } else {
                EXPECT_EQ(run->status, MipStatus::infeasible) << what;
            }
        }
        // Nested spaces: noncontiguous ⊇ contiguous ⊇ acyclic.
        EXPECT_LE(all.objective, contiguous.objective + 1e-6) << what;
        EXPECT_LE(contiguous.objective, acyclic.objective + 1e-6) << what;

        // The acyclic space is the DP's (§5.1.1): same optimum (trivial-node merge off: it is
        // exact only when memory does not bind, see DpOptions). Not for these training graphs:
        // their backward nodes are mostly orphans, which the DP places through artificial
        // forward images (App. B), a narrower space than "forward part acyclic".
        if (!t.training) {
            DpOptions dp;
            dp.merge_trivial_nodes = false;
            expect_same_optimum(acyclic.objective, solve_max_load(w, dp).objective, "DP, " + what);
        }

        // Warm-started from the DP, the IP returns the same optimum and accepts the start.
        ThroughputIpOptions warm;
        warm.contiguity = Contiguity::acyclic;
        warm.warm_start = WarmStart::dp;
        const IpRun warmed = solve_throughput_ip(w, warm, options);
        expect_same_optimum(warmed.objective, exact.acyclic, "acyclic + DP warm start, " + what);
        if (std::isfinite(warmed.warm_objective)) {
            EXPECT_TRUE(warmed.warm_accepted) << what;
            EXPECT_EQ(warmed.warm_source, "dp");
        }
        if (std::isfinite(exact.all)) {
            ++finite;
            strictly_better_noncontiguous += all.objective < acyclic.objective - 1e-6;
        }
    }
    EXPECT_GE(finite, 5);
    EXPECT_GE(strictly_better_noncontiguous, 1) << "no instance where non-contiguity pays";
}

// Def. 3.1 per device is weaker than the DP's pipeline order (§5.1.1): two contiguous sets may
// feed each other. Sources a1, b1 and sinks a2, b2 (p^acc 1, size 5, M = 10, so each of the
// two accelerators holds two nodes), heavy edges a1 -> a2 and b1 -> b2 (cost 1), light edges
// a1 -> b2 and b1 -> a2 (0.1). The only pipeline-ordered split {a1, b1} | {a2, b2} cuts all
// four edges: load 2 + 2.2 = 4.2 on both. {a1, a2} | {b1, b2} is contiguous per device and
// cuts only the light edges: 2.2, but each device needs the other's output (a cycle).
TEST(TarnawskiIpThroughput, ContiguousPerDeviceCanBeatTheDpsPipelineOrder) {
    Workload w;
    w.max_accelerators = 2;
    w.max_cpus = 0;
    w.max_size_per_accelerator = 10.0;
    for (int v = 0; v < 4; ++v)  // a1, b1, a2, b2
        w.add_node(v, 10.0, 1.0, 5.0);
    w.add_edge(0, 2, 1.0);  // a1 -> a2
    w.add_edge(0, 3, 0.1);  // a1 -> b2
    w.add_edge(1, 3, 1.0);  // b1 -> b2
    w.add_edge(1, 2, 0.1);  // b1 -> a2
    const double dp = solve_max_load(w).objective;
    EXPECT_NEAR(dp, 4.2, 1e-9);
    SolveOptions options;
    ThroughputIpOptions ip;
    ip.contiguity = Contiguity::acyclic;
    EXPECT_NEAR(solve_throughput_ip(w, ip, options).objective, 4.2, 1e-6);
    ip.contiguity = Contiguity::contiguous;
    const IpRun contiguous = solve_throughput_ip(w, ip, options);
    EXPECT_NEAR(contiguous.objective, 2.2, 1e-6);
    ASSERT_TRUE(contiguous.assignment.has_value());
    const auto& dev = contiguous.assignment->device_of_node;
    EXPECT_EQ(dev[0], dev[2]);  // a1 with a2
    EXPECT_EQ(dev[1], dev[3]);  // b1 with b2
    ip.contiguity = Contiguity::noncontiguous;
    EXPECT_NEAR(solve_throughput_ip(w, ip, options).objective, 2.2, 1e-6);
}

TEST(TarnawskiIpShared, Bert3ContiguousNeverBeatsTheDp) {
    const std::optional<Workload> loaded =
        shared_workload_or_skip("throughput/op_bert_l-3_inference.json");
    if (!loaded)
        return;
    const Workload& w = *loaded;
    const double dp = solve_max_load(w).objective;
    EXPECT_NEAR(dp, 27.92, 0.005);  // Table 1
    SolveOptions options;
    options.time_limit_s = 8.0;
    for (Contiguity c : {Contiguity::contiguous, Contiguity::acyclic}) {
        ThroughputIpOptions ip;
        ip.contiguity = c;
        const IpRun run = solve_throughput_ip(w, ip, options);
        ASSERT_TRUE(run.assignment.has_value());
        // The acyclic space is the DP's: the IP cannot beat its proven optimum. Def. 3.1 per
        // device is a larger space, but Table 1's IP certified 27.92 for it within 1%. Either
        // way the proven bound never exceeds the DP's optimum (a split in both spaces).
        if (c == Contiguity::acyclic) {
            EXPECT_GE(run.objective, dp - 1e-6);
        } else {
            EXPECT_GE(run.objective, 0.99 * dp);
        }
        EXPECT_LE(run.bound, dp + 1e-6);
        expect_consistent_throughput(w, run, "op_bert_l-3_inference", c);
        std::cout << "[ info ] op_bert_l-3 ip_throughput "
                  << (c == Contiguity::contiguous ? "contiguous" : "acyclic") << ": objective "
                  << run.objective << ", bound " << run.bound << ", gap " << 100.0 * run.gap
                  << "% in " << run.seconds << " s (" << run.nodes << " nodes)\n";
    }
}

TEST(TarnawskiIpShared, OneSecondLimitReturnsTheWarmStartOrBetter) {
    const std::optional<Workload> loaded =
        shared_workload_or_skip("throughput/op_bert_l-3_inference.json");
    if (!loaded)
        return;
    const Workload& w = *loaded;
    SolveOptions options;
    options.time_limit_s = 1.0;
    for (Contiguity c : {Contiguity::contiguous, Contiguity::noncontiguous}) {
        ThroughputIpOptions ip;
        ip.contiguity = c;
        const IpRun run = solve_throughput_ip(w, ip, options);
        ASSERT_TRUE(run.assignment.has_value());
        EXPECT_EQ(run.warm_source, "dp");
        EXPECT_TRUE(run.warm_accepted);
        EXPECT_LE(run.objective, run.warm_objective + 1e-9);
        EXPECT_TRUE(run.status == MipStatus::feasible || run.status == MipStatus::optimal);
        expect_consistent_throughput(w, run, "op_bert_l-3_inference", c);
    }
}

// A time limit already over when the solve starts: no DP, no MIP, but still a valid split (the
// best found so far: everything on one CPU) and the run says it hit the limit.
TEST(TarnawskiIpThroughput, AnExpiredTimeLimitStillReturnsAValidSplit) {
    std::mt19937_64 rng(5);
    const Workload w = random_instance(rng, false, true).w;
    SolveOptions options;
    options.time_limit_s = 1e-9;
    const IpRun run = solve_throughput_ip(w, ThroughputIpOptions{}, options);
    ASSERT_TRUE(run.assignment.has_value());
    EXPECT_TRUE(run.time_limit_hit);
    EXPECT_EQ(run.status, MipStatus::feasible);
    EXPECT_EQ(run.warm_source, "cpu");
    double cpu_total = 0.0;
    for (double p : w.cpu_latency)
        cpu_total += p;
    EXPECT_DOUBLE_EQ(run.objective, cpu_total);  // one CPU: no transfers
    expect_consistent_throughput(w, run, "expired", Contiguity::contiguous);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
