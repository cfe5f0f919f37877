// `hetsim calibrate PLATFORM.yaml`: the platform's simulated figures side by side with the
// published ones they must reproduce (spec/simulator.md): lee2022's Fig. 8 / 2b on
// zynq_silentpim, DUET's Fig. 11 / 13 / 14 / 17 and Tables II / III on xeon_titanv. A published
// range must hold after widening it by 25 % on each side, and the trend must match.
#pragma once

#include <string>
#include <vector>

#include "sim/platform.hpp"

namespace hetsim::app {

struct CalibrationRow {
    std::string figure;    // "lee2022 Fig. 8a"
    std::string quantity;  // "add (p x 512): PIM speedup over CPU_S"
    std::string point;     // "p = 8"
    double simulated = 0.0;
    double published_low = 0.0, published_high = 0.0;  // the published range
    bool has_range = true;  // false: a trend-only row (e.g. Fig. 2b absolute times)
    bool in_published_range() const;
    bool in_widened_range() const;  // [low * 0.75, high * 1.25]
};

struct TrendCheck {
    std::string figure;
    std::string statement;  // "PIM speedup over CPU_S shrinks as p grows"
    bool holds = false;
};

struct CalibrationReport {
    std::string platform;
    std::vector<CalibrationRow> rows;
    std::vector<TrendCheck> trends;
    bool all_within_widened() const;
    bool all_trends_hold() const;
};

// Runs every calibration figure known for this platform (by its name) through the
// DesEvaluator. Throws sim::InputError when hetsim has no published figures for it.
CalibrationReport calibrate(const sim::Platform& platform);
std::string format_calibration(const CalibrationReport& report);

// Platform names with published figures.
std::vector<std::string> calibrated_platforms();

}  // namespace hetsim::app
