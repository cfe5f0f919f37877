// mcm.rl's learner: rollouts in T rounds, sampling, rewards, advantages and PPO's mini-batches.
// The tensor arithmetic (the policy's forward pass, the gradient step, the checkpoint file) is the
// policy module's (policy_backend.hpp), so this file needs no libtorch.
#include "placement/mcm/rl/agent.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "placement/classic/random.hpp"
#include "placement/mcm/rl/policy_backend.hpp"
#include "placement/mcm/search.hpp"

namespace hetsim::placement::mcm::rl {

namespace {

// One rollout: T rounds of Eq. 7 and the reward of the last round's sample after FIX.
struct Rollout {
    std::vector<std::int64_t> prev;    // T x N: the round's input partition
    std::vector<std::int64_t> action;  // T x N: the round's sample
    std::vector<float> old_log_prob;   // T x N
    double reward = 0.0;
};

// The config's checks. The messages name the config's keys and have no prefix: the placer adds
// "mcm.rl: ", Agent::load the checkpoint's file.
void check_range(const char* key, int value, IntRange range) {
    if (!range.contains(value)) {
        throw RlError(
            fmt::format("{} must be in {}..{}, got {}", key, range.min, range.max, value));
    }
}

void check_config(const RlConfig& config) {
    const PolicyConfig& p = config.policy;
    check_range("chips (the ring's)", p.chips, PolicyConfig::kChips);
    check_range("sage_layers", p.sage_layers, PolicyConfig::kSageLayers);
    check_range("hidden", p.hidden, PolicyConfig::kHidden);
    check_range("policy_layers", p.policy_layers, PolicyConfig::kPolicyLayers);
    check_range("rounds", p.rounds, PolicyConfig::kRounds);
    if (const std::int64_t n = policy_parameter_count(p); n > PolicyConfig::kMaxParameters) {
        throw RlError(fmt::format(
            "a policy of {} sage_layers of {} hidden on {} chips has {} parameters, over the "
            "limit of {}",
            p.sage_layers, p.hidden, p.chips, n, PolicyConfig::kMaxParameters));
    }
    check_range("rollouts", config.ppo.rollouts, PpoConfig::kRollouts);
    check_range("minibatches", config.ppo.minibatches, PpoConfig::kMinibatches);
    check_range("epochs", config.ppo.epochs, PpoConfig::kEpochs);
    if (!PpoConfig::valid_risk_epsilon(config.ppo.risk_epsilon))
        throw RlError("risk_epsilon must be in (0, 1]");
    if (!PpoConfig::valid_entropy(config.ppo.entropy))
        throw RlError("entropy must be a finite number >= 0");
}

// Draws index k with probability exp(log_p[k]) by inversion of one uniform draw (the last index
// takes the rounding remainder).
int sample_index(const float* log_p, int count, std::mt19937_64& rng) {
    const double draw = uniform_unit(rng);
    double acc = 0.0;
    for (int k = 0; k < count; ++k) {
        acc += std::exp(static_cast<double>(log_p[k]));
        if (draw < acc)
            return k;
    }
    return count - 1;
}

}  // namespace

std::int64_t policy_parameter_count(const PolicyConfig& c) {
    // A linear layer of `in` inputs and `out` outputs: weights and biases.
    const auto linear = [](std::int64_t in, std::int64_t out) { return in * out + out; };
    std::int64_t n = 0, width = kStaticFeatureCount;
    for (int i = 0; i < c.sage_layers; ++i, width = c.hidden)
        n += linear(3 * width, c.hidden);  // [h ; mean of predecessors ; mean of successors]
    width += 3 * std::int64_t{c.chips};    // the previous chips' one-hot and its two means
    for (int i = 0; i < c.policy_layers; ++i, width = c.hidden)
        n += linear(width, c.hidden);
    return n + linear(width, c.chips) + 2;  // the head, `stay` and `near`
}

struct Agent::Impl {
    RlConfig config;
    std::unique_ptr<PolicyBackend> backend;
};

Agent::Agent(const RlConfig& config) {
    check_config(config);
    impl_ = std::make_unique<Impl>(
        Impl{config, policy_module().create(config.policy, config.ppo.learning_rate, config.seed)});
}
Agent::Agent(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Agent::~Agent() = default;
Agent::Agent(Agent&&) noexcept = default;
Agent& Agent::operator=(Agent&&) noexcept = default;

const RlConfig& Agent::config() const {
    return impl_->config;
}

std::int64_t Agent::parameter_count() const {
    return impl_->backend->parameter_count();
}

void Agent::save(const std::string& path, const CheckpointMeta& meta, bool with_optimizer) const {
    impl_->backend->save(path, impl_->config.to_json(), meta, with_optimizer);
}

Agent Agent::load(const std::string& path, CheckpointMeta* meta) {
    const PolicyModule& module = policy_module();
    CheckpointHeader header = module.read_header(path);
    const RlConfig config = RlConfig::from_json(header.config_json);
    try {
        check_config(config);
    } catch (const RlError& e) {
        throw RlError(fmt::format("checkpoint '{}': {}", path, e.what()));
    }
    auto backend = module.create(config.policy, config.ppo.learning_rate, config.seed);
    backend->load_weights(path);
    if (meta)
        *meta = std::move(header.meta);
    return Agent(std::make_unique<Impl>(Impl{config, std::move(backend)}));
}

Agent Agent::clone() const {
    return Agent(std::make_unique<Impl>(Impl{impl_->config, impl_->backend->clone()}));
}

IterationStats Agent::iterate(Environment& env, std::mt19937_64& rng, bool learn,
                              std::int64_t max_samples) {
    const RlConfig& c = impl_->config;
    const McmProblem& problem = env.problem();
    if (problem.chip_count() != c.policy.chips) {
        throw RlError(
            fmt::format("mcm.rl: the policy was built for {} chips, the platform's ring has {}",
                        c.policy.chips, problem.chip_count()));
    }
    const int n = problem.op_count();
    const int rounds = c.policy.rounds;
    const int chips = c.policy.chips;
    PolicyBackend& policy = *impl_->backend;
    policy.set_graph(env.features());

    // --- Rollouts: all of them advance round by round in one batch (Eq. 7's T rounds).
    const int wanted = static_cast<int>(std::clamp<std::int64_t>(max_samples, 0, c.ppo.rollouts));
    if (wanted == 0)
        return {};
    std::vector<Rollout> rollouts(static_cast<std::size_t>(wanted));
    std::vector<std::int64_t> current(static_cast<std::size_t>(wanted) * n);
    for (int r = 0; r < wanted; ++r) {
        // y^(0): mcm.greedy's partition [assumption: the paper does not say what round 1 sees].
        std::copy(env.greedy_partition().begin(), env.greedy_partition().end(),
                  current.begin() + static_cast<std::ptrdiff_t>(r) * n);
    }
    double entropy_sum = 0.0;
    for (int t = 0; t < rounds; ++t) {
        const std::vector<float> log_p = policy.log_probs(current, wanted);  // [R, N, C]
        if (t == rounds - 1) {
            for (float lp : log_p)
                entropy_sum -= std::exp(static_cast<double>(lp)) * lp;
            entropy_sum /= static_cast<double>(wanted) * n;
        }
        for (int r = 0; r < wanted; ++r) {
            Rollout& ro = rollouts[static_cast<std::size_t>(r)];
            for (int u = 0; u < n; ++u) {
                const std::size_t at = (static_cast<std::size_t>(r) * n + u);
                ro.prev.push_back(current[at]);
                const float* row = log_p.data() + at * static_cast<std::size_t>(chips);
                const int chosen = sample_index(row, chips, rng);
                ro.action.push_back(chosen);
                ro.old_log_prob.push_back(row[chosen]);
                current[at] = chosen;
            }
        }
    }

    // --- Play: FIX and score the last round's samples while the budget lasts.
    IterationStats stats;
    int played = 0;
    for (int r = 0; r < wanted && !env.scorer().done(); ++r) {
        std::vector<int> candidate(static_cast<std::size_t>(n));
        for (int u = 0; u < n; ++u)
            candidate[static_cast<std::size_t>(u)] =
                static_cast<int>(current[static_cast<std::size_t>(r) * n + u]);
        rollouts[static_cast<std::size_t>(r)].reward = env.play(candidate).reward;
        ++played;
    }
    rollouts.resize(static_cast<std::size_t>(played));
    stats.samples = played;
    stats.policy_entropy = entropy_sum;
    if (played == 0)
        return stats;
    double sum = 0.0, best = 0.0;
    for (const Rollout& ro : rollouts) {
        sum += ro.reward;
        best = std::max(best, ro.reward);
        stats.valid += ro.reward > 0.0 ? 1 : 0;
    }
    stats.mean_reward = sum / played;
    stats.best_reward = best;
    // Past the time limit an update could only delay the return: the samples are scored and
    // the best is kept. A time limit is a promise.
    if (!learn || played < 2 || env.scorer().out_of_time())
        return stats;

    std::vector<double> rewards;
    for (const Rollout& ro : rollouts)
        rewards.push_back(ro.reward);
    const std::vector<RolloutAdvantage> trained = rollout_advantages(rewards, c.ppo.risk_epsilon);
    if (trained.empty())
        return stats;
    const int count = static_cast<int>(trained.size());

    // --- PPO: `epochs` passes over the rollouts in `minibatches` shuffled mini-batches. The
    // policy is factorised over ops and rounds, so the clipped ratio is taken per op and round
    // and averaged; every op and round of a rollout shares the rollout's advantage.
    const int batches = std::min(c.ppo.minibatches, count);
    for (int epoch = 0; epoch < c.ppo.epochs && !env.scorer().out_of_time(); ++epoch) {
        const std::vector<int> order = random_order(count, rng);
        for (int b = 0; b < batches && !env.scorer().out_of_time(); ++b) {
            const int lo = b * count / batches, hi = (b + 1) * count / batches;
            PpoBatch batch;
            batch.rows = (hi - lo) * rounds;
            batch.prev.reserve(static_cast<std::size_t>(batch.rows) * n);
            for (int i = lo; i < hi; ++i) {
                const RolloutAdvantage& t =
                    trained[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
                const Rollout& ro = rollouts[static_cast<std::size_t>(t.rollout)];
                batch.prev.insert(batch.prev.end(), ro.prev.begin(), ro.prev.end());
                batch.action.insert(batch.action.end(), ro.action.begin(), ro.action.end());
                batch.old_log_prob.insert(batch.old_log_prob.end(), ro.old_log_prob.begin(),
                                          ro.old_log_prob.end());
                batch.advantage.insert(batch.advantage.end(), static_cast<std::size_t>(rounds),
                                       t.advantage);
            }
            policy.ppo_step(batch, c.ppo);
        }
    }
    stats.updated = true;
    return stats;
}

std::vector<RolloutAdvantage> rollout_advantages(const std::vector<double>& rewards,
                                                 double risk_epsilon) {
    const int played = static_cast<int>(rewards.size());
    if (played < 2)
        return {};
    double sum = 0.0;
    for (double r : rewards)
        sum += r;
    const double mean = sum / played;
    double var = 0.0;
    for (double r : rewards)
        var += (r - mean) * (r - mean);
    const double std_dev = std::sqrt(var / played);
    // Rollouts that all got the same reward (typically all 0: FIX failed on every one) carry no
    // policy-gradient signal; the update is skipped, since the entropy bonus alone would push
    // the policy towards uniform, where FIX fails more often still.
    if (std_dev <= 1e-12 * std::max(1.0, std::abs(mean)))
        return {};
    // No value head: the rollouts of an update share one graph, so their mean is an unbiased
    // estimate of V(G). Risk-seeking (Petersen et al. 2021, §2.2) replaces it by the empirical
    // (1 - ε) quantile and trains on the rollouts at or above it only.
    double baseline = mean;
    const bool risk_seeking = risk_epsilon < 1.0;
    if (risk_seeking) {
        std::vector<double> sorted = rewards;
        std::sort(sorted.begin(), sorted.end());
        const auto at = static_cast<std::size_t>(std::floor((1.0 - risk_epsilon) * played));
        baseline = sorted[std::min(at, sorted.size() - 1)];
    }
    std::vector<RolloutAdvantage> kept;
    bool signal = false;
    for (int r = 0; r < played; ++r) {
        const double reward = rewards[static_cast<std::size_t>(r)];
        if (risk_seeking && reward < baseline)
            continue;
        kept.push_back({r, static_cast<float>((reward - baseline) / std_dev)});
        signal = signal || reward != baseline;
    }
    if (!signal)  // the quantile is the best reward: no rollout stands above it
        return {};
    return kept;
}

DeployStats deploy(Agent& agent, Environment& env, std::mt19937_64& rng, std::int64_t finetune,
                   std::int64_t samples) {
    DeployStats stats;
    const auto phase = [&](std::int64_t until, bool learn) {
        while (stats.samples < until && !env.scorer().done()) {
            const IterationStats it = agent.iterate(env, rng, learn, until - stats.samples);
            if (it.samples == 0)
                break;
            stats.samples += it.samples;
            stats.updates += it.updated ? 1 : 0;
            stats.best_reward = std::max(stats.best_reward, it.best_reward);
            stats.last_mean_reward = it.mean_reward;
        }
    };
    phase(std::min(finetune, samples), true);
    phase(samples, false);
    return stats;
}

}  // namespace hetsim::placement::mcm::rl
