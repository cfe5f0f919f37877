#include "sim/workloads/json_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "sim/atomic_file.hpp"
#include "sim/op_table.hpp"

namespace hetsim::sim::workloads {

namespace {

using nlohmann::json;
// The writer keeps keys in insertion order ("name" first).
using ordered = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& label, const std::string& where, const std::string& what) {
    throw std::invalid_argument(fmt::format("{}: {}: {}", label, where, what));
}

const json& field(const json& obj, const char* key, const std::string& label,
                  const std::string& where) {
    if (!obj.is_object() || !obj.contains(key))
        bad(label, where, fmt::format("missing '{}'", key));
    return obj.at(key);
}

AttrValue to_attr(const json& v, const std::string& label, const std::string& where) {
    if (v.is_number_integer())
        return v.get<std::int64_t>();
    if (v.is_number())
        return v.get<double>();
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_array() &&
        std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number_integer(); })) {
        return v.get<std::vector<std::int64_t>>();
    }
    if (v.is_array() &&
        std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number(); })) {
        return v.get<std::vector<double>>();
    }
    bad(label, where, "attribute must be a number, a string or a list of numbers");
}

// An optional text field: its value, `fallback` when absent, an error naming it when it is not
// a string (json::value would throw a bare type_error).
std::string text_or(const json& object, const char* key, const char* fallback,
                    const std::string& label, const std::string& where) {
    if (!object.is_object() || !object.contains(key))
        return fallback;
    const json& value = object.at(key);
    if (!value.is_string())
        bad(label, where + "/" + key, fmt::format("expected a string, got {}", value.dump()));
    return value.get<std::string>();
}

// Refuses a key given twice in one object while the text is parsed: nlohmann::json keeps the
// last value without a word, so {"outputs": [...], "outputs": [...]} would drop the first list
// (the YAML loaders refuse duplicate keys for the same reason).
class DuplicateKeyCheck {
public:
    explicit DuplicateKeyCheck(std::string label) : label_(std::move(label)) {}

    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        using Event = json::parse_event_t;
        switch (event) {
            case Event::object_start:
            case Event::array_start:
                enter_value();
                levels_.push_back(Level{event == Event::array_start, 0, {}, {}});
                break;
            case Event::object_end:
            case Event::array_end:
                if (!levels_.empty())
                    levels_.pop_back();
                break;
            case Event::key: {
                Level& object = levels_.back();
                object.key = parsed.get<std::string>();
                if (!object.keys.insert(object.key).second) {
                    bad(label_, pointer(),
                        fmt::format("key {} is given twice; each key may appear once in an object",
                                    json(object.key).dump()));
                }
                break;
            }
            case Event::value:
                enter_value();
                break;
        }
        return true;
    }

private:
    struct Level {
        bool is_array = false;
        std::size_t next_index = 0;  // arrays: the index of the next element
        std::string key;             // objects: the key of the value being read
        std::set<std::string> keys;
    };

    // A value starts inside the innermost container: an array counts its elements.
    void enter_value() {
        if (!levels_.empty() && levels_.back().is_array)
            ++levels_.back().next_index;
    }

    // The JSON pointer (RFC 6901) of the innermost object, e.g. "/ops/3/attrs".
    std::string pointer() const {
        std::string out;
        for (std::size_t i = 0; i + 1 < levels_.size(); ++i) {
            const Level& level = levels_[i];
            out += '/';
            if (level.is_array) {
                out += std::to_string(level.next_index - 1);
                continue;
            }
            for (char c : level.key) {
                if (c == '~')
                    out += "~0";
                else if (c == '/')
                    out += "~1";
                else
                    out += c;
            }
        }
        return out.empty() ? "/" : out;
    }

    std::string label_;
    std::vector<Level> levels_;
};

}  // namespace

Graph parse_json_graph(const std::string& text, const std::string& label) {
    json doc;
    try {
        doc = json::parse(text, DuplicateKeyCheck(label));
    } catch (const json::exception& e) {
        // parse_error, and out_of_range for a number JSON allows but no double holds (1e999).
        throw std::invalid_argument(fmt::format("{}: not valid JSON: {}", label, e.what()));
    }
    Graph graph(doc.is_object() && doc.contains("name") && doc["name"].is_string()
                    ? doc["name"].get<std::string>()
                    : label);
    const json& tensors = field(doc, "tensors", label, "/");
    if (!tensors.is_array())
        bad(label, "/tensors", "expected a list");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const std::string where = fmt::format("/tensors/{}", i);
        const json& t = tensors[i];
        const json& shape = field(t, "shape", label, where);
        if (!shape.is_array())
            bad(label, where + "/shape", "expected a list of integers");
        Shape dims;
        for (const auto& d : shape) {
            if (!d.is_number_integer())
                bad(label, where + "/shape", "expected integers");
            dims.push_back(d.get<std::int64_t>());
        }
        const std::string dtype_text = text_or(t, "dtype", "float32", label, where);
        auto dtype = parse_dtype(dtype_text);
        if (!dtype)
            bad(label, where + "/dtype", fmt::format("unknown dtype '{}'", dtype_text));
        const std::string kind_text = text_or(t, "kind", "activation", label, where);
        TensorKind kind = TensorKind::activation;
        if (kind_text == "input") {
            kind = TensorKind::input;
        } else if (kind_text == "weight") {
            kind = TensorKind::weight;
        } else if (kind_text != "activation") {
            bad(label, where + "/kind",
                fmt::format("expected input, weight or activation, got '{}'", kind_text));
        }
        const json& name = field(t, "name", label, where);
        if (!name.is_string())
            bad(label, where + "/name", "expected a string");
        graph.add_tensor(name.get<std::string>(), dims, *dtype, kind);
    }
    const json& ops = field(doc, "ops", label, "/");
    if (!ops.is_array())
        bad(label, "/ops", "expected a list");
    // A graph of tensors alone simulates to latency 0 and a meaningless "speedup 0.00x".
    if (ops.empty())
        bad(label, "/ops", "the graph has no ops; a JSON graph needs at least one op");
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const std::string where = fmt::format("/ops/{}", i);
        const json& o = ops[i];
        auto ids = [&](const char* key) {
            std::vector<int> out;
            const json& names = field(o, key, label, where);
            if (!names.is_array())
                bad(label, where + "/" + key, "expected a list of tensor names");
            for (const auto& n : names) {
                auto id = n.is_string() ? graph.find_tensor(n.get<std::string>()) : std::nullopt;
                if (!id) {
                    bad(label, where + "/" + key,
                        fmt::format("unknown tensor {} (declare it under 'tensors')", n.dump()));
                }
                out.push_back(*id);
            }
            return out;
        };
        Attributes attrs;
        if (o.contains("attrs")) {
            // items() of a list would give attributes named "0", "1", ...
            if (!o["attrs"].is_object())
                bad(label, where + "/attrs", "expected an object of attribute values");
            for (const auto& [k, v] : o["attrs"].items()) {
                attrs[k] = to_attr(v, label, where + "/attrs/" + k);
            }
        }
        const json& name = field(o, "name", label, where);
        if (!name.is_string())
            bad(label, where + "/name", "expected a string");
        const json& type = field(o, "type", label, where);
        if (!type.is_string())
            bad(label, where + "/type", "expected an ONNX op type, e.g. \"MatMul\"");
        // An op type hetsim does not know would run with no cost at all: reject it here.
        try {
            (void)require_op_info(type.get<std::string>());
        } catch (const GraphError& e) {
            bad(label, where + "/type",
                fmt::format("op '{}': {}", name.get<std::string>(), e.what()));
        }
        graph.add_op(name.get<std::string>(), type.get<std::string>(), ids("inputs"),
                     ids("outputs"), std::move(attrs));
    }
    if (doc.contains("outputs")) {
        const json& outputs = doc["outputs"];
        if (!outputs.is_array())
            bad(label, "/outputs", "expected a list of tensor names");
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            const json& n = outputs[i];
            auto id = n.is_string() ? graph.find_tensor(n.get<std::string>()) : std::nullopt;
            if (!id)
                bad(label, fmt::format("/outputs/{}", i),
                    fmt::format("unknown tensor {}", n.dump()));
            graph.mark_output(*id);
        }
    }
    graph.finalize();
    return graph;
}

namespace {

std::string_view kind_name(TensorKind kind) {
    switch (kind) {
        case TensorKind::input:
            return "input";
        case TensorKind::weight:
            return "weight";
        case TensorKind::activation:
            break;
    }
    return "activation";
}

ordered attr_json(const AttrValue& value) {
    return std::visit([](const auto& v) { return ordered(v); }, value);
}

}  // namespace

std::string write_json_graph(const Graph& graph) {
    // One tensor or op per line: diffable, and a 1000-op graph stays readable.
    auto list = [](const std::vector<ordered>& items) {
        std::string out = "[";
        for (std::size_t i = 0; i < items.size(); ++i)
            out += (i == 0 ? "\n  " : ",\n  ") + items[i].dump();
        return out + (items.empty() ? "]" : "\n ]");
    };
    std::vector<ordered> tensors, outputs;
    for (const Tensor& t : graph.tensors()) {
        tensors.push_back({{"name", t.name},
                           {"shape", t.shape},
                           {"dtype", to_string(t.dtype)},
                           {"kind", kind_name(t.kind)}});
        if (t.is_graph_output)
            outputs.emplace_back(t.name);
    }
    std::vector<ordered> ops;
    for (const Op& op : graph.ops()) {
        auto names = [&](const std::vector<int>& ids) {
            ordered out = ordered::array();
            for (int id : ids)
                out.push_back(graph.tensor(id).name);
            return out;
        };
        ordered o = {{"name", op.name},
                     {"type", op.type},
                     {"inputs", names(op.inputs)},
                     {"outputs", names(op.outputs)}};
        if (!op.attrs.empty()) {
            ordered attrs = ordered::object();
            for (const auto& [key, value] : op.attrs)
                attrs[key] = attr_json(value);
            o["attrs"] = std::move(attrs);
        }
        ops.push_back(std::move(o));
    }
    return fmt::format(
        "{{\n \"name\": {},\n \"tensors\": {},\n \"ops\": {},\n \"outputs\": {}\n}}\n",
        ordered(graph.name()).dump(), list(tensors), list(ops), ordered(outputs).dump());
}

Graph load_json_graph(const std::string& file) {
    // Checked before anything opens the file: a FIFO would block the open forever, and a
    // directory, a device or a file of gigabytes fails only after a long read.
    sim::check_input_file(file, "a JSON graph file");
    std::string text;
    try {
        text = sim::read_text_file(file);
    } catch (const std::system_error& e) {
        throw std::invalid_argument(
            fmt::format("{}: cannot read file: {}", file, e.code().message()));
    }
    return parse_json_graph(text, file);
}

}  // namespace hetsim::sim::workloads
