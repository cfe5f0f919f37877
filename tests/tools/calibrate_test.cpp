// `hetsim calibrate`: the shipped Zynq + Silent-PIM platform reproduces lee2022 Fig. 8 and
// Fig. 2b within the published ranges widened by 25 %, with the published trends; a
// platform that does not is reported as failing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sim/config.hpp"
#include "sim/platform.hpp"
#include "tools/app/calibrate.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::app {
namespace {

const std::string kZynq = std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/zynq_silentpim.yaml";

// `text` with its one occurrence of `from` replaced (the test fails if it is missing).
std::string replace_once(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(Calibrate, ZynqReproducesLee2022Figures) {
    register_all();
    const CalibrationReport report = calibrate(sim::load_platform(kZynq));
    // Fig. 8a/8b: 4 quantities x p = 8, 16, 32, 64; Fig. 2b: 5 sizes.
    EXPECT_EQ(report.rows.size(), 21u);
    for (const auto& row : report.rows) {
        EXPECT_TRUE(row.in_widened_range())
            << row.figure << " " << row.quantity << " " << row.point << ": " << row.simulated;
    }
    for (const auto& trend : report.trends) {
        EXPECT_TRUE(trend.holds) << trend.figure << ": " << trend.statement;
    }
    EXPECT_EQ(report.trends.size(), 7u);
    const std::string text = format_calibration(report);
    EXPECT_THAT(text, ::testing::HasSubstr("calibration holds"));
}

// DUET's figures on the fitted xeon_titanv, all predictions (the platform's constants come
// from Table II/III's subgraph times only): Fig. 11 inside its ranges widened by 25 % (Wide-
// and-Deep over TVM-GPU, Siamese over TVM-CPU and MT-DNN over TVM-GPU only there), Table III
// and Fig. 13 exactly, Table II's placements and the Fig. 13/14/16/17 trends.
TEST(Calibrate, XeonTitanVReproducesDuetFigures) {
    register_all();
    const CalibrationReport report = calibrate(
        sim::load_platform(std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/xeon_titanv.yaml"));
    EXPECT_EQ(report.rows.size(), 8u);
    int in_published = 0;
    for (const auto& row : report.rows) {
        // A prediction, not re-tuned: since issue 25's K-tile GPU model (a GEMM's operand
        // floor at the achievable bandwidth) DUET's gain over TVM-GPU on Wide-and-Deep
        // predicts 2.92x, just past the widened 1.5-2.3x (README.md, "DUET").
        const bool known_miss =
            row.quantity == "DUET speedup over TVM-GPU" && row.point == "Wide-and-Deep";
        EXPECT_EQ(row.in_widened_range(), !known_miss)
            << row.figure << " " << row.quantity << " " << row.point << ": " << row.simulated;
        if (known_miss) {
            EXPECT_GT(row.simulated, 2.3 * 1.25);
        }
        in_published += row.in_published_range() ? 1 : 0;
    }
    EXPECT_EQ(in_published, 5);
    EXPECT_FALSE(report.all_within_widened());
    EXPECT_EQ(report.trends.size(), 7u);
    for (const auto& trend : report.trends)
        EXPECT_TRUE(trend.holds) << trend.figure << ": " << trend.statement;
}

// The checks are not vacuous: a PIM whose offload costs 100x more loses Fig. 8.
TEST(Calibrate, ASlowPimFailsTheFigures) {
    register_all();
    const std::string text =
        replace_once(read_file(kZynq), "offload_overhead: 633.2 ns", "offload_overhead: 63.32 us");
    const CalibrationReport report =
        calibrate(sim::parse_platform(sim::ConfigNode::from_string(text, "slow.yaml")));
    EXPECT_FALSE(report.all_within_widened());
    EXPECT_THAT(format_calibration(report), ::testing::HasSubstr("OUT OF RANGE"));
    EXPECT_THAT(format_calibration(report), ::testing::HasSubstr("calibration does NOT hold"));
}

TEST(Calibrate, UnknownPlatformIsAnInputError) {
    register_all();
    const std::string text =
        replace_once(read_file(kZynq), "name: zynq_silentpim", "name: my_board");
    const sim::Platform platform =
        sim::parse_platform(sim::ConfigNode::from_string(text, "mine.yaml"));
    EXPECT_THAT([&] { calibrate(platform); },
                ::testing::ThrowsMessage<sim::InputError>(::testing::HasSubstr(
                    "no published figures for platform 'my_board'; calibrated platforms: "
                    "xeon_titanv, zynq_silentpim")));
}

}  // namespace
}  // namespace hetsim::app
