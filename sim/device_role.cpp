#include "sim/device_role.hpp"

#include <array>
#include <utility>

namespace hetsim::sim {

namespace {

constexpr std::array<std::pair<DeviceRole, std::string_view>, 5> kRoles{{
    {DeviceRole::host_cpu, "host_cpu"},
    {DeviceRole::accelerator, "accelerator"},
    {DeviceRole::gpu, "gpu"},
    {DeviceRole::pim, "pim"},
    {DeviceRole::chiplet, "chiplet"},
}};

}  // namespace

std::string_view to_string(DeviceRole role) {
    for (const auto& [r, name] : kRoles) {
        if (r == role)
            return name;
    }
    return "?";
}

std::optional<DeviceRole> parse_device_role(std::string_view name) {
    for (const auto& [r, text] : kRoles) {
        if (text == name)
            return r;
    }
    return std::nullopt;
}

std::vector<std::string> device_role_names() {
    std::vector<std::string> names;
    for (const auto& [r, name] : kRoles)
        names.emplace_back(name);
    return names;
}

}  // namespace hetsim::sim
