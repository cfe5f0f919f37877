// mcm.rl's environment and its config file format: everything of the learner that needs no
// libtorch (agent.cpp holds the rest).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "placement/mcm/rl/agent.hpp"
#include "placement/mcm/solver.hpp"
#include "sim/digest.hpp"

namespace hetsim::placement::mcm::rl {

namespace {

// FIX's limits for the learner: a sample FIX cannot repair within a few restarts is scored 0
// and the policy learns to avoid it; the solver's default 50 attempts (for SAMPLE, where a
// partition must come out) would spend most of pre-training on such samples.
SolverOptions learner_fix_options() {
    SolverOptions options;
    options.max_attempts = 8;
    return options;
}

}  // namespace

struct Environment::Impl {
    explicit Impl(const McmProblem& problem) : solver(problem, learner_fix_options()) {}
    PartitionSolver solver;
    std::mt19937_64 rng;
};

Environment::Environment(const McmProblem& problem, std::vector<int> greedy_partition,
                         double greedy_time_s, Scorer& scorer, std::uint64_t seed,
                         FixOrder fix_order)
    : problem_(&problem),
      features_(make_features(problem)),
      greedy_(std::move(greedy_partition)),
      greedy_time_s_(greedy_time_s),
      scorer_(&scorer),
      impl_(std::make_unique<Impl>(problem)),
      fix_order_(fix_order) {
    impl_->rng.seed(seed);
    if (greedy_.size() != static_cast<std::size_t>(problem.op_count()))
        throw RlError("mcm.rl: the greedy partition does not cover the graph");
}

Environment::~Environment() = default;

std::string_view to_string(FixOrder order) {
    switch (order) {
        case FixOrder::random:
            return "random";
        case FixOrder::topological:
            return "topological";
        case FixOrder::topological_then_random:
            return "topological_then_random";
    }
    return "?";
}

namespace {
constexpr FixOrder kFixOrders[] = {FixOrder::random, FixOrder::topological,
                                   FixOrder::topological_then_random};
}  // namespace

std::vector<std::string> fix_order_names() {
    std::vector<std::string> names;
    for (FixOrder o : kFixOrders)
        names.emplace_back(to_string(o));
    return names;
}

FixOrder fix_order_from_string(std::string_view text) {
    for (FixOrder o : kFixOrders) {
        if (text == to_string(o))
            return o;
    }
    const std::vector<std::string> names = fix_order_names();
    throw RlError(fmt::format("mcm.rl: FIX order '{}': expected {} or {}", text,
                              fmt::join(names.begin(), names.end() - 1, ", "), names.back()));
}

Environment::Outcome Environment::play(const std::vector<int>& candidate) {
    Outcome outcome;
    // Algorithm 2 in a fresh random node order per attempt (§4.2's default), or in topological
    // order, where the ops later in the order give way as in mcm.greedy's repair (FixOrder).
    std::optional<std::vector<int>> fixed;
    if (fix_order_ != FixOrder::random)
        fixed = impl_->solver.fix(candidate, impl_->rng, problem_->graph().topo_order());
    if (!fixed && fix_order_ != FixOrder::topological)
        fixed = impl_->solver.fix(candidate, impl_->rng);
    if (!fixed) {
        ++fix_failures_;
        scorer_->failed();
        return outcome;
    }
    const double time_s = scorer_->time_per_sample_s(*fixed);
    outcome.partition = std::move(*fixed);
    // §5.1: "a zero throughput when it evaluates an invalid partition".
    if (std::isfinite(time_s) && time_s > 0.0) {
        outcome.reward = greedy_time_s_ / time_s;
    } else {
        ++refusals_;
    }
    return outcome;
}

double AnalyticScorer::time_per_sample_s(const std::vector<int>& chip_of_op) {
    ++samples_;
    if (!model_.weights_fit(chip_of_op))
        return std::numeric_limits<double>::infinity();
    return model_.time_per_sample_s(chip_of_op);
}

std::string RlConfig::to_json() const {
    nlohmann::ordered_json j;
    j["policy"] = {{"chips", policy.chips},
                   {"sage_layers", policy.sage_layers},
                   {"hidden", policy.hidden},
                   {"policy_layers", policy.policy_layers},
                   {"rounds", policy.rounds},
                   {"features", kStaticFeatureCount},
                   {"feature_version", kFeatureVersion}};
    j["ppo"] = {{"rollouts", ppo.rollouts},
                {"minibatches", ppo.minibatches},
                {"epochs", ppo.epochs},
                {"learning_rate", ppo.learning_rate},
                {"clip", ppo.clip},
                {"entropy", ppo.entropy},
                {"max_grad_norm", ppo.max_grad_norm},
                {"risk_epsilon", ppo.risk_epsilon}};
    j["seed"] = seed;
    return j.dump();
}

RlConfig RlConfig::from_json(const std::string& text) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw RlError(fmt::format("mcm.rl checkpoint config is not JSON: {}", e.what()));
    }
    auto get = [&](const char* section, const char* key, auto& into) {
        const auto s = j.find(section);
        if (s == j.end() || !s->contains(key))
            throw RlError(fmt::format("mcm.rl checkpoint config lacks '{}.{}'", section, key));
        try {
            (*s)[key].get_to(into);
        } catch (const nlohmann::json::exception&) {
            throw RlError(
                fmt::format("mcm.rl checkpoint config: '{}.{}' has the wrong type", section, key));
        }
    };
    RlConfig c;
    get("policy", "chips", c.policy.chips);
    get("policy", "sage_layers", c.policy.sage_layers);
    get("policy", "hidden", c.policy.hidden);
    get("policy", "policy_layers", c.policy.policy_layers);
    get("policy", "rounds", c.policy.rounds);
    int features = 0, version = 0;
    get("policy", "features", features);
    get("policy", "feature_version", version);
    if (features != kStaticFeatureCount || version != kFeatureVersion) {
        throw RlError(fmt::format(
            "mcm.rl checkpoint was trained on feature set v{} ({} features); this hetsim "
            "computes v{} ({} features): retrain it (README, \"hetsim train\")",
            version, features, kFeatureVersion, kStaticFeatureCount));
    }
    get("ppo", "rollouts", c.ppo.rollouts);
    get("ppo", "minibatches", c.ppo.minibatches);
    get("ppo", "epochs", c.ppo.epochs);
    get("ppo", "learning_rate", c.ppo.learning_rate);
    get("ppo", "clip", c.ppo.clip);
    get("ppo", "entropy", c.ppo.entropy);
    get("ppo", "max_grad_norm", c.ppo.max_grad_norm);
    // Checkpoints written before 2026-11-26 have no risk_epsilon: they trained on every rollout.
    if (j.contains("ppo") && j["ppo"].contains("risk_epsilon"))
        get("ppo", "risk_epsilon", c.ppo.risk_epsilon);
    if (!j.contains("seed") || !j["seed"].is_number_unsigned())
        throw RlError("mcm.rl checkpoint config lacks 'seed'");
    c.seed = j["seed"].get<std::uint64_t>();
    return c;
}

std::string file_digest(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw RlError(fmt::format("cannot read '{}'", path));
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const std::uint64_t h = sim::fnv1a_64(bytes);
    return fmt::format("{:016x}", h);
}

}  // namespace hetsim::placement::mcm::rl
