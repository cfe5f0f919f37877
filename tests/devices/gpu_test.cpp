// The GPU / accelerator model (devices/gpu.hpp) and pinned CPU cores, with hand-computed
// numbers.
#include <cmath>
#include <limits>

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
using hetsim::testing::unary;

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

TEST(GpuModel, AKValueCostsItsFmasPlusItsOperandLoads) {
    // tile_load_Bpc = 1: per value of K a 2 x 2 block loads (2 + 2) x 4 B at 1 B/cycle, 16
    // cycles, on top of its 2 cycles of FMAs (both are instructions the SM issues). 4 blocks,
    // 2 on the busiest SM: 2 x 8 x 18 = 288 ns.
    GpuParams p = small_gpu();
    p.tile_load_Bpc = 1;
    EXPECT_NEAR(GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32).total_s, 288e-9, 1e-18);
    // At 8 B/cycle the loads take 2 cycles: 2 x 8 x 4 = 64 ns.
    p.tile_load_Bpc = 8;
    EXPECT_NEAR(GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32).total_s, 64e-9, 1e-18);
    // Edge tiles compute whole but load only the rows that exist: m = 3 is 2 row tiles of 1.5
    // rows on average, (1.5 + 2) x 4 B = 14 cycles at 1 B/cycle, + 2: 2 x 8 x 16 = 256 ns.
    p.tile_load_Bpc = 1;
    EXPECT_NEAR(GpuModel(p).gemm(1, 3, 4, 8, sim::DType::f32).total_s, 256e-9, 1e-18);
    // Halving the compute efficiency doubles the FMA cycles, 4 a value: with free loads 64 ns.
    p.tile_load_Bpc = 0;
    p.compute_efficiency = 0.5;
    EXPECT_NEAR(GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32).total_s, 64e-9, 1e-18);
}

TEST(GpuModel, FewResidentBlocksWaitOnTheirKTiles) {
    // k_tile_latency_cycles = 64: an fp32 K tile is 8 values, so a block needs at least 8
    // cycles per value of K however idle its SM. The busiest SM's 2 blocks would take 2 x 2
    // = 4 cycles a value: latency-bound, 8 x 8 = 64 ns instead of 32.
    GpuParams p = small_gpu();
    p.k_tile_latency_cycles = 64;
    const GemmKernelCost two = GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32);
    EXPECT_DOUBLE_EQ(two.resident, 2.0);
    EXPECT_NEAR(two.total_s, 64e-9, 1e-18);
    // A lone block (a 2 x 2 output) takes as long: 64 ns.
    EXPECT_NEAR(GpuModel(p).gemm(1, 2, 2, 8, sim::DType::f32).total_s, 64e-9, 1e-18);
    // 8 resident blocks on an SM (16 x 4: 16 blocks over 2 SMs) need 8 x 2 = 16 cycles a
    // value, more than the latency: throughput-bound, 8 x 16 = 128 ns.
    EXPECT_NEAR(GpuModel(p).gemm(1, 16, 4, 8, sim::DType::f32).total_s, 128e-9, 1e-18);
    // 16-bit operands move K in tiles of 32: 2 cycles a value. With a tensor rate 4x the fp32
    // one (half a cycle of FMAs a value), the lone block is latency-bound: 32 x 2 = 64 ns.
    p.bf16_flops_per_cycle_per_sm = 16;
    EXPECT_NEAR(GpuModel(p).gemm(1, 2, 2, 32, sim::DType::bf16).total_s, 64e-9, 1e-18);
    // Without the latency, a round of blocks costs only their throughput: 32 ns.
    p.k_tile_latency_cycles = 0;
    EXPECT_NEAR(GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32).total_s, 32e-9, 1e-18);
}

TEST(GpuModel, RegistersThreadsAndSharedMemoryLimitTheResidentBlocks) {
    GpuParams p = small_gpu();
    // 128 x 128, 8 warps: 256 threads of 128 x 128 / 256 + 40 = 104 registers each, so 65536
    // / (104 x 256) = 2.46: 2 blocks; threads would allow 8, shared memory 96 KiB / (3 x 32 B x
    // 256 rows) = 4.
    EXPECT_EQ(p.resident_blocks({128, 128, 8}), 2);
    // 256 x 128, 8 warps: 168 registers a thread, 1.52: one block.
    EXPECT_EQ(p.resident_blocks({256, 128, 8}), 1);
    // 32 x 32, 2 warps: registers allow 65536 / (56 x 64) = 18, threads 32, block slots 32,
    // shared memory 96 KiB / 6 KiB = 16 of them; with Hopper's 228 KiB, 38: the registers' 18.
    EXPECT_EQ(p.resident_blocks({32, 32, 2}), 16);
    p.shared_memory_per_sm_bytes = 228.0 * 1024.0;
    EXPECT_EQ(p.resident_blocks({32, 32, 2}), 18);
    // A Turing SM: 1024 threads and 16 block slots.
    p.max_threads_per_sm = 1024;
    p.max_blocks_per_sm = 16;
    EXPECT_EQ(p.resident_blocks({32, 32, 2}), 16);
    p.max_blocks_per_sm = 4;
    EXPECT_EQ(p.resident_blocks({32, 32, 2}), 4);
}

TEST(GpuModel, EveryBlockPaysTheBlockOverheadAndEveryRoundItsLatency) {
    // 100 cycles a block: the busiest SM's 2 blocks are resident together, one round, 2 x 100
    // + 8 x 2 x 2 = 232 ns.
    GpuParams p = small_gpu();
    p.block_overhead_cycles = 100;
    const GemmKernelCost one_round = GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32);
    EXPECT_DOUBLE_EQ(one_round.rounds, 1.0);
    EXPECT_NEAR(one_round.total_s, 232e-9, 1e-18);
    // With one block slot per SM they run in 2 rounds of one: 2 x (100 + 8 x 2), the same
    // 232 ns, as long as the FMAs bound a round ...
    p.max_blocks_per_sm = 1;
    const GemmKernelCost two_rounds = GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32);
    EXPECT_DOUBLE_EQ(two_rounds.rounds, 2.0);
    EXPECT_NEAR(two_rounds.total_s, 232e-9, 1e-18);
    // ... but each round waits out the K tiles' latency (8 cycles a value): 2 x (100 + 64)
    // = 328 ns, against 200 + 64 = 264 ns when both blocks share one round.
    p.k_tile_latency_cycles = 64;
    EXPECT_NEAR(GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32).total_s, 328e-9, 1e-18);
    p.max_blocks_per_sm = 32;
    EXPECT_NEAR(GpuModel(p).gemm(1, 4, 4, 8, sim::DType::f32).total_s, 264e-9, 1e-18);
}

TEST(GpuModel, AMatrixVectorProductStreamsAsAGemv) {
    // (1 x 64) x (64 x 32): every weight is used once, so BLAS streams it: (64 + 2048 + 32)
    // x 4 B = 8576 B at 80 GB/s x 0.5 = 214.4 ns, whatever the tiles (its 4096 FLOPs take 32
    // ns at 2 x 64 FLOP/cycle).
    GpuParams p = small_gpu();
    p.fp32_flops_per_cycle_per_sm = 64;
    p.bandwidth_efficiency = 0.5;
    const GemmKernelCost row = GpuModel(p).gemm(1, 1, 32, 64, sim::DType::f32);
    EXPECT_TRUE(row.gemv);
    EXPECT_NEAR(row.total_s, 214.4e-9, 1e-15);
    // The same with one output column (n = 1), and not with two.
    EXPECT_TRUE(GpuModel(p).gemm(1, 32, 1, 64, sim::DType::f32).gemv);
    EXPECT_FALSE(GpuModel(p).gemm(1, 32, 2, 64, sim::DType::f32).gemv);
    // 32 outputs are one block's: one SM streams them, at tile_load_Bpc = 1 B/cycle = 1 GB/s:
    // 8576 ns. 64 outputs occupy both SMs: twice the rate, (64 + 4096 + 64) x 4 B / 2 GB/s.
    p.tile_load_Bpc = 1;
    EXPECT_NEAR(GpuModel(p).gemm(1, 1, 32, 64, sim::DType::f32).total_s, 8576e-9, 1e-15);
    EXPECT_NEAR(GpuModel(p).gemm(1, 1, 64, 64, sim::DType::f32).total_s, 8448e-9, 1e-15);
    // The library's GEMV may reach less than an element-wise kernel: at
    // gemm_bandwidth_efficiency 0.25, 8576 B at 20 GB/s = 428.8 ns.
    p.tile_load_Bpc = 0;
    p.gemm_bandwidth_efficiency = 0.25;
    EXPECT_NEAR(GpuModel(p).gemm(1, 1, 32, 64, sim::DType::f32).total_s, 428.8e-9, 1e-15);
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
    // The reduction is a chained kernel: with 100 ns for it, 4 slices cost 133.6 ns and one
    // block alone (128 ns) wins.
    p.chained_kernel_latency_s = 100e-9;
    EXPECT_EQ(GpuModel(p).gemm(1, 2, 2, 64, sim::DType::f32).split_k, 1);
    // A slice is at least one K tile (8 fp32 values): K = 24 cannot be split in 4, though 4
    // slices of 6 would beat one block's 48 ns.
    p.chained_kernel_latency_s = 0;
    EXPECT_EQ(GpuModel(p).gemm(1, 2, 2, 24, sim::DType::f32).split_k, 1);
    // Not splitting is a candidate even when the list leaves it out.
    p.split_k = {4};
    EXPECT_EQ(GpuModel(p).params().split_k.front(), 1);
    // cuDNN's implicit-GEMM convolutions do not split K.
    p.split_k = {1, 4};
    EXPECT_EQ(GpuModel(p).gemm(1, 2, 2, 64, sim::DType::f32, false).split_k, 1);
}

TEST(GpuModel, AFusionGroupAnchoredAtAConvRunsAsTheConv) {
    // The (2 x 64) x (64 x 2) product above as a 1 x 1 convolution over 2 pixels: 64 input
    // channels onto 2. cuDNN does not split its K: one block of 64 steps, 128 ns (the op's
    // 1040 B at 80 GB/s take 13 ns). A TVM fusion group anchored at the Conv (a Relu fused
    // into it) is costed the same way, not as a MatMul that splits K in 4 (33.6 ns).
    GpuParams p = small_gpu();
    p.sms = 4;
    p.split_k = {1, 4};
    const GpuModel gpu(p);
    const sim::Attributes conv_attrs = {{"kernel_shape", std::vector<std::int64_t>{1, 1}}};
    const OneOp conv = binary("Conv", {1, 64, 2, 1}, {2, 64, 1, 1}, {1, 2, 2, 1}, conv_attrs);
    sim::Attributes fused_attrs = conv_attrs;
    fused_attrs["anchor"] = std::string("Conv");
    fused_attrs["fused_ops"] = std::string("Conv+Relu");
    const OneOp fused = binary("Fused", {1, 64, 2, 1}, {2, 64, 1, 1}, {1, 2, 2, 1}, fused_attrs);
    EXPECT_NEAR(gpu.kernel_time_s(conv.graph, conv.get()), 128e-9, 1e-15);
    EXPECT_NEAR(gpu.kernel_time_s(fused.graph, fused.get()), 128e-9, 1e-15);
    EXPECT_NEAR(gpu.gemm(1, 2, 2, 64, sim::DType::f32).total_s, 33.6e-9, 1e-15);
}

TEST(GpuModel, SixteenBitGemmsUseTheTensorRate) {
    GpuParams p = small_gpu();
    p.bf16_flops_per_cycle_per_sm = 16;  // 4x the fp32 rate
    const GpuModel gpu(p);
    EXPECT_NEAR(gpu.gemm(1, 4, 4, 8, sim::DType::bf16).compute_s, 8e-9, 1e-18);
    EXPECT_NEAR(gpu.gemm(1, 4, 4, 8, sim::DType::f32).compute_s, 32e-9, 1e-18);
}

TEST(GpuModel, TensorCoreKernelsOverlapTheirOperandLoadsWithTheirMath) {
    // (4x8) x (8x4) at tile_load_Bpc = 1 B/cycle: 2 blocks of 2 x 2 on each SM, one round.
    // fp32 (SIMT: the warps that issue the FFMAs also issue the loads): per K value and block
    // 2 x 2 FMAs at 4 FLOP/cycle = 2 cycles plus (2 + 2) x 4 B = 16 cycles of loads, so
    // 8 x 2 x 18 = 288 ns. bf16 (tensor cores, asynchronous copies): the larger of 0.5 cycles
    // of MMA and (2 + 2) x 2 B = 8 cycles of loads: 8 x 2 x 8 = 128 ns, not 136.
    GpuParams p = small_gpu();
    p.bf16_flops_per_cycle_per_sm = 16;
    p.tile_load_Bpc = 1;
    const GpuModel gpu(p);
    EXPECT_NEAR(gpu.gemm(1, 4, 4, 8, sim::DType::f32).compute_s, 288e-9, 1e-18);
    EXPECT_NEAR(gpu.gemm(1, 4, 4, 8, sim::DType::bf16).compute_s, 128e-9, 1e-18);
}

TEST(GpuModel, TensorCoreOperandsWithUnalignedRowsLoadInNarrowerAccesses) {
    // The widest access a row allows: 8 bf16 = 16 B; 4 bf16 = 8 B; 7 bf16 = 14 B, 2-byte
    // accesses; 3 fp32 = 12 B, 4-byte ones; unknown rows count as aligned.
    EXPECT_EQ(gemm_alignment(8, 4, sim::DType::bf16).a_bytes, 16.0);
    EXPECT_EQ(gemm_alignment(8, 4, sim::DType::bf16).b_bytes, 8.0);
    EXPECT_EQ(gemm_alignment(7, 12, sim::DType::bf16).a_bytes, 2.0);
    EXPECT_EQ(gemm_alignment(7, 12, sim::DType::bf16).b_bytes, 8.0);
    EXPECT_EQ(gemm_alignment(0, 3, sim::DType::f32).a_bytes, 16.0);
    EXPECT_EQ(gemm_alignment(0, 3, sim::DType::f32).b_bytes, 4.0);
    // (4x8) x (8x4) bf16 at 1 B/cycle, two 2 x 2 blocks a round on each SM (the test above):
    // aligned, (2 + 2) x 2 B = 8 cycles a K value, 8 x 2 x 8 = 128 ns. B's rows of 4 bf16
    // (8 B) take two 8-byte loads per 16 bytes: (2 + 2 x 2) x 2 B = 12 cycles, 192 ns. A's
    // rows of 8 are aligned.
    GpuParams p = small_gpu();
    p.bf16_flops_per_cycle_per_sm = 16;
    p.tile_load_Bpc = 1;
    const GpuModel gpu(p);
    const GemmAlignment b_in_halves{16.0, 8.0};
    EXPECT_NEAR(gpu.gemm(1, 4, 4, 8, sim::DType::bf16, true, 1.0, b_in_halves).compute_s, 192e-9,
                1e-18);
    // A MatMul graph says its rows: [4, 8] x [8, 4] in bf16 is that kernel (after the floor).
    const auto mm =
        binary("MatMul", {4, 8}, {8, 4}, {4, 4}, {}, sim::TensorKind::weight, sim::DType::bf16);
    EXPECT_NEAR(gpu.kernel_time_s(mm.graph, mm.get()), 192e-9, 1e-15);
    // An fp32 kernel's FFMAs set its pace: unaligned rows change nothing (288 ns above).
    EXPECT_NEAR(gpu.gemm(1, 4, 4, 8, sim::DType::f32, true, 1.0, {4.0, 4.0}).compute_s, 288e-9,
                1e-18);
}

TEST(GpuModel, TensorCoreKernelsMayHaveTheirOwnKTileLatency) {
    // (2x32) x (32x2): one 2 x 2 block. 16-bit K tiles hold 32 values: at k_tile_latency 64
    // cycles a K value waits 2 cycles, more than its 0.5 cycles of MMA (no loads): 32 x 2 =
    // 64 ns. A tensor-core latency of 16 cycles makes it 0.5 cycles a K value, 16 ns; fp32
    // keeps the shared one (8-value tiles: 8 cycles a K value against 2 of FMAs, 256 ns).
    GpuParams p = small_gpu();
    p.bf16_flops_per_cycle_per_sm = 16;
    p.k_tile_latency_cycles = 64;
    EXPECT_NEAR(GpuModel(p).gemm(1, 2, 2, 32, sim::DType::bf16).compute_s, 64e-9, 1e-18);
    p.tensor_k_tile_latency_cycles = 16;
    EXPECT_NEAR(GpuModel(p).gemm(1, 2, 2, 32, sim::DType::bf16).compute_s, 16e-9, 1e-18);
    EXPECT_NEAR(GpuModel(p).gemm(1, 2, 2, 32, sim::DType::f32).compute_s, 256e-9, 1e-18);
}

TEST(GpuModel, TensorCoreKernelsWithoutTmaTakeTheLegacyConstants) {
    // The (2x32) x (32x2) bf16 block above, with a 100-cycle block overhead. Aligned rows (TMA):
    // the tensor constants, 16 cycles a 32-value K tile (16 ns of K loop) and a 20-cycle
    // block overhead: 36 ns. B's rows of 2 bf16 (4 B) leave no TMA: the legacy K-tile
    // latency, 128 cycles (4 cycles a K value, 128 ns), and the shared block overhead, 100
    // cycles: 228 ns (B's 4-byte loads stay under the latency at tile_load_Bpc 0: free).
    GpuParams p = small_gpu();
    p.bf16_flops_per_cycle_per_sm = 16;
    p.k_tile_latency_cycles = 64;
    p.block_overhead_cycles = 100;
    p.tensor_k_tile_latency_cycles = 16;
    p.tensor_block_overhead_cycles = 20;
    p.legacy_tensor_k_tile_latency_cycles = 128;
    const GpuModel gpu(p);
    EXPECT_NEAR(gpu.gemm(1, 2, 2, 32, sim::DType::bf16).compute_s, 36e-9, 1e-18);
    const GemmAlignment b_unaligned{16.0, 4.0};
    EXPECT_NEAR(gpu.gemm(1, 2, 2, 32, sim::DType::bf16, true, 1.0, b_unaligned).compute_s, 228e-9,
                1e-18);
    // fp32 kernels keep the shared constants whatever their rows: 8 cycles a K value (64-cycle
    // tiles of 8) against 2 of FMAs, and 100 cycles: 356 ns.
    EXPECT_NEAR(gpu.gemm(1, 2, 2, 32, sim::DType::f32, true, 1.0, {4.0, 4.0}).compute_s, 356e-9,
                1e-18);
    // Without the legacy constant, an unaligned bf16 kernel takes the tensor K-tile latency
    // (16 ns) and, being no TMA kernel, still the shared block overhead: 116 ns.
    p.legacy_tensor_k_tile_latency_cycles = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NEAR(GpuModel(p).gemm(1, 2, 2, 32, sim::DType::bf16, true, 1.0, b_unaligned).compute_s,
                116e-9, 1e-18);
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
    // gemm_bandwidth_efficiency is the BLAS library's, not an element-wise kernel's.
    p.gemm_bandwidth_efficiency = 0.1;
    EXPECT_NEAR(GpuModel(p).kernel_time_s(g.graph, g.get()), 4e-6, 1e-15);
}

TEST(GpuModel, AKernelThatReducesAcrossThreadsPaysTheReductionLatency) {
    GpuParams p = small_gpu();
    p.kernel_latency_s = 1e-6;
    const GpuModel without(p);
    p.reduction_latency_s = 2.5e-6;
    const GpuModel with(p);
    auto extra_s = [&](const OneOp& g) {
        return with.kernel_time_s(g.graph, g.get()) - without.kernel_time_s(g.graph, g.get());
    };
    // Softmax and LayerNormalization reduce each row: 2.5 us more.
    EXPECT_NEAR(extra_s(unary("Softmax", {8, 128}, {8, 128}, {{"axis", std::int64_t{-1}}})), 2.5e-6,
                1e-15);
    EXPECT_NEAR(extra_s(unary("LayerNormalization", {8, 128}, {8, 128})), 2.5e-6, 1e-15);
    // Element-wise kernels and windowed pooling (a thread per output) do not.
    EXPECT_EQ(extra_s(unary("Relu", {8, 128}, {8, 128})), 0.0);
    EXPECT_EQ(extra_s(unary("MaxPool", {1, 2, 8, 8}, {1, 2, 4, 4},
                            {{"kernel_shape", std::vector<std::int64_t>{2, 2}},
                             {"strides", std::vector<std::int64_t>{2, 2}}})),
              0.0);
}

// One recurrent op of `type` (gates 4 for an LSTM, 3 for a GRU) over x [seq, batch, input],
// without its optional inputs, or with all of them up to initial_c when `with_states`.
OneOp recurrent_op(const std::string& type, std::int64_t seq, std::int64_t batch,
                   std::int64_t input, std::int64_t hidden, bool with_states = false) {
    const std::int64_t gates = type == "LSTM" ? 4 : 3;
    OneOp g;
    sim::Graph& graph = g.graph;
    const auto f32 = sim::DType::f32;
    std::vector<int> inputs = {
        graph.add_tensor("x", {seq, batch, input}, f32, sim::TensorKind::input),
        graph.add_tensor("w", {1, gates * hidden, input}, f32, sim::TensorKind::weight),
        graph.add_tensor("r", {1, gates * hidden, hidden}, f32, sim::TensorKind::weight)};
    if (with_states) {
        inputs.push_back(
            graph.add_tensor("b", {1, 2 * gates * hidden}, f32, sim::TensorKind::weight));
        inputs.push_back(graph.add_tensor("lens", {0}, f32, sim::TensorKind::weight));
        inputs.push_back(graph.add_tensor("h0", {1, batch, hidden}, f32, sim::TensorKind::input));
        if (type == "LSTM")
            inputs.push_back(
                graph.add_tensor("c0", {1, batch, hidden}, f32, sim::TensorKind::input));
    }
    const int y = graph.add_tensor("y", {seq, 1, batch, hidden}, f32);
    g.op = graph.add_op("rnn", type, inputs, {y}, {{"hidden_size", hidden}});
    graph.finalize();
    return g;
}

// The small GPU with one 64 x 64 tile, a 2 us kernel floor, 0.5 us a chained kernel and 1 us
// a persistent step.
GpuParams recurrent_gpu() {
    GpuParams p = small_gpu();
    p.gemm_tiles = {{64, 64}};
    p.kernel_latency_s = 2e-6;
    p.chained_kernel_latency_s = 0.5e-6;
    p.recurrent_step_latency_s = 1e-6;
    return p;
}

// The cost of `g`'s op on a GPU of `p` whose recurrent ops run through `library`.
GpuOpCost cost_through(GpuParams p, RecurrentLibrary library, const OneOp& g) {
    p.recurrent_library = library;
    return GpuModel(p).cost(g.graph, g.get());
}

// `c` launches `kernels` kernels and takes `device_s` on the GPU.
void expect_kernels_and_time(const GpuOpCost& c, double kernels, double device_s) {
    EXPECT_DOUBLE_EQ(c.kernels, kernels);
    EXPECT_NEAR(c.device_s, device_s, 1e-12);
}

TEST(GpuModel, FusedLstmIsAProjectionGemmThenOneGemmPerStep) {
    // LSTM, 5 steps, batch 1, input 8, hidden 16 (4 gates: 64 columns); 64 x 64 tiles:
    //   projection (5 x 8) x (8 x 64): one block of 8 values of K x 2048 cycles = 16.384 us;
    //   a persistent kernel (hidden 16, every size by default) then runs each step's
    //   2 x 16 x 64 FLOPs at 8 GFLOP/s (256 ns), the gates, (64 + 3 x 16) x 4 B = 448 B at 80
    //   GB/s = 5.6 ns, and the 1 us step latency; two kernels, the first with its 2 us floor,
    //   the second chained (0.5 us): 2.5 + 16.384 + 5 x 1.2616 = 25.192 us on the GPU, and two
    //   launches of 1 us on the host.
    const OneOp lstm = recurrent_op("LSTM", 5, 1, 8, 16);
    GpuParams p = recurrent_gpu();
    const GpuOpCost c = GpuModel(p).cost(lstm.graph, lstm.get());
    expect_kernels_and_time(c, 2.0, 25.192e-6);
    EXPECT_NEAR(c.total_s, 27.192e-6, 1e-12);
    // A hidden size above persistent_rnn_max_hidden runs cuDNN's standard algorithm: per step
    // a GEMV kernel (256 ns, as above) and a gates kernel (5.6 ns), each chained (0.5 us):
    // 1.2616 us a step; one projection kernel first: 2 + 16.384 + 5 x 1.2616 = 24.692 us,
    // and 11 launches.
    p.persistent_rnn_max_hidden = 8;
    const GpuOpCost s = GpuModel(p).cost(lstm.graph, lstm.get());
    expect_kernels_and_time(s, 11.0, 24.692e-6);
    EXPECT_NEAR(s.total_s, 35.692e-6, 1e-12);
}

TEST(GpuModel, ThroughCudnnAbsentInitialStatesAreZeroedByKernelsOfTheirOwn) {
    // The LSTM above, run as a framework runs it through cuDNN. Its persistent kernel is one
    // block per sequence, sized for the smallest template that holds hidden 16: 64, so
    // 4 x 64 = 256 threads, each with a row of 64 weights (223 registers to hold them: no
    // spill). A step is the 1 us latency and the block's 2 x 256 x 64 FLOPs on one SM at
    // 4 GFLOP/s: 8.192 us; 5 steps 45.96 us, and the gates 5 x 5.6 ns. Two kernels: 2.5 +
    // 16.384 + 45.96 + 0.028 = 64.872 us.
    const OneOp given = recurrent_op("LSTM", 5, 1, 8, 16, true);
    const GpuOpCost kept = cost_through(recurrent_gpu(), RecurrentLibrary::cudnn, given);
    expect_kernels_and_time(kept, 2.0, 64.872e-6);
    // Without initial_h and initial_c (ONNX inputs 5 and 6), each is zeroed first, 1 x 16 x
    // 4 B = 64 B at 80 GB/s (0.8 ns) in a chained kernel: 4 kernels, 64.872 + 2 x 0.5008 =
    // 65.8736 us.
    const OneOp bare = recurrent_op("LSTM", 5, 1, 8, 16);
    const GpuOpCost zeroed = cost_through(recurrent_gpu(), RecurrentLibrary::cudnn, bare);
    expect_kernels_and_time(zeroed, 4.0, 65.8736e-6);
}

TEST(GpuModel, CudnnPersistentKernelLoadsItsWeightsPerBlockAndSpillsWhatItsRegistersCannotHold) {
    // LSTM, 2 steps, batch 3, input 8, hidden 40 through cuDNN on 2 SMs: the template holding
    // 40 is 64, so a block is 256 threads with rows of 64 weights; 3 sequences on 2 SMs run in
    // 2 rounds of blocks.
    const OneOp lstm = recurrent_op("LSTM", 2, 3, 8, 40, true);
    GpuParams p = recurrent_gpu();
    p.tile_load_Bpc = 16.0;  // 16 GB/s per SM at 1 GHz
    const auto device_s = [&](double load_Bps, int registers) {
        GpuParams q = p;
        q.persistent_rnn_weight_load_Bps = load_Bps;
        q.registers_per_sm = registers;
        return cost_through(q, RecurrentLibrary::cudnn, lstm).device_s;
    };
    // Each block first loads the 4 x 40 x 40 weights there are, 25.6 KB, at 1 GB/s: 25.6 us a
    // round, 51.2 us for 2.
    EXPECT_NEAR(device_s(1e9, 65536) - device_s(0.0, 65536), 51.2e-6, 1e-12);
    // With 16384 registers an SM, a thread may have 16384 / 256 = 64, keeps 32 for itself and
    // holds 32 of its 64 weights: the other 32 x 4 B of each of 256 threads, 32 KiB, are
    // re-read each step at 16 GB/s: 2.048 us, x 2 steps x 2 rounds.
    EXPECT_NEAR(device_s(0.0, 16384) - device_s(0.0, 65536), 8.192e-6, 1e-12);
    // A row of 40 x 4 = 160 B is no multiple of 128 B: the conflicting rate does not apply.
    p.persistent_rnn_weight_load_conflicting_Bps = 0.5e9;
    EXPECT_NEAR(device_s(1e9, 65536) - device_s(0.0, 65536), 51.2e-6, 1e-12);
    // Hidden 32, rows of 128 B: the 4 x 32 x 32 x 4 B = 16 KiB load at 0.5 GB/s, 32.768 us a
    // round, whatever the other rate.
    const OneOp aligned = recurrent_op("LSTM", 2, 3, 8, 32, true);
    GpuParams q = p;
    q.persistent_rnn_weight_load_Bps = 1e9;
    const double loaded = cost_through(q, RecurrentLibrary::cudnn, aligned).device_s;
    q.persistent_rnn_weight_load_conflicting_Bps = 1e30;
    EXPECT_NEAR(loaded - cost_through(q, RecurrentLibrary::cudnn, aligned).device_s, 65.536e-6,
                1e-12);
    // More SMs than sequences: one round, half the load.
    p.sms = 4;
    EXPECT_NEAR(device_s(1e9, 65536) - device_s(0.0, 65536), 25.6e-6, 1e-12);
}

TEST(GpuModel, CudnnPersistentGruAddsItsBiasesInAKernelOfItsOwn) {
    // GRU, 5 steps, batch 1, input 8, hidden 16 (3 gates: 48 columns), through cuDNN, no
    // initial_h. 64 x 64 tiles: projection 16.384 us as for the LSTM. The persistent block:
    // template 64, 3 x 64 = 192 threads; a step is 1 us and 2 x 192 x 64 FLOPs at 4 GFLOP/s
    // (6.144 us): 35.72 us for 5, and the gates, (48 + 3 x 16) x 4 B = 384 B (4.8 ns) a step.
    // Zeroing h: 64 B (0.8 ns); adding the biases: the projection, 5 x 48 x 4 B, read and
    // written: 1920 B (24 ns). 4 kernels: 2 + 3 x 0.5 + 16.384 + 35.72 + 0.024 + 0.0008 +
    // 0.024 = 55.6528 us.
    const OneOp gru = recurrent_op("GRU", 5, 1, 8, 16);
    const GpuOpCost c = cost_through(recurrent_gpu(), RecurrentLibrary::cudnn, gru);
    expect_kernels_and_time(c, 4.0, 55.6528e-6);
    // A compiler's fused GRU has neither the zeroing nor the bias kernel, and runs each step
    // on the whole GPU: 2 x 16 x 48 FLOPs at 8 GFLOP/s (192 ns), the gates and 1 us: 1.1968
    // us a step.
    const GpuOpCost fused = cost_through(recurrent_gpu(), RecurrentLibrary::fused, gru);
    expect_kernels_and_time(fused, 2.0, 2.5e-6 + 16.384e-6 + 5.984e-6);
}

TEST(GpuModel, CudnnStandardRnnStepsOfASmallBatchStreamTheWeights) {
    // LSTM, 5 steps, batch 8, input 8, hidden 16 past persistent_rnn_max_hidden (cuDNN's
    // standard algorithm), on 2 SMs at 1 GHz with 4096 FLOP/cycle each (8.192 TFLOP/s), 80
    // GB/s, 64 x 64 tiles at 1000 cycles a block. Both cases: the projection (40 x 8) x (8 x
    // 64) is one block, 1000 + 8 x 2 cycles = 1.016 us; the gates, 8 x (64 + 48) x 4 B = 3584
    // B, 44.8 ns a step.
    //   - cuDNN (batch 8 <= 16): a step's product (8 x 16) x (16 x 64) is the small-N kernel,
    //     streaming (128 + 1024 + 512) x 4 B = 6656 B at 80 GB/s: 83.2 ns. Both states are
    //     zeroed (512 B, 6.4 ns each). 2 + 1 + 10 = 13 kernels: 2 + 12 x 0.5 + 1.016 + 5 x
    //     (0.0832 + 0.0448) + 2 x 0.0064 = 9.6688 us.
    //   - fused: the product is a tiled block, 1000 + 16 x 2 cycles = 1.032 us: 11 kernels,
    //     2 + 10 x 0.5 + 1.016 + 5 x (1.032 + 0.0448) = 13.4 us.
    const OneOp lstm = recurrent_op("LSTM", 5, 8, 8, 16);
    GpuParams p = recurrent_gpu();
    p.fp32_flops_per_cycle_per_sm = 4096;
    p.block_overhead_cycles = 1000;
    p.persistent_rnn_max_hidden = 8;
    const GpuOpCost cudnn = cost_through(p, RecurrentLibrary::cudnn, lstm);
    expect_kernels_and_time(cudnn, 13.0, 9.6688e-6);
    const GpuOpCost fused = cost_through(p, RecurrentLibrary::fused, lstm);
    expect_kernels_and_time(fused, 11.0, 13.4e-6);
    // The small-N kernel runs products of at most 16 rows (the batch); 17 take a tiled GEMM.
    const GpuModel gpu(p);
    EXPECT_TRUE(gpu.gemm(1, 16, 64, 16, sim::DType::f32, true, 16.0).gemv);
    EXPECT_FALSE(gpu.gemm(1, 17, 64, 16, sim::DType::f32, true, 16.0).gemv);
    EXPECT_FALSE(gpu.gemm(1, 8, 64, 16, sim::DType::f32).gemv);
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

TEST(GpuModel, BenchmarkModeRunsALongReductionConvAsAnFft) {
    // x [1, 64, 6, 6], w [2, 64, 3, 3], pads 1: the padded 8 x 8 image fits T = 8, F = 8 x 5
    // = 40 bins. Implicit GEMM: 36 pixels x 2 channels in 18 blocks, 9 on each SM, K = 576,
    // no split: per K value the larger of a block's 1000-cycle K tile / 8 = 125 cycles and 9
    // blocks x 2 x 2 FMAs at 4 FLOP/cycle = 18 cycles: 576 x 125 cycles = 72 us. The FFT
    // algorithm (devices/gpu.hpp), at 80 GB/s and 8 GFLOP/s, one real 2-D FFT being
    // 2.5 x 64 x 6 = 960 FLOPs:
    //   flip: 2 x 4608 B = 115.2 ns; filter FFTs: 128 x 960 FLOPs = 15.36 us;
    //   input FFTs: 64 x 960 FLOPs = 7.68 us; output FFTs: 2 x 960 FLOPs = 240 ns;
    //   the product: 40 GEMMs (1 x 128)(128 x 4), matrix-vector products:
    //   40 x 2 x 4 x 128 FLOPs = 5.12 us;
    //   four chained kernels of 1 us: 32.5152 us in all, 5 kernels.
    GpuParams p = small_gpu();
    p.k_tile_latency_cycles = 1000;
    p.chained_kernel_latency_s = 1e-6;
    const OneOp g = binary("Conv", {1, 64, 6, 6}, {2, 64, 3, 3}, {1, 2, 6, 6},
                           {{"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
                            {"kernel_shape", std::vector<std::int64_t>{3, 3}}});
    const GpuOpCost implicit = GpuModel(p).cost(g.graph, g.get());
    EXPECT_FALSE(implicit.fft);
    EXPECT_DOUBLE_EQ(implicit.kernels, 1.0);
    EXPECT_NEAR(implicit.device_s, 72e-6, 1e-12);
    p.conv_fft = true;
    const GpuModel gpu(p);
    EXPECT_NEAR(gpu.gemm(40, 1, 4, 128, sim::DType::f32).total_s, 5.12e-6, 1e-15);
    const GpuOpCost fft = gpu.cost(g.graph, g.get());
    EXPECT_TRUE(fft.fft);
    EXPECT_DOUBLE_EQ(fft.kernels, 5.0);
    EXPECT_NEAR(fft.device_s, 32.5152e-6, 1e-12);
    EXPECT_NEAR(fft.host_s, 5.0 * p.launch_overhead_s, 1e-15);
}

TEST(GpuModel, OnlyAStrideOneUngroupedConvOfATileThatFitsHasAnFft) {
    // With a slow K loop the FFT wins where it applies ...
    GpuParams p = small_gpu();
    p.k_tile_latency_cycles = 1000;
    p.conv_fft = true;
    const GpuModel gpu(p);
    const sim::Attributes same{{"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
                               {"kernel_shape", std::vector<std::int64_t>{3, 3}}};
    const OneOp fits = binary("Conv", {1, 64, 6, 6}, {2, 64, 3, 3}, {1, 2, 6, 6}, same);
    EXPECT_TRUE(gpu.cost(fits.graph, fits.get()).fft);
    // ... and not with a stride, a dilation, groups, or a padded image over 64 x 64.
    sim::Attributes strided = same;
    strided["strides"] = std::vector<std::int64_t>{2, 2};
    const OneOp s2 = binary("Conv", {1, 64, 6, 6}, {2, 64, 3, 3}, {1, 2, 3, 3}, strided);
    EXPECT_FALSE(gpu.cost(s2.graph, s2.get()).fft);
    sim::Attributes dilated = same;
    dilated["dilations"] = std::vector<std::int64_t>{2, 2};
    const OneOp d2 = binary("Conv", {1, 64, 6, 6}, {2, 64, 3, 3}, {1, 2, 4, 4}, dilated);
    EXPECT_FALSE(gpu.cost(d2.graph, d2.get()).fft);
    sim::Attributes grouped = same;
    grouped["group"] = std::int64_t{2};
    const OneOp g2 = binary("Conv", {1, 64, 6, 6}, {2, 32, 3, 3}, {1, 2, 6, 6}, grouped);
    EXPECT_FALSE(gpu.cost(g2.graph, g2.get()).fft);
    const OneOp big = binary("Conv", {1, 64, 63, 63}, {2, 64, 3, 3}, {1, 2, 63, 63}, same);
    EXPECT_FALSE(gpu.cost(big.graph, big.get()).fft);  // 65 x 65 padded: T = 128
    const OneOp edge = binary("Conv", {1, 64, 62, 62}, {2, 64, 3, 3}, {1, 2, 62, 62}, same);
    EXPECT_TRUE(gpu.cost(edge.graph, edge.get()).fft);  // 64 x 64 padded: T = 64
    const OneOp half = binary("Conv", {1, 64, 6, 6}, {2, 64, 3, 3}, {1, 2, 6, 6}, same,
                              sim::TensorKind::weight, sim::DType::bf16);
    EXPECT_FALSE(gpu.cost(half.graph, half.get()).fft);  // fp32 only
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

std::string gpu_platform(const std::string& extra) {
    return R"(
name: g
host: cpu
components:
)" + hetsim::testing::one_core_cpu_component() +
           R"(  gpu:
    type: gpu
    device: G
    sms: 2
    clock: 1 GHz
    fp32_flops_per_cycle_per_sm: 4
    memory_bandwidth: 80 GB/s
)" + extra +
           R"(
  pcie:
    type: pcie
    endpoints: [cpu, gpu]
    bandwidth: 1 GB/s
)";
}

TEST(GpuYaml, ReadsTilesWithWarpsAndTheSmLimits) {
    const sim::Platform p = hetsim::testing::parse_platform_yaml(
        gpu_platform("    gemm_tiles: [[64, 32, 2], [128, 128]]\n"
                     "    k_tile_latency_cycles: 600\n"
                     "    tensor_k_tile_latency_cycles: 84\n"
                     "    legacy_tensor_k_tile_latency_cycles: 900\n"
                     "    tensor_block_overhead_cycles: 600\n"
                     "    block_overhead_cycles: 3000\n"
                     "    chained_kernel_latency: 4 us\n"
                     "    persistent_rnn_max_hidden: 192\n"
                     "    recurrent_library: cudnn\n"
                     "    registers_per_sm: 32768\n"
                     "    max_threads_per_sm: 1024\n"
                     "    max_blocks_per_sm: 16\n"
                     "    shared_memory_per_sm: 64 KiB\n"));
    const auto* gpu = dynamic_cast<const GpuModel*>(p.device(*p.find_device("G")).model.get());
    ASSERT_NE(gpu, nullptr);
    const GpuParams& g = gpu->params();
    ASSERT_EQ(g.gemm_tiles.size(), 2U);
    EXPECT_EQ(g.gemm_tiles[0].warps, 2);
    EXPECT_EQ(g.gemm_tiles[1].warps, 4);  // [rows, columns] alone: 4 warps
    EXPECT_DOUBLE_EQ(g.k_tile_latency_cycles, 600.0);
    EXPECT_DOUBLE_EQ(g.tensor_k_tile_latency_cycles, 84.0);
    EXPECT_DOUBLE_EQ(g.legacy_tensor_k_tile_latency_cycles, 900.0);
    EXPECT_DOUBLE_EQ(g.tensor_block_overhead_cycles, 600.0);
    EXPECT_DOUBLE_EQ(g.block_overhead_cycles, 3000.0);
    EXPECT_DOUBLE_EQ(g.chained_kernel_latency_s, 4e-6);
    EXPECT_DOUBLE_EQ(g.persistent_rnn_max_hidden, 192.0);
    EXPECT_DOUBLE_EQ(g.persistent_max_hidden("RNN"), 192.0);
    EXPECT_EQ(g.recurrent_library, RecurrentLibrary::cudnn);
    EXPECT_EQ(g.registers_per_sm, 32768);
    EXPECT_EQ(g.max_threads_per_sm, 1024);
    EXPECT_EQ(g.max_blocks_per_sm, 16);
    EXPECT_DOUBLE_EQ(g.shared_memory_per_sm_bytes, 65536.0);
}

TEST(GpuYaml, ReadsAPersistentLimitPerCellAndTheWeightLoadRate) {
    const sim::Platform p = hetsim::testing::parse_platform_yaml(
        gpu_platform("    persistent_rnn_max_hidden: {LSTM: 192, RNN: 256}\n"
                     "    persistent_rnn_weight_load: 8 GB/s\n"
                     "    persistent_rnn_weight_load_conflicting: 3 GB/s\n"));
    const auto* gpu = dynamic_cast<const GpuModel*>(p.device(*p.find_device("G")).model.get());
    ASSERT_NE(gpu, nullptr);
    const GpuParams& g = gpu->params();
    EXPECT_DOUBLE_EQ(g.persistent_max_hidden("LSTM"), 192.0);
    EXPECT_DOUBLE_EQ(g.persistent_max_hidden("RNN"), 256.0);
    EXPECT_TRUE(std::isinf(g.persistent_max_hidden("GRU")));  // not listed: every size
    EXPECT_DOUBLE_EQ(g.persistent_rnn_weight_load_Bps, 8e9);
    EXPECT_DOUBLE_EQ(g.persistent_rnn_weight_load_conflicting_Bps, 3e9);
}

TEST(GpuYaml, RefusesBadWarpsAndLimits) {
    // Each line added to a valid GPU component, and what the error must say.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"gemm_tiles: [[64, 32, 0]]", "a block has 1..32 warps, got 0"},
        {"gemm_tiles: [[64, 32, 2, 1]]", "[rows, columns, warps]"},
        {"k_tile_latency_cycles: -1", "must be >= 0 cycles, got -1"},
        {"tensor_k_tile_latency_cycles: -2", "must be >= 0 cycles, got -2"},
        {"legacy_tensor_k_tile_latency_cycles: -3", "must be >= 0 cycles, got -3"},
        {"tensor_block_overhead_cycles: -4", "must be >= 0 cycles, got -4"},
        {"persistent_rnn_max_hidden: 0", "persistent_rnn_max_hidden"},
        {"persistent_rnn_max_hidden: {LSTM: 192, Conv: 4}", "Conv"},
        {"persistent_rnn_max_hidden: {GRU: 0}", "GRU"},
        {"persistent_rnn_weight_load: 0 GB/s", "persistent_rnn_weight_load"},
        // The parameter of an earlier form of the model is refused by name.
        {"warps_to_saturate: 4", "warps_to_saturate"},
        {"max_blocks_per_sm: 0", "must be an integer in 1..1000000"},
        {"shared_memory_per_sm: 0 KiB", "shared_memory_per_sm"},
        {"gemm_bandwidth_efficiency: 1.5", "gemm_bandwidth_efficiency: must be in (0, 1], got 1.5"},
        {"reduction_latency: -1 us", "reduction_latency"},
        {"conv_algorithms: [implicit_gemm, winograd]", "unknown convolution algorithm 'winograd'"},
        {"conv_algorithms: [fft]", "implicit_gemm must be listed"},
        {"recurrent_library: onnxruntime", "expected 'fused' or 'cudnn', got 'onnxruntime'"}};
    for (const auto& [line, message] : cases) {
        EXPECT_THAT(hetsim::testing::platform_yaml_error(gpu_platform("    " + line + "\n")),
                    ::testing::HasSubstr(message))
            << line;
    }
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
