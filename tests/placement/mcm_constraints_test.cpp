// mcm2022's partition constraints (§3, Eq. 2-4 and H(G, f)): the cases of its Figure 2 on a
// hand-built five-op graph with exact messages and byte counts, the chiplet ring order from a
// platform's links, and, on random DAGs, the enumerator against a brute force over all C^n
// assignments filtered by the checker.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "placement/mcm/constraints.hpp"
#include "placement/mcm/enumerate.hpp"
#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/mcm_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::placement::mcm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using hetsim::testing::kMcmFigure2;

sim::Graph figure2() {
    return sim::workloads::parse_json_graph(kMcmFigure2, "figure2");
}

std::vector<std::string> messages(const std::vector<Violation>& violations) {
    std::vector<std::string> out;
    for (const Violation& v : violations)
        out.push_back(v.message);
    return out;
}

TEST(McmConstraints, Figure2ValidPartitionHasNoViolation) {
    EXPECT_TRUE(check_static_constraints(figure2(), {0, 0, 1, 1, 1}, 3).empty());
    EXPECT_TRUE(check_static_constraints(figure2(), {0, 1, 1, 2, 2}, 3).empty());
}

TEST(McmConstraints, Figure2cAcyclicDataflow) {
    const auto v = check_static_constraints(figure2(), {0, 0, 1, 0, 0}, 3);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].constraint, Constraint::acyclic);
    EXPECT_THAT(v[0].ops, ElementsAre("n2", "n4"));
    EXPECT_THAT(v[0].chips, ElementsAre(1, 0));
    EXPECT_EQ(v[0].message,
              "acyclic (Eq. 2): ops 'n2' (chip 1) -> 'n4' (chip 0) sends data "
              "backwards on the one-way ring");
}

TEST(McmConstraints, Figure2dSkippedChip) {
    const auto v = check_static_constraints(figure2(), {0, 0, 2, 2, 2}, 3);
    EXPECT_THAT(messages(v),
                ElementsAre("no-skip (Eq. 3): chip 1 has no op, but chip 2 is used (op 'n2')"));
    EXPECT_EQ(v[0].constraint, Constraint::no_skip);
    EXPECT_THAT(v[0].chips, ElementsAre(1, 2));
}

TEST(McmConstraints, Figure2eChipTriangle) {
    const auto v = check_static_constraints(figure2(), {0, 1, 2, 2, 2}, 3);
    EXPECT_THAT(messages(v),
                ElementsAre("triangle (Eq. 4): ops 'n0' (chip 0) -> 'n2' (chip 2) is a direct "
                            "dependency, but chip 0 reaches chip 2 through chip 1 (ops "
                            "'n0'->'n1', 'n1'->'n3')"));
    EXPECT_EQ(v[0].constraint, Constraint::triangle);
    EXPECT_THAT(v[0].chips, ElementsAre(0, 1, 2));
}

TEST(McmConstraints, SeveralViolationsAreAllReportedInOrder) {
    // Acyclic n2 (2) -> n4 (0); chip 1 skipped; no forward cut edge but n0->n2, n1->n3.
    const auto v = check_static_constraints(figure2(), {0, 0, 2, 0, 0}, 3);
    EXPECT_THAT(messages(v),
                ElementsAre("acyclic (Eq. 2): ops 'n2' (chip 2) -> 'n4' (chip 0) sends data "
                            "backwards on the one-way ring",
                            "no-skip (Eq. 3): chip 1 has no op, but chip 2 is used (op 'n2')"));
}

TEST(McmConstraints, Figure2fMemoryByHand) {
    // Chip 0 runs n0, n1: step 0 x + t0 = 32 B; step 1 t0 (sent to n2) + t1 (sent) = 32 B.
    // Chip 1 runs n2, n3, n4: step 0 t0 + t1 (arrived) + t2 = 48 B; step 1 t1 + t2 + t3;
    // step 2 t2 + t3 + t4 (graph output) = 48 B; plus the 64 B weight of n3.
    const auto memory = chip_memory(figure2(), {0, 0, 1, 1, 1}, {1000, 100, 0});
    ASSERT_EQ(memory.size(), 3u);
    EXPECT_EQ(memory[0].activation_bytes, 32);
    EXPECT_EQ(memory[0].weight_bytes, 0);
    EXPECT_EQ(memory[0].peak_op, 0);
    EXPECT_EQ(memory[1].activation_bytes, 48);
    EXPECT_EQ(memory[1].weight_bytes, 64);
    EXPECT_EQ(memory[1].peak_bytes(), 112);
    EXPECT_EQ(memory[1].peak_op, 2);  // the first step reaching the peak
    EXPECT_EQ(memory[2].ops, 0);
    EXPECT_EQ(memory[2].peak_op, -1);
    const auto v = check_partition(figure2(), {0, 0, 1, 1, 1}, {1000, 100, 0});
    EXPECT_THAT(messages(v),
                ElementsAre("memory (H): chip 1 needs 112 B at op 'n2' (activations 48 B + "
                            "weights 64 B), more than its 100 B of SRAM"));
    EXPECT_TRUE(check_partition(figure2(), {0, 0, 1, 1, 1}, {1000, 112, 0}).empty());
}

TEST(McmConstraints, ActivationsSentOnStayLiveToTheEndOfTheStage) {
    // Chip 0 runs n0, n1, n2: t1 (step 1) and t2 (step 2) go to chip 1, so t1 is still live at
    // step 2: t0 + t1 + t2 = 48 B at n2. Freed after its producer, t1 would leave 32 B.
    const auto memory = chip_memory(figure2(), {0, 0, 0, 1, 1}, {0, 0});
    EXPECT_EQ(memory[0].activation_bytes, 48);
    EXPECT_EQ(memory[0].peak_op, 2);
    // Chip 1 runs n3, n4: t2 arrives before the stage, so it is live from step 0: t1 + t2 + t3
    // = 48 B at n3 (then t2 + t3 + t4 = 48 B at n4); weights 64 B.
    EXPECT_EQ(memory[1].activation_bytes, 48);
    EXPECT_EQ(memory[1].weight_bytes, 64);
    EXPECT_EQ(memory[1].peak_op, 3);
}

TEST(McmConstraints, BadAssignmentsAreRefused) {
    EXPECT_THROW((void)check_static_constraints(figure2(), {0, 0}, 3), std::invalid_argument);
    EXPECT_THROW((void)check_static_constraints(figure2(), {0, 0, 0, 0, 3}, 3),
                 std::invalid_argument);
}

// Three gpu dies marked chiplets, a one-way link from each to the next; names deliberately
// out of ring order.
// Three gpu dies marked chiplets (names deliberately out of ring order) and a host CPU;
// `links` joins them (every component must reach every other, so the host relays).
std::string ring_yaml(const std::string& links, const std::string& relays = "[cpu]") {
    std::string yaml = "name: ring\nhost: cpu\nrelays: " + relays +
                       "\ncomponents:\n  cpu:\n    type: cpu\n"
                       "    devices: {H: serial}\n    cores: 1\n    clock: 1 GHz\n"
                       "    flops_per_cycle: 2\n    l1d: 32 KiB\n    l2: 1 MiB\n"
                       "    dram_bandwidth: 4 GB/s\n";
    for (const char* die : {"za", "mb", "ac"}) {
        yaml += std::string("  ") + die + ":\n    type: gpu\n    role: chiplet\n    device: D_" +
                die +
                "\n    sms: 1\n    clock: 1 GHz\n    fp32_flops_per_cycle_per_sm: 2\n"
                "    memory_bandwidth: 1 GB/s\n    memory: 100 B\n";
    }
    return yaml + links;
}

// Two-way host links to every die: they are not chiplet-to-chiplet links, so not the ring.
const std::string kHostLinks =
    "  h0: {type: pcie, endpoints: [cpu, za], bandwidth: 1 GB/s}\n"
    "  h1: {type: pcie, endpoints: [cpu, mb], bandwidth: 1 GB/s}\n"
    "  h2: {type: pcie, endpoints: [cpu, ac], bandwidth: 1 GB/s}\n";

std::vector<std::string> ring_names(const sim::Platform& p) {
    std::vector<std::string> names;
    for (int d : chiplet_ring_order(p))
        names.push_back(p.device(d).name);
    return names;
}

TEST(McmRing, ChainOrderFollowsTheLinksNotTheNames) {
    const sim::Platform p = hetsim::testing::parse_platform_yaml(
        ring_yaml(kHostLinks +
                  "  l0: {type: pcie, endpoints: [mb, ac], bandwidth: 1 GB/s, one_way: true}\n"
                  "  l1: {type: pcie, endpoints: [ac, za], bandwidth: 1 GB/s, one_way: true}\n"));
    EXPECT_THAT(ring_names(p), ElementsAre("D_mb", "D_ac", "D_za"));
    EXPECT_THAT(chip_capacities(p, chiplet_ring_order(p)), ElementsAre(100, 100, 100));
}

TEST(McmRing, ClosedRingStartsWhereTheHostEnters) {
    const sim::Platform p = hetsim::testing::parse_platform_yaml(
        ring_yaml("  h0: {type: pcie, endpoints: [cpu, ac], bandwidth: 1 GB/s}\n"
                  "  l0: {type: pcie, endpoints: [mb, ac], bandwidth: 1 GB/s, one_way: true}\n"
                  "  l1: {type: pcie, endpoints: [ac, za], bandwidth: 1 GB/s, one_way: true}\n"
                  "  l2: {type: pcie, endpoints: [za, mb], bandwidth: 1 GB/s, one_way: true}\n",
                  "all"));
    EXPECT_THAT(ring_names(p), ElementsAre("D_ac", "D_za", "D_mb"));
}

TEST(McmRing, BrokenRingsAreInputErrors) {
    const sim::Platform split = hetsim::testing::parse_platform_yaml(
        ring_yaml(kHostLinks +
                  "  l0: {type: pcie, endpoints: [mb, ac], bandwidth: 1 GB/s, one_way: true}\n"));
    try {
        (void)chiplet_ring_order(split);
        FAIL() << "expected an InputError";
    } catch (const sim::InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("chiplets on components mb, za are not linked into one "
                                        "ring"));
    }
    const sim::Platform forked = hetsim::testing::parse_platform_yaml(
        ring_yaml(kHostLinks +
                  "  l0: {type: pcie, endpoints: [mb, ac], bandwidth: 1 GB/s, one_way: true}\n"
                  "  l1: {type: pcie, endpoints: [mb, za], bandwidth: 1 GB/s, one_way: true}\n"));
    EXPECT_THROW((void)chiplet_ring_order(forked), sim::InputError);
}

// Brute force: every one of C^n assignments, kept when the checker finds nothing.
std::size_t brute_force_count(const sim::Graph& graph, int chips) {
    const int n = graph.op_count();
    std::vector<int> f(static_cast<std::size_t>(n), 0);
    std::size_t count = 0;
    while (true) {
        if (check_static_constraints(graph, f, chips).empty())
            ++count;
        int i = 0;
        while (i < n && ++f[static_cast<std::size_t>(i)] == chips)
            f[static_cast<std::size_t>(i++)] = 0;
        if (i == n)
            return count;
    }
}

TEST(McmEnumerate, Figure2CountByHand) {
    // On 2 chips no triangle exists, so a valid partition is everything on chip 0, or chip 0 a
    // non-empty proper down-set: {n0}, {n0,n1}, {n0,n2}, {n0,n1,n2}, {n0,n1,n3},
    // {n0,n1,n2,n3}. 1 + 6 = 7.
    EXPECT_EQ(enumerate_valid_partitions(figure2(), 1).size(), 1u);
    const auto two = enumerate_valid_partitions(figure2(), 2);
    EXPECT_EQ(two.size(), 7u);
    EXPECT_EQ(two.front(), (std::vector<int>{0, 0, 0, 0, 0}));
    EXPECT_EQ(brute_force_count(figure2(), 2), 7u);
}

TEST(McmEnumerate, RandomDagsMatchTheBruteForceAndPassTheChecker) {
    for (std::int64_t seed = 1; seed <= 6; ++seed) {
        for (std::int64_t nodes : {4, 6, 7}) {
            const sim::Graph g = sim::workloads::build_model(
                "random_dag", {{"seed", seed}, {"nodes", nodes}, {"width", 3}, {"hidden", 4}});
            const auto all = enumerate_valid_partitions(g, 3);
            for (const auto& f : all)
                ASSERT_TRUE(check_static_constraints(g, f, 3).empty());
            EXPECT_EQ(all.size(), brute_force_count(g, 3)) << "seed " << seed << " n " << nodes;
            EXPECT_GE(all.size(), 1u);  // everything on chip 0
        }
    }
}

TEST(McmEnumerate, RefusesLargeGraphs) {
    const sim::Graph g = sim::workloads::build_model("random_dag", {{"nodes", 13}});
    try {
        (void)enumerate_valid_partitions(g, 2);
        FAIL() << "expected invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), HasSubstr("has 13 ops, at most 12 are enumerated"));
    }
}

}  // namespace
}  // namespace hetsim::placement::mcm
