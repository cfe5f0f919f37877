// mcm.rl: mcm2022's constrained RL as a placer (§4.3 "deployment phase"): a pre-trained policy
// run zero-shot, or fine-tuned with PPO on the target graph, every sample made valid by FIX and
// scored by the study's cost model — the analytical model, or the DES after H(G, f) (§5.3's
// real hardware). The convergence table and summary are the other mcm placers' (search.hpp).
#include <fmt/format.h>

#include <chrono>

#include <cmath>
#include <filesystem>

#include "placement/mcm/des_check.hpp"
#include "placement/mcm/greedy.hpp"
#include "placement/mcm/rl/agent.hpp"
#include "placement/mcm/rl/rl.hpp"
#include "placement/mcm/search.hpp"
#include "placement/placer_args.hpp"
#include "sim/config.hpp"

namespace hetsim::placement::mcm::rl {

namespace {

constexpr const char* kName = "mcm.rl";
constexpr const char* kShippedCheckpoint = "checkpoints/mcm_rl.pt";

ArgumentSchema schema() {
    ArgumentSchema s(kName);
    add_search_arguments(s, "200");
    s.text("checkpoint", kShippedCheckpoint,
           "pre-trained policy (hetsim train mcm.rl); 'none' = RL from scratch; a relative path "
           "is looked up in the working directory, then on the config search path")
        .integer("finetune", -1, 100'000'000, "-1",
                 "samples spent fine-tuning with PPO (0 = zero-shot; -1 = all of `samples`)")
        .integer("layers", PolicyConfig::kSageLayers.min, PolicyConfig::kSageLayers.max, "8",
                 "GraphSAGE layers of a policy from scratch (§5.1: 8)")
        .integer("hidden", PolicyConfig::kHidden.min, PolicyConfig::kHidden.max, "128",
                 "width of a policy from scratch (§5.1: 128)")
        .integer("rounds", PolicyConfig::kRounds.min, PolicyConfig::kRounds.max, "3",
                 "T of Eq. 7 for a policy from scratch")
        .choice("fix_order", fix_order_names(),
                std::string(to_string(FixOrder::topological_then_random)),
                "node order of FIX (Algorithm 2): a fresh random one per attempt (§4.2's "
                "default) or topological");
    return s;
}

std::string resolve_checkpoint(const std::string& given) {
    if (std::filesystem::exists(given))
        return given;
    if (const auto found = sim::find_config_file(given))
        return found->string();
    throw PlacementError(fmt::format(
        "{}: checkpoint '{}' not found (in the working directory or the config search path); "
        "make one with `hetsim train mcm.rl` or use checkpoint=none",
        kName, given));
}

// The study's cost model through Search, which logs every sample for the convergence table.
class SearchScorer final : public Scorer {
public:
    explicit SearchScorer(Search& search) : search_(&search) {}
    double time_per_sample_s(const std::vector<int>& p) override { return search_->evaluate(p); }
    void failed() override { search_->record_failed_sample(); }
    bool done() const override { return search_->done(); }
    bool out_of_time() const override {
        return search_->deadline() && std::chrono::steady_clock::now() >= *search_->deadline();
    }

private:
    Search* search_;
};

class RlPlacer final : public Placer {
public:
    explicit RlPlacer(const std::string& arguments)
        : spec_(join_placer_spec(kName, arguments)), arguments_(schema().parse(arguments)) {}
    std::string name() const override { return spec_; }
    PlacementResult place(const PlacementContext& context) override;

private:
    std::string spec_;
    PlacerArguments arguments_;
};

PlacementResult RlPlacer::place(const PlacementContext& context) {
    const SearchSettings settings = read_search_settings(arguments_);
    Search search(context, settings);
    const McmProblem& problem = search.problem();
    std::mt19937_64 rng(context.seed);

    const std::string checkpoint_arg = arguments_.text("checkpoint");
    std::optional<Agent> loaded;
    std::string checkpoint_path = "none";
    try {
        if (checkpoint_arg == "none") {
            RlConfig config;
            config.policy.chips = problem.chip_count();
            config.policy.sage_layers = static_cast<int>(arguments_.integer("layers"));
            config.policy.hidden = static_cast<int>(arguments_.integer("hidden"));
            config.policy.rounds = static_cast<int>(arguments_.integer("rounds"));
            config.seed = context.seed;
            loaded.emplace(config);
        } else {
            checkpoint_path = resolve_checkpoint(checkpoint_arg);
            loaded.emplace(Agent::load(checkpoint_path));
        }
    } catch (const RlError& e) {
        throw PlacementError(fmt::format("{}: {}", kName, e.what()));
    }
    Agent& agent = *loaded;
    if (agent.config().policy.chips != problem.chip_count()) {
        throw PlacementError(fmt::format(
            "{}: checkpoint '{}' is a policy for {} chips; platform '{}' has a ring of {}", kName,
            checkpoint_path, agent.config().policy.chips, context.platform.name,
            problem.chip_count()));
    }

    // The reward's unit: greedy's time per sample in the study's cost model (its analytical
    // time when the DES refuses greedy). Not a sample of the search.
    const GreedyPartition greedy = greedy_partition(problem, GreedyOptions{}, rng);
    double greedy_time_s = search.analytic().time_per_sample_s(greedy.chip_of_op);
    if (settings.cost == CostModel::simulator) {
        const SimulatedPartition run =
            simulate_partition(problem, greedy.chip_of_op, context.evaluator);
        if (run.valid())
            greedy_time_s = run.time_per_sample_s;
    }

    const std::int64_t finetune = arguments_.integer("finetune") < 0
                                      ? settings.samples
                                      : std::min(arguments_.integer("finetune"), settings.samples);
    SearchScorer scorer(search);
    Environment env(problem, greedy.chip_of_op, greedy_time_s, scorer, context.seed,
                    fix_order_from_string(arguments_.choice("fix_order")));
    const DeployStats run = deploy(agent, env, rng, finetune, settings.samples);

    PlacementResult result = search.finish(spec_, greedy.chip_of_op);
    result.stats["checkpoint"] = checkpoint_path;
    result.stats["finetune_samples"] = std::to_string(std::min(finetune, run.samples));
    result.stats["ppo_updates"] = std::to_string(run.updates);
    result.stats["policy_parameters"] = std::to_string(agent.parameter_count());
    result.stats["last_mean_reward"] = fmt::format("{:.4f}", run.last_mean_reward);
    result.stats["greedy_time_per_sample_s"] = fmt::format("{:.6g}", greedy_time_s);
    result.stats["fix_failed_samples"] = std::to_string(env.fix_failures());
    result.stats["refused_samples"] = std::to_string(env.refusals());
    result.summary += fmt::format("; {} PPO update(s), policy {}", run.updates,
                                  checkpoint_arg == "none" ? "from scratch" : checkpoint_path);
    return result;
}

}  // namespace

PlacerInfo rl_placer_info() {
    const ArgumentSchema s = schema();
    return PlacerInfo{kName, s.usage(),
                      "mcm2022's constrained RL: GraphSAGE + PPO, samples made valid by the "
                      "solver's FIX mode, zero-shot or fine-tuned from a pre-trained checkpoint "
                      "(§4, §5.2-5.3)",
                      [](const std::string& a) { return std::make_unique<RlPlacer>(a); },
                      s.key_help()};
}

void register_placers(PlacerRegistry& registry) {
    registry.family("mcm").add(rl_placer_info());
}

}  // namespace hetsim::placement::mcm::rl
