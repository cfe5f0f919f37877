// docs/usage.md is hetsim's command reference (issue 29): every command, CLI option, YAML key,
// workload, placer and results.csv column hetsim knows must be in it, and every `hetsim <command>`
// it (or the README) shows must exist. Nothing is copied here: the YAML keys are what the loaders
// pass to ConfigNode::expect_keys() (heard through sim/config_keys.hpp while the shipped configs
// and a few probes load), the commands and options come from `hetsim <command> --help`, the
// workloads, placers and component types from their registries.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "placement/placer.hpp"
#include "sim/config.hpp"
#include "sim/config_keys.hpp"
#include "sim/device_component.hpp"
#include "sim/platform.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "sweep/design_space.hpp"
#include "tests/fixtures/cli_fixtures.hpp"
#include "tools/app/compare.hpp"
#include "tools/app/dataset.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/study.hpp"

namespace hetsim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = HETSIM_SOURCE_DIR;
const fs::path kUsage = kSource / "docs" / "usage.md";

std::string usage_doc() {
    static const std::string text = read_file(kUsage);
    return text;
}

// The text of the section whose heading line starts with `heading` ("## Study files"), up to
// the next heading of the same or a higher level; "" (and a test failure) when there is none.
std::string section(const std::string& doc, const std::string& heading) {
    const std::size_t level = heading.find_first_not_of('#');
    std::istringstream in(doc);
    std::string line, text;
    bool inside = false, fenced = false;
    while (std::getline(in, line)) {
        if (line.starts_with("```"))
            fenced = !fenced;
        const std::size_t hashes = fenced ? 0 : line.find_first_not_of('#');
        const bool is_heading = hashes != std::string::npos && hashes > 0 && hashes < line.size() &&
                                line[hashes] == ' ';
        if (inside && is_heading && hashes <= level)
            break;
        if (!inside && is_heading && line.starts_with(heading))
            inside = true;
        if (inside)
            text += line + "\n";
    }
    if (text.empty())
        ADD_FAILURE() << kUsage.string() << " has no section '" << heading << "'";
    return text;
}

bool word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// `key` as a YAML key or a value name: "`key`", "`key:", "key: ..." in a YAML block, "key=".
bool mentions_key(const std::string& text, const std::string& key) {
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
        const std::size_t end = at + key.size();
        const bool starts = at == 0 || !word_char(text[at - 1]);
        const bool ends =
            end < text.size() && (text[end] == '`' || text[end] == ':' || text[end] == '=');
        if (starts && ends)
            return true;
    }
    return false;
}

// An option ("--set", "-j") as a whole word.
bool mentions_option(const std::string& text, const std::string& option) {
    for (std::size_t at = text.find(option); at != std::string::npos;
         at = text.find(option, at + 1)) {
        const std::size_t end = at + option.size();
        const bool starts = at == 0 || (!word_char(text[at - 1]) && text[at - 1] != '-');
        const bool ends = end == text.size() || (!word_char(text[end]) && text[end] != '-');
        if (starts && ends)
            return true;
    }
    return false;
}

// --- what the loaders accept -------------------------------------------------------------------

struct KeySection {
    std::string file, path;  // where the loader checked keys
    std::vector<std::string> allowed;
    std::string component_type;  // the section's component type, inside `components:`
};

// Records every expect_keys() call while alive.
class KeyRecorder {
public:
    KeyRecorder() {
        previous_ = sim::set_key_listener(
            [this](const sim::ConfigNode& node, const std::vector<std::string>& allowed) {
                sections.push_back({node.file(), node.path(), allowed, component_type(node)});
            });
    }
    ~KeyRecorder() { sim::set_key_listener(std::move(previous_)); }
    KeyRecorder(const KeyRecorder&) = delete;
    KeyRecorder& operator=(const KeyRecorder&) = delete;

    std::vector<KeySection> sections;

private:
    // "components.<name>" (under "platform." in a study) names a component: its `type:`; a
    // section inside it inherits the type recorded for the component.
    std::string component_type(const sim::ConfigNode& node) {
        std::string path = node.path();
        if (path.starts_with("platform."))
            path = path.substr(9);
        if (!path.starts_with("components."))
            return "";
        const std::size_t dot = path.find('.', 11);
        if (dot == std::string::npos) {
            std::string type;
            if (node.is_map() && node.has("type") && node.at("type").is_scalar())
                type = node.at("type").as_string();
            types_[node.file() + ":" + node.path()] = type;
            return type;
        }
        const std::string prefix = node.path().substr(0, node.path().size() - path.size() + dot);
        const auto it = types_.find(node.file() + ":" + prefix);
        return it == types_.end() ? "" : it->second;
    }

    sim::KeyListener previous_;
    std::map<std::string, std::string> types_;
};

template <typename Load>
void load_ignoring_errors(Load&& load) {
    try {
        load();
    } catch (const std::exception&) {
        // A probe may be incomplete on purpose: its keys were checked before it failed.
    }
}

std::vector<fs::path> shipped(const std::string& folder) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(kSource / "configs" / folder)) {
        if (entry.path().extension() == ".yaml")
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// One key hetsim accepts and where the doc must name it.
struct Key {
    std::string key;      // as written in a file ("conv" inside `efficiency:`)
    std::string where;    // the file and YAML path the loader checked it at
    std::string heading;  // the docs/usage.md section that documents it
};

// The section of a platform file's key: the platform's own, a component type's, a memspec's.
std::string platform_heading(const KeySection& s) {
    if (fs::path(s.file).parent_path().filename() == "memspecs")
        return "## Memory specs";
    if (!s.component_type.empty())
        return "### `" + s.component_type + "`";
    return "## Platform files";
}

void add_keys(std::vector<Key>& keys, const KeySection& s, const std::string& heading) {
    for (const std::string& key : s.allowed) {
        // Internal keys (a study's inlined platform file) are never written by hand.
        if (key.find(' ') != std::string::npos)
            continue;
        keys.push_back({key, s.file + ": " + (s.path.empty() ? "(top level)" : s.path), heading});
    }
}

std::set<std::string> all_knobs() {
    std::set<std::string> knobs;
    for (const auto& m : sim::workloads::list_models()) {
        for (const auto& k : m.knobs)
            knobs.insert(k.name);
    }
    return knobs;
}

// Every key the loaders accept in the shipped configs and the probes below, with its section.
std::vector<Key> accepted_keys(const fs::path& scratch) {
    app::register_all();
    std::vector<Key> keys;
    const std::set<std::string> knobs = all_knobs();
    const auto add_platform_keys = [&](const std::vector<KeySection>& sections) {
        for (const KeySection& s : sections)
            add_keys(keys, s, platform_heading(s));
    };

    {  // Platforms: the shipped ones, one probe per registered component type (its own keys
       // come first), and the nested sections no shipped platform uses.
        KeyRecorder recorder;
        for (const fs::path& file : shipped("platforms"))
            load_ignoring_errors([&] { (void)sim::load_platform(file.string()); });
        for (const auto* type : sim::ComponentRegistry::instance().all()) {
            load_ignoring_errors([&] {
                (void)sim::parse_platform(sim::ConfigNode::from_string(
                    "name: probe\ncomponents: {probe: {type: " + type->type + "}}\n",
                    "probe_" + type->type + ".yaml"));
            });
        }
        load_ignoring_errors([&] {
            (void)sim::parse_platform(sim::ConfigNode::from_string(
                "name: probe\n"
                "components:\n"
                "  cpu: {type: cpu, devices: {C: serial}, cores: 1, clock: 1 GHz,\n"
                "        flops_per_cycle: 1, l1d: 32 KiB, l2: 1 MiB, dram_bandwidth: 1 GB/s,\n"
                "        efficiency: {matmul: 0.5}}\n"
                "  pim: {type: silent_pim, device: P, memspec: ddr4-2400,\n"
                "        weight_transpose: {on: host, per_element: 1 ns}}\n"
                "  link: {type: pcie, endpoints: [cpu, pim], bandwidth: 1 GB/s,\n"
                "         forward: {latency: 1 us}, backward: {bandwidth: 2 GB/s}}\n",
                "probe_nested.yaml"));
        });
        add_platform_keys(recorder.sections);
    }
    {  // Studies, their workloads (a model's knobs are checked per model, below) and the
       // workload forms no shipped study uses.
        KeyRecorder recorder;
        for (const fs::path& file : shipped("studies"))
            load_ignoring_errors([&] { (void)app::load_study(file.string(), {}); });
        for (const char* workload : {"{onnx: missing.onnx}", "{json: missing.json}"}) {
            load_ignoring_errors([&] {
                std::string label;
                (void)app::build_workload(
                    sim::ConfigNode(YAML::Load(workload), "probe_study.yaml", "workload"), label);
            });
        }
        std::vector<KeySection> platform_sections;
        for (KeySection& s : recorder.sections) {
            const bool study_file = fs::path(s.file).parent_path().filename() == "studies" ||
                                    s.file == "probe_study.yaml";
            if (!study_file || s.path.starts_with("platform")) {
                platform_sections.push_back(s);
            } else if (s.path == "workload") {
                std::erase_if(s.allowed, [&](const std::string& k) { return knobs.contains(k); });
                add_keys(keys, s, "### Workloads");
            } else {
                add_keys(keys, s, "## Study files");
            }
        }
        add_platform_keys(platform_sections);
    }
    {  // Sweeps: the shipped ones and a probe with a range axis and sampling.
        KeyRecorder recorder;
        for (const fs::path& file : shipped("sweeps"))
            load_ignoring_errors([&] { (void)sweep::load_sweep(file); });
        const fs::path probe = scratch / "probe_sweep.yaml";
        std::ofstream(probe) << "sweep: probe\nstudy: "
                             << (kSource / "configs/studies/default.yaml").string()
                             << "\naxes:\n  workload.seq_len: {min: 8, max: 64}\n"
                             << "  workload.layers: {values: {one: {workload.layers: 1}}}\n"
                             << "random: {n: 2, seed: 1}\n";
        load_ignoring_errors([&] { (void)sweep::load_sweep(probe); });
        for (const KeySection& s : recorder.sections) {
            if (fs::path(s.file).parent_path().filename() == "sweeps" || fs::path(s.file) == probe)
                add_keys(keys, s, "## Sweep files");
        }
    }
    {  // Compare files: the shipped one (checked, nothing run) and a probe of a study entry.
        KeyRecorder recorder;
        std::vector<fs::path> files = shipped("compare");
        files.push_back(scratch / "probe_compare.yaml");
        std::ofstream(files.back())
            << "compare: probe\nstudies:\n  - study: "
            << (kSource / "configs/studies/default.yaml").string() << "\n    placers: [heft]\n";
        for (const fs::path& file : files) {
            load_ignoring_errors([&] {
                app::CompareRequest request;
                request.file = file.string();
                request.dry_run = true;
                std::ostringstream progress;
                int exit_code = 0;
                (void)app::run_compare(request, progress, false, exit_code);
            });
        }
        for (const KeySection& s : recorder.sections) {
            if (fs::path(s.file).parent_path().filename() == "compare" ||
                fs::path(s.file) == files.back())
                add_keys(keys, s, "## Compare files");
        }
    }
    {  // Dataset specs: a probe per kind of source that stops the build (a missing ONNX file,
       // a refused export name), so nothing is exported and what was written is removed.
        KeyRecorder recorder;
        std::vector<fs::path> specs;
        for (const char* last : {"{onnx: missing.onnx}", "{export: 'not a model name'}"}) {
            specs.push_back(scratch / fmt::format("probe_dataset_{}.yaml", specs.size()));
            std::ofstream(specs.back()) << "name: probe\nseed: 1\nnodes: [1, 100000]\n"
                                           "split: {train: 1}\nsources:\n"
                                           "  - {model: lstm, knobs: {seq_len: 2}}\n"
                                           "  - random_dag: {count: 1, knobs: {nodes: [5, 6]}}\n"
                                           "  - "
                                        << last << "\n";
            load_ignoring_errors([&] {
                app::DatasetRequest request;
                request.spec = specs.back().string();
                request.out = (scratch / "dataset_out").string();
                std::ostringstream warnings;
                (void)app::build_dataset(request, warnings);
            });
        }
        for (KeySection& s : recorder.sections) {
            if (std::find(specs.begin(), specs.end(), fs::path(s.file)) == specs.end())
                continue;
            // A model source is a workload: its knobs are checked per model.
            if (s.path.starts_with("sources."))
                std::erase_if(s.allowed, [&](const std::string& k) { return knobs.contains(k); });
            add_keys(keys, s, "## Dataset specs");
        }
    }
    return keys;
}

// --- the command line ----------------------------------------------------------------------------

// The subcommands and options of `hetsim <command> --help` (CLI11's layout: "Options:" and
// "Subcommands:" blocks of "  NAME  description" lines).
struct HelpText {
    std::vector<std::string> options;      // long and short forms, "--set", "-j"
    std::vector<std::string> subcommands;  // "run", ...
};

HelpText help_of(const std::string& command) {
    const Outcome o = run_hetsim(command + " --help");
    EXPECT_EQ(o.exit_code, 0) << "hetsim " << command << " --help:\n" << o.output;
    HelpText help;
    std::istringstream in(o.output);
    std::string line, block;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == ':' && line.front() != ' ') {
            block = line;
            continue;
        }
        if (!line.starts_with("  ") || line.size() < 3 || line[2] == ' ')
            continue;
        const std::string head = line.substr(2, line.find("  ", 2) - 2);
        const std::string name = head.substr(0, head.find(' '));
        if (block == "Subcommands:") {
            help.subcommands.push_back(name);
        } else if (block == "Options:") {
            std::stringstream forms(name);
            for (std::string form; std::getline(forms, form, ',');) {
                if (form != "-h" && form != "--help")
                    help.options.push_back(form);
            }
        }
    }
    return help;
}

// Every command ("run", "dataset build") with its options.
std::map<std::string, std::vector<std::string>> commands() {
    std::map<std::string, std::vector<std::string>> result;
    std::vector<std::string> pending = help_of("").subcommands;
    while (!pending.empty()) {
        const std::string command = pending.back();
        pending.pop_back();
        const HelpText help = help_of(command);
        for (const std::string& sub : help.subcommands)
            pending.push_back(command + " " + sub);
        if (help.subcommands.empty())
            result[command] = help.options;
    }
    return result;
}

// The lines of the fenced code blocks of a Markdown text.
std::vector<std::string> code_lines(const std::string& markdown) {
    std::vector<std::string> lines;
    std::istringstream in(markdown);
    bool fenced = false;
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("```")) {
            fenced = !fenced;
        } else if (fenced) {
            lines.push_back(line);
        }
    }
    return lines;
}

// Each `hetsim` command line in `lines` (the binary as any path ending in "hetsim"): its words
// up to a comment, a pipe or the end of the command.
std::vector<std::vector<std::string>> hetsim_invocations(const std::vector<std::string>& lines) {
    std::vector<std::vector<std::string>> found;
    for (const std::string& line : lines) {
        std::istringstream words(line.substr(0, line.find(" #")));
        std::vector<std::string> invocation;
        bool inside = false;
        for (std::string word; words >> word;) {
            if (word == "|" || word == "&&" || word == ";" || word == ">" || word == "2>&1")
                break;
            if (!inside && (word == "hetsim" || word.ends_with("/hetsim"))) {
                inside = true;
                continue;
            }
            if (inside)
                invocation.push_back(word);
        }
        if (inside)
            found.push_back(invocation);
    }
    return found;
}

// Checks one `hetsim ...` line against the real commands and their options.
void check_invocation(const std::vector<std::string>& words,
                      const std::map<std::string, std::vector<std::string>>& known,
                      const std::string& where) {
    const std::string shown = "hetsim " + [&] {
        std::string s;
        for (const auto& w : words)
            s += (s.empty() ? "" : " ") + w;
        return s;
    }();
    // `hetsim --version`, and a placeholder such as `hetsim <command> --help`.
    if (words.empty() || words[0] == "--version" || words[0] == "--help" ||
        words[0].starts_with("<"))
        return;
    std::string command = words[0];
    std::size_t first_argument = 1;
    if (!known.contains(command) && words.size() > 1 && known.contains(command + " " + words[1])) {
        command += " " + words[1];
        first_argument = 2;
    }
    if (!known.contains(command)) {
        ADD_FAILURE() << where << " shows `" << shown << "`, but '" << words[0]
                      << "' is not a hetsim command (hetsim --help lists them)";
        return;
    }
    const std::vector<std::string>& options = known.at(command);
    for (std::size_t i = first_argument; i < words.size(); ++i) {
        std::string option = words[i].substr(words[i].find_first_not_of('['));
        option = option.substr(0, option.find_first_of("=]"));
        if (!option.starts_with("-") || option == "--help" || option == "-h")
            continue;
        EXPECT_TRUE(std::find(options.begin(), options.end(), option) != options.end())
            << where << " shows `" << shown << "`, but `hetsim " << command << "` has no option "
            << option;
    }
}

// --- the tests
// ------------------------------------------------------------------------------------

TEST(UsageDoc, NamesEveryCommandAndOption) {
    const std::string doc = usage_doc();
    const auto known = commands();
    ASSERT_GE(known.size(), 12u) << "hetsim --help lists fewer commands than expected";
    for (const auto& [command, options] : known) {
        const std::string heading = "### `hetsim " + command + "`";
        const std::string text = section(doc, heading);
        for (const std::string& option : options) {
            EXPECT_TRUE(mentions_option(text, option))
                << "`hetsim " << command << "` has option " << option << ", but section '"
                << heading << "' of docs/usage.md does not mention it; document it there";
        }
    }
    EXPECT_TRUE(mentions_option(section(doc, "## Commands"), "--version"))
        << "hetsim --version is not documented in section '## Commands' of docs/usage.md";
}

TEST(UsageDoc, ShowsOnlyRealCommandsAndOptions) {
    const auto known = commands();
    const auto invocations = hetsim_invocations(code_lines(usage_doc()));
    ASSERT_GE(invocations.size(), known.size()) << "docs/usage.md shows too few command lines";
    for (const auto& words : invocations)
        check_invocation(words, known, "docs/usage.md");
}

TEST(UsageDoc, ReadmeShowsOnlyRealCommandsAndOptions) {
    const auto known = commands();
    const std::string readme = read_file(kSource / "README.md");
    const auto invocations = hetsim_invocations(code_lines(readme));
    ASSERT_GE(invocations.size(), 10u) << "README.md shows too few command lines";
    for (const auto& words : invocations)
        check_invocation(words, known, "README.md");
    EXPECT_NE(readme.find("docs/usage.md"), std::string::npos)
        << "README.md does not point to docs/usage.md";
}

TEST(UsageDoc, NamesEveryYamlKey) {
    TempDir scratch;
    const std::vector<Key> keys = accepted_keys(scratch.path());
    ASSERT_GE(keys.size(), 150u) << "the loaders were heard checking too few keys";
    std::set<std::string> headings;
    for (const Key& k : keys)
        headings.insert(k.heading);
    for (const char* expected :
         {"## Study files", "### Workloads", "## Platform files", "## Memory specs",
          "## Sweep files", "## Compare files", "## Dataset specs"}) {
        EXPECT_TRUE(headings.contains(expected)) << "no key was heard for '" << expected << "'";
    }
    const std::string doc = usage_doc();
    // Keys every device component takes are documented once, for all of them.
    const std::string common = section(doc, "### Keys every component takes");
    for (const std::string& key : sim::device_component_keys({})) {
        EXPECT_TRUE(mentions_key(common, key))
            << "device components take key '" << key << "', but section '### Keys every "
            << "component takes' of docs/usage.md does not mention it; document it there";
    }
    std::map<std::string, std::string> texts;
    std::set<std::string> reported;
    for (const Key& k : keys) {
        if (!texts.contains(k.heading))
            texts[k.heading] = section(doc, k.heading);
        const bool component = k.heading.starts_with("### `");
        const bool found =
            mentions_key(texts[k.heading], k.key) || (component && mentions_key(common, k.key));
        if (!found && reported.insert(k.heading + "/" + k.key).second) {
            ADD_FAILURE() << "key '" << k.key << "' (accepted at " << k.where
                          << ") is not in docs/usage.md; document it in section '" << k.heading
                          << "'";
        }
    }
}

TEST(UsageDoc, NamesEveryComponentType) {
    app::register_all();
    const std::string platforms = section(usage_doc(), "## Platform files");
    for (const auto* type : sim::ComponentRegistry::instance().all()) {
        const std::string heading = "### `" + type->type + "`";
        EXPECT_NE(platforms.find("\n" + heading), std::string::npos)
            << "component type '" << type->type << "' (" << type->kind << ") has no section '"
            << heading << "' under '## Platform files' of docs/usage.md";
    }
}

TEST(UsageDoc, NamesEveryWorkloadAndKnob) {
    const std::string workloads = section(usage_doc(), "### Workloads");
    for (const auto& model : sim::workloads::list_models()) {
        const std::string row_start = "| `" + model.name + "` |";
        const std::size_t at = workloads.find("\n" + row_start);
        if (at == std::string::npos) {
            ADD_FAILURE() << "model '" << model.name << "' has no row '" << row_start
                          << " ...' in section '### Workloads' of docs/usage.md";
            continue;
        }
        const std::string row = workloads.substr(at + 1, workloads.find('\n', at + 1) - at - 1);
        for (const auto& knob : model.knobs) {
            EXPECT_TRUE(mentions_key(row, knob.name))
                << "model '" << model.name << "' has knob '" << knob.name
                << "', but its row in section '### Workloads' of docs/usage.md does not name "
                << "it (as `" << knob.name << "` or " << knob.name << "=...)";
        }
    }
}

TEST(UsageDoc, NamesEveryPlacerWithItsArguments) {
    app::register_all();
    const std::string placers = section(usage_doc(), "## Placers");
    for (const auto* p : placement::PlacerRegistry::instance().all()) {
        EXPECT_NE(placers.find("`" + p->usage + "`"), std::string::npos)
            << "placer '" << p->name << "' is not in section '## Placers' of docs/usage.md as "
            << "`" << p->usage << "` (its usage, as `hetsim list placers` prints it)";
        for (const std::string& help : p->argument_help) {
            const std::string argument = help.substr(0, help.find('='));
            EXPECT_TRUE(mentions_key(placers, argument))
                << "placer '" << p->name << "' takes argument '" << argument
                << "', not described in section '## Placers' of docs/usage.md";
        }
        for (const std::string& old : p->deprecated_names) {
            EXPECT_NE(placers.find("`" + old + "`"), std::string::npos)
                << "placer '" << p->name << "' still accepts its old name '" << old
                << "', not mentioned in section '## Placers' of docs/usage.md";
        }
    }
}

TEST(UsageDoc, NamesEveryResultsColumnAndExitCode) {
    const std::string doc = usage_doc();
    const std::string outputs = section(doc, "## Output files");
    for (const std::string& column : app::results_csv_columns()) {
        EXPECT_NE(outputs.find("`" + column + "`"), std::string::npos)
            << "results.csv has column '" << column << "', not in section '## Output files' of "
            << "docs/usage.md";
    }
    const std::string exits = section(doc, "## Exit codes");
    for (const char* code : {"| 0 |", "| 1 |", "| 2 |"}) {
        EXPECT_NE(exits.find(code), std::string::npos)
            << "section '## Exit codes' of docs/usage.md has no row " << code;
    }
}

}  // namespace
}  // namespace hetsim::testing
