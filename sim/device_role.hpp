// What a device is for placement: placers pick devices by role and by DeviceModel::supports(),
// never by YAML type or device name, so a new device type takes part in every placer as soon
// as its model declares a role (README "Extending hetsim").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetsim::sim {

enum class DeviceRole {
    host_cpu,     // a core (or all cores) of the host CPU: runs every op, default placement
    accelerator,  // a generic offload device in its own memory
    gpu,          // a GPU: an accelerator with kernel launches
    pim,          // processing-in-memory (lee2022's Silent-PIM)
    chiplet,      // a compute die of a multi-chip package
};

// "host_cpu", "accelerator", ...: the spelling of the platform file's `role:` key.
std::string_view to_string(DeviceRole role);
std::optional<DeviceRole> parse_device_role(std::string_view name);
// Every role's name, in enum order (for error messages and `hetsim list devices`).
std::vector<std::string> device_role_names();

}  // namespace hetsim::sim
