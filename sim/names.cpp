#include "sim/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace hetsim::sim {

std::string shown_bytes(std::string_view text, std::size_t max_chars) {
    std::string shown;
    for (const char c : text.substr(0, max_chars)) {
        const auto byte = static_cast<unsigned char>(c);
        shown += byte >= 0x20 && byte < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", byte);
    }
    return text.size() > max_chars ? shown + "..." : shown;
}

std::string plain_name_problem(const std::string& name) {
    constexpr std::size_t kMaxLength = 64;
    const bool plain =
        !name.empty() && name.size() <= kMaxLength &&
        std::all_of(name.begin(), name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        });
    if (plain)
        return "";
    return fmt::format("'{}' is not 1 to 64 ASCII letters, digits, '_' or '-'",
                       shown_bytes(name, kMaxLength));
}

}  // namespace hetsim::sim
