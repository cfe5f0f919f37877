// `hetsim check-partition`: a study on a three-chiplet ring (a gpu type with `role: chiplet`,
// one-way links, names out of ring order) and mcm2022's Figure 2 graph; exit 0 for a valid
// partition, 1 with every violation printed, 2 for bad input naming the file and entry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/fixtures/cli_fixtures.hpp"
#include "tests/fixtures/mcm_fixtures.hpp"

namespace {

using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;

using hetsim::testing::kMcmFigure2;

std::string die(const std::string& name, const std::string& memory) {
    return "  " + name + ":\n    type: gpu\n    role: chiplet\n    device: " + name +
           "_D\n    sms: 1\n    clock: 1 GHz\n    fp32_flops_per_cycle_per_sm: 2\n"
           "    memory_bandwidth: 1 GB/s\n    memory: " +
           memory + "\n";
}

// Ring order c_b (chip 0), c_c (chip 1), c_a (chip 2); chip 1 has 100 B of SRAM.
const std::string kPlatform =
    "name: ring3\nhost: cpu\nrelays: [cpu]\ncomponents:\n  cpu:\n    type: cpu\n"
    "    devices: {H: serial}\n    cores: 1\n    clock: 1 GHz\n    flops_per_cycle: 2\n"
    "    l1d: 32 KiB\n    l2: 1 MiB\n    dram_bandwidth: 4 GB/s\n" +
    die("c_a", "1 MB") + die("c_b", "1 MB") + die("c_c", "100 B") +
    "  h0: {type: pcie, endpoints: [cpu, c_a], bandwidth: 1 GB/s}\n"
    "  h1: {type: pcie, endpoints: [cpu, c_b], bandwidth: 1 GB/s}\n"
    "  h2: {type: pcie, endpoints: [cpu, c_c], bandwidth: 1 GB/s}\n"
    "  r0: {type: pcie, endpoints: [c_b, c_c], bandwidth: 1 GB/s, one_way: true}\n"
    "  r1: {type: pcie, endpoints: [c_c, c_a], bandwidth: 1 GB/s, one_way: true}\n";

class CheckPartition : public ::testing::Test {
protected:
    void SetUp() override {
        write("ring3.yaml", kPlatform);
        write("fig2.json", kMcmFigure2);
        write("study.yaml",
              "study: fig2\nplatform: ring3.yaml\nworkload: {json: fig2.json}\n"
              "placers: [tarnawski.greedy]\n");
    }
    void write(const std::string& name, const std::string& text) {
        std::ofstream(dir.path() / name) << text;
    }
    // A partition file with devices for n0..n4.
    std::string partition(const std::vector<std::string>& devices) {
        std::string ops;
        for (std::size_t i = 0; i < devices.size(); ++i) {
            ops += (i == 0 ? "" : ", ") + std::string(R"({"op": "n)") + std::to_string(i) +
                   R"(", "device": ")" + devices[i] + "\"}";
        }
        write("p.json", R"({"placer": "hand", "ops": [)" + ops + "]}");
        return (dir.path() / "p.json").string();
    }
    hetsim::testing::Outcome check(const std::vector<std::string>& devices) {
        return run_hetsim("check-partition " + (dir.path() / "study.yaml").string() + " " +
                          partition(devices));
    }
    TempDir dir;
};

TEST_F(CheckPartition, ValidExitsZero) {
    // n0..n3 on chip 0 (c_b), n4 on chip 1 (c_c): t2 and t3 arrive, t4 is the output: 48 B.
    const auto valid = check({"c_b_D", "c_b_D", "c_b_D", "c_b_D", "c_c_D"});
    EXPECT_EQ(valid.exit_code, 0) << valid.output;
    EXPECT_THAT(valid.output, HasSubstr("VALID (5 op(s) on platform 'ring3', 3 chiplet(s)"));
    EXPECT_THAT(valid.output, HasSubstr("chip 1 (c_c_D): 1 op(s), peak 48 B at 'n4' "
                                        "(activations 48 B + weights 0 B), SRAM 100 B"));
    EXPECT_THAT(valid.output, HasSubstr("chip 2 (c_a_D): 0 op(s), peak 0 B (activations 0 B "
                                        "+ weights 0 B), SRAM 1000000 B"));
    // Figure 2e: n0 -> n2 jumps from chip 0 to chip 2 while n1 -> n3 passes chip 1.
    const auto triangle = check({"c_b_D", "c_c_D", "c_a_D", "c_a_D", "c_a_D"});
    EXPECT_EQ(triangle.exit_code, 1) << triangle.output;
    EXPECT_THAT(triangle.output,
                HasSubstr("triangle (Eq. 4): ops 'n0' (chip 0) -> 'n2' (chip 2) is a direct "
                          "dependency, but chip 0 reaches chip 2 through chip 1 (ops "
                          "'n0'->'n1', 'n1'->'n3')"));
}

TEST_F(CheckPartition, ViolationsExitOneWithEveryMessage) {
    // Ring order, not names: c_a is chip 2, so n2 on c_a with n4 on c_b sends backwards.
    const auto out = check({"c_b_D", "c_b_D", "c_a_D", "c_b_D", "c_b_D"});
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_THAT(out.output, HasSubstr("INVALID, 2 violation(s)"));
    EXPECT_THAT(out.output, HasSubstr("acyclic (Eq. 2): ops 'n2' (chip 2) -> 'n4' (chip 0) "
                                      "sends data backwards on the one-way ring"));
    EXPECT_THAT(out.output,
                HasSubstr("no-skip (Eq. 3): chip 1 has no op, but chip 2 is used (op 'n2')"));
    // Figure 2f: chip 1 (100 B) holds n2, n3, n4: 48 B of activations + 64 B of weights.
    const auto memory = check({"c_b_D", "c_b_D", "c_c_D", "c_c_D", "c_c_D"});
    EXPECT_EQ(memory.exit_code, 1) << memory.output;
    EXPECT_THAT(memory.output, HasSubstr("memory (H): chip 1 needs 112 B at op 'n2' "
                                         "(activations 48 B + weights 64 B), more than its 100 "
                                         "B of SRAM"));
}

TEST_F(CheckPartition, BadInputExitsTwo) {
    auto out = check({"c_b_D", "c_b_D", "c_b_D", "c_b_D", "nope"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_THAT(out.output, HasSubstr("ops[4].device: op 'n4' is on device 'nope', which "
                                      "platform 'ring3' does not have"));
    out = check({"c_b_D", "c_b_D", "c_b_D", "c_b_D", "H"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_THAT(out.output, HasSubstr("ops: op 'n4' is on device 'H', which has role host_cpu; "
                                      "expected a chiplet"));
    out = check({"c_b_D", "c_b_D", "c_b_D"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_THAT(out.output, HasSubstr("ops: 2 op(s) of graph"));
    EXPECT_THAT(out.output, HasSubstr("are not placed: 'n3', 'n4'"));
    const auto check_file = [&](const std::string& text) {
        write("p.json", text);
        return run_hetsim("check-partition " + (dir.path() / "study.yaml").string() + " " +
                          (dir.path() / "p.json").string());
    };
    out = check_file(R"({"ops": [{"op": "n9", "device": "c_b_D"}]})");
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_THAT(out.output, HasSubstr("ops[0]: op 'n9' is not in graph"));
    // The writer's type and summary must agree with the list (a hand-edited file otherwise).
    const std::string five = R"("ops": [{"op": "n0", "device": "c_b_D"}, {"op": "n1", "device":
        "c_b_D"}, {"op": "n2", "device": "c_b_D"}, {"op": "n3", "device": "c_b_D"},
        {"op": "n4", "device": "c_c_D")";
    out = check_file("{" + five + R"(, "type": "Conv"}]})");
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_THAT(out.output, HasSubstr("ops[4].type: op 'n4' is a"));
    EXPECT_THAT(out.output, HasSubstr("but the file says Conv"));
    out = check_file("{" + five + R"(}], "ops_per_device": {"c_b_D": 1000, "c_c_D": 1}})");
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_THAT(out.output, HasSubstr("ops_per_device.c_b_D: says 1000 op(s) on 'c_b_D', but "
                                      "\"ops\" places 4 there"));
    out = check_file("{" + five + R"(}], "ops_per_device": {"c_b_D": 4}})");
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_THAT(out.output, HasSubstr("ops_per_device: has no count for 'c_c_D'"));
    out = check_file("{" + five + R"(}], "ops_per_device": {"c_b_D": 4, "c_c_D": 1}})");
    EXPECT_EQ(out.exit_code, 0) << out.output;
}

}  // namespace
