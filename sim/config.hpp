// YAML config core: a node that knows its file, YAML path and line, so every error a
// component raises names where it came from. Components parse their own parameters
// through this class.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/units.hpp"

namespace hetsim::sim {

// Bad user input. what() is the full one-line message:
//   "<file>:<line>: <yaml.path>: <message>"  (line omitted when unknown, path when empty).
// The CLI prints it and exits with code 2.
class InputError : public std::runtime_error {
public:
    InputError(std::string file, std::string yaml_path, int line, std::string message);
    const std::string& file() const { return file_; }
    const std::string& yaml_path() const { return yaml_path_; }
    int line() const { return line_; }  // 1-based, 0 when unknown
    const std::string& message() const { return message_; }

private:
    std::string file_, yaml_path_, message_;
    int line_;
};

// Closest candidate by edit distance when it is close enough to be a likely typo, else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// Folders holding the configs hetsim ships (memspecs/, platforms/, studies/), in search order:
// each folder of $HETSIM_CONFIG_PATH (':'-separated; for an installed binary), ./configs, then
// the configs/ folder of the source tree hetsim was built from. Only existing folders are listed.
std::vector<std::filesystem::path> config_search_path();
// The first `relative` (e.g. "memspecs/ddr4-2400.yaml") found in config_search_path().
std::optional<std::filesystem::path> find_config_file(const std::filesystem::path& relative);

class ConfigNode {
public:
    ConfigNode() = default;
    ConfigNode(YAML::Node node, std::string file, std::string path);
    ConfigNode(const ConfigNode&) = default;
    ConfigNode(ConfigNode&&) = default;
    // Rebind this handle to `other`'s node. The defaulted versions would use YAML::Node's
    // operator=, which overwrites the node this one points at, i.e. edits the config tree.
    ConfigNode& operator=(const ConfigNode& other);
    ConfigNode& operator=(ConfigNode&& other) noexcept;

    // Loads and parses a YAML file; unreadable file or syntax error -> InputError.
    static ConfigNode load_file(const std::filesystem::path& file);
    static ConfigNode from_string(const std::string& yaml_text, std::string file_label);

    bool defined() const { return node_.IsDefined() && !node_.IsNull(); }
    bool is_map() const { return node_.IsMap(); }
    bool is_sequence() const { return node_.IsSequence(); }
    bool is_scalar() const { return node_.IsScalar(); }
    bool has(const std::string& key) const;
    std::size_t size() const { return node_.size(); }

    // Child access; the child carries the extended path ("platform.components.cpu.clock").
    // operator[] returns an undefined node for a missing key; at() fails with "missing key".
    ConfigNode operator[](const std::string& key) const;
    ConfigNode at(const std::string& key) const;
    ConfigNode at(std::size_t index) const;
    std::vector<std::string> keys() const;  // in file order

    // Fails on any key not in `allowed`, suggesting the closest allowed one. `internal` keys
    // (ones hetsim adds itself) are accepted too, but never listed or suggested.
    void expect_keys(const std::vector<std::string>& allowed,
                     const std::vector<std::string>& internal = {}) const;
    void expect_map() const;
    void expect_sequence() const;

    std::string as_string() const;
    std::int64_t as_int() const;
    double as_double() const;
    bool as_bool() const;
    double as_quantity(Quantity quantity) const;      // "12 GB/s" -> 1.2e10
    std::vector<std::string> as_string_list() const;  // a sequence, or one scalar
    // A name that becomes an output folder's (a study's, a sweep's, a compare's): 1 to 100
    // printable characters, no '/' or '\\', not "." or ".."; fails naming what is accepted.
    std::string as_folder_name() const;

    // Optional-key getters (default when absent).
    std::string get_string(const std::string& key, const std::string& fallback) const;
    std::int64_t get_int(const std::string& key, std::int64_t fallback) const;
    double get_double(const std::string& key, double fallback) const;
    bool get_bool(const std::string& key, bool fallback) const;
    double get_quantity(const std::string& key, Quantity quantity, double fallback_si) const;
    // Positive-value variants fail with "must be > 0" on zero/negative numbers.
    double require_positive_quantity(const std::string& key, Quantity quantity) const;

    [[noreturn]] void fail(const std::string& message) const;

    const std::string& file() const { return file_; }
    const std::string& path() const { return path_; }
    int line() const;  // 1-based, 0 when unknown
    const YAML::Node& raw() const { return node_; }

private:
    // The scalar's text; otherwise fails with "expected <expected>, got ..." or "missing key".
    const std::string& scalar(std::string_view expected) const;
    // Reports this (absent) node as "missing key '<last path part>'" at its parent.
    [[noreturn]] void fail_missing() const;

    YAML::Node node_;
    std::string file_;
    std::string path_;
    // Line of the parent, reported for a missing key or a value without a position.
    int parent_line_ = 0;
};

// Applies a command-line override "a.b.c=value" (value parsed as YAML) to `root`,
// creating intermediate maps. Sequence elements are addressed by index ("placers.0").
// Throws InputError when the assignment has no '=' or the path crosses a scalar.
void apply_override(YAML::Node& root, std::string_view assignment);

// The assignment among `assignments` ("path=value", as given to apply_override, last one
// first) that an error found after applying them comes from, when one does: the error is at
// its path or inside the value it set, or is an unknown key it added. `also_under` lists
// prefixes whose files report paths without them (a platform file inlined under "platform."
// reports "components.x" for "platform.components.x"). nullopt when the error is the file's own.
std::optional<std::string> assignment_behind(const InputError& error,
                                             const std::vector<std::string>& assignments,
                                             const std::vector<std::string>& also_under = {});

}  // namespace hetsim::sim
