// The GPU / accelerator model (devices/gpu.hpp) and pinned CPU cores, with hand-computed
// numbers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "devices/cpu.hpp"
#include "devices/gpu.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::devices {
namespace {

using hetsim::testing::binary;
using hetsim::testing::OneOp;

GpuParams small_gpu() {
    GpuParams p;
    p.sms = 2;
    p.clock_hz = 1e9;
    p.fp32_flops_per_cycle_per_sm = 4;  // 8 GFLOP/s peak
    p.memory_bandwidth_Bps = 8e9;
    p.launch_overhead_s = 1e-6;
    p.occupancy_half_threads = 64;
    return p;
}

TEST(GpuModel, SmallMatMulRunsAtOccupancyBelowPeakBehindALaunch) {
    // (4x8) x (8x16): 1024 FLOPs, 64 output threads -> occupancy 64 / (64 + 64) = 1/2:
    // compute 1024 / 4e9 = 0.256 us; bytes 128 + 512 + 256 = 896 / 8 GB/s = 0.112 us.
    const OneOp g = binary("MatMul", {4, 8}, {8, 16}, {4, 16});
    const GpuModel gpu(small_gpu());
    const GpuOpCost c = gpu.cost(g.graph, g.get());
    EXPECT_DOUBLE_EQ(c.occupancy, 0.5);
    EXPECT_DOUBLE_EQ(c.compute_s, 0.256e-6);
    EXPECT_DOUBLE_EQ(c.memory_s, 0.112e-6);
    EXPECT_DOUBLE_EQ(gpu.op_time_s(g.graph, g.get()), 1.256e-6);
}

TEST(GpuModel, RecurrentOpIsOneLaunchPerTimestep) {
    // An LSTM over 5 timesteps is 5 kernels: 5 us of launches dominate its memory time.
    sim::Graph graph("rnn");
    const int x = graph.add_tensor("x", {5, 1, 8}, sim::DType::f32, sim::TensorKind::input);
    const int w = graph.add_tensor("w", {1, 64, 8}, sim::DType::f32, sim::TensorKind::weight);
    const int r = graph.add_tensor("r", {1, 64, 16}, sim::DType::f32, sim::TensorKind::weight);
    const int y = graph.add_tensor("y", {5, 1, 1, 16}, sim::DType::f32);
    const int op =
        graph.add_op("lstm", "LSTM", {x, w, r}, {y}, {{"hidden_size", std::int64_t{16}}});
    graph.finalize();
    const GpuModel gpu(small_gpu());
    const GpuOpCost c = gpu.cost(graph, graph.op(op));
    EXPECT_DOUBLE_EQ(c.kernels, 5.0);
    EXPECT_GE(c.total_s, 5e-6);
    EXPECT_DOUBLE_EQ(c.total_s, 5e-6 + std::max(c.compute_s, c.memory_s));
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
