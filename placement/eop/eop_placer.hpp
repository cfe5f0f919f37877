// EOP's operator partition (xu2022, papers/xu2022-eop-operator-partition.txt) on a platform's
// first host CPU and its first GPU (or accelerator), found by role:
//   eop        §3: pattern models per key operator and dimension (Algorithm 1), each key op's
//              ratio balanced (Eq. 5, steps of 0.01) and kept only when the split beats the op
//              unsplit (Eq. 3), then collaborative tuning of adjacent key ops (Algorithm 2,
//              conditions C1-C3 of §5.1);
//   eop.equal  Equal [11, 28]: 0.5 / 0.5 on every key op;
//   eop.fixed  Fixed [25, 29]: one ratio per subgraph, the GPU share s / (1 + s) with
//              s = t_cpu / t_gpu of the subgraph.
// Every op that is not split runs unsplit on its faster device (Algorithm 3 line 10). A split
// op is the graph pass `split` (sim/passes/split.hpp): part 0 on the CPU, part 1 on the GPU,
// its Split and Concat on the op's faster device, the copies real PCIe transfers in the DES.
//
// EOP's own metric is AT (Eq. 4): the sum over the original ops of each op's time, a split op
// costing max(its parts) + its Split, Device_copy and Concat (Eq. 2). at_seconds computes it
// for any placement; the study writes it as `eop_at_s` next to the DES latency.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "placement/placer.hpp"

namespace hetsim::placement::eop {

// EOP's AT (Eq. 4) of `placement` of `original`: per original op, its time on its device
// (DeviceModel::op_time_s), or for an op split by the `split` pass, max over its parts plus its
// added ops and the transfers into them from another device (Eq. 2). Transfers between
// unsplit ops are not in AT, as in the paper; the DES latency has them.
double at_seconds(const sim::Graph& original, const sim::Placement& placement,
                  const sim::Platform& platform);

// One key op as the ratio search sees it: estimated times over part 0's extent n (1..extent)
// on the CPU, part 1's on the GPU, and the communication of the split at n (Eq. 2's cm).
struct SplitModel {
    std::int64_t extent = 0;
    double cpu_whole_s = 0.0;                   // t(op, CPU), unsplit
    double gpu_whole_s = 0.0;                   // t(op, GPU), unsplit
    std::function<double(std::int64_t)> cpu_s;  // t(op^CPU(n), CPU)
    std::function<double(std::int64_t)> gpu_s;  // t(op^GPU(n), GPU)
    std::function<double(std::int64_t)> cm_s;   // cm at part-0 extent n

    std::int64_t part0_extent(double share) const;  // llround(share * extent)
    // T(p(op, d), R) at CPU share `share` (Eq. 2): the unsplit time on one device at an
    // extent of 0 or the whole, else max of the parts plus cm.
    double time_s(double share) const;
};

// Eq. 5: the share on a grid of `step` (0 < n0 < extent) that makes the two parts' times
// closest (ties to the lower T, then the lower share); Eq. 3: kept only when T beats the op
// unsplit on either device, else 1 (all on the CPU) or 0 (all on the GPU), whichever is faster.
double balance_share(const SplitModel& model, double step);

// Algorithm 2 on an adjacent pair from their current shares: move a's share up and b's down
// together (a's alpha and b's beta, line 10), then the other way (line 11), one step at a time
// over the whole range, and keep the pair of shares with the least T(a) + T(b) (the current
// pair when nothing is better). Returns {share_a, share_b}.
std::pair<double, double> tune_pair(const SplitModel& a, double share_a, const SplitModel& b,
                                    double share_b, double step);

// Conditions C2/C3 (§3.3): Algorithm 2 over a chain of ops in order, each adjacent pair tuned
// from the shares the previous pair left (op i-1's share may move again with op i). `models`
// and `shares` run in parallel; a null model is an op that is not split (it breaks the chain:
// the ops on either side of it are not adjacent). Returns the tuned shares.
std::vector<double> tune_chain(const std::vector<const SplitModel*>& models,
                               std::vector<double> shares, double step);

enum class EopMode { eop, equal, fixed };

class EopPlacer final : public Placer {
public:
    EopPlacer(EopMode mode, const std::string& arguments);
    std::string name() const override;
    PlacementResult place(const PlacementContext& context) override;
    static PlacerInfo info(EopMode mode);

private:
    EopMode mode_;
    std::string arguments_;
    double key_share_ = 0.95;
    bool key_by_type_ = false;
    std::string conditions_ = "c3";
    double step_ = 0.01;
    int samples_ = 24;
    std::string dims_;  // "": every dimension (eop) or the first valid of batch, hw, hw1w2
};

}  // namespace hetsim::placement::eop
