#include "tools/app/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "placement/placer.hpp"
#include "sim/config.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/passes/fuse.hpp"
#include "sim/workloads/model_zoo.hpp"

namespace hetsim::app {

namespace {

constexpr double kWiden = 0.25;  // spec/simulator.md: published ranges widened by 25 %

// Measures one op on one device through the simulator: the op's operands are resident in
// the device's memory (weights), so the compute task is all that runs; its measured duration
// is read from the DES task timings.
class OpBench {
public:
    explicit OpBench(const sim::Platform& platform)
        : platform_(platform), des_(platform, sim::EvalOptions{1}) {}

    // The first device `is` accepts; `what` says what was looked for when there is none.
    int find_device(const std::string& what,
                    const std::function<bool(const sim::Device&)>& is) const {
        for (int d = 0; d < platform_.device_count(); ++d) {
            if (is(platform_.device(d)))
                return d;
        }
        throw sim::InputError(platform_.source_file, "components", 0,
                              fmt::format("calibration of '{}' needs {}", platform_.name, what));
    }

    // Duration of the single compute task of `graph` with every op on `device`.
    double op_time_s(const sim::Graph& graph, int device) {
        sim::Placement placement;
        placement.device_of_op.assign(static_cast<std::size_t>(graph.op_count()), device);
        sim::ExecGraph exec = sim::lower(graph, placement, platform_);
        sim::Metrics m = des_.evaluate(exec);
        double total = 0.0;
        for (std::size_t t = 0; t < exec.tasks.size(); ++t) {
            if (exec.tasks[t].kind == sim::TaskKind::compute)
                total += m.task_timings[t].duration_s();
        }
        return total;
    }

    // Time to move `graph`'s input to `device` and its output back (convert + DMA each way),
    // split by direction: {host -> device, device -> host}.
    std::pair<double, double> round_trip_s(const sim::Graph& graph, int device) {
        sim::Placement placement;
        placement.device_of_op.assign(static_cast<std::size_t>(graph.op_count()), device);
        sim::ExecGraph exec = sim::lower(graph, placement, platform_);
        sim::Metrics m = des_.evaluate(exec);
        double to_device = 0.0, from_device = 0.0;
        bool after_compute = false;
        for (std::size_t t = 0; t < exec.tasks.size(); ++t) {
            const auto& task = exec.tasks[t];
            if (task.kind == sim::TaskKind::compute) {
                after_compute = true;
                continue;
            }
            (after_compute ? from_device : to_device) += m.task_timings[t].duration_s();
        }
        return {to_device, from_device};
    }

private:
    const sim::Platform& platform_;
    sim::DesEvaluator des_;
};

sim::Graph elementwise_add_graph(std::int64_t p, std::int64_t cols) {
    sim::Graph g(fmt::format("add_{}x{}", p, cols));
    int a = g.add_tensor("a", {p, cols}, sim::DType::f32, sim::TensorKind::weight);
    int b = g.add_tensor("b", {p, cols}, sim::DType::f32, sim::TensorKind::weight);
    int c = g.add_tensor("c", {p, cols}, sim::DType::f32);
    g.add_op("add", "Add", {a, b}, {c});
    g.finalize();
    return g;
}

sim::Graph matmul_graph(std::int64_t p, std::int64_t q, std::int64_t r) {
    sim::Graph g(fmt::format("matmul_{}x{}x{}", p, q, r));
    int a = g.add_tensor("a", {p, q}, sim::DType::f32, sim::TensorKind::weight);
    int w = g.add_tensor("w", {q, r}, sim::DType::f32, sim::TensorKind::weight);
    int c = g.add_tensor("c", {p, r}, sim::DType::f32);
    g.add_op("matmul", "MatMul", {a, w}, {c});
    g.finalize();
    return g;
}

// x (input, in host memory) + w (resident weight) on the device: x crosses host -> device,
// the sum crosses back.
sim::Graph transfer_graph(std::int64_t elements) {
    sim::Graph g(fmt::format("transfer_{}", elements));
    int x = g.add_tensor("x", {1, elements}, sim::DType::f32, sim::TensorKind::input);
    int w = g.add_tensor("w", {1, elements}, sim::DType::f32, sim::TensorKind::weight);
    int y = g.add_tensor("y", {1, elements}, sim::DType::f32);
    g.add_op("add", "Add", {x, w}, {y});
    g.finalize();
    return g;
}

bool strictly_decreasing(const std::vector<double>& v) {
    for (std::size_t i = 1; i < v.size(); ++i) {
        if (!(v[i] < v[i - 1]))
            return false;
    }
    return true;
}

bool increasing(const std::vector<double>& v) {
    for (std::size_t i = 1; i < v.size(); ++i) {
        if (!(v[i] > v[i - 1]))
            return false;
    }
    return true;
}

// Coefficient of determination of the least-squares line through (x, y).
double linear_r2(const std::vector<double>& x, const std::vector<double>& y) {
    const double n = static_cast<double>(x.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    const double intercept = (sy - slope * sx) / n;
    double ss_res = 0, ss_tot = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double fit = intercept + slope * x[i];
        ss_res += (y[i] - fit) * (y[i] - fit);
        ss_tot += (y[i] - sy / n) * (y[i] - sy / n);
    }
    return ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
}

// lee2022 §4.2 Fig. 8 and §2.3 Fig. 2(b), with the ranges of spec/simulator.md.
void lee2022_figures(const sim::Platform& platform, CalibrationReport& report) {
    OpBench bench(platform);
    // lee2022's three devices, found by role and size, never by name.
    const int cpu_s = bench.find_device(
        "a host_cpu device on one core (lee2022's CPU_S)",
        [](const sim::Device& d) { return d.role() == sim::DeviceRole::host_cpu && d.units == 1; });
    const int cpu_p = bench.find_device(
        "a host_cpu device on several cores (lee2022's CPU_P)",
        [](const sim::Device& d) { return d.role() == sim::DeviceRole::host_cpu && d.units > 1; });
    const int pim_device =
        bench.find_device("a device of role pim (lee2022's Silent-PIM)",
                          [](const sim::Device& d) { return d.role() == sim::DeviceRole::pim; });
    const std::vector<std::int64_t> ps{8, 16, 32, 64};
    std::vector<double> add_pim_s, add_cpu_p_over_s, mm_vs_s, mm_vs_p, add_pim_t;
    for (auto p : ps) {
        const sim::Graph add = elementwise_add_graph(p, 512);
        const double s = bench.op_time_s(add, cpu_s);
        const double par = bench.op_time_s(add, cpu_p);
        const double pim = bench.op_time_s(add, pim_device);
        const std::string point = fmt::format("p = {}", p);
        report.rows.push_back({"lee2022 Fig. 8a", "(p x 512) + (p x 512): PIM speedup over CPU_S",
                               point, s / pim, 2.1, 3.4});
        report.rows.push_back({"lee2022 Fig. 8a", "(p x 512) + (p x 512): PIM speedup over CPU_P",
                               point, par / pim, 2.2, 2.8});
        add_pim_s.push_back(s / pim);
        add_cpu_p_over_s.push_back(s / par);
        add_pim_t.push_back(pim);
        const sim::Graph mm = matmul_graph(p, 512, 512);
        const double mm_s = bench.op_time_s(mm, cpu_s);
        const double mm_p = bench.op_time_s(mm, cpu_p);
        const double mm_pim = bench.op_time_s(mm, pim_device);
        report.rows.push_back({"lee2022 Fig. 8b", "(p x 512) x (512 x 512): PIM speedup over CPU_S",
                               point, mm_s / mm_pim, 5.6, 10.4});
        report.rows.push_back({"lee2022 Fig. 8b", "(p x 512) x (512 x 512): PIM speedup over CPU_P",
                               point, mm_p / mm_pim, 1.5, 3.1});
        mm_vs_s.push_back(mm_s / mm_pim);
        mm_vs_p.push_back(mm_p / mm_pim);
    }
    report.trends.push_back({"lee2022 Fig. 8a",
                             "CPU_P is no faster than CPU_S at p = 8 and 16 (speedup <= 1.1)",
                             add_cpu_p_over_s[0] <= 1.1 && add_cpu_p_over_s[1] <= 1.1});
    report.trends.push_back({"lee2022 Fig. 8a", "CPU_P's speedup over CPU_S grows with p",
                             increasing(add_cpu_p_over_s)});
    report.trends.push_back({"lee2022 Fig. 8a",
                             "PIM time is linear in p (R^2 of a line through p = 8..64 >= 0.999)",
                             linear_r2({8, 16, 32, 64}, add_pim_t) >= 0.999});
    report.trends.push_back({"lee2022 Fig. 8b", "PIM's speedup over CPU_S shrinks as p grows",
                             strictly_decreasing(mm_vs_s)});
    report.trends.push_back({"lee2022 Fig. 8b", "PIM's speedup over CPU_P shrinks as p grows",
                             strictly_decreasing(mm_vs_p)});

    std::vector<double> sizes, to_pim, from_pim;
    bool faster_to_pim = true;
    for (std::int64_t elements = 4096; elements <= (1 << 20); elements *= 4) {
        auto [to, from] = bench.round_trip_s(transfer_graph(elements), pim_device);
        sizes.push_back(static_cast<double>(elements));
        to_pim.push_back(to);
        from_pim.push_back(from);
        faster_to_pim = faster_to_pim && to < from;
        CalibrationRow row{"lee2022 Fig. 2b",
                           "transfer time CPU->PIM / PIM->CPU (ratio)",
                           fmt::format("{} elements", elements),
                           to / from,
                           0,
                           0};
        row.has_range = false;
        report.rows.push_back(row);
    }
    report.trends.push_back({"lee2022 Fig. 2b",
                             "CPU->PIM (convert + DMA) is faster than PIM->CPU at every size",
                             faster_to_pim});
    report.trends.push_back(
        {"lee2022 Fig. 2b", "both directions are linear in size (R^2 >= 0.999)",
         linear_r2(sizes, to_pim) >= 0.999 && linear_r2(sizes, from_pim) >= 0.999});
}

// DUET's end-to-end figures (zhang2021 §VI) on a CPU + GPU platform whose devices compile
// with TVM: the models as the studies run them (configs/studies/duet_*.yaml), fused within
// DUET's subgraphs, and the placers through the registry. Predictions of the fitted platform.
class DuetBench {
public:
    explicit DuetBench(const sim::Platform& platform)
        : platform_(platform), des_(platform, sim::EvalOptions{1}) {
        try {
            const std::array<int, 2> devices = placement::cpu_and_gpu(platform, "DUET");
            cpu_ = devices[0];
            gpu_ = devices[1];
        } catch (const placement::PlacementError& e) {
            throw sim::InputError(platform.source_file, "components", 0, e.what());
        }
    }
    struct Model {
        sim::Graph graph;
        std::map<std::string, double> latency_s;  // by placer spec; "cpu", "gpu" alone
        sim::Placement duet;
    };
    Model run(const std::string& model, const sim::workloads::Knobs& knobs,
              const std::vector<std::string>& placers) {
        Model m{
            sim::passes::compile_for(sim::workloads::build_model(model, knobs), sim::Compiler::tvm),
            {},
            {}};
        for (const auto& [name, device] : {std::pair{"cpu", cpu_}, std::pair{"gpu", gpu_}}) {
            sim::Placement p;
            p.device_of_op.assign(static_cast<std::size_t>(m.graph.op_count()), device);
            m.latency_s[name] = latency(m.graph, p);
        }
        for (const std::string& spec : placers) {
            placement::PlacementContext context{m.graph, platform_, des_,
                                                placement::Objective::latency, 1};
            const placement::PlacementResult r =
                placement::PlacerRegistry::instance().create(spec)->place(context);
            m.latency_s[spec] = latency(m.graph, r.placement);
            if (spec == "duet.greedy_correction")
                m.duet = r.placement;
        }
        return m;
    }
    // The device of every op whose name starts with `prefix`: "cpu", "gpu" or "mixed".
    std::string side(const Model& m, const std::string& prefix) const {
        std::string found;
        for (int op = 0; op < m.graph.op_count(); ++op) {
            if (m.graph.op(op).name.rfind(prefix, 0) != 0)
                continue;
            const int d = m.duet.device_of_op[static_cast<std::size_t>(op)];
            const std::string s = d == cpu_ ? "cpu" : d == gpu_ ? "gpu" : "other";
            if (found.empty())
                found = s;
            else if (found != s)
                return "mixed";
        }
        return found;
    }

private:
    double latency(const sim::Graph& graph, const sim::Placement& p) {
        return des_.evaluate(sim::lower(graph, p, platform_)).latency_s;
    }
    const sim::Platform& platform_;
    sim::DesEvaluator des_;
    int cpu_ = -1, gpu_ = -1;
};

void duet_figures(const sim::Platform& platform, CalibrationReport& report) {
    DuetBench bench(platform);
    const std::string greedy = "duet.greedy_correction";
    // Fig. 11 (§VI-B): DUET 1.5-2.3x faster than TVM-GPU, 1.3-15.9x faster than TVM-CPU.
    auto wd = bench.run("wide_and_deep", {{"fused", 1}},
                        {greedy, "duet.exhaustive", "duet.random", "duet.round_robin"});
    auto siamese = bench.run("siamese_lstm", {{"fused", 1}}, {greedy});
    auto mt_dnn = bench.run("mt_dnn", {{"fused", 1}}, {greedy});
    for (const auto& [label, m] :
         {std::pair<std::string, const DuetBench::Model*>{"Wide-and-Deep", &wd},
          {"Siamese", &siamese},
          {"MT-DNN", &mt_dnn}}) {
        const double duet = m->latency_s.at(greedy);
        report.rows.push_back({"zhang2021 Fig. 11", "DUET speedup over TVM-GPU", label,
                               m->latency_s.at("gpu") / duet, 1.5, 2.3});
        report.rows.push_back({"zhang2021 Fig. 11", "DUET speedup over TVM-CPU", label,
                               m->latency_s.at("cpu") / duet, 1.3, 15.9});
    }
    // Table III: on ResNet-18 DUET falls back to the GPU: the same latency as TVM-GPU.
    auto resnet = bench.run("resnet", {{"depth", 18}}, {greedy});
    report.rows.push_back({"zhang2021 Table III", "ResNet-18: DUET latency / TVM-GPU latency",
                           "batch 1", resnet.latency_s.at(greedy) / resnet.latency_s.at("gpu"), 1.0,
                           1.0});
    // Fig. 13: greedy-correction finds the exhaustive optimum on Wide-and-Deep.
    report.rows.push_back(
        {"zhang2021 Fig. 13", "Wide-and-Deep: greedy-correction latency / exhaustive latency",
         "batch 1", wd.latency_s.at(greedy) / wd.latency_s.at("duet.exhaustive"), 1.0, 1.0});
    report.trends.push_back({"zhang2021 Fig. 13",
                             "random and round-robin subgraph placements are slower",
                             wd.latency_s.at("duet.random") > wd.latency_s.at(greedy) &&
                                 wd.latency_s.at("duet.round_robin") > wd.latency_s.at(greedy)});
    // Table II's placements.
    report.trends.push_back(
        {"zhang2021 Table II", "Wide-and-Deep: RNN and merge on the CPU, wide, FFN, CNN on the GPU",
         bench.side(wd, "/rnn/") == "cpu" && bench.side(wd, "/Add") == "cpu" &&
             bench.side(wd, "/wide/") == "gpu" && bench.side(wd, "/deep/") == "gpu" &&
             bench.side(wd, "/cnn/") == "gpu"});
    const std::string left = bench.side(siamese, "/left/"), right = bench.side(siamese, "/right/");
    report.trends.push_back(
        {"zhang2021 Table II", "Siamese: one branch per device",
         (left == "cpu" && right == "gpu") || (left == "gpu" && right == "cpu")});
    int heads_on_gpu = 0;
    for (int task = 0; task < 10; ++task)
        heads_on_gpu += bench.side(mt_dnn, fmt::format("/task{}/", task)) == "gpu" ? 1 : 0;
    report.trends.push_back({"zhang2021 Table II",
                             "MT-DNN: bert-base on the GPU, the LSTM_CRF heads 6 GPU / 4 CPU",
                             bench.side(mt_dnn, "/bert/") == "gpu" && heads_on_gpu == 6});
    // Fig. 14 and Fig. 17 trends (configs/sweeps/duet_fig14.yaml, duet_fig17.yaml).
    auto rnn1 = bench.run("wide_and_deep", {{"fused", 1}, {"rnn_layers", 1}}, {});
    auto rnn8 = bench.run("wide_and_deep", {{"fused", 1}, {"rnn_layers", 8}}, {});
    report.trends.push_back({"zhang2021 Fig. 14", "more RNN layers cost TVM-GPU more than TVM-CPU",
                             rnn8.latency_s.at("gpu") - rnn1.latency_s.at("gpu") >
                                 rnn8.latency_s.at("cpu") - rnn1.latency_s.at("cpu")});
    // Fig. 16: the FFN's depth barely moves DUET's latency (its GEMMs are small).
    auto ffn1 = bench.run("wide_and_deep", {{"fused", 1}, {"deep_layers", 1}}, {greedy});
    auto ffn8 = bench.run("wide_and_deep", {{"fused", 1}, {"deep_layers", 8}}, {greedy});
    report.trends.push_back(
        {"zhang2021 Fig. 16", "FFN hidden layers 1 -> 8 change DUET's latency by under 10 %",
         std::fabs(ffn8.latency_s.at(greedy) / ffn1.latency_s.at(greedy) - 1.0) < 0.10});
    auto b2 = bench.run("wide_and_deep", {{"fused", 1}, {"batch", 2}}, {greedy});
    auto b32 = bench.run("wide_and_deep", {{"fused", 1}, {"batch", 32}}, {greedy});
    report.trends.push_back({"zhang2021 Fig. 17",
                             "DUET's gain over TVM-GPU shrinks from batch 2 to 32",
                             b2.latency_s.at("gpu") / b2.latency_s.at(greedy) >
                                 b32.latency_s.at("gpu") / b32.latency_s.at(greedy)});
}

using Suite = std::function<void(const sim::Platform&, CalibrationReport&)>;

const std::map<std::string, Suite>& suites() {
    static const std::map<std::string, Suite> all{{"zynq_silentpim", lee2022_figures},
                                                  {"xeon_titanv", duet_figures}};
    return all;
}

}  // namespace

bool CalibrationRow::in_published_range() const {
    return !has_range || (simulated >= published_low && simulated <= published_high);
}

bool CalibrationRow::in_widened_range() const {
    return !has_range || (simulated >= published_low * (1.0 - kWiden) &&
                          simulated <= published_high * (1.0 + kWiden));
}

bool CalibrationReport::all_within_widened() const {
    for (const auto& r : rows) {
        if (!r.in_widened_range())
            return false;
    }
    return true;
}

bool CalibrationReport::all_trends_hold() const {
    for (const auto& t : trends) {
        if (!t.holds)
            return false;
    }
    return true;
}

std::vector<std::string> calibrated_platforms() {
    std::vector<std::string> names;
    for (const auto& [name, suite] : suites())
        names.push_back(name);
    return names;
}

CalibrationReport calibrate(const sim::Platform& platform) {
    auto it = suites().find(platform.name);
    if (it == suites().end()) {
        throw sim::InputError(platform.source_file, "name", 0,
                              fmt::format("no published figures for platform '{}'; calibrated "
                                          "platforms: {}",
                                          platform.name, fmt::join(calibrated_platforms(), ", ")));
    }
    CalibrationReport report;
    report.platform = platform.name;
    it->second(platform, report);
    return report;
}

std::string format_calibration(const CalibrationReport& report) {
    std::ostringstream out;
    out << fmt::format("calibration of {}: simulated vs published (ranges widened by 25 %)\n",
                       report.platform);
    // Rows grouped by (figure, quantity) in order of first appearance.
    std::vector<std::string> groups;
    for (const auto& r : report.rows) {
        const std::string key = r.figure + ": " + r.quantity;
        if (std::find(groups.begin(), groups.end(), key) == groups.end())
            groups.push_back(key);
    }
    for (const auto& group : groups) {
        out << fmt::format("\n{}\n", group);
        for (const auto& r : report.rows) {
            if (r.figure + ": " + r.quantity != group)
                continue;
            if (!r.has_range) {
                out << fmt::format("  {:<16} {:>8.3f}\n", r.point, r.simulated);
                continue;
            }
            const char* verdict = r.in_published_range() ? "in range"
                                  : r.in_widened_range() ? "in widened range"
                                                         : "OUT OF RANGE";
            out << fmt::format("  {:<16} {:>8.2f}x   published {:.1f}-{:.1f}x   {}\n", r.point,
                               r.simulated, r.published_low, r.published_high, verdict);
        }
    }
    out << "\ntrends:\n";
    for (const auto& t : report.trends) {
        out << fmt::format("  [{}] {}: {}\n", t.holds ? "ok" : "FAILS", t.figure, t.statement);
    }
    out << fmt::format("\n{}\n", report.all_within_widened() && report.all_trends_hold()
                                     ? "calibration holds"
                                     : "calibration does NOT hold");
    return out.str();
}

}  // namespace hetsim::app
