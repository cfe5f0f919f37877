// Helpers every placer shares: capability queries, device-name resolution and one
// evaluation path (lower + the study's evaluator), so that every placer scores placements
// exactly as the study will (docs/DESIGN.md "The flow of data").
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "placement/placer.hpp"
#include "sim/config.hpp"

namespace hetsim::placement {

std::vector<std::string> split_device_list(const std::string& placer, const std::string& arguments,
                                           const std::string& usage) {
    std::vector<std::string> devices;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = arguments.find(',', start);
        std::string item = arguments.substr(start, comma - start);
        const auto first = item.find_first_not_of(" \t");
        item = first == std::string::npos
                   ? std::string{}
                   : item.substr(first, item.find_last_not_of(" \t") - first + 1);
        if (item.empty()) {
            throw PlacementError(fmt::format("placer '{}:{}': expected {} without empty entries",
                                             placer, arguments, usage));
        }
        if (std::find(devices.begin(), devices.end(), item) != devices.end()) {
            // A repeated device cannot change any decision, so it is almost certainly a typo
            // for another device.
            throw PlacementError(fmt::format("placer '{}:{}': device '{}' is listed twice", placer,
                                             arguments, item));
        }
        devices.push_back(std::move(item));
        if (comma == std::string::npos)
            return devices;
        start = comma + 1;
    }
}

std::optional<std::uint64_t> parse_positive_integer(const std::string& arguments) {
    std::uint64_t value = 0;
    const char* end = arguments.data() + arguments.size();
    const auto [ptr, error] = std::from_chars(arguments.data(), end, value);
    if (error != std::errc{} || ptr != end || value == 0)
        return std::nullopt;
    return value;
}

std::vector<int> capable_devices(const sim::Graph& graph, const sim::Platform& platform,
                                 int op_id) {
    const sim::Op& op = graph.op(op_id);
    std::vector<int> capable;
    std::vector<std::string> reasons;
    for (int d = 0; d < platform.device_count(); ++d) {
        const sim::Device& device = platform.device(d);
        sim::Support support = device.model->supports(graph, op);
        if (support.ok) {
            capable.push_back(d);
        } else {
            reasons.push_back(fmt::format("{}: {}", device.name, support.reason));
        }
    }
    // An op that no device can run must never be placed silently (spec/placement.md): every
    // placer asks this function, so refusing here names the op once for all of them.
    if (capable.empty()) {
        throw PlacementError(
            fmt::format("op '{}' ({}) of graph '{}' cannot run on any device of platform '{}' ({})",
                        op.name, op.type, graph.name(), platform.name, fmt::join(reasons, "; ")));
    }
    return capable;
}

std::vector<int> resolve_devices(const sim::Platform& platform,
                                 const std::vector<std::string>& names,
                                 const std::string& placer_spec) {
    std::vector<int> indices;
    indices.reserve(names.size());
    const std::vector<std::string> known = platform.device_names();
    for (const auto& name : names) {
        auto index = platform.find_device(name);
        if (!index) {
            std::string hint = sim::did_you_mean(name, known);
            throw PlacementError(fmt::format(
                "placer '{}': unknown device '{}'{}; devices of platform '{}': {}", placer_spec,
                name, hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint), platform.name,
                fmt::join(known, ", ")));
        }
        indices.push_back(*index);
    }
    return indices;
}

sim::Metrics evaluate_placement(const PlacementContext& context, const sim::Placement& placement) {
    sim::ExecGraph exec = sim::lower(context.graph, placement, context.platform);
    return context.evaluator.evaluate(exec);
}

double objective_cost(Objective objective, const sim::Metrics& metrics) {
    // A placement that overflows a memory is no candidate, whatever its times.
    if (!metrics.feasible)
        return std::numeric_limits<double>::infinity();
    switch (objective) {
        case Objective::latency:
            return metrics.latency_s;
        case Objective::throughput:
            // Minimising 1/throughput keeps "lower is better" for every objective; a
            // placement that delivers nothing is infinitely bad rather than a division by 0.
            return metrics.throughput_per_s > 0.0 ? 1.0 / metrics.throughput_per_s
                                                  : std::numeric_limits<double>::infinity();
    }
    return std::numeric_limits<double>::infinity();
}

std::array<int, 2> cpu_and_gpu(const sim::Platform& platform, const std::string& who) {
    int cpu = -1, gpu = -1;
    for (int d = 0; d < platform.device_count(); ++d) {
        const sim::DeviceRole role = platform.device(d).role();
        if (cpu < 0 && role == sim::DeviceRole::host_cpu)
            cpu = d;
        if (gpu < 0 && (role == sim::DeviceRole::gpu || role == sim::DeviceRole::accelerator))
            gpu = d;
    }
    if (cpu < 0 || gpu < 0) {
        throw PlacementError(fmt::format(
            "{} works on a CPU and a GPU: the platform needs a host_cpu device and a gpu (or "
            "accelerator) device",
            who));
    }
    return {cpu, gpu};
}

double time_fraction(std::chrono::steady_clock::time_point start,
                     std::optional<std::chrono::steady_clock::time_point> deadline) {
    if (!deadline || *deadline <= start)
        return 0.0;
    const double used =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double all = std::chrono::duration<double>(*deadline - start).count();
    return std::clamp(used / all, 0.0, 1.0);
}

std::string cost_text(Objective objective, double cost) {
    if (!std::isfinite(cost) || cost <= 0.0)
        return "";
    return objective == Objective::latency ? fmt::format("{:.4g} ms", cost * 1e3)
                                           : fmt::format("{:.4g}/s", 1.0 / cost);
}

}  // namespace hetsim::placement
