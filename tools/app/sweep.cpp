#include "tools/app/sweep.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/digest.hpp"
#include "sim/progress.hpp"
#include "sim/version.hpp"
#include "sweep/design_space.hpp"
#include "sweep/results_store.hpp"
#include "sweep/runner.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace fs = std::filesystem;

void write_sweep_manifest(const fs::path& out, const SweepManifest& m) {
    nlohmann::ordered_json manifest;
    manifest["sweep"] = m.name;
    manifest["hetsim"] = {{"version", sim::version()}, {"commit", sim::git_commit()}};
    if (m.compare)
        manifest["compare"] = true;
    manifest["file"] = fs::absolute(m.file).string();
    manifest["study"] = fs::absolute(m.study).string();
    manifest["axes"] = sweep::axis_columns(results_csv_columns(), m.axis_paths);
    manifest["axis_paths"] = m.axis_paths;
    manifest["points"] = m.points;
    manifest["removed_by_where"] = m.removed_by_where;
    manifest["sampling"] = m.sampling;
    if (!m.study_digests.empty()) {
        nlohmann::ordered_json digests = nlohmann::ordered_json::object();
        for (const auto& [id, digest] : m.study_digests)
            digests[id] = digest;
        manifest["study_digests"] = digests;
    }
    try {
        sim::create_output_folder(out);
        write_file_atomically(out / "sweep.json", manifest.dump(2) + "\n");
    } catch (const std::exception& e) {
        throw sim::InputError("", "--out", 0, sim::write_failure_message(e, out));
    }
}

std::string study_digest(const StudyConfig& config) {
    YAML::Emitter text;
    text << config.resolved;
    return fmt::format("{:016x}", sim::fnv1a_64(text.c_str()));
}

std::optional<sweep::RunOptions::Recorded> record_study_digests(
    const fs::path& out, const std::vector<sweep::DesignPoint>& points, bool resume,
    SweepManifest& manifest) {
    for (const sweep::DesignPoint& point : points)
        manifest.study_digests.emplace_back(point.id, point.study_digest);
    if (!resume)
        return std::nullopt;
    // The points of an earlier version of the sweep keep their rows (ResultsStore::sort), and
    // their digests with them.
    sweep::RunOptions::Recorded recorded = read_recorded_studies(out);
    recorded.current_study = fs::absolute(manifest.study).string();
    std::set<std::string> ids;
    for (const sweep::DesignPoint& point : points)
        ids.insert(point.id);
    for (const auto& [id, digest] : recorded.digests) {
        if (!ids.count(id))
            manifest.study_digests.emplace_back(id, digest);
    }
    return recorded;
}

sweep::RunOptions::Recorded read_recorded_studies(const fs::path& out) {
    sweep::RunOptions::Recorded recorded;
    recorded.manifest = out / "sweep.json";
    nlohmann::json j;
    try {
        if (!fs::is_regular_file(recorded.manifest))
            return recorded;
        j = nlohmann::json::parse(sim::read_text_file(recorded.manifest));
    } catch (const std::exception&) {
        return recorded;  // unreadable: nothing recorded
    }
    if (!j.is_object())
        return recorded;
    recorded.found = true;
    if (j.contains("study") && j["study"].is_string())
        recorded.study = j["study"].get<std::string>();
    if (j.contains("study_digests") && j["study_digests"].is_object()) {
        for (const auto& [id, digest] : j["study_digests"].items()) {
            if (digest.is_string())
                recorded.digests[id] = digest.get<std::string>();
        }
    }
    return recorded;
}

sweep::RunOptions worker_options(const fs::path& out, int jobs, bool resume,
                                 const std::string& study_name, std::ostream& progress,
                                 bool terminal) {
    sweep::RunOptions options;
    options.out_dir = out;
    options.jobs = jobs;
    options.resume = resume;
    options.program = fs::read_symlink("/proc/self/exe");
    options.study_name = study_name;
    options.study_header = results_csv_columns();
    options.log = &progress;
    options.terminal = terminal;
    return options;
}

ManifestWrite::ManifestWrite(const fs::path& out, const SweepManifest& manifest)
    : file_(out / "sweep.json") {
    created_dir_ = !fs::exists(out);
    if (fs::is_regular_file(file_))
        old_ = sim::read_text_file(file_);
    write_sweep_manifest(out, manifest);
}

ManifestWrite::~ManifestWrite() {
    if (kept_)
        return;
    std::error_code ec;
    if (old_) {
        try {
            write_file_atomically(file_, *old_);
        } catch (const std::exception&) {
            // Best effort on the way out of a refused sweep.
        }
    } else {
        fs::remove(file_, ec);
    }
    if (created_dir_)
        fs::remove(file_.parent_path(), ec);  // only when empty: nothing else was written
}

std::string run_sweep(const SweepRequest& request, std::ostream& progress, bool terminal,
                      int& exit_code) {
    const sweep::SweepSpec spec = sweep::load_sweep(request.file);
    sweep::DesignSpace space = sweep::enumerate_points(spec);
    // The base study with the first point's values: a bad study or axis path is bad input now.
    const std::string study_file = spec.study.string();
    {
        const sim::ConfigNode base = sim::ConfigNode::load_file(spec.study);
        if (base.has("points")) {
            base.at("points").fail(
                "a sweep's study cannot list `points:`; make them axes of the sweep");
        }
    }
    // Every point is built and checked before any runs: a bad value on a later axis is bad
    // input now (exit 2, nothing written), not a failure of each of its points later.
    // Checking takes about 4 ms a point (a BERT study): past 2 s it shows how far it is, on a
    // terminal as a bar with an ETA, otherwise as a line every 10 %.
    std::string first_name;
    const auto check_start = std::chrono::steady_clock::now();
    auto last_shown = check_start;
    std::size_t last_tenth = 0;
    bool shown = false;
    for (std::size_t i = 0; i < space.points.size(); ++i) {
        sweep::DesignPoint& point = space.points[i];
        if (i % 64 == 0 && i > 0) {
            const auto now = std::chrono::steady_clock::now();
            const double elapsed = std::chrono::duration<double>(now - check_start).count();
            const double fraction = static_cast<double>(i) / space.points.size();
            const std::size_t tenth = i * 10 / space.points.size();
            const std::string eta = sim::duration_text(elapsed * (1.0 - fraction) / fraction);
            if (elapsed >= 2.0 && terminal &&
                std::chrono::duration<double>(now - last_shown).count() >= 0.2) {
                last_shown = now;
                shown = true;
                progress << fmt::format("\r\033[Ksweep {}: checking the points {} {}/{}, ETA {}",
                                        spec.name, sim::progress_bar(fraction, 16), i,
                                        space.points.size(), eta)
                         << std::flush;
            } else if (elapsed >= 2.0 && !terminal && tenth > last_tenth) {
                progress << fmt::format("sweep {}: checked {} of {} points, ETA {}\n", spec.name, i,
                                        space.points.size(), eta)
                         << std::flush;
            }
            last_tenth = tenth;
        }
        try {
            const StudyConfig config = load_study(study_file, point.assignments);
            if (i == 0)
                first_name = config.name;
            point.study_digest = study_digest(config);
        } catch (const sim::InputError& e) {
            if (shown)
                progress << "\r\033[K" << std::flush;
            throw sim::InputError(spec.file.string(), "axes", 0,
                                  fmt::format("point {} of {} ({}) is not a valid study: {}", i + 1,
                                              space.points.size(), point.label(), e.what()));
        }
    }
    if (shown)
        progress << "\r\033[K" << std::flush;
    if (request.dry_run) {
        exit_code = 0;
        std::string text;
        for (const sweep::DesignPoint& point : space.points)
            text += fmt::format("{}  {}\n", point.id, point.label());
        return text +
               fmt::format("sweep {}: {} points ({}{}) of {}, every one a valid study\n", spec.name,
                           space.points.size(), sweep::to_string(spec.sampling),
                           space.skipped ? fmt::format(", {} removed by where", space.skipped) : "",
                           study_file);
    }

    const fs::path out = request.out.empty() ? fs::path("out") / spec.name : fs::path(request.out);
    const bool resume = request.resume || request.retry_failed;
    std::optional<ManifestWrite> manifest;
    std::optional<sweep::RunOptions::Recorded> recorded;
    std::string banner;
    if (sweep::writes_results()) {
        SweepManifest m{spec.name,
                        spec.file.string(),
                        spec.study.string(),
                        spec.axis_paths(),
                        space.points.size(),
                        space.skipped,
                        sweep::to_string(spec.sampling)};
        recorded = record_study_digests(out, space.points, resume, m);
        manifest.emplace(out, m);
        banner =
            fmt::format("sweep {}: {} points ({}{}) of {}, {} worker(s){}\n", spec.name,
                        space.points.size(), sweep::to_string(spec.sampling),
                        space.skipped ? fmt::format(", {} removed by where", space.skipped) : "",
                        study_file, request.jobs, sweep::under_mpi() ? " per MPI rank" : "");
    }

    sweep::RunOptions options =
        worker_options(out, request.jobs, resume, first_name, progress, terminal);
    options.banner = std::move(banner);
    options.recorded = std::move(recorded);
    options.retry_failed = request.retry_failed;
    if (request.deterministic)
        options.worker_arguments.push_back("--deterministic");
    const sweep::SweepSummary s = sweep::run_sweep(spec, space, options);
    if (manifest)
        manifest->keep();
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
