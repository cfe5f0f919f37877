#include "sim/config.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include "sim/atomic_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <utility>

#include "sim/config_keys.hpp"

namespace hetsim::sim {

namespace {

KeyListener& key_listener() {
    static KeyListener listener;
    return listener;
}

std::string compose_message(const std::string& file, const std::string& yaml_path, int line,
                            const std::string& message) {
    std::string text = file;
    if (line > 0) {
        text += fmt::format(":{}", line);
    }
    if (!text.empty()) {
        text += ": ";
    }
    if (!yaml_path.empty()) {
        text += yaml_path + ": ";
    }
    return text + message;
}

std::string join_path(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

// 1-based line of a node, 0 when yaml-cpp has no position for it (nodes built in code).
int mark_line(const YAML::Node& node) {
    if (!node.IsDefined()) {
        return 0;
    }
    const YAML::Mark mark = node.Mark();
    return mark.is_null() ? 0 : mark.line + 1;
}

// How a value reads in "expected X, got Y".
std::string describe(const YAML::Node& node) {
    if (!node.IsDefined() || node.IsNull()) {
        return "nothing";
    }
    if (node.IsMap()) {
        return "a map";
    }
    if (node.IsSequence()) {
        return "a sequence";
    }
    return fmt::format("'{}'", node.Scalar());
}

// No Debian package offers edit distance in a lighter way than this 15-line function.
std::size_t levenshtein(std::string_view a, std::string_view b) {
    std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        previous[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::string_view strip_plus(std::string_view text) {
    // from_chars rejects a leading '+'; YAML and people accept it.
    if (text.size() >= 2 && text.front() == '+' && text[1] != '+' && text[1] != '-') {
        text.remove_prefix(1);
    }
    return text;
}

// Where each document of a YAML stream starts, and where its first node is, from yaml-cpp's
// event parser, which builds no nodes.
class DocumentStarts : public YAML::EventHandler {
public:
    std::vector<YAML::Mark> starts;
    std::vector<YAML::Mark> first_nodes;  // the document's start when it has no node

    void OnDocumentStart(const YAML::Mark& mark) override {
        starts.push_back(mark);
        first_nodes.push_back(mark);
        nodes_ = 0;
    }
    void OnDocumentEnd() override {}
    // The first explicit tag ("!!binary", "!!str", "!custom") and where it is. hetsim reads
    // every value by its key's type and would ignore a tag: `study: !!binary aGVsbG8=` would
    // run a study named "aGVsbG8=" instead of "hello", and `seq_len: !!str 8` would be 8.
    std::optional<std::pair<YAML::Mark, std::string>> first_tag;

    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, ""); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, ""); }
    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                  const std::string& value) override {
        node(mark, tag);
        // yaml-cpp 0.7 has no merge keys: `<<: *base` became a key named "<<", and the keys it
        // should have brought in were reported missing. A plain "<<" anywhere (quoted is text).
        if (!first_merge && tag == "?" && value == "<<")
            first_merge = mark;
    }
    std::optional<YAML::Mark> first_merge;
    void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        node(mark, tag);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        node(mark, tag);
    }
    void OnMapEnd() override {}

private:
    void node(const YAML::Mark& mark, const std::string& tag) {
        if (nodes_++ == 0)
            first_nodes.back() = mark;
        // yaml-cpp gives an untagged plain node "?" and a quoted scalar "!".
        if (!first_tag && !tag.empty() && tag != "?" && tag != "!")
            first_tag.emplace(mark, tag);
    }
    std::size_t nodes_ = 0;
};

InputError invalid_yaml(const std::string& label, const YAML::Exception& error) {
    // yaml-cpp's recursion guard (2000 of its own frames, a few hundred levels of nested lists
    // or maps) reports only "bad file".
    const bool too_deep = dynamic_cast<const YAML::DeepRecursion*>(&error) != nullptr;
    return InputError(label, "", error.mark.is_null() ? 0 : error.mark.line + 1,
                      too_deep ? std::string("invalid YAML: nested too deep (the YAML parser "
                                             "stops at a few hundred levels of lists or maps)")
                               : fmt::format("invalid YAML: {}", error.msg));
}

YAML::Node parse_yaml(const std::string& text_with_bom, const std::string& label) {
    // A UTF-8 byte-order mark (editors on Windows write one) would become part of the first key
    // ("\uFEFFstudy"): dropped.
    constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
    const std::string yaml_text = std::string_view(text_with_bom).starts_with(kUtf8Bom)
                                      ? text_with_bom.substr(kUtf8Bom.size())
                                      : text_with_bom;
    // yaml-cpp decodes UTF-16 and UTF-32 by their byte-order marks, and a stray one turns the
    // file into unreadable text that the error then echoes: hetsim reads UTF-8 (a UTF-8 BOM is
    // fine).
    for (const std::string_view bom :
         {std::string_view("\xFF\xFE", 2), std::string_view("\xFE\xFF", 2),
          std::string_view("\x00\x00\xFE\xFF", 4)}) {
        if (std::string_view(yaml_text).starts_with(bom))
            throw InputError(label, "", 0,
                             "the file starts with a UTF-16 or UTF-32 byte-order mark; save it "
                             "as UTF-8");
    }
    // Documents are counted with yaml-cpp's event parser, not YAML::LoadAll: on some malformed
    // streams (a stray ',' where a node should start) yaml-cpp 0.7 returns the same empty
    // document forever, and LoadAll allocates until the process is killed (jbeder/yaml-cpp#1040,
    // fixed upstream in #1318/#1319, after Debian 12's 0.7.0; found by tests/fuzz). A document
    // that starts where the previous one started has consumed nothing: a syntax error.
    DocumentStarts documents;
    try {
        std::istringstream stream(yaml_text);
        YAML::Parser parser(stream);
        while (parser.HandleNextDocument(documents)) {
            const std::size_t n = documents.starts.size();
            if (n >= 2 && documents.starts[n - 1].pos == documents.starts[n - 2].pos) {
                const YAML::Mark& at = documents.starts[n - 1];
                throw InputError(
                    label, "", at.line + 1,
                    fmt::format("invalid YAML: cannot parse past column {}", at.column + 1));
            }
        }
    } catch (const YAML::Exception& error) {
        throw invalid_yaml(label, error);
    }
    if (documents.starts.empty()) {
        return YAML::Node(YAML::NodeType::Null);
    }
    if (documents.starts.size() > 1) {
        // yaml-cpp's Load would silently drop everything after the first "---".
        throw InputError(
            label, "", documents.first_nodes[1].line + 1,
            fmt::format("expected one YAML document, found {}", documents.starts.size()));
    }
    if (documents.first_tag) {
        // The long form yaml-cpp reports for "!!x" is written back as the user wrote it.
        std::string tag = documents.first_tag->second;
        constexpr std::string_view kCoreTags = "tag:yaml.org,2002:";
        if (tag.starts_with(kCoreTags))
            tag = "!!" + tag.substr(kCoreTags.size());
        throw InputError(label, "", documents.first_tag->first.line + 1,
                         fmt::format("YAML tags such as '{}' are not accepted: write the value "
                                     "without a tag; each key's type is fixed",
                                     tag.size() > 40 ? tag.substr(0, 40) + "..." : tag));
    }
    if (documents.first_merge) {
        throw InputError(label, "", documents.first_merge->line + 1,
                         "YAML merge keys ('<<') are not supported: write the keys out");
    }
    try {
        return YAML::Load(yaml_text);
    } catch (const YAML::Exception& error) {
        throw invalid_yaml(label, error);
    }
}

}  // namespace

InputError::InputError(std::string file, std::string yaml_path, int line, std::string message)
    : std::runtime_error(compose_message(file, yaml_path, line, message)),
      file_(std::move(file)),
      yaml_path_(std::move(yaml_path)),
      message_(std::move(message)),
      line_(line) {}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
    const std::size_t max_distance = std::max<std::size_t>(2, word.size() / 3);
    std::string best;
    std::size_t best_distance = max_distance + 1;
    for (const std::string& candidate : candidates) {
        const std::size_t distance = levenshtein(word, candidate);
        if (distance < best_distance) {
            best = candidate;
            best_distance = distance;
        }
    }
    return best;
}

std::vector<std::filesystem::path> config_search_path() {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("HETSIM_CONFIG_PATH"); env != nullptr) {
        std::string_view rest = env;
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            const std::string_view dir = rest.substr(0, colon);
            if (!dir.empty())
                candidates.emplace_back(dir);
            rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        }
    }
    candidates.emplace_back("configs");
#ifdef HETSIM_SOURCE_DIR
    candidates.push_back(fs::path(HETSIM_SOURCE_DIR) / "configs");
#endif
    std::vector<fs::path> existing;
    for (const fs::path& dir : candidates) {
        std::error_code ec;
        if (fs::is_directory(dir, ec))
            existing.push_back(dir);
    }
    return existing;
}

std::optional<std::filesystem::path> find_config_file(const std::filesystem::path& relative) {
    for (const auto& dir : config_search_path()) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(dir / relative, ec))
            return dir / relative;
    }
    return std::nullopt;
}

ConfigNode::ConfigNode(YAML::Node node, std::string file, std::string path)
    // A missing key of a const node is an invalid "zombie" on which most yaml-cpp calls throw;
    // an explicit Undefined node answers every query.
    : node_(node.IsDefined() ? node : YAML::Node(YAML::NodeType::Undefined)),
      file_(std::move(file)),
      path_(std::move(path)) {}

ConfigNode& ConfigNode::operator=(const ConfigNode& other) {
    // Both nodes are valid (the constructor replaces zombies), so reset() cannot throw.
    node_.reset(other.node_);
    file_ = other.file_;
    path_ = other.path_;
    parent_line_ = other.parent_line_;
    return *this;
}

ConfigNode& ConfigNode::operator=(ConfigNode&& other) noexcept {
    node_.reset(other.node_);
    file_ = std::move(other.file_);
    path_ = std::move(other.path_);
    parent_line_ = other.parent_line_;
    return *this;
}

ConfigNode ConfigNode::load_file(const std::filesystem::path& file) {
    const std::string label = file.string();
    // A FIFO would block the read forever, a huge file exhaust memory (sim/atomic_file.hpp).
    if (const auto problem = input_file_problem(file))
        throw InputError(label, "", 0, *problem + ", expected a YAML file");
    std::FILE* stream = std::fopen(label.c_str(), "rb");
    if (stream == nullptr) {
        throw InputError(label, "", 0, fmt::format("cannot read file: {}", std::strerror(errno)));
    }
    std::string text;
    char buffer[65536];
    std::size_t count = 0;
    while ((count = std::fread(buffer, 1, sizeof buffer, stream)) > 0) {
        text.append(buffer, count);
    }
    // fopen succeeds on a directory; the read is where EISDIR shows up.
    const bool failed = std::ferror(stream) != 0;
    const int read_errno = errno;
    std::fclose(stream);
    if (failed) {
        throw InputError(label, "", 0,
                         fmt::format("cannot read file: {}", std::strerror(read_errno)));
    }
    return from_string(text, label);
}

ConfigNode ConfigNode::from_string(const std::string& yaml_text, std::string file_label) {
    YAML::Node root = parse_yaml(yaml_text, file_label);
    return ConfigNode(root, std::move(file_label), "");
}

bool ConfigNode::has(const std::string& key) const {
    return node_.IsMap() && (*this)[key].defined();
}

ConfigNode ConfigNode::operator[](const std::string& key) const {
    ConfigNode child;
    if (node_.IsMap()) {
        // node_ is const here, so the lookup does not insert the key.
        child = ConfigNode(node_[key], file_, join_path(path_, key));
    } else if (node_.IsScalar() || node_.IsSequence()) {
        fail(fmt::format("expected a map with key '{}', got {}", key, describe(node_)));
    } else {
        // Missing or empty parent: every child is missing too, so optional getters fall back.
        child = ConfigNode(YAML::Node(YAML::NodeType::Undefined), file_, join_path(path_, key));
    }
    child.parent_line_ = line();
    return child;
}

ConfigNode ConfigNode::at(const std::string& key) const {
    ConfigNode child = (*this)[key];
    if (!child.node_.IsDefined()) {
        fail(fmt::format("missing key '{}'", key));
    }
    return child;
}

ConfigNode ConfigNode::at(std::size_t index) const {
    expect_sequence();
    if (index >= node_.size()) {
        fail(fmt::format("index {} is out of range: the sequence has {} element(s)", index,
                         node_.size()));
    }
    ConfigNode child(node_[index], file_, join_path(path_, std::to_string(index)));
    child.parent_line_ = line();
    return child;
}

std::vector<std::string> ConfigNode::keys() const {
    std::vector<std::string> result;
    if (!defined()) {
        return result;
    }
    expect_map();
    for (const auto& entry : node_) {
        if (!entry.first.IsScalar()) {
            throw InputError(
                file_, path_, mark_line(entry.first) > 0 ? mark_line(entry.first) : line(),
                fmt::format("keys must be plain names, got {}", describe(entry.first)));
        }
        result.push_back(entry.first.Scalar());
    }
    return result;
}

KeyListener set_key_listener(KeyListener listener) {
    return std::exchange(key_listener(), std::move(listener));
}

void ConfigNode::expect_keys(const std::vector<std::string>& allowed,
                             const std::vector<std::string>& internal) const {
    if (key_listener())
        key_listener()(*this, allowed);
    if (!defined()) {
        return;
    }
    expect_map();
    std::set<std::string> seen;
    for (const auto& entry : node_) {
        const int key_line = mark_line(entry.first) > 0 ? mark_line(entry.first) : line();
        if (!entry.first.IsScalar()) {
            throw InputError(
                file_, path_, key_line,
                fmt::format("keys must be plain names, got {}", describe(entry.first)));
        }
        const std::string& key = entry.first.Scalar();
        if (!seen.insert(key).second) {
            // yaml-cpp keeps both entries and lookups see only the first; say so instead.
            throw InputError(file_, path_, key_line, fmt::format("duplicate key '{}'", key));
        }
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end() ||
            std::find(internal.begin(), internal.end(), key) != internal.end()) {
            continue;
        }
        std::string message = fmt::format("unknown key '{}'", key);
        if (const std::string suggestion = did_you_mean(key, allowed); !suggestion.empty()) {
            message += fmt::format(" (did you mean '{}'?)", suggestion);
        }
        message += fmt::format("; expected one of: {}", fmt::join(allowed, ", "));
        throw InputError(file_, path_, key_line, message);
    }
}

void ConfigNode::expect_map() const {
    if (node_.IsMap()) {
        return;
    }
    if (!node_.IsDefined()) {
        fail_missing();
    }
    fail(fmt::format("expected a map, got {}", describe(node_)));
}

void ConfigNode::expect_sequence() const {
    if (node_.IsSequence()) {
        return;
    }
    if (!node_.IsDefined()) {
        fail_missing();
    }
    fail(fmt::format("expected a sequence, got {}", describe(node_)));
}

const std::string& ConfigNode::scalar(std::string_view expected) const {
    if (!node_.IsDefined()) {
        fail_missing();
    }
    if (!node_.IsScalar()) {
        fail(fmt::format("expected {}, got {}", expected, describe(node_)));
    }
    return node_.Scalar();
}

std::string ConfigNode::as_string() const {
    return scalar("a string");
}

std::int64_t ConfigNode::as_int() const {
    const std::string& text = scalar("an integer");
    const std::string_view digits = strip_plus(text);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) {
        fail(fmt::format("integer out of range, got '{}'", text));
    }
    if (ec != std::errc() || end != digits.data() + digits.size()) {
        fail(fmt::format("expected an integer, got '{}'", text));
    }
    return value;
}

double ConfigNode::as_double() const {
    const std::string& text = scalar("a number");
    const std::string_view digits = strip_plus(text);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value)) {
        fail(fmt::format("expected a finite number, got '{}'", text));
    }
    return value;
}

bool ConfigNode::as_bool() const {
    const std::string& text = scalar("a boolean");
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    // The YAML 1.1 spellings, which yaml-cpp's own as<bool> also takes.
    if (lower == "true" || lower == "yes" || lower == "on") {
        return true;
    }
    if (lower == "false" || lower == "no" || lower == "off") {
        return false;
    }
    fail(fmt::format("expected a boolean (true or false), got '{}'", text));
}

double ConfigNode::as_quantity(Quantity quantity) const {
    const std::string& text = scalar(fmt::format("a {}", to_string(quantity)));
    try {
        return parse_quantity(text, quantity);
    } catch (const UnitError& error) {
        fail(error.what());
    }
}

std::string ConfigNode::as_folder_name() const {
    const std::string name = as_string();
    constexpr std::size_t kMaxLength = 100;
    const bool printable = std::all_of(name.begin(), name.end(), [](char c) {
        return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
    });
    if (name.empty() || name.size() > kMaxLength || !printable ||
        name.find_first_of("/\\") != std::string::npos || name == "." || name == "..") {
        // The name itself when it can be printed on one line, else what is wrong with it.
        const std::string got =
            printable && name.size() <= kMaxLength
                ? fmt::format("'{}'", name)
                : fmt::format("{} bytes{}", name.size(),
                              printable ? "" : ", some of them control characters");
        // Counted in bytes, as the file system limits a folder name (é is two).
        fail(
            fmt::format("expected a name of 1 to {} bytes of printable characters (UTF-8) "
                        "without '/' or '\\', not '.' or '..' (it names the output folder), "
                        "got {}",
                        kMaxLength, got));
    }
    return name;
}

std::vector<std::string> ConfigNode::as_string_list() const {
    if (node_.IsSequence()) {
        std::vector<std::string> result;
        for (std::size_t i = 0; i < node_.size(); ++i) {
            result.push_back(at(i).as_string());
        }
        return result;
    }
    if (node_.IsScalar()) {
        return {node_.Scalar()};
    }
    if (!node_.IsDefined()) {
        fail_missing();
    }
    fail(fmt::format("expected a list of strings, got {}", describe(node_)));
}

std::string ConfigNode::get_string(const std::string& key, const std::string& fallback) const {
    const ConfigNode child = (*this)[key];
    return child.defined() ? child.as_string() : fallback;
}

std::int64_t ConfigNode::get_int(const std::string& key, std::int64_t fallback) const {
    const ConfigNode child = (*this)[key];
    return child.defined() ? child.as_int() : fallback;
}

double ConfigNode::get_double(const std::string& key, double fallback) const {
    const ConfigNode child = (*this)[key];
    return child.defined() ? child.as_double() : fallback;
}

bool ConfigNode::get_bool(const std::string& key, bool fallback) const {
    const ConfigNode child = (*this)[key];
    return child.defined() ? child.as_bool() : fallback;
}

double ConfigNode::get_quantity(const std::string& key, Quantity quantity,
                                double fallback_si) const {
    const ConfigNode child = (*this)[key];
    return child.defined() ? child.as_quantity(quantity) : fallback_si;
}

double ConfigNode::require_positive_quantity(const std::string& key, Quantity quantity) const {
    const ConfigNode child = at(key);
    const double value = child.as_quantity(quantity);
    if (!(value > 0.0)) {
        // Quote what the user wrote: "0 MiB" says more than a re-formatted "0 B".
        child.fail(fmt::format("must be > 0, got '{}'", child.node_.Scalar()));
    }
    return value;
}

void ConfigNode::fail(const std::string& message) const {
    throw InputError(file_, path_, line(), message);
}

void ConfigNode::fail_missing() const {
    // Reported at the parent, which exists and has a line: "cpu: missing key 'clock'".
    const std::size_t dot = path_.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : path_.substr(0, dot);
    const std::string key = dot == std::string::npos ? path_ : path_.substr(dot + 1);
    throw InputError(file_, parent, parent_line_,
                     key.empty() ? "missing value" : fmt::format("missing key '{}'", key));
}

int ConfigNode::line() const {
    const int own = mark_line(node_);
    return own > 0 ? own : parent_line_;
}

namespace {

constexpr std::string_view kOverrideLabel = "--set";
// Parts of a --set path at most: assigning walks it recursively, and no schema is nearly as
// deep (a 30,000-part path overflowed the stack).
constexpr std::size_t kMaxOverrideDepth = 64;

std::string_view trim(std::string_view text) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
    while (!text.empty() && is_space(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && is_space(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

struct Override {
    std::string path;  // the full dotted path, for messages
    std::vector<std::string> parts;
    YAML::Node value;
};

[[noreturn]] void override_error(const Override& assignment, const std::string& message) {
    throw InputError(std::string(kOverrideLabel), assignment.path, 0, message);
}

// `node` is taken by value on purpose: a Node copy is a second handle to the same tree
// entry, while operator= on an existing handle would rebind the entry it points at
// (yaml-cpp's reference semantics) and so overwrite the parent with the child.
void assign(YAML::Node node, const Override& assignment, std::size_t depth) {
    const std::string& part = assignment.parts[depth];
    const bool last = depth + 1 == assignment.parts.size();
    const std::string prefix = fmt::format(
        "{}", fmt::join(assignment.parts.begin(), assignment.parts.begin() + depth, "."));

    if (node.IsSequence()) {
        std::size_t index = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
        if (ec != std::errc() || end != part.data() + part.size()) {
            override_error(assignment, fmt::format("'{}' is a sequence, so '{}' must be an index",
                                                   prefix, part));
        }
        if (index > node.size()) {
            override_error(assignment,
                           fmt::format("index {} is out of range: '{}' has {} element(s)", index,
                                       prefix, node.size()));
        }
        if (index == node.size()) {
            // One past the end appends, so a list can grow from the command line.
            node.push_back(last ? assignment.value : YAML::Node(YAML::NodeType::Map));
            if (last) {
                return;
            }
        } else if (last) {
            node[index] = assignment.value;
            return;
        }
        if (node[index].IsScalar()) {
            override_error(assignment, fmt::format("cannot set a key inside '{}.{}': it is {}",
                                                   prefix, part, describe(node[index])));
        }
        assign(node[index], assignment, depth + 1);
        return;
    }

    if (node.IsScalar()) {
        override_error(assignment, fmt::format("cannot set a key inside '{}': it is {}", prefix,
                                               describe(node)));
    }
    if (last) {
        if (assignment.value.IsNull() && node[part].IsDefined()) {
            // `~` removes this entry only: rebinding the key, not writing through the node,
            // which YAML aliases may share (mcm36.yaml's chips are all aliases of chip0).
            node.remove(part);
        }
        node[part] = assignment.value;
        return;
    }
    if (!node[part].IsDefined() || node[part].IsNull()) {
        node[part] = YAML::Node(YAML::NodeType::Map);
    }
    if (node[part].IsScalar()) {
        override_error(assignment, fmt::format("cannot set a key inside '{}': it is {}",
                                               join_path(prefix, part), describe(node[part])));
    }
    assign(node[part], assignment, depth + 1);
}

}  // namespace

// A value is written into the node at the path, which YAML aliases of it share (in mcm36.yaml,
// setting ring0.bandwidth sets every ring link's); `~` instead rebinds that one key to null
// (removing chip12 leaves chip0, which it aliases, alone).
void apply_override(YAML::Node& root, std::string_view assignment_text) {
    const std::size_t equals = assignment_text.find('=');
    if (equals == std::string_view::npos) {
        throw InputError(std::string(kOverrideLabel), std::string(assignment_text), 0,
                         "expected PATH=VALUE");
    }
    Override assignment;
    assignment.path = std::string(trim(assignment_text.substr(0, equals)));
    const std::string value_text(trim(assignment_text.substr(equals + 1)));

    std::string_view rest = assignment.path;
    while (true) {
        const std::size_t dot = rest.find('.');
        assignment.parts.emplace_back(rest.substr(0, dot));
        if (assignment.parts.back().empty()) {
            override_error(assignment, "expected PATH=VALUE with a dotted path such as a.b.c");
        }
        if (assignment.parts.size() > kMaxOverrideDepth) {
            // The path itself would be a 100 KB message: its start names it.
            throw InputError(std::string(kOverrideLabel), assignment.path.substr(0, 60) + "...", 0,
                             fmt::format("a path has at most {} parts", kMaxOverrideDepth));
        }
        if (dot == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(dot + 1);
    }

    // Through the files' parser: a tag (`samples=!!int 2`) or a merge key is refused here as
    // in a file, where YAML::Load took them.
    try {
        assignment.value = parse_yaml(std::string(value_text), std::string(kOverrideLabel));
    } catch (const InputError& error) {
        std::string why = error.message();
        constexpr std::string_view kPrefix = "invalid YAML: ";
        if (why.starts_with(kPrefix))
            why.erase(0, kPrefix.size());
        override_error(assignment, fmt::format("invalid YAML value '{}': {}", value_text, why));
    }

    if (!root.IsDefined() || root.IsNull()) {
        // Rebinding is what we want here: the caller's handle becomes the new map.
        root = YAML::Node(YAML::NodeType::Map);
    }
    assign(root, assignment, 0);
}

std::optional<std::string> assignment_behind(const InputError& error,
                                             const std::vector<std::string>& assignments,
                                             const std::vector<std::string>& also_under) {
    // An empty path is the document's root: an assignment may have added an unknown key there.
    if (error.file() == kOverrideLabel)
        return std::nullopt;
    std::vector<std::string> reported{error.yaml_path()};
    for (const std::string& prefix : also_under)
        reported.push_back(error.yaml_path().empty() ? prefix : prefix + "." + error.yaml_path());
    for (auto it = assignments.rbegin(); it != assignments.rend(); ++it) {
        const std::size_t equals = it->find('=');
        if (equals == std::string::npos)
            continue;
        const std::string path(trim(std::string_view(*it).substr(0, equals)));
        const std::size_t dot = path.rfind('.');
        const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
        const std::string key = path.substr(dot == std::string::npos ? 0 : dot + 1);
        for (const std::string& at : reported) {
            // At the assigned path, or inside the mapping it assigned.
            if (at == path || at.starts_with(path + "."))
                return *it;
            // A key the assignment added where the schema has none.
            if (at == parent &&
                error.message().find("unknown key '" + key + "'") != std::string::npos)
                return *it;
            // An element it set in a list: the list's error is about its elements
            // (`components.dma.endpoints.1=cpu` -> "endpoints: ... got 'cpu' twice").
            if (at == parent && !key.empty() &&
                std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; }))
                return *it;
        }
    }
    return std::nullopt;
}

}  // namespace hetsim::sim
