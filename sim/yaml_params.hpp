// YAML parameter readers shared by the component factories (devices, PIM, links): each checks
// the value's sign and unit and fails with the node's file:line and the offending text.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config.hpp"
#include "sim/graph.hpp"

namespace hetsim::sim {

int positive_int(const ConfigNode& node, const std::string& key);
double positive_number(const ConfigNode& node, const std::string& key);
double optional_positive(const ConfigNode& node, const std::string& key, Quantity quantity,
                         double fallback);
// A time >= 0; `fallback` when the key is absent.
double non_negative_time(const ConfigNode& node, const std::string& key, double fallback = 0.0);
std::int64_t bytes_of(double size);
// A dtype name ("int8", "bf16", "float32", ...); `fallback` when the key is absent. An unknown
// name fails listing the accepted ones.
DType dtype_param(const ConfigNode& node, const std::string& key, DType fallback);

}  // namespace hetsim::sim
