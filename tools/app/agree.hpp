// `hetsim agree`: how far the AnalyticEvaluator (contention-free list scheduling) is from the
// DesEvaluator (SystemC with shared bandwidths) on random feasible placements of a study.
// Since both run the same lowered durations, every difference is contention
// (docs/DESIGN.md "Two evaluators").
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tools/app/study.hpp"

namespace hetsim::app {

struct AgreementRow {
    int placement = 0;  // index of the random placement
    double analytic_s = 0.0;
    double des_s = 0.0;  // 0 when the DES refused the placement (ring mode)
    bool feasible = true;
    std::string reason;  // ring mode: why the DES refused it
};

struct AgreementReport {
    std::string study;
    std::string objective;  // "latency" (s per sample alone) or "throughput" (s per sample)
    std::uint64_t seed = 1;
    int attempts = 0;                // placements drawn, infeasible and unlowerable ones included
    std::vector<AgreementRow> rows;  // feasible ones
    double pearson_r = 0.0;
    double spearman_rho = 0.0;
    double mean_relative_difference = 0.0;  // mean of (des - analytic) / des
    double max_relative_difference = 0.0;   // largest |des - analytic| / des, signed
    // Ring mode (a platform of chiplets, mcm2022 §5.4): the analytic side is the §5.1 model,
    // the placements are the solver's uniform SAMPLE partitions (all analytically valid), and
    // some fail in the DES (H(G, f), or SRAM with samples in flight). r and rho are over the
    // partitions valid in both; the share of analytically valid ones the DES refuses is the
    // paper's 13.5 %.
    bool ring = false;
    int des_invalid = 0;
    std::map<std::string, int> des_invalid_by_verdict;
    int solver_failures = 0;  // SAMPLE calls that returned no partition
};

// Draws `samples` feasible random placements (seeded; each op on one of the devices that can
// run it, with per-placement device weights so that the set spans mostly-one-device to
// spread-out placements) and evaluates each with both evaluators in the study's objective.
// On a chiplet ring it measures mcm2022 §5.4 instead (AgreementReport::ring): `samples`
// uniform SAMPLE partitions, the §5.1 model against the DES in time per sample.
AgreementReport measure_agreement(const StudyConfig& study, int samples, std::uint64_t seed);

double pearson(const std::vector<double>& x, const std::vector<double>& y);
// Pearson correlation of the ranks, ties sharing their mean rank.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

std::string format_agreement(const AgreementReport& report);
// agreement.csv (header `placement,analytic_s,des_s,feasible,relative_difference`), and
// agreement.png through matplotlib when /usr/bin/python3 has it; returns a note for the
// terminal ("agreement.png written" or why not).
std::string write_agreement(const AgreementReport& report, const std::filesystem::path& out_dir);

}  // namespace hetsim::app
