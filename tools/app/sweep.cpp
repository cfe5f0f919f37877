#include "tools/app/sweep.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/config.hpp"
#include "sweep/design_space.hpp"
#include "sweep/results_store.hpp"
#include "sweep/runner.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace fs = std::filesystem;

std::string run_sweep(const SweepRequest& request, std::ostream& progress, bool terminal,
                      int& exit_code) {
    const sweep::SweepSpec spec = sweep::load_sweep(request.file);
    const sweep::DesignSpace space = sweep::enumerate_points(spec);
    // The base study with the first point's values: a bad study or axis path is bad input now.
    const std::string study_file = spec.study.string();
    {
        const sim::ConfigNode base = sim::ConfigNode::load_file(spec.study);
        if (base.has("points")) {
            base.at("points").fail(
                "a sweep's study cannot list `points:`; make them axes of the sweep");
        }
    }
    const StudyConfig first = load_study(study_file, space.points.front().assignments);

    const fs::path out = request.out.empty() ? fs::path("out") / spec.name : fs::path(request.out);
    if (sweep::writes_results()) {
        nlohmann::ordered_json manifest;
        manifest["sweep"] = spec.name;
        manifest["file"] = fs::absolute(spec.file).string();
        manifest["study"] = fs::absolute(spec.study).string();
        const std::vector<std::string> paths = spec.axis_paths();
        // `axes`: the results.csv columns (what tools/plot.py reads); `axis_paths`: the paths.
        manifest["axes"] = sweep::axis_columns(results_csv_columns(), paths);
        manifest["axis_paths"] = paths;
        manifest["points"] = space.points.size();
        manifest["removed_by_where"] = space.skipped;
        manifest["sampling"] = sweep::to_string(spec.sampling);
        fs::create_directories(out);
        write_file_atomically(out / "sweep.json", manifest.dump(2) + "\n");
        progress << fmt::format(
                        "sweep {}: {} points ({}{}) of {}, {} worker(s){}\n", spec.name,
                        space.points.size(), sweep::to_string(spec.sampling),
                        space.skipped ? fmt::format(", {} removed by where", space.skipped) : "",
                        study_file, request.jobs, sweep::under_mpi() ? " per MPI rank" : "")
                 << std::flush;
    }

    sweep::RunOptions options;
    options.out_dir = out;
    options.jobs = request.jobs;
    options.resume = request.resume || request.retry_failed;
    options.retry_failed = request.retry_failed;
    options.program = fs::read_symlink("/proc/self/exe");
    options.study_name = first.name;
    options.study_header = results_csv_columns();
    options.log = &progress;
    options.terminal = terminal;
    const sweep::SweepSummary s = sweep::run_sweep(spec, space, options);
    if (!s.writer) {
        exit_code = 0;
        return "";
    }
    exit_code = s.interrupted ? 130 : (s.failed > 0 ? 1 : 0);
    std::string text = fmt::format(
        "sweep {}: {} points: {} ran ok, {} failed, {} already done{} in {:.1f} s\nresults in "
        "{}/ (results.csv, results.jsonl, points/<id>/)\n",
        spec.name, s.total, s.ok, s.failed, s.skipped,
        s.not_run ? fmt::format(", {} not run", s.not_run) : "", s.seconds, out.string());
    if (s.interrupted)
        text += fmt::format("interrupted: `hetsim sweep {} --resume{}` continues it\n",
                            request.file, request.out.empty() ? "" : " --out " + request.out);
    if (s.failed > 0)
        text +=
            "failed points have status=failed and the reason in `error`; --retry-failed "
            "runs them again\n";
    return text;
}

}  // namespace hetsim::app
