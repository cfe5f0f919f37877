#include "sim/transfer_cost.hpp"

#include <fmt/format.h>

namespace hetsim::sim {

double TransferCost::seconds() const {
    double total = 0.0;
    for (const auto& s : steps)
        total += s.seconds;
    return total;
}

std::int64_t TransferCost::duration_ps() const {
    std::int64_t total = 0;
    for (const auto& s : steps)
        total += s.duration_ps();
    return total;
}

std::vector<std::int64_t> TransferCost::bytes_per_hop() const {
    std::vector<std::int64_t> out;
    for (const auto& s : steps) {
        if (s.kind == TaskKind::transfer)
            out.push_back(s.bytes);
    }
    return out;
}

DType dtype_on(const Device& device, DType declared) {
    return is_float(declared) ? device.model->compute_dtype() : declared;
}

int first_device(const Platform& platform, const std::string& component) {
    for (int d = 0; d < platform.device_count(); ++d) {
        if (platform.device(d).component == component)
            return d;
    }
    return -1;
}

namespace {

const std::vector<Hop>& route_or_throw(const Platform& platform, const std::string& from,
                                       const std::string& to, std::string_view tensor_name) {
    const std::vector<Hop>* hops = platform.route(from, to);
    if (hops == nullptr) {
        throw LoweringError(
            fmt::format("tensor '{}' must move from '{}' to '{}', but no route connects them",
                        tensor_name, from, to));
    }
    return *hops;
}

TransferStep convert_step(const Platform& platform, const std::string& component, DType from,
                          DType to, std::int64_t elements, std::string_view tensor_name) {
    const Component* comp = platform.find_component(component);
    const int device = first_device(platform, component);
    if (comp == nullptr || comp->converter == nullptr || device < 0) {
        throw LoweringError(fmt::format(
            "tensor '{}' must be converted {} -> {} on component '{}', which cannot convert",
            tensor_name, to_string(from), to_string(to), component));
    }
    TransferStep s;
    s.kind = TaskKind::convert;
    s.from_component = s.to_component = component;
    s.device = device;
    s.from_dtype = from;
    s.to_dtype = to;
    s.bytes = elements * dtype_size_bytes(to);
    s.seconds = comp->converter->conversion_time_s(elements, from, to);
    s.fixed_ps = to_ps(s.seconds, fmt::format("converting tensor '{}'", tensor_name));
    s.name = fmt::format("{} {}->{}", tensor_name, to_string(from), to_string(to));
    return s;
}

TransferStep hop_step(const Platform& platform, const std::string& from, const Hop& hop,
                      DType dtype, std::int64_t elements, std::string_view tensor_name) {
    const Link& link = platform.links()[static_cast<std::size_t>(hop.link)];
    TransferStep s;
    s.kind = TaskKind::transfer;
    s.from_component = from;
    s.to_component = hop.forward ? link.endpoint_b : link.endpoint_a;
    s.link = hop.link;
    s.forward = hop.forward;
    s.from_dtype = s.to_dtype = dtype;
    s.bytes = elements * dtype_size_bytes(dtype);
    s.name = fmt::format("{} {}->{}", tensor_name, from, s.to_component);
    const double memory_latency_s = platform.find_component(s.to_component)->memory_latency_s;
    // Summed as Platform routes were always costed: the link's time, then the access latency.
    s.seconds = link.model->transfer_time_s(s.bytes, hop.forward) + memory_latency_s;
    const std::string what = fmt::format("the transfer '{}'", s.name);
    const double bandwidth = link.model->bandwidth_Bps(hop.forward);
    s.fixed_ps = to_ps(link.model->latency_s(hop.forward), what);
    s.access_ps = to_ps(memory_latency_s, what);
    s.flow_ps = to_ps(static_cast<double>(s.bytes) / bandwidth, what);
    s.flow_rate_Bps = bandwidth;
    return s;
}

}  // namespace

TransferCost transfer_cost(const Platform& platform, const std::string& from_component,
                           DType from_dtype, const std::string& to_component, DType to_dtype,
                           std::int64_t elements, std::string_view tensor_name) {
    TransferCost cost;
    const std::vector<Hop>& hops =
        route_or_throw(platform, from_component, to_component, tensor_name);
    std::string at = from_component;
    DType dtype = from_dtype;
    for (const Hop& hop : hops) {
        const Link& link = platform.links()[static_cast<std::size_t>(hop.link)];
        const std::string converter = link.model->converting_component();
        // A link converts on one of its sides (lee2022 §2.3: the CPU, before a transfer leaves
        // it or after one arrives).
        if (dtype != to_dtype && converter == at) {
            cost.steps.push_back(
                convert_step(platform, at, dtype, to_dtype, elements, tensor_name));
            dtype = to_dtype;
        }
        cost.steps.push_back(hop_step(platform, at, hop, dtype, elements, tensor_name));
        at = cost.steps.back().to_component;
        if (dtype != to_dtype && converter == at) {
            cost.steps.push_back(
                convert_step(platform, at, dtype, to_dtype, elements, tensor_name));
            dtype = to_dtype;
        }
    }
    if (dtype != to_dtype) {
        if (!hops.empty()) {
            throw LoweringError(fmt::format(
                "tensor '{}' reaches '{}' as {} but is needed as {}, and no link on its route "
                "converts",
                tensor_name, to_component, to_string(dtype), to_string(to_dtype)));
        }
        // Same memory: convert in place.
        cost.steps.push_back(convert_step(platform, at, dtype, to_dtype, elements, tensor_name));
    }
    return cost;
}

TransferCost transfer_cost(const Platform& platform, int from_device, int to_device,
                           const Tensor& tensor) {
    const Device& from = platform.device(from_device);
    const Device& to = platform.device(to_device);
    const DType from_dtype = dtype_on(from, tensor.dtype);
    const DType to_dtype = dtype_on(to, tensor.dtype);
    if (from.component == to.component && from_dtype == to_dtype)
        return {};
    return transfer_cost(platform, from.component, from_dtype, to.component, to_dtype,
                         tensor.elements(), tensor.name);
}

RouteCost route_cost(const Platform& platform, const std::string& from_component,
                     const std::string& to_component, bool page_locked) {
    RouteCost cost;
    std::string at = from_component;
    for (const Hop& hop : route_or_throw(platform, from_component, to_component, "a tensor")) {
        const Link& link = platform.links()[static_cast<std::size_t>(hop.link)];
        at = hop.forward ? link.endpoint_b : link.endpoint_a;
        cost.latency_s +=
            link.model->latency_s(hop.forward) + platform.find_component(at)->memory_latency_s;
        cost.seconds_per_byte +=
            1.0 / (page_locked ? link.model->page_locked_bandwidth_Bps(hop.forward)
                               : link.model->bandwidth_Bps(hop.forward));
    }
    return cost;
}

}  // namespace hetsim::sim
