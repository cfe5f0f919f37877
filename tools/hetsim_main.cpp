// The `hetsim` command (CLI11). Bad input ends with one message and exit code 2.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "placement/placer.hpp"
#include "sim/config.hpp"
#include "sim/exec_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tools/app/calibrate.hpp"
#include "tools/app/inspect.hpp"
#include "tools/app/place.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/study.hpp"

namespace fs = std::filesystem;
using namespace hetsim;  // a .cpp file, not a header

namespace {

constexpr int kInputErrorExit = 2;

// The exception types that mean "the user's input is wrong" (usage.md "Errors").
bool is_input_error(const std::exception& e) {
    return dynamic_cast<const sim::InputError*>(&e) != nullptr ||
           dynamic_cast<const sim::GraphError*>(&e) != nullptr ||
           dynamic_cast<const placement::PlacementError*>(&e) != nullptr ||
           dynamic_cast<const sim::LoweringError*>(&e) != nullptr ||
           dynamic_cast<const std::invalid_argument*>(&e) != nullptr;
}

std::string default_study() {
    const fs::path local = "configs/studies/default.yaml";
    if (fs::exists(local))
        return local.string();
#ifdef HETSIM_SOURCE_DIR
    const fs::path installed = fs::path(HETSIM_SOURCE_DIR) / local;
    if (fs::exists(installed))
        return installed.string();
#endif
    return local.string();
}

int cmd_run(const std::string& file, const std::vector<std::string>& overrides,
            const std::string& out, bool trace) {
    std::vector<app::PointRun> runs;
    for (auto& point : app::load_study_points(file, overrides)) {
        app::StudyResult result = app::run_study(point, trace);
        runs.push_back(app::PointRun{std::move(point), std::move(result)});
    }
    const auto& first = runs.front().config;
    const fs::path out_dir = out.empty() ? fs::path("out") / first.name : fs::path(out);
    app::write_outputs(runs, out_dir, trace);
    for (const auto& [study, result] : runs)
        std::cout << app::format_table(study, result);
    std::cout << fmt::format("results in {}/ (results.csv, results.json, placement_*.json{})\n",
                             out_dir.string(), trace ? ", *.trace.json" : "");
    return 0;
}

int cmd_list(const std::string& what) {
    app::register_all();
    if (what == "placers") {
        for (const auto* p : placement::PlacerRegistry::instance().all()) {
            std::cout << fmt::format("{:<28} {}\n", p->usage, p->description);
            for (const std::string& line : p->argument_help)
                std::cout << fmt::format("    {}\n", line);
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
    } else {
        throw sim::InputError(
            "", "", 0, fmt::format("cannot list '{}'; expected placers, devices or models", what));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App cli{"hetsim: simulate heterogeneous DL hardware and compare operator placements"};
    cli.require_subcommand(1);

    std::string study_file, out_dir;
    std::vector<std::string> overrides;
    bool trace = false;
    auto* run = cli.add_subcommand("run", "run a study: place, simulate, report");
    run->add_option("study", study_file, "study YAML (default: configs/studies/default.yaml)");
    run->add_option("--set", overrides, "override a YAML path: --set workload.seq_len=32");
    run->add_option("--out", out_dir, "output directory (default: out/<study>)");
    run->add_flag("--trace", trace, "write a Perfetto trace per placer");

    std::string list_what;
    auto* list = cli.add_subcommand("list", "list placers, devices (component types) or models");
    list->add_option("what", list_what, "placers | devices | models")->required();

    std::string workload;
    std::vector<std::string> knobs;
    auto* inspect = cli.add_subcommand("inspect", "graph statistics of a workload");
    inspect->add_option("workload", workload, "a model name (bert, gpt2, ...) or a study YAML")
        ->required();
    inspect->add_option("--set", knobs, "model knob or study override: --set seq_len=32");

    std::string calibrate_file;
    auto* calibrate = cli.add_subcommand(
        "calibrate", "simulated vs published figures of a platform (exit 1 if they do not hold)");
    calibrate->add_option("platform", calibrate_file, "platform YAML")->required();

    app::PlaceRequest place_request;
    auto* place = cli.add_subcommand(
        "place", "run one tarnawski2020 split solver on a workload JSON or a study YAML");
    place
        ->add_option("workload", place_request.workload,
                     "tarnawski2020 workload JSON, or a study YAML (its graph and platform)")
        ->required();
    place->add_option("--placer", place_request.placer, "split solver: tarnawski.dp, greedy, ...")
        ->required();
    place->add_option("--objective", place_request.objective,
                      "throughput | latency (default: throughput, or the study's)");
    place->add_option("--time-limit", place_request.time_limit_s,
                      "seconds for searching solvers (MIPs, local search)");
    place->add_option("--gap", place_request.relative_gap, "relative MIP gap to stop at");
    place->add_option("--seed", place_request.seed, "seed of randomised solvers");
    place->add_option("--out", place_request.out, "write the split here (experts/ JSON format)");
    place->add_option("--set", place_request.overrides,
                      "study override: --set workload.seq_len=32");

    CLI11_PARSE(cli, argc, argv);
    try {
        if (run->parsed()) {
            return cmd_run(study_file.empty() ? default_study() : study_file, overrides, out_dir,
                           trace);
        }
        if (calibrate->parsed()) {
            app::register_all();
            const app::CalibrationReport report =
                app::calibrate(sim::load_platform(calibrate_file));
            std::cout << app::format_calibration(report);
            return report.all_within_widened() && report.all_trends_hold() ? 0 : 1;
        }
        if (list->parsed())
            return cmd_list(list_what);
        if (place->parsed()) {
            std::cout << app::place(place_request, std::cerr);
            return 0;
        }
        if (inspect->parsed()) {
            std::cout << app::inspect_workload(workload, knobs);
            return 0;
        }
    } catch (const std::exception& e) {
        // Bad input: one line and exit code 2. Anything else is a hetsim bug: say so.
        std::cerr << (is_input_error(e) ? "hetsim: error: " : "hetsim: internal error: ")
                  << e.what() << "\n";
        return is_input_error(e) ? kInputErrorExit : 1;
    }
    return 0;
}
