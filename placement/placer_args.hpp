// The one parser of placer specs "name" / "name:key=value,key=value". A placer declares its
// keys once (kind, range, default, help) in an ArgumentSchema; the same declarations parse the
// spec, check every value, suggest a key for a typo, and write the usage that `hetsim list
// placers` prints, so a key's range and default live in one place.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hetsim::placement {

// "name:arguments" -> trimmed name and everything after the first ':' (arguments may hold
// more ':'). "name" alone -> empty arguments.
struct PlacerSpec {
    std::string name;
    std::string arguments;
};
PlacerSpec split_placer_spec(const std::string& spec);

// `name` alone when `arguments` is empty, else "name:arguments": the spec a placer reports.
std::string join_placer_spec(const std::string& name, const std::string& arguments);

// "unknown placer 'x' (did you mean 'y'?); known: ...".
std::string unknown_placer_message(const std::string& name, const std::vector<std::string>& known);

class PlacerArguments;

// The longest wall-clock limit a placer takes: 10^7 s (116 days). A deadline is a
// steady_clock time point in nanoseconds, which overflows past 9.2e9 s from now, and a limit of
// 1e10 s or `inf` had made every search stop at once with its starting point; anything longer
// than this is no limit in practice, and a search without one leaves `time` out.
inline constexpr double kMaxTimeLimit_s = 1e7;

class ArgumentSchema {
public:
    enum class Kind { integer, number, boolean, choice, text };

    struct Key {
        std::string name;
        Kind kind = Kind::text;
        std::string help;
        std::string default_text;  // shown in the usage and used by the getters; "" = none
        std::int64_t integer_min = 0;
        std::int64_t integer_max = std::numeric_limits<std::int64_t>::max();
        double number_min = 0.0;
        double number_max = std::numeric_limits<double>::infinity();
        bool number_min_exclusive = false;  // value must be > number_min
        std::vector<std::string> choices;
        bool bare = false;      // the value may stand alone: "acyclic" for "mode=acyclic"
        bool rest = false;      // text that runs to the end of the spec, commas included
        bool required = false;  // the spec must give it
    };

    explicit ArgumentSchema(std::string placer) : placer_(std::move(placer)) {}

    // Declarations; each returns *this so a placer declares its keys in one expression. The
    // default is the text a user would write (parsed by the same rules when the key is absent).
    ArgumentSchema& integer(std::string key, std::int64_t min, std::int64_t max,
                            std::string default_text, std::string help);
    ArgumentSchema& number(std::string key, double min, double max, std::string default_text,
                           std::string help);
    ArgumentSchema& positive_number(std::string key, std::string default_text, std::string help);
    // A wall-clock limit in seconds: > 0 (>= 0 when `zero_means_none`) and at most
    // kMaxTimeLimit_s.
    ArgumentSchema& time_limit(std::string key, std::string default_text, std::string help,
                               bool zero_means_none = false);
    ArgumentSchema& boolean(std::string key, std::string default_text, std::string help);
    ArgumentSchema& choice(std::string key, std::vector<std::string> choices,
                           std::string default_text, std::string help);
    ArgumentSchema& text(std::string key, std::string default_text, std::string help);
    // Modifiers of the key declared last: its value may stand alone without "key=" (a choice's
    // value, or a text key: then the whole arguments); it takes the rest of the spec, commas
    // included; the spec must give it.
    ArgumentSchema& bare();
    ArgumentSchema& rest();
    ArgumentSchema& required();

    const std::string& placer() const { return placer_; }
    const std::vector<Key>& keys() const { return keys_; }

    // "tarnawski.latency[:rounds=N,patience=N,...]": the one-line form.
    std::string usage() const;
    // One line per key: "rounds=N  integer in 0..1000000, default 200: <help>".
    std::vector<std::string> key_help() const;

    // Parses the arguments of a spec (the part after ':'). Empty items (",,") are skipped.
    // Throws PlacementError, one line naming the placer and the key: an unknown key (with
    // "did you mean"), a missing '=', a repeated key, or a value of the wrong kind or range.
    PlacerArguments parse(const std::string& arguments) const;

private:
    ArgumentSchema& add(Key key);
    const Key* find(const std::string& name) const;
    [[noreturn]] void fail(const std::string& why) const;
    friend PlacerArguments;

    std::string placer_;
    std::vector<Key> keys_;
};

// Parsed, checked arguments. The getters return the given value or else the declared default;
// asking for an undeclared key, the wrong kind, or a key without value or default is a
// programming error (std::logic_error).
class PlacerArguments {
public:
    bool has(const std::string& key) const { return values_.count(key) != 0; }
    std::int64_t integer(const std::string& key) const;
    double number(const std::string& key) const;
    bool boolean(const std::string& key) const;
    std::string choice(const std::string& key) const;
    std::string text(const std::string& key) const;

private:
    friend class ArgumentSchema;
    explicit PlacerArguments(ArgumentSchema schema) : schema_(std::move(schema)) {}
    const std::string& raw(const std::string& key, ArgumentSchema::Kind kind) const;

    ArgumentSchema schema_;
    std::map<std::string, std::string> values_;
};

}  // namespace hetsim::placement
