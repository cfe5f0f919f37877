// mcm.greedy: mcm2022 §5.3's baseline, "a greedy heuristic from the production compiler". The
// paper does not describe it; spec/placement.md asks for a balanced contiguous fill in
// topological order, which is what a single-pass compiler heuristic does:
//   1. walk the ops in the graph's topological order (Graph::topo_order) and cut the order into
//      C contiguous runs of about equal compute: op u goes to chip ⌊(prefix(u) + t(u)/2) / T⌋,
//      prefix(u) being the compute of the ops before it and T = Σ t / C (each op to the chip its
//      midpoint falls in, so runs are balanced to within half an op);
//   2. an op whose weights would fill its chip's SRAM beyond 1 - `reserve` moves the run
//      boundary forward (the rest of the order shifts to later chips). A compiler keeps part of
//      each SRAM for the activations of the samples in the pipeline (H(G, f)); the default 10 %
//      is an [assumption] (3.4 MB of a 32 MiB chip: 26 of BERT-large's 128 KB int8
//      activations). An op alone on a chip may use the whole SRAM (BERT-large's int8 word
//      embedding is 93 % of one);
//   3. chips left empty are closed up (Eq. 3), and a prefix of a topological order is an ideal,
//      so Eq. 2 holds by construction;
//   4. cut edges that jump over a chip can break Eq. 4 (a residual edge around a run boundary):
//      the solver's FIX mode (Algorithm 2) then keeps every op it can and re-places the rest;
//   5. when FIX finds nothing within its limits, the fill is redone over half as many chips
//      (C, ⌈C/2⌉, ..., 1), as a compiler falls back to a smaller pipeline: an unrolled RNN whose
//      every step reads one Split of the input can only span the Split's chip and the next
//      (Eq. 4), which a 36-run fill is far from.
// It costs the result once (one sample) and reports it like the searches.
//
// `fill=memory` skips step 1: each chip takes ops in topological order until its weights reach
// the SRAM limit of step 2 — the packing a memory-driven compiler does, using as few chips as
// the weights need. mcm2022 does not say which of the two its production compiler does; the
// README reports both, since the searches' speedup over "greedy" depends on it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "placement/mcm/greedy.hpp"
#include "placement/mcm/mcm_placers.hpp"
#include "placement/mcm/search.hpp"
#include "placement/mcm/solver.hpp"

namespace hetsim::placement::mcm {

namespace {

constexpr const char* kName = "mcm.greedy";

ArgumentSchema schema() {
    ArgumentSchema s(kName);
    s.choice("cost", {"analytic", "simulator"}, "analytic",
             "what scores the partition: mcm2022 §5.1's analytical model, or the study's "
             "evaluator after H(G, f)")
        .number("reserve", 0.0, 0.9, "0.1",
                "share of each chip's SRAM the fill leaves for activations")
        .choice("fill", {"compute", "memory"}, "compute",
                "balance the chips' compute, or pack each chip's SRAM in turn")
        .boolean("bound", "1", "report the gap to the relaxed chain DP's bound (mcm.bound)");
    return s;
}

// Steps 1-3 of the header.
// `runs`: how many chips the compute is balanced over (the weights may push it further).
std::vector<int> balanced_fill(const McmProblem& problem, double reserve, bool by_compute,
                               int runs) {
    const sim::Graph& graph = problem.graph();
    const int chips = problem.chip_count();
    double total_s = 0.0;
    for (int op = 0; op < graph.op_count(); ++op)
        total_s += problem.op_time_s(op, 0);
    const double target_s = total_s / runs;
    std::vector<int> chip_of_op(static_cast<std::size_t>(graph.op_count()), 0);
    // Weight tensors already resident on the current chip (a shared one counts once).
    std::vector<int> resident_on(problem.graph().tensor_count(), -1);
    std::vector<std::vector<int>> weights_of_op(static_cast<std::size_t>(graph.op_count()));
    for (const WeightUse& w : problem.weights()) {
        for (int op : w.ops)
            weights_of_op[static_cast<std::size_t>(op)].push_back(w.tensor);
    }
    int chip = 0;
    std::int64_t chip_weights = 0;
    double prefix_s = 0.0;
    for (int op : graph.topo_order()) {
        const double t = problem.op_time_s(op, 0);
        const int balanced = by_compute && target_s > 0.0
                                 ? static_cast<int>(std::floor((prefix_s + t / 2.0) / target_s))
                                 : 0;
        auto new_weights = [&](int on_chip) {
            std::int64_t bytes = 0;
            for (int w : weights_of_op[static_cast<std::size_t>(op)]) {
                if (resident_on[static_cast<std::size_t>(w)] != on_chip)
                    bytes += problem.tensor_bytes(w);
            }
            return bytes;
        };
        int next = std::min(std::max(chip, balanced), chips - 1);
        if (next != chip)
            chip_weights = 0;
        // What the chip may take: all of its SRAM while it is empty, else all but the reserve.
        const auto limit = [&](int c) {
            const auto sram =
                static_cast<double>(problem.sram_bytes()[static_cast<std::size_t>(c)]);
            return chip_weights == 0 ? sram : sram * (1.0 - reserve);
        };
        while (next < chips - 1 && problem.sram_bytes()[static_cast<std::size_t>(next)] > 0 &&
               static_cast<double>(chip_weights + new_weights(next)) > limit(next)) {
            ++next;
            chip_weights = 0;
        }
        chip = next;
        chip_weights += new_weights(chip);
        for (int w : weights_of_op[static_cast<std::size_t>(op)])
            resident_on[static_cast<std::size_t>(w)] = chip;
        chip_of_op[static_cast<std::size_t>(op)] = chip;
        prefix_s += t;
    }
    // Close up skipped chips (a single op longer than T, or a weight jump).
    std::vector<int> renumber(static_cast<std::size_t>(chips), -1);
    int used = 0;
    for (int op : graph.topo_order()) {
        int& to = renumber[static_cast<std::size_t>(chip_of_op[static_cast<std::size_t>(op)])];
        if (to < 0)
            to = used++;
    }
    for (int& c : chip_of_op)
        c = renumber[static_cast<std::size_t>(c)];
    return chip_of_op;
}

// What the user can change when no fill could be repaired: an op whose weights exceed every
// chip's room (the chiplets' `memory`, less the reserve), the weights together exceeding the
// package's, or else the solver's limits.
std::string why_no_fill(const McmProblem& problem) {
    const std::vector<std::int64_t>& room = problem.capacity_bytes();
    if (std::find(room.begin(), room.end(), 0) != room.end())
        return "no valid partition within its limits";  // a chip without a limit
    const auto largest = std::max_element(room.begin(), room.end());
    const auto largest_chip = static_cast<std::size_t>(largest - room.begin());
    std::int64_t total_room = 0;
    for (std::int64_t r : room)
        total_room += r;
    int heaviest = 0;
    std::int64_t total_weights = 0;
    for (int op = 0; op < problem.op_count(); ++op) {
        if (problem.op_weight_bytes(op) > problem.op_weight_bytes(heaviest))
            heaviest = op;
    }
    for (const WeightUse& w : problem.weights())
        total_weights += w.bytes;
    const std::string chip = problem.platform().device(problem.chip_devices()[largest_chip]).name;
    if (problem.op_weight_bytes(heaviest) > *largest) {
        return fmt::format(
            "op '{}' reads {} B of weights, and no chiplet has room for more than {} B ('{}'); "
            "raise the chiplets' memory",
            problem.graph().op(heaviest).name, problem.op_weight_bytes(heaviest), *largest, chip);
    }
    if (total_weights > total_room) {
        return fmt::format(
            "the weights take {} B, more than the {} B the {} chiplets have for them; raise the "
            "chiplets' memory",
            total_weights, total_room, room.size());
    }
    return "no valid partition within its limits";
}

}  // namespace

GreedyPlacer::GreedyPlacer(const std::string& arguments)
    : McmPlacer(join_placer_spec(kName, arguments), schema().parse(arguments)) {}

PlacerInfo GreedyPlacer::info() {
    const ArgumentSchema s = schema();
    return PlacerInfo{kName, s.usage(),
                      "mcm2022's compiler baseline: balanced contiguous fill of the chiplets in "
                      "topological order, FIX-repaired where Eq. 4 breaks (§5.3)",
                      [](const std::string& a) { return std::make_unique<GreedyPlacer>(a); },
                      s.key_help()};
}

GreedyPartition greedy_partition(const McmProblem& problem, const GreedyOptions& options,
                                 std::mt19937_64& rng) {
    AnalyticModel analytic(problem);
    PartitionSolver solver(problem);
    for (int runs = problem.chip_count();; runs = (runs + 1) / 2) {
        GreedyPartition out;
        out.chip_of_op =
            balanced_fill(problem, options.reserve, options.fill == GreedyFill::compute, runs);
        out.runs = runs;
        if (analytic.static_constraints_hold(out.chip_of_op) &&
            analytic.weights_fit(out.chip_of_op))
            return out;
        // Topological order: FIX keeps the earliest ops' chips and re-places later ones.
        if (const auto fixed = solver.fix(out.chip_of_op, rng, problem.graph().topo_order())) {
            for (std::size_t op = 0; op < out.chip_of_op.size(); ++op)
                out.repaired_ops += (*fixed)[op] != out.chip_of_op[op] ? 1 : 0;
            out.chip_of_op = *fixed;
            return out;
        }
        if (runs == 1) {
            throw PlacementError(fmt::format(
                "{}: the solver could not repair the balanced fill of '{}' on any number of "
                "chips: {}",
                kName, problem.graph().name(), why_no_fill(problem)));
        }
    }
}

PlacementResult GreedyPlacer::place(const PlacementContext& context) {
    SearchSettings settings;
    settings.samples = 1;
    settings.cost =
        arguments_.choice("cost") == "simulator" ? CostModel::simulator : CostModel::analytic;
    settings.report_bound = arguments_.boolean("bound");
    Search search(context, settings);
    GreedyOptions options;
    options.reserve = arguments_.number("reserve");
    options.fill =
        arguments_.choice("fill") == "compute" ? GreedyFill::compute : GreedyFill::memory;
    std::mt19937_64 rng(context.seed);
    const GreedyPartition greedy = greedy_partition(search.problem(), options, rng);
    search.evaluate(greedy.chip_of_op);
    PlacementResult result = search.finish(spec_, greedy.chip_of_op);
    result.stats["repaired_ops"] = std::to_string(greedy.repaired_ops);
    result.stats["fill_runs"] = std::to_string(greedy.runs);
    if (greedy.repaired_ops > 0)
        result.summary += fmt::format(" (FIX moved {} op(s))", greedy.repaired_ops);
    if (greedy.runs < search.problem().chip_count())
        result.summary += fmt::format(" (filled over {} chips)", greedy.runs);
    return result;
}

}  // namespace hetsim::placement::mcm
