#include "tools/app/task_graph.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "devices/table.hpp"
#include "placement/placer.hpp"
#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/json_keys.hpp"
#include "sim/placement_rules.hpp"
#include "sim/units.hpp"
#include "sim/workloads/random_taskgraph.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::app {

namespace {

using Json = nlohmann::json;

// An edge's comm time becomes bytes over a 1 GB/s link: 1 byte = 1 ns.
constexpr double kLinkBandwidth_Bps = 1e9;

Json read_json(const std::string& file) {
    // Not a FIFO (a blocked read), nor a file too large to hold (sim/atomic_file.hpp).
    if (const auto problem = sim::input_file_problem(file))
        throw sim::InputError(file, "", 0, *problem + ", expected a task-graph JSON");
    std::ifstream in(file);
    if (!in)
        throw sim::InputError(file, "", 0, "cannot read the file");
    try {
        return Json::parse(in);
    } catch (const Json::exception& e) {
        throw sim::InputError(file, "", 0, fmt::format("not JSON: {}", e.what()));
    }
}

class InstanceReader {
public:
    explicit InstanceReader(std::string file) : file_(std::move(file)) {}

    // The Standard Task Graph Set's text format (Kasahara lab, .stg): a line with the number
    // n of real tasks, then n + 2 lines "task time predecessor-count predecessors..." (task 0
    // and n + 1 are the dummy entry and exit, of time 0); `#` starts a comment. Identical
    // processors, no communication: every cost row is the task's time, every comm 0.
    TaskGraphInstance read_stg(int processors) {
        if (processors < 1 || processors > 4096)
            fail("", fmt::format("--processors must be in 1..4096, got {}", processors));
        processors_ = processors;
        for (int p = 0; p < processors_; ++p)
            names_.push_back(fmt::format("P{}", p));
        if (const auto problem = sim::input_file_problem(file_))
            fail("", *problem + ", expected a Standard Task Graph Set file");
        std::ifstream in(file_);
        if (!in)
            fail("", "cannot read the file");
        std::vector<std::int64_t> numbers;
        std::vector<int> line_of;  // the line each number stands on, for errors
        std::string line;
        for (int line_no = 1; std::getline(in, line); ++line_no) {
            const auto hash = line.find('#');
            std::istringstream words(hash == std::string::npos ? line : line.substr(0, hash));
            std::string word;
            while (words >> word) {
                std::int64_t value = 0;
                const auto [ptr, ec] =
                    std::from_chars(word.data(), word.data() + word.size(), value);
                if (ec != std::errc{} || ptr != word.data() + word.size() || value < 0) {
                    throw sim::InputError(
                        file_, "", line_no,
                        fmt::format("expected a whole number >= 0, got '{}'", word));
                }
                numbers.push_back(value);
                line_of.push_back(line_no);
            }
        }
        std::size_t at = 0;
        auto next = [&](const std::string& what) {
            if (at >= numbers.size())
                fail("", fmt::format("the file ends where {} should be", what));
            return numbers[at++];
        };
        const std::int64_t n = next("the number of tasks");
        if (n < 1 || n > 1'000'000)
            fail("", fmt::format("expected 1..1000000 tasks, got {}", n));
        std::vector<std::pair<std::int64_t, std::int64_t>> deps;  // (pred, task)
        for (std::int64_t k = 0; k < n + 2; ++k) {
            const std::int64_t id = next(fmt::format("task {}", k));
            const int line_no = line_of[at - 1];
            if (id != k) {
                throw sim::InputError(file_, "", line_no,
                                      fmt::format("expected task {} here, got task {}", k, id));
            }
            Task task;
            task.id = id;
            task.label = std::to_string(id);
            task.cost.assign(static_cast<std::size_t>(processors_),
                             static_cast<double>(next(fmt::format("task {}'s time", id))));
            index_of_[id] = static_cast<int>(tasks_.size());
            tasks_.push_back(std::move(task));
            const std::int64_t preds = next(fmt::format("task {}'s predecessor count", id));
            for (std::int64_t j = 0; j < preds; ++j) {
                const std::int64_t pred = next(fmt::format("a predecessor of task {}", id));
                if (pred >= id) {
                    throw sim::InputError(
                        file_, "", line_no,
                        fmt::format("task {} names predecessor {}; the set lists tasks after "
                                    "their predecessors",
                                    id, pred));
                }
                deps.push_back({pred, id});
            }
        }
        for (const auto& [pred, task] : deps)
            edges_.push_back(Edge{index_of_.at(pred), index_of_.at(task), 0});
        return build();
    }

    // WfCommons' WfFormat. 1.5 and later: workflow.specification.tasks (id, parents,
    // inputFiles, outputFiles), specification.files (id, sizeInBytes) and
    // workflow.execution.tasks (id, runtimeInSeconds); 1.3 and 1.4: workflow.tasks with their
    // runtime (runtimeInSeconds or runtime), parents and files ({link: input|output, id or
    // name, sizeInBytes or size}). Each task runs its measured runtime on any of `processors`
    // identical processors; an edge parent -> child carries the files the parent writes and
    // the child reads, over links of `bandwidth_Bps` (the platform the user names).
    TaskGraphInstance read_wfcommons(const Json& doc, int processors, double bandwidth_Bps) {
        if (processors < 1 || processors > 4096)
            fail("", fmt::format("a WfCommons workflow names no processors: give --processors N "
                                 "(1..4096), got {}",
                                 processors));
        processors_ = processors;
        bandwidth_Bps_ = bandwidth_Bps;
        numeric_ids_ = false;
        for (int p = 0; p < processors_; ++p)
            names_.push_back(fmt::format("P{}", p));
        // The versions this reader knows (usage.md): a later one may have moved what it reads.
        if (doc.contains("schemaVersion")) {
            const Json& version = doc["schemaVersion"];
            static const std::set<std::string> kKnown = {"1.3", "1.4", "1.5", "1.6"};
            if (!version.is_string() || kKnown.count(version.get<std::string>()) == 0)
                fail("schemaVersion", fmt::format("WfFormat {} is not one this reader knows: "
                                                  "1.3, 1.4, 1.5 or 1.6",
                                                  version.dump()));
        }
        const Json& workflow = doc["workflow"];
        const bool v15 = workflow.contains("specification");
        const std::string tasks_path = v15 ? "workflow.specification.tasks" : "workflow.tasks";
        const Json& holder = v15 ? workflow["specification"] : workflow;
        if (!holder.is_object() || !holder.contains("tasks") || !holder["tasks"].is_array() ||
            holder["tasks"].empty()) {
            fail(tasks_path, "expected a non-empty list of tasks");
        }
        const Json& tasks = holder["tasks"];
        std::map<std::string, std::int64_t> file_bytes;
        auto size_of = [&](const Json& f, const std::string& path) -> std::int64_t {
            for (const char* key : {"sizeInBytes", "size"}) {
                if (f.contains(key)) {
                    // Below 2^53 B a size is exact in a double and far from int64's end.
                    if (!f[key].is_number() || !(f[key].get<double>() >= 0.0) ||
                        f[key].get<double>() > 0x1p53)
                        fail(path + "." + key,
                             fmt::format("{} is {}; expected a file size in bytes from 0 to 2^53",
                                         key, f[key].dump()));
                    return static_cast<std::int64_t>(std::llround(f[key].get<double>()));
                }
            }
            fail(path, "a file needs sizeInBytes");
        };
        auto id_of = [&](const Json& j, const std::string& path) {
            for (const char* key : {"id", "name"}) {
                if (j.contains(key) && j[key].is_string() && !j[key].get<std::string>().empty())
                    return j[key].get<std::string>();
            }
            fail(path, "expected an \"id\"");
        };
        if (v15 && holder.contains("files") && holder["files"].is_array()) {
            const Json& files = holder["files"];
            for (std::size_t k = 0; k < files.size(); ++k) {
                const std::string path = fmt::format("workflow.specification.files[{}]", k);
                const std::string id = id_of(files[k], path);
                // Listed twice, a file would have whichever size came last.
                if (!file_bytes.emplace(id, size_of(files[k], path)).second)
                    fail(path, fmt::format("file '{}' is listed twice", id));
            }
        }
        std::map<std::string, double> runtime;
        if (v15 && workflow.contains("execution") && workflow["execution"].is_object() &&
            workflow["execution"].contains("tasks") && workflow["execution"]["tasks"].is_array()) {
            const Json& done = workflow["execution"]["tasks"];
            for (std::size_t k = 0; k < done.size(); ++k) {
                const std::string path = fmt::format("workflow.execution.tasks[{}]", k);
                if (done[k].contains("runtimeInSeconds")) {
                    runtime[id_of(done[k], path)] =
                        seconds(done[k]["runtimeInSeconds"], path + ".runtimeInSeconds",
                                "the runtime", false);
                }
            }
        }
        std::vector<std::set<std::string>> reads(tasks.size()), writes(tasks.size());
        std::map<std::string, int> index;
        for (std::size_t k = 0; k < tasks.size(); ++k) {
            const std::string path = fmt::format("{}[{}]", tasks_path, k);
            const Json& t = tasks[k];
            Task task;
            task.label = id_of(t, path);
            if (!index.emplace(task.label, static_cast<int>(k)).second)
                fail(path, fmt::format("task '{}' is listed twice", task.label));
            double r = -1.0;
            if (const auto it = runtime.find(task.label); it != runtime.end()) {
                r = it->second;
            } else {
                for (const char* key : {"runtimeInSeconds", "runtime"}) {
                    if (r < 0.0 && t.contains(key))
                        r = seconds(t[key], path + "." + key, "the runtime", false);
                }
            }
            if (r < 0.0)
                fail(path, fmt::format("task '{}' has no runtime (runtimeInSeconds)", task.label));
            task.cost.assign(static_cast<std::size_t>(processors_), r);
            for (const char* key : {"inputFiles", "outputFiles"}) {
                if (!t.contains(key))
                    continue;
                for (const Json& f : t[key]) {
                    if (!f.is_string())
                        continue;
                    // 1.5 lists every file once in specification.files: a name that is not
                    // there moves nothing, silently.
                    if (v15 && file_bytes.count(f.get<std::string>()) == 0)
                        fail(fmt::format("{}.{}", path, key),
                             fmt::format("task '{}' names file '{}', which is not in "
                                         "workflow.specification.files",
                                         task.label, f.get<std::string>()));
                    (std::string(key) == "inputFiles" ? reads[k] : writes[k]).insert(f);
                }
            }
            if (t.contains("files") && t["files"].is_array()) {  // 1.3 / 1.4
                for (std::size_t j = 0; j < t["files"].size(); ++j) {
                    const Json& f = t["files"][j];
                    const std::string fpath = fmt::format("{}.files[{}]", path, j);
                    const std::string id = id_of(f, fpath);
                    file_bytes[id] = size_of(f, fpath);
                    (f.value("link", "") == "output" ? writes[k] : reads[k]).insert(id);
                }
            }
            tasks_.push_back(std::move(task));
        }
        for (std::size_t k = 0; k < tasks.size(); ++k) {
            const Json& t = tasks[k];
            // Edges come from `parents`; a child that is not a task is a broken reference.
            if (t.contains("children") && t["children"].is_array()) {
                for (const Json& child : t["children"]) {
                    if (!child.is_string() || index.count(child.get<std::string>()) == 0)
                        fail(fmt::format("{}[{}].children", tasks_path, k),
                             fmt::format("task '{}' names child {}, which is not in the workflow",
                                         tasks_[k].label, child.dump()));
                }
            }
            if (!t.contains("parents"))
                continue;
            for (const Json& parent : t["parents"]) {
                const std::string pid = parent.is_string() ? parent.get<std::string>() : "";
                const auto it = index.find(pid);
                if (it == index.end()) {
                    fail(fmt::format("{}[{}].parents", tasks_path, k),
                         fmt::format("task '{}' names parent '{}', which is not in the workflow",
                                     tasks_[k].label, parent.is_string() ? pid : parent.dump()));
                }
                if (it->second == static_cast<int>(k))
                    fail(fmt::format("{}[{}].parents", tasks_path, k),
                         fmt::format("task '{}' is its own parent (a cycle)", pid));
                std::int64_t bytes = 0;
                for (const std::string& f : writes[static_cast<std::size_t>(it->second)]) {
                    if (reads[k].count(f) != 0) {
                        const auto size = file_bytes.find(f);
                        bytes += size == file_bytes.end() ? 0 : size->second;
                    }
                }
                edges_.push_back(Edge{it->second, static_cast<int>(k), bytes});
            }
        }
        return build();
    }

    TaskGraphInstance read() { return read_doc(read_json(file_)); }

    // An instance document already in memory (a generated one names itself as the "file").
    TaskGraphInstance read_doc(const Json& doc) {
        if (!doc.is_object())
            fail("", "expected an object with \"processors\", \"tasks\" and \"edges\"");
        if (!doc.contains("processors") || !doc["processors"].is_number_integer() ||
            doc["processors"].get<std::int64_t>() < 1 ||
            doc["processors"].get<std::int64_t>() > 4096) {
            fail("processors", "expected the number of processors, an integer in 1..4096");
        }
        processors_ = static_cast<int>(doc["processors"].get<std::int64_t>());
        expect_keys(doc, "", {"processors", "names", "tasks", "edges"});
        read_names(doc);
        read_tasks(doc);
        read_edges(doc);
        return build();
    }

private:
    TaskGraphInstance build() {
        check_acyclic();
        TaskGraphInstance out;
        out.graph = build_graph();
        out.platform = build_platform();
        for (const Task& t : tasks_)
            out.task_labels.push_back(t.label);
        out.numeric_ids = numeric_ids_;
        return out;
    }

    struct Task {
        std::int64_t id = 0;       // JSON and .stg instances
        std::string label;         // what names the task: its id as written
        std::vector<double> cost;  // +inf: cannot run there
    };
    struct Edge {
        int from = 0, to = 0;    // task indices
        std::int64_t bytes = 0;  // over the links of bandwidth_Bps_
    };

    [[noreturn]] void fail(const std::string& path, const std::string& message) const {
        throw sim::InputError(file_, path, 0, message);
    }

    void read_names(const Json& doc) {
        for (int p = 0; p < processors_; ++p)
            names_.push_back(fmt::format("P{}", p));
        if (!doc.contains("names"))
            return;
        const Json& names = doc["names"];
        if (!names.is_array() || static_cast<int>(names.size()) != processors_)
            fail("names", fmt::format("expected {} processor names", processors_));
        std::set<std::string> seen;
        for (int p = 0; p < processors_; ++p) {
            const Json& n = names[static_cast<std::size_t>(p)];
            if (!n.is_string() || n.get<std::string>().empty() ||
                !seen.insert(n.get<std::string>()).second) {
                fail(fmt::format("names[{}]", p), "expected a name, different from the others");
            }
            names_[static_cast<std::size_t>(p)] = n.get<std::string>();
        }
    }

    double seconds(const Json& value, const std::string& path, const std::string& what,
                   bool null_is_inf) const {
        if (null_is_inf && value.is_null())
            return std::numeric_limits<double>::infinity();
        // Past the simulator's time range (2^62 ps, 53 days) a time cannot be simulated, and a
        // comm time past it overflowed into a negative byte count.
        const double max_s = static_cast<double>(sim::kMaxSimulatedPs) * sim::kSecondsPerPs;
        if (!value.is_number() || !std::isfinite(value.get<double>()) ||
            value.get<double>() < 0.0 || value.get<double>() > max_s) {
            fail(path, fmt::format("{} is {}; expected a time in seconds from 0 to {:.3g}{}", what,
                                   value.dump(), max_s,
                                   null_is_inf ? " (or null: cannot run there)" : ""));
        }
        return value.get<double>();
    }

    // The format's keys only: any other is a typo that would be ignored ("coms" for "comm").
    void expect_keys(const Json& object, const std::string& path,
                     std::initializer_list<const char*> known) const {
        if (const auto key = sim::unknown_json_key(object, known)) {
            const std::vector<std::string> names(known.begin(), known.end());
            fail(path.empty() ? *key : path + "." + *key,
                 fmt::format("unknown key '{}'; keys: {}", *key, fmt::join(names, ", ")));
        }
    }

    void read_tasks(const Json& doc) {
        if (!doc.contains("tasks") || !doc["tasks"].is_array() || doc["tasks"].empty())
            fail("tasks", "expected a non-empty list of tasks");
        const Json& tasks = doc["tasks"];
        for (std::size_t k = 0; k < tasks.size(); ++k) {
            const std::string path = fmt::format("tasks[{}]", k);
            const Json& t = tasks[k];
            if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer())
                fail(path, "expected {\"id\": <integer>, \"cost\": [...]}");
            expect_keys(t, path, {"id", "cost"});
            Task task;
            task.id = t["id"].get<std::int64_t>();
            task.label = std::to_string(task.id);
            if (!index_of_.emplace(task.id, static_cast<int>(tasks_.size())).second)
                fail(path, fmt::format("task {} is listed twice", task.id));
            if (!t.contains("cost") || !t["cost"].is_array() ||
                static_cast<int>(t["cost"].size()) != processors_) {
                fail(path + ".cost",
                     fmt::format("task {}: expected {} costs, one per processor, got {}", task.id,
                                 processors_,
                                 t.contains("cost") && t["cost"].is_array()
                                     ? std::to_string(t["cost"].size())
                                     : std::string("none")));
            }
            bool runs_somewhere = false;
            for (int p = 0; p < processors_; ++p) {
                const double c = seconds(
                    t["cost"][static_cast<std::size_t>(p)], fmt::format("{}.cost[{}]", path, p),
                    fmt::format("task {}'s cost on processor {}", task.id, p), true);
                runs_somewhere = runs_somewhere || std::isfinite(c);
                task.cost.push_back(c);
            }
            if (!runs_somewhere)
                fail(path + ".cost", fmt::format("task {} can run on no processor", task.id));
            tasks_.push_back(std::move(task));
        }
    }

    void read_edges(const Json& doc) {
        if (!doc.contains("edges"))
            return;
        if (!doc["edges"].is_array())
            fail("edges", "expected a list of {\"from\", \"to\", \"comm\"}");
        const Json& edges = doc["edges"];
        std::set<std::pair<int, int>> seen;
        for (std::size_t k = 0; k < edges.size(); ++k) {
            const std::string path = fmt::format("edges[{}]", k);
            const Json& e = edges[k];
            if (!e.is_object() || !e.contains("from") || !e.contains("to") ||
                !e["from"].is_number_integer() || !e["to"].is_number_integer()) {
                fail(path, "expected {\"from\": <task id>, \"to\": <task id>, \"comm\": <s>}");
            }
            expect_keys(e, path, {"from", "to", "comm"});
            Edge edge;
            for (const char* end : {"from", "to"}) {
                const std::int64_t id = e[end].get<std::int64_t>();
                const auto it = index_of_.find(id);
                if (it == index_of_.end()) {
                    fail(fmt::format("{}.{}", path, end),
                         fmt::format("task {} is not in the instance", id));
                }
                (std::string(end) == "from" ? edge.from : edge.to) = it->second;
            }
            const std::int64_t from_id = tasks_[static_cast<std::size_t>(edge.from)].id;
            if (edge.from == edge.to)
                fail(path, fmt::format("task {} depends on itself (a cycle)", from_id));
            if (!seen.insert({edge.from, edge.to}).second) {
                fail(path, fmt::format("the edge {} -> {} is listed twice", from_id,
                                       tasks_[static_cast<std::size_t>(edge.to)].id));
            }
            const double comm_s =
                e.contains("comm")
                    ? seconds(e["comm"], path + ".comm",
                              fmt::format("the comm of edge {} -> {}", from_id,
                                          tasks_[static_cast<std::size_t>(edge.to)].id),
                              false)
                    : 0.0;
            edge.bytes = static_cast<std::int64_t>(std::llround(comm_s * bandwidth_Bps_));
            edges_.push_back(edge);
        }
    }

    void check_acyclic() const {
        const std::size_t n = tasks_.size();
        std::vector<int> indegree(n, 0);
        std::vector<std::vector<int>> next(n);
        for (const Edge& e : edges_) {
            next[static_cast<std::size_t>(e.from)].push_back(e.to);
            ++indegree[static_cast<std::size_t>(e.to)];
        }
        std::vector<int> ready;
        for (std::size_t t = 0; t < n; ++t) {
            if (indegree[t] == 0)
                ready.push_back(static_cast<int>(t));
        }
        std::size_t done = 0;
        while (!ready.empty()) {
            const int t = ready.back();
            ready.pop_back();
            ++done;
            for (int s : next[static_cast<std::size_t>(t)]) {
                if (--indegree[static_cast<std::size_t>(s)] == 0)
                    ready.push_back(s);
            }
        }
        if (done == n)
            return;
        for (std::size_t t = 0; t < n; ++t) {
            if (indegree[t] > 0)
                fail("edges",
                     fmt::format("the edges form a cycle through task {}", tasks_[t].label));
        }
    }

    sim::Graph build_graph() const {
        std::vector<std::string> labels;
        std::vector<std::vector<double>> costs;
        for (const Task& t : tasks_) {
            labels.push_back(t.label);
            costs.push_back(t.cost);
        }
        std::vector<sim::workloads::TaskGraphEdge> edges;
        for (const Edge& e : edges_)
            edges.push_back({e.from, e.to, e.bytes});
        return sim::workloads::task_graph(stem(), labels, costs, edges);
    }

    std::string stem() const { return std::filesystem::path(file_).stem().string(); }

    // P table processors on P components, all pairs linked without contention; built through
    // the component registry from a platform description, as a YAML study would write it.
    sim::Platform build_platform() const {
        YAML::Node root;
        root["name"] = stem();
        root["description"] = "classic task-graph instance: table processors, ideal links";
        root["dispatch"] = "dataflow";
        root["host"] = names_.front();
        YAML::Node components;
        for (int p = 0; p < processors_; ++p) {
            YAML::Node c;
            c["type"] = "table";
            c["column"] = p;
            components[names_[static_cast<std::size_t>(p)]] = c;
        }
        for (int a = 0; a < processors_; ++a) {
            for (int b = a + 1; b < processors_; ++b) {
                YAML::Node link;
                link["type"] = "pcie";
                link["endpoints"].push_back(names_[static_cast<std::size_t>(a)]);
                link["endpoints"].push_back(names_[static_cast<std::size_t>(b)]);
                link["bandwidth"] = fmt::format("{} B/s", bandwidth_Bps_);
                link["latency"] = "0 s";
                link["arbitration"] = "none";
                components[fmt::format("link_{}_{}", a, b)] = link;
            }
        }
        root["components"] = components;
        return sim::parse_platform(sim::ConfigNode(root, file_, ""));
    }

    std::string file_;
    int processors_ = 0;
    std::vector<std::string> names_;
    std::vector<Task> tasks_;
    std::map<std::int64_t, int> index_of_;
    std::vector<Edge> edges_;
    double bandwidth_Bps_ = kLinkBandwidth_Bps;
    bool numeric_ids_ = true;
};

}  // namespace

namespace {

// A WfCommons instance: a top-level "workflow" object with its tasks.
bool is_wfcommons(const Json& doc) {
    return doc.is_object() && doc.contains("workflow") && doc["workflow"].is_object() &&
           (doc["workflow"].contains("specification") || doc["workflow"].contains("tasks"));
}

}  // namespace

bool is_task_graph_instance(const std::string& file) {
    if (file == kRandomTaskGraph)
        return true;
    if (file.ends_with(".stg"))
        return true;
    if (!file.ends_with(".json"))
        return false;
    if (sim::input_file_problem(file))
        return true;  // read_json says what is wrong with it
    std::ifstream in(file);
    if (!in)
        return false;
    try {
        const Json doc = Json::parse(in);
        return (doc.is_object() && doc.contains("processors") && doc.contains("tasks")) ||
               is_wfcommons(doc);
    } catch (const Json::exception&) {
        return false;
    }
}

TaskGraphInstance random_task_graph_instance(const std::vector<std::string>& settings,
                                             int processors) {
    register_all();
    sim::workloads::RandomTaskGraphConfig c;
    c.processors = processors > 0 ? processors : 4;
    for (const std::string& setting : settings) {
        const auto eq = setting.find('=');
        if (eq == std::string::npos)
            throw sim::InputError("--set", "", 0,
                                  fmt::format("expected key=value, got '{}'", setting));
        const std::string key = setting.substr(0, eq), value = setting.substr(eq + 1);
        double number = 0.0;
        std::size_t used = 0;
        try {
            number = std::stod(value, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != value.size() || !std::isfinite(number))
            throw sim::InputError("--set", key, 0,
                                  fmt::format("expected a number, got '{}'", value));
        const auto integer = [&](int lo, int hi) {
            if (number != std::floor(number) || number < lo || number > hi)
                throw sim::InputError(
                    "--set", key, 0,
                    fmt::format("expected an integer in {}..{}, got {}", lo, hi, value));
            return static_cast<int>(number);
        };
        if (key == "tasks")
            c.tasks = integer(1, 1'000'000);
        else if (key == "fat")
            c.fat = number;
        else if (key == "density")
            c.density = number;
        else if (key == "regularity")
            c.regularity = number;
        else if (key == "jump")
            c.jump = integer(1, 1'000'000);
        else if (key == "ccr")
            c.ccr = number;
        else if (key == "beta")
            c.beta = number;
        else if (key == "mean_cost")
            c.mean_cost_s = number;
        else if (key == "seed")
            c.seed = static_cast<std::uint64_t>(integer(0, 2'000'000'000));
        else
            throw sim::InputError(
                "--set", key, 0,
                fmt::format("random_taskgraph has no knob '{}'; knobs: tasks, fat, density, "
                            "regularity, jump, ccr, beta, mean_cost, seed",
                            key));
    }
    sim::workloads::RandomTaskGraph g;
    try {
        g = sim::workloads::random_taskgraph(c);
    } catch (const std::invalid_argument& e) {
        throw sim::InputError("--set", "", 0, e.what());
    }
    Json doc;
    doc["processors"] = g.processors;
    doc["tasks"] = Json::array();
    for (std::size_t t = 0; t < g.cost.size(); ++t)
        doc["tasks"].push_back({{"id", t}, {"cost", g.cost[t]}});
    doc["edges"] = Json::array();
    for (const auto& e : g.edges)
        doc["edges"].push_back({{"from", e.from}, {"to", e.to}, {"comm", e.comm_s}});
    return InstanceReader(kRandomTaskGraph).read_doc(doc);
}

TaskGraphInstance load_task_graph_instance(const std::string& file, int processors,
                                           std::optional<double> bandwidth_Bps) {
    register_all();
    if (file.ends_with(".stg")) {
        if (processors == 0)
            throw sim::InputError(file, "", 0,
                                  "a .stg task graph names no processors: give --processors N");
        if (bandwidth_Bps) {
            throw sim::InputError("--bandwidth", "", 0,
                                  "applies to a WfCommons workflow only (a .stg graph has no "
                                  "communication)");
        }
        return InstanceReader(file).read_stg(processors);
    }
    if (const Json doc = read_json(file); is_wfcommons(doc))
        return InstanceReader(file).read_wfcommons(doc, processors,
                                                   bandwidth_Bps.value_or(kLinkBandwidth_Bps));
    if (bandwidth_Bps) {
        throw sim::InputError("--bandwidth", "", 0,
                              "applies to a WfCommons workflow only (an instance's edges give "
                              "their times)");
    }
    if (processors != 0) {
        throw sim::InputError("--processors", "", 0,
                              "applies to a .stg task graph only (a JSON instance names them)");
    }
    return InstanceReader(file).read();
}

std::string place_task_graph(const PlaceRequest& request) {
    const bool generated = request.workload == kRandomTaskGraph;
    if (!request.overrides.empty() && !generated)
        throw sim::InputError("--set", "", 0,
                              "--set applies to a study YAML or random_taskgraph only");
    std::optional<double> bandwidth_Bps;
    if (!request.bandwidth.empty()) {
        try {
            bandwidth_Bps = sim::parse_quantity(request.bandwidth, sim::Quantity::bandwidth);
        } catch (const std::exception& e) {
            throw sim::InputError("--bandwidth", "", 0, e.what());
        }
        if (!(*bandwidth_Bps > 0.0))
            throw sim::InputError("--bandwidth", "", 0, "must be > 0");
    }
    if (generated && !request.bandwidth.empty())
        throw sim::InputError("--bandwidth", "", 0, "applies to a WfCommons workflow only");
    const TaskGraphInstance instance =
        generated ? random_task_graph_instance(request.overrides, request.processors)
                  : load_task_graph_instance(request.workload, request.processors, bandwidth_Bps);
    sim::EvalOptions options;
    options.samples = 1;
    auto des = sim::make_evaluator("des", instance.platform, options);
    std::unique_ptr<placement::Placer> placer;
    try {
        placer = placement::PlacerRegistry::instance().create(request.placer);
    } catch (const placement::PlacementError& e) {
        throw sim::InputError("--placer", "", 0, e.what());
    }
    placement::PlacementContext context{instance.graph, instance.platform, *des,
                                        placement::Objective::latency, request.seed};
    const placement::PlacementResult placed = placer->place(context);
    if (!placed.placement.rewrite.empty()) {
        throw sim::InputError("--placer", "", 0,
                              "a task-graph instance's tasks are given: its placement may not "
                              "rewrite the graph");
    }
    if (const std::string invalid =
            sim::placement_violation(instance.graph, instance.platform, placed.placement);
        !invalid.empty()) {
        throw sim::InputError(request.workload, "", 0, "the placement breaks " + invalid);
    }
    const sim::ExecGraph exec = sim::lower(instance.graph, placed.placement, instance.platform);
    const sim::Metrics metrics = des->evaluate(exec);
    Json schedule = Json::array();
    for (const sim::Task& task : exec.tasks) {
        if (task.kind != sim::TaskKind::compute)
            continue;
        const sim::TaskTiming& t = metrics.task_timings[static_cast<std::size_t>(task.order)];
        const std::string& label = instance.task_labels[static_cast<std::size_t>(task.op)];
        schedule.push_back({{"task", instance.numeric_ids ? Json(std::stoll(label)) : Json(label)},
                            {"processor", task.device},
                            {"start", static_cast<double>(t.start_ps) * sim::kSecondsPerPs},
                            {"finish", static_cast<double>(t.finish_ps) * sim::kSecondsPerPs}});
    }
    std::sort(schedule.begin(), schedule.end(),
              [](const Json& a, const Json& b) { return a["task"] < b["task"]; });  // by id
    Json doc;
    doc["instance"] = request.workload;
    doc["placer"] = placer->name();
    doc["makespan"] = metrics.latency_s;
    if (placed.placement.schedule.has_plan())
        doc["planned_makespan"] = placed.placement.schedule.planned_makespan_s();
    doc["schedule"] = schedule;
    std::string out = fmt::format(
        "instance {}: {} tasks, {} processors\nplacer {}: makespan {:.9g}{}\n", request.workload,
        instance.graph.op_count(), instance.platform.device_count(), placer->name(),
        metrics.latency_s,
        placed.placement.schedule.has_plan()
            ? fmt::format(" (planned {:.9g})", placed.placement.schedule.planned_makespan_s())
            : std::string());
    if (!request.out.empty()) {
        sim::write_file_atomically(request.out, doc.dump(2) + "\n");
        out += fmt::format("schedule written to {}\n", request.out);
    }
    return out;
}

}  // namespace hetsim::app
