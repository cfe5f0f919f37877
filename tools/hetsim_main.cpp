// The `hetsim` command (CLI11). Bad input ends with one message and exit code 2.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>

#include <algorithm>
#include <cmath>
#include <limits>

#include <unistd.h>
#include <filesystem>
#include <functional>

#include <iostream>

#include "placement/mcm/rl/agent.hpp"
#include "placement/placer.hpp"
#include "placement/placer_args.hpp"
#include "sim/config.hpp"
#include "sim/exec_graph.hpp"
#include "sim/op_table.hpp"
#include "sim/units.hpp"
#include "sim/version.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tools/app/agree.hpp"
#include "tools/app/bound.hpp"
#include "tools/app/calibrate.hpp"
#include "tools/app/check_partition.hpp"
#include "tools/app/compare.hpp"
#include "tools/app/dataset.hpp"
#include "tools/app/errors.hpp"
#include "tools/app/fit.hpp"
#include "tools/app/inspect.hpp"
#include "tools/app/place.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/report.hpp"
#include "tools/app/study.hpp"
#include "tools/app/sweep.hpp"
#include "tools/app/train.hpp"
#include "traces/trace_writer.hpp"

namespace fs = std::filesystem;
using namespace hetsim;  // a .cpp file, not a header

namespace {

using app::is_input_error;
using app::kInputErrorExit;

// A finite number >= 0, for durations and gaps: CLI11's NonNegativeNumber lets "nan" through
// (every comparison with NaN is false), and an infinite limit is no limit.
const CLI::Validator kFiniteNonNegative(
    [](std::string& text) -> std::string {
        std::size_t used = 0;
        double value = std::numeric_limits<double>::quiet_NaN();
        try {
            value = std::stod(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != text.size() || !std::isfinite(value) || value < 0.0)
            return "expected a finite number >= 0, got '" + text + "'";
        return "";
    },
    "NUMBER >= 0");

const CLI::Validator kNotEmpty(
    [](std::string& text) -> std::string {
        return text.empty() ? "expected a value, got an empty one ('')" : "";
    },
    "");

// Worker processes: at least one; more than this machine could ever run is a typo.
const CLI::Range kJobs(1, 4096);

// Seeds are integers >= 0 as in a study's `seed:` (an int64): "-1" must not wrap around to
// 2^64 - 1 in an unsigned option.
// Parsed exactly (std::from_chars): CLI11's range check clamped 9223372036854775808 and
// 2^64 to the largest int64 and let them through.
const CLI::Validator kSeed(
    [](std::string& text) -> std::string {
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < 0)
            return fmt::format("expected an integer in 0..{}, got '{}'",
                               std::numeric_limits<std::int64_t>::max(), text);
        return "";
    },
    "INTEGER in 0..2^63-1");

// `--time-limit`: as a placer's `time=` (placement/placer_args.hpp: past 10^7 s a deadline
// overflows the clock). After kFiniteNonNegative, so the text is a number.
const CLI::Validator kTimeLimit(
    [](std::string& text) -> std::string {
        if (std::stod(text) > placement::kMaxTimeLimit_s)
            return fmt::format("expected at most {:g} seconds, got '{}'",
                               placement::kMaxTimeLimit_s, text);
        return "";
    },
    "SECONDS <= 1e7");

// `agree --samples`: each sample is two evaluations; a million is hours of work already.
const CLI::Range kAgreeSamples(1, 1'000'000);

// A config hetsim ships, from the config search path (configs/<relative> when not found, so
// that the error names the expected place).
std::string shipped_config(const fs::path& relative) {
    const auto found = sim::find_config_file(relative);
    return found ? found->string() : (fs::path("configs") / relative).string();
}

std::string default_study() {
    return shipped_config("studies/default.yaml");
}

int cmd_run(const std::string& file, const std::vector<std::string>& overrides,
            const std::string& out, bool trace, std::size_t trace_limit_bytes,
            const std::string& trace_format, bool keep_infeasible, bool deterministic) {
    std::vector<app::PointRun> runs;
    for (auto& point : app::load_study_points(file, overrides)) {
        app::StudyResult result =
            app::run_study(point, trace, &std::cerr, isatty(STDERR_FILENO) != 0);
        runs.push_back(app::PointRun{std::move(point), std::move(result)});
    }
    // A run in which no placement fits the platform's memories has no result to report.
    std::string reason;
    bool any_feasible = false;
    for (const auto& [study, result] : runs) {
        for (const auto& row : result.rows) {
            any_feasible = any_feasible || row.metrics.feasible;
            if (!row.metrics.feasible && reason.empty())
                reason = fmt::format("{}: {}", row.placer, row.metrics.infeasible_reason);
        }
    }
    if (!any_feasible && !keep_infeasible) {
        for (const auto& [study, result] : runs)
            std::cout << app::format_table(study, result);
        throw sim::InputError(file, "", 0,
                              fmt::format("every placement is infeasible (first: {})", reason));
    }
    const auto& first = runs.front().config;
    const fs::path out_dir = out.empty() ? fs::path("out") / first.name : fs::path(out);
    app::write_outputs(runs, out_dir, trace, trace_limit_bytes, &std::cerr, trace_format,
                       deterministic);
    for (const auto& [study, result] : runs)
        std::cout << app::format_table(study, result);
    std::cout << fmt::format(
        "results in {}/ (results.csv, results.json, placement_*.json{})\n", out_dir.string(),
        trace ? ", *.trace" + traces::make_trace_writer(trace_format)->extension() : "");
    return 0;
}

int cmd_list(const std::string& what) {
    app::register_all();
    if (what == "placers") {
        // Grouped by family, in registration order; names sorted inside a family.
        const auto& registry = placement::PlacerRegistry::instance();
        for (const auto& family : registry.families()) {
            std::cout << fmt::format("{} — {}\n", family.name, family.description);
            for (const auto* p : registry.all()) {
                if (p->family != family.name)
                    continue;
                std::cout << fmt::format("  {:<26} {}\n", p->usage, p->description);
                if (!p->deprecated_names.empty()) {
                    std::cout << fmt::format(
                        "      (old name {}: accepted with a warning until "
                        "the next release)\n",
                        fmt::join(p->deprecated_names, ", "));
                }
                for (const std::string& line : p->argument_help)
                    std::cout << fmt::format("      {}\n", line);
            }
        }
    } else if (what == "devices") {
        for (const auto* t : sim::ComponentRegistry::instance().all()) {
            std::cout << fmt::format("{:<12} {:<7} {}\n", t->type, t->kind, t->description);
        }
    } else if (what == "models") {
        for (const auto& m : sim::workloads::list_models()) {
            std::vector<std::string> knobs;
            for (const auto& k : m.knobs)
                knobs.push_back(fmt::format("{}={}", k.name, k.default_value));
            std::cout << fmt::format("{:<10} {}\n{:<10} knobs: {}\n", m.name, m.description, "",
                                     fmt::join(knobs, " "));
        }
    } else if (what == "ops") {
        for (const auto& op : sim::op_table()) {
            std::cout << fmt::format("{:<24} {}\n", op.type, sim::to_string(op.category));
        }
    } else {
        throw sim::InputError(
            "", "", 0,
            fmt::format("cannot list '{}'; expected placers, devices, models or ops", what));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App cli{"hetsim: simulate heterogeneous DL hardware and compare operator placements"};
    cli.set_version_flag("--version", sim::version_line(), "print hetsim's version and commit");
    cli.require_subcommand(1);

    std::string study_file, out_dir;
    std::vector<std::string> overrides;
    bool trace = false;
    auto* run = cli.add_subcommand("run", "run a study: place, simulate, report");
    run->add_option("study", study_file, "study YAML (default: configs/studies/default.yaml)");
    run->add_option("--set", overrides, "override a YAML path: --set workload.seq_len=32");
    run->add_option("--out", out_dir, "output directory (default: out/<study>)");
    run->add_flag("--trace", trace, "write a Perfetto trace per placer");
    bool deterministic = false;
    run->add_flag("--deterministic", deterministic,
                  "leave wall-clock quantities (placer_time_s, stats named *wall_s) out of the "
                  "files, so that the same inputs and seed give the same bytes");
    bool keep_infeasible = false;
    run->add_flag("--keep-infeasible", keep_infeasible,
                  "write the results even when no placement is feasible, and exit 0 (hetsim "
                  "compare's workers: an infeasible placer is a result there)");
    std::string trace_format = "perfetto_json";
    run->add_option("--trace-format", trace_format,
                    "perfetto_json (default; .trace.json) or perfetto_proto (native protobuf "
                    "TrackEvent; .trace.pftrace)");
    std::string trace_limit;
    run->add_option("--trace-limit", trace_limit,
                    "split a trace above this size by time into parts (default 200 MB)");

    app::SweepRequest sweep_request;
    auto* sweep = cli.add_subcommand(
        "sweep",
        "run a study at every design point of a sweep file, each point in its own worker process "
        "(also under mpirun)");
    sweep->add_option("sweep", sweep_request.file, "sweep YAML (configs/sweeps/)")->required();
    sweep->add_option("-j,--jobs", sweep_request.jobs, "worker processes at a time (default 1)")
        ->check(kJobs);
    sweep->add_flag("--resume", sweep_request.resume, "skip the points already in OUT/results.csv");
    sweep->add_flag("--retry-failed", sweep_request.retry_failed,
                    "resume, and run the failed points again (implies --resume)");
    sweep->add_option("--out", sweep_request.out, "output directory (default: out/<sweep>)");
    sweep->add_flag("--deterministic", sweep_request.deterministic,
                    "run every point with `hetsim run --deterministic`");
    sweep->add_flag("--dry-run", sweep_request.dry_run,
                    "expand and check every point, list them; run nothing, write nothing");

    app::CompareRequest compare_request;
    auto* compare = cli.add_subcommand(
        "compare",
        "every listed placer on every listed study, each run in its own worker process: "
        "leaderboard.csv and leaderboard.md (also under mpirun)");
    compare->add_option("compare", compare_request.file, "compare YAML (configs/compare/)")
        ->required();
    compare->add_option("-j,--jobs", compare_request.jobs, "worker processes at a time (default 1)")
        ->check(kJobs);
    compare->add_flag("--resume", compare_request.resume,
                      "skip the runs already in OUT/results.csv");
    compare->add_option("--out", compare_request.out, "output directory (default: out/<compare>)");
    compare->add_flag("--deterministic", compare_request.deterministic,
                      "run every placer with `hetsim run --deterministic` (no placer times)");
    compare->add_flag("--dry-run", compare_request.dry_run,
                      "check the compare file and every study, list the runs; run nothing");

    std::string report_dir;
    app::ReportOptions report_options;
    auto* report = cli.add_subcommand(
        "report", "write report.md and report.html (summary, plots, best placer per point)");
    report->add_option("dir", report_dir, "a `hetsim sweep` output directory")->required();
    report->add_option("--x", report_options.x_axis,
                       "a sweep axis: its line plot only, and the heatmap's x");
    report->add_option("--y", report_options.y_axis, "a sweep axis: the heatmap's y");
    report->add_option("--pareto", report_options.pareto,
                       "COL_X,COL_Y: numeric columns of results.csv, each optionally min: or max: "
                       "(default latency_s,throughput_per_s)");

    std::string list_what;
    auto* list = cli.add_subcommand(
        "list", "list placers, devices (component types), models or ops (the op table)");
    list->add_option("what", list_what, "placers | devices | models | ops")->required();

    app::InspectRequest inspect_request;
    bool inspect_ideals = false;
    std::size_t inspect_ideals_limit = app::kDefaultIdealsLimit;
    auto* inspect = cli.add_subcommand("inspect", "graph statistics of a workload");
    inspect
        ->add_option("workload", inspect_request.workload,
                     "a model name (bert, lstm, ...), a study YAML, a JSON graph (.json) or an "
                     "ONNX file (.onnx)")
        ->required();
    inspect->add_option("--set", inspect_request.settings,
                        "model knob or study override: --set seq_len=32");
    inspect->add_option("--dim", inspect_request.dims,
                        "symbolic dimension of an ONNX file: --dim batch=8");
    inspect->add_flag("--json", inspect_request.json, "print one JSON object");
    inspect->add_flag("--phases", inspect_request.phases,
                      "DUET's phases: sequential and multi-path, with their subgraphs");
    inspect->add_flag("--patterns", inspect_request.patterns,
                      "EOP's key operators (a study): each one's fitted pattern per device and "
                      "dimension, its fit error and its balanced ratio");
    inspect->add_flag("--ideals", inspect_ideals,
                      "count the ideals of the op DAG (tarnawski.dp's search space)");
    inspect
        ->add_option("--ideals-limit", inspect_ideals_limit,
                     "stop counting ideals past this many (default 1000000)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000}));
    inspect->add_option("--export", inspect_request.export_file,
                        "write the graph in hetsim's JSON graph format");

    app::DatasetRequest dataset_request;
    auto* dataset = cli.add_subcommand("dataset", "graph sets for training and stress");
    dataset->require_subcommand(1);
    auto* dataset_build = dataset->add_subcommand(
        "build", "write the graphs of a dataset spec as JSON graphs with a manifest and a split");
    dataset_build->add_option("--spec", dataset_request.spec, "dataset YAML (configs/datasets/)")
        ->required();
    dataset_build->add_option("--out", dataset_request.out, "output directory")->required();
    dataset_build->add_option("--seed", dataset_request.seed, "override the spec's seed")
        ->check(kSeed);

    std::string calibrate_file, calibrate_fit, calibrate_check, calibrate_bound, calibrate_out;
    std::vector<std::string> calibrate_devices, calibrate_fixed;
    int calibrate_folds = 5;
    int calibrate_starts = 1;
    auto* calibrate = cli.add_subcommand(
        "calibrate",
        "simulated vs published figures of a platform (exit 1 if they do not hold); --fit fits "
        "its free constants to measurements, --check predicts measurements");
    calibrate->add_option("platform", calibrate_file, "platform YAML")->required();
    auto* calibrate_fit_option = calibrate->add_option(
        "--fit", calibrate_fit,
        "measurements CSV (device,workload,time_s[,knobs,scope,reference_device,speedup,"
        "reference_workload,reference_knobs,weight,source]): fit the free parameters of the "
        "devices it names");
    calibrate
        ->add_option("--check", calibrate_check,
                     "measurements CSV: predict every row without fitting")
        ->excludes(calibrate_fit_option);
    calibrate
        ->add_option("--bound", calibrate_bound,
                     "measurements CSV: the least error any model monotone in a GEMM's sizes "
                     "can reach on its one-op GEMM rows, beside the platform's")
        ->excludes(calibrate_fit_option)
        ->excludes("--check");
    // --device, --fix and --folds shape a fit: given with --check they did nothing.
    calibrate
        ->add_option("--device", calibrate_devices,
                     "--fit: fit only these devices' components (repeatable)")
        ->needs(calibrate_fit_option);
    calibrate->add_option("--out", calibrate_out,
                          "--fit: the fitted platform YAML to write; --check: the directory for "
                          "calibration.csv");
    calibrate
        ->add_option("--fix", calibrate_fixed, "--fit: keep COMPONENT.KEY as written (repeatable)")
        ->needs(calibrate_fit_option);
    calibrate
        ->add_option("--folds", calibrate_folds,
                     "--fit: cross-validation folds (0: none; at most the rows of the file)")
        ->check(CLI::Range(0, 100'000))
        ->needs(calibrate_fit_option);
    calibrate
        ->add_option("--starts", calibrate_starts,
                     "--fit: Levenberg-Marquardt runs, from the file's values and from points "
                     "around them; the best is kept (default 1)")
        ->check(CLI::Range(1, 1000))
        ->needs(calibrate_fit_option);

    std::string check_study, check_file;
    std::vector<std::string> check_overrides;
    auto* check = cli.add_subcommand(
        "check-partition",
        "check a chiplet partition against mcm2022's constraints (exit 0 valid, 1 invalid)");
    check->add_option("study", check_study, "study YAML (its workload and chiplet platform)")
        ->required();
    check->add_option("partition", check_file, "partition JSON (placement_<placer>.json format)")
        ->required();
    check->add_option("--set", check_overrides, "override a YAML path: --set workload.nodes=8");

    std::string agree_file, agree_out;
    std::vector<std::string> agree_overrides;
    int agree_samples = 100;
    std::uint64_t agree_seed = 1;
    auto* agree = cli.add_subcommand(
        "agree", "analytic vs DES on random feasible placements of a study (r, rho, differences)");
    agree->add_option("study", agree_file, "study YAML")->required();
    agree->add_option("--samples", agree_samples, "random placements to compare (default 100)")
        ->check(kAgreeSamples);
    agree->add_option("--seed", agree_seed, "seed of the random placements (default 1)")
        ->check(kSeed);
    agree->add_option("--out", agree_out, "output directory (default: out/<study>_agree)");
    agree->add_option("--set", agree_overrides, "override a YAML path: --set samples=4");

    app::PlaceRequest place_request;
    auto* place = cli.add_subcommand(
        "place",
        "run one tarnawski2020 split solver on a workload JSON or a study YAML, or any placer "
        "on a classic task-graph instance");
    place
        ->add_option("workload", place_request.workload,
                     "tarnawski2020 workload JSON, a study YAML (its graph and platform), or a "
                     "task-graph instance JSON ({\"processors\", \"tasks\", \"edges\"})")
        ->required();
    place
        ->add_option("--placer", place_request.placer,
                     "split solver (tarnawski.dp, ...); on a task-graph instance any placer "
                     "(replay:<file>, random, ...)")
        ->required();
    place->add_option("--objective", place_request.objective,
                      "throughput | latency (default: throughput, or the study's)");
    place
        ->add_option("--time-limit", place_request.time_limit_s,
                     "seconds for searching solvers (MIPs, local search)")
        ->check(kFiniteNonNegative)
        ->check(kTimeLimit);
    place->add_option("--gap", place_request.relative_gap, "relative MIP gap to stop at")
        ->check(kFiniteNonNegative);
    place->add_option("--seed", place_request.seed, "seed of randomised solvers")->check(kSeed);
    place->add_option("--out", place_request.out,
                      "write the split here (experts/ JSON format); for a task-graph instance "
                      "the makespan and schedule");
    place->add_option("--set", place_request.overrides,
                      "study override: --set workload.seq_len=32");
    place
        ->add_option("--processors", place_request.processors,
                     "identical processors for a .stg (Standard Task Graph Set) or WfCommons "
                     "task graph")
        ->check(CLI::Range(1, 4096));
    place->add_option("--bandwidth", place_request.bandwidth,
                      "link bandwidth between the processors of a WfCommons workflow (default "
                      "1 GB/s)");

    app::TrainRequest train_request;
    auto* train = cli.add_subcommand(
        "train", "pre-train a learning placer on a dataset (mcm.rl: mcm2022 §4.3)");
    train->add_option("placer", train_request.placer, "the placer to train: mcm.rl")->required();
    train->add_option("--dataset", train_request.dataset, "`hetsim dataset build` output folder")
        ->required();
    train->add_option("--out", train_request.out, "checkpoint folder")->required();
    train->add_option("--samples", train_request.samples,
                      "training samples (default 20000, mcm2022 §5.2)");
    train->add_option("--platform", train_request.platform,
                      "platform YAML with the chiplet ring (default platforms/mcm36.yaml)");
    train->add_flag("--resume", train_request.resume, "continue from OUT/last.pt");
    train->add_option("--checkpoints", train_request.checkpoints,
                      "checkpoints over the run, each validated (default 200, §5.2)");
    train->add_option("--val-zero-shot", train_request.validation_zero_shot,
                      "zero-shot samples per validation graph (default 20)");
    train->add_option("--val-finetune", train_request.validation_finetune,
                      "fine-tune samples per validation graph (default 40)");
    train->add_option("--select", train_request.select,
                      "validation score that picks best.pt: finetune | zero-shot");
    train
        ->add_option("--fix-order", train_request.fix_order,
                     "node order of FIX: topological_then_random (default) | topological | random "
                     "(mcm2022 §4.2's default)")
        ->check(CLI::IsMember(placement::mcm::rl::fix_order_names()));
    train->add_option("--layers", train_request.sage_layers, "GraphSAGE layers (default 8)");
    train->add_option("--hidden", train_request.hidden, "layer width (default 128)");
    train->add_option("--rounds", train_request.rounds, "rounds T of Eq. 7 (default 3)");
    train->add_option("--rollouts", train_request.rollouts, "rollouts per PPO update (default 20)");
    train->add_option("--minibatches", train_request.minibatches, "PPO mini-batches (default 4)");
    train->add_option("--epochs", train_request.epochs, "PPO epochs per update (default 10)");
    train->add_option("--entropy", train_request.entropy,
                      "PPO entropy bonus per op (default 0.01); kept in the checkpoint, so "
                      "fine-tuning uses it too");
    train->add_option("--risk-epsilon", train_request.risk_epsilon,
                      "risk-seeking PPO: train on the best share ε of each update's rollouts, "
                      "against their threshold (default 1: every rollout, against the mean)");
    train->add_option("--seed", train_request.seed, "seed (default 1)")->check(kSeed);
    train
        ->add_option("--time-limit", train_request.time_limit_s,
                     "seconds; checkpoint and stop once reached")
        ->check(kFiniteNonNegative)
        ->check(kTimeLimit);
    train->add_flag("--deterministic", train_request.deterministic,
                    "leave the wall-clock fields out of the checkpoints and train_log.csv, so "
                    "the same inputs and seed give the same bytes");

    // An empty value (`--out ''`) named nothing: each command read it differently (the current
    // folder, the default, nothing written). Every option and argument that takes a value
    // refuses it.
    const std::function<void(CLI::App*)> refuse_empty_values = [&](CLI::App* command) {
        for (CLI::Option* option : command->get_options())
            if (option->get_type_size_max() > 0)
                option->check(kNotEmpty);
        for (CLI::App* sub : command->get_subcommands([](CLI::App*) { return true; }))
            refuse_empty_values(sub);  // `dataset build`
    };
    refuse_empty_values(&cli);
    try {
        cli.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help exits 0 with CLI11's text; every parse error is bad input: one line, exit 2.
        if (e.get_exit_code() == 0)
            return cli.exit(e);
        std::cerr << "hetsim: error: " << e.what() << " (hetsim --help lists the commands)\n";
        return kInputErrorExit;
    }
    try {
        if (run->parsed()) {
            // Options of the trace, without one to write, would be ignored.
            for (const char* option : {"--trace-format", "--trace-limit"}) {
                if (run->count(option) > 0 && !trace)
                    throw sim::InputError("", option, 0, "applies with --trace only");
            }
            double limit_bytes = static_cast<double>(traces::kDefaultTraceLimitBytes);
            try {
                if (!trace_limit.empty())
                    limit_bytes = sim::parse_quantity(trace_limit, sim::Quantity::data_size);
            } catch (const sim::UnitError& e) {
                throw sim::InputError("", "--trace-limit", 0, e.what());
            }
            // Before the study runs, not when its traces are written.
            // (parse_quantity keeps a data size in 0 .. 8 EiB: it fits a size_t.)
            traces::check_trace_limit(static_cast<std::size_t>(limit_bytes));
            (void)traces::make_trace_writer(trace_format);  // an unknown format is bad input
            return cmd_run(study_file.empty() ? default_study() : study_file, overrides, out_dir,
                           trace, static_cast<std::size_t>(limit_bytes), trace_format,
                           keep_infeasible, deterministic);
        }
        if (sweep->parsed()) {
            int exit_code = 0;
            std::cout << app::run_sweep(sweep_request, std::cerr, isatty(STDERR_FILENO) != 0,
                                        exit_code);
            return exit_code;
        }
        if (compare->parsed()) {
            int exit_code = 0;
            std::cout << app::run_compare(compare_request, std::cerr, isatty(STDERR_FILENO) != 0,
                                          exit_code);
            return exit_code;
        }
        if (report->parsed()) {
            std::cout << app::write_report(report_dir, std::cerr, report_options);
            return 0;
        }
        if (calibrate->parsed() && !calibrate_fit.empty()) {
            app::register_all();
            app::FitRequest request{calibrate_file,
                                    calibrate_fit,
                                    calibrate_devices,
                                    calibrate_out,
                                    calibrate_folds,
                                    calibrate_fixed,
                                    calibrate->count("--folds") > 0,
                                    calibrate_starts};
            const app::FitReport report = app::fit_platform(request);
            std::cout << app::format_fit(report);
            if (!calibrate_out.empty())
                std::cout << fmt::format("fitted platform written to {}\n", calibrate_out);
            return 0;
        }
        if (calibrate->parsed() && !calibrate_check.empty()) {
            app::register_all();
            const app::CheckReport report =
                app::check_platform(calibrate_file, calibrate_check, calibrate_out);
            std::cout << app::format_check(report);
            if (!calibrate_out.empty())
                std::cout << fmt::format("rows written to {}/calibration.csv\n", calibrate_out);
            return 0;
        }
        if (calibrate->parsed() && !calibrate_bound.empty()) {
            if (!calibrate_out.empty())
                throw sim::InputError("", "--out", 0, "applies to --fit and --check only");
            app::register_all();
            std::cout << app::format_bound(app::bound_platform(calibrate_file, calibrate_bound));
            return 0;
        }
        if (calibrate->parsed()) {
            if (!calibrate_out.empty())
                throw sim::InputError("", "--out", 0, "applies to --fit and --check only");
            app::register_all();
            const std::string platform_name = sim::load_platform(calibrate_file).name;
            const auto sets = app::measurement_sets(platform_name);
            if (!sets.empty()) {
                // A fitted platform: its fit set and held-out rows, measured vs predicted.
                for (const auto& set : sets) {
                    const auto csv = sim::find_config_file(set.path);
                    if (!csv)
                        throw sim::InputError("", "", 0, "cannot find configs/" + set.path);
                    std::cout << "== " << set.label << "\n"
                              << app::format_check(
                                     app::check_platform(calibrate_file, csv->string(), ""))
                              << "\n";
                }
                const auto published = app::calibrated_platforms();
                if (std::find(published.begin(), published.end(), platform_name) == published.end())
                    return 0;
            }
            const app::CalibrationReport report =
                app::calibrate(sim::load_platform(calibrate_file));
            std::cout << app::format_calibration(report);
            return report.all_within_widened() && report.all_trends_hold() ? 0 : 1;
        }
        if (list->parsed())
            return cmd_list(list_what);
        if (check->parsed()) {
            const app::PartitionVerdict verdict =
                app::check_partition(check_study, check_overrides, check_file);
            std::cout << verdict.report;
            return verdict.valid ? 0 : 1;
        }
        if (agree->parsed()) {
            const app::StudyConfig study = app::load_study(agree_file, agree_overrides);
            const app::AgreementReport report =
                app::measure_agreement(study, agree_samples, agree_seed);
            const fs::path out_dir =
                agree_out.empty() ? fs::path("out") / (study.name + "_agree") : fs::path(agree_out);
            const std::string note = app::write_agreement(report, out_dir);
            std::cout << app::format_agreement(report)
                      << fmt::format("results in {}/ (agreement.csv; {})\n", out_dir.string(),
                                     note);
            return 0;
        }
        if (place->parsed()) {
            std::cout << app::place(place_request, std::cerr);
            return 0;
        }
        if (inspect->parsed()) {
            if (inspect_ideals || inspect->count("--ideals-limit") > 0)
                inspect_request.ideals_limit = inspect_ideals_limit;
            std::cout << app::inspect(inspect_request);
            return 0;
        }
        if (train->parsed()) {
            if (train_request.platform.empty())
                train_request.platform = shipped_config("platforms/mcm36.yaml");
            std::cout << app::train(train_request, std::cerr, isatty(STDERR_FILENO) != 0);
            return 0;
        }
        if (dataset_build->parsed()) {
            std::cout << app::build_dataset(dataset_request, std::cerr);
            return 0;
        }
    } catch (const std::exception& e) {
        // Bad input: one line and exit code 2. Anything else is a hetsim bug: say so. On a
        // terminal the line replaces a status line a long run may have left.
        if (isatty(STDERR_FILENO))
            std::cerr << "\r\033[K";
        std::cerr << (is_input_error(e) ? "hetsim: error: " : "hetsim: internal error: ")
                  << e.what() << "\n";
        return is_input_error(e) ? kInputErrorExit : 1;
    }
    return 0;
}
