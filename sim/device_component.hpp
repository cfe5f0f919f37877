// The one way a device factory (`type: cpu`, `gpu`, `silent_pim`, a test's toy device) adds
// what it built to the platform: the Component (memory, converter), its execution resources
// and its devices, with the platform file's optional `role:` applied. A new device type is a
// DeviceModel, a factory that reads its parameters and calls add_device_component(), and one
// ComponentRegistry::add() line (README "Extending hetsim").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/config.hpp"
#include "sim/platform.hpp"

namespace hetsim::sim {

// One logical device of a component: what placements call it, its cost model, and how many
// units of its execution resource one of its ops occupies.
struct DeviceSpec {
    std::string name;
    std::shared_ptr<const DeviceModel> model;
    int units = 1;
};

// How a component's devices map to execution resources.
enum class ResourceSharing {
    shared,      // one resource named after the component, `capacity` units, every device
                 // queues for it (CPU_S and CPU_P of one CPU contend for its cores)
    per_device,  // one single-unit resource "<component>_<device>" per device (pinned cores)
};

struct DeviceComponentSpec {
    std::int64_t memory_bytes = 0;  // 0 = unlimited
    // Bandwidth of the memory shared in the DES by the streaming part of the devices' ops
    // and the DMA streams in and out of it; 0 = not a shared resource (Component).
    double memory_bandwidth_Bps = 0.0;
    std::shared_ptr<const ConversionModel> converter;  // null: cannot convert dtypes
    ResourceSharing sharing = ResourceSharing::shared;
    int capacity = 1;  // units of the shared resource
    std::vector<DeviceSpec> devices;
};

// The keys a device component accepts: its own plus `type`, `role` and `memory_latency` (the
// access latency of its memory, paid by every transfer written into it; default 0).
std::vector<std::string> device_component_keys(std::vector<std::string> own_keys);

// Adds component `name` (the YAML key of `node`; its type is node's `type:`) with its
// resources and devices. An optional `role:` (one of device_role_names()) overrides the role the
// models declare; anything else there fails naming the file and YAML path.
void add_device_component(const ConfigNode& node, const std::string& name, DeviceComponentSpec spec,
                          Platform& platform);

}  // namespace hetsim::sim
