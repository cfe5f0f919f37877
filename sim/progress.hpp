// What long runs print while they work (train, sweep): durations and a text bar, one style.
#pragma once

#include <string>

namespace hetsim::sim {

// "3m07s", "1h02m" (seconds below 0 count as 0).
std::string duration_text(double seconds);
// "[#######.................]" for a fraction in [0, 1].
std::string progress_bar(double fraction, int width = 24);

}  // namespace hetsim::sim
