// The GPU / accelerator model (devices/gpu.hpp) and pinned CPU cores, with hand-computed
// numbers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "devices/cpu.hpp"
#include "devices/gpu.hpp"
#include "sim/op_table.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::devices {
namespace {

using hetsim::testing::binary;
using hetsim::testing::OneOp;

// 2 SMs at 1 GHz, 4 FLOP/cycle each (8 GFLOP/s), memory fast enough to stay out of the way
// unless a test says otherwise; one candidate tile of 2 x 2 and no K split.
GpuParams small_gpu() {
    GpuParams p;
    p.sms = 2;
    p.clock_hz = 1e9;
    p.fp32_flops_per_cycle_per_sm = 4;
    p.memory_bandwidth_Bps = 80e9;
    p.launch_overhead_s = 1e-6;
    p.gemm_tiles = {{2, 2}};
    p.split_k = {1};
    return p;
}

TEST(GpuModel, GemmRunsInWavesOfWholeTiles) {
    // (4x8) x (8x4): 2 x 2 tiles of 2 x 2 = 4 blocks over 2 SMs = 2 waves; a block is 8 K
    // steps of 2*2*2 FLOPs at 4 FLOP/cycle = 16 cycles: 32 ns. Operands 320 B at 80 GB/s = 4 ns.
    const GpuModel gpu(small_gpu());
    const GemmKernelCost k = gpu.gemm(1, 4, 4, 8, sim::DType::f32);
    EXPECT_DOUBLE_EQ(k.blocks, 4.0);
    EXPECT_DOUBLE_EQ(k.waves, 2.0);
    EXPECT_NEAR(k.compute_s, 32e-9, 1e-18);
    EXPECT_NEAR(k.memory_s, 4e-9, 1e-18);
    EXPECT_NEAR(k.total_s, 32e-9, 1e-18);
    // One more row: the edge tile is computed whole, 3 x 2 = 6 blocks, 3 waves: 48 ns.
    EXPECT_NEAR(gpu.gemm(1, 5, 4, 8, sim::DType::f32).total_s, 48e-9, 1e-18);
    // A third SM does not help 4 blocks: still 2 waves (wave quantisation).
    GpuParams three = small_gpu();
    three.sms = 3;
    EXPECT_NEAR(GpuModel(three).gemm(1, 4, 4, 8, sim::DType::f32).total_s, 32e-9, 1e-18);
    // A batch of 2 is twice the blocks.
    EXPECT_DOUBLE_EQ(gpu.gemm(2, 4, 4, 8, sim::DType::f32).blocks, 8.0);
}

TEST(GpuModel, OperandLoadsMakeSmallTilesSlowerPerFlop) {
    // tile_load_Bpc = 4: a K step also loads (tm + tn) x 4 B at 4 B/cycle. The 2 x 2 tile:
    // 2 + 4 = 6 cycles per step, 48 per block, 2 waves = 96 ns; the 4 x 4 tile: 8 + 8 = 16
    // per step, 128 ns in one wave. The model takes the faster, as cuBLAS's heuristic does.
    GpuParams p = small_gpu();
    p.gemm_tiles = {{4, 4}, {2, 2}};
    p.tile_load_Bpc = 4;
    const GemmKernelCost k = GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32);
    EXPECT_EQ(k.tile.m, 2);
    EXPECT_NEAR(k.total_s, 96e-9, 1e-18);
    // Halve the compute efficiency: the 2 x 2 tile's FMAs take 4 cycles a step, (4 + 4) x 8
    // x 2 waves = 128 ns; the 4 x 4 tile (16 + 8) x 8 = 192 ns.
    p.compute_efficiency = 0.5;
    EXPECT_NEAR(GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32).total_s, 128e-9, 1e-18);
}

TEST(GpuModel, SplitKSpreadsALongReductionOverIdleSms) {
    // (2x64) x (64x2) on 4 SMs: one 2 x 2 block of 64 steps = 128 ns, three SMs idle. Split in
    // 4: 4 blocks of 16 steps in one wave = 32 ns, operands (128 + 128 + 4) x 4 B = 13 ns, plus
    // the partial sums 2 x 4 x 2 x 2 x 4 B = 128 B = 1.6 ns and no kernel floor: 33.6 ns.
    GpuParams p = small_gpu();
    p.sms = 4;
    p.split_k = {1, 4};
    const GemmKernelCost k = GpuModel(p).gemm(1, 2, 2, 64, sim::DType::f32);
    EXPECT_EQ(k.split_k, 4);
    EXPECT_NEAR(k.total_s, 33.6e-9, 1e-15);
}

TEST(GpuModel, SixteenBitGemmsUseTheTensorRate) {
    GpuParams p = small_gpu();
    p.bf16_flops_per_cycle_per_sm = 16;  // 4x the fp32 rate
    const GpuModel gpu(p);
    EXPECT_NEAR(gpu.gemm(1, 4, 4, 8, sim::DType::bf16).compute_s, 8e-9, 1e-18);
    EXPECT_NEAR(gpu.gemm(1, 4, 4, 8, sim::DType::f32).compute_s, 32e-9, 1e-18);
}

TEST(GpuModel, MemoryBoundKernelStreamsAtTheAchievableBandwidthAfterItsFloor) {
    // Add of 1000 floats: 12 kB at 8 GB/s x 0.5 = 3 us, after a 1 us kernel floor; the host
    // issues it in 1 us more.
    GpuParams p = small_gpu();
    p.memory_bandwidth_Bps = 8e9;
    p.bandwidth_efficiency = 0.5;
    p.kernel_latency_s = 1e-6;
    const OneOp g = binary("Add", {1000}, {1000}, {1000}, {}, sim::TensorKind::input);
    const GpuModel gpu(p);
    EXPECT_NEAR(gpu.kernel_time_s(g.graph, g.get()), 4e-6, 1e-15);
    EXPECT_NEAR(gpu.op_time_s(g.graph, g.get()), 5e-6, 1e-15);
}

TEST(GpuModel, FusedLstmIsAProjectionGemmThenOneGemmPerStep) {
    // LSTM, 5 steps, batch 1, input 8, hidden 16 (4 gates: 64 columns); 64 x 64 tiles:
    //   projection (5 x 8) x (8 x 64): one block of 8 steps x 2048 cycles = 16.384 us;
    //   each step (1 x 16) x (16 x 64): one block of 16 x 2048 cycles = 32.768 us, plus the
    //   gates, (64 + 3 x 16) x 4 B = 448 B at 80 GB/s = 5.6 ns, plus the 1 us step latency;
    //   two kernels of 2 us floor each: 4 + 16.384 + 5 x 33.7736 = 189.252 us on the GPU,
    //   and two launches of 1 us on the host.
    sim::Graph graph("rnn");
    const int x = graph.add_tensor("x", {5, 1, 8}, sim::DType::f32, sim::TensorKind::input);
    const int w = graph.add_tensor("w", {1, 64, 8}, sim::DType::f32, sim::TensorKind::weight);
    const int r = graph.add_tensor("r", {1, 64, 16}, sim::DType::f32, sim::TensorKind::weight);
    const int y = graph.add_tensor("y", {5, 1, 1, 16}, sim::DType::f32);
    const int op =
        graph.add_op("lstm", "LSTM", {x, w, r}, {y}, {{"hidden_size", std::int64_t{16}}});
    graph.finalize();
    GpuParams p = small_gpu();
    p.gemm_tiles = {{64, 64}};
    p.kernel_latency_s = 2e-6;
    p.recurrent_step_latency_s = 1e-6;
    const GpuOpCost c = GpuModel(p).cost(graph, graph.op(op));
    EXPECT_DOUBLE_EQ(c.kernels, 2.0);
    EXPECT_NEAR(c.device_s, 189.252e-6, 1e-12);
    EXPECT_NEAR(c.total_s, 191.252e-6, 1e-12);
}

TEST(GpuModel, ConvIsAnImplicitGemmOverOutputPixels) {
    // x [2, 6, 8, 8], w [4, 3, 3, 3], group 2, pads 1: output [2, 4, 8, 8]. Per group:
    // m = 2 x 64 = 128 pixels, n = 4 / 2 = 2 channels, k = 3 x 3 x 3 = 27.
    const OneOp g = binary("Conv", {2, 6, 8, 8}, {4, 3, 3, 3}, {2, 4, 8, 8},
                           {{"group", std::int64_t{2}},
                            {"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
                            {"kernel_shape", std::vector<std::int64_t>{3, 3}}});
    const auto d = sim::gemm_dims(g.graph, g.get());
    ASSERT_TRUE(d.has_value());
    EXPECT_DOUBLE_EQ(d->batch, 2.0);
    EXPECT_DOUBLE_EQ(d->m, 128.0);
    EXPECT_DOUBLE_EQ(d->n, 2.0);
    EXPECT_DOUBLE_EQ(d->k, 27.0);
}

TEST(GpuModel, UnsupportedOpsAreRefusedWithTheReason) {
    GpuParams p = small_gpu();
    p.unsupported_ops = {"Gather"};
    const OneOp g =
        binary("Gather", {10, 4}, {3}, {3, 4}, {}, sim::TensorKind::input, sim::DType::f32);
    const GpuModel gpu(p);
    EXPECT_FALSE(gpu.supports(g.graph, g.get()).ok);
    EXPECT_THAT(gpu.supports(g.graph, g.get()).reason, ::testing::HasSubstr("unsupported_ops"));
}

TEST(CpuPinned, EachPinnedDeviceIsACoreOfItsOwn) {
    const sim::Platform p = hetsim::testing::parse_platform_yaml(R"(
name: pinned
host: cpu
components:
  cpu:
    type: cpu
    devices: {C0: serial, C1: serial}
    pinned: true
    cores: 2
    clock: 1 GHz
    flops_per_cycle: 1
    l1d: 32 KiB
    l2: 1 MiB
    dram_bandwidth: 1 GB/s
)");
    ASSERT_EQ(p.device_count(), 2);
    EXPECT_NE(p.device(0).resource, p.device(1).resource);
    EXPECT_EQ(p.resources()[static_cast<std::size_t>(p.device(0).resource)].capacity, 1);
}

TEST(CpuPinned, RefusesAParallelDevice) {
    EXPECT_THAT(hetsim::testing::platform_yaml_error(R"(
name: pinned
host: cpu
components:
  cpu:
    type: cpu
    devices: {C0: serial, CP: parallel}
    pinned: true
    cores: 2
    clock: 1 GHz
    flops_per_cycle: 1
    l1d: 32 KiB
    l2: 1 MiB
    dram_bandwidth: 1 GB/s
)"),
                ::testing::HasSubstr("parallel devices need the shared cores"));
}

}  // namespace
}  // namespace hetsim::devices
