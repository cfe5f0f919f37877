#include "tools/app/compare.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "placement/placer.hpp"
#include "placement/placer_args.hpp"
#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/csv.hpp"
#include "sim/digest.hpp"
#include "sweep/design_space.hpp"
#include "sweep/results_store.hpp"
#include "sweep/runner.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/report.hpp"
#include "tools/app/study.hpp"
#include "tools/app/sweep.hpp"

namespace hetsim::app {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStudyAxis = "compare.study";
constexpr const char* kPlacerAxis = "compare.placer";

struct CompareStudy {
    fs::path file;
    std::string name, platform, objective, baseline, paper;
    std::vector<std::string> overrides;
    std::vector<std::string> placers;                          // to run, in order
    std::vector<std::pair<std::string, std::string>> not_run;  // (placer, why)
    std::string digest;  // of what its points run (compare_study_digest)
};

struct CompareSpec {
    std::string name;
    fs::path file;
    double timeout_s = 0.0;
    std::vector<CompareStudy> studies;
};

// The placers `all` stands for on one study: every registered placer that runs without
// arguments (with the file's `args` where it gives some), `single` once per device; a placer
// whose usage requires arguments is listed as not run, with its usage.
void expand_all(CompareStudy& study, const std::vector<std::string>& devices,
                const std::set<std::string>& exclude,
                const std::map<std::string, std::string>& args) {
    for (const placement::PlacerInfo* info : placement::PlacerRegistry::instance().all()) {
        if (exclude.count(info->name))
            continue;
        if (info->name == "single") {
            for (const std::string& device : devices)
                study.placers.push_back("single:" + device);
            continue;
        }
        if (const auto it = args.find(info->name); it != args.end()) {
            study.placers.push_back(info->name + ":" + it->second);
            continue;
        }
        const bool optional_arguments =
            info->usage == info->name ||
            (info->usage.size() > info->name.size() && info->usage[info->name.size()] == '[');
        if (optional_arguments) {
            study.placers.push_back(info->name);
        } else {
            study.not_run.emplace_back(
                info->name,
                fmt::format("needs arguments ({}); list it under `placers:`", info->usage));
        }
    }
}

// An `exclude:` list: placer names or specs ("mcmc", "single:CPU"), each of a registered
// placer, so that a misspelt one fails instead of excluding nothing.
std::set<std::string> excluded_placers(const sim::ConfigNode& node) {
    std::set<std::string> out;
    if (!node.defined())
        return out;
    const auto& registry = placement::PlacerRegistry::instance();
    std::vector<std::string> known;
    for (const placement::PlacerInfo* p : registry.all())
        known.push_back(p->name);
    const std::vector<std::string> names = node.as_string_list();
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string base = placement::split_placer_spec(names[i]).name;
        if (std::find(known.begin(), known.end(), base) == known.end()) {
            const std::string hint = sim::did_you_mean(base, known);
            (node.is_sequence() ? node.at(i) : node)
                .fail(fmt::format("no placer '{}' to exclude{}", base,
                                  hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
        }
        out.insert(names[i]);
    }
    return out;
}

// A study's `paper` names the placer family of the paper its workload comes from (the summary
// sets that family's best placer against the rest): one of the registered families.
void check_paper_family(const sim::ConfigNode& node, const std::string& paper) {
    std::vector<std::string> families;
    for (const auto& family : placement::PlacerRegistry::instance().families())
        families.push_back(family.name);
    if (std::find(families.begin(), families.end(), paper) != families.end())
        return;
    const std::string hint = sim::did_you_mean(paper, families);
    node.fail(fmt::format("no placer family '{}'{}; a study's paper is one of: {}", paper,
                          hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                          fmt::join(families, ", ")));
}

// What a compare's points run of a study, for `--resume` (sweep::RunOptions::recorded): the
// resolved study less its placers and baseline, which each point sets itself.
std::string compare_study_digest(const StudyConfig& config) {
    YAML::Node resolved = YAML::Clone(config.resolved);
    resolved.remove("placers");
    resolved.remove("baseline");
    YAML::Emitter text;
    text << resolved;
    return fmt::format("{:016x}", sim::fnv1a_64(text.c_str()));
}

CompareSpec load_compare(const fs::path& file) {
    const sim::ConfigNode root = sim::ConfigNode::load_file(file);
    root.expect_map();
    root.expect_keys(
        {"compare", "description", "timeout", "placers", "exclude", "args", "studies"});
    root.get_string("description", "");  // free text, but text: not a list or a map
    CompareSpec spec;
    spec.file = file;
    spec.name = root.at("compare").as_folder_name();
    if (root.has("timeout")) {
        spec.timeout_s = root.at("timeout").as_quantity(sim::Quantity::time);
        if (!(spec.timeout_s > 0.0))
            root.at("timeout").fail("the timeout must be positive");
    }
    const std::set<std::string> exclude = excluded_placers(root["exclude"]);
    std::map<std::string, std::string> args;
    if (root.has("args")) {
        const sim::ConfigNode a = root.at("args");
        a.expect_map();
        auto& registry = placement::PlacerRegistry::instance();
        for (const std::string& key : a.keys()) {
            try {
                registry.create(key + ":" + a.at(key).as_string());
            } catch (const placement::PlacementError& e) {
                a.at(key).fail(e.what());
            }
            args[key] = a.at(key).as_string();
        }
    }
    const sim::ConfigNode studies = root.at("studies");
    studies.expect_sequence();
    if (studies.size() == 0)
        studies.fail("expected at least one study");
    std::set<std::string> names;
    bool any_all = false;  // some study runs `placers: all`
    for (std::size_t i = 0; i < studies.size(); ++i) {
        const sim::ConfigNode entry = studies.at(i);
        CompareStudy study;
        sim::ConfigNode placers = root["placers"];
        std::set<std::string> study_exclude = exclude;
        sim::ConfigNode where = entry;
        if (entry.is_map()) {
            entry.expect_keys({"study", "paper", "set", "placers", "exclude"});
            where = entry.at("study");
            study.file = where.as_string();
            study.paper = entry.get_string("paper", "");
            if (entry.has("paper"))
                check_paper_family(entry.at("paper"), study.paper);
            if (entry.has("set"))
                study.overrides = entry.at("set").as_string_list();
            if (entry.has("placers"))
                placers = entry.at("placers");
            for (const std::string& name : excluded_placers(entry["exclude"]))
                study_exclude.insert(name);
        } else {
            study.file = entry.as_string();
        }
        if (study.file.is_relative())
            study.file = file.parent_path() / study.file;
        if (!fs::is_regular_file(study.file))
            where.fail(fmt::format("no such study file: '{}'", study.file.string()));
        StudyConfig config;
        try {
            config = load_study(study.file.string(), study.overrides);
        } catch (const sim::InputError& e) {
            // A mistake in one of `set:`'s assignments is reported at it, not at `study:`.
            if (entry.is_map() && entry.has("set") && e.file().starts_with("--set")) {
                const sim::ConfigNode set = entry.at("set");
                for (std::size_t k = 0; k < study.overrides.size(); ++k) {
                    const std::string& assignment = study.overrides[k];
                    const bool named = e.file() == "--set " + assignment ||
                                       (e.file() == "--set" && !e.yaml_path().empty() &&
                                        assignment.starts_with(e.yaml_path()));
                    if (!named)
                        continue;
                    const std::string what = e.file() == "--set" && !e.yaml_path().empty()
                                                 ? e.yaml_path() + ": " + e.message()
                                                 : e.message();
                    (set.is_sequence() ? set.at(k) : set)
                        .fail(fmt::format("study '{}': {}", study.file.string(), what));
                }
            }
            where.fail(fmt::format("study '{}': {}", study.file.string(), e.what()));
        }
        if (load_study_points(study.file.string(), study.overrides).size() > 1)
            where.fail(
                "a compare runs one design point per study; choose it with `set:` (the "
                "study's `points:` list more than one)");
        study.name = config.name;
        if (!names.insert(study.name).second)
            where.fail(fmt::format("study '{}' is listed twice", study.name));
        study.digest = compare_study_digest(config);
        study.platform = config.platform.name;
        study.objective =
            config.objective == placement::Objective::latency ? "latency" : "throughput";
        study.baseline = config.baseline;
        if (!placers.defined() || (placers.is_scalar() && placers.as_string() == "all")) {
            expand_all(study, config.platform.device_names(), study_exclude, args);
            any_all = true;
        } else {
            // A list, or one placer spec other than `all`. `exclude:` would be ignored beside
            // it: the list already says what runs.
            const bool own_list = entry.is_map() && entry.has("placers");
            if (entry.is_map() && entry.has("exclude"))
                entry.at("exclude").fail(
                    "`exclude:` applies to `placers: all`; leave the placer out of the list");
            if (!own_list && root.has("exclude"))
                root.at("exclude").fail(
                    "`exclude:` applies to `placers: all`; leave the placer out of the list");
            auto& registry = placement::PlacerRegistry::instance();
            const std::vector<std::string> listed = placers.as_string_list();
            if (listed.empty())
                placers.fail("an empty list would run only the baseline: list placers, or `all`");
            for (std::size_t k = 0; k < listed.size(); ++k) {
                if (std::find(listed.begin(), listed.begin() + static_cast<std::ptrdiff_t>(k),
                              listed[k]) != listed.begin() + static_cast<std::ptrdiff_t>(k))
                    placers.at(k).fail(fmt::format("placer '{}' is listed twice", listed[k]));
                try {
                    registry.create(listed[k]);
                } catch (const placement::PlacementError& e) {
                    (placers.is_sequence() ? placers.at(k) : placers).fail(e.what());
                }
                study.placers.push_back(listed[k]);
            }
        }
        // The baseline runs too: every speedup in the leaderboard is over it.
        if (std::find(study.placers.begin(), study.placers.end(), study.baseline) ==
            study.placers.end())
            study.placers.insert(study.placers.begin(), study.baseline);
        std::vector<std::string> unique;
        for (const std::string& p : study.placers) {
            if (std::find(unique.begin(), unique.end(), p) == unique.end())
                unique.push_back(p);
        }
        study.placers = std::move(unique);
        spec.studies.push_back(std::move(study));
    }
    // `args:` gives arguments to the placers `all` lists by name; with no study running `all`
    // they would be ignored.
    if (root.has("args") && !any_all)
        root.at("args").fail(
            "`args:` applies to the placers `placers: all` lists, and no study runs `all`; write "
            "the arguments into the listed specs (mcmc:samples=200)");
    return spec;
}

// A YAML single-quoted scalar: a placer spec may hold ',' and ':'.
std::string yaml_quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

sweep::DesignSpace compare_points(const CompareSpec& spec) {
    sweep::DesignSpace space;
    for (const CompareStudy& study : spec.studies) {
        for (const std::string& placer : study.placers) {
            sweep::DesignPoint p;
            p.index = space.points.size();
            p.values = {{kStudyAxis, study.name}, {kPlacerAxis, placer}};
            p.assignments = study.overrides;
            p.assignments.push_back("placers=[" + yaml_quoted(placer) + "]");
            p.assignments.push_back("baseline=" + yaml_quoted(placer));
            std::vector<std::string> identity = p.assignments;
            identity.insert(identity.begin(), "study=" + study.name);
            p.id = sweep::point_id(identity);
            p.study = study.file;
            p.study_name = study.name;
            p.study_digest = study.digest;
            space.points.push_back(std::move(p));
        }
    }
    return space;
}

std::string family_of(const std::string& spec) {
    const std::string name = placement::split_placer_spec(spec).name;
    for (const placement::PlacerInfo* info : placement::PlacerRegistry::instance().all()) {
        if (info->name == name)
            return info->family;
    }
    return "";
}

// The list schedulers and ML-placement heuristics of issue 28, which none of the five papers
// compared against: the leaderboard's summary sets the best of them against each paper's own.
bool is_classic_scheduler(const LeaderboardRow& row) {
    const std::string name = placement::split_placer_spec(row.placer).name;
    static const std::set<std::string> names{"heft", "cpop", "peft", "etf", "mcmc"};
    return names.count(name) != 0 || row.family == "baechi";
}

int status_order(const std::string& status) {
    static const std::vector<std::string> order{"ok",      "infeasible", "n/a",
                                                "not run", "timeout",    "failed"};
    const auto it = std::find(order.begin(), order.end(), status);
    return static_cast<int>(it - order.begin());
}

double objective_value(const LeaderboardRow& row) {
    return row.objective == "throughput" ? row.throughput_per_s.value_or(0.0)
                                         : row.latency_s.value_or(0.0);
}

// Ranks, gaps, speedups and the best-known label within each study; sorts each study's rows.
void rank_study(std::vector<LeaderboardRow>& rows, const std::string& baseline) {
    const bool throughput = !rows.empty() && rows.front().objective == "throughput";
    const auto better = [&](double a, double b) { return throughput ? a > b : a < b; };
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
        if (status_order(a.status) != status_order(b.status))
            return status_order(a.status) < status_order(b.status);
        if (a.status == "ok")
            return better(objective_value(a), objective_value(b));
        return false;
    });
    const LeaderboardRow* base = nullptr;
    for (const auto& r : rows) {
        if (r.placer == baseline && r.status == "ok")
            base = &r;
    }
    const std::optional<double> base_value =
        base ? std::optional<double>(objective_value(*base)) : std::nullopt;
    int rank = 0;
    double best = 0.0;
    for (auto& r : rows) {
        if (r.status != "ok")
            continue;
        const double v = objective_value(r);
        if (rank == 0)
            best = v;
        r.rank = ++rank;
        if (best > 0.0 && v > 0.0)
            r.gap_to_best = throughput ? best / v - 1.0 : v / best - 1.0;
        if (base_value && *base_value > 0.0 && v > 0.0)
            r.speedup = throughput ? v / *base_value : *base_value / v;
    }
    if (rank == 0)
        return;
    bool exhaustive_attains = false;
    for (const auto& r : rows) {
        if (r.status == "ok" && placement::split_placer_spec(r.placer).name == "exhaustive" &&
            r.gap_to_best && *r.gap_to_best <= 1e-9)
            exhaustive_attains = true;
    }
    rows.front().best_kind = exhaustive_attains ? "optimum (exhaustive)" : "best found";
}

// A CSV of a compare's output folder; a file that is no CSV is named with its line.
std::vector<sim::CsvRow> read_output_csv(const fs::path& file) {
    std::istringstream in(sim::read_text_file(file));
    try {
        return sim::read_csv(in);
    } catch (const sim::CsvError& e) {
        throw sim::InputError(file.string(), "", e.line(), e.reason());
    }
}

std::vector<LeaderboardRow> build_leaderboard(const CompareSpec& spec, const fs::path& dir) {
    const std::vector<sim::CsvRow> csv = read_output_csv(dir / "results.csv");
    std::map<std::pair<std::string, std::string>, std::vector<const sim::CsvRow*>> by_point;
    std::map<std::string, std::size_t> col;
    if (!csv.empty()) {
        for (std::size_t i = 0; i < csv.front().size(); ++i)
            col[csv.front()[i]] = i;
        for (const char* needed : {kStudyAxis, kPlacerAxis, "status", "error", "point"}) {
            if (!col.count(needed))
                throw sim::InputError(
                    (dir / "results.csv").string(), "", 0,
                    fmt::format("no column '{}': not a compare's results", needed));
        }
        for (std::size_t i = 1; i < csv.size(); ++i) {
            by_point[{csv[i].at(col[kStudyAxis]), csv[i].at(col[kPlacerAxis])}].push_back(&csv[i]);
        }
    }
    const auto cell = [&](const sim::CsvRow& row, const std::string& name) {
        const auto it = col.find(name);
        return it == col.end() ? std::string() : row.at(it->second);
    };
    std::vector<LeaderboardRow> all;
    for (const CompareStudy& study : spec.studies) {
        std::vector<LeaderboardRow> rows;
        const auto base_row = [&](const std::string& placer) {
            LeaderboardRow r;
            r.study = study.name;
            r.platform = study.platform;
            r.objective = study.objective;
            r.paper = study.paper;
            r.placer = placer;
            r.family = family_of(placer);
            return r;
        };
        for (const std::string& placer : study.placers) {
            LeaderboardRow r = base_row(placer);
            const auto it = by_point.find({study.name, placer});
            if (it == by_point.end()) {
                r.status = "not run";
                r.reason = "not run yet: the compare was interrupted (--resume continues it)";
                rows.push_back(std::move(r));
                continue;
            }
            const sim::CsvRow& row = *it->second.back();
            if (cell(row, "status") == "ok") {
                r.latency_s = sim::csv_number(cell(row, "latency_s"));
                r.throughput_per_s = sim::csv_number(cell(row, "throughput_per_s"));
                r.placer_time_s = sim::csv_number(cell(row, "placer_time_s"));
                if (cell(row, "feasible") == "1") {
                    r.status = "ok";
                } else {
                    r.status = "infeasible";
                    r.reason = cell(row, "infeasible_reason");
                }
            } else {
                const std::string error = cell(row, "error");
                const std::string last =
                    sim::last_nonblank_line(dir / "points" / cell(row, "point") / "log.txt");
                r.reason = error;
                if (error.starts_with("timed out"))
                    r.status = "timeout";
                else if (last.starts_with("hetsim: error: "))
                    r.status = "n/a";  // exit 2: the placer refuses this study, and says why
                else
                    r.status = "failed";
            }
            rows.push_back(std::move(r));
        }
        for (const auto& [placer, why] : study.not_run) {
            LeaderboardRow r = base_row(placer);
            r.status = "not run";
            r.reason = why;
            rows.push_back(std::move(r));
        }
        rank_study(rows, study.baseline);
        all.insert(all.end(), rows.begin(), rows.end());
    }
    return all;
}

const std::vector<std::string>& leaderboard_columns() {
    static const std::vector<std::string> columns{
        "study",   "platform",    "objective",     "paper",      "rank",
        "placer",  "family",      "status",        "latency_s",  "throughput_per_s",
        "speedup", "gap_to_best", "placer_time_s", "best_known", "reason"};
    return columns;
}

std::string optional_cell(const std::optional<double>& v) {
    return v ? fmt::format("{:.9g}", *v) : std::string();
}

std::string leaderboard_csv(const std::vector<LeaderboardRow>& rows) {
    std::string out = fmt::format("{}\n", fmt::join(leaderboard_columns(), ","));
    for (const auto& r : rows) {
        const std::vector<std::string> fields{r.study,
                                              r.platform,
                                              r.objective,
                                              r.paper,
                                              r.rank > 0 ? std::to_string(r.rank) : "",
                                              r.placer,
                                              r.family,
                                              r.status,
                                              optional_cell(r.latency_s),
                                              optional_cell(r.throughput_per_s),
                                              optional_cell(r.speedup),
                                              optional_cell(r.gap_to_best),
                                              optional_cell(r.placer_time_s),
                                              r.best_kind,
                                              r.reason};
        std::string line;
        for (const auto& f : fields)
            line += (line.empty() ? "" : ",") + sim::csv_field(f);
        out += line + "\n";
    }
    return out;
}

std::string result_text(const LeaderboardRow& r) {
    if (r.objective == "throughput")
        return r.throughput_per_s ? fmt::format("{:.4g}/s", *r.throughput_per_s) : "";
    return r.latency_s ? human_time(*r.latency_s) : "";
}

std::string percent(const std::optional<double>& gap) {
    return gap ? fmt::format("{:.1f} %", 100.0 * *gap) : "";
}

// Rows grouped by study, in file order.
std::vector<std::vector<const LeaderboardRow*>> by_study(const std::vector<LeaderboardRow>& rows) {
    std::vector<std::vector<const LeaderboardRow*>> groups;
    for (const auto& r : rows) {
        if (groups.empty() || groups.back().front()->study != r.study)
            groups.emplace_back();
        groups.back().push_back(&r);
    }
    return groups;
}

// One summary line per study: the best placer, the best classic scheduler and the best of the
// paper's own family, with their gaps to the best-known.
struct SummaryLine {
    const LeaderboardRow* best = nullptr;
    const LeaderboardRow* classic = nullptr;
    const LeaderboardRow* paper = nullptr;
    int ok = 0, not_ok = 0;
};
SummaryLine summarize(const std::vector<const LeaderboardRow*>& group) {
    SummaryLine s;
    for (const LeaderboardRow* r : group) {
        if (r->status != "ok") {
            ++s.not_ok;
            continue;
        }
        ++s.ok;
        if (!s.best)
            s.best = r;
        if (!s.classic && is_classic_scheduler(*r))
            s.classic = r;
        if (!s.paper && !r->paper.empty() && r->family == r->paper)
            s.paper = r;
    }
    return s;
}

std::string with_gap(const LeaderboardRow* r) {
    if (!r)
        return "none ok";
    return fmt::format(
        "{} {} ({})", r->placer, result_text(*r),
        r->gap_to_best && *r->gap_to_best > 0.0 ? "+" + percent(r->gap_to_best) : "best");
}

}  // namespace

std::optional<std::vector<LeaderboardRow>> read_leaderboard(const fs::path& dir) {
    const fs::path file = dir / "leaderboard.csv";
    if (!fs::is_regular_file(file))
        return std::nullopt;
    const std::vector<sim::CsvRow> csv = read_output_csv(file);
    if (csv.empty() || csv.front() != leaderboard_columns())
        throw sim::InputError(
            file.string(), "", 1,
            fmt::format("expected the columns {}", fmt::join(leaderboard_columns(), ",")));
    std::vector<LeaderboardRow> rows;
    for (std::size_t i = 1; i < csv.size(); ++i) {
        const sim::CsvRow& c = csv[i];
        if (c.size() != leaderboard_columns().size())
            throw sim::InputError(
                file.string(), "", static_cast<int>(i + 1),
                fmt::format("expected {} cells, found {}", leaderboard_columns().size(), c.size()));
        LeaderboardRow r;
        r.study = c[0];
        r.platform = c[1];
        r.objective = c[2];
        r.paper = c[3];
        r.rank = c[4].empty() ? 0 : std::atoi(c[4].c_str());
        r.placer = c[5];
        r.family = c[6];
        r.status = c[7];
        r.latency_s = sim::csv_number(c[8]);
        r.throughput_per_s = sim::csv_number(c[9]);
        r.speedup = sim::csv_number(c[10]);
        r.gap_to_best = sim::csv_number(c[11]);
        r.placer_time_s = sim::csv_number(c[12]);
        r.best_kind = c[13];
        r.reason = c[14];
        rows.push_back(std::move(r));
    }
    return rows;
}

namespace {

// The leaderboard as tables of text, rendered once as Markdown and once as HTML.
struct TextTable {
    std::string title;  // a section heading ("" for none)
    std::string note;   // a paragraph under it
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

std::vector<TextTable> leaderboard_tables(const std::vector<LeaderboardRow>& rows) {
    std::vector<TextTable> tables;
    TextTable summary{"Summary",
                      "Per study the best placer, the best classic list scheduler or ML heuristic "
                      "(heft, cpop, peft, etf, mcmc, baechi.*) and the best placer of the paper "
                      "the workload comes from, each with its gap to the best-known result.",
                      {"study", "platform", "objective", "best known", "best classic scheduler",
                       "best of the paper", "ok / not"},
                      {}};
    const auto groups = by_study(rows);
    for (const auto& group : groups) {
        const SummaryLine s = summarize(group);
        const LeaderboardRow& first = *group.front();
        summary.rows.push_back({first.study, first.platform, first.objective,
                                s.best ? fmt::format("{} {} ({})", s.best->placer,
                                                     result_text(*s.best), s.best->best_kind)
                                       : "none ok",
                                with_gap(s.classic),
                                first.paper.empty() ? "" : first.paper + ": " + with_gap(s.paper),
                                fmt::format("{} / {}", s.ok, s.not_ok)});
    }
    tables.push_back(std::move(summary));
    for (const auto& group : groups) {
        const LeaderboardRow& first = *group.front();
        TextTable t{fmt::format("{} ({}, {})", first.study, first.platform, first.objective),
                    "",
                    {"rank", "placer", "family", "status", first.objective, "speedup",
                     "gap to best", "placer time", "reason"},
                    {}};
        for (const LeaderboardRow* r : group) {
            t.rows.push_back({r->rank ? std::to_string(r->rank) : "", r->placer, r->family,
                              r->status, result_text(*r),
                              r->speedup ? fmt::format("{:.2f}x", *r->speedup) : "",
                              percent(r->gap_to_best),
                              r->placer_time_s ? human_time(*r->placer_time_s) : "", r->reason});
        }
        tables.push_back(std::move(t));
    }
    return tables;
}

}  // namespace

std::string leaderboard_markdown(const std::vector<LeaderboardRow>& rows) {
    std::ostringstream md;
    for (const TextTable& t : leaderboard_tables(rows)) {
        md << "## " << md_cell(t.title) << "\n\n";
        if (!t.note.empty())
            md << t.note << "\n\n";
        md << "|";
        for (const auto& h : t.header)
            md << " " << md_cell(h) << " |";
        md << "\n|";
        for (std::size_t i = 0; i < t.header.size(); ++i)
            md << "---|";
        md << "\n";
        for (const auto& row : t.rows) {
            md << "|";
            for (const auto& cell : row)
                md << " " << md_cell(cell) << " |";
            md << "\n";
        }
        md << "\n";
    }
    return md.str();
}

std::string leaderboard_html(const std::vector<LeaderboardRow>& rows) {
    std::ostringstream h;
    for (const TextTable& t : leaderboard_tables(rows)) {
        h << "<h2>" << html_escape(t.title) << "</h2>\n";
        if (!t.note.empty())
            h << "<p>" << html_escape(t.note) << "</p>\n";
        h << "<table>\n<tr>";
        for (const auto& head : t.header)
            h << "<th>" << html_escape(head) << "</th>";
        h << "</tr>\n";
        for (const auto& row : t.rows) {
            h << "<tr>";
            for (const auto& cell : row)
                h << "<td>" << html_escape(cell) << "</td>";
            h << "</tr>\n";
        }
        h << "</table>\n";
    }
    return h.str();
}

std::string run_compare(const CompareRequest& request, std::ostream& progress, bool terminal,
                        int& exit_code) {
    register_all();
    const CompareSpec spec = load_compare(request.file);
    const sweep::DesignSpace space = compare_points(spec);
    if (request.dry_run) {
        std::ostringstream text;
        std::size_t runs = 0, skipped = 0;
        for (const CompareStudy& study : spec.studies) {
            text << fmt::format("{} ({}, {}, baseline {}):\n", study.name, study.platform,
                                study.objective, study.baseline);
            for (const std::string& placer : study.placers)
                text << "  run      " << placer << "\n";
            for (const auto& [placer, why] : study.not_run)
                text << "  not run  " << placer << ": " << why << "\n";
            runs += study.placers.size();
            skipped += study.not_run.size();
        }
        text << fmt::format(
            "compare {}: {} runs over {} studies, {} placers not run; the "
            "studies and placer specs are valid\n",
            spec.name, runs, spec.studies.size(), skipped);
        exit_code = 0;
        return text.str();
    }

    // The sweep runner's view: two named axes, the points carrying their own study.
    sweep::SweepSpec sweep_spec;
    sweep_spec.name = spec.name;
    sweep_spec.file = spec.file;
    sweep_spec.study = spec.studies.front().file;
    sweep_spec.timeout_s = spec.timeout_s;
    for (const char* axis : {kStudyAxis, kPlacerAxis}) {
        sweep::Axis a;
        a.path = axis;
        sweep_spec.axes.push_back(a);
    }

    const fs::path out = request.out.empty() ? fs::path("out") / spec.name : fs::path(request.out);
    std::size_t not_run = 0;
    for (const auto& s : spec.studies)
        not_run += s.not_run.size();
    std::optional<ManifestWrite> manifest_write;
    std::optional<sweep::RunOptions::Recorded> recorded;
    std::string banner;
    if (sweep::writes_results()) {
        SweepManifest manifest{spec.name,
                               spec.file.string(),
                               spec.file.string(),
                               sweep_spec.axis_paths(),
                               space.points.size(),
                               0,
                               "compare"};
        manifest.compare = true;
        recorded = record_study_digests(out, space.points, request.resume, manifest);
        manifest_write.emplace(out, manifest);
        // Printed once the results folder is open (RunOptions::banner): a refused --resume
        // prints its one error line and nothing before it.
        banner = fmt::format(
            "compare {}: {} studies, {} runs ({} placers not run: they need arguments), {} "
            "worker(s){}\n",
            spec.name, spec.studies.size(), space.points.size(), not_run, request.jobs,
            sweep::under_mpi() ? " per MPI rank" : "");
    }

    sweep::RunOptions options = worker_options(out, request.jobs, request.resume,
                                               spec.studies.front().name, progress, terminal);
    options.banner = std::move(banner);
    options.recorded = std::move(recorded);
    options.worker_arguments = {"--keep-infeasible"};
    if (request.deterministic)
        options.worker_arguments.push_back("--deterministic");
    const sweep::SweepSummary s = sweep::run_sweep(sweep_spec, space, options);
    if (manifest_write)
        manifest_write->keep();
    if (!s.writer) {
        exit_code = 0;
        return "";
    }
    const std::vector<LeaderboardRow> rows = build_leaderboard(spec, out);
    write_file_atomically(out / "leaderboard.csv", leaderboard_csv(rows));
    write_file_atomically(out / "leaderboard.md",
                          "# Leaderboard: " + spec.name + "\n\n" + leaderboard_markdown(rows));
    std::size_t failed = 0;
    std::map<std::string, int> statuses;
    for (const auto& r : rows) {
        ++statuses[r.status];
        if (r.status == "failed" || r.status == "timeout")
            ++failed;
    }
    exit_code = s.interrupted ? 130 : (failed > 0 ? 1 : 0);
    std::vector<std::string> counts;
    for (const std::string status : {"ok", "infeasible", "n/a", "not run", "timeout", "failed"}) {
        if (statuses.count(status))
            counts.push_back(fmt::format("{} {}", statuses[status], status));
    }
    std::ostringstream text;
    text << fmt::format("compare {}: {} runs in {:.1f} s: {}\n\n", spec.name, rows.size(),
                        s.seconds, fmt::join(counts, ", "));
    const auto groups = by_study(rows);
    for (const auto& group : groups) {
        const SummaryLine line = summarize(group);
        text << fmt::format(
            "  {:<28} best {:<40} classic {:<40}{}\n", group.front()->study,
            line.best ? fmt::format("{} {}", line.best->placer, result_text(*line.best))
                      : "none ok",
            with_gap(line.classic),
            group.front()->paper.empty()
                ? ""
                : fmt::format("  {} {}", group.front()->paper, with_gap(line.paper)));
    }
    text << fmt::format(
        "\nleaderboard in {}/leaderboard.md and leaderboard.csv; `hetsim report {}` "
        "adds report.html with a plot per study\n",
        out.string(), out.string());
    if (s.interrupted)
        text << fmt::format("interrupted: `hetsim compare {} --resume{}` continues it\n",
                            request.file, request.out.empty() ? "" : " --out " + request.out);
    return text.str();
}

}  // namespace hetsim::app
