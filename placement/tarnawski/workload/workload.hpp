// The workload and split formats of tarnawski2020 ("Efficient Algorithms for Device Placement
// of DNN Graph Operators", papers/tarnawski2020-device-placement.txt), as published with the
// paper's code and shared in ../shared/workloads/tarnawski2020/.
//
// The input is §3's instance: k accelerators with memory M each (maxFPGAs, maxSizePerFPGA),
// ℓ CPUs (maxCPUs), and a DAG whose nodes carry p_v^cpu, p_v^acc, m_v and whose edges carry
// the transfer cost of the source's output. A node may be unsupported on accelerators
// (p_v^acc = ∞, §3 footnote 1), belong to the backward pass (§5.3), and belong to a colour
// class whose nodes must share a device (Appendix B).
//
// The representation is a compact struct of arrays, deliberately independent of hetsim's
// sim::Graph. Plan for the later converter (no stub here): sim::Graph -> Workload takes
// p^cpu / p^acc from the cost models of the platform's CPU and accelerator device types
// (op_time), m_v from the op's weight + activation bytes, the edge cost from
// transfer_time(bytes of the source's output, PCIe link), k / ℓ / M from the platform, and
// colour classes from forward/backward weight sharing; a Split maps back to a
// sim::Placement by device index (cpus[i] -> i-th CPU core, fpgas[j] -> j-th accelerator).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetsim::placement::tarnawski {

// Bad input: the message names the file (or source), the JSON location (a JSON pointer
// such as /nodes/3/cpuLatency) and what was expected.
class WorkloadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Workload {
    double max_size_per_accelerator = 0.0;  // M, bytes ("maxSizePerFPGA")
    int max_accelerators = 0;               // k ("maxFPGAs")
    int max_cpus = 0;                       // ℓ ("maxCPUs")

    // Nodes, index i = position in the file. ids are the file's ids.
    std::vector<std::int64_t> id;
    std::vector<std::uint8_t> supported_on_accelerator;
    std::vector<double> cpu_latency;          // p_v^cpu
    std::vector<double> accelerator_latency;  // p_v^acc (as given; ∞ when unsupported)
    std::vector<std::uint8_t> is_backward;
    std::vector<std::uint8_t> has_color_class;
    std::vector<std::int64_t> color_class;  // meaningful where has_color_class
    std::vector<double> size;               // m_v, bytes
    std::vector<std::string> name;          // informational, may be empty

    // Edges, by node index.
    std::vector<std::int32_t> edge_source;
    std::vector<std::int32_t> edge_dest;
    std::vector<double> edge_cost;

    std::size_t node_count() const { return id.size(); }
    std::size_t edge_count() const { return edge_source.size(); }
    // Index of the node with this id; throws WorkloadError when absent.
    std::int32_t index_of(std::int64_t node_id) const;

    // Appends a node / an edge (by node index); used by generators and tests.
    std::int32_t add_node(std::int64_t node_id, double cpu, double acc, double bytes = 0.0,
                          bool backward = false, bool supported = true,
                          std::optional<std::int64_t> color = std::nullopt);
    void add_edge(std::int32_t source, std::int32_t dest, double cost);

    std::unordered_map<std::int64_t, std::int32_t> index;  // id -> node index
};

// A split in the experts/ format: one entry per device, node ids per device.
struct Split {
    std::vector<std::vector<std::int64_t>> cpus;
    std::vector<std::vector<std::int64_t>> accelerators;  // "fpgas"
    double objective = -1.0;
    // Appendix C.2 replication (replication.hpp), one count per device: r on the first device
    // of a set replicated over r devices, 0 on its replicas, 1 elsewhere. Empty = no
    // replication; written as "replicas" in each device entry only when present.
    std::vector<int> cpu_replicas, accelerator_replicas;

    bool replicated() const;
};

// Why no split of a workload can exist, whatever the solver: `where` is the JSON pointer of the
// culprit in the file's layout (/maxCPUs, /nodes/3/size, /edges/7), `what` says what is wrong
// and what would be accepted.
struct WorkloadDefect {
    std::string where;
    std::string what;
};

// The first defect that leaves no split at all (nullopt when there is none):
//  * no device: k = ℓ = 0;
//  * no CPU (ℓ = 0) and a node no accelerator can take: unsupported on accelerators (§3
//    footnote 1) or larger than M (constraint (3)), or a colour class larger than M (App. B:
//    the class shares one device);
//  * a cycle in the graph: §3's input is a DAG. (App. B's contraction of colour classes may
//    create cycles, but in the contracted graph the solvers build, never in the input.)
// A workload without a defect still need not fit (the nodes together may exceed what the
// accelerators hold when there is no CPU): that is for the solvers to find out.
std::optional<WorkloadDefect> find_unplaceable(const Workload& workload);

// Parses a workload; `source` names the input in error messages. A workload with a defect of
// find_unplaceable is refused like a malformed one.
Workload parse_workload(const nlohmann::json& json, const std::string& source);
Workload read_workload(const std::filesystem::path& path);
nlohmann::json workload_to_json(const Workload& workload);
void write_workload(const Workload& workload, const std::filesystem::path& path);

Split parse_split(const nlohmann::json& json, const std::string& source);
Split read_split(const std::filesystem::path& path);
nlohmann::json split_to_json(const Split& split);
// Writes to a temporary file and renames it, so no partial output is left on failure.
void write_split(const Split& split, const std::filesystem::path& path);

}  // namespace hetsim::placement::tarnawski
