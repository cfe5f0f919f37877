// YAML parameter readers shared by the device builders (cpu, gpu): each checks the value's
// sign and unit and fails with the node's file:line and the offending text.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config.hpp"

namespace hetsim::devices {

int positive_int(const sim::ConfigNode& node, const std::string& key);
double positive_number(const sim::ConfigNode& node, const std::string& key);
double optional_positive(const sim::ConfigNode& node, const std::string& key,
                         sim::Quantity quantity, double fallback);
// A time >= 0; 0 when the key is absent.
double non_negative_time(const sim::ConfigNode& node, const std::string& key);
std::int64_t bytes_of(double size);

}  // namespace hetsim::devices
