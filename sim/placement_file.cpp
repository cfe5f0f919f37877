#include "sim/placement_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "sim/config.hpp"
#include "sim/passes/passes.hpp"

namespace hetsim::sim {

namespace {

using Json = nlohmann::ordered_json;

}  // namespace

std::string write_placement_file(const PlacementFileHeader& header, const Graph& original,
                                 const Platform& platform, const Placement& placement) {
    const Graph& graph = placed_graph(original, placement);
    Json doc;
    doc["placer"] = header.placer;
    doc["point"] = header.point;
    doc["workload"] = header.workload;
    doc["platform"] = platform.name;
    Json ops = Json::array();
    std::map<std::string, int> per_device;
    for (int op = 0; op < graph.op_count(); ++op) {
        const auto i = static_cast<std::size_t>(op);
        const auto& device = platform.device(placement.device_of_op[i]).name;
        ++per_device[device];
        Json entry{{"op", graph.op(op).name}, {"type", graph.op(op).type}, {"device", device}};
        if (!placement.notes.empty() && !placement.notes[i].empty())
            entry["note"] = placement.notes[i];
        ops.push_back(entry);
    }
    if (!placement.rewrite.empty()) {
        // The passes that made the placed graph from the study's, and where each op came from.
        Json steps = Json::array();
        for (const RewriteStep& step : placement.rewrite.steps)
            steps.push_back({{"pass", step.pass}, {"args", step.args}});
        Json provenance = Json::array();
        for (int op = 0; op < graph.op_count(); ++op) {
            Json from = Json::array();
            for (int o : placement.rewrite.origin.at(static_cast<std::size_t>(op)))
                from.push_back(original.op(o).name);
            provenance.push_back({{"op", graph.op(op).name}, {"from", from}});
        }
        doc["rewrite"] = {{"steps", steps}, {"provenance", provenance}};
    }
    doc["ops_per_device"] = per_device;
    doc["ops"] = ops;
    const Schedule& schedule = placement.schedule;
    if (!schedule.empty()) {
        Json order = Json::object();
        for (std::size_t r = 0; r < schedule.order.size(); ++r) {
            Json names = Json::array();
            for (int op : schedule.order[r])
                names.push_back(graph.op(op).name);
            order[platform.resources()[r].name] = names;
        }
        Json s;
        s["order"] = order;
        if (schedule.has_plan()) {
            Json planned_ops = Json::array();
            for (int op = 0; op < graph.op_count(); ++op) {
                const auto i = static_cast<std::size_t>(op);
                planned_ops.push_back({{"op", graph.op(op).name},
                                       {"start_s", schedule.planned_start_s[i]},
                                       {"finish_s", schedule.planned_finish_s[i]}});
            }
            s["planned"] = {{"makespan_s", schedule.planned_makespan_s()}, {"ops", planned_ops}};
        }
        doc["schedule"] = s;
    }
    // nlohmann writes doubles with the shortest text that reads back to the same value.
    return doc.dump(2) + "\n";
}

namespace {

class Reader {
public:
    Reader(std::string file, const Graph& graph, const Platform& platform)
        : file_(std::move(file)), original_(graph), platform_(platform) {}

    Placement read() {
        std::ifstream in(file_);
        if (!in)
            fail("", "cannot read the file");
        Json doc;
        try {
            doc = Json::parse(in);
        } catch (const nlohmann::json::exception& e) {
            fail("", fmt::format("not JSON: {}", e.what()));
        }
        if (!doc.is_object() || !doc.contains("ops") || !doc["ops"].is_array())
            fail("", "expected a placement file written by hetsim, with an \"ops\" list");
        Placement placement;
        if (doc.contains("rewrite"))
            placement.rewrite = rewrite(doc["rewrite"]);
        const Graph& placed = placed_graph(original_, placement);
        graph_ptr_ = &placed;
        for (int op = 0; op < placed.op_count(); ++op)
            op_by_name_[placed.op(op).name] = op;
        const auto ops = static_cast<std::size_t>(placed.op_count());
        placement.device_of_op.assign(ops, -1);
        placement.notes.assign(ops, {});
        const Json& entries = doc["ops"];
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const std::string where = fmt::format("ops[{}]", k);
            const Json& entry = entries[k];
            const std::string name = text(entry, "op", where);
            const int op = op_of(name, where);
            // Written by hetsim, an entry has the op's type: one that differs is a file for
            // another graph whose op names happen to match.
            if (entry.contains("type") && entry["type"].is_string() &&
                entry["type"].get<std::string>() != placed.op(op).type)
                fail(where + ".type",
                     fmt::format("op '{}' is a {} in this graph, but the file says {}", name,
                                 placed.op(op).type, entry["type"].get<std::string>()));
            if (placement.device_of_op[static_cast<std::size_t>(op)] >= 0)
                fail(where, fmt::format("op '{}' is placed twice", name));
            const std::string device = text(entry, "device", where);
            const std::optional<int> d = platform_.find_device(device);
            if (!d) {
                fail(where + ".device",
                     fmt::format("op '{}' is on device '{}', which platform '{}' does not have{}",
                                 name, device, platform_.name, device_hint(device)));
            }
            placement.device_of_op[static_cast<std::size_t>(op)] = *d;
            if (entry.contains("note") && entry["note"].is_string())
                placement.notes[static_cast<std::size_t>(op)] = entry["note"].get<std::string>();
        }
        std::vector<std::string> missing;
        for (std::size_t op = 0; op < ops; ++op) {
            if (placement.device_of_op[op] < 0)
                missing.push_back(fmt::format("'{}'", placed.op(static_cast<int>(op)).name));
        }
        if (!missing.empty()) {
            constexpr std::size_t kShown = 5;
            const auto shown = static_cast<long>(std::min(missing.size(), kShown));
            fail("ops", fmt::format("{} op(s) of graph '{}' are not placed: {}{}", missing.size(),
                                    placed.name(),
                                    fmt::join(missing.begin(), missing.begin() + shown, ", "),
                                    missing.size() > kShown ? ", ..." : ""));
        }
        if (doc.contains("ops_per_device"))
            check_ops_per_device(doc["ops_per_device"], placement);
        if (doc.contains("schedule"))
            placement.schedule = schedule(doc["schedule"]);
        return placement;
    }

private:
    [[noreturn]] void fail(const std::string& path, const std::string& message) const {
        throw InputError(file_, path, 0, message);
    }

    // The summary the writer adds, {"<device>": ops placed there}: one that disagrees with
    // "ops" is a hand-edited file whose intent is unclear.
    void check_ops_per_device(const Json& summary, const Placement& placement) const {
        if (!summary.is_object())
            fail("ops_per_device", "expected an object: device -> number of ops");
        std::map<std::string, std::int64_t> counted;
        for (int d : placement.device_of_op)
            ++counted[platform_.device(d).name];
        for (const auto& [device, count] : summary.items()) {
            const std::string where = "ops_per_device." + device;
            if (!count.is_number_integer())
                fail(where, "expected a whole number of ops");
            const auto it = counted.find(device);
            const std::int64_t listed = it == counted.end() ? 0 : it->second;
            if (count.get<std::int64_t>() != listed) {
                fail(where, fmt::format("says {} op(s) on '{}', but \"ops\" places {} there",
                                        count.dump(), device, listed));
            }
        }
        for (const auto& [device, listed] : counted) {
            if (!summary.contains(device)) {
                fail("ops_per_device",
                     fmt::format("has no count for '{}', where \"ops\" places {} op(s)", device,
                                 listed));
            }
        }
    }

    // The recorded passes, applied again to the study's graph (sim/passes/passes.hpp).
    Rewrite rewrite(const Json& r) const {
        if (!r.is_object() || !r.contains("steps") || !r["steps"].is_array())
            fail("rewrite", "expected a \"steps\" list of {\"pass\", \"args\"}");
        std::vector<RewriteStep> steps;
        for (std::size_t k = 0; k < r["steps"].size(); ++k) {
            const Json& step = r["steps"][k];
            const std::string where = fmt::format("rewrite.steps[{}]", k);
            RewriteStep s;
            s.pass = text(step, "pass", where);
            if (step.contains("args")) {
                if (!step["args"].is_object())
                    fail(where + ".args", "expected an object of text values");
                for (const auto& [key, value] : step["args"].items()) {
                    if (!value.is_string())
                        fail(where + ".args." + key, "expected a text value");
                    s.args[key] = value.get<std::string>();
                }
            }
            steps.push_back(std::move(s));
        }
        try {
            return passes::apply(original_, steps);
        } catch (const GraphError& e) {
            fail("rewrite", e.what());
        }
    }

    std::string text(const Json& entry, const char* key, const std::string& where) const {
        if (!entry.is_object() || !entry.contains(key) || !entry[key].is_string())
            fail(where, fmt::format("expected a \"{}\" string", key));
        return entry[key].get<std::string>();
    }

    int op_of(const std::string& name, const std::string& where) const {
        const auto it = op_by_name_.find(name);
        if (it == op_by_name_.end()) {
            std::vector<std::string> names;
            for (const auto& [n, op] : op_by_name_)
                names.push_back(n);
            const std::string hint = did_you_mean(name, names);
            fail(where, fmt::format("op '{}' is not in graph '{}'{}", name, graph_ptr_->name(),
                                    hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
        }
        return it->second;
    }

    std::string device_hint(const std::string& device) const {
        std::vector<std::string> names;
        for (const auto& d : platform_.devices())
            names.push_back(d.name);
        const std::string hint = did_you_mean(device, names);
        return hint.empty() ? fmt::format("; devices: {}", fmt::join(names, ", "))
                            : " (did you mean '" + hint + "'?)";
    }

    double seconds(const Json& entry, const char* key, const std::string& where) const {
        if (!entry.contains(key) || !entry[key].is_number())
            fail(where, fmt::format("expected a number \"{}\"", key));
        return entry[key].get<double>();
    }

    Schedule schedule(const Json& s) const {
        Schedule out;
        if (!s.is_object() || !s.contains("order") || !s["order"].is_object())
            fail("schedule", "expected an \"order\" object: resource -> op names");
        const auto& resources = platform_.resources();
        out.order.assign(resources.size(), {});
        std::vector<bool> given(resources.size(), false);
        for (const auto& [resource, names] : s["order"].items()) {
            const std::string where = "schedule.order." + resource;
            std::size_t r = 0;
            while (r < resources.size() && resources[r].name != resource)
                ++r;
            if (r == resources.size()) {
                std::vector<std::string> known;
                for (const auto& res : resources)
                    known.push_back(res.name);
                fail(where, fmt::format("platform '{}' has no execution resource '{}'; it has {}",
                                        platform_.name, resource, fmt::join(known, ", ")));
            }
            if (!names.is_array())
                fail(where, "expected a list of op names");
            given[r] = true;
            for (std::size_t k = 0; k < names.size(); ++k) {
                if (!names[k].is_string())
                    fail(fmt::format("{}[{}]", where, k), "expected an op name");
                out.order[r].push_back(
                    op_of(names[k].get<std::string>(), fmt::format("{}[{}]", where, k)));
            }
        }
        for (std::size_t r = 0; r < resources.size(); ++r) {
            if (!given[r]) {
                fail("schedule.order",
                     fmt::format("no order for execution resource '{}'", resources[r].name));
            }
        }
        if (s.contains("planned")) {
            const Json& planned = s["planned"];
            if (!planned.is_object() || !planned.contains("ops") || !planned["ops"].is_array())
                fail("schedule.planned", "expected an \"ops\" list of planned times");
            const auto ops = static_cast<std::size_t>(graph_ptr_->op_count());
            out.planned_start_s.assign(ops, -1.0);
            out.planned_finish_s.assign(ops, -1.0);
            std::vector<bool> seen(ops, false);
            const Json& entries = planned["ops"];
            for (std::size_t k = 0; k < entries.size(); ++k) {
                const std::string where = fmt::format("schedule.planned.ops[{}]", k);
                const int op = op_of(text(entries[k], "op", where), where);
                const auto i = static_cast<std::size_t>(op);
                if (seen[i])
                    fail(where, fmt::format("op '{}' is planned twice", graph_ptr_->op(op).name));
                seen[i] = true;
                out.planned_start_s[i] = seconds(entries[k], "start_s", where);
                out.planned_finish_s[i] = seconds(entries[k], "finish_s", where);
            }
            for (std::size_t i = 0; i < ops; ++i) {
                if (!seen[i]) {
                    fail("schedule.planned.ops",
                         fmt::format("op '{}' has no planned times",
                                     graph_ptr_->op(static_cast<int>(i)).name));
                }
            }
        }
        return out;
    }

    std::string file_;
    const Graph& original_;
    const Graph* graph_ptr_ = &original_;  // the placed graph, once a rewrite is applied
    const Platform& platform_;
    std::map<std::string, int> op_by_name_;
};

}  // namespace

Placement read_placement_file(const std::string& file, const Graph& graph,
                              const Platform& platform) {
    return Reader(file, graph, platform).read();
}

}  // namespace hetsim::sim
