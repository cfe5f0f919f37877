#include "tools/app/dataset.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <vector>

#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/names.hpp"
#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tools/app/inspect.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace {

namespace fs = std::filesystem;

// One graph of the dataset, already written to graphs/<name>.json.
struct Entry {
    std::string name;
    std::string source;  // the workload label: "lstm(layers=1,...)", "json(x.onnx)", ...
    GraphStats stats;
};

// A source of the spec, read and counted but not built: every source is read before the first
// graph is built, so that a spec making too many graphs, or a split that does not add up, is
// refused before anything is written.
struct Source {
    enum class Kind { model, random_dag, onnx, export_model };
    Kind kind = Kind::model;
    sim::ConfigNode node;
    std::int64_t graphs = 0;  // how many graphs it makes (0: an export that is skipped)
    std::string name;         // model: the model; export: the torchvision model
    // model: each knob's values (every combination is one graph); random_dag: each knob's
    // [min, max], drawn per graph.
    std::vector<std::string> keys;
    std::vector<std::vector<std::int64_t>> values;
    bool has_seed = false;  // random_dag: the spec draws the generator seeds itself
    fs::path exporter;      // export: tools/export_models.py
};

// a x b, or the largest int64 when that overflows: a count past the limit either way.
std::int64_t saturating_product(std::int64_t a, std::int64_t b) {
    return b != 0 && a > std::numeric_limits<std::int64_t>::max() / b
               ? std::numeric_limits<std::int64_t>::max()
               : a * b;
}

struct Builder {
    Builder(sim::ConfigNode spec, fs::path out, fs::path graphs, std::uint64_t seed,
            std::ostream& warn)
        : root(std::move(spec)),
          out_dir(std::move(out)),
          graphs_dir(std::move(graphs)),
          rng(seed),
          warnings(warn) {}

    sim::ConfigNode root;
    fs::path out_dir;
    fs::path graphs_dir;  // where the graphs are written while the build runs
    std::mt19937_64 rng;  // draws of random_dag knobs, in source order
    std::vector<Entry> entries;
    std::set<std::string> names;
    int random_dags = 0;
    std::optional<bool> torch_available;
    std::ostream& warnings;
    std::int64_t min_nodes = 1, max_nodes = std::numeric_limits<std::int64_t>::max();

    // Reads the source `src` and counts its graphs; refuses one that makes more than a dataset
    // may have.
    Source read(const sim::ConfigNode& src) {
        src.expect_map();
        Source source;
        if (src.has("model")) {
            source = read_model(src);
        } else if (src.has("random_dag")) {
            source = read_random_dags(src);
        } else if (src.has("onnx")) {
            src.expect_keys({"onnx", "dims"});
            source.kind = Source::Kind::onnx;
            source.graphs = 1;
        } else if (src.has("export")) {
            source = read_export(src);
        } else {
            src.fail("expected a source with one of the keys model, random_dag, onnx, export");
        }
        source.node = src;
        return source;
    }

    void build(const Source& source) {
        switch (source.kind) {
            case Source::Kind::model:
                return build_models(source);
            case Source::Kind::random_dag:
                return build_random_dags(source);
            case Source::Kind::onnx:
                return add(fs::path(source.node.at("onnx").as_string()).stem().string(),
                           source.node);
            case Source::Kind::export_model:
                if (source.graphs > 0)
                    build_export(source);
                return;
        }
    }

    // Builds the workload mapping `node` (as a study's `workload:`; errors name its YAML path),
    // writes the graph and records it under a unique version of `name`.
    void add(const std::string& name, const sim::ConfigNode& node) {
        std::string label;
        const auto graph = build_workload(node, label);
        if (graph->op_count() < min_nodes || graph->op_count() > max_nodes) {
            node.fail(fmt::format("{} has {} ops, outside the spec's nodes: [{}, {}]", label,
                                  graph->op_count(), min_nodes, max_nodes));
        }
        std::string unique = name;
        for (int i = 2; names.contains(unique); ++i)
            unique = fmt::format("{}_{}", name, i);
        names.insert(unique);
        write_file_atomically(graphs_dir / (unique + ".json"),
                              sim::workloads::write_json_graph(*graph));
        entries.push_back(Entry{unique, label, graph_stats(*graph, kDatasetIdealsLimit)});
    }

    // A synthesized workload mapping, reported at the source's YAML path.
    sim::ConfigNode synthesized(const YAML::Node& node, const sim::ConfigNode& where) const {
        return sim::ConfigNode(node, root.file(), where.path());
    }

    // The knob `key` of `model`, whose value (or list or range) is `node` in the spec: checked
    // here, at its own line and YAML path, since the workload built from it later is
    // synthesized and has neither. Null for a model hetsim does not know (build_workload names
    // it when the source is built).
    static const sim::workloads::KnobInfo* knob_of(const std::string& model, const std::string& key,
                                                   const sim::ConfigNode& node) {
        for (const sim::workloads::ModelInfo& info : sim::workloads::list_models()) {
            if (info.name != model)
                continue;
            std::vector<std::string> names;
            for (const sim::workloads::KnobInfo& k : info.knobs) {
                if (k.name == key)
                    return &k;
                names.push_back(k.name);
            }
            const std::string hint = sim::did_you_mean(key, names);
            node.fail(fmt::format("model '{}' has no knob '{}'{}; its knobs: {}", model, key,
                                  hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                  fmt::join(names, ", ")));
        }
        return nullptr;
    }

    // A knob's value, checked against the knob's range at its own line.
    static std::int64_t knob_value(const sim::workloads::KnobInfo* knob, const std::string& model,
                                   const sim::ConfigNode& node) {
        const std::int64_t value = node.as_int();
        if (knob) {
            if (const std::string problem = sim::workloads::knob_value_problem(*knob, value);
                !problem.empty())
                node.fail(fmt::format("model '{}': knob '{}' {}", model, knob->name, problem));
        }
        return value;
    }

    static Source read_model(const sim::ConfigNode& src) {
        src.expect_keys({"model", "knobs"});
        Source source;
        source.kind = Source::Kind::model;
        source.name = src.at("model").as_string();
        source.graphs = 1;
        // Knob values: one value or a list; every combination is one graph.
        if (src.has("knobs")) {
            const sim::ConfigNode knobs = src.at("knobs");
            knobs.expect_map();
            for (const std::string& key : knobs.keys()) {
                const sim::ConfigNode v = knobs.at(key);
                const sim::workloads::KnobInfo* knob = knob_of(source.name, key, v);
                std::vector<std::int64_t> list;
                if (v.is_sequence()) {
                    for (std::size_t i = 0; i < v.size(); ++i) {
                        const std::int64_t value = knob_value(knob, source.name, v.at(i));
                        // As in a sweep's axes: a repeated value would build the same graph
                        // twice, under two names.
                        if (std::find(list.begin(), list.end(), value) != list.end())
                            v.at(i).fail(fmt::format("the knob lists '{}' twice", value));
                        list.push_back(value);
                    }
                    if (list.empty())
                        v.fail("expected a value or a non-empty list of values");
                } else {
                    list.push_back(knob_value(knob, source.name, v));
                }
                source.graphs =
                    saturating_product(source.graphs, static_cast<std::int64_t>(list.size()));
                source.keys.push_back(key);
                source.values.push_back(std::move(list));
            }
            if (source.graphs > kDatasetGraphLimit) {
                knobs.fail(fmt::format(
                    "the knob values make {} combinations, one graph each, over the limit of {} "
                    "graphs in a dataset",
                    source.graphs, kDatasetGraphLimit));
            }
        }
        return source;
    }

    // Every combination of the knob values, in file order, the last knob varying fastest.
    void build_models(const Source& source) {
        std::vector<std::size_t> index(source.keys.size(), 0);
        while (true) {
            YAML::Node node;
            node["model"] = source.name;
            std::string name = source.name;
            for (std::size_t k = 0; k < source.keys.size(); ++k) {
                node[source.keys[k]] = source.values[k][index[k]];
                name += fmt::format("_{}{}", source.keys[k], source.values[k][index[k]]);
            }
            add(name, synthesized(node, source.node));
            std::size_t k = source.keys.size();
            while (k > 0 && ++index[k - 1] == source.values[k - 1].size())
                index[--k] = 0;
            if (k == 0)
                break;
        }
    }

    std::int64_t draw(std::int64_t min, std::int64_t max) {
        const auto span = static_cast<std::uint64_t>(max - min) + 1;
        return min + static_cast<std::int64_t>(rng() % span);
    }

    static Source read_random_dags(const sim::ConfigNode& src) {
        src.expect_keys({"random_dag"});
        const sim::ConfigNode spec = src.at("random_dag");
        spec.expect_map();
        spec.expect_keys({"count", "knobs"});
        Source source;
        source.kind = Source::Kind::random_dag;
        source.graphs = spec.at("count").as_int();
        if (source.graphs < 1 || source.graphs > kDatasetGraphLimit) {
            spec["count"].fail(
                fmt::format("must be in 1..{} (the most graphs of a dataset), got {}",
                            kDatasetGraphLimit, source.graphs));
        }
        // A knob is a fixed value or an inclusive range [min, max] drawn per graph.
        if (spec.has("knobs")) {
            const sim::ConfigNode knobs = spec.at("knobs");
            knobs.expect_map();
            for (const std::string& key : knobs.keys()) {
                const sim::ConfigNode v = knobs.at(key);
                const sim::workloads::KnobInfo* knob = knob_of("random_dag", key, v);
                std::int64_t lo = 0, hi = 0;
                if (v.is_sequence()) {
                    if (v.size() != 2)
                        v.fail("expected a value or a range [min, max]");
                    lo = knob_value(knob, "random_dag", v.at(0));
                    hi = knob_value(knob, "random_dag", v.at(1));
                    if (lo > hi)
                        v.fail(fmt::format("empty range [{}, {}]", lo, hi));
                } else {
                    lo = hi = knob_value(knob, "random_dag", v);
                }
                // Each graph gets its own generator seed (usage.md): a range must hold one per
                // graph, and a fixed seed is the first graph's, the next ones following it.
                if (key == "seed" && knob) {
                    const auto seeds = static_cast<std::uint64_t>(hi - lo) + 1;
                    if (lo < hi && seeds < static_cast<std::uint64_t>(source.graphs))
                        v.fail(
                            fmt::format("the range holds {} seeds, fewer than the {} graphs "
                                        "(count), each of which takes its own",
                                        seeds, source.graphs));
                    if (lo == hi && lo > knob->max_value - (source.graphs - 1))
                        v.fail(fmt::format(
                            "the {} graphs take the seeds {} to {}, past the "
                            "largest, {}",
                            source.graphs, lo, lo + (source.graphs - 1), knob->max_value));
                }
                source.keys.push_back(key);
                source.values.push_back({lo, hi});
            }
        }
        source.has_seed =
            std::find(source.keys.begin(), source.keys.end(), "seed") != source.keys.end();
        return source;
    }

    void build_random_dags(const Source& source) {
        // Each graph its own generator seed: drawn from the dataset's seed (or from the seed
        // knob's range) again when a graph of the source drew it already, or a fixed seed knob
        // plus the graph's index, so that no two graphs of a source are the same graph.
        std::set<std::int64_t> seeds;
        const auto fresh_seed = [&](std::int64_t lo, std::int64_t hi) {
            std::int64_t seed = draw(lo, hi);
            while (!seeds.insert(seed).second)
                seed = draw(lo, hi);
            return seed;
        };
        for (std::int64_t i = 0; i < source.graphs; ++i) {
            YAML::Node node;
            node["model"] = "random_dag";
            if (!source.has_seed)
                node["seed"] = fresh_seed(0, 999'999'999);
            for (std::size_t k = 0; k < source.keys.size(); ++k) {
                const std::int64_t lo = source.values[k][0], hi = source.values[k][1];
                if (source.keys[k] != "seed") {
                    node[source.keys[k]] = draw(lo, hi);
                } else if (lo == hi) {
                    (void)draw(lo, hi);  // as every fixed knob: the later draws stay as they were
                    node["seed"] = lo + i;
                } else {
                    node["seed"] = fresh_seed(lo, hi);
                }
            }
            add(fmt::format("random_dag_{:03}", random_dags++), synthesized(node, source.node));
        }
    }

    bool torch_present() {
        if (!torch_available) {
            const std::string command =
                fmt::format("'{}' -c 'import torch' >/dev/null 2>&1", kSystemPython);
            torch_available = fs::exists(kSystemPython) && std::system(command.c_str()) == 0;
        }
        return *torch_available;
    }

    // One graph, or none (with a warning) where the exporter or PyTorch is missing.
    Source read_export(const sim::ConfigNode& src) {
        src.expect_keys({"export", "dims"});
        Source source;
        source.kind = Source::Kind::export_model;
        source.name = src.at("export").as_string();
        const std::string& model = source.name;
        const bool safe = !model.empty() && std::all_of(model.begin(), model.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        });
        if (!safe)
            src["export"].fail(
                fmt::format("expected a model name (letters, digits, _ - .), got "
                            "'{}'",
                            model));
        const auto script = find_tool_script("export_models.py");
        if (!script || !torch_present()) {
            warnings << fmt::format(
                "hetsim: warning: {}: {}: skipping export of '{}': {}\n", root.file(), src.path(),
                model,
                !script ? "tools/export_models.py not found"
                        : "PyTorch is not installed for /usr/bin/python3 (python3-torch)");
            return source;
        }
        source.exporter = *script;
        source.graphs = 1;
        return source;
    }

    void build_export(const Source& source) {
        const sim::ConfigNode& src = source.node;
        const std::string& model = source.name;
        const fs::path onnx_dir = out_dir / "onnx";
        fs::create_directories(onnx_dir);
        const fs::path onnx = onnx_dir / (model + ".onnx");
        const fs::path log = onnx_dir / (model + ".log");
        const std::string command =
            fmt::format("'{}' '{}' '{}' --out '{}' >'{}' 2>&1", kSystemPython,
                        source.exporter.string(), model, onnx.string(), log.string());
        const int status = std::system(command.c_str());
        if (status != 0 || !fs::exists(onnx)) {
            // The log is in the output folder, which a refused build removes: its last line (the
            // exporter's own error, or Python's exception) goes in the message.
            src["export"].fail(
                fmt::format("tools/export_models.py {} failed: {}", model, last_line_of(log)));
        }
        YAML::Node node;
        node["onnx"] = fs::absolute(onnx).string();
        if (src.has("dims"))
            node["dims"] = YAML::Clone(src.at("dims").raw());
        add(model, synthesized(node, src));
    }

    // The last non-blank line of a log, at most 300 characters of it.
    static std::string last_line_of(const fs::path& file) {
        std::ifstream in(file);
        std::string line, last;
        while (std::getline(in, line)) {
            const auto begin = line.find_first_not_of(" \t\r");
            if (begin != std::string::npos)
                last = line.substr(begin, line.find_last_not_of(" \t\r") + 1 - begin);
        }
        if (last.empty())
            return "it printed nothing";
        return last.size() > 300 ? last.substr(0, 300) + "..." : last;
    }
};

// The split's values, each a count or a fraction >= 0, not all 0: checked before any graph is
// built.
std::vector<double> split_values(const sim::ConfigNode& split,
                                 const std::vector<std::string>& names) {
    std::vector<double> values;
    double total = 0.0;
    for (const std::string& key : names) {
        const double v = split.at(key).as_double();
        if (!(v >= 0.0) || !std::isfinite(v))
            split[key].fail("expected a count or a fraction >= 0");
        total += v;
        values.push_back(v);
    }
    if (!(total > 0.0))
        split.fail("the split sizes sum to 0");
    // Counts and fractions together ({train: 3, test: 0.25}) mean neither: read as proportions
    // they gave test no graph. 0 and 1 go with either.
    const auto is_count = [](double v) { return v > 1.0 && v == std::floor(v); };
    const auto count = std::find_if(values.begin(), values.end(), is_count);
    const auto fraction =
        std::find_if(values.begin(), values.end(), [](double v) { return v != std::floor(v); });
    if (count != values.end() && fraction != values.end()) {
        const auto name = [&](auto it) {
            return names[static_cast<std::size_t>(it - values.begin())];
        };
        split.fail(
            fmt::format("mixes a count ({}: {:g}) and a fraction ({}: {:g}); give every "
                        "size as a count (adding up to the graphs built) or every size as "
                        "a fraction (proportions)",
                        name(count), *count, name(fraction), *fraction));
    }
    return values;
}

// Split sizes for `graphs` graphs: the values when they are whole numbers, which must add up to
// the graph count (docs/usage.md "Dataset specs"), else the values as proportions with
// largest-remainder rounding (ties to the earlier split).
std::vector<std::size_t> split_sizes(const sim::ConfigNode& split,
                                     const std::vector<double>& values, std::size_t graphs) {
    bool integers = true;
    double total = 0.0;
    for (const double v : values) {
        integers = integers && v == std::floor(v);
        total += v;
    }
    std::vector<std::size_t> sizes(values.size(), 0);
    if (integers) {
        if (total != static_cast<double>(graphs)) {
            split.fail(fmt::format(
                "the split sizes add up to {:.0f}, the sources make {} graph{}: give counts that "
                "add up to {} or fractions (proportions, such as 0.8 and 0.2)",
                total, graphs, graphs == 1 ? "" : "s", graphs));
        }
        for (std::size_t i = 0; i < values.size(); ++i)
            sizes[i] = static_cast<std::size_t>(values[i]);
        return sizes;
    }
    std::vector<std::pair<double, std::size_t>> remainders;
    std::size_t assigned = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double quota = values[i] / total * static_cast<double>(graphs);
        sizes[i] = static_cast<std::size_t>(std::floor(quota));
        assigned += sizes[i];
        remainders.push_back({quota - std::floor(quota), i});
    }
    std::stable_sort(remainders.begin(), remainders.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t r = 0; assigned < graphs; ++r, ++assigned)
        ++sizes[remainders[r % remainders.size()].second];
    return sizes;
}

}  // namespace

namespace {

// What a dataset build adds to its folder, removed again unless the build completes: the folder
// itself when it is new (or the outermost folder it made), onnx/ when it is new, and the graphs
// written so far, which stay in `staging` until the build completes.
class PartialOutput {
public:
    PartialOutput(fs::path out, fs::path staging)
        : out_(std::move(out)), staging_(std::move(staging)) {
        // --out a/b/c with no a/: a/ is what the build makes, and what a refusal removes.
        created_top_ = sim::first_missing_folder(out_);
        created_onnx_ = !fs::exists(out_ / "onnx");
    }
    ~PartialOutput() {
        if (kept_)
            return;
        std::error_code ec;
        if (!created_top_.empty()) {
            fs::remove_all(created_top_, ec);
            return;
        }
        if (created_onnx_)
            fs::remove_all(out_ / "onnx", ec);
        fs::remove_all(staging_, ec);
    }
    PartialOutput(const PartialOutput&) = delete;
    PartialOutput& operator=(const PartialOutput&) = delete;
    void keep() { kept_ = true; }

private:
    fs::path out_, staging_, created_top_;
    bool created_onnx_ = false, kept_ = false;
};

// A build replaces the graphs/ of an earlier build in its folder, so that the folder holds the
// graphs its manifest lists and no others (a stale graph of a larger earlier build stayed). What
// no manifest.json there lists is not hetsim's to delete: refused, before anything is built.
void check_graphs_replaceable(const fs::path& out) {
    const fs::path graphs = out / "graphs";
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(graphs, ec)))
        return;
    const auto refuse = [&](const std::string& what) {
        throw sim::InputError(
            "", "--out", 0,
            fmt::format(
                "'{}' {}; a build replaces only the graphs of an earlier build there (those "
                "its manifest.json lists): use another --out, or remove it",
                graphs.string(), what));
    };
    if (!fs::is_directory(graphs, ec))
        refuse("is not a folder");
    std::set<std::string> listed;
    try {
        const auto manifest = nlohmann::json::parse(sim::read_text_file(out / "manifest.json"));
        for (const auto& graph : manifest.at("graphs"))
            listed.insert(graph.at("file").get<std::string>());
    } catch (const std::exception&) {
        // No readable manifest: nothing in graphs/ is an earlier build's.
    }
    for (fs::directory_iterator it(graphs, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!it->is_regular_file(ec) || !listed.count("graphs/" + name))
            refuse(fmt::format("holds '{}', which no manifest.json in '{}' lists", name,
                               out.string()));
    }
}

// Puts the finished build in place: `staging` becomes DIR/graphs (an earlier build's graphs/
// goes), then the manifest is written. A failure in between puts the earlier graphs back.
void publish(const fs::path& out, const fs::path& staging, const std::string& manifest) {
    const fs::path graphs = out / "graphs", earlier = out / ".graphs.earlier";
    std::error_code ec;
    fs::remove_all(earlier, ec);  // left by a build that was killed here
    const bool had_earlier = fs::exists(fs::symlink_status(graphs, ec));
    if (had_earlier)
        fs::rename(graphs, earlier);
    try {
        fs::rename(staging, graphs);
        write_file_atomically(out / "manifest.json", manifest);
    } catch (...) {
        fs::remove_all(graphs, ec);  // PartialOutput removes `staging`, not what it became
        if (had_earlier)
            fs::rename(earlier, graphs, ec);
        throw;
    }
    fs::remove_all(earlier, ec);
}

}  // namespace

std::string build_dataset(const DatasetRequest& request, std::ostream& warnings) {
    const sim::ConfigNode root = sim::ConfigNode::load_file(request.spec);
    root.expect_map();
    root.expect_keys({"name", "description", "seed", "nodes", "split", "sources"});
    root.get_string("description", "");  // free text, but text: not a list or a map
    const std::string name = root.at("name").as_string();
    const std::int64_t seed = request.seed ? *request.seed : root.get_int("seed", 1);
    if (seed < 0) {
        if (request.seed)
            throw sim::InputError("", "--seed", 0, "must be >= 0");
        root["seed"].fail("must be >= 0");
    }
    const sim::ConfigNode split = root.at("split");
    split.expect_map();
    const std::vector<std::string> split_names = split.keys();
    if (split_names.empty())
        split.fail("expected split names with sizes, e.g. {train: 66, validation: 5, test: 16}");
    // A split's name is written in the manifest and read back by `hetsim train` (--split).
    for (const std::string& name : split_names) {
        if (const std::string problem = sim::plain_name_problem(name); !problem.empty())
            split.at(name).fail("split name " + problem);
    }
    const sim::ConfigNode sources = root.at("sources");
    sources.expect_sequence();
    if (sources.size() == 0)
        sources.fail("expected at least one source");

    // The split's own checks come first; its sizes are checked against the graphs once they are
    // built (split_sizes), after the errors that building finds.
    const std::vector<double> split_given = split_values(split, split_names);
    const fs::path out_dir = request.out;
    const fs::path staging = out_dir / ".graphs.partial";
    Builder builder(root, out_dir, staging, static_cast<std::uint64_t>(seed), warnings);
    if (root.has("nodes")) {
        // Optional bounds on every graph's op count, checked as each graph is built.
        const sim::ConfigNode nodes = root.at("nodes");
        if (!nodes.is_sequence() || nodes.size() != 2)
            nodes.fail("expected [min, max] ops per graph");
        builder.min_nodes = nodes.at(0).as_int();
        builder.max_nodes = nodes.at(1).as_int();
        if (builder.min_nodes > builder.max_nodes)
            nodes.fail(fmt::format("empty range [{}, {}]", builder.min_nodes, builder.max_nodes));
    }
    // Every source is read and its graphs counted before the first graph is built: a spec that
    // asks for too many graphs is refused at once.
    std::vector<Source> planned;
    std::int64_t graph_count = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        planned.push_back(builder.read(sources.at(i)));
        graph_count += planned.back().graphs;  // each at most kDatasetGraphLimit: no overflow
    }
    if (graph_count > kDatasetGraphLimit) {
        sources.fail(fmt::format("the sources make {} graphs, over the limit of {} in a dataset",
                                 graph_count, kDatasetGraphLimit));
    }
    if (graph_count == 0)
        sources.fail("no graph was built (every source was skipped)");

    check_graphs_replaceable(out_dir);
    try {
        (void)sim::output_target(out_dir / "manifest.json");
    } catch (const std::exception& e) {
        throw sim::InputError("", "--out", 0,
                              sim::write_failure_message(e, out_dir / "manifest.json"));
    }
    // Graphs are written as they are built, into a folder beside graphs/ that takes its place
    // once the build completes; a build refused before (a graph outside `nodes`, an ONNX file
    // that does not import, a split that does not add up) removes what it wrote, so no partial
    // dataset stays and an earlier build in the folder stays whole.
    PartialOutput partial(out_dir, staging);
    try {
        fs::remove_all(staging);  // left by a build that was killed
        sim::create_output_folder(staging);
    } catch (const std::exception& e) {
        throw sim::InputError("", "--out", 0, sim::write_failure_message(e, out_dir));
    }
    for (const Source& source : planned)
        builder.build(source);
    const std::vector<Entry>& entries = builder.entries;

    // The split: a seeded Fisher-Yates shuffle on its own stream (independent of how many knob
    // draws the sources made; std::shuffle's algorithm is not specified, this one is), then
    // consecutive runs of the split sizes.
    const std::vector<std::size_t> sizes = split_sizes(split, split_given, entries.size());
    std::vector<std::size_t> order(entries.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::mt19937_64 shuffle_rng(static_cast<std::uint64_t>(seed) ^ 0x9e3779b97f4a7c15ULL);
    for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[shuffle_rng() % i]);
    std::vector<std::string> split_of(entries.size());
    std::size_t next = 0;
    for (std::size_t s = 0; s < sizes.size(); ++s)
        for (std::size_t k = 0; k < sizes[s]; ++k)
            split_of[order[next++]] = split_names[s];

    using ordered = nlohmann::ordered_json;
    ordered graphs = ordered::array();
    int min_nodes = std::numeric_limits<int>::max(), max_nodes = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Entry& e = entries[i];
        min_nodes = std::min(min_nodes, e.stats.nodes);
        max_nodes = std::max(max_nodes, e.stats.nodes);
        graphs.push_back({{"name", e.name},
                          {"file", "graphs/" + e.name + ".json"},
                          {"source", e.source},
                          {"nodes", e.stats.nodes},
                          {"edges", e.stats.edges},
                          {"flops", e.stats.flops},
                          {"param_bytes", e.stats.param_bytes},
                          {"ideals", e.stats.ideals ? ordered(*e.stats.ideals) : ordered(nullptr)},
                          {"split", split_of[i]}});
    }
    ordered split_json = ordered::object();
    for (std::size_t s = 0; s < sizes.size(); ++s)
        split_json[split_names[s]] = sizes[s];
    const ordered manifest = {{"name", name},
                              {"seed", seed},
                              {"ideals_limit", kDatasetIdealsLimit},
                              {"split", split_json},
                              {"graphs", graphs}};
    publish(out_dir, staging, manifest.dump(1) + "\n");
    partial.keep();

    std::vector<std::string> split_text;
    for (std::size_t s = 0; s < sizes.size(); ++s)
        split_text.push_back(fmt::format("{} {}", split_names[s], sizes[s]));
    return fmt::format("dataset {}: {} graphs ({}..{} ops), {}; {}\n", name, entries.size(),
                       min_nodes, max_nodes, fmt::join(split_text, ", "),
                       (out_dir / "manifest.json").string());
}

}  // namespace hetsim::app
