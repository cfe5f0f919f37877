// Test fixtures: device and link cost models with exactly known numbers, so evaluator and
// lowering tests can assert hand-computed times.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "sim/platform.hpp"

namespace hetsim::testing {

// op time = a fixed duration per op name (or per type, or a default).
class TableDevice : public sim::DeviceModel {
public:
    TableDevice(double default_s, sim::DType dtype = sim::DType::f32)
        : default_s_(default_s), dtype_(dtype) {}
    std::map<std::string, double> by_name;
    std::set<std::string> unsupported_types;
    std::string type() const override { return "table"; }
    sim::Support supports(const sim::Graph&, const sim::Op& op) const override {
        if (unsupported_types.count(op.type) != 0)
            return sim::Support::no("table says no");
        return sim::Support::yes();
    }
    double op_time_s(const sim::Graph&, const sim::Op& op) const override {
        auto it = by_name.find(op.name);
        return it == by_name.end() ? default_s_ : it->second;
    }
    sim::DType compute_dtype() const override { return dtype_; }

private:
    double default_s_;
    sim::DType dtype_;
};

class FixedLink : public sim::LinkModel {
public:
    FixedLink(double latency_s, double bandwidth_Bps, std::string converter = {})
        : latency_s_(latency_s), bandwidth_Bps_(bandwidth_Bps), converter_(std::move(converter)) {}
    std::string type() const override { return "fixed"; }
    double transfer_time_s(std::int64_t bytes, bool) const override {
        return latency_s_ + static_cast<double>(bytes) / bandwidth_Bps_;
    }
    std::string converting_component() const override { return converter_; }

private:
    double latency_s_, bandwidth_Bps_;
    std::string converter_;
};

// Conversion time = elements * seconds_per_element.
class FixedConversion : public sim::ConversionModel {
public:
    explicit FixedConversion(double seconds_per_element) : s_(seconds_per_element) {}
    double conversion_time_s(std::int64_t elements, sim::DType, sim::DType) const override {
        return static_cast<double>(elements) * s_;
    }

private:
    double s_;
};

// Adds a component with one resource (capacity 1) and one device on it.
inline int add_simple_device(sim::Platform& p, const std::string& component,
                             const std::string& device, std::shared_ptr<sim::DeviceModel> model,
                             std::shared_ptr<sim::ConversionModel> converter = nullptr) {
    if (p.find_component(component) == nullptr) {
        p.add_component(sim::Component{component, "test", 0, std::move(converter)});
    }
    int r = p.add_resource(sim::ExecResource{device, 1});
    return p.add_device(sim::Device{device, component, r, 1, std::move(model)});
}

}  // namespace hetsim::testing
