// `hetsim check-partition STUDY PARTITION.json`: mcm2022's constraints (§3, Eq. 2-5) on a
// partition file in the placement_<placer>.json format (ops: [{op, device}, ...]), against the
// study's workload and the chiplets of its platform in ring order.
#pragma once

#include <string>
#include <vector>

namespace hetsim::app {

struct PartitionVerdict {
    bool valid = false;
    std::string report;  // the text to print: the verdict, every violation, memory per chip
};

// Throws sim::InputError for bad input: unreadable or malformed partition JSON, an unknown op
// or device, a device that is not a chiplet, an op listed twice, ops missing.
PartitionVerdict check_partition(const std::string& study_file,
                                 const std::vector<std::string>& overrides,
                                 const std::string& partition_file);

}  // namespace hetsim::app
