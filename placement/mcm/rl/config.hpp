// mcm.rl's configuration and checkpoint metadata: plain data shared by the torch-free learner
// (agent.cpp) and the libtorch module behind policy_backend.hpp.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace hetsim::placement::mcm::rl {

// A checkpoint that cannot be read, or does not match the code or the platform: bad input (the
// CLI exits 2), hence std::invalid_argument.
class RlError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct PolicyConfig {
    int chips = 36;         // C: the ring the policy was built for
    int sage_layers = 8;    // §5.1: 8 GraphSAGE layers
    int hidden = 128;       // §5.1: of 128
    int policy_layers = 2;  // §5.1: a 2-layer feed-forward policy of the same width
    int rounds = 3;         // T of Eq. 7 (T << N) [assumption]
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

    // ε's range, (0, 1]: checked where a config is made (check_config) and where the trainer
    // reads it from the command line.
    static constexpr bool valid_risk_epsilon(double e) { return e > 0.0 && e <= 1.0; }
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
