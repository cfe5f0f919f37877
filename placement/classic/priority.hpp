// "priority:<d1>,<d2>,...": ONNX Runtime's graph partitioner. Each op goes to the first
// device in the user's priority list that supports it, regardless of cost (lee2022 §2.1,
// §2.4); lee2022 §4.3 compares against orders ② (CPU_P,PIM,CPU_S) and ③ (PIM,CPU_P,CPU_S).
#pragma once

#include <string>
#include <vector>

#include "placement/placer.hpp"

namespace hetsim::placement {

class PriorityPlacer final : public Placer {
public:
    // `arguments` is the comma-separated device list; an empty list or an empty entry ->
    // PlacementError with the usage. Names are checked against the platform in place().
    explicit PriorityPlacer(const std::string& arguments);
    static PlacerInfo info();

    std::string name() const override;
    PlacementResult place(const PlacementContext& context) override;

    const std::vector<std::string>& devices() const { return devices_; }

private:
    std::vector<std::string> devices_;
};

}  // namespace hetsim::placement
