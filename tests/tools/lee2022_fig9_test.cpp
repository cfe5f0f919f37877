// lee2022 Fig. 9, Fig. 11 and Table 3 through the shipped studies
// (configs/studies/lee2022_{bert,roberta,gpt2}.yaml on configs/platforms/zynq_silentpim.yaml):
//   - §4.3: OPT (lee2022.als) is 1.1-2.1x faster than priority (CPU_P, PIM, CPU_S) and
//     1.1-3.0x faster than (PIM, CPU_P, CPU_S) at p = 8..64, never slower than either, the
//     speedup shrinking as p grows;
//   - §4.3: (CPU_P, PIM, CPU_S) beats (PIM, CPU_P, CPU_S) on BERT (Gemm needs its weight
//     transposed, which PIM does badly); on GPT-2 the PIM-first order wins;
//   - Fig. 11 at p = 16: OPT's cut of the computation and data-transfer time of
//     (PIM, CPU_P, CPU_S), published BERT 54 % / 27 %, RoBERTa 34 % / 20 %, GPT-2 "similar"
//     computation / 64 %, within the published values widened by 25 % (as for Fig. 8);
//   - Table 3: 3 node profile runs + 1 edge run for every model and sequence length.
// Since issue 25 the platform's CPU and PIM constants are fitted on Fig. 8 alone
// (configs/platforms/zynq_silentpim.yaml), and Fig. 9 is a prediction. Not asserted because
// hetsim does not reproduce it:
//   - at p = 8, OPT is predicted 2.14x (BERT), 2.38x (RoBERTa) and 2.30x (GPT-2) faster than
//     (CPU_P, PIM, CPU_S), above the published 2.1x (before the refit, tuned on Fig. 9, 1.8x);
//   - the paper's (CPU_P, PIM, CPU_S) also beats (PIM, CPU_P, CPU_S) on RoBERTa; here the
//     PIM-first order is faster there.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/app/registration.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {
namespace {

constexpr const char* kOpt = "lee2022.als";
constexpr const char* kCpuFirst = "priority:CPU_P,PIM,CPU_S";
constexpr const char* kPimFirst = "priority:PIM,CPU_P,CPU_S";

struct Point {
    std::string label;  // "seq_len=8"
    std::shared_ptr<sim::Graph> graph;
    sim::Platform platform;
    std::map<std::string, PlacerRow> rows;
    double latency(const std::string& placer) const { return rows.at(placer).metrics.latency_s; }
    double speedup_over(const std::string& placer) const { return latency(placer) / latency(kOpt); }
    double kind_s(const std::string& placer, const std::string& kind) const {
        const auto& kinds = rows.at(placer).metrics.time_by_kind_s;
        auto it = kinds.find(kind);
        return it == kinds.end() ? 0.0 : it->second;
    }
    double compute_s(const std::string& placer) const { return kind_s(placer, "compute"); }
    double moves_s(const std::string& placer) const {
        return kind_s(placer, "convert") + kind_s(placer, "transfer");
    }
};

std::vector<Point> run_model(const std::string& model) {
    register_all();
    const std::string file =
        std::string(HETSIM_SOURCE_DIR) + "/configs/studies/lee2022_" + model + ".yaml";
    std::vector<Point> points;
    for (const StudyConfig& study : load_study_points(file, {})) {
        Point point;
        point.label = study.point;
        point.graph = study.graph;
        point.platform = study.platform;
        for (PlacerRow& row : run_study(study, false).rows)
            point.rows.emplace(row.placer, std::move(row));
        points.push_back(std::move(point));
    }
    return points;
}

// The Fig. 9 / Table 3 checks common to the three models.
void expect_fig9(const std::vector<Point>& points) {
    ASSERT_EQ(points.size(), 4u);
    const std::vector<std::string> labels = {"seq_len=8", "seq_len=16", "seq_len=32", "seq_len=64"};
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Point& p = points[i];
        SCOPED_TRACE(p.label);
        EXPECT_EQ(p.label, labels[i]);
        ASSERT_EQ(p.rows.count(kOpt), 1u);
        // Never slower than either priority order.
        EXPECT_LE(p.latency(kOpt), p.latency(kCpuFirst));
        EXPECT_LE(p.latency(kOpt), p.latency(kPimFirst));
        // The published ranges, except the one the refitted platform misses: at p = 8 OPT's
        // speedup over (CPU_P, PIM, CPU_S) is predicted above 2.1 (header).
        EXPECT_GE(p.speedup_over(kCpuFirst), 1.1);
        if (i > 0) {
            EXPECT_LE(p.speedup_over(kCpuFirst), 2.1);
        }
        EXPECT_GE(p.speedup_over(kPimFirst), 1.1);
        EXPECT_LE(p.speedup_over(kPimFirst), 3.0);
        // Table 3: three node runs (one per device) and one edge run.
        const PlacerRow& opt = p.rows.at(kOpt);
        EXPECT_EQ(opt.profile_runs, 4);
        EXPECT_EQ(opt.stats.at("node_runs"), "3");
        EXPECT_EQ(opt.stats.at("edge_runs"), "1");
        EXPECT_EQ(opt.stats.at("da_edges_unmeasured"), "0");
        if (i > 0) {
            // The speedup shrinks as the sequence grows (§4.3: PIM time is linear in p while
            // the CPU gains cache locality).
            EXPECT_LT(p.speedup_over(kCpuFirst), points[i - 1].speedup_over(kCpuFirst));
            EXPECT_LT(p.speedup_over(kPimFirst), points[i - 1].speedup_over(kPimFirst));
        }
    }
}

// Fig. 11 (p = 16): the fraction by which OPT cuts a cost of (PIM, CPU_P, CPU_S).
double cut(double pim_first, double opt) {
    return 1.0 - opt / pim_first;
}

// Published fraction widened by 25 % either way.
void expect_near_published(double simulated, double published, const char* what) {
    EXPECT_GE(simulated, published * 0.75) << what;
    EXPECT_LE(simulated, published * 1.25) << what;
}

TEST(Lee2022Fig9, Bert) {
    const auto points = run_model("bert");
    expect_fig9(points);
    for (const Point& p : points) {
        SCOPED_TRACE(p.label);
        EXPECT_LT(p.latency(kCpuFirst), p.latency(kPimFirst));
    }
    const Point& p16 = points.at(1);
    expect_near_published(cut(p16.compute_s(kPimFirst), p16.compute_s(kOpt)), 0.54,
                          "BERT computation cut");
    expect_near_published(cut(p16.moves_s(kPimFirst), p16.moves_s(kOpt)), 0.27,
                          "BERT data-transfer cut");
    // Fig. 10: OPT moves the Gemms (transposed weight) off the PIM; PIM-first runs them there.
    const int pim = *p16.platform.find_device("PIM");
    int gemms = 0;
    for (std::size_t id = 0; id < static_cast<std::size_t>(p16.graph->op_count()); ++id) {
        const sim::Op& op = p16.graph->op(static_cast<int>(id));
        if (op.type != "Gemm" || op.attr_int("transB", 0) == 0)
            continue;
        ++gemms;
        EXPECT_EQ(p16.rows.at(kPimFirst).placement.device_of_op[id], pim) << op.name;
        EXPECT_NE(p16.rows.at(kOpt).placement.device_of_op[id], pim) << op.name;
    }
    EXPECT_EQ(gemms, 2);  // pooler and classifier (lee2022 Table 2, Gemm (2))
}

TEST(Lee2022Fig9, Roberta) {
    const auto points = run_model("roberta");
    expect_fig9(points);
    const Point& p16 = points.at(1);
    expect_near_published(cut(p16.compute_s(kPimFirst), p16.compute_s(kOpt)), 0.34,
                          "RoBERTa computation cut");
    expect_near_published(cut(p16.moves_s(kPimFirst), p16.moves_s(kOpt)), 0.20,
                          "RoBERTa data-transfer cut");
}

TEST(Lee2022Fig9, Gpt2) {
    const auto points = run_model("gpt2");
    expect_fig9(points);
    for (const Point& p : points) {
        SCOPED_TRACE(p.label);
        EXPECT_LT(p.latency(kPimFirst), p.latency(kCpuFirst));
    }
    const Point& p16 = points.at(1);
    // "Their computation times are similar, but data transfer time decreases by 64 %."
    EXPECT_LT(std::abs(cut(p16.compute_s(kPimFirst), p16.compute_s(kOpt))), 0.05);
    expect_near_published(cut(p16.moves_s(kPimFirst), p16.moves_s(kOpt)), 0.64,
                          "GPT-2 data-transfer cut");
}

}  // namespace
}  // namespace hetsim::app
