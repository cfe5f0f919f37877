#include "sim/json_keys.hpp"

#include <algorithm>

namespace hetsim::sim {

std::optional<std::string> unknown_json_key(const nlohmann::json& object,
                                            std::initializer_list<const char*> known) {
    if (!object.is_object())
        return std::nullopt;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string& key = it.key();
        if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; }))
            return key.size() > 60 ? key.substr(0, 60) + "..." : key;
    }
    return std::nullopt;
}

}  // namespace hetsim::sim
