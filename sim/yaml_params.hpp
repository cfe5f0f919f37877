// YAML parameter readers shared by the component factories (devices, PIM, links): each checks
// the value's sign and unit and fails with the node's file:line and the offending text.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config.hpp"

namespace hetsim::sim {

int positive_int(const ConfigNode& node, const std::string& key);
double positive_number(const ConfigNode& node, const std::string& key);
double optional_positive(const ConfigNode& node, const std::string& key, Quantity quantity,
                         double fallback);
// A time >= 0; `fallback` when the key is absent.
double non_negative_time(const ConfigNode& node, const std::string& key, double fallback = 0.0);
std::int64_t bytes_of(double size);

}  // namespace hetsim::sim
