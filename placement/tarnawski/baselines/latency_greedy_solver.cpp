// `greedy`: the latency baseline of tarnawski2020 §7 (Table 4, column "Greedy").
//
//  * contract colour classes and the strongly connected components that arise (App. B);
//  * fix a topological order of the blocks: Kahn's algorithm taking the most recently readied
//    block first (the published code's "DFS-ish" order), sources in order of first node;
//  * for every accelerator in turn, place as many blocks (in that order) as fit in M;
//  * place the remaining blocks on the CPU.
// It ignores processing times and transfer costs. A block larger than M or holding a node
// unsupported on accelerators also goes to the CPU (the published tool ignores support).
#include <fmt/format.h>

#include "placement/tarnawski/baselines/baseline_solvers.hpp"
#include "placement/tarnawski/latency/latency.hpp"
#include "placement/tarnawski/latency/latency_search.hpp"

namespace hetsim::placement::tarnawski {

namespace {

class LatencyGreedySolver final : public SplitSolver {
public:
    std::string name() const override { return "tarnawski.greedy"; }

protected:
    SolveResult solve_placeable(const Workload& workload,
                                const SolveOptions& options) const override {
        const Blocks blocks = make_blocks(workload, true);
        const Assignment a = greedy_fill(workload, blocks, block_order(blocks, BlockOrder::stack));
        SolveResult out;
        out.objective = split_objective(workload, a, options.objective);
        out.split = to_split(workload, a, out.objective);
        out.stats["blocks"] = std::to_string(blocks.count());
        const LatencyReport r = evaluate_latency(workload, a);
        out.stats["latency"] = fmt::format("{:.9g}", r.latency);
        int used = 0;
        for (double b : r.accelerator_bytes)
            used += b > 0.0 ? 1 : 0;
        int on_cpu = 0;
        for (int d : a.device_of_node)
            on_cpu += d < workload.max_cpus ? 1 : 0;
        out.stats["accelerators_used"] = std::to_string(used);
        out.stats["cpu_nodes"] = std::to_string(on_cpu);
        if (options.progress != nullptr)
            *options.progress << fmt::format("greedy: {} blocks, latency {:.6g}\n", blocks.count(),
                                             r.latency);
        return out;
    }
};

}  // namespace

std::unique_ptr<SplitSolver> make_latency_greedy_solver(const std::string&,
                                                        const PlacerArguments&) {
    return std::make_unique<LatencyGreedySolver>();
}

}  // namespace hetsim::placement::tarnawski
