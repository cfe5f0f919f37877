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
    Builder(sim::ConfigNode spec, fs::path out, std::uint64_t seed, std::ostream& warn)
        : root(std::move(spec)), out_dir(std::move(out)), rng(seed), warnings(warn) {}

    sim::ConfigNode root;
    fs::path out_dir;
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
        write_file_atomically(out_dir / "graphs" / (unique + ".json"),
                              sim::workloads::write_json_graph(*graph));
        entries.push_back(Entry{unique, label, graph_stats(*graph, kDatasetIdealsLimit)});
    }

    // A synthesized workload mapping, reported at the source's YAML path.
    sim::ConfigNode synthesized(const YAML::Node& node, const sim::ConfigNode& where) const {
        return sim::ConfigNode(node, root.file(), where.path());
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
                std::vector<std::int64_t> list;
                if (v.is_sequence()) {
                    for (std::size_t i = 0; i < v.size(); ++i)
                        list.push_back(v.at(i).as_int());
                    if (list.empty())
                        v.fail("expected a value or a non-empty list of values");
                } else {
                    list.push_back(v.as_int());
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
                std::int64_t lo = 0, hi = 0;
                if (v.is_sequence()) {
                    if (v.size() != 2)
                        v.fail("expected a value or a range [min, max]");
                    lo = v.at(0).as_int();
                    hi = v.at(1).as_int();
                    if (lo > hi)
                        v.fail(fmt::format("empty range [{}, {}]", lo, hi));
                } else {
                    lo = hi = v.as_int();
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
        for (std::int64_t i = 0; i < source.graphs; ++i) {
            YAML::Node node;
            node["model"] = "random_dag";
            // Each graph its own generator seed, drawn from the dataset's seed.
            if (!source.has_seed)
                node["seed"] = draw(0, 999'999'999);
            for (std::size_t k = 0; k < source.keys.size(); ++k)
                node[source.keys[k]] = draw(source.values[k][0], source.values[k][1]);
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
// itself and graphs/ and onnx/ when they are new, else the graph files that were not there
// before.
class PartialOutput {
public:
    explicit PartialOutput(fs::path out) : out_(std::move(out)) {
        // --out a/b/c with no a/: a/ is what the build makes, and what a refusal removes.
        created_top_ = sim::first_missing_folder(out_);
        created_out_ = !created_top_.empty();
        created_graphs_ = !fs::exists(out_ / "graphs");
        created_onnx_ = !fs::exists(out_ / "onnx");
        std::error_code ec;
        if (!created_graphs_) {
            for (const auto& entry : fs::directory_iterator(out_ / "graphs", ec))
                before_.insert(entry.path());
        }
    }
    ~PartialOutput() {
        if (kept_)
            return;
        std::error_code ec;
        if (created_out_) {
            fs::remove_all(created_top_, ec);
            return;
        }
        if (created_onnx_)
            fs::remove_all(out_ / "onnx", ec);
        if (created_graphs_) {
            fs::remove_all(out_ / "graphs", ec);
        } else {
            std::vector<fs::path> added;
            for (const auto& entry : fs::directory_iterator(out_ / "graphs", ec)) {
                if (!before_.count(entry.path()))
                    added.push_back(entry.path());
            }
            for (const auto& file : added)
                fs::remove(file, ec);
        }
    }
    PartialOutput(const PartialOutput&) = delete;
    PartialOutput& operator=(const PartialOutput&) = delete;
    void keep() { kept_ = true; }

private:
    fs::path out_, created_top_;
    bool created_out_ = false, created_graphs_ = false, created_onnx_ = false, kept_ = false;
    std::set<fs::path> before_;
};

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
    Builder builder(root, request.out, static_cast<std::uint64_t>(seed), warnings);
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

    const fs::path out_dir = request.out;
    // Graphs are written as they are built; a build refused later (a graph outside `nodes`, an
    // ONNX file that does not import, a split that does not add up) removes what it wrote, so no
    // partial dataset stays.
    PartialOutput partial(out_dir);
    try {
        fs::create_directories(out_dir / "graphs");
    } catch (const fs::filesystem_error& e) {
        throw sim::InputError("", "--out", 0,
                              fmt::format("cannot create '{}': {}", out_dir.string(), e.what()));
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
    write_file_atomically(out_dir / "manifest.json", manifest.dump(1) + "\n");
    partial.keep();

    std::vector<std::string> split_text;
    for (std::size_t s = 0; s < sizes.size(); ++s)
        split_text.push_back(fmt::format("{} {}", split_names[s], sizes[s]));
    return fmt::format("dataset {}: {} graphs ({}..{} ops), {}; {}\n", name, entries.size(),
                       min_nodes, max_nodes, fmt::join(split_text, ", "),
                       (out_dir / "manifest.json").string());
}

}  // namespace hetsim::app
