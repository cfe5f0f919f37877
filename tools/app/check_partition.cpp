#include "tools/app/check_partition.hpp"

#include <fmt/format.h>

#include <map>

#include "placement/mcm/constraints.hpp"
#include "placement/mcm/problem.hpp"
#include "sim/config.hpp"
#include "sim/device_role.hpp"
#include "sim/placement_file.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace mcm = placement::mcm;

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

    // The placement file's one reader (sim/placement_file.hpp): every op placed once, on a
    // device of the platform, with the file's type and summary matching; here each on a chiplet.
    const sim::Placement placement = sim::read_placement_file(partition_file, graph, platform);
    if (!placement.rewrite.empty())
        throw sim::InputError(partition_file, "rewrite", 0,
                              "a partition of a rewritten graph; check-partition checks a "
                              "partition of the study's own graph");
    std::vector<int> chip_of_op(static_cast<std::size_t>(graph.op_count()), -1);
    for (int op = 0; op < graph.op_count(); ++op) {
        const int device = placement.device_of_op[static_cast<std::size_t>(op)];
        const auto chip = chip_of_device.find(device);
        if (chip == chip_of_device.end()) {
            throw sim::InputError(
                partition_file, "ops", 0,
                fmt::format("op '{}' is on device '{}', which has role {}; expected a chiplet",
                            graph.op(op).name, platform.device(device).name,
                            sim::to_string(platform.device(device).role())));
        }
        chip_of_op[static_cast<std::size_t>(op)] = chip->second;
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
