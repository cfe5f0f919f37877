#include "tools/app/agree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <sstream>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/des_check.hpp"
#include "placement/mcm/problem.hpp"
#include "placement/mcm/solver.hpp"
#include "placement/placer.hpp"
#include "sim/config.hpp"
#include "sim/device_role.hpp"
#include "sim/exec_graph.hpp"
#include "sim/placement_rules.hpp"

namespace fs = std::filesystem;

namespace hetsim::app {

namespace {

// Seconds per sample in the study's objective (lower is better in both).
double objective_s(const sim::Metrics& m, placement::Objective objective) {
    if (objective == placement::Objective::latency)
        return m.latency_s;
    return m.throughput_per_s > 0.0 ? 1.0 / m.throughput_per_s : 0.0;
}

sim::Placement random_placement(const StudyConfig& study, std::mt19937_64& rng) {
    // Device weights ~ Exp(1) per placement (a flat Dirichlet draw once normalised): some
    // placements lean on one device, others spread out, so the sample spans a range of
    // transfer volumes and overlaps instead of clustering around one uniform mix.
    std::exponential_distribution<double> weight_of(1.0);
    std::vector<double> weight(static_cast<std::size_t>(study.platform.device_count()));
    for (auto& w : weight)
        w = weight_of(rng);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    sim::Placement placement;
    placement.device_of_op.resize(static_cast<std::size_t>(study.graph->op_count()));
    for (int op = 0; op < study.graph->op_count(); ++op) {
        const std::vector<int> capable =
            placement::capable_devices(*study.graph, study.platform, op);
        double total = 0.0;
        for (int d : capable)
            total += weight[static_cast<std::size_t>(d)];
        double draw = unit(rng) * total;
        int chosen = capable.back();
        for (int d : capable) {
            draw -= weight[static_cast<std::size_t>(d)];
            if (draw < 0.0) {
                chosen = d;
                break;
            }
        }
        placement.device_of_op[static_cast<std::size_t>(op)] = chosen;
    }
    return placement;
}

std::vector<double> ranks(const std::vector<double>& x) {
    std::vector<std::size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return x[a] < x[b]; });
    std::vector<double> rank(x.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]])
            ++j;
        const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
        for (std::size_t k = i; k <= j; ++k)
            rank[order[k]] = mean_rank;
        i = j + 1;
    }
    return rank;
}

}  // namespace

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
    const std::size_t n = x.size();
    if (n < 2 || y.size() != n)
        return 0.0;
    const double mx = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
    const double my = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0.0 || syy <= 0.0)
        return sxx == syy ? 1.0 : 0.0;  // both constant: identical orderings
    return sxy / std::sqrt(sxx * syy);
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
    return pearson(ranks(x), ranks(y));
}

namespace {

bool has_chiplets(const sim::Platform& platform) {
    for (const sim::Device& d : platform.devices()) {
        if (d.role() == sim::DeviceRole::chiplet)
            return true;
    }
    return false;
}

// Pearson r and Spearman rho over the rows the DES ran, each side normalised to its minimum as
// mcm2022 Fig. 7 plots them (r and rho do not change under the scaling).
void correlate(AgreementReport& report) {
    std::vector<double> a, d;
    for (const AgreementRow& r : report.rows) {
        if (r.feasible) {
            a.push_back(r.analytic_s);
            d.push_back(r.des_s);
        }
    }
    if (a.size() < 2)
        return;
    const double min_a = *std::min_element(a.begin(), a.end());
    const double min_d = *std::min_element(d.begin(), d.end());
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] /= min_a;
        d[i] /= min_d;
    }
    report.pearson_r = pearson(a, d);
    report.spearman_rho = spearman(a, d);
}

AgreementReport measure_ring_agreement(const StudyConfig& study, int samples, std::uint64_t seed) {
    namespace mcm = placement::mcm;
    AgreementReport report;
    report.study = study.name;
    report.objective = "throughput";
    report.seed = seed;
    report.ring = true;
    const mcm::McmProblem problem(*study.graph, study.platform);
    mcm::AnalyticModel analytic(problem);
    mcm::PartitionSolver solver(problem);
    sim::EvalOptions options;
    options.samples = study.samples;
    auto des = sim::make_evaluator("des", study.platform, options);
    std::mt19937_64 rng(seed);
    while (static_cast<int>(report.rows.size()) < samples && report.solver_failures < samples) {
        ++report.attempts;
        const auto partition = solver.sample({}, rng);
        if (!partition) {
            ++report.solver_failures;
            continue;
        }
        const mcm::AnalyticResult predicted = analytic.evaluate(*partition);
        if (!predicted.valid)
            throw std::logic_error("the solver returned an analytically invalid partition: " +
                                   predicted.reason);
        const mcm::SimulatedPartition run = mcm::simulate_partition(problem, *partition, *des);
        AgreementRow row;
        row.placement = report.attempts - 1;
        row.analytic_s = predicted.time_per_sample_s;
        row.des_s = run.time_per_sample_s;
        row.feasible = run.valid();
        if (!run.valid()) {
            row.reason = run.reason;
            ++report.des_invalid;
            ++report.des_invalid_by_verdict[std::string(mcm::to_string(run.verdict))];
        }
        report.rows.push_back(std::move(row));
    }
    if (report.rows.size() - static_cast<std::size_t>(report.des_invalid) < 2) {
        throw sim::InputError(
            study.file, "", 0,
            fmt::format("only {} of {} sampled partitions ran in the DES; "
                        "nothing to compare",
                        report.rows.size() - report.des_invalid, report.rows.size()));
    }
    correlate(report);
    double sum = 0.0;
    int valid = 0;
    for (const auto& r : report.rows) {
        if (!r.feasible)
            continue;
        const double rel = (r.des_s - r.analytic_s) / r.des_s;
        sum += rel;
        ++valid;
        if (std::abs(rel) > std::abs(report.max_relative_difference))
            report.max_relative_difference = rel;
    }
    report.mean_relative_difference = sum / valid;
    return report;
}

}  // namespace

AgreementReport measure_agreement(const StudyConfig& study, int samples, std::uint64_t seed) {
    if (samples < 2) {
        throw sim::InputError("", "--samples", 0,
                              fmt::format("needs at least 2 placements, got {}", samples));
    }
    if (has_chiplets(study.platform))
        return measure_ring_agreement(study, samples, seed);
    AgreementReport report;
    report.study = study.name;
    report.objective = study.objective == placement::Objective::latency ? "latency" : "throughput";
    report.seed = seed;
    sim::EvalOptions options;
    options.samples = study.samples;
    sim::AnalyticEvaluator analytic(options);
    auto des = sim::make_evaluator("des", study.platform, options);
    std::mt19937_64 rng(seed);
    // Infeasible (memory), rule-breaking (sim/placement_rules.hpp) and unlowerable placements
    // are drawn again, within a bound.
    const int max_attempts = 20 * samples;
    std::vector<double> a, d;
    while (static_cast<int>(report.rows.size()) < samples && report.attempts < max_attempts) {
        ++report.attempts;
        const sim::Placement placement = random_placement(study, rng);
        if (!sim::placement_violation(*study.graph, study.platform, placement).empty())
            continue;
        sim::ExecGraph exec;
        try {
            exec = sim::lower(*study.graph, placement, study.platform);
        } catch (const sim::LimitError&) {
            throw;
        } catch (const sim::LoweringError&) {
            continue;
        }
        const sim::Metrics ma = analytic.evaluate(exec);
        if (!ma.feasible)
            continue;
        const sim::Metrics md = des->evaluate(exec);
        AgreementRow row;
        row.placement = report.attempts - 1;
        row.analytic_s = objective_s(ma, study.objective);
        row.des_s = objective_s(md, study.objective);
        row.feasible = md.feasible;
        report.rows.push_back(row);
        a.push_back(row.analytic_s);
        d.push_back(row.des_s);
    }
    if (report.rows.size() < 2) {
        throw sim::InputError(study.file, "", 0,
                              fmt::format("only {} of {} random placements were feasible; "
                                          "nothing to compare",
                                          report.rows.size(), report.attempts));
    }
    report.pearson_r = pearson(a, d);
    report.spearman_rho = spearman(a, d);
    double sum = 0.0;
    for (const auto& r : report.rows) {
        const double rel = r.des_s > 0.0 ? (r.des_s - r.analytic_s) / r.des_s : 0.0;
        sum += rel;
        if (std::abs(rel) > std::abs(report.max_relative_difference))
            report.max_relative_difference = rel;
    }
    report.mean_relative_difference = sum / static_cast<double>(report.rows.size());
    return report;
}

std::string format_agreement(const AgreementReport& report) {
    if (report.ring) {
        std::string out = fmt::format(
            "mcm2022 §5.4 on study {}: the §5.1 analytical model against the DES on {} uniform "
            "SAMPLE partitions (seed {}), all valid for the analytical model\n"
            "  refused by the DES   {} of {} ({:.1f} %; mcm2022: 13.5 %)\n",
            report.study, report.rows.size(), report.seed, report.des_invalid, report.rows.size(),
            report.rows.empty() ? 0.0 : 100.0 * report.des_invalid / report.rows.size());
        for (const auto& [verdict, count] : report.des_invalid_by_verdict)
            out += fmt::format("    {:<30} {}\n", verdict, count);
        out += fmt::format(
            "  over the {} valid in both, time per sample normalised to its minimum:\n"
            "  Pearson r     {:.4f} (mcm2022: 0.91)\n"
            "  Spearman rho  {:.4f}\n"
            "  relative difference (DES - analytic) / DES: mean {:+.2f} %, max {:+.2f} %\n",
            report.rows.size() - report.des_invalid, report.pearson_r, report.spearman_rho,
            100.0 * report.mean_relative_difference, 100.0 * report.max_relative_difference);
        if (report.solver_failures > 0)
            out += fmt::format("  ({} SAMPLE call(s) returned no partition)\n",
                               report.solver_failures);
        return out;
    }
    return fmt::format(
        "agreement of the analytic evaluator with the DES on {} random feasible placements of "
        "study {} ({} drawn, seed {}, objective {}):\n"
        "  Pearson r     {:.4f}\n"
        "  Spearman rho  {:.4f}\n"
        "  relative difference (DES - analytic) / DES: mean {:+.2f} %, max {:+.2f} %\n",
        report.rows.size(), report.study, report.attempts, report.seed, report.objective,
        report.pearson_r, report.spearman_rho, 100.0 * report.mean_relative_difference,
        100.0 * report.max_relative_difference);
}

std::string write_agreement(const AgreementReport& report, const fs::path& out_dir) {
    std::ostringstream csv;
    csv << "placement,analytic_s,des_s,feasible,relative_difference"
        << (report.ring ? ",reason\n" : "\n");
    for (const auto& r : report.rows) {
        csv << fmt::format("{},{:.9g},{:.9g},{},{:.6g}", r.placement, r.analytic_s, r.des_s,
                           r.feasible ? 1 : 0,
                           r.des_s > 0.0 ? (r.des_s - r.analytic_s) / r.des_s : 0.0);
        if (report.ring) {
            std::string reason = r.reason;
            std::replace(reason.begin(), reason.end(), '"', '\'');
            csv << fmt::format(",\"{}\"", reason);
        }
        csv << "\n";
    }
    const fs::path csv_path = out_dir / "agreement.csv";
    try {
        sim::create_output_folder(out_dir);
        write_file_atomically(csv_path, csv.str());
    } catch (const std::exception& e) {
        throw sim::InputError("", "--out", 0, sim::write_failure_message(e, out_dir));
    }
    // The plot is optional: Debian's python3-matplotlib under /usr/bin/python3.
    const char* python = kSystemPython;
    if (!fs::exists(python))
        return "agreement.png not written: /usr/bin/python3 is missing";
    const auto found = find_tool_script("plot_agreement.py");
    if (!found)
        return "agreement.png not written: tools/plot_agreement.py not found";
    const fs::path script = *found;
    const fs::path png = out_dir / "agreement.png";
    const std::string command =
        fmt::format("'{}' '{}' '{}' '{}' '{}' 2>&1", python, script.string(), csv_path.string(),
                    png.string(), report.ring ? "ring" : report.objective);
    const int status = std::system(command.c_str());
    if (status != 0 || !fs::exists(png))
        return "agreement.png not written: matplotlib is not available (python3-matplotlib)";
    return fmt::format("agreement.png written");
}

}  // namespace hetsim::app
