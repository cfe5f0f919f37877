// sim::add_device_component, through the shipped device types: the component, its resources
// (shared or one per device) and devices it adds, the role each model declares, and the
// platform file's `role:` override with its errors.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/device_component.hpp"
#include "sim/device_role.hpp"
#include "sim/platform.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"

namespace hetsim::sim {
namespace {

using ::testing::HasSubstr;

const std::string kCpu =
    "    cores: 4\n    clock: 1 GHz\n    flops_per_cycle: 2\n    l1d: 32 KiB\n    l2: 1 MiB\n"
    "    dram_bandwidth: 4 GB/s\n";

const std::string kGpu =
    "    device: G\n    sms: 2\n    clock: 1 GHz\n"
    "    fp32_flops_per_cycle_per_sm: 128\n    memory_bandwidth: 100 GB/s\n";

TEST(DeviceComponent, SharedCoresOneResourceAndTheModelsRoles) {
    const Platform p = hetsim::testing::parse_platform_yaml(
        "name: p\nhost: cpu\ncomponents:\n  cpu:\n    type: cpu\n"
        "    devices: {S: serial, P: parallel}\n" +
        kCpu + "  gpu:\n    type: gpu\n" + kGpu +
        "  pim: {type: silent_pim, device: M, memspec: ddr4-2400}\n"
        "  pcie: {type: pcie, endpoints: [cpu, gpu], bandwidth: 1 GB/s}\n"
        "  dma: {type: pcie, endpoints: [cpu, pim], bandwidth: 1 GB/s}\n"
        "relays: [cpu]\n");
    ASSERT_EQ(p.device_count(), 4);
    ASSERT_EQ(p.resources().size(), 3u);
    // S and P share the cpu's four cores; the gpu and the pim have one unit each.
    EXPECT_EQ(p.resources()[0].name, "cpu");
    EXPECT_EQ(p.resources()[0].capacity, 4);
    EXPECT_EQ(p.device(0).resource, 0);
    EXPECT_EQ(p.device(1).resource, 0);
    EXPECT_EQ(p.device(0).units, 1);
    EXPECT_EQ(p.device(1).units, 4);
    EXPECT_EQ(p.resources()[1].name, "gpu");
    EXPECT_EQ(p.resources()[2].name, "pim");
    EXPECT_EQ(p.find_component("pim")->type, "silent_pim");
    EXPECT_EQ(p.device(0).role(), DeviceRole::host_cpu);
    EXPECT_EQ(p.device(1).role(), DeviceRole::host_cpu);
    EXPECT_EQ(p.device(2).role(), DeviceRole::gpu);
    EXPECT_EQ(p.device(3).role(), DeviceRole::pim);
}

TEST(DeviceComponent, PinnedCoresAreOneResourceEach) {
    const Platform p = hetsim::testing::parse_platform_yaml(
        "name: p\ncomponents:\n  cpu:\n    type: cpu\n    pinned: true\n"
        "    devices: {C0: serial, C1: serial}\n" +
        kCpu);
    ASSERT_EQ(p.resources().size(), 2u);
    EXPECT_EQ(p.resources()[0].name, "cpu_C0");
    EXPECT_EQ(p.resources()[1].name, "cpu_C1");
    EXPECT_EQ(p.resources()[1].capacity, 1);
    EXPECT_EQ(p.device(1).resource, 1);
}

TEST(DeviceComponent, TheFilesRoleOverridesTheModels) {
    const Platform p = hetsim::testing::parse_platform_yaml(
        "name: p\ncomponents:\n  die:\n    type: gpu\n    role: chiplet\n" + kGpu);
    EXPECT_EQ(p.device(0).model->role(), DeviceRole::gpu);
    EXPECT_EQ(p.device(0).role(), DeviceRole::chiplet);
}

TEST(DeviceComponent, AnUnknownRoleIsRefusedWithFileLineAndTheKnownRoles) {
    const std::string error = hetsim::testing::platform_yaml_error(
        "name: p\ncomponents:\n  die:\n    type: gpu\n    role: Accelerator\n" + kGpu);
    EXPECT_THAT(error, HasSubstr("test.yaml:5"));
    EXPECT_THAT(error, HasSubstr("components.die.role"));
    EXPECT_THAT(error, HasSubstr("unknown device role 'Accelerator' (did you mean "
                                 "'accelerator'?); known roles: host_cpu, accelerator, gpu, pim, "
                                 "chiplet"));
}

TEST(DeviceComponent, MemoryLatencyAndTheCpusSharedDramBandwidth) {
    const Platform p = hetsim::testing::parse_platform_yaml(
        "name: p\ncomponents:\n  cpu:\n    type: cpu\n    devices: {S: serial}\n"
        "    memory_latency: 80 ns\n    dram_bandwidth_all_cores: 10 GB/s\n" +
        kCpu);
    EXPECT_DOUBLE_EQ(p.components()[0].memory_latency_s, 80e-9);
    EXPECT_DOUBLE_EQ(p.components()[0].memory_bandwidth_Bps, 10e9);
    EXPECT_THAT(
        hetsim::testing::platform_yaml_error(
            "name: p\ncomponents:\n  die:\n    type: gpu\n    memory_latency: -1 ns\n" + kGpu),
        HasSubstr("components.die.memory_latency: must be >= 0"));
}

TEST(DeviceRoleNames, RoundTrip) {
    for (const std::string& name : device_role_names()) {
        ASSERT_TRUE(parse_device_role(name).has_value()) << name;
        EXPECT_EQ(to_string(*parse_device_role(name)), name);
    }
    EXPECT_FALSE(parse_device_role("cpu").has_value());
}

}  // namespace
}  // namespace hetsim::sim
