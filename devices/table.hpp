// `type: table`: a processor whose op times are given, not modelled: the scheduling
// literature's task-graph instances (Topcuoglu et al. 2002, Arabnejad and Barbosa 2014, the
// Standard Task Graph Set, WfCommons), where each task's cost on each processor is data.
// Each op carries its costs in the attribute `costs_s`, a list of seconds with one column per
// processor; the device reads column `column`. An op without the attribute, with too short a
// list, or with an infinite or NaN cost in the column cannot run on the device (instances
// mark restricted placements so).
//
// YAML: `p0: {type: table, column: 0}` (device named after the component); memory and the
// other device-component keys as for any device.
#pragma once

#include <string>

#include "sim/config.hpp"
#include "sim/op_table.hpp"
#include "sim/platform.hpp"

namespace hetsim::devices {

using sim::kTaskCostsAttribute;  // the one definition is in sim/op_table.hpp

class TableModel final : public sim::DeviceModel {
public:
    explicit TableModel(int column) : column_(column) {}
    std::string type() const override { return "table"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::accelerator; }
    sim::Support supports(const sim::Graph& graph, const sim::Op& op) const override;
    double op_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    int column() const { return column_; }

private:
    int column_;
};

void build_table(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);

}  // namespace hetsim::devices
