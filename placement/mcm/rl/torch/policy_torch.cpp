// mcm.rl's policy network and PPO step on libtorch (CPU): the shared module
// libhetsim_mcm_rl_torch.so, the only translation unit of hetsim that includes libtorch. It is
// dlopened on first use (policy_backend.hpp says why); agent.cpp drives it.
#include <fmt/format.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "placement/mcm/rl/policy_backend.hpp"

namespace hetsim::placement::mcm::rl {

namespace {

// Format 2 writes Adam's state itself, keyed by parameter (write_adam says why). Format 1 files
// are still read: their weights are stored as format 2 stores them, and their optimiser archive
// (libtorch's own, keyed by the writing process's tensor addresses) is matched to the
// parameters by position, as libtorch does, so an old run resumes as it did.
constexpr const char* kFormat = "hetsim.mcm.rl/2";
constexpr const char* kFormatV1 = "hetsim.mcm.rl/1";
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

std::string read_string(torch::serialize::InputArchive& archive, const std::string& key,
                        const std::string& path) {
    c10::IValue value;
    if (!archive.try_read(key, value) || !value.isString())
        throw RlError(fmt::format("'{}' is not an mcm.rl checkpoint (no '{}')", path, key));
    return value.toStringRef();
}

void open_archive(torch::serialize::InputArchive& archive, const std::string& path) {
    try {
        archive.load_from(path);
    } catch (const c10::Error& e) {
        throw RlError(fmt::format("cannot read checkpoint '{}': {}", path,
                                  std::string(e.what_without_backtrace()).substr(0, 200)));
    }
}

class TorchPolicy final : public PolicyBackend {
public:
    TorchPolicy(const PolicyConfig& config, double learning_rate, std::uint64_t seed)
        : config_(config),
          learning_rate_(learning_rate),
          seed_(seed),
          policy_((torch::manual_seed(seed), Policy(config))),
          optimizer_(policy_->parameters(), torch::optim::AdamOptions(learning_rate)) {}

    std::unique_ptr<PolicyBackend> clone() const override {
        torch::serialize::OutputArchive out;
        write(out, "", {}, true);
        std::stringstream bytes;
        out.save_to(bytes);
        torch::serialize::InputArchive in;
        in.load_from(bytes);
        auto copy = std::make_unique<TorchPolicy>(config_, learning_rate_, seed_);
        copy->read_weights(in, "<copy>");
        return copy;
    }

    std::int64_t parameter_count() const override {
        std::int64_t n = 0;
        for (const auto& p : policy_->parameters())
            n += p.numel();
        return n;
    }

    void save(const std::string& path, const std::string& config_json, const CheckpointMeta& meta,
              bool with_optimizer) const override {
        torch::serialize::OutputArchive archive;
        write(archive, config_json, meta, with_optimizer);
        // Through a stream, not save_to(path): libtorch names the zip's top folder after the file
        // it writes, so the same state would give other bytes under another name (last.pt and
        // its ckpt_NNNN.pt, a `.tmp` renamed). A stream's folder is always "archive".
        std::ostringstream bytes;
        try {
            archive.save_to(bytes);
        } catch (const c10::Error& e) {
            throw RlError(
                fmt::format("cannot write checkpoint '{}': {}", path, e.what_without_backtrace()));
        }
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        const std::string data = std::move(bytes).str();
        file.write(data.data(), static_cast<std::streamsize>(data.size()));
        file.close();
        if (!file)
            throw RlError(fmt::format("cannot write checkpoint '{}'", path));
    }

    void load_weights(const std::string& path) override {
        torch::serialize::InputArchive archive;
        open_archive(archive, path);
        read_weights(archive, path);
    }

    void set_graph(const GraphFeatures& features) override { graph_ = to_tensors(features); }

    std::vector<float> log_probs(const std::vector<std::int64_t>& prev, int rows) override {
        torch::NoGradGuard no_grad;
        const torch::Tensor log_p =
            torch::log_softmax(policy_->forward(graph_, torch::tensor(prev).view({rows, -1})), -1)
                .contiguous();
        const float* begin = log_p.data_ptr<float>();
        return std::vector<float>(begin, begin + log_p.numel());
    }

    void ppo_step(const PpoBatch& b, const PpoConfig& ppo) override {
        const std::int64_t n = graph_.nodes;
        const torch::Tensor log_p = torch::log_softmax(
            policy_->forward(graph_, torch::tensor(b.prev).view({b.rows, n})), -1);  // [R,N,C]
        const torch::Tensor taken =
            log_p.gather(2, torch::tensor(b.action).view({b.rows, n, 1})).squeeze(2);
        const torch::Tensor ratio =
            torch::exp(taken - torch::tensor(b.old_log_prob).view({b.rows, n}));
        const torch::Tensor a = torch::tensor(b.advantage).view({b.rows, 1});
        const torch::Tensor surrogate =
            torch::min(ratio * a, torch::clamp(ratio, 1.0 - ppo.clip, 1.0 + ppo.clip) * a);
        const torch::Tensor entropy = -(log_p.exp() * log_p).sum(-1).mean();
        const torch::Tensor loss = -surrogate.mean() - ppo.entropy * entropy;
        optimizer_.zero_grad();
        loss.backward();
        torch::nn::utils::clip_grad_norm_(policy_->parameters(), ppo.max_grad_norm);
        optimizer_.step();
    }

private:
    void write(torch::serialize::OutputArchive& archive, const std::string& config_json,
               const CheckpointMeta& meta, bool with_optimizer) const {
        archive.write("format", c10::IValue(std::string(kFormat)));
        archive.write("config", c10::IValue(config_json));
        archive.write("manifest_hash", c10::IValue(meta.manifest_hash));
        archive.write("train_state", c10::IValue(meta.train_state));
        torch::serialize::OutputArchive model;
        policy_->save(model);
        archive.write("model", model);
        if (with_optimizer)
            write_adam(archive);
    }

    // Adam's per-parameter state (step, exp_avg, exp_avg_sq and, with amsgrad, max_exp_avg_sq),
    // one nested archive per parameter in the policy's registration order ("p0", "p1", ...),
    // carrying the parameter's name. Not Optimizer::save: libtorch keys its state by the
    // printed address of each parameter's TensorImpl, so two runs with the same seed wrote
    // different names, and the pickled dict in a different order, into the same checkpoint.
    void write_adam(torch::serialize::OutputArchive& archive) const {
        torch::serialize::OutputArchive adam;
        const auto params = policy_->named_parameters();
        const auto& state = optimizer_.state();
        for (std::size_t i = 0; i < params.size(); ++i) {
            // A parameter gets its state at its first step: before any, there is none to keep.
            const auto it = state.find(adam_key(params[i].value()));
            if (it == state.end())
                continue;
            const auto& s = static_cast<const torch::optim::AdamParamState&>(*it->second);
            torch::serialize::OutputArchive p;
            p.write("name", c10::IValue(params[i].key()));
            p.write("step", c10::IValue(s.step()));
            p.write("exp_avg", s.exp_avg(), /*is_buffer=*/true);
            p.write("exp_avg_sq", s.exp_avg_sq(), /*is_buffer=*/true);
            if (s.max_exp_avg_sq().defined())
                p.write("max_exp_avg_sq", s.max_exp_avg_sq(), /*is_buffer=*/true);
            adam.write(fmt::format("p{}", i), p);
        }
        archive.write("adam", adam);
    }

    // What write_adam wrote, onto this policy's parameters (already loaded: Adam finds its state
    // by the parameters' current TensorImpl addresses, which loading weights keeps).
    void read_adam(torch::serialize::InputArchive& adam, const std::string& path) {
        const auto params = policy_->named_parameters();
        auto& state = optimizer_.state();
        state.clear();
        for (std::size_t i = 0; i < params.size(); ++i) {
            torch::serialize::InputArchive p;
            if (!adam.try_read(fmt::format("p{}", i), p))
                continue;  // no step taken yet: Adam starts it afresh, as it would have
            c10::IValue name, step;
            if (!p.try_read("name", name) || !name.isString() ||
                name.toStringRef() != params[i].key()) {
                throw RlError(
                    fmt::format("checkpoint '{}': optimiser state {} is not for parameter '{}'",
                                path, i, params[i].key()));
            }
            auto s = std::make_unique<torch::optim::AdamParamState>();
            if (!p.try_read("step", step) || !step.isInt())
                throw RlError(
                    fmt::format("checkpoint '{}': optimiser state {} has no step", path, i));
            s->step(step.toInt());
            torch::Tensor exp_avg, exp_avg_sq, max_exp_avg_sq;
            p.read("exp_avg", exp_avg, /*is_buffer=*/true);
            p.read("exp_avg_sq", exp_avg_sq, /*is_buffer=*/true);
            if (!exp_avg.sizes().equals(params[i].value().sizes()) ||
                !exp_avg_sq.sizes().equals(params[i].value().sizes())) {
                throw RlError(
                    fmt::format("checkpoint '{}': optimiser state of '{}' has another shape", path,
                                params[i].key()));
            }
            s->exp_avg(exp_avg);
            s->exp_avg_sq(exp_avg_sq);
            if (p.try_read("max_exp_avg_sq", max_exp_avg_sq, /*is_buffer=*/true))
                s->max_exp_avg_sq(max_exp_avg_sq);
            state[adam_key(params[i].value())] = std::move(s);
        }
    }

    // The key under which torch::optim::Adam (1.13) finds a parameter's state.
    static std::string adam_key(const torch::Tensor& param) {
        return c10::guts::to_string(param.unsafeGetTensorImpl());
    }

    void read_weights(torch::serialize::InputArchive& archive, const std::string& path) {
        torch::serialize::InputArchive model, optim;
        if (!archive.try_read("model", model))
            throw RlError(fmt::format("checkpoint '{}' has no model weights", path));
        try {
            policy_->load(model);
            if (archive.try_read("adam", optim))
                read_adam(optim, path);
            else if (archive.try_read("optimizer", optim))
                optimizer_.load(optim);  // format 1
        } catch (const c10::Error& e) {
            throw RlError(fmt::format("checkpoint '{}' does not match its config: {}", path,
                                      e.what_without_backtrace()));
        }
    }

    PolicyConfig config_;
    double learning_rate_;
    std::uint64_t seed_;
    Policy policy_;
    // mutable: torch's Optimizer::save is not const, though saving changes nothing.
    mutable torch::optim::Adam optimizer_;
    GraphTensors graph_;
};

class TorchModule final : public PolicyModule {
public:
    TorchModule() {
        // One thread: the same seed gives the same run (issue 14: "seeded and deterministic on
        // one thread"); OpenBLAS is the serial build (tools/setup.sh).
        torch::set_num_threads(1);
    }

    std::unique_ptr<PolicyBackend> create(const PolicyConfig& config, double learning_rate,
                                          std::uint64_t seed) const override {
        return std::make_unique<TorchPolicy>(config, learning_rate, seed);
    }

    CheckpointHeader read_header(const std::string& path) const override {
        torch::serialize::InputArchive archive;
        open_archive(archive, path);
        const std::string format = read_string(archive, "format", path);
        if (format != kFormat && format != kFormatV1) {
            throw RlError(
                fmt::format("checkpoint '{}' has format '{}'; this hetsim reads '{}' and '{}'",
                            path, format, kFormat, kFormatV1));
        }
        CheckpointHeader header;
        header.config_json = read_string(archive, "config", path);
        header.meta.manifest_hash = read_string(archive, "manifest_hash", path);
        header.meta.train_state = read_string(archive, "train_state", path);
        return header;
    }
};

}  // namespace

}  // namespace hetsim::placement::mcm::rl

extern "C" __attribute__((visibility("default"))) const hetsim::placement::mcm::rl::PolicyModule*
hetsim_mcm_rl_policy_module_v1() {
    static const hetsim::placement::mcm::rl::TorchModule module;
    return &module;
}
