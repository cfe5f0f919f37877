// Reading and writing the tarnawski2020 workload and split formats (see workload.hpp).
#include "placement/tarnawski/workload/workload.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

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
    const std::filesystem::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp);
        if (!out)
            throw WorkloadError(fmt::format("{}: cannot write file", path.string()));
        out << text << '\n';
        if (!out)
            throw WorkloadError(fmt::format("{}: write failed", path.string()));
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw WorkloadError(fmt::format("{}: cannot write file", path.string()));
    }
}

}  // namespace

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
