// `hetsim sweep SWEEP.yaml`: the app side of a design-space sweep (sweep/ runs it).
#pragma once

#include <ostream>
#include <string>

namespace hetsim::app {

struct SweepRequest {
    std::string file;
    std::string out;  // default out/<sweep name>
    int jobs = 1;
    bool resume = false;
    bool retry_failed = false;
};

// Loads and checks the sweep (its base study and first point, so that a typo fails here with
// exit 2, not in every worker), writes DIR/sweep.json, runs the points and returns the closing
// summary. Returns the exit code through `exit_code`: 0 when every point ran, 1 when some
// failed, 130 when interrupted.
std::string run_sweep(const SweepRequest& request, std::ostream& progress, bool terminal,
                      int& exit_code);

}  // namespace hetsim::app
