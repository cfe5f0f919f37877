#include "sim/workloads/json_graph.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "sim/op_table.hpp"

namespace hetsim::sim::workloads {

namespace {

using nlohmann::json;

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

}  // namespace

Graph parse_json_graph(const std::string& text, const std::string& label) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
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
        const std::string dtype_text = t.value("dtype", std::string("float32"));
        auto dtype = parse_dtype(dtype_text);
        if (!dtype)
            bad(label, where + "/dtype", fmt::format("unknown dtype '{}'", dtype_text));
        const std::string kind_text = t.value("kind", std::string("activation"));
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
    graph.finalize();
    return graph;
}

Graph load_json_graph(const std::string& file) {
    std::ifstream in(file);
    if (!in)
        throw std::invalid_argument(fmt::format("{}: cannot read file", file));
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parse_json_graph(buffer.str(), file);
}

}  // namespace hetsim::sim::workloads
