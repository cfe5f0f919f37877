#include "sim/trace.hpp"

namespace hetsim::sim {

int Trace::track(const std::string& process, const std::string& thread) {
    // A linear scan: a run has a few dozen tracks at most, and keeping tracks a plain vector
    // keeps the index stable and the order the first-use order that trace writers rely on.
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        if (tracks[i].process == process && tracks[i].thread == thread) {
            return static_cast<int>(i);
        }
    }
    tracks.push_back(TraceTrack{process, thread});
    return static_cast<int>(tracks.size() - 1);
}

}  // namespace hetsim::sim
