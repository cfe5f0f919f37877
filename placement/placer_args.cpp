#include "placement/placer_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "placement/placer.hpp"
#include "sim/config.hpp"

namespace hetsim::placement {

namespace {

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string format_number(double x) {
    return std::isinf(x) ? (x > 0 ? "inf" : "-inf") : fmt::format("{:g}", x);
}

// What a value of `key` must be, for the usage and for error messages.
std::string expected(const ArgumentSchema::Key& key) {
    using Kind = ArgumentSchema::Kind;
    switch (key.kind) {
        case Kind::integer:
            if (key.integer_max == std::numeric_limits<std::int64_t>::max())
                return fmt::format("an integer >= {}", key.integer_min);
            return fmt::format("an integer in {}..{}", key.integer_min, key.integer_max);
        case Kind::number:
            if (std::isinf(key.number_max))
                return fmt::format("a number {} {}", key.number_min_exclusive ? ">" : ">=",
                                   format_number(key.number_min));
            if (key.number_min_exclusive)
                return fmt::format("a number > {} and <= {}", format_number(key.number_min),
                                   format_number(key.number_max));
            return fmt::format("a number in {}..{}", format_number(key.number_min),
                               format_number(key.number_max));
        case Kind::boolean:
            return "0, 1, true, false, on or off";
        case Kind::choice:
            return fmt::format("one of {}", fmt::join(key.choices, ", "));
        case Kind::text:
            return "a non-empty text";
    }
    return {};
}

// The placeholder of a key's value in the one-line usage.
std::string metavar(const ArgumentSchema::Key& key) {
    using Kind = ArgumentSchema::Kind;
    switch (key.kind) {
        case Kind::integer:
            return "N";
        case Kind::number:
            return "X";
        case Kind::boolean:
            return "0|1";
        case Kind::choice:
            return fmt::format("{}", fmt::join(key.choices, "|"));
        case Kind::text:
            return "S";
    }
    return {};
}

bool parse_integer(const std::string& text, std::int64_t& value) {
    const char* end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    return !text.empty() && error == std::errc{} && ptr == end;
}

bool parse_number(const std::string& text, double& value) {
    if (text.empty() || text.find_first_of(" \t") != std::string::npos)
        return false;
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && !std::isnan(value);
}

bool parse_boolean(const std::string& text, bool& value) {
    if (text == "1" || text == "true" || text == "on") {
        value = true;
        return true;
    }
    if (text == "0" || text == "false" || text == "off") {
        value = false;
        return true;
    }
    return false;
}

// Whether `value` is a valid value of `key`.
bool valid(const ArgumentSchema::Key& key, const std::string& value) {
    using Kind = ArgumentSchema::Kind;
    switch (key.kind) {
        case Kind::integer: {
            std::int64_t x = 0;
            return parse_integer(value, x) && x >= key.integer_min && x <= key.integer_max;
        }
        case Kind::number: {
            double x = 0.0;
            return parse_number(value, x) &&
                   (key.number_min_exclusive ? x > key.number_min : x >= key.number_min) &&
                   x <= key.number_max;
        }
        case Kind::boolean: {
            bool b = false;
            return parse_boolean(value, b);
        }
        case Kind::choice:
            return std::find(key.choices.begin(), key.choices.end(), value) != key.choices.end();
        case Kind::text:
            return !value.empty();
    }
    return false;
}

}  // namespace

PlacerSpec split_placer_spec(const std::string& spec) {
    const std::size_t colon = spec.find(':');
    return PlacerSpec{trim(spec.substr(0, colon)),
                      colon == std::string::npos ? std::string{} : spec.substr(colon + 1)};
}

std::string join_placer_spec(const std::string& name, const std::string& arguments) {
    return arguments.empty() ? name : fmt::format("{}:{}", name, arguments);
}

std::string unknown_placer_message(const std::string& name, const std::vector<std::string>& known) {
    const std::string hint = sim::did_you_mean(name, known);
    return fmt::format("unknown placer '{}'{}; known: {}", name,
                       hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                       fmt::join(known, ", "));
}

namespace {

ArgumentSchema::Key make_key(std::string name, ArgumentSchema::Kind kind, std::string help,
                             std::string default_text) {
    ArgumentSchema::Key key;
    key.name = std::move(name);
    key.kind = kind;
    key.help = std::move(help);
    key.default_text = std::move(default_text);
    return key;
}

}  // namespace

ArgumentSchema& ArgumentSchema::add(Key key) {
    if (find(key.name) != nullptr)
        throw std::logic_error(fmt::format("{}: key '{}' declared twice", placer_, key.name));
    if (!key.default_text.empty() && !valid(key, key.default_text))
        throw std::logic_error(fmt::format("{}: default {}={} is not {}", placer_, key.name,
                                           key.default_text, expected(key)));
    keys_.push_back(std::move(key));
    return *this;
}

ArgumentSchema& ArgumentSchema::integer(std::string key, std::int64_t min, std::int64_t max,
                                        std::string default_text, std::string help) {
    Key k = make_key(std::move(key), Kind::integer, std::move(help), std::move(default_text));
    k.integer_min = min;
    k.integer_max = max;
    return add(std::move(k));
}

ArgumentSchema& ArgumentSchema::number(std::string key, double min, double max,
                                       std::string default_text, std::string help) {
    Key k = make_key(std::move(key), Kind::number, std::move(help), std::move(default_text));
    k.number_min = min;
    k.number_max = max;
    return add(std::move(k));
}

ArgumentSchema& ArgumentSchema::positive_number(std::string key, std::string default_text,
                                                std::string help) {
    Key k = make_key(std::move(key), Kind::number, std::move(help), std::move(default_text));
    k.number_min_exclusive = true;
    return add(std::move(k));
}

ArgumentSchema& ArgumentSchema::time_limit(std::string key, std::string default_text,
                                           std::string help, bool zero_means_none) {
    Key k = make_key(std::move(key), Kind::number, std::move(help), std::move(default_text));
    k.number_min_exclusive = !zero_means_none;
    k.number_max = kMaxTimeLimit_s;
    return add(std::move(k));
}

ArgumentSchema& ArgumentSchema::boolean(std::string key, std::string default_text,
                                        std::string help) {
    return add(make_key(std::move(key), Kind::boolean, std::move(help), std::move(default_text)));
}

ArgumentSchema& ArgumentSchema::choice(std::string key, std::vector<std::string> choices,
                                       std::string default_text, std::string help) {
    Key k = make_key(std::move(key), Kind::choice, std::move(help), std::move(default_text));
    k.choices = std::move(choices);
    return add(std::move(k));
}

ArgumentSchema& ArgumentSchema::text(std::string key, std::string default_text, std::string help) {
    return add(make_key(std::move(key), Kind::text, std::move(help), std::move(default_text)));
}

ArgumentSchema& ArgumentSchema::bare() {
    keys_.back().bare = true;
    return *this;
}

ArgumentSchema& ArgumentSchema::rest() {
    keys_.back().rest = true;
    return *this;
}

ArgumentSchema& ArgumentSchema::required() {
    keys_.back().required = true;
    return *this;
}

const ArgumentSchema::Key* ArgumentSchema::find(const std::string& name) const {
    for (const Key& key : keys_)
        if (key.name == name)
            return &key;
    return nullptr;
}

void ArgumentSchema::fail(const std::string& why) const {
    throw PlacementError(fmt::format("placer '{}': {} (usage: {})", placer_, why, usage()));
}

std::string ArgumentSchema::usage() const {
    if (keys_.empty())
        return placer_;
    std::vector<std::string> required, optional;
    for (const Key& key : keys_)
        (key.required ? required : optional)
            .push_back(key.bare && key.kind == Kind::text
                           ? fmt::format("<{}>", key.name)
                           : fmt::format("{}={}", key.name, metavar(key)));
    std::string out = placer_;
    if (!required.empty())
        out += fmt::format(":{}", fmt::join(required, ","));
    if (!optional.empty())
        out += fmt::format("[{}{}]", required.empty() ? ":" : ",", fmt::join(optional, ","));
    return out;
}

std::vector<std::string> ArgumentSchema::key_help() const {
    std::vector<std::string> lines;
    for (const Key& key : keys_) {
        // A choice or a boolean lists its values in the metavar already.
        std::vector<std::string> facts;
        if (key.kind != Kind::choice && key.kind != Kind::boolean)
            facts.push_back(expected(key));
        if (!key.default_text.empty())
            facts.push_back(fmt::format("default {}", key.default_text));
        if (key.required)
            facts.push_back("required");
        if (key.bare)
            facts.push_back("the value may stand alone");
        if (key.rest)
            facts.push_back("last: takes the rest of the spec, commas included");
        lines.push_back(fmt::format("{}={}  {}{}{}", key.name, metavar(key), key.help,
                                    facts.empty() ? "" : "; ", fmt::join(facts, ", ")));
    }
    return lines;
}

PlacerArguments ArgumentSchema::parse(const std::string& arguments) const {
    PlacerArguments out(*this);
    std::vector<std::string> names;
    for (const Key& key : keys_)
        names.push_back(key.name);
    if (keys_.empty() && !trim(arguments).empty())
        fail(fmt::format("takes no arguments, got '{}'", arguments));
    std::size_t pos = 0;
    // Past a ',' an item follows, even at the end ("samples=10," has an empty second item).
    bool item_follows = !arguments.empty();
    while (pos < arguments.size() || (item_follows && pos == arguments.size())) {
        std::size_t end = arguments.find(',', pos);
        item_follows = end != std::string::npos;
        if (end == std::string::npos)
            end = arguments.size();
        std::string item = trim(arguments.substr(pos, end - pos));
        const std::size_t item_start = pos;
        pos = end + 1;
        // "samples=10," or "a=1,,b=2": a stray comma is a typo (a value cut off, or a spec split
        // where it should not be), not nothing.
        if (item.empty())
            fail(fmt::format("empty argument at character {} of '{}'", item_start + 1, arguments));
        const std::size_t eq = item.find('=');
        std::string name = trim(item.substr(0, eq));
        std::string value;
        const Key* key = nullptr;
        if (eq == std::string::npos) {
            // A value alone: of a choice key that allows it ("tarnawski.ip_throughput:acyclic"),
            // or of a text key that allows it, which then takes the rest ("expert:<file>").
            for (const Key& k : keys_) {
                if (k.bare && (k.kind == Kind::text || std::find(k.choices.begin(), k.choices.end(),
                                                                 item) != k.choices.end()))
                    key = &k;
            }
            if (key == nullptr)
                fail(fmt::format("expected key=value, got '{}' (keys: {})", item,
                                 fmt::join(names, ", ")));
            value = item;
            if (key->rest) {
                value = arguments.substr(item_start);
                pos = arguments.size();
                item_follows = false;
            }
        } else {
            key = find(name);
            if (key == nullptr) {
                const std::string hint = sim::did_you_mean(name, names);
                fail(fmt::format("unknown argument '{}'{}; known: {}", name,
                                 hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                 fmt::join(names, ", ")));
            }
            if (key->rest) {
                // Everything after "key=" up to the end of the spec, commas included.
                const std::size_t value_start = arguments.find('=', item_start) + 1;
                value = arguments.substr(value_start);
                pos = arguments.size();
                item_follows = false;
            } else {
                value = trim(item.substr(eq + 1));
            }
        }
        if (out.values_.count(key->name) != 0)
            fail(fmt::format("argument '{}' is given twice", key->name));
        if (!valid(*key, value))
            fail(fmt::format("{}={}: expected {}", key->name, value, expected(*key)));
        out.values_[key->name] = value;
    }
    for (const Key& key : keys_)
        if (key.required && out.values_.count(key.name) == 0)
            fail(fmt::format("missing argument '{}' ({})", key.name, key.help));
    return out;
}

const std::string& PlacerArguments::raw(const std::string& name, ArgumentSchema::Kind kind) const {
    const ArgumentSchema::Key* key = schema_.find(name);
    if (key == nullptr || key->kind != kind)
        throw std::logic_error(
            fmt::format("{}: argument '{}' is not declared as read", schema_.placer(), name));
    if (auto it = values_.find(name); it != values_.end())
        return it->second;
    if (key->default_text.empty())
        throw std::logic_error(
            fmt::format("{}: argument '{}' has no value and no default", schema_.placer(), name));
    return key->default_text;
}

std::int64_t PlacerArguments::integer(const std::string& key) const {
    std::int64_t x = 0;
    parse_integer(raw(key, ArgumentSchema::Kind::integer), x);
    return x;
}

double PlacerArguments::number(const std::string& key) const {
    double x = 0.0;
    parse_number(raw(key, ArgumentSchema::Kind::number), x);
    return x;
}

bool PlacerArguments::boolean(const std::string& key) const {
    bool b = false;
    parse_boolean(raw(key, ArgumentSchema::Kind::boolean), b);
    return b;
}

std::string PlacerArguments::choice(const std::string& key) const {
    return raw(key, ArgumentSchema::Kind::choice);
}

std::string PlacerArguments::text(const std::string& key) const {
    return raw(key, ArgumentSchema::Kind::text);
}

}  // namespace hetsim::placement
