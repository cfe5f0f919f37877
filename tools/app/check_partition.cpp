#include "tools/app/check_partition.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "placement/mcm/constraints.hpp"
#include "placement/mcm/problem.hpp"
#include "sim/config.hpp"
#include "sim/device_role.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace {

namespace mcm = placement::mcm;

[[noreturn]] void fail(const std::string& file, const std::string& path,
                       const std::string& message) {
    throw sim::InputError(file, path, 0, message);
}

nlohmann::json read_json(const std::string& file) {
    std::ifstream in(file);
    if (!in)
        fail(file, "", "cannot read the partition file");
    std::stringstream text;
    text << in.rdbuf();
    try {
        return nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
        fail(file, "", fmt::format("not valid JSON: {}", e.what()));
    }
}

std::string required_string(const nlohmann::json& entry, const std::string& file,
                            const std::string& path, const char* key) {
    if (!entry.is_object() || !entry.contains(key) || !entry.at(key).is_string())
        fail(file, path, fmt::format("expected an object with a string '{}'", key));
    return entry.at(key).get<std::string>();
}

// " (did you mean 'x'?)" when a candidate is close to `word`, else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
    const std::string guess = sim::did_you_mean(word, candidates);
    return guess.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", guess);
}

}  // namespace

PartitionVerdict check_partition(const std::string& study_file,
                                 const std::vector<std::string>& overrides,
                                 const std::string& partition_file) {
    const StudyConfig study = load_study(study_file, overrides);
    const sim::Graph& graph = *study.graph;
    const sim::Platform& platform = study.platform;
    const mcm::McmProblem problem(graph, platform);
    const std::vector<int>& ring = problem.chip_devices();
    std::map<int, int> chip_of_device;
    for (std::size_t chip = 0; chip < ring.size(); ++chip)
        chip_of_device[ring[chip]] = static_cast<int>(chip);

    const nlohmann::json doc = read_json(partition_file);
    if (!doc.is_object() || !doc.contains("ops") || !doc.at("ops").is_array())
        fail(partition_file, "ops", "expected an array of {\"op\": ..., \"device\": ...}");
    std::vector<int> chip_of_op(static_cast<std::size_t>(graph.op_count()), -1);
    std::vector<std::string> op_names;
    for (const sim::Op& op : graph.ops())
        op_names.push_back(op.name);
    const std::vector<std::string> device_names = platform.device_names();
    const auto& entries = doc.at("ops");
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::string path = fmt::format("ops[{}]", i);
        const std::string op_name = required_string(entries[i], partition_file, path, "op");
        const std::string device_name = required_string(entries[i], partition_file, path, "device");
        const auto op = graph.find_op(op_name);
        if (!op) {
            fail(partition_file, path + ".op",
                 fmt::format("unknown op '{}' in workload '{}'{}", op_name, study.workload_label,
                             suggestion(op_name, op_names)));
        }
        const auto device = platform.find_device(device_name);
        if (!device) {
            fail(partition_file, path + ".device",
                 fmt::format("unknown device '{}' on platform '{}'{}", device_name, platform.name,
                             suggestion(device_name, device_names)));
        }
        if (!chip_of_device.contains(*device)) {
            fail(partition_file, path + ".device",
                 fmt::format("device '{}' has role {}, expected a chiplet", device_name,
                             sim::to_string(platform.device(*device).role())));
        }
        auto& chip = chip_of_op[static_cast<std::size_t>(*op)];
        if (chip >= 0)
            fail(partition_file, path + ".op", fmt::format("op '{}' is listed twice", op_name));
        chip = chip_of_device.at(*device);
    }
    std::vector<std::string> missing;
    for (int op = 0; op < graph.op_count(); ++op) {
        if (chip_of_op[static_cast<std::size_t>(op)] < 0)
            missing.push_back(fmt::format("'{}'", graph.op(op).name));
    }
    if (!missing.empty()) {
        constexpr std::size_t kShown = 5;
        const std::size_t shown = std::min(missing.size(), kShown);
        fail(partition_file, "ops",
             fmt::format(
                 "{} op(s) of the workload have no device: {}{}", missing.size(),
                 fmt::join(missing.begin(), missing.begin() + static_cast<long>(shown), ", "),
                 missing.size() > shown ? ", ..." : ""));
    }

    // Tensors take the chips' dtype in SRAM (an int8 package holds a float32 weight in a byte).
    const std::vector<std::int64_t>& capacity = problem.sram_bytes();
    const std::vector<std::int64_t>& bytes = problem.tensor_bytes_all();
    const std::vector<mcm::Violation> violations =
        mcm::check_partition(graph, chip_of_op, capacity, bytes);
    std::string report = fmt::format(
        "{}: {} ({} op(s) on platform '{}', {} chiplet(s) in ring order)\n", partition_file,
        violations.empty() ? "VALID" : fmt::format("INVALID, {} violation(s)", violations.size()),
        graph.op_count(), platform.name, ring.size());
    for (const mcm::Violation& v : violations)
        report += fmt::format("  {}\n", v.message);
    for (const mcm::ChipMemory& m : mcm::chip_memory(graph, chip_of_op, capacity, bytes)) {
        report += fmt::format(
            "  chip {} ({}): {} op(s), peak {} B{} (activations {} B + weights {} B), SRAM {}\n",
            m.chip, platform.device(ring[static_cast<std::size_t>(m.chip)]).name, m.ops,
            m.peak_bytes(), m.peak_op < 0 ? "" : fmt::format(" at '{}'", graph.op(m.peak_op).name),
            m.activation_bytes, m.weight_bytes,
            m.capacity_bytes > 0 ? fmt::format("{} B", m.capacity_bytes) : "unlimited");
    }
    return {violations.empty(), report};
}

}  // namespace hetsim::app
