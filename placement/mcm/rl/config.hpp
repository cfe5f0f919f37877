// mcm.rl's configuration and checkpoint metadata: plain data shared by the torch-free learner
// (agent.cpp) and the libtorch module behind policy_backend.hpp.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace hetsim::placement::mcm::rl {

// A checkpoint that cannot be read, or does not match the code or the platform: bad input (the
// CLI exits 2), hence std::invalid_argument.
class RlError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// An inclusive range of an integer setting of the learner.
struct IntRange {
    int min = 0;
    int max = 0;
    constexpr bool contains(std::int64_t value) const { return value >= min && value <= max; }
};

struct PolicyConfig {
    int chips = 36;         // C: the ring the policy was built for
    int sage_layers = 8;    // §5.1: 8 GraphSAGE layers
    int hidden = 128;       // §5.1: of 128
    int policy_layers = 2;  // §5.1: a 2-layer feed-forward policy of the same width
    int rounds = 3;         // T of Eq. 7 (T << N) [assumption]

    // The policies that may be made, wherever one is (check_config: the mcm.rl placer's
    // arguments, `hetsim train`'s options, a checkpoint's config), so that a size is refused
    // with a message instead of exhausting memory in libtorch. A batch of rollouts holds a
    // one-hot of C chips per op and round: rings up to 1024 chips (mcm2022's has 36).
    static constexpr IntRange kChips{1, 1024};
    static constexpr IntRange kSageLayers{1, 64};
    static constexpr IntRange kHidden{1, 4096};
    static constexpr IntRange kPolicyLayers{0, 64};
    static constexpr IntRange kRounds{1, 64};
    // The weights together (policy_parameter_count, agent.hpp): training keeps 7 float copies
    // (weights, gradients, Adam's two moments, a snapshot's weights and moments for validation),
    // so 2^26 parameters are about 2 GiB. §5.1's policy on 36 chips has 0.4 million.
    static constexpr std::int64_t kMaxParameters = std::int64_t{1} << 26;
};

struct PpoConfig {
    int rollouts = 20;            // §5.1: 20 rollouts per update
    int minibatches = 4;          // §5.1: 4 mini-batches
    int epochs = 10;              // §5.1: 10 epochs
    double learning_rate = 3e-4;  // Adam [assumption: PPO's usual]
    double clip = 0.2;            // PPO's ε (Schulman et al. 2017) [assumption]
    double entropy = 0.01;        // entropy bonus per op [assumption]
    double max_grad_norm = 0.5;   // gradient clipping [assumption]
    // Risk-seeking policy gradient (Petersen et al. 2021, "Deep symbolic regression", §2.2):
    // 1 = every rollout against the rollouts' mean (the expected reward, PPO's usual objective);
    // ε < 1 = only rollouts at or above the (1 - ε) quantile of the update's rewards, against
    // that quantile, which trains for the best of many samples, as deployment scores them.
    double risk_epsilon = 1.0;

    // The ranges, checked where a config is made (check_config) and where the trainer reads them
    // from the command line. A PPO update holds rounds x ops chips per rollout; epochs only
    // cost time.
    static constexpr IntRange kRollouts{1, 1024};
    static constexpr IntRange kMinibatches{1, 1024};
    static constexpr IntRange kEpochs{1, 1000};
    // ε's range, (0, 1].
    static constexpr bool valid_risk_epsilon(double e) { return e > 0.0 && e <= 1.0; }
    // The entropy bonus: a finite number >= 0.
    static constexpr bool valid_entropy(double e) {
        return e >= 0.0 && e <= std::numeric_limits<double>::max();
    }
};

struct RlConfig {
    PolicyConfig policy;
    PpoConfig ppo;
    std::uint64_t seed = 1;
    std::string to_json() const;
    // Throws RlError naming the key that is missing or of the wrong type.
    static RlConfig from_json(const std::string& text);
};

// What a checkpoint carries besides the weights.
struct CheckpointMeta {
    std::string manifest_hash;  // of the pre-training dataset's manifest.json ("" = none)
    std::string train_state;    // the trainer's resume state (JSON), "" when not resumable
};

}  // namespace hetsim::placement::mcm::rl
