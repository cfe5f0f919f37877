#include "tools/app/fit.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <unsupported/Eigen/NonLinearOptimization>

#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/csv.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/passes/fuse.hpp"
#include "sim/transfer_cost.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace fs = std::filesystem;

namespace {

// What a row's time is of, and the columns a file may have (usage.md, `hetsim calibrate`,
// says what each means).
const std::vector<std::string> kScopes = {"compute", "kernel", "end_to_end", "transfer",
                                          "dispatch"};
const std::vector<std::string> kColumns = {
    "device",  "workload",           "time_s",          "knobs",  "scope", "reference_device",
    "speedup", "reference_workload", "reference_knobs", "weight", "source"};

// The simulator's time range (sim/exec_graph.hpp: times are picoseconds below 2^62): a
// measured or predicted time outside it is no time hetsim can simulate or compare with.
constexpr double kMinTime_s = sim::kSecondsPerPs;
constexpr double kMaxTime_s = static_cast<double>(sim::kMaxSimulatedPs) * sim::kSecondsPerPs;
// Whole-number knobs (a copy's bytes, a dispatch row's ops) up to 2^53: exact in the double
// the cost models compute in.
constexpr std::int64_t kMaxWholeKnob = std::int64_t{1} << 53;
// Weights are relative (the fit divides them by their mean). Past a spread of a million a row
// barely counts beside the heaviest (1e-300 next to 1 not at all: in the file, not in the
// fit), and such a spread is an exponent's typo rather than a choice.
constexpr double kMaxWeightSpread = 1e6;

[[noreturn]] void row_error(const std::string& file, int line, const std::string& column,
                            const std::string& message) {
    throw sim::InputError(file, column, line, message);
}

std::map<std::string, std::string> parse_knob_text(const std::string& file, int line,
                                                   const std::string& column,
                                                   const std::string& text) {
    std::map<std::string, std::string> knobs;
    std::stringstream in(text);
    std::string pair;
    while (std::getline(in, pair, ';')) {
        if (pair.empty())
            continue;
        const auto eq = pair.find('=');
        if (eq == std::string::npos || eq == 0)
            row_error(file, line, column,
                      fmt::format("expected key=value, got '{}'", sim::csv_shown(pair)));
        if (!knobs.emplace(pair.substr(0, eq), pair.substr(eq + 1)).second)
            row_error(file, line, column,
                      fmt::format("knob '{}' is given twice in '{}'",
                                  sim::csv_shown(pair.substr(0, eq)), sim::csv_shown(text)));
    }
    return knobs;
}

// "a=1;b=2" in key order: rows that list the same knobs in another order are the same row.
std::string knob_key(const std::map<std::string, std::string>& knobs) {
    std::string key;
    for (const auto& [name, value] : knobs)
        key += name + "=" + value + ";";
    return key;
}

// Refuses a knob outside `allowed`; `takes` says what the row's workload takes instead.
void expect_knobs(const std::string& file, int line, const std::string& column,
                  const std::map<std::string, std::string>& knobs,
                  const std::vector<std::string>& allowed, const std::string& takes) {
    for (const auto& [name, value] : knobs) {
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
            row_error(
                file, line, column,
                fmt::format("'{}' is not a knob of this row: {}", sim::csv_shown(name), takes));
    }
}

// A knob holding a whole number from 1 to 2^53 ("bytes=4096").
std::int64_t whole_knob(const std::string& file, int line, const std::string& column,
                        const std::string& name, const std::string& text) {
    const auto value = sim::csv_integer(text);
    if (!value || *value < 1 || *value > kMaxWholeKnob)
        row_error(file, line, column,
                  fmt::format("{} must be a whole number from 1 to 2^53 ({}), got '{}'", name,
                              kMaxWholeKnob, sim::csv_shown(text)));
    return *value;
}

// A cell that must be a decimal number > 0 within [min, max]; `range` says what that range is
// when a value falls outside it.
double positive_field(const std::string& file, int line, const std::string& column,
                      const std::string& text, double min = 0.0,
                      double max = std::numeric_limits<double>::max(),
                      const std::string& range = "") {
    const sim::CsvDecimal d = sim::csv_decimal(text);
    const std::string shown = sim::csv_shown(text);
    if (d.status == sim::CsvDecimal::Status::not_decimal) {
        const bool spaced =
            !text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) != 0 ||
                              std::isspace(static_cast<unsigned char>(text.back())) != 0);
        row_error(file, line, column,
                  spaced ? fmt::format("expected a decimal number without spaces, got '{}'", shown)
                         : fmt::format("expected a decimal number such as 2, 0.5 or 4.5e-06, got "
                                       "'{}'",
                                       shown));
    }
    if (d.status == sim::CsvDecimal::Status::ok && !(d.value > 0.0))
        row_error(file, line, column, fmt::format("must be > 0, got {}", shown));
    if (d.status == sim::CsvDecimal::Status::out_of_range || d.value < min || d.value > max) {
        row_error(
            file, line, column,
            fmt::format("'{}' is out of range: {}", shown,
                        range.empty() ? "expected a number from 2.2e-308 to 1.8e+308" : range));
    }
    return d.value;
}

double time_field(const std::string& file, int line, const std::string& column,
                  const std::string& text) {
    return positive_field(file, line, column, text, kMinTime_s, kMaxTime_s,
                          fmt::format("expected seconds from 1e-12 (1 ps) to {:.3g} (2^62 ps), "
                                      "the simulator's time range",
                                      kMaxTime_s));
}

bool is_graph_file(const std::string& workload) {
    const std::string ext = fs::path(workload).extension().string();
    return ext == ".json" || ext == ".onnx";
}

// Loads a row's workload: a JSON or ONNX file relative to the CSV, or a model name with knobs
// (`knobs_column` names the column they came from). The knobs of a graph file are the
// measurement's (l2), checked by the caller, not the graph's.
std::shared_ptr<const sim::Graph> load_row_graph(const std::string& file, int line,
                                                 const std::string& workload,
                                                 const std::map<std::string, std::string>& knobs,
                                                 const std::string& column,
                                                 const std::string& knobs_column) {
    YAML::Node node;
    if (is_graph_file(workload)) {
        const fs::path path = fs::path(file).parent_path() / workload;
        if (!fs::exists(path))
            row_error(file, line, column,
                      fmt::format("no such file '{}'", sim::csv_shown(path.string(), 200)));
        // The study's workload mapping resolves the path against the node's file: the CSV.
        node[fs::path(workload).extension() == ".onnx" ? "onnx" : "json"] = workload;
    } else {
        node["model"] = workload;
        for (const auto& [key, value] : knobs) {
            // These are the workload mapping's own keys: `model=resnet` would replace the
            // workload column's model, `json=...` turn it into a graph file.
            if (key == "model" || key == "json" || key == "onnx")
                row_error(file, line, knobs_column,
                          fmt::format("'{}' is not a model knob: the {} column names the "
                                      "workload",
                                      key, column));
            node[key] = value;
        }
    }
    try {
        std::string label;
        return build_workload(sim::ConfigNode(node, file, "workload"), label);
    } catch (const sim::InputError& e) {
        // A knob's error (an unknown one, a bad value) belongs to the knobs column, and names
        // the knob when the model's message does not.
        const std::string& path = e.yaml_path();
        const std::string prefix = "workload.";
        const std::string knob =
            path.rfind(prefix, 0) == 0 ? path.substr(prefix.size()) : std::string();
        const bool bad_value = knobs.count(knob) > 0;
        const bool unknown =
            path == "workload" && !knobs.empty() && e.message().rfind("unknown key", 0) == 0;
        // A model's refusal of its knobs together (hidden not divisible by heads, a kernel
        // larger than the padded image) is the knobs' error too: the model name was known.
        const bool inconsistent =
            path == "workload" && !knobs.empty() && e.message().rfind("model '", 0) == 0;
        row_error(file, line, bad_value || unknown || inconsistent ? knobs_column : column,
                  bad_value && e.message().find("'" + knob + "'") == std::string::npos
                      ? fmt::format("knob '{}': {}", knob, e.message())
                      : e.message());
    } catch (const std::exception& e) {
        row_error(file, line, column, e.what());
    }
}

int require_device(const sim::Platform& platform, const std::string& file, int line,
                   const std::string& column, const std::string& name) {
    if (const auto d = platform.find_device(name))
        return *d;
    const std::string hint = sim::did_you_mean(name, platform.device_names());
    row_error(file, line, column,
              fmt::format("unknown device '{}'{} (devices: {})", sim::csv_shown(name),
                          hint.empty() ? "" : fmt::format(", did you mean '{}'?", hint),
                          fmt::join(platform.device_names(), ", ")));
}

double graph_time_s(const sim::Platform& platform, int device, const Measurement& row,
                    bool reference) {
    const sim::DeviceModel& model = *platform.device(device).model;
    const bool tvm = platform.device(device).compiler == sim::Compiler::tvm;
    const sim::Graph& graph = reference ? (tvm ? *row.reference_fused : *row.reference_graph)
                                        : (tvm ? *row.fused : *row.graph);
    const std::string& scope = row.scope;
    if (scope == "end_to_end") {
        sim::Placement placement;
        placement.device_of_op.assign(static_cast<std::size_t>(graph.op_count()), device);
        const sim::ExecGraph exec = sim::lower(graph, placement, platform);
        sim::DesEvaluator des(platform, sim::EvalOptions{1});
        return des.evaluate(exec).latency_s;
    }
    if (scope == "dispatch") {
        // The wall time per op of `ops` launches of the one op queued back to back: the host
        // issues each in host_s (what op_time_s adds to kernel_time_s: a GPU's
        // launch_overhead; nothing on a CPU, whose ops run on the host itself) while the device
        // runs the one before in device_s, so the slower of the two sets the pace; the first
        // issue and the last run overlap nothing.
        const sim::Op& op = graph.op(0);
        const double device_s = model.kernel_time_s(graph, op);
        const double host_s = std::max(0.0, model.op_time_s(graph, op) - device_s);
        const auto ops = static_cast<double>(row.dispatch_ops);
        return (host_s + device_s + (ops - 1.0) * std::max(host_s, device_s)) / ops;
    }
    double total = 0.0;
    for (const sim::Op& op : graph.ops())
        total += scope == "kernel" ? model.kernel_time_s(graph, op) : model.op_time_s(graph, op);
    return total;
}

double row_time_s(const sim::Platform& platform, const Measurement& row,
                  const std::string& device_name, bool reference = false) {
    const int device = *platform.find_device(device_name);
    if (row.scope == "transfer") {
        // host_memory=pinned copies at the links' page-locked rate; pageable ones, and those
        // that do not say, as the platform's links state host buffers (a PCIe link with
        // host_staging_bandwidth stages pageable ones; without it both are the same time).
        const std::string& host = platform.host_component;
        const std::string& comp = platform.device(device).component;
        const sim::RouteCost cost = row.host_to_device
                                        ? sim::route_cost(platform, host, comp, row.page_locked)
                                        : sim::route_cost(platform, comp, host, row.page_locked);
        return cost.time_s(row.transfer_bytes);
    }
    return graph_time_s(platform, device, row, reference);
}

// The platform's prediction for a row: a time, or the ratio time on reference_device / time on
// device; `check(time_s, device)` sees each time first.
template <class Check>
double prediction(const sim::Platform& platform, const Measurement& row, const Check& check) {
    const double t = row_time_s(platform, row, row.device);
    check(t, row.device);
    if (!row.is_ratio())
        return t;
    const double reference_t = row_time_s(platform, row, row.reference_device, true);
    check(reference_t, row.reference_device);
    return reference_t / t;
}

// predict(), refusing (naming the row) a time beyond the simulator's range, which the table
// would print as a meaningless number, and a ratio of a zero time.
double checked_prediction(const sim::Platform& platform, const std::string& file,
                          const Measurement& row) {
    return prediction(platform, row, [&](double t, const std::string& device) {
        if (!(t >= 0.0 && t <= kMaxTime_s)) {
            row_error(file, row.line, "",
                      fmt::format("the platform predicts {:.3g} s on {}, beyond the simulator's "
                                  "time range ({:.3g} s = 2^62 ps)",
                                  t, device, kMaxTime_s));
        }
        if (row.is_ratio() && t == 0.0)
            row_error(file, row.line, "",
                      fmt::format("the platform predicts 0 s on {}: no ratio", device));
    });
}

double relative_error(double predicted, double measured) {
    return std::fabs(predicted - measured) / measured;
}

// --- the free parameters of a platform file -------------------------------------------------

struct ParamSlot {
    FittedParameter info;
    YAML::Mark mark;           // where the value is in the platform file
    std::string scalar_text;   // the value as written
    int suggested_starts = 1;  // its component type's (sim::ComponentType)
};

std::string value_text(const FittedParameter& p, double v, int digits) {
    if (p.quantity)
        return sim::format_quantity(v, *p.quantity, digits);
    return fmt::format("{:.{}g}", v, digits);
}

// The platform file as a YAML tree whose free parameters can be set and re-parsed.
class PlatformTemplate {
public:
    explicit PlatformTemplate(std::string file)
        : file_(std::move(file)), root_(sim::ConfigNode::load_file(file_)) {}

    const sim::ConfigNode& root() const { return root_; }
    const std::string& file() const { return file_; }

    sim::Platform build(const std::vector<ParamSlot>& slots, const std::vector<double>& values) {
        YAML::Node copy = YAML::Clone(root_.raw());
        for (std::size_t i = 0; i < slots.size(); ++i) {
            const FittedParameter& p = slots[i].info;
            YAML::Node node = copy["components"][p.component];
            std::stringstream path(p.key);
            std::vector<std::string> parts;
            for (std::string part; std::getline(path, part, '.');)
                parts.push_back(part);
            for (std::size_t k = 0; k + 1 < parts.size(); ++k)
                node.reset(node[parts[k]]);
            node[parts.back()] = value_text(p, values[i], 17);
        }
        return sim::parse_platform(sim::ConfigNode(copy, file_, ""));
    }

private:
    std::string file_;
    sim::ConfigNode root_;
};

std::vector<ParamSlot> free_slots(const sim::ConfigNode& root, const sim::Platform& platform,
                                  const std::vector<std::string>& components,
                                  std::vector<std::string>& notes) {
    std::vector<ParamSlot> slots;
    const sim::ConfigNode comps = root.at("components");
    for (const std::string& name : components) {
        const sim::ConfigNode node = comps.at(name);
        const sim::Component* component = platform.find_component(name);
        std::string type = component != nullptr ? component->type : node.at("type").as_string();
        const sim::ComponentType* info = sim::ComponentRegistry::instance().find(type);
        if (info == nullptr)
            continue;
        if (info->free_parameters.empty()) {
            notes.push_back(fmt::format("{} (type {}) declares no free parameters", name, type));
            continue;
        }
        for (const sim::FreeParameter& fp : info->free_parameters) {
            // A dotted key ("forward.bandwidth") is a value inside a nested mapping.
            sim::ConfigNode holder = node;
            std::string leaf = fp.key;
            for (auto dot = leaf.find('.'); dot != std::string::npos; dot = leaf.find('.')) {
                const std::string part = leaf.substr(0, dot);
                leaf = leaf.substr(dot + 1);
                holder = holder.is_map() && holder.has(part) ? holder.at(part) : sim::ConfigNode();
            }
            if (!holder.is_map() || !holder.has(leaf)) {
                notes.push_back(
                    fmt::format("{}.{} is not in the platform file: not fitted (write "
                                "it there to fit it)",
                                name, fp.key));
                continue;
            }
            const sim::ConfigNode value = holder.at(leaf);
            ParamSlot slot;
            slot.info.component = name;
            slot.info.key = fp.key;
            slot.info.quantity = fp.quantity;
            slot.info.lower = fp.lower;
            slot.info.upper = fp.upper;
            slot.info.initial = fp.quantity ? value.as_quantity(*fp.quantity) : value.as_double();
            slot.mark = value.raw().Mark();
            slot.scalar_text = value.raw().Scalar();
            slot.suggested_starts = info->suggested_starts;
            slots.push_back(std::move(slot));
        }
    }
    return slots;
}

// Bounded log parameterisation: log p = log lo + (log hi - log lo) * sigmoid(u).
struct BoundedLog {
    double log_lo, log_hi;
    double value(double u) const {
        return std::exp(log_lo + (log_hi - log_lo) / (1.0 + std::exp(-u)));
    }
    double u_of(double v) const {
        const double clamped = std::clamp(v, std::exp(log_lo), std::exp(log_hi));
        double f = (std::log(clamped) - log_lo) / (log_hi - log_lo);
        f = std::clamp(f, 1e-6, 1.0 - 1e-6);
        return std::log(f / (1.0 - f));
    }
    // d log p / du
    double slope(double u) const {
        const double s = 1.0 / (1.0 + std::exp(-u));
        return (log_hi - log_lo) * s * (1.0 - s);
    }
};

// The least-squares problem: residual i = sqrt(w_i) (log predicted_i - log measured_i) over
// the rows in `subset`, as a function of the unconstrained u of the active parameters. The
// weights w_i are the rows' weights divided by their mean over the subset: the fit's absolute
// thresholds (which parameter moves a residual, the solver's tolerances) then see residuals
// of the same size whatever scale the file writes its weights in (x 1e-300 fits as x 1).
class Problem {
public:
    Problem(PlatformTemplate& platform, std::vector<ParamSlot> slots,
            const std::vector<Measurement>& rows, std::vector<std::size_t> subset)
        : platform_(platform), slots_(std::move(slots)), rows_(rows), subset_(std::move(subset)) {
        for (const ParamSlot& s : slots_) {
            maps_.push_back({std::log(s.info.lower), std::log(s.info.upper)});
            values_.push_back(s.info.initial);
        }
        // Divided by the largest first, so that the sum cannot overflow (weights up to 1e308).
        double largest = 0.0;
        for (const std::size_t i : subset_)
            largest = std::max(largest, rows_[i].weight);
        double sum = 0.0;
        for (const std::size_t i : subset_)
            sum += rows_[i].weight / largest;
        const double mean = sum / static_cast<double>(subset_.size());
        for (const std::size_t i : subset_)
            sqrt_weights_.push_back(std::sqrt(rows_[i].weight / largest / mean));
    }

    std::size_t parameter_count() const { return slots_.size(); }
    std::size_t row_count() const { return subset_.size(); }
    const std::vector<ParamSlot>& slots() const { return slots_; }
    int evaluations() const { return evaluations_; }

    std::vector<double> values_of(const Eigen::VectorXd& u) const {
        std::vector<double> v(values_);
        for (std::size_t i = 0; i < active_.size(); ++i)
            v[active_[i]] = maps_[active_[i]].value(u[static_cast<Eigen::Index>(i)]);
        return v;
    }

    void set_active(std::vector<std::size_t> active) { active_ = std::move(active); }
    Eigen::VectorXd start() const {
        Eigen::VectorXd u(static_cast<Eigen::Index>(active_.size()));
        for (std::size_t i = 0; i < active_.size(); ++i)
            u[static_cast<Eigen::Index>(i)] = maps_[active_[i]].u_of(values_[active_[i]]);
        return u;
    }
    // A start around the file's values: each active parameter's log moved by up to
    // +-spread (e^1.2 = x3.3), within its bounds.
    Eigen::VectorXd perturbed_start(std::mt19937_64& rng, double spread) const {
        std::uniform_real_distribution<double> step(-spread, spread);
        Eigen::VectorXd u(static_cast<Eigen::Index>(active_.size()));
        for (std::size_t i = 0; i < active_.size(); ++i) {
            const BoundedLog& map = maps_[active_[i]];
            const double log_value =
                std::clamp(std::log(values_[active_[i]]) + step(rng), map.log_lo, map.log_hi);
            u[static_cast<Eigen::Index>(i)] = map.u_of(std::exp(log_value));
        }
        return u;
    }
    double slope(std::size_t active_index, double u) const {
        return maps_[active_[active_index]].slope(u);
    }

    // Residuals at parameter values `v` (all slots).
    Eigen::VectorXd residuals(const std::vector<double>& v) {
        ++evaluations_;
        const sim::Platform platform = platform_.build(slots_, v);
        Eigen::VectorXd r(static_cast<Eigen::Index>(subset_.size()));
        for (std::size_t i = 0; i < subset_.size(); ++i) {
            const Measurement& row = rows_[subset_[i]];
            const double predicted = predict(platform, row);
            const double log_error = std::isfinite(predicted) && predicted > 0.0
                                         ? std::log(predicted) - std::log(row.measured())
                                         : 50.0;
            r[static_cast<Eigen::Index>(i)] = sqrt_weights_[i] * log_error;
        }
        return r;
    }

    // Forward-difference Jacobian in u (Eigen's NumericalDiff would work too; an explicit
    // step of 1e-6 in u keeps it clear of the steps of the wave and tile choices).
    Eigen::MatrixXd jacobian(const Eigen::VectorXd& u, const Eigen::VectorXd& r0) {
        Eigen::MatrixXd j(r0.size(), u.size());
        for (Eigen::Index c = 0; c < u.size(); ++c) {
            Eigen::VectorXd up = u;
            const double h = 1e-6 * std::max(1.0, std::fabs(u[c]));
            up[c] += h;
            j.col(c) = (residuals(values_of(up)) - r0) / h;
        }
        return j;
    }

private:
    PlatformTemplate& platform_;
    std::vector<ParamSlot> slots_;
    const std::vector<Measurement>& rows_;
    std::vector<std::size_t> subset_;
    std::vector<double> sqrt_weights_;  // per subset row: sqrt(weight / mean weight)
    std::vector<BoundedLog> maps_;
    std::vector<double> values_;
    std::vector<std::size_t> active_;
    int evaluations_ = 0;
};

// The functor Eigen's MINPACK port asks for: values(), operator() and df().
struct LmFunctor {
    Problem& problem;
    int values() const { return static_cast<int>(problem.row_count()); }
    int operator()(const Eigen::VectorXd& u, Eigen::VectorXd& r) const {
        r = problem.residuals(problem.values_of(u));
        return 0;
    }
    int df(const Eigen::VectorXd& u, Eigen::MatrixXd& j) const {
        j = problem.jacobian(u, problem.residuals(problem.values_of(u)));
        return 0;
    }
};

struct Solution {
    std::vector<double> values;
    Eigen::VectorXd u;
    std::string status;
};

std::string lm_status(int info) {
    using namespace Eigen::LevenbergMarquardtSpace;
    switch (static_cast<Status>(info)) {
        case RelativeReductionTooSmall:
            return "converged (relative reduction)";
        case RelativeErrorTooSmall:
            return "converged (relative step)";
        case RelativeErrorAndReductionTooSmall:
            return "converged";
        case CosinusTooSmall:
            return "converged (gradient orthogonal)";
        case TooManyFunctionEvaluation:
            return "stopped: evaluation limit";
        case FtolTooSmall:
        case XtolTooSmall:
        case GtolTooSmall:
            return "converged (at machine precision)";
        default:
            return fmt::format("solver status {}", info);
    }
}

// Levenberg-Marquardt from the file's values, then from starts - 1 points around them (the
// same points on every call: a fixed seed), keeping the least sum of squares. The tile, wave
// and split choices make the error surface a staircase with local minima, in which one
// descent from one point can stop well short (h100.yaml's fit set from round starting
// values: 10.9 % median after one descent, 8.0 % after eight).
Solution solve(Problem& problem, int starts) {
    Solution best;
    best.u = problem.start();
    if (best.u.size() == 0) {
        best.status = "nothing to fit";
        best.values = problem.values_of(best.u);
        return best;
    }
    std::mt19937_64 rng(25);
    double best_cost = std::numeric_limits<double>::infinity();
    for (int start = 0; start < std::max(1, starts); ++start) {
        Solution s;
        s.u = start == 0 ? problem.start() : problem.perturbed_start(rng, 1.2);
        LmFunctor functor{problem};
        Eigen::LevenbergMarquardt<LmFunctor, double> lm(functor);
        lm.parameters.maxfev = 200;
        lm.parameters.xtol = 1e-8;
        lm.parameters.ftol = 1e-10;
        s.status = lm_status(static_cast<int>(lm.minimize(s.u)));
        s.values = problem.values_of(s.u);
        const double cost = problem.residuals(s.values).squaredNorm();
        // Strictly less: a tie keeps the earlier start, the file's own values first.
        if (cost < best_cost) {
            best_cost = cost;
            best = std::move(s);
        }
    }
    return best;
}

// Parameters no row depends on are left out of the fit: moving one to either bound changes no
// residual. (A zero derivative at the start is not enough: a parameter behind a max(), such as
// a load rate that does not limit yet, matters once it moves.)
std::vector<std::size_t> sensitive_parameters(Problem& problem) {
    std::vector<std::size_t> all(problem.parameter_count());
    std::iota(all.begin(), all.end(), 0);
    problem.set_active(all);
    const Eigen::VectorXd u = problem.start();
    const Eigen::VectorXd r0 = problem.residuals(problem.values_of(u));
    std::vector<std::size_t> active;
    for (std::size_t i = 0; i < all.size(); ++i) {
        bool moves = false;
        for (double edge : {-30.0, 30.0}) {  // u of a bound, to within e^-30
            Eigen::VectorXd ue = u;
            ue[static_cast<Eigen::Index>(i)] = edge;
            moves = moves ||
                    (problem.residuals(problem.values_of(ue)) - r0).cwiseAbs().maxCoeff() > 1e-9;
        }
        if (moves)
            active.push_back(i);
    }
    return active;
}

double percentile(std::vector<double> sorted, double q) {
    if (sorted.empty())
        return 0.0;
    std::sort(sorted.begin(), sorted.end());
    // Linear interpolation between closest ranks (numpy's default).
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::string percent(double x) {
    return fmt::format("{:.1f} %", 100.0 * x);
}

// Replaces each fitted value in the platform file's text (at the position yaml-cpp recorded)
// and tags it `[fit: <csv>, <n> rows]`, keeping the rest of the line's comment.
std::string fitted_platform_text(const std::string& file, const std::vector<ParamSlot>& slots,
                                 const std::vector<FittedParameter>& fitted,
                                 const std::string& tag) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    for (std::size_t i = 0; i < slots.size(); ++i) {
        if (!fitted[i].fitted)
            continue;
        const auto line_index = static_cast<std::size_t>(slots[i].mark.line);
        const auto column = static_cast<std::size_t>(slots[i].mark.column);
        if (line_index >= lines.size())
            continue;
        std::string& line = lines[line_index];
        const std::string& old_value = slots[i].scalar_text;
        if (line.compare(column, old_value.size(), old_value) != 0)
            continue;  // a quoted or multi-line scalar: leave it
        const std::string value = value_text(fitted[i], fitted[i].value, 4);
        std::string head = line.substr(0, column) + value;
        std::string rest = line.substr(column + old_value.size());
        std::string comment;
        std::size_t comment_column = 0;
        if (const auto hash = rest.find('#'); hash != std::string::npos) {
            comment_column = line.size() - rest.size() + hash;
            comment = rest.substr(hash + 1);
            // Drop the old tag ("[datasheet]", "[fit: ...]") and keep the explanation.
            const auto start = comment.find_first_not_of(' ');
            if (start != std::string::npos && comment[start] == '[') {
                const auto close = comment.find(']', start);
                comment = close == std::string::npos ? "" : comment.substr(close + 1);
            }
            const auto text = comment.find_first_not_of(' ');
            comment = text == std::string::npos ? "" : comment.substr(text);
        }
        std::string tagged = "# " + tag + (comment.empty() ? "" : " " + comment);
        const std::size_t pad_to = std::max(head.size() + 1, comment_column);
        head.append(pad_to - head.size(), ' ');
        line = head + tagged;
    }
    std::string text;
    for (const std::string& line : lines)
        text += line + "\n";
    return text;
}

}  // namespace

std::string FittedParameter::describe(double v) const {
    return value_text(*this, v, 4);
}

ErrorSummary summarize_errors(std::vector<double> relative_errors) {
    ErrorSummary s;
    s.rows = relative_errors.size();
    if (relative_errors.empty())
        return s;
    s.median = percentile(relative_errors, 0.5);
    s.p90 = percentile(relative_errors, 0.9);
    s.max = *std::max_element(relative_errors.begin(), relative_errors.end());
    return s;
}

const std::vector<std::string>& measurement_columns() {
    return kColumns;
}

const std::vector<std::string>& measurement_scopes() {
    return kScopes;
}

const std::vector<std::string>& check_csv_columns() {
    // The first five as issue 25 wrote them; the rest name the row (knobs, scope, reference)
    // and hold a ratio row's values, which are no seconds.
    static const std::vector<std::string> columns = {
        "device",          "workload",         "measured_s",
        "predicted_s",     "relative_error",   "knobs",
        "scope",           "reference_device", "reference_workload",
        "reference_knobs", "measured_speedup", "predicted_speedup"};
    return columns;
}

MeasurementFile load_measurements(const std::string& csv_path, const sim::Platform& platform) {
    std::vector<sim::CsvRecord> records;
    try {
        // Refused before it is opened: a FIFO would block, a directory fails mid-read.
        sim::check_input_file(csv_path, "a measurement CSV file");
        records = sim::read_csv_records(sim::read_text_file(csv_path));
    } catch (const sim::CsvError& e) {
        throw sim::InputError(csv_path, "", e.line(), e.reason());
    } catch (const std::invalid_argument& e) {
        throw sim::InputError("", "", 0, e.what());  // names the file already
    } catch (const std::system_error& e) {
        throw sim::InputError(
            csv_path, "", 0,
            fmt::format("cannot read the measurement file: {}", e.code().message()));
    }
    if (records.empty())
        throw sim::InputError(csv_path, "", 1,
                              "empty file: expected the header "
                              "device,workload,time_s");
    const sim::CsvRow& header = records[0].cells;
    const int header_line = records[0].line;
    // One column holding a tab or a ';': another separator (a spreadsheet's export), whose
    // columns would otherwise be reported as one unknown name.
    if (header.size() == 1 && header[0].find_first_of("\t;") != std::string::npos)
        throw sim::InputError(csv_path, "", header_line,
                              fmt::format("the header '{}' has no commas: hetsim reads "
                                          "comma-separated values, not tabs or ';'",
                                          sim::csv_shown(header[0])));
    const auto columns = sim::csv_columns(header, csv_path);
    for (const std::string& name : header) {
        if (std::find(kColumns.begin(), kColumns.end(), name) == kColumns.end()) {
            throw sim::InputError(csv_path, sim::csv_shown(name), header_line,
                                  fmt::format("unknown column '{}' (columns: {})",
                                              sim::csv_shown(name), fmt::join(kColumns, ", ")));
        }
    }
    for (const char* required : {"device", "workload"}) {
        if (columns.count(required) == 0)
            throw sim::InputError(csv_path, required, header_line,
                                  fmt::format("missing column '{}'", required));
    }
    if (columns.count("time_s") == 0 && columns.count("speedup") == 0)
        throw sim::InputError(csv_path, "time_s", header_line,
                              "missing column 'time_s' (or 'speedup')");

    MeasurementFile out;
    out.path = csv_path;
    std::map<std::pair<std::string, std::string>, std::shared_ptr<const sim::Graph>> graphs;
    // Row identity (device, workload, knobs, scope, reference) -> the line that has it: the same
    // measurement twice would count twice in a fit, and a table could not tell the rows apart.
    std::map<std::string, int> seen;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const sim::CsvRow& rec = records[r].cells;
        const int line = records[r].line;
        // A row of another width than the header: its cells would be read under the wrong
        // columns, or dropped unread.
        if (rec.size() != header.size())
            row_error(csv_path, line, "",
                      fmt::format("{} cells, but the header names {} columns", rec.size(),
                                  header.size()));
        auto field = [&](const std::string& name) -> std::string {
            const auto it = columns.find(name);
            return it == columns.end() ? std::string() : rec[it->second];
        };
        Measurement m;
        m.line = line;
        m.device = field("device");
        m.workload = field("workload");
        m.knobs = field("knobs");
        m.source = field("source");
        if (const std::string scope = field("scope"); !scope.empty())
            m.scope = scope;
        if (std::find(kScopes.begin(), kScopes.end(), m.scope) == kScopes.end()) {
            row_error(csv_path, line, "scope",
                      fmt::format("unknown scope '{}' (scopes: {})", sim::csv_shown(m.scope),
                                  fmt::join(kScopes, ", ")));
        }
        const int device = require_device(platform, csv_path, line, "device", m.device);
        m.reference_device = field("reference_device");
        m.reference_workload = field("reference_workload");
        m.reference_knobs = field("reference_knobs");
        if ((!m.reference_workload.empty() || !m.reference_knobs.empty()) &&
            m.reference_device.empty())
            row_error(csv_path, line,
                      m.reference_workload.empty() ? "reference_knobs" : "reference_workload",
                      fmt::format("a reference {} needs a reference_device",
                                  m.reference_workload.empty() ? "knob" : "workload"));
        const std::string time = field("time_s");
        const std::string speedup = field("speedup");
        if (!m.reference_device.empty()) {
            require_device(platform, csv_path, line, "reference_device", m.reference_device);
            if (!time.empty())
                row_error(csv_path, line, "time_s",
                          "a row gives a time_s, or a reference_device and a speedup, not both");
            if (m.reference_device == m.device && m.reference_workload.empty() &&
                m.reference_knobs.empty())
                row_error(csv_path, line, "reference_device",
                          "the reference is the row's own device and workload: a speedup of "
                          "1 by definition; name another device, reference_workload or "
                          "reference_knobs");
            if (speedup.empty())
                row_error(csv_path, line, "speedup",
                          "a row with a reference_device needs a "
                          "speedup");
            if (m.scope == "transfer" || m.scope == "dispatch")
                row_error(csv_path, line, "scope",
                          fmt::format("a {} row is a time, not a ratio: give time_s without "
                                      "reference_device",
                                      m.scope));
            // The ratio of two times in the simulator's range.
            m.speedup = positive_field(
                csv_path, line, "speedup", speedup, kMinTime_s / kMaxTime_s,
                kMaxTime_s / kMinTime_s,
                fmt::format("expected a ratio from {:.3g} to {:.3g}, of two times in the "
                            "simulator's range (1 ps to 2^62 ps)",
                            kMinTime_s / kMaxTime_s, kMaxTime_s / kMinTime_s));
        } else {
            if (time.empty())
                row_error(csv_path, line, "time_s",
                          "missing time (or reference_device and "
                          "speedup)");
            m.time_s = time_field(csv_path, line, "time_s", time);
        }
        if (const std::string w = field("weight"); !w.empty())
            m.weight = positive_field(csv_path, line, "weight", w);
        if (m.workload.empty())
            row_error(csv_path, line, "workload", "missing workload");
        auto knobs = parse_knob_text(csv_path, line, "knobs", m.knobs);
        const auto reference_knobs =
            parse_knob_text(csv_path, line, "reference_knobs", m.reference_knobs);
        std::string identity = fmt::format(
            "{}\n{}\n{}\n{}\n{}\n{}\n{}", m.device,
            is_graph_file(m.workload) ? fs::path(m.workload).lexically_normal().generic_string()
                                      : m.workload,
            knob_key(knobs), m.scope, m.reference_device,
            is_graph_file(m.reference_workload)
                ? fs::path(m.reference_workload).lexically_normal().generic_string()
                : m.reference_workload,
            knob_key(reference_knobs));
        if (const auto [it, inserted] = seen.emplace(identity, line); !inserted) {
            row_error(csv_path, line, "",
                      fmt::format("the same measurement as line {} (device, workload, knobs, "
                                  "scope and reference): give it once (a weight of 2 counts a "
                                  "row twice)",
                                  it->second));
        }
        if (m.scope == "transfer") {
            if (m.workload != "copy")
                row_error(csv_path, line, "workload", "a transfer row's workload is 'copy'");
            // host_memory tells pinned from pageable copies apart (row_time_s).
            expect_knobs(csv_path, line, "knobs", knobs, {"bytes", "direction", "host_memory"},
                         "a copy takes bytes, direction and host_memory");
            const auto bytes = knobs.find("bytes");
            const auto direction = knobs.find("direction");
            if (bytes == knobs.end() || direction == knobs.end())
                row_error(csv_path, line, "knobs",
                          "a transfer needs bytes=N;direction=host_to_device|device_to_host");
            m.transfer_bytes = whole_knob(csv_path, line, "knobs", "bytes", bytes->second);
            if (direction->second != "host_to_device" && direction->second != "device_to_host")
                row_error(csv_path, line, "knobs",
                          fmt::format("direction must be host_to_device or device_to_host, got "
                                      "'{}'",
                                      sim::csv_shown(direction->second)));
            if (const auto memory = knobs.find("host_memory");
                memory != knobs.end() && memory->second != "pinned" && memory->second != "pageable")
                row_error(csv_path, line, "knobs",
                          fmt::format("host_memory must be pinned or pageable, got '{}'",
                                      sim::csv_shown(memory->second)));
            m.host_to_device = direction->second == "host_to_device";
            if (const auto memory = knobs.find("host_memory"); memory != knobs.end())
                m.page_locked = memory->second == "pinned";
            const std::string& comp = platform.device(device).component;
            if (platform.route(platform.host_component, comp) == nullptr ||
                platform.route(comp, platform.host_component) == nullptr)
                row_error(csv_path, line, "device",
                          fmt::format("no route between the host and {}", m.device));
        } else {
            if (m.workload == "copy")
                row_error(csv_path, line, "scope",
                          fmt::format("a copy is a transfer: scope=transfer, not '{}'", m.scope));
            // A graph file is the graph: its knobs can only say how it was measured. `l2`:
            // tools/measure/gpu.py's memory rows, L2 flushed before each run (cold) or not
            // (hot). Both predict the same: the GPU model streams every kernel's bytes from
            // device memory, as a cold L2 does; hot rows show what that leaves out. A model
            // name's knobs go to the model, which refuses one it does not have.
            const auto check_graph_knobs = [&](const std::string& workload,
                                               const std::map<std::string, std::string>& k,
                                               const std::string& column) {
                if (!is_graph_file(workload))
                    return;
                const bool dispatch = m.scope == "dispatch";
                expect_knobs(csv_path, line, column, k, {dispatch ? "ops" : "l2"},
                             dispatch ? "a dispatch row of a graph file takes ops=N only"
                                      : "a graph file takes l2=cold|hot only; model knobs go "
                                        "with a model name");
                if (const auto l2 = k.find("l2");
                    l2 != k.end() && l2->second != "cold" && l2->second != "hot")
                    row_error(csv_path, line, column,
                              fmt::format("l2 must be cold or hot, got '{}'",
                                          sim::csv_shown(l2->second)));
            };
            check_graph_knobs(m.workload, knobs, "knobs");
            if (m.scope == "dispatch") {
                const auto ops = knobs.find("ops");
                if (ops == knobs.end())
                    row_error(csv_path, line, "knobs",
                              "a dispatch row needs ops=N: how many launches were queued");
                m.dispatch_ops = whole_knob(csv_path, line, "knobs", "ops", ops->second);
                knobs.erase(ops);
            }
            // A workload's graph and its TVM fusion, loaded once per (workload, knobs).
            const auto load = [&](const std::string& workload,
                                  const std::map<std::string, std::string>& parsed,
                                  const char* column, const char* knobs_column) {
                const std::string key_knobs = is_graph_file(workload) ? "" : knob_key(parsed);
                auto& graph = graphs[{workload, key_knobs}];
                if (!graph)
                    graph = load_row_graph(csv_path, line, workload, parsed, column, knobs_column);
                auto& fused = graphs[{workload, key_knobs + "#fused"}];
                if (!fused) {
                    try {
                        fused = std::make_shared<sim::Graph>(
                            sim::passes::compile_for(*graph, sim::Compiler::tvm));
                    } catch (const std::exception& e) {
                        row_error(csv_path, line, column, e.what());
                    }
                }
                return std::make_pair(graph, fused);
            };
            std::tie(m.graph, m.fused) = load(m.workload, knobs, "workload", "knobs");
            // reference_knobs alone: the same workload with other knobs.
            const std::string& reference_workload =
                m.reference_workload.empty() ? m.workload : m.reference_workload;
            if (m.reference_workload.empty() && m.reference_knobs.empty()) {
                m.reference_graph = m.graph;
                m.reference_fused = m.fused;
            } else {
                check_graph_knobs(reference_workload, reference_knobs, "reference_knobs");
                std::tie(m.reference_graph, m.reference_fused) = load(
                    reference_workload, reference_knobs, "reference_workload", "reference_knobs");
            }
            for (const auto& [name, reference] :
                 {std::pair{m.device, false}, std::pair{m.reference_device, true}}) {
                if (name.empty())
                    continue;
                const sim::Device& d = platform.device(*platform.find_device(name));
                const sim::Graph& g = d.compiler == sim::Compiler::tvm
                                          ? (reference ? *m.reference_fused : *m.fused)
                                          : (reference ? *m.reference_graph : *m.graph);
                if (m.scope == "dispatch" && g.op_count() != 1)
                    row_error(csv_path, line, "workload",
                              fmt::format("a dispatch row times one op launched ops={} times; "
                                          "this workload has {} ops",
                                          m.dispatch_ops, g.op_count()));
                for (const sim::Op& op : g.ops()) {
                    const sim::Support s = d.model->supports(g, op);
                    if (!s.ok)
                        row_error(
                            csv_path, line, "workload",
                            fmt::format("{} cannot run op '{}': {}", name, op.name, s.reason));
                }
            }
        }
        out.rows.push_back(std::move(m));
    }
    if (out.rows.empty())
        throw sim::InputError(csv_path, "", header_line + 1, "no measurements after the header");
    // Weights are relative; a spread past kMaxWeightSpread is refused at the lightest row.
    const auto [lightest, heaviest] = std::minmax_element(
        out.rows.begin(), out.rows.end(),
        [](const Measurement& a, const Measurement& b) { return a.weight < b.weight; });
    if (heaviest->weight > kMaxWeightSpread * lightest->weight) {
        row_error(csv_path, lightest->line, "weight",
                  fmt::format("{:g} is {:.3g} times less than line {}'s {:g}; weights are "
                              "relative (the fit divides them by their mean): keep them within "
                              "a factor of {:g}",
                              lightest->weight, heaviest->weight / lightest->weight, heaviest->line,
                              heaviest->weight, kMaxWeightSpread));
    }
    return out;
}

double predict(const sim::Platform& platform, const Measurement& row) {
    return prediction(platform, row, [](double, const std::string&) {});
}

FitReport fit_platform(const FitRequest& request) {
    FitReport report;
    report.platform_file = request.platform_file;
    report.measurements_file = request.measurements_file;
    report.folds = request.folds;
    PlatformTemplate templ(request.platform_file);
    const sim::Platform initial = sim::parse_platform(templ.root());
    const MeasurementFile data = load_measurements(request.measurements_file, initial);
    // Asked for by name, more folds than rows cannot be: each fold needs a row to test on. The
    // default (5) on a short file is reported as not done instead.
    if (request.folds_given && static_cast<std::size_t>(request.folds) > data.rows.size()) {
        throw sim::InputError(
            "--folds " + std::to_string(request.folds), "", 0,
            fmt::format("more folds than the {} rows of {}: at most {} (0 for none)",
                        data.rows.size(), request.measurements_file, data.rows.size()));
    }

    // The components whose constants are fitted: those of the named devices (or of every
    // device a row names), and the links a transfer row crosses.
    std::vector<std::string> components;
    auto add_component = [&](const std::string& c) {
        if (std::find(components.begin(), components.end(), c) == components.end())
            components.push_back(c);
    };
    if (!request.devices.empty()) {
        for (const std::string& name : request.devices) {
            const auto d = initial.find_device(name);
            if (!d) {
                throw sim::InputError("", "--device", 0,
                                      fmt::format("unknown device '{}' (devices: {})", name,
                                                  fmt::join(initial.device_names(), ", ")));
            }
            add_component(initial.device(*d).component);
        }
    } else {
        for (const Measurement& m : data.rows) {
            add_component(initial.device(*initial.find_device(m.device)).component);
            if (m.is_ratio())
                add_component(initial.device(*initial.find_device(m.reference_device)).component);
        }
    }
    for (const Measurement& m : data.rows) {
        if (m.scope != "transfer")
            continue;
        const std::string& comp = initial.device(*initial.find_device(m.device)).component;
        const auto* route = m.host_to_device ? initial.route(initial.host_component, comp)
                                             : initial.route(comp, initial.host_component);
        for (const sim::Hop& hop : *route)
            add_component(initial.links()[static_cast<std::size_t>(hop.link)].name);
    }

    std::vector<ParamSlot> slots = free_slots(templ.root(), initial, components, report.notes);
    // Checked first: after the first is taken out of the free parameters, the second would
    // read as a key that is no free parameter.
    std::set<std::string> fixed_once;
    for (const std::string& fixed : request.fixed) {
        if (!fixed_once.insert(fixed).second)
            throw sim::InputError("", "--fix", 0, fmt::format("'{}' is given twice", fixed));
    }
    for (const std::string& fixed : request.fixed) {
        const auto it = std::find_if(slots.begin(), slots.end(), [&](const ParamSlot& s) {
            return s.info.component + "." + s.info.key == fixed;
        });
        if (it == slots.end()) {
            std::vector<std::string> names;
            for (const ParamSlot& s : slots)
                names.push_back(s.info.component + "." + s.info.key);
            throw sim::InputError("", "--fix", 0,
                                  fmt::format("'{}' is not a free parameter of this fit (free: {})",
                                              fixed, fmt::join(names, ", ")));
        }
        report.notes.push_back(fmt::format("{}: fixed by --fix, kept at {}", fixed,
                                           it->info.describe(it->info.initial)));
        slots.erase(it);
    }
    std::vector<std::size_t> all_rows(data.rows.size());
    std::iota(all_rows.begin(), all_rows.end(), 0);
    Problem problem(templ, slots, data.rows, all_rows);
    const std::vector<std::size_t> active = sensitive_parameters(problem);
    for (std::size_t i = 0; i < slots.size(); ++i) {
        if (std::find(active.begin(), active.end(), i) == active.end()) {
            report.notes.push_back(fmt::format("{}.{}: no row depends on it, kept at {}",
                                               slots[i].info.component, slots[i].info.key,
                                               slots[i].info.describe(slots[i].info.initial)));
        }
    }
    if (active.empty()) {
        throw sim::InputError(request.measurements_file, "", 0,
                              fmt::format("nothing to fit: no free parameter of {} that the "
                                          "platform file states changes a prediction",
                                          fmt::join(components, ", ")));
    }
    if (active.size() > data.rows.size()) {
        throw sim::InputError(
            request.measurements_file, "", static_cast<int>(data.rows.size()) + 1,
            fmt::format("{} free parameters but {} measurement(s): a fit needs at least as many "
                        "rows as parameters",
                        active.size(), data.rows.size()));
    }
    // Checked before the fit, so that a refused --folds writes nothing.
    const int folds = request.folds;
    const std::size_t train_rows = folds > 1 ? data.rows.size() * (folds - 1) / folds : 0;
    if (request.folds_given && folds == 1) {
        throw sim::InputError("--folds 1", "", 0,
                              "cross-validation needs at least 2 folds (0 for none)");
    }
    // Each fold is fitted on the rows outside it (the largest fold leaves the fewest): fewer
    // than the free parameters cannot be fitted.
    if (request.folds_given && folds > 1 && train_rows < active.size()) {
        std::size_t fewest = 0;  // the fewest folds that leave enough rows
        for (std::size_t k = 2; k <= data.rows.size() && fewest == 0; ++k) {
            if (data.rows.size() * (k - 1) / k >= active.size())
                fewest = k;
        }
        throw sim::InputError(
            "--folds " + std::to_string(folds), "", 0,
            fmt::format("each fold is fitted on as few as {} of the {} rows, fewer than the {} "
                        "free parameters; {} (0 for none)",
                        train_rows, data.rows.size(), active.size(),
                        fewest == 0 ? std::string("no number of folds leaves enough rows")
                                    : fmt::format("use at least {} folds", fewest)));
    }
    problem.set_active(active);
    report.starts = std::max(1, request.starts);
    if (report.starts == 1) {
        // Said once per component whose type wants more descents than the one asked for.
        std::set<std::string> told;
        for (const std::size_t i : active) {
            const ParamSlot& slot = slots[i];
            if (slot.suggested_starts > 1 && told.insert(slot.info.component).second) {
                report.notes.push_back(fmt::format(
                    "{}: its model's discrete choices give the error surface local minima; "
                    "--starts {} keeps the best of {} descents",
                    slot.info.component, slot.suggested_starts, slot.suggested_starts));
            }
        }
    }
    const Solution solution = solve(problem, request.starts);
    report.objective = problem.residuals(solution.values).squaredNorm();
    report.solver_status = solution.status;

    // Standard errors from the Jacobian at the optimum, in log p: cov = s^2 (J^T J)^-1 with
    // s^2 = RSS / (n - k); se(p) = p se(log p).
    const Eigen::VectorXd r = problem.residuals(solution.values);
    Eigen::MatrixXd j = problem.jacobian(solution.u, r);
    for (Eigen::Index c = 0; c < j.cols(); ++c)
        j.col(c) /= problem.slope(static_cast<std::size_t>(c), solution.u[c]);
    const auto n = static_cast<double>(data.rows.size());
    Eigen::VectorXd se_log =
        Eigen::VectorXd::Constant(j.cols(), std::numeric_limits<double>::quiet_NaN());
    // A parameter pinned at a bound has no curvature there: it is left out of the covariance
    // (reported "at bound"), as for a constrained fit's active set.
    std::vector<Eigen::Index> interior;
    for (Eigen::Index c = 0; c < j.cols(); ++c) {
        const FittedParameter& p = slots[active[static_cast<std::size_t>(c)]].info;
        const double v = solution.values[active[static_cast<std::size_t>(c)]];
        // A zero column: the rows do not constrain it near the optimum (behind a max()).
        if (v > p.lower * 1.001 && v < p.upper / 1.001 && j.col(c).cwiseAbs().maxCoeff() > 0.0)
            interior.push_back(c);
    }
    if (n > static_cast<double>(interior.size()) && !interior.empty()) {
        const double s2 = r.squaredNorm() / (n - static_cast<double>(interior.size()));
        Eigen::MatrixXd ji(j.rows(), static_cast<Eigen::Index>(interior.size()));
        for (std::size_t c = 0; c < interior.size(); ++c)
            ji.col(static_cast<Eigen::Index>(c)) = j.col(interior[c]);
        const Eigen::MatrixXd jtj = ji.transpose() * ji;
        Eigen::FullPivLU<Eigen::MatrixXd> lu(jtj);
        if (lu.isInvertible()) {
            const Eigen::MatrixXd cov = s2 * lu.inverse();
            for (std::size_t c = 0; c < interior.size(); ++c) {
                const auto ci = static_cast<Eigen::Index>(c);
                se_log[interior[c]] = std::sqrt(std::max(0.0, cov(ci, ci)));
            }
        }
    }
    for (std::size_t i = 0; i < slots.size(); ++i) {
        FittedParameter p = slots[i].info;
        p.value = solution.values[i];
        const auto pos = std::find(active.begin(), active.end(), i);
        p.fitted = pos != active.end();
        p.std_error = p.fitted ? p.value * se_log[pos - active.begin()]
                               : std::numeric_limits<double>::quiet_NaN();
        p.at_bound = p.fitted && (p.value <= p.lower * 1.001 || p.value >= p.upper / 1.001);
        report.parameters.push_back(p);
    }
    // In-sample errors of the fitted platform.
    {
        const sim::Platform fitted = templ.build(slots, solution.values);
        std::vector<double> errors;
        for (const Measurement& m : data.rows)
            errors.push_back(relative_error(predict(fitted, m), m.measured()));
        report.in_sample = summarize_errors(errors);
    }
    // k-fold cross-validation: row i is in fold i mod k (the files list shapes in sweeps, so
    // every fold spans them); each fold is fitted from the file's values without its rows.
    if (folds < 2) {
        report.cross_validation_note = "not asked for";
    } else if (!request.folds_given && (data.rows.size() < static_cast<std::size_t>(2 * folds) ||
                                        train_rows < active.size())) {
        // The default on a short file: said, not refused (a --folds given was checked above).
        report.cross_validation_note =
            fmt::format("too few rows for {}-fold cross-validation ({} rows, {} parameters)", folds,
                        data.rows.size(), active.size());
    } else {
        std::vector<double> errors(data.rows.size());
        for (int f = 0; f < folds; ++f) {
            std::vector<std::size_t> train, test;
            for (std::size_t i = 0; i < data.rows.size(); ++i)
                (static_cast<int>(i % static_cast<std::size_t>(folds)) == f ? test : train)
                    .push_back(i);
            Problem fold(templ, slots, data.rows, train);
            fold.set_active(active);
            const Solution s = solve(fold, request.starts);
            const sim::Platform p = templ.build(slots, s.values);
            for (std::size_t i : test)
                errors[i] = relative_error(predict(p, data.rows[i]), data.rows[i].measured());
            report.evaluations += fold.evaluations();
        }
        report.cross_validated = summarize_errors(errors);
    }
    report.evaluations += problem.evaluations();
    const std::string tag =
        fmt::format("[fit: {}, {} rows]", fs::path(request.measurements_file).filename().string(),
                    data.rows.size());
    report.fitted_text = fitted_platform_text(request.platform_file, slots, report.parameters, tag);
    if (!request.out.empty()) {
        try {
            sim::write_file_atomically(request.out, report.fitted_text);
        } catch (const std::exception& e) {
            throw sim::InputError(
                "", "--out", 0,
                fmt::format("cannot write '{}': {}", request.out, sim::write_failure_reason(e)));
        }
    }
    return report;
}

std::string format_fit(const FitReport& report) {
    std::ostringstream out;
    std::size_t fitted = 0;
    for (const auto& p : report.parameters)
        fitted += p.fitted ? 1 : 0;
    out << fmt::format(
        "fit of {} to {}: {} rows, {} free parameters (Eigen Levenberg-Marquardt "
        "on log time{}, {} evaluations, {})\n",
        report.platform_file, report.measurements_file, report.in_sample.rows, fitted,
        report.starts > 1 ? fmt::format(", best of {} starts", report.starts) : std::string(),
        report.evaluations, report.solver_status);
    out << fmt::format("  {:<36} {:>14} {:>14} {:>22}\n", "parameter", "initial", "fitted",
                       "std. error");
    for (const auto& p : report.parameters) {
        if (!p.fitted)
            continue;
        std::string se = "n/a";
        if (std::isfinite(p.std_error)) {
            se = fmt::format("{} ({:.1f} %)", p.describe(p.std_error),
                             100.0 * p.std_error / p.value);
        }
        if (p.at_bound)
            se += " at bound";
        out << fmt::format("  {:<36} {:>14} {:>14} {:>22}\n", p.component + "." + p.key,
                           p.describe(p.initial), p.describe(p.value), se);
    }
    for (const auto& note : report.notes)
        out << "  note: " << note << "\n";
    out << fmt::format("relative error over the {} rows: median {}, p90 {}, max {}\n",
                       report.in_sample.rows, percent(report.in_sample.median),
                       percent(report.in_sample.p90), percent(report.in_sample.max));
    if (report.cross_validated) {
        out << fmt::format(
            "{}-fold cross-validation (each row predicted by a fit that did not "
            "see it): median {}, p90 {}, max {}\n",
            report.folds, percent(report.cross_validated->median),
            percent(report.cross_validated->p90), percent(report.cross_validated->max));
    } else {
        out << "cross-validation: " << report.cross_validation_note << "\n";
    }
    return out.str();
}

CheckReport check_platform(const std::string& platform_file, const std::string& measurements_file,
                           const std::string& out_dir) {
    CheckReport report;
    report.platform_file = platform_file;
    const sim::Platform platform = sim::load_platform(platform_file);
    report.measurements = load_measurements(measurements_file, platform);
    std::vector<double> errors;
    for (std::size_t i = 0; i < report.measurements.rows.size(); ++i) {
        const Measurement& m = report.measurements.rows[i];
        CheckRow row;
        row.row = i;
        row.predicted = checked_prediction(platform, measurements_file, m);
        row.relative_error = relative_error(row.predicted, m.measured());
        errors.push_back(row.relative_error);
        report.rows.push_back(row);
    }
    report.errors = summarize_errors(errors);
    if (!out_dir.empty()) {
        std::string csv = fmt::format("{}\n", fmt::join(check_csv_columns(), ","));
        for (const CheckRow& row : report.rows) {
            const Measurement& m = report.measurements.rows[row.row];
            const std::string measured = fmt::format("{:.6g}", m.measured());
            const std::string predicted = fmt::format("{:.6g}", row.predicted);
            const bool ratio = m.is_ratio();
            csv += fmt::format(
                "{},{},{},{},{:.6g},{},{},{},{},{},{},{}\n", sim::csv_field(m.device),
                sim::csv_field(m.workload), ratio ? "" : measured, ratio ? "" : predicted,
                row.relative_error, sim::csv_field(m.knobs), sim::csv_field(m.scope),
                sim::csv_field(m.reference_device), sim::csv_field(m.reference_workload),
                sim::csv_field(m.reference_knobs), ratio ? measured : "", ratio ? predicted : "");
        }
        try {
            sim::create_output_folder(out_dir);
            sim::write_file_atomically(fs::path(out_dir) / "calibration.csv", csv);
        } catch (const std::exception& e) {
            throw sim::InputError("", "--out", 0, sim::write_failure_message(e, out_dir));
        }
    }
    return report;
}

std::vector<MeasurementSet> measurement_sets(const std::string& platform_name) {
    static const std::map<std::string, std::vector<MeasurementSet>> sets = {
        {"zynq_silentpim",
         {{"fit set (lee2022 §4.2: the Fig. 8 ranges as ratios)", "calibration/lee2022/fit.csv"}}},
        {"i7_rtx2060",
         {{"fit set (xu2022 Table 5: split ratios as equal part times)",
           "calibration/eop/fit.csv"}}},
        {"xeon_titanv",
         {{"fit set (zhang2021 Tables II and III)", "calibration/duet/fit.csv"},
          {"held out (zhang2021 Table II, Siamese): predictions",
           "calibration/duet/held_out.csv"}}},
        {"h100",
         {{"fit set (every other fp32 GEMM, pinned copies, pageable copies and memory-bound "
           "kernels of every other size)",
           "calibration/h100/fit.csv"},
          {"held out: the other fp32 GEMMs", "calibration/h100/check_gemm_fp32.csv"},
          {"held out: 180 fresh fp32 GEMMs (h100_fresh), first compared with the model after "
           "its fit",
           "calibration/h100_fresh/check_gemm_fp32_fresh.csv"},
          {"held out: 180 reserve fp32 GEMMs (h100_reserve), first compared with the model "
           "after its fit",
           "calibration/h100_reserve/check_gemm_fp32_reserve.csv"},
          {"fit set of the tensor-core constants (every fp32 constant fixed): every other bf16 "
           "GEMM",
           "calibration/h100/fit_bf16.csv"},
          {"held out: the other bf16 GEMMs (tensor cores)", "calibration/h100/check_gemm_bf16.csv"},
          {"held out: 180 fresh bf16 GEMMs (h100_bf16_fresh), first compared with the model "
           "after its TMA / pre-Hopper split",
           "calibration/h100_bf16_fresh/check_gemm_bf16_fresh.csv"},
          {"held out: forward convolutions", "calibration/h100/check_conv.csv"},
          {"held out: 100 random convolutions (h100_fresh_layers)",
           "calibration/h100_fresh_layers/check_conv_fresh.csv"},
          {"held out: LSTM and GRU layers", "calibration/h100/check_rnn.csv"},
          {"held out: 60 random LSTM and GRU layers (h100_fresh_layers)",
           "calibration/h100_fresh_layers/check_rnn_fresh.csv"},
          {"held out: 60 more random LSTM and GRU layers (h100_reserve2), first compared with "
           "the model after its fit",
           "calibration/h100_reserve2/check_rnn_reserve.csv"},
          {"fit set of the persistent RNN kernel's three constants (every GEMM constant "
           "fixed): LSTM/GRU layers at cuDNN's template sizes and between them "
           "(h100_reserve3, h100_persist_odd)",
           "calibration/h100_persist_odd/fit_rnn_persist.csv"},
          {"held out: 60 random LSTM and GRU layers (h100_reserve3), first compared with the "
           "model after its first persistent-kernel fit",
           "calibration/h100_reserve3/check_rnn_reserve3.csv"},
          {"held out: 54 vanilla RNN layers (h100_reserve3)",
           "calibration/h100_reserve3/check_rnn_tanh.csv"},
          {"held out: 60 GEMMs with nn.Linear's weight layout, fp32 and bf16 (h100_reserve3)",
           "calibration/h100_reserve3/check_gemm_linear.csv"},
          {"held out: memory-bound kernels of the sizes between, cold L2",
           "calibration/h100/check_memory.csv"},
          {"held out: pageable copies of the sizes between", "calibration/h100/check_copy.csv"},
          {"held out: eager PyTorch models", "calibration/h100/check_end_to_end.csv"},
          {"the host's time per queued op (gpu.launch_overhead's source, not fitted)",
           "calibration/h100/launch.csv"}}},
        {"h200",
         {{"fit set (every other fp32 GEMM)", "calibration/h200/fit.csv"},
          {"held out: the other fp32 GEMMs", "calibration/h200/check_gemm_fp32.csv"},
          {"held out: 180 fresh fp32 GEMMs", "calibration/h200/check_gemm_fp32_fresh.csv"}}},
    };
    const auto it = sets.find(platform_name);
    return it == sets.end() ? std::vector<MeasurementSet>{} : it->second;
}

std::string format_check(const CheckReport& report) {
    std::ostringstream out;
    out << fmt::format("{} against {}: {} rows\n", report.platform_file, report.measurements.path,
                       report.rows.size());
    out << fmt::format("  {:<8} {:<48} {:<10} {:>12} {:>12} {:>8}\n", "device", "workload", "scope",
                       "measured", "predicted", "error");
    for (const CheckRow& row : report.rows) {
        const Measurement& m = report.measurements.rows[row.row];
        std::string workload = m.workload + (m.knobs.empty() ? "" : " " + m.knobs);
        if (workload.size() > 48)
            workload = "..." + workload.substr(workload.size() - 45);
        const auto shown = [&](double v) {
            return m.is_ratio() ? fmt::format("{:.3g}x", v)
                                : sim::format_quantity(v, sim::Quantity::time);
        };
        out << fmt::format("  {:<8} {:<48} {:<10} {:>12} {:>12} {:>8}\n", m.device, workload,
                           m.is_ratio() ? "speedup" : m.scope, shown(m.measured()),
                           shown(row.predicted), percent(row.relative_error));
    }
    out << fmt::format("relative error: median {}, p90 {}, max {}\n", percent(report.errors.median),
                       percent(report.errors.p90), percent(report.errors.max));
    return out.str();
}

}  // namespace hetsim::app
