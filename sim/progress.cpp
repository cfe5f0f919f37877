#include "sim/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hetsim::sim {

std::string duration_text(double seconds) {
    const auto s = static_cast<long>(std::max(0.0, seconds));
    if (s >= 3600)
        return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
    return fmt::format("{}m{:02}s", s / 60, s % 60);
}

std::string progress_bar(double fraction, int width) {
    const int filled =
        static_cast<int>(std::round(std::clamp(fraction, 0.0, 1.0) * static_cast<double>(width)));
    return "[" + std::string(static_cast<std::size_t>(filled), '#') +
           std::string(static_cast<std::size_t>(width - filled), '.') + "]";
}

}  // namespace hetsim::sim
