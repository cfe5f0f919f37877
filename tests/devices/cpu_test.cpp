#include "devices/cpu.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::devices {
namespace {

using hetsim::testing::binary;
using hetsim::testing::OneOp;
using hetsim::testing::parse_platform_yaml;
using hetsim::testing::platform_yaml_error;
using hetsim::testing::unary;
using sim::DType;
using sim::TensorKind;

// Small round numbers so every expected time can be worked out by hand.
CpuParams tiny_params() {
    CpuParams p;
    p.cores = 4;
    p.clock_hz = 1e9;
    p.flops_per_cycle = 2;  // 2 GFLOP/s per core
    p.l1d_bytes = 1024;
    p.l2_bytes = 4096;
    p.dram_bandwidth_Bps = 1e9;
    p.dram_bandwidth_all_cores_Bps = 2e9;
    p.op_overhead_s = 1e-6;
    p.fork_join_overhead_s = 3e-6;
    p.gemm_n_half = 8;
    return p;
}

TEST(CpuModel, ElementwiseIsMemoryBoundPlusOverhead) {
    // Add (4x8)+(4x8) fp32: 32 FLOPs, 256 B read + 128 B written = 384 B from DRAM.
    const OneOp g = binary("Add", {4, 8}, {4, 8}, {4, 8}, {}, TensorKind::input);
    const sim::Op& op = g.graph.op(g.op);
    const CpuModel serial(tiny_params(), CpuMode::serial);
    const CpuModel parallel(tiny_params(), CpuMode::parallel);
    const CpuOpCost c = serial.cost(g.graph, op);
    EXPECT_DOUBLE_EQ(c.dram_bytes, 384);
    EXPECT_DOUBLE_EQ(c.compute_s, 16e-9);  // 32 / 2 GFLOP/s
    EXPECT_DOUBLE_EQ(c.memory_s, 384e-9);  // 384 B / 1 GB/s
    // serial: 1 us + max(16 ns, 384 ns) = 1.384 us
    EXPECT_DOUBLE_EQ(serial.op_time_s(g.graph, op), 1.384e-6);
    // parallel: 1 us + 3 us + max(32 / 8 GFLOP/s = 4 ns, 384 B / 2 GB/s = 192 ns) = 4.192 us
    EXPECT_DOUBLE_EQ(parallel.op_time_s(g.graph, op), 4.192e-6);
}

TEST(CpuModel, SmallGemmRunsBelowPeakAndReadsCachedWeightOnce) {
    // MatMul (4x8) x (8x16): 2*4*16*8 = 1024 FLOPs, efficiency M/(M+n_half) = 4/12 = 1/3.
    // Working set 128 + 512 + 256 = 896 B fits in L2 (4 KiB): each byte from DRAM once.
    const OneOp g = binary("MatMul", {4, 8}, {8, 16}, {4, 16});
    const sim::Op& op = g.graph.op(g.op);
    const CpuModel serial(tiny_params(), CpuMode::serial);
    const CpuModel parallel(tiny_params(), CpuMode::parallel);
    EXPECT_DOUBLE_EQ(serial.gemm_efficiency(4), 4.0 / 12.0);
    const CpuOpCost c = serial.cost(g.graph, op);
    EXPECT_DOUBLE_EQ(c.flops, 1024);
    EXPECT_DOUBLE_EQ(c.dram_bytes, 896);
    // serial: compute 1024 / (2 GFLOP/s / 3) = 1.536 us > memory 0.896 us -> 2.536 us
    EXPECT_NEAR(serial.op_time_s(g.graph, op), 2.536e-6, 1e-15);
    // parallel: compute 0.384 us < memory 896 B / 2 GB/s = 0.448 us -> 1 + 3 + 0.448 us
    EXPECT_NEAR(parallel.op_time_s(g.graph, op), 4.448e-6, 1e-15);
}

TEST(CpuModel, WeightNotFittingInCacheIsPackedOnceAndARereadPerColumnPanel) {
    // MatMul (8x64) x (64x32): A 2048 B, B 8192 B, C 1024 B: 11264 B > L2 4096 B.
    // Goto blocking: kc = min(K, 256) = 64; a 64 x nc panel of B fills half of L2 (2048 B):
    // nc = 2048 / (64 x 4) = 8 -> 32 / 8 = 4 column panels, each re-reading A; one K block,
    // so C is written once: 8192 + 4 x 2048 + 1024 = 17408 B.
    const OneOp g = binary("MatMul", {8, 64}, {64, 32}, {8, 32});
    const sim::Op& op = g.graph.op(g.op);
    const CpuModel serial(tiny_params(), CpuMode::serial);
    EXPECT_DOUBLE_EQ(serial.dram_bytes(g.graph, op), 17408);
    // compute 2*8*32*64 = 32768 FLOPs at 2 GFLOP/s x 8/16 = 32.768 us > memory 17.408 us.
    EXPECT_NEAR(serial.op_time_s(g.graph, op), 1e-6 + 32.768e-6, 1e-15);
}

TEST(CpuModel, DeepGemmRewritesItsOutputOncePerKBlock) {
    // MatMul (2x512) x (512x4): 4096 + 8192 + 32 B > L2. kc = 256 -> 2 K blocks: C is
    // written, read back and written again (3 x 32 B); nc = 2048 / (256 x 4) = 2 -> 2 column
    // panels re-read A: 8192 + 2 x 4096 + 3 x 32 = 16480 B.
    const OneOp g = binary("MatMul", {2, 512}, {512, 4}, {2, 4});
    const CpuModel serial(tiny_params(), CpuMode::serial);
    EXPECT_DOUBLE_EQ(serial.dram_bytes(g.graph, g.graph.op(g.op)), 16480);
}

TEST(CpuModel, GemmWithTransposedWeightAndBias) {
    // Gemm A(2x8) x W(16x8)^T + bias(16): 2*2*16*8 + 32 (bias) = 544 FLOPs, M = 2 ->
    // efficiency 2/10; 64 + 512 + 64 + 128 = 768 B fits in L2.
    OneOp g;
    const int a = g.graph.add_tensor("a", {2, 8}, DType::f32, TensorKind::input);
    const int w = g.graph.add_tensor("w", {16, 8}, DType::f32, TensorKind::weight);
    const int c = g.graph.add_tensor("c", {16}, DType::f32, TensorKind::weight);
    const int y = g.graph.add_tensor("y", {2, 16}, DType::f32);
    g.op = g.graph.add_op("gemm", "Gemm", {a, w, c}, {y}, {{"transB", std::int64_t{1}}});
    g.graph.finalize();
    const CpuModel serial(tiny_params(), CpuMode::serial);
    const CpuOpCost cost = serial.cost(g.graph, g.graph.op(g.op));
    EXPECT_DOUBLE_EQ(cost.flops, 544);
    EXPECT_DOUBLE_EQ(cost.efficiency, 0.2);
    EXPECT_DOUBLE_EQ(cost.dram_bytes, 768);
    // 1 us + 544 / (2 GFLOP/s x 0.2) = 1 us + 1.36 us
    EXPECT_NEAR(cost.total_s, 2.36e-6, 1e-15);
}

TEST(CpuModel, DataMovementCopiesOrAliases) {
    const CpuModel serial(tiny_params(), CpuMode::serial);
    // Transpose (4x8): reads 128 B and writes 128 B: 1 us + 256 ns.
    const OneOp t = unary("Transpose", {4, 8}, {8, 4}, {{"perm", std::vector<std::int64_t>{1, 0}}});
    EXPECT_DOUBLE_EQ(serial.op_time_s(t.graph, t.graph.op(t.op)), 1.256e-6);
    // Squeeze aliases its input: the dispatch overhead only.
    const OneOp s = unary("Squeeze", {1, 4, 8}, {4, 8}, {{"axes", std::vector<std::int64_t>{0}}});
    EXPECT_DOUBLE_EQ(serial.op_time_s(s.graph, s.graph.op(s.op)), 1e-6);
}

TEST(CpuModel, ParallelModeRunsOnlyThreadParallelOps) {
    const CpuModel serial(tiny_params(), CpuMode::serial);
    const CpuModel parallel(tiny_params(), CpuMode::parallel);
    const OneOp t = unary("Transpose", {4, 8}, {8, 4}, {{"perm", std::vector<std::int64_t>{1, 0}}});
    const sim::Op& op = t.graph.op(t.op);
    EXPECT_TRUE(serial.supports(t.graph, op).ok);
    const sim::Support s = parallel.supports(t.graph, op);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.reason.find("Transpose"), std::string::npos) << s.reason;
    EXPECT_NE(s.reason.find("lee2022 §4.3"), std::string::npos) << s.reason;
    EXPECT_TRUE(std::isinf(parallel.op_time_s(t.graph, op)));

    for (const char* yes : {"MatMul", "Gemm", "Add", "Mul", "Erf", "Softmax", "ReduceMean",
                            "LayerNormalization", "Tanh"}) {
        EXPECT_TRUE(CpuModel::parallelizable(yes)) << yes;
    }
    for (const char* no : {"Reshape", "Gather", "Unsqueeze", "Squeeze", "Slice", "Concat", "Split",
                           "Transpose", "Shape", "Cast"}) {
        EXPECT_FALSE(CpuModel::parallelizable(no)) << no;
    }
}

TEST(CpuModel, ComputeDtypeIsFp32) {
    EXPECT_EQ(CpuModel(tiny_params(), CpuMode::serial).compute_dtype(), DType::f32);
}

TEST(CpuConversion, Fp32Bf16ConversionOnTheCpu) {
    const CpuConversionModel conv(2e9, 1e-6);
    // 1000 elements x 4 B / 2 GB/s = 2 us, + 1 us fixed; the same both ways (lee2022 §2.3).
    EXPECT_DOUBLE_EQ(conv.conversion_time_s(1000, DType::f32, DType::bf16), 3e-6);
    EXPECT_DOUBLE_EQ(conv.conversion_time_s(1000, DType::bf16, DType::f32), 3e-6);
    EXPECT_DOUBLE_EQ(conv.conversion_time_s(1000, DType::f32, DType::f32), 0.0);
}

// --- YAML -------------------------------------------------------------------------------

std::string cpu_yaml(const std::string& extra_or_replacement, const std::string& clock = "1.5 GHz",
                     const std::string& bandwidth = "4 GB/s",
                     const std::string& devices = "{CPU_S: serial, CPU_P: parallel}") {
    return "name: t\ncomponents:\n  cpu:\n    type: cpu\n    devices: " + devices +
           "\n    cores: 4\n    clock: " + clock +
           "\n    flops_per_cycle: 2\n    l1d: 32 KiB\n    l2: 1 MiB\n    dram_bandwidth: " +
           bandwidth + "\n" + extra_or_replacement;
}

TEST(CpuYaml, BuildsOneResourceAndTwoDevices) {
    const sim::Platform p = parse_platform_yaml(
        cpu_yaml("    dram_bandwidth_all_cores: 10 GB/s\n    op_overhead: 2 us\n"
                 "    fork_join_overhead: 5 us\n    gemm_n_half: 9\n    memory: 2 GiB\n"
                 "    convert_bandwidth: 2 GB/s\n"));
    ASSERT_EQ(p.resources().size(), 1u);
    EXPECT_EQ(p.resources()[0].name, "cpu");
    EXPECT_EQ(p.resources()[0].capacity, 4);
    ASSERT_EQ(p.device_count(), 2);
    EXPECT_EQ(p.device(0).name, "CPU_S");
    EXPECT_EQ(p.device(0).units, 1);
    EXPECT_EQ(p.device(1).name, "CPU_P");
    EXPECT_EQ(p.device(1).units, 4);
    EXPECT_EQ(p.device(1).component, "cpu");
    EXPECT_EQ(p.device(1).resource, 0);
    const auto& model = dynamic_cast<const CpuModel&>(*p.device(1).model);
    EXPECT_EQ(model.mode(), CpuMode::parallel);
    EXPECT_DOUBLE_EQ(model.params().clock_hz, 1.5e9);
    EXPECT_DOUBLE_EQ(model.params().dram_bandwidth_all_cores_Bps, 10e9);
    EXPECT_DOUBLE_EQ(model.params().fork_join_overhead_s, 5e-6);
    EXPECT_EQ(model.params().l1d_bytes, 32768);
    const sim::Component* c = p.find_component("cpu");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->memory_bytes, std::int64_t{2} << 30);
    ASSERT_NE(c->converter, nullptr);
    // 500 elements x 4 B / 2 GB/s = 1 us
    EXPECT_DOUBLE_EQ(c->converter->conversion_time_s(500, DType::f32, DType::bf16), 1e-6);
}

TEST(CpuYaml, UnknownKeySuggestsTheClosest) {
    const std::string e = platform_yaml_error(cpu_yaml("    fork_join_overheads: 5 us\n"));
    EXPECT_NE(e.find("components.cpu"), std::string::npos) << e;
    EXPECT_NE(e.find("did you mean 'fork_join_overhead'"), std::string::npos) << e;
}

TEST(CpuYaml, MissingUnitNamesThePath) {
    const std::string e = platform_yaml_error(cpu_yaml("", "1.5"));
    EXPECT_NE(e.find("test.yaml"), std::string::npos) << e;
    EXPECT_NE(e.find("components.cpu.clock"), std::string::npos) << e;
}

TEST(CpuYaml, NegativeBandwidthNamesThePath) {
    const std::string e = platform_yaml_error(cpu_yaml("", "1.5 GHz", "-4 GB/s"));
    EXPECT_NE(e.find("components.cpu.dram_bandwidth"), std::string::npos) << e;
}

TEST(CpuYaml, UnknownModeSuggestsTheClosest) {
    const std::string e =
        platform_yaml_error(cpu_yaml("", "1.5 GHz", "4 GB/s", "{CPU_S: serial, CPU_P: paralel}"));
    EXPECT_NE(e.find("components.cpu.devices.CPU_P"), std::string::npos) << e;
    EXPECT_NE(e.find("did you mean 'parallel'"), std::string::npos) << e;
}

TEST(CpuYaml, ZeroCoresIsRejected) {
    std::string yaml = cpu_yaml("");
    yaml.replace(yaml.find("cores: 4"), 8, "cores: 0");
    const std::string e = platform_yaml_error(yaml);
    EXPECT_NE(e.find("components.cpu.cores"), std::string::npos) << e;
}

}  // namespace
}  // namespace hetsim::devices
