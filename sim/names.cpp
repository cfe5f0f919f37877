#include "sim/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace hetsim::sim {

std::string plain_name_problem(const std::string& name) {
    constexpr std::size_t kMaxLength = 64;
    const bool plain =
        !name.empty() && name.size() <= kMaxLength &&
        std::all_of(name.begin(), name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        });
    if (plain)
        return "";
    std::string shown;
    for (const char c : name.substr(0, kMaxLength)) {
        const auto byte = static_cast<unsigned char>(c);
        shown += std::isprint(byte) ? std::string(1, c) : fmt::format("\\x{:02x}", byte);
    }
    return fmt::format("'{}{}' is not 1 to 64 ASCII letters, digits, '_' or '-'", shown,
                       name.size() > kMaxLength ? "..." : "");
}

}  // namespace hetsim::sim
