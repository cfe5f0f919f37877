// mcm.random: mcm2022 §5.1's Random Search — "a fixed uniform probability distribution,
// p(y_i = j | G) = 1/C, and the constraint solver works under the SAMPLE mode to generate valid
// partitions". Every sample is a fresh SAMPLE run (Algorithm 1) with a fresh random node order;
// the best partition by the cost model is kept.
#include <fmt/format.h>

#include <random>

#include "placement/mcm/mcm_placers.hpp"
#include "placement/mcm/search.hpp"
#include "placement/mcm/solver.hpp"

namespace hetsim::placement::mcm {

namespace {

constexpr const char* kName = "mcm.random";

ArgumentSchema schema() {
    ArgumentSchema s(kName);
    add_search_arguments(s, "1000");
    return s;
}

}  // namespace

RandomSearchPlacer::RandomSearchPlacer(const std::string& arguments)
    : McmPlacer(join_placer_spec(kName, arguments), schema().parse(arguments)) {}

PlacerInfo RandomSearchPlacer::info() {
    const ArgumentSchema s = schema();
    return PlacerInfo{kName, s.usage(),
                      "mcm2022's random search: the solver's SAMPLE mode with a uniform "
                      "distribution, best of `samples` valid partitions (§5.1)",
                      [](const std::string& a) { return std::make_unique<RandomSearchPlacer>(a); },
                      s.key_help()};
}

PlacementResult RandomSearchPlacer::place(const PlacementContext& context) {
    Search search(context, read_search_settings(arguments_));
    SolverOptions options;
    options.deadline = search.deadline();
    PartitionSolver solver(search.problem(), options);
    std::mt19937_64 rng(context.seed);
    while (!search.done()) {
        const auto partition = solver.sample({}, rng);
        if (partition)
            search.evaluate(*partition);
        else
            search.record_failed_sample();
    }
    PlacementResult result = search.finish(spec_);
    result.stats["solver_failures"] = std::to_string(solver.stats().failures);
    result.stats["solver_restarts"] = std::to_string(solver.stats().restarts);
    return result;
}

}  // namespace hetsim::placement::mcm
