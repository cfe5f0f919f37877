#include "placement/mcm/des_check.hpp"

#include "placement/mcm/constraints.hpp"
#include "sim/exec_graph.hpp"

namespace hetsim::placement::mcm {

std::string_view to_string(DesVerdict verdict) {
    switch (verdict) {
        case DesVerdict::valid:
            return "valid";
        case DesVerdict::static_constraints:
            return "static constraints (Eq. 2-4)";
        case DesVerdict::memory_schedule:
            return "H(G, f) memory";
        case DesVerdict::memory_in_flight:
            return "SRAM with samples in flight";
    }
    return "?";
}

SimulatedPartition simulate_partition(const McmProblem& problem, const std::vector<int>& chip_of_op,
                                      sim::Evaluator& evaluator) {
    SimulatedPartition result;
    const sim::Graph& graph = problem.graph();
    const std::vector<Violation> static_violations =
        check_static_constraints(graph, chip_of_op, problem.chip_count());
    if (!static_violations.empty()) {
        result.verdict = DesVerdict::static_constraints;
        result.reason = static_violations.front().message;
        return result;
    }
    const std::vector<Violation> memory =
        check_memory(graph, chip_of_op, problem.sram_bytes(), problem.tensor_bytes_all());
    if (!memory.empty()) {
        result.verdict = DesVerdict::memory_schedule;
        result.reason = memory.front().message;
        return result;
    }
    const sim::ExecGraph exec =
        sim::lower(graph, problem.to_placement(chip_of_op), problem.platform());
    result.metrics = evaluator.evaluate(exec);
    if (!result.metrics.feasible) {
        result.verdict = DesVerdict::memory_in_flight;
        result.reason = result.metrics.infeasible_reason;
        return result;
    }
    result.throughput_per_s = result.metrics.throughput_per_s;
    result.time_per_sample_s = result.throughput_per_s > 0.0 ? 1.0 / result.throughput_per_s : 0.0;
    return result;
}

}  // namespace hetsim::placement::mcm
