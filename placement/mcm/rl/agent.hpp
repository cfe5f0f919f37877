// mcm.rl's learner: mcm2022 §4's constrained RL — a GraphSAGE feature network and an MLP
// policy giving each op a distribution over the C chips, sampled in T non-autoregressive rounds
// (Eq. 7), the last round's sample made valid by the constraint solver's FIX mode (Algorithm 2),
// and PPO (§5.1) on the valid partition's reward.
//
// libtorch stays inside the policy module (torch/policy_torch.cpp, dlopened on first use:
// policy_backend.hpp); this header, agent.cpp, the placer and the trainer see none of it.
//
// Choices the paper leaves open (each an [assumption] of hetsim, documented where it is made in
// agent.cpp and torch/policy_torch.cpp): the first round's "previous partition" y^(0) is
// mcm.greedy's; a learnt scalar adds the previous round's chip to its logit (so that "keep" is one
// parameter away); the baseline is the mean reward of the update's rollouts, not a value head;
// advantages are normalised per update; the clipped ratio is taken per op and round (a factorised
// action), with every op and round of a rollout sharing its advantage.
#pragma once

#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/problem.hpp"
#include "placement/mcm/rl/config.hpp"
#include "placement/mcm/rl/features.hpp"

namespace hetsim::placement::mcm::rl {

// What scores a partition for the learner: the analytical model in pre-training, the study's
// cost model (Search) in a placer. Every call of `time_per_sample_s` or `failed` is one sample.
class Scorer {
public:
    virtual ~Scorer() = default;
    // Time per sample of a partition satisfying Eq. 2-4; +inf when the cost model refuses it.
    virtual double time_per_sample_s(const std::vector<int>& chip_of_op) = 0;
    // A sample for which FIX found no valid partition.
    virtual void failed() = 0;
    // True once the budget is spent (no further rollout is started).
    virtual bool done() const = 0;
    // True once a wall-clock limit has passed: no PPO update is started or continued then.
    virtual bool out_of_time() const { return false; }
};

// The §5.1 analytical model as a scorer (pre-training's, and validation's with a budget): a
// partition whose weights overflow a chip is refused (+inf).
class AnalyticScorer final : public Scorer {
public:
    explicit AnalyticScorer(const McmProblem& problem,
                            std::int64_t budget = std::numeric_limits<std::int64_t>::max())
        : model_(problem), budget_(budget) {}
    double time_per_sample_s(const std::vector<int>& chip_of_op) override;
    void failed() override { ++samples_; }
    bool done() const override { return samples_ >= budget_; }

private:
    AnalyticModel model_;
    std::int64_t budget_;
    std::int64_t samples_ = 0;
};

// The node order of FIX (Algorithm 2) for the learner's samples.
//   topological: the earliest ops keep their sampled chips and the later ones give way, as in
//                mcm.greedy's repair; every restart meets the same candidate decisions first,
//                so a candidate that is inconsistent early fails on every restart (reward 0).
//                Checkpoints before 2026-11-26 were trained this way.
//   random:      a fresh random order per attempt, mcm2022 §4.2's default ("we generate a
//                random order each time to explore a larger decision space"); FIX rarely
//                fails, but which of the sampled chips survive is left to chance, so the
//                partition says less about the policy's sample.
//   topological_then_random (default): topological; if that fails, random. A sample
//                repairable in topological order gets that repair, and the rest are not lost.
//                Chosen on the validation split (README, mcm.rl).
enum class FixOrder { random, topological, topological_then_random };
std::string_view to_string(FixOrder order);
FixOrder fix_order_from_string(std::string_view text);  // throws RlError
std::vector<std::string> fix_order_names();             // every FixOrder's to_string

// The parameters of the policy torch/policy_torch.cpp builds for `config`, counted before it is
// built (PolicyConfig::kMaxParameters), for a config within PolicyConfig's ranges; tests hold it
// to the built policy's count.
std::int64_t policy_parameter_count(const PolicyConfig& config);

// One graph on one ring, as the learner sees it: the features, the greedy partition (the first
// round's input and the reward's unit), and the solver that makes samples valid.
class Environment {
public:
    // `greedy_time_s`: greedy's time per sample in the scorer's cost model, the reward's unit
    // (reward = greedy_time_s / time = throughput over greedy's). `seed` seeds FIX.
    Environment(const McmProblem& problem, std::vector<int> greedy_partition, double greedy_time_s,
                Scorer& scorer, std::uint64_t seed,
                FixOrder fix_order = FixOrder::topological_then_random);
    ~Environment();
    Environment(const Environment&) = delete;
    Environment& operator=(const Environment&) = delete;

    const McmProblem& problem() const { return *problem_; }
    const GraphFeatures& features() const { return features_; }
    const std::vector<int>& greedy_partition() const { return greedy_; }
    Scorer& scorer() { return *scorer_; }

    // FIX (in the environment's FixOrder), then the scorer: the valid partition and its
    // reward, or 0 when FIX fails or the cost model refuses.
    struct Outcome {
        std::vector<int> partition;  // empty when FIX failed
        double reward = 0.0;
    };
    Outcome play(const std::vector<int>& candidate);
    // Samples scored 0 so far, by cause: FIX found no valid partition within its limits, or
    // the cost model refused the partition FIX returned (H(G, f)).
    std::int64_t fix_failures() const { return fix_failures_; }
    std::int64_t refusals() const { return refusals_; }

private:
    struct Impl;
    const McmProblem* problem_;
    GraphFeatures features_;
    std::vector<int> greedy_;
    double greedy_time_s_;
    Scorer* scorer_;
    std::unique_ptr<Impl> impl_;
    FixOrder fix_order_;
    std::int64_t fix_failures_ = 0;
    std::int64_t refusals_ = 0;
};

struct IterationStats {
    int samples = 0;
    int valid = 0;  // samples with a positive reward (FIX succeeded and the cost model accepted)
    double mean_reward = 0.0;
    double best_reward = 0.0;
    double policy_entropy = 0.0;  // mean per-op entropy of the last round, nats
    bool updated = false;         // false: `learn` off, fewer than 2 rollouts, or all rewards equal
};

class Agent {
public:
    // A fresh policy, its weights drawn from config.seed.
    explicit Agent(const RlConfig& config);
    // Reads a checkpoint; throws RlError when the file is missing or corrupt, written by another
    // format version, or trained on another feature set.
    static Agent load(const std::string& path, CheckpointMeta* meta = nullptr);
    ~Agent();
    Agent(Agent&&) noexcept;
    Agent& operator=(Agent&&) noexcept;

    // Writes the weights, the optimiser's state (unless `with_optimizer` is false: a policy to
    // deploy, a third of the size), the config and `meta` (torch::save's archive).
    void save(const std::string& path, const CheckpointMeta& meta,
              bool with_optimizer = true) const;
    // A deep copy (weights and optimiser state): validation fine-tunes a copy of a snapshot.
    Agent clone() const;

    const RlConfig& config() const;
    std::int64_t parameter_count() const;

    // One PPO iteration on `env`: up to config.ppo.rollouts rollouts (at most `max_samples`,
    // and fewer when the scorer's budget ends), then, with `learn` and at least 2 rollouts, the
    // clipped-objective update. Throws RlError when the environment's ring has another chip
    // count than the policy.
    IterationStats iterate(Environment& env, std::mt19937_64& rng, bool learn = true,
                           std::int64_t max_samples = INT64_MAX);

private:
    struct Impl;
    explicit Agent(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The rollouts one PPO update trains on, each with its advantage: reward minus a baseline, over
// the rewards' standard deviation. The baseline is the mean, and every rollout is trained on
// (risk_epsilon = 1); or the (1 - ε) quantile, and only rollouts at or above it are
// (risk-seeking, PpoConfig::risk_epsilon). Empty when the rewards carry no signal: fewer than
// 2, all equal, or none above the quantile.
struct RolloutAdvantage {
    int rollout;  // index into the rewards
    float advantage;
};
std::vector<RolloutAdvantage> rollout_advantages(const std::vector<double>& rewards,
                                                 double risk_epsilon);

// mcm2022 §4.3's deployment on one graph: PPO fine-tuning for `finetune` samples, then samples
// from the tuned policy without updates up to `samples` in all (or until the scorer is done).
struct DeployStats {
    std::int64_t samples = 0;
    int updates = 0;
    double best_reward = 0.0;       // over every sample
    double last_mean_reward = 0.0;  // of the last iteration
};
DeployStats deploy(Agent& agent, Environment& env, std::mt19937_64& rng, std::int64_t finetune,
                   std::int64_t samples);

// A 64-bit FNV-1a digest of a file's bytes as 16 hex digits; throws RlError when unreadable.
std::string file_digest(const std::string& path);

}  // namespace hetsim::placement::mcm::rl
