// The tensor side of mcm.rl — the policy network, its PPO gradient step and its checkpoint file —
// behind an interface that names no libtorch type. The implementation (torch/policy_torch.cpp)
// is a separate shared module, libhetsim_mcm_rl_torch.so, which `policy_module()` dlopens the
// first time an agent is made: loading libtorch costs about a second per process (its static
// initialisers), and every hetsim process that never runs mcm.rl — `hetsim --help`, a study of
// other placers, each test process, each sweep worker — should not pay it.
//
// Rollouts, sampling, rewards, advantages and mini-batching stay in agent.cpp (plain C++), so the
// module holds nothing but tensor arithmetic. Both sides are built by the same CMake project with
// the same compiler; the interface is C++ (virtual calls, std::vector), and RlError crosses it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "placement/mcm/rl/config.hpp"
#include "placement/mcm/rl/features.hpp"

namespace hetsim::placement::mcm::rl {

// One PPO mini-batch: `rows` (rollout, round) pairs over a graph of `nodes` ops.
struct PpoBatch {
    int rows = 0;
    std::vector<std::int64_t> prev;    // rows x N: the round's input partition
    std::vector<std::int64_t> action;  // rows x N: the chips sampled in that round
    std::vector<float> old_log_prob;   // rows x N: their log-probabilities when sampled
    std::vector<float> advantage;      // rows: the rollout's normalised advantage
};

class PolicyBackend {
public:
    virtual ~PolicyBackend() = default;
    // A deep copy: weights and optimiser state.
    virtual std::unique_ptr<PolicyBackend> clone() const = 0;
    virtual std::int64_t parameter_count() const = 0;
    // Writes a checkpoint: `config_json`, `meta`, the weights and (with `with_optimizer`) the
    // optimiser's state. Throws RlError when the file cannot be written.
    virtual void save(const std::string& path, const std::string& config_json,
                      const CheckpointMeta& meta, bool with_optimizer) const = 0;
    // Reads the weights (and the optimiser's state when the file has it) of a checkpoint this
    // backend's config wrote. Throws RlError when they do not match.
    virtual void load_weights(const std::string& path) = 0;
    // The graph the next calls see (its features and edges are copied).
    virtual void set_graph(const GraphFeatures& features) = 0;
    // log p(chip | graph, previous partition) for `rows` previous partitions (rows x N, row
    // major): rows x N x C values, without gradient.
    virtual std::vector<float> log_probs(const std::vector<std::int64_t>& prev, int rows) = 0;
    // One Adam step on PPO's clipped objective with an entropy bonus (agent.cpp documents the
    // choices) over the mini-batch.
    virtual void ppo_step(const PpoBatch& batch, const PpoConfig& ppo) = 0;
};

// A checkpoint's header: what is needed to build the backend that reads its weights.
struct CheckpointHeader {
    std::string config_json;
    CheckpointMeta meta;
};

class PolicyModule {
public:
    // A fresh policy for `config`, its weights drawn from `seed`.
    virtual std::unique_ptr<PolicyBackend> create(const PolicyConfig& config, double learning_rate,
                                                  std::uint64_t seed) const = 0;
    // Throws RlError when `path` is unreadable, not an mcm.rl checkpoint, or of another format.
    virtual CheckpointHeader read_header(const std::string& path) const = 0;

protected:
    ~PolicyModule() = default;  // the module owns it
};

// The module's one exported symbol: extern "C" const PolicyModule* <kPolicyModuleSymbol>().
inline constexpr const char* kPolicyModuleSymbol = "hetsim_mcm_rl_policy_module_v1";
inline constexpr const char* kPolicyModuleFile = "libhetsim_mcm_rl_torch.so";

// Loads the module once per process (thread-safe). Looks in $HETSIM_RL_MODULE (a file), next to
// the running executable, then in the build tree hetsim was built in; throws RlError naming the
// places it looked and dlopen's reason.
const PolicyModule& policy_module();

}  // namespace hetsim::placement::mcm::rl
