// Reading and writing the tarnawski2020 workload and split formats (see workload.hpp).
#include "placement/tarnawski/workload/workload.hpp"

#include "sim/atomic_file.hpp"
#include "sim/json_keys.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include <fmt/format.h>

namespace hetsim::placement::tarnawski {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& where,
                       const std::string& what) {
    throw WorkloadError(fmt::format("{}: {}: {}", source, where.empty() ? "/" : where, what));
}

const char* type_name(const json& j) {
    return j.type_name();
}

const json& member(const json& object, const char* key, const std::string& source,
                   const std::string& where) {
    auto it = object.find(key);
    if (it == object.end())
        fail(source, where, fmt::format("missing required field \"{}\"", key));
    return *it;
}

// The fields of the published format (tarnawski2020's experts/ files: edges also carry
// `size`, some nodes `layerId`, neither read): any other is a typo that would be ignored.
void expect_fields(const json& object, std::initializer_list<const char*> known,
                   const std::string& source, const std::string& where) {
    if (const auto key = sim::unknown_json_key(object, known)) {
        std::string names;
        for (const char* k : known)
            names += (names.empty() ? "" : ", ") + std::string(k);
        fail(source, where.empty() ? "/" + *key : where + "/" + *key,
             fmt::format("unknown field \"{}\"; fields: {}", *key, names));
    }
}

double number(const json& j, const std::string& source, const std::string& where) {
    if (!j.is_number())
        fail(source, where, fmt::format("expected a number, got {}", type_name(j)));
    const double x = j.get<double>();
    if (std::isnan(x))
        fail(source, where, "expected a number, got NaN");
    return x;
}

double nonnegative(const json& j, const std::string& source, const std::string& where) {
    const double x = number(j, source, where);
    if (x < 0.0)
        fail(source, where, fmt::format("expected a non-negative number, got {}", x));
    return x;
}

std::int64_t integer(const json& j, const std::string& source, const std::string& where) {
    if (j.is_number_integer())
        return j.get<std::int64_t>();
    if (j.is_number_float()) {
        const double x = j.get<double>();
        if (std::isfinite(x) && std::floor(x) == x && std::fabs(x) < 9.0e15)
            return static_cast<std::int64_t>(x);
    }
    fail(source, where, fmt::format("expected an integer, got {}", j.dump()));
}

// Booleans may be true/false or 0/1.
bool boolean(const json& j, const std::string& source, const std::string& where) {
    if (j.is_boolean())
        return j.get<bool>();
    if (j.is_number()) {
        const double x = j.get<double>();
        if (x == 0.0 || x == 1.0)
            return x == 1.0;
    }
    fail(source, where, fmt::format("expected a boolean (true/false or 0/1), got {}", j.dump()));
}

std::string pointer(const std::string& array, std::size_t i, const char* field = nullptr) {
    return field ? fmt::format("/{}/{}/{}", array, i, field) : fmt::format("/{}/{}", array, i);
}

json read_json_file(const std::filesystem::path& path) {
    // Not a FIFO (a blocked read), nor a file too large to hold (sim/atomic_file.hpp).
    if (const auto problem = sim::input_file_problem(path))
        throw WorkloadError(
            fmt::format("{}: {}, expected a tarnawski2020 workload JSON", path.string(), *problem));
    std::ifstream in(path);
    if (!in)
        throw WorkloadError(fmt::format("{}: cannot open file", path.string()));
    try {
        return json::parse(in);
    } catch (const json::parse_error& e) {
        throw WorkloadError(
            fmt::format("{}: invalid JSON at byte {}: {}", path.string(), e.byte, e.what()));
    } catch (const json::exception& e) {
        // e.g. out_of_range 406: a number such as 1e999 that no double holds (found by
        // tests/fuzz).
        throw WorkloadError(fmt::format("{}: invalid JSON: {}", path.string(), e.what()));
    }
}

void write_text_atomically(const std::string& text, const std::filesystem::path& path) {
    // sim::WriteError names the file and why (an output path is the user's input: exit 2).
    sim::write_file_atomically(path, text + '\n');
}

// Bytes as the file would write them: whole numbers without a fraction or an exponent.
std::string bytes_text(double bytes) {
    return std::isfinite(bytes) && std::floor(bytes) == bytes && std::fabs(bytes) < 1e18
               ? fmt::format("{:.0f}", bytes)
               : fmt::format("{}", bytes);
}

// A node that no accelerator can take, when there is no CPU to take it instead.
std::optional<WorkloadDefect> node_without_device(const Workload& w) {
    const std::string no_cpu = "and the workload has no CPU (maxCPUs 0)";
    for (std::size_t v = 0; v < w.node_count(); ++v) {
        if (!w.supported_on_accelerator[v]) {
            return WorkloadDefect{
                pointer("nodes", v, "supportedOnFpga"),
                fmt::format("node {} cannot run on an accelerator {}; expected maxCPUs >= 1 or "
                            "the node supported on accelerators",
                            w.id[v], no_cpu)};
        }
        if (w.size[v] > w.max_size_per_accelerator) {
            return WorkloadDefect{
                pointer("nodes", v, "size"),
                fmt::format("node {} needs {} B, more than an accelerator holds (maxSizePerFPGA "
                            "{} B), {}; expected maxCPUs >= 1 or maxSizePerFPGA >= {}",
                            w.id[v], bytes_text(w.size[v]), bytes_text(w.max_size_per_accelerator),
                            no_cpu, bytes_text(w.size[v]))};
        }
    }
    // A colour class shares one device (App. B), so its nodes' sizes add up on it.
    std::unordered_map<std::int64_t, double> class_bytes;
    for (std::size_t v = 0; v < w.node_count(); ++v) {
        if (!w.has_color_class[v])
            continue;
        const double bytes = class_bytes[w.color_class[v]] += w.size[v];
        if (bytes > w.max_size_per_accelerator) {
            return WorkloadDefect{
                pointer("nodes", v, "colorClass"),
                fmt::format("colour class {} needs {} B on one device up to node {}, more than an "
                            "accelerator holds (maxSizePerFPGA {} B), {}; expected maxCPUs >= 1 "
                            "or maxSizePerFPGA >= {}",
                            w.color_class[v], bytes_text(bytes), w.id[v],
                            bytes_text(w.max_size_per_accelerator), no_cpu, bytes_text(bytes))};
        }
    }
    return std::nullopt;
}

// A cycle of the input graph (§3 takes a DAG), by depth-first search from the nodes in file
// order: the edge that closes it and the node ids along it.
std::optional<WorkloadDefect> find_cycle(const Workload& w) {
    const int n = static_cast<int>(w.node_count());
    std::vector<int> begin(static_cast<std::size_t>(n) + 1, 0), out_edge(w.edge_count());
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        ++begin[static_cast<std::size_t>(w.edge_source[e]) + 1];
    for (int v = 0; v < n; ++v)
        begin[v + 1] += begin[v];
    std::vector<int> fill(begin.begin(), begin.end() - 1);
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        out_edge[static_cast<std::size_t>(fill[w.edge_source[e]]++)] = static_cast<int>(e);

    enum : std::uint8_t { unseen, on_path, done };
    std::vector<std::uint8_t> state(static_cast<std::size_t>(n), unseen);
    std::vector<int> entered_by(static_cast<std::size_t>(n), -1);  // edge of the DFS tree
    std::vector<std::pair<int, int>> stack;                        // (node, next edge slot)
    for (int root = 0; root < n; ++root) {
        if (state[root] != unseen)
            continue;
        state[root] = on_path;
        stack.push_back({root, begin[root]});
        while (!stack.empty()) {
            auto& [u, slot] = stack.back();
            if (slot == begin[u + 1]) {
                state[u] = done;
                stack.pop_back();
                continue;
            }
            const int e = out_edge[static_cast<std::size_t>(slot++)];
            const int v = w.edge_dest[e];
            if (state[v] == unseen) {
                state[v] = on_path;
                entered_by[v] = e;
                stack.push_back({v, begin[v]});  // invalidates u and slot
            } else if (state[v] == on_path) {
                // v is an ancestor of u on the DFS path: v -> ... -> u, closed by e.
                std::vector<std::int64_t> ids;
                for (int x = w.edge_source[e]; x != v; x = w.edge_source[entered_by[x]])
                    ids.push_back(w.id[x]);
                ids.push_back(w.id[v]);
                std::reverse(ids.begin(), ids.end());
                // A long cycle is shown by its first nodes, the one that closes it and its size.
                constexpr std::size_t kShown = 8;
                std::string path;
                for (std::size_t i = 0; i < ids.size() && i < kShown; ++i)
                    path += fmt::format("{} -> ", ids[i]);
                if (ids.size() > kShown)
                    path += fmt::format("... -> {} -> ", ids.back());
                path += std::to_string(ids.front());
                return WorkloadDefect{
                    pointer("edges", static_cast<std::size_t>(e)),
                    ids.size() > kShown
                        ? fmt::format("the graph has a cycle of {} nodes through {}; expected a "
                                      "DAG (tarnawski2020 §3)",
                                      ids.size(), path)
                        : fmt::format("the graph has a cycle through nodes {}; expected a DAG "
                                      "(tarnawski2020 §3)",
                                      path)};
            }
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<WorkloadDefect> find_unplaceable(const Workload& w) {
    if (w.max_cpus <= 0 && w.max_accelerators <= 0) {
        return WorkloadDefect{"/maxCPUs",
                              "no device to place the nodes on: maxFPGAs and maxCPUs are both 0; "
                              "expected maxCPUs >= 1 or maxFPGAs >= 1"};
    }
    if (w.max_cpus <= 0) {
        if (auto defect = node_without_device(w))
            return defect;
    }
    return find_cycle(w);
}

std::int32_t Workload::index_of(std::int64_t node_id) const {
    auto it = index.find(node_id);
    if (it == index.end())
        throw WorkloadError(fmt::format("no node with id {}", node_id));
    return it->second;
}

std::int32_t Workload::add_node(std::int64_t node_id, double cpu, double acc, double bytes,
                                bool backward, bool supported, std::optional<std::int64_t> color) {
    const auto i = static_cast<std::int32_t>(id.size());
    if (!index.emplace(node_id, i).second)
        throw WorkloadError(fmt::format("duplicate node id {}", node_id));
    id.push_back(node_id);
    supported_on_accelerator.push_back(supported ? 1 : 0);
    cpu_latency.push_back(cpu);
    accelerator_latency.push_back(acc);
    is_backward.push_back(backward ? 1 : 0);
    has_color_class.push_back(color ? 1 : 0);
    color_class.push_back(color.value_or(0));
    size.push_back(bytes);
    name.emplace_back();
    return i;
}

void Workload::add_edge(std::int32_t source, std::int32_t dest, double cost) {
    edge_source.push_back(source);
    edge_dest.push_back(dest);
    edge_cost.push_back(cost);
}

Workload parse_workload(const json& j, const std::string& source) {
    if (!j.is_object())
        fail(source, "", fmt::format("expected an object, got {}", type_name(j)));
    expect_fields(j, {"maxSizePerFPGA", "maxFPGAs", "maxCPUs", "nodes", "edges"}, source, "");
    Workload w;
    w.max_size_per_accelerator =
        nonnegative(member(j, "maxSizePerFPGA", source, ""), source, "/maxSizePerFPGA");
    const auto k = integer(member(j, "maxFPGAs", source, ""), source, "/maxFPGAs");
    const auto l = integer(member(j, "maxCPUs", source, ""), source, "/maxCPUs");
    if (k < 0 || k > 1024)
        fail(source, "/maxFPGAs", fmt::format("expected 0..1024, got {}", k));
    if (l < 0 || l > 1024)
        fail(source, "/maxCPUs", fmt::format("expected 0..1024, got {}", l));
    w.max_accelerators = static_cast<int>(k);
    w.max_cpus = static_cast<int>(l);

    const json& nodes = member(j, "nodes", source, "");
    if (!nodes.is_array())
        fail(source, "/nodes", fmt::format("expected an array, got {}", type_name(nodes)));
    if (nodes.empty())
        fail(source, "/nodes", "expected at least one node: a workload with nothing to place");
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const json& n = nodes[i];
        const std::string at = pointer("nodes", i);
        if (!n.is_object())
            fail(source, at, fmt::format("expected an object, got {}", type_name(n)));
        expect_fields(n,
                      {"id", "supportedOnFpga", "cpuLatency", "fpgaLatency", "isBackwardNode",
                       "colorClass", "size", "name", "layerId"},
                      source, at);
        const auto node_id =
            integer(member(n, "id", source, at), source, pointer("nodes", i, "id"));
        const bool supported = boolean(member(n, "supportedOnFpga", source, at), source,
                                       pointer("nodes", i, "supportedOnFpga"));
        const double cpu = nonnegative(member(n, "cpuLatency", source, at), source,
                                       pointer("nodes", i, "cpuLatency"));
        const double acc = nonnegative(member(n, "fpgaLatency", source, at), source,
                                       pointer("nodes", i, "fpgaLatency"));
        const bool backward = boolean(member(n, "isBackwardNode", source, at), source,
                                      pointer("nodes", i, "isBackwardNode"));
        std::optional<std::int64_t> color;
        if (auto it = n.find("colorClass"); it != n.end() && !it->is_null())
            color = integer(*it, source, pointer("nodes", i, "colorClass"));
        double bytes = 0.0;  // the published code treats a missing size as 0
        if (auto it = n.find("size"); it != n.end())
            bytes = nonnegative(*it, source, pointer("nodes", i, "size"));
        if (w.index.count(node_id))
            fail(source, pointer("nodes", i, "id"),
                 fmt::format("duplicate node id {} (first at /nodes/{})", node_id,
                             w.index.at(node_id)));
        w.add_node(node_id, cpu, acc, bytes, backward, supported, color);
        if (auto it = n.find("name"); it != n.end() && it->is_string())
            w.name.back() = it->get<std::string>();
    }

    const json& edges = member(j, "edges", source, "");
    if (!edges.is_array())
        fail(source, "/edges", fmt::format("expected an array, got {}", type_name(edges)));
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const json& e = edges[i];
        const std::string at = pointer("edges", i);
        if (!e.is_object())
            fail(source, at, fmt::format("expected an object, got {}", type_name(e)));
        expect_fields(e, {"sourceId", "destId", "cost", "size"}, source, at);
        std::int32_t ends[2];
        const char* keys[2] = {"sourceId", "destId"};
        for (int t = 0; t < 2; ++t) {
            const auto node_id =
                integer(member(e, keys[t], source, at), source, pointer("edges", i, keys[t]));
            auto it = w.index.find(node_id);
            if (it == w.index.end())
                fail(source, pointer("edges", i, keys[t]),
                     fmt::format("no node with id {}", node_id));
            ends[t] = it->second;
        }
        if (ends[0] == ends[1])
            fail(source, at, fmt::format("self-loop on node {}", w.id[ends[0]]));
        const double cost =
            nonnegative(member(e, "cost", source, at), source, pointer("edges", i, "cost"));
        w.add_edge(ends[0], ends[1], cost);
    }
    if (const auto defect = find_unplaceable(w))
        fail(source, defect->where, defect->what);
    return w;
}

Workload read_workload(const std::filesystem::path& path) {
    return parse_workload(read_json_file(path), path.string());
}

json workload_to_json(const Workload& w) {
    json nodes = json::array();
    for (std::size_t i = 0; i < w.node_count(); ++i) {
        json n = {{"id", w.id[i]},
                  {"supportedOnFpga", w.supported_on_accelerator[i] != 0},
                  {"cpuLatency", w.cpu_latency[i]},
                  {"fpgaLatency", w.accelerator_latency[i]},
                  {"isBackwardNode", w.is_backward[i] != 0},
                  {"size", w.size[i]}};
        if (w.has_color_class[i])
            n["colorClass"] = w.color_class[i];
        if (!w.name[i].empty())
            n["name"] = w.name[i];
        nodes.push_back(std::move(n));
    }
    json edges = json::array();
    for (std::size_t e = 0; e < w.edge_count(); ++e)
        edges.push_back({{"sourceId", w.id[w.edge_source[e]]},
                         {"destId", w.id[w.edge_dest[e]]},
                         {"cost", w.edge_cost[e]}});
    return {{"maxSizePerFPGA", w.max_size_per_accelerator},
            {"maxFPGAs", w.max_accelerators},
            {"maxCPUs", w.max_cpus},
            {"nodes", std::move(nodes)},
            {"edges", std::move(edges)}};
}

void write_workload(const Workload& workload, const std::filesystem::path& path) {
    write_text_atomically(workload_to_json(workload).dump(1), path);
}

Split parse_split(const json& j, const std::string& source) {
    if (!j.is_object())
        fail(source, "", fmt::format("expected an object, got {}", type_name(j)));
    Split s;
    struct Part {
        const char* key;
        std::vector<std::vector<std::int64_t>>* nodes;
        std::vector<int>* replicas;
    };
    const Part parts[2] = {{"cpus", &s.cpus, &s.cpu_replicas},
                           {"fpgas", &s.accelerators, &s.accelerator_replicas}};
    bool any_replicas = false;
    for (const auto& [key, out, replicas] : parts) {
        const json& devices = member(j, key, source, "");
        if (!devices.is_array())
            fail(source, fmt::format("/{}", key),
                 fmt::format("expected an array, got {}", type_name(devices)));
        for (std::size_t d = 0; d < devices.size(); ++d) {
            const std::string at = pointer(key, d);
            if (!devices[d].is_object())
                fail(source, at, fmt::format("expected an object, got {}", type_name(devices[d])));
            const json& ids = member(devices[d], "nodes", source, at);
            if (!ids.is_array())
                fail(source, at + "/nodes",
                     fmt::format("expected an array, got {}", type_name(ids)));
            auto& device = out->emplace_back();
            for (std::size_t i = 0; i < ids.size(); ++i)
                device.push_back(integer(ids[i], source, fmt::format("{}/nodes/{}", at, i)));
            int r = 1;
            if (auto it = devices[d].find("replicas"); it != devices[d].end()) {
                const std::int64_t value = integer(*it, source, at + "/replicas");
                if (value < 0 || value > 1'000'000)
                    fail(source, at + "/replicas",
                         fmt::format("expected a replica count >= 0, got {}", value));
                r = static_cast<int>(value);
                any_replicas = true;
            }
            replicas->push_back(r);
        }
    }
    if (!any_replicas) {
        s.cpu_replicas.clear();
        s.accelerator_replicas.clear();
    }
    if (auto it = j.find("objective"); it != j.end())
        s.objective = number(*it, source, "/objective");
    return s;
}

Split read_split(const std::filesystem::path& path) {
    return parse_split(read_json_file(path), path.string());
}

bool Split::replicated() const {
    auto any = [](const std::vector<int>& r) {
        return std::any_of(r.begin(), r.end(), [](int x) { return x != 1; });
    };
    return any(cpu_replicas) || any(accelerator_replicas);
}

json split_to_json(const Split& s) {
    auto devices = [](const std::vector<std::vector<std::int64_t>>& nodes,
                      const std::vector<int>& replicas) {
        json out = json::array();
        for (std::size_t d = 0; d < nodes.size(); ++d) {
            json entry = {{"nodes", nodes[d]}};
            if (d < replicas.size())
                entry["replicas"] = replicas[d];
            out.push_back(std::move(entry));
        }
        return out;
    };
    json cpus = devices(s.cpus, s.cpu_replicas);
    json fpgas = devices(s.accelerators, s.accelerator_replicas);
    return {{"cpus", std::move(cpus)}, {"fpgas", std::move(fpgas)}, {"objective", s.objective}};
}

void write_split(const Split& split, const std::filesystem::path& path) {
    write_text_atomically(split_to_json(split).dump(1), path);
}

}  // namespace hetsim::placement::tarnawski
