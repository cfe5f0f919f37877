// mcm.rl's policy and PPO on libtorch (CPU). The only translation unit of hetsim that includes
// libtorch (compile time; agent.hpp exposes none of it).
#include "placement/mcm/rl/agent.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "placement/classic/random.hpp"
#include "placement/mcm/search.hpp"

namespace hetsim::placement::mcm::rl {

namespace {

constexpr const char* kFormat = "hetsim.mcm.rl/1";
// softplus(near) at initialisation: per chip of distance, the logit an untrained policy takes off
// a move away from the previous round's chip (p(stay) ≈ 0.9 per round) [assumption].
constexpr double kInitialNear = 3.0;

// The graph as index tensors for GraphSAGE's mean aggregation.
struct GraphTensors {
    torch::Tensor from, to;         // [E] long: producer -> consumer edges
    torch::Tensor inv_in, inv_out;  // [1, N, 1]: 1 / fan-in and 1 / fan-out (0 when none)
    torch::Tensor static_features;  // [N, F]
    int nodes = 0;
};

GraphTensors to_tensors(const GraphFeatures& f) {
    GraphTensors g;
    g.nodes = f.nodes;
    const auto longs = torch::TensorOptions().dtype(torch::kLong);
    g.from =
        torch::tensor(std::vector<std::int64_t>(f.edge_from.begin(), f.edge_from.end()), longs);
    g.to = torch::tensor(std::vector<std::int64_t>(f.edge_to.begin(), f.edge_to.end()), longs);
    std::vector<float> in(static_cast<std::size_t>(f.nodes), 0.0f), out(in);
    for (std::size_t e = 0; e < f.edge_from.size(); ++e) {
        out[static_cast<std::size_t>(f.edge_from[e])] += 1.0f;
        in[static_cast<std::size_t>(f.edge_to[e])] += 1.0f;
    }
    for (float& x : in)
        x = x > 0.0f ? 1.0f / x : 0.0f;
    for (float& x : out)
        x = x > 0.0f ? 1.0f / x : 0.0f;
    g.inv_in = torch::tensor(in).view({1, f.nodes, 1});
    g.inv_out = torch::tensor(out).view({1, f.nodes, 1});
    g.static_features =
        torch::from_blob(const_cast<float*>(f.values.data()), {f.nodes, kStaticFeatureCount},
                         torch::TensorOptions().dtype(torch::kFloat))
            .clone();
    return g;
}

// Means over each op's predecessors and successors (0 for an op with none): GraphSAGE's mean
// aggregator, in the two directions of the dataflow graph. x: [B, N, F].
std::pair<torch::Tensor, torch::Tensor> neighbour_means(const torch::Tensor& x,
                                                        const GraphTensors& g) {
    torch::Tensor pred = torch::zeros_like(x);
    torch::Tensor succ = torch::zeros_like(x);
    if (g.from.numel() > 0) {
        pred = pred.index_add(1, g.to, x.index_select(1, g.from)) * g.inv_in;
        succ = succ.index_add(1, g.from, x.index_select(1, g.to)) * g.inv_out;
    }
    return {pred, succ};
}

// One GraphSAGE layer (Hamilton et al. 2017, Algorithm 1 with the mean aggregator), with
// separate means over predecessors and successors — a dataflow graph's two directions carry
// different facts (what feeds an op, what it feeds) — concatenated with the node's own state:
//   h' = normalize(ReLU(W [h ; mean_{u->v} h_u ; mean_{v->w} h_w]) (+ h when widths match)).
// The L2 normalisation is GraphSAGE's; the residual term (an [assumption]) keeps 8 layers
// trainable from scratch.
struct SageLayerImpl : torch::nn::Module {
    SageLayerImpl(int in, int out)
        : linear(register_module("linear", torch::nn::Linear(3 * in, out))), residual(in == out) {}

    torch::Tensor forward(const torch::Tensor& h, const GraphTensors& g) {
        const auto [pred, succ] = neighbour_means(h, g);
        torch::Tensor out = torch::relu(linear(torch::cat({h, pred, succ}, -1)));
        if (residual)
            out = out + h;
        return torch::nn::functional::normalize(
            out, torch::nn::functional::NormalizeFuncOptions().p(2).dim(-1).eps(1e-6));
    }

    torch::nn::Linear linear;
    bool residual;
};
TORCH_MODULE(SageLayer);

// Fig. 3 of mcm2022: the feature network (GraphSAGE) embeds the graph, h_G, from the static
// features alone; the policy network (the MLP) reads h_G and the "current state embedding" —
// here each op's chip in the previous round (Eq. 7's y^(t-1)) as a one-hot, with the means of
// those one-hots over its predecessors and successors, so that an op sees where its neighbours
// went — and gives per-op chip logits. h_G is computed once per graph and forward pass, whatever
// the number of rollouts and rounds in the batch.
struct PolicyImpl : torch::nn::Module {
    explicit PolicyImpl(const PolicyConfig& c) : chips(c.chips) {
        int width = kStaticFeatureCount;
        for (int i = 0; i < c.sage_layers; ++i) {
            sage.push_back(register_module(fmt::format("sage{}", i), SageLayer(width, c.hidden)));
            width = c.hidden;
        }
        width += 3 * c.chips;
        for (int i = 0; i < c.policy_layers; ++i) {
            mlp.push_back(
                register_module(fmt::format("mlp{}", i), torch::nn::Linear(width, c.hidden)));
            width = c.hidden;
        }
        head = register_module("head", torch::nn::Linear(width, c.chips));
        // A small head: the untrained policy's logits are its prior below.
        {
            torch::NoGradGuard no_grad;
            head->weight.mul_(0.01);
            head->bias.zero_();
        }
        // The previous round's partition as a prior on the logits (an [assumption]; the paper
        // does not say how y^(t-1) enters): `stay` adds to the chip the op had, and a locality
        // term subtracts softplus(near) per chip of distance from it. Both are learnt. `near`
        // starts at softplus = kInitialNear, so that an untrained policy keeps most ops where
        // they were and moves the rest mostly to a neighbouring chip: samples FIX can make
        // valid, with rewards that differ, which PPO needs to learn at all (a uniform first
        // policy gets FIX failures and zero rewards on most graphs: no gradient).
        stay = register_parameter("stay", torch::zeros({1}));
        near = register_parameter("near", torch::full({1}, std::log(std::exp(kInitialNear) - 1.0)));
        chip_index = register_buffer("chip_index", torch::arange(c.chips).to(torch::kFloat));
    }

    // prev: [B, N] long, chip per op in the previous round. Returns logits [B, N, C].
    torch::Tensor forward(const GraphTensors& g, const torch::Tensor& prev) {
        const std::int64_t batch = prev.size(0);
        torch::Tensor h = g.static_features.unsqueeze(0);  // [1, N, F]
        for (auto& layer : sage)
            h = layer->forward(h, g);
        const torch::Tensor one_hot = torch::one_hot(prev, chips).to(torch::kFloat);  // [B,N,C]
        const auto [pred, succ] = neighbour_means(one_hot, g);
        torch::Tensor x =
            torch::cat({h.expand({batch, g.nodes, h.size(2)}), one_hot, pred, succ}, -1);
        for (auto& layer : mlp)
            x = torch::relu(layer->forward(x));
        const torch::Tensor distance =
            (chip_index.view({1, 1, chips}) - prev.unsqueeze(-1).to(torch::kFloat)).abs();
        return head->forward(x) + stay * one_hot - torch::softplus(near) * distance;
    }

    int chips;
    std::vector<SageLayer> sage;
    std::vector<torch::nn::Linear> mlp;
    torch::nn::Linear head{nullptr};
    torch::Tensor stay, near, chip_index;
};
TORCH_MODULE(Policy);

// One rollout: T rounds of Eq. 7 and the reward of the last round's sample after FIX.
struct Rollout {
    std::vector<std::int64_t> prev;    // T x N: the round's input partition
    std::vector<std::int64_t> action;  // T x N: the round's sample
    std::vector<float> old_log_prob;   // T x N
    double reward = 0.0;
};

}  // namespace

struct Agent::Impl {
    explicit Impl(const RlConfig& c)
        : config(c),
          policy((torch::manual_seed(c.seed), Policy(c.policy))),
          optimizer(policy->parameters(), torch::optim::AdamOptions(c.ppo.learning_rate)) {}

    RlConfig config;
    Policy policy;
    torch::optim::Adam optimizer;

    void write(torch::serialize::OutputArchive& archive, const CheckpointMeta& meta,
               bool with_optimizer = true) const {
        archive.write("format", c10::IValue(std::string(kFormat)));
        archive.write("config", c10::IValue(config.to_json()));
        archive.write("manifest_hash", c10::IValue(meta.manifest_hash));
        archive.write("train_state", c10::IValue(meta.train_state));
        torch::serialize::OutputArchive model;
        policy->save(model);
        archive.write("model", model);
        if (with_optimizer) {
            torch::serialize::OutputArchive optim;
            optimizer.save(optim);
            archive.write("optimizer", optim);
        }
    }
};

namespace {

std::string read_string(torch::serialize::InputArchive& archive, const std::string& key,
                        const std::string& path) {
    c10::IValue value;
    if (!archive.try_read(key, value) || !value.isString())
        throw RlError(fmt::format("'{}' is not an mcm.rl checkpoint (no '{}')", path, key));
    return value.toStringRef();
}

std::unique_ptr<Agent::Impl> read_agent(torch::serialize::InputArchive& archive,
                                        const std::string& path, CheckpointMeta* meta);

}  // namespace

Agent::Agent(const RlConfig& config) : impl_(std::make_unique<Impl>(config)) {
    const PolicyConfig& p = config.policy;
    if (p.chips < 1 || p.sage_layers < 1 || p.hidden < 1 || p.policy_layers < 0 || p.rounds < 1)
        throw RlError("mcm.rl: chips, sage_layers, hidden and rounds must be at least 1");
    if (config.ppo.rollouts < 1 || config.ppo.minibatches < 1 || config.ppo.epochs < 1)
        throw RlError("mcm.rl: rollouts, minibatches and epochs must be at least 1");
}
Agent::Agent(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Agent::~Agent() = default;
Agent::Agent(Agent&&) noexcept = default;
Agent& Agent::operator=(Agent&&) noexcept = default;

const RlConfig& Agent::config() const {
    return impl_->config;
}

std::int64_t Agent::parameter_count() const {
    std::int64_t n = 0;
    for (const auto& p : impl_->policy->parameters())
        n += p.numel();
    return n;
}

void Agent::save(const std::string& path, const CheckpointMeta& meta, bool with_optimizer) const {
    torch::serialize::OutputArchive archive;
    impl_->write(archive, meta, with_optimizer);
    try {
        archive.save_to(path);
    } catch (const c10::Error& e) {
        throw RlError(
            fmt::format("cannot write checkpoint '{}': {}", path, e.what_without_backtrace()));
    }
}

namespace {

std::unique_ptr<Agent::Impl> read_agent(torch::serialize::InputArchive& archive,
                                        const std::string& path, CheckpointMeta* meta) {
    const std::string format = read_string(archive, "format", path);
    if (format != kFormat) {
        throw RlError(fmt::format("checkpoint '{}' has format '{}'; this hetsim reads '{}'", path,
                                  format, kFormat));
    }
    const RlConfig config = RlConfig::from_json(read_string(archive, "config", path));
    auto impl = std::make_unique<Agent::Impl>(config);
    torch::serialize::InputArchive model, optim;
    if (!archive.try_read("model", model))
        throw RlError(fmt::format("checkpoint '{}' has no model weights", path));
    try {
        impl->policy->load(model);
        if (archive.try_read("optimizer", optim))
            impl->optimizer.load(optim);
    } catch (const c10::Error& e) {
        throw RlError(fmt::format("checkpoint '{}' does not match its config: {}", path,
                                  e.what_without_backtrace()));
    }
    if (meta) {
        meta->manifest_hash = read_string(archive, "manifest_hash", path);
        meta->train_state = read_string(archive, "train_state", path);
    }
    return impl;
}

}  // namespace

Agent Agent::load(const std::string& path, CheckpointMeta* meta) {
    torch::serialize::InputArchive archive;
    try {
        archive.load_from(path);
    } catch (const c10::Error& e) {
        throw RlError(fmt::format("cannot read checkpoint '{}': {}", path,
                                  std::string(e.what_without_backtrace()).substr(0, 200)));
    }
    return Agent(read_agent(archive, path, meta));
}

Agent Agent::clone() const {
    torch::serialize::OutputArchive out;
    impl_->write(out, {});
    std::stringstream bytes;
    out.save_to(bytes);
    torch::serialize::InputArchive in;
    in.load_from(bytes);
    return Agent(read_agent(in, "<copy>", nullptr));
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
    // One thread: the same seed gives the same run (issue 14: "seeded and deterministic on one
    // thread"); OpenBLAS is the serial build (tools/setup.sh).
    torch::set_num_threads(1);
    const int n = problem.op_count();
    const int rounds = c.policy.rounds;
    const int chips = c.policy.chips;
    const GraphTensors g = to_tensors(env.features());
    Policy& policy = impl_->policy;

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
    {
        torch::NoGradGuard no_grad;
        for (int t = 0; t < rounds; ++t) {
            const torch::Tensor prev = torch::tensor(current).view({wanted, n});
            const torch::Tensor log_p =
                torch::log_softmax(policy->forward(g, prev), -1).contiguous();  // [R, N, C]
            if (t == rounds - 1)
                entropy_sum = -(log_p.exp() * log_p).sum(-1).mean().item<double>();
            const float* lp = log_p.data_ptr<float>();
            for (int r = 0; r < wanted; ++r) {
                Rollout& ro = rollouts[static_cast<std::size_t>(r)];
                for (int u = 0; u < n; ++u) {
                    const std::size_t at = (static_cast<std::size_t>(r) * n + u);
                    ro.prev.push_back(current[at]);
                    const float* row = lp + at * static_cast<std::size_t>(chips);
                    double draw = uniform_unit(rng), acc = 0.0;
                    int chosen = chips - 1;
                    for (int k = 0; k < chips; ++k) {
                        acc += std::exp(static_cast<double>(row[k]));
                        if (draw < acc) {
                            chosen = k;
                            break;
                        }
                    }
                    ro.action.push_back(chosen);
                    ro.old_log_prob.push_back(row[chosen]);
                    current[at] = chosen;
                }
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
    if (!learn || played < 2)
        return stats;

    // --- Advantages: the rollouts' mean reward is the baseline (no value head: the 20 rollouts
    // of an update share one graph, so their mean is an unbiased estimate of V(G)), normalised
    // by their standard deviation.
    double var = 0.0;
    for (const Rollout& ro : rollouts)
        var += (ro.reward - stats.mean_reward) * (ro.reward - stats.mean_reward);
    const double std_dev = std::sqrt(var / played);
    // Rollouts that all got the same reward (typically all 0: FIX failed on every one) carry no
    // policy-gradient signal; the update is skipped, since the entropy bonus alone would push
    // the policy towards uniform, where FIX fails more often still.
    if (std_dev <= 1e-12 * std::max(1.0, std::abs(stats.mean_reward)))
        return stats;
    std::vector<float> advantage(static_cast<std::size_t>(played), 0.0f);
    for (int r = 0; r < played; ++r)
        advantage[static_cast<std::size_t>(r)] = static_cast<float>(
            (rollouts[static_cast<std::size_t>(r)].reward - stats.mean_reward) / std_dev);

    // --- PPO: `epochs` passes over the rollouts in `minibatches` shuffled mini-batches. The
    // policy is factorised over ops and rounds, so the clipped ratio is taken per op and round
    // and averaged; every op and round of a rollout shares the rollout's advantage.
    const int batches = std::min(c.ppo.minibatches, played);
    for (int epoch = 0; epoch < c.ppo.epochs; ++epoch) {
        const std::vector<int> order = random_order(played, rng);
        for (int b = 0; b < batches; ++b) {
            const int lo = b * played / batches, hi = (b + 1) * played / batches;
            const int rows = (hi - lo) * rounds;
            std::vector<std::int64_t> prev, action;
            std::vector<float> old_lp, adv;
            prev.reserve(static_cast<std::size_t>(rows) * n);
            for (int i = lo; i < hi; ++i) {
                const Rollout& ro =
                    rollouts[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
                prev.insert(prev.end(), ro.prev.begin(), ro.prev.end());
                action.insert(action.end(), ro.action.begin(), ro.action.end());
                old_lp.insert(old_lp.end(), ro.old_log_prob.begin(), ro.old_log_prob.end());
                for (int t = 0; t < rounds; ++t)
                    adv.push_back(
                        advantage[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]);
            }
            const torch::Tensor log_p = torch::log_softmax(
                policy->forward(g, torch::tensor(prev).view({rows, n})), -1);  // [rows, N, C]
            const torch::Tensor taken =
                log_p.gather(2, torch::tensor(action).view({rows, n, 1})).squeeze(2);
            const torch::Tensor ratio = torch::exp(taken - torch::tensor(old_lp).view({rows, n}));
            const torch::Tensor a = torch::tensor(adv).view({rows, 1});
            const torch::Tensor surrogate =
                torch::min(ratio * a, torch::clamp(ratio, 1.0 - c.ppo.clip, 1.0 + c.ppo.clip) * a);
            const torch::Tensor entropy = -(log_p.exp() * log_p).sum(-1).mean();
            const torch::Tensor loss = -surrogate.mean() - c.ppo.entropy * entropy;
            impl_->optimizer.zero_grad();
            loss.backward();
            torch::nn::utils::clip_grad_norm_(policy->parameters(), c.ppo.max_grad_norm);
            impl_->optimizer.step();
        }
    }
    stats.updated = true;
    return stats;
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
