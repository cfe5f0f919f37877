// Loaders of fixed JSON formats (tarnawski2020 workloads, task-graph instances) refuse keys
// outside the format: a typo ("coms" for "comm") would otherwise be ignored.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hetsim::sim {

// The first key of `object` that is not in `known`, cut to 60 characters (with "...") for a
// message; nullopt when every key is known or `object` is not an object.
std::optional<std::string> unknown_json_key(const nlohmann::json& object,
                                            std::initializer_list<const char*> known);

}  // namespace hetsim::sim
