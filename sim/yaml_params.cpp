#include "sim/yaml_params.hpp"

#include <fmt/format.h>

#include <cmath>

namespace hetsim::sim {

int positive_int(const ConfigNode& node, const std::string& key) {
    const ConfigNode v = node.at(key);
    const std::int64_t n = v.as_int();
    if (n <= 0 || n > 1'000'000)
        v.fail(fmt::format("must be an integer in 1..1000000, got {}", n));
    return static_cast<int>(n);
}

double positive_number(const ConfigNode& node, const std::string& key) {
    const ConfigNode v = node.at(key);
    const double x = v.as_double();
    if (!(x > 0.0))
        v.fail(fmt::format("must be > 0, got {}", x));
    return x;
}

double optional_positive(const ConfigNode& node, const std::string& key, Quantity quantity,
                         double fallback) {
    return node.has(key) ? node.require_positive_quantity(key, quantity) : fallback;
}

double non_negative_time(const ConfigNode& node, const std::string& key, double fallback) {
    const double t = node.get_quantity(key, Quantity::time, fallback);
    if (t < 0.0)
        node[key].fail(fmt::format("must be >= 0, got '{}'", node[key].as_string()));
    return t;
}

std::int64_t bytes_of(double size) {
    return static_cast<std::int64_t>(std::llround(size));
}

DType dtype_param(const ConfigNode& node, const std::string& key, DType fallback) {
    if (!node.has(key))
        return fallback;
    const ConfigNode v = node.at(key);
    const std::optional<DType> dtype = parse_dtype(v.as_string());
    if (!dtype) {
        v.fail(
            fmt::format("unknown dtype '{}'; expected one of float32, bfloat16, float16, "
                        "int64, int32, int8, bool",
                        v.as_string()));
    }
    return *dtype;
}

}  // namespace hetsim::sim
