#include "placement/mcm/ring_rule.hpp"

#include "placement/mcm/constraints.hpp"
#include "placement/mcm/problem.hpp"
#include "sim/device_role.hpp"

namespace hetsim::placement::mcm {

namespace {

class ChipletRingRule final : public sim::PlacementRule {
public:
    std::string violation(const sim::Graph& graph, const sim::Platform& platform,
                          const sim::Placement& placement) const override {
        bool has_chiplet = false;
        for (const sim::Device& d : platform.devices())
            has_chiplet = has_chiplet || d.role() == sim::DeviceRole::chiplet;
        if (!has_chiplet)
            return {};
        const McmProblem problem(graph, platform);
        for (int device : placement.device_of_op) {
            if (problem.chip_of_device(device) < 0)
                return {};
        }
        const std::vector<int> chip_of_op = problem.from_placement(placement);
        const auto violations =
            check_partition(graph, chip_of_op, problem.sram_bytes(), problem.tensor_bytes_all());
        return violations.empty() ? std::string() : violations.front().message;
    }
};

}  // namespace

std::shared_ptr<const sim::PlacementRule> chiplet_ring_rule() {
    return std::make_shared<ChipletRingRule>();
}

}  // namespace hetsim::placement::mcm
