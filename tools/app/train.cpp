#include "tools/app/train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "placement/mcm/analytic.hpp"
#include "placement/mcm/greedy.hpp"
#include "placement/mcm/rl/agent.hpp"
#include "placement/mcm/search.hpp"
#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/platform.hpp"
#include "sim/progress.hpp"
#include "sim/workloads/json_graph.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/study.hpp"

namespace hetsim::app {

namespace fs = std::filesystem;
namespace rl = placement::mcm::rl;
using placement::mcm::AnalyticModel;
using placement::mcm::McmProblem;

namespace {

using Clock = std::chrono::steady_clock;

// One dataset graph on the ring, ready for the learner.
struct Task {
    std::string name;
    std::unique_ptr<sim::Graph> graph;
    std::unique_ptr<McmProblem> problem;
    std::vector<int> greedy;
    double greedy_time_s = 0.0;
};

struct Dataset {
    std::string manifest_hash;
    std::vector<Task> train, validation;
    std::vector<std::string> skipped;  // "name: reason"
};

// The graph file of the manifest's graphs[index]: a path relative to the dataset folder, as
// `hetsim dataset build` writes it (graphs/<name>.json), that must stay inside the folder once
// `..` and symlinks are resolved. A manifest is input like any other: "../../etc/passwd" is
// refused, not opened.
fs::path graph_file(const fs::path& dir, const fs::path& manifest_file, std::size_t index,
                    const nlohmann::json& entry) {
    const std::string where = fmt::format("graphs[{}].file", index);
    const auto refuse = [&](const std::string& why) {
        throw sim::InputError(manifest_file.string(), where, 0,
                              why + "; expected a file inside the dataset folder '" + dir.string() +
                                  "', such as graphs/<name>.json");
    };
    if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string())
        refuse("missing, or not a string");
    const fs::path relative = entry["file"].get<std::string>();
    if (relative.empty())
        refuse("empty");
    if (relative.is_absolute())
        refuse(fmt::format("'{}' is an absolute path", relative.string()));
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(dir, ec);
    const fs::path file = ec ? fs::path() : fs::weakly_canonical(dir / relative, ec);
    if (ec)
        refuse(fmt::format("'{}' cannot be resolved: {}", relative.string(), ec.message()));
    const fs::path inside = file.lexically_relative(root);
    if (inside.empty() || *inside.begin() == ".." || inside == ".")
        refuse(fmt::format("'{}' resolves to '{}', outside the dataset folder", relative.string(),
                           file.string()));
    return dir / relative;
}

Dataset load_dataset(const TrainRequest& request, const sim::Platform& platform) {
    const fs::path dir = request.dataset;
    const fs::path manifest_file = dir / "manifest.json";
    if (!fs::exists(manifest_file)) {
        throw sim::InputError(manifest_file.string(), "", 0,
                              "no manifest.json: build the dataset with `hetsim dataset build`");
    }
    Dataset data;
    data.manifest_hash = rl::file_digest(manifest_file.string());
    nlohmann::json manifest;
    try {
        std::ifstream in(manifest_file);
        manifest = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw sim::InputError(manifest_file.string(), "", 0, e.what());
    }
    if (!manifest.contains("graphs") || !manifest["graphs"].is_array())
        throw sim::InputError(manifest_file.string(), "graphs", 0, "missing list of graphs");
    for (std::size_t index = 0; index < manifest["graphs"].size(); ++index) {
        const nlohmann::json& entry = manifest["graphs"][index];
        const fs::path file = graph_file(dir, manifest_file, index, entry);
        const std::string split = entry.value("split", "");
        if (split != "train" && split != "validation")
            continue;
        Task task;
        task.name = entry.value("name", "");
        task.graph = std::make_unique<sim::Graph>(sim::workloads::load_json_graph(file.string()));
        try {
            task.problem = std::make_unique<McmProblem>(*task.graph, platform);
            std::mt19937_64 rng(request.seed);
            task.greedy = placement::mcm::greedy_partition(*task.problem, {}, rng).chip_of_op;
            AnalyticModel model(*task.problem);
            task.greedy_time_s = model.time_per_sample_s(task.greedy);
        } catch (const placement::PlacementError& e) {
            data.skipped.push_back(fmt::format("{}: {}", task.name, e.what()));
            continue;
        }
        (split == "train" ? data.train : data.validation).push_back(std::move(task));
    }
    if (data.train.empty()) {
        throw sim::InputError(manifest_file.string(), "graphs", 0,
                              "no usable graph in the train split");
    }
    return data;
}

struct ValidationRow {
    int checkpoint = 0;
    std::int64_t samples = 0;
    double zero_shot = 0.0;
    double finetune = 0.0;
};

// mcm2022 §4.3's validation worker: each checkpoint, on each validation graph, zero-shot
// (request.validation_zero_shot samples, no update) and fine-tuned (validation_finetune samples
// of PPO from the checkpoint); the score is the mean over graphs of the best reward (throughput
// over greedy's). A pure function of the checkpoint and the seed.
ValidationRow validate(const rl::Agent& snapshot, const std::vector<Task>& tasks,
                       const TrainRequest& request) {
    ValidationRow row;
    if (tasks.empty())
        return row;
    double zero = 0.0, tuned = 0.0;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const Task& task = tasks[i];
        for (int tune = 0; tune < 2; ++tune) {
            const std::int64_t budget =
                tune ? request.validation_finetune : request.validation_zero_shot;
            rl::Agent agent = snapshot.clone();
            rl::AnalyticScorer scorer(*task.problem, budget);
            rl::Environment env(*task.problem, task.greedy, task.greedy_time_s, scorer,
                                request.seed + i, rl::fix_order_from_string(request.fix_order));
            std::mt19937_64 rng(request.seed * 7919 + i);
            const rl::DeployStats run = rl::deploy(agent, env, rng, tune ? budget : 0, budget);
            (tune ? tuned : zero) += run.best_reward;
        }
    }
    row.zero_shot = zero / static_cast<double>(tasks.size());
    row.finetune = tuned / static_cast<double>(tasks.size());
    return row;
}

// The validation worker thread: checkpoints in, rows out (validation.csv, appended as each
// finishes so that a killed run keeps what was validated).
class ValidationWorker {
public:
    ValidationWorker(const std::vector<Task>& tasks, const TrainRequest& request, fs::path csv)
        : tasks_(&tasks), request_(&request), csv_(std::move(csv)) {
        thread_ = std::thread([this] { run(); });
    }
    ~ValidationWorker() {
        try {
            finish();
        } catch (...) {  // already reported by the finish() the caller made, or unwinding
        }
    }

    void submit(int checkpoint, std::int64_t samples, rl::Agent snapshot) {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back({checkpoint, samples, std::move(snapshot)});
        wake_.notify_one();
    }
    // Waits for every submitted checkpoint; returns the rows of this run.
    std::vector<ValidationRow> finish() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
            wake_.notify_one();
        }
        if (thread_.joinable())
            thread_.join();
        if (error_)
            std::rethrow_exception(error_);
        return rows_;
    }
    std::optional<ValidationRow> best(const std::string& select) const {
        std::lock_guard<std::mutex> lock(mutex_);
        return best_of(rows_, select);
    }
    static std::optional<ValidationRow> best_of(const std::vector<ValidationRow>& rows,
                                                const std::string& select) {
        std::optional<ValidationRow> best;
        for (const ValidationRow& r : rows) {
            const double score = select == "zero-shot" ? r.zero_shot : r.finetune;
            const double best_score = !best                   ? -1.0
                                      : select == "zero-shot" ? best->zero_shot
                                                              : best->finetune;
            if (score > best_score)
                best = r;
        }
        return best;
    }
    void add_existing(const ValidationRow& row) {
        std::lock_guard<std::mutex> lock(mutex_);
        rows_.push_back(row);
    }

private:
    struct Job {
        int checkpoint;
        std::int64_t samples;
        rl::Agent snapshot;
    };

    void run() {
        try {
            for (;;) {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
                if (queue_.empty())
                    return;
                Job job = std::move(queue_.front());
                queue_.pop_front();
                lock.unlock();
                ValidationRow row = validate(job.snapshot, *tasks_, *request_);
                row.checkpoint = job.checkpoint;
                row.samples = job.samples;
                {
                    std::ofstream out(csv_, std::ios::app);
                    out << fmt::format("{},{},{:.6f},{:.6f}\n", row.checkpoint, row.samples,
                                       row.zero_shot, row.finetune);
                }
                lock.lock();
                rows_.push_back(row);
            }
        } catch (...) {
            error_ = std::current_exception();
        }
    }

    const std::vector<Task>* tasks_;
    const TrainRequest* request_;
    fs::path csv_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job> queue_;
    std::vector<ValidationRow> rows_;
    bool stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

std::string checkpoint_name(int k) {
    return fmt::format("ckpt_{:04}.pt", k);
}

// Writes to a temporary name and renames: a kill leaves the previous file whole.
void save_atomically(const rl::Agent& agent, const fs::path& file, const rl::CheckpointMeta& meta,
                     bool with_optimizer = true) {
    const fs::path tmp = file.string() + ".tmp";
    agent.save(tmp.string(), meta, with_optimizer);
    fs::rename(tmp, file);
}

std::vector<ValidationRow> read_validation_csv(const fs::path& file) {
    std::vector<ValidationRow> rows;
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        ValidationRow r;
        char comma = 0;
        std::istringstream s(line);
        if (s >> r.checkpoint >> comma >> r.samples >> comma >> r.zero_shot >> comma >> r.finetune)
            rows.push_back(r);
    }
    return rows;
}

// The agent's config from the options, each checked against the range the mcm.rl placer and a
// checkpoint's config are held to (PolicyConfig, PpoConfig: the ranges are declared there once).
// The ring's chips are the platform's, set later.
rl::RlConfig config_from_options(const TrainRequest& request) {
    rl::RlConfig config;
    const auto set = [](const char* option, int& field, const std::optional<int>& given,
                        rl::IntRange range) {
        if (!given)
            return;
        if (!range.contains(*given)) {
            throw std::invalid_argument(fmt::format("hetsim train: {} must be in {}..{}, got {}",
                                                    option, range.min, range.max, *given));
        }
        field = *given;
    };
    set("--layers", config.policy.sage_layers, request.sage_layers, rl::PolicyConfig::kSageLayers);
    set("--hidden", config.policy.hidden, request.hidden, rl::PolicyConfig::kHidden);
    set("--rounds", config.policy.rounds, request.rounds, rl::PolicyConfig::kRounds);
    set("--rollouts", config.ppo.rollouts, request.rollouts, rl::PpoConfig::kRollouts);
    set("--minibatches", config.ppo.minibatches, request.minibatches, rl::PpoConfig::kMinibatches);
    set("--epochs", config.ppo.epochs, request.epochs, rl::PpoConfig::kEpochs);
    if (request.entropy) {
        if (!rl::PpoConfig::valid_entropy(*request.entropy)) {
            throw std::invalid_argument(
                fmt::format("hetsim train: --entropy must be 0 or more (a finite number), got {}",
                            *request.entropy));
        }
        config.ppo.entropy = *request.entropy;
    }
    if (request.risk_epsilon) {
        if (!rl::PpoConfig::valid_risk_epsilon(*request.risk_epsilon)) {
            throw std::invalid_argument(fmt::format(
                "hetsim train: --risk-epsilon must be in (0, 1], got {}", *request.risk_epsilon));
        }
        config.ppo.risk_epsilon = *request.risk_epsilon;
    }
    config.seed = request.seed;
    return config;
}

// The policy for the platform's ring: its chips and its size in parameters within
// PolicyConfig's limits, named by the options that set them.
void check_policy_size(const rl::PolicyConfig& policy) {
    if (!rl::PolicyConfig::kChips.contains(policy.chips)) {
        throw std::invalid_argument(
            fmt::format("hetsim train: --platform: the ring has {} chips; an mcm.rl policy takes "
                        "{}..{}",
                        policy.chips, rl::PolicyConfig::kChips.min, rl::PolicyConfig::kChips.max));
    }
    if (const std::int64_t n = rl::policy_parameter_count(policy);
        n > rl::PolicyConfig::kMaxParameters) {
        throw std::invalid_argument(fmt::format(
            "hetsim train: --layers {} and --hidden {} make a policy of {} parameters on {} chips, "
            "over the limit of {}",
            policy.sage_layers, policy.hidden, n, policy.chips, rl::PolicyConfig::kMaxParameters));
    }
}

// The output folder of a fresh run, made by it: removed again, with the folders made above it,
// unless the run keeps it. A run that fails before its first checkpoint has nothing to resume.
class CreatedFolder {
public:
    explicit CreatedFolder(const fs::path& folder) : created_(sim::first_missing_folder(folder)) {
        try {
            sim::create_output_folder(folder);
        } catch (const std::exception& e) {
            remove();
            throw sim::InputError("", "--out", 0, sim::write_failure_message(e, folder));
        }
    }
    ~CreatedFolder() { remove(); }
    CreatedFolder(const CreatedFolder&) = delete;
    CreatedFolder& operator=(const CreatedFolder&) = delete;
    void keep() { created_.clear(); }

private:
    void remove() {
        std::error_code ec;
        if (!created_.empty())
            fs::remove_all(created_, ec);
    }

    fs::path created_;  // empty: nothing to remove
};

}  // namespace

std::string train(const TrainRequest& request, std::ostream& progress, bool terminal) {
    // Every option is checked before the dataset is read and before the output folder is made.
    if (request.placer != "mcm.rl") {
        throw std::invalid_argument(fmt::format(
            "hetsim train: '{}' is not a trainable placer (trainable: mcm.rl)", request.placer));
    }
    const auto at_least = [](const char* option, std::int64_t value, std::int64_t min) {
        if (value < min) {
            throw std::invalid_argument(
                fmt::format("hetsim train: {} must be {} or more, got {}", option, min, value));
        }
    };
    at_least("--samples", request.samples, 1);
    at_least("--checkpoints", request.checkpoints, 1);
    at_least("--val-zero-shot", request.validation_zero_shot, 0);
    at_least("--val-finetune", request.validation_finetune, 0);
    if (request.select != "finetune" && request.select != "zero-shot")
        throw std::invalid_argument("hetsim train: --select is finetune or zero-shot");
    // best.pt is the checkpoint with the best score --select names: one measured on no sample
    // would choose it from zeros.
    const bool finetune = request.select == "finetune";
    if ((finetune ? request.validation_finetune : request.validation_zero_shot) == 0) {
        throw std::invalid_argument(fmt::format(
            "hetsim train: --select {} chooses best.pt by the {} score, which {} 0 leaves "
            "unmeasured; give it 1 or more, or --select {}",
            request.select, request.select, finetune ? "--val-finetune" : "--val-zero-shot",
            finetune ? "zero-shot" : "finetune"));
    }
    rl::RlConfig config = config_from_options(request);
    const fs::path out = request.out;
    if (request.resume && !fs::exists(out / "last.pt")) {
        throw std::invalid_argument(
            fmt::format("--resume: no {} to resume", (out / "last.pt").string()));
    }
    register_all();

    const sim::Platform platform = sim::load_platform(request.platform);
    Dataset data = load_dataset(request, platform);
    config.policy.chips = data.train.front().problem->chip_count();
    if (!request.resume)
        check_policy_size(config.policy);
    // The files every run writes, checked before the first is: a folder named last.pt had
    // left the first checkpoint, the logs and last.pt.tmp behind (the checkpoints'
    // ckpt_NNNN.pt are new names each time).
    for (const char* name : {"last.pt", "best.pt", "train_log.csv", "validation.csv"}) {
        try {
            (void)sim::output_target(out / name);
        } catch (const std::exception& e) {
            throw sim::InputError("", "--out", 0, sim::write_failure_message(e, out / name));
        }
    }
    CreatedFolder folder(out);

    // The agent: fresh, or the run's last checkpoint with its state.
    std::int64_t samples = 0;
    int updates = 0, checkpoints_written = 0;
    std::size_t cursor = 0;
    std::vector<int> order;
    std::mt19937_64 rng(request.seed);
    double elapsed_before_s = 0.0;
    std::optional<rl::Agent> loaded;
    if (request.resume) {
        const fs::path last = out / "last.pt";
        rl::CheckpointMeta meta;
        loaded.emplace(rl::Agent::load(last.string(), &meta));
        if (meta.manifest_hash != data.manifest_hash) {
            throw std::invalid_argument(fmt::format(
                "--resume: {} was trained on another dataset (manifest {}; {} has {})",
                last.string(), meta.manifest_hash, request.dataset, data.manifest_hash));
        }
        const auto state = nlohmann::json::parse(meta.train_state);
        samples = state.at("samples").get<std::int64_t>();
        updates = state.at("updates").get<int>();
        checkpoints_written = state.at("checkpoints").get<int>();
        cursor = state.at("cursor").get<std::size_t>();
        order = state.at("order").get<std::vector<int>>();
        // Wall-clock time before this run counts toward --time-limit. A --deterministic run
        // kept none (this run's limit starts at 0); format 1 checkpoints named it elapsed_s.
        elapsed_before_s = state.value("elapsed_wall_s", state.value("elapsed_s", 0.0));
        std::istringstream(state.at("rng").get<std::string>()) >> rng;
    } else {
        loaded.emplace(config);
        std::ofstream(out / "train_log.csv")
            << "update,samples,graph,valid,mean_reward,best_reward,entropy,wall_s\n";
        std::ofstream(out / "validation.csv") << "checkpoint,samples,zero_shot,finetune\n";
    }
    rl::Agent& agent = *loaded;
    if (request.resume) {
        // A resumed run goes on with the checkpoint's policy and PPO settings: an option that
        // says otherwise would be ignored.
        const rl::RlConfig& kept = agent.config();
        const auto same = [](const char* option, const std::optional<int>& given, int value) {
            if (given && *given != value) {
                throw std::invalid_argument(fmt::format(
                    "--resume: {} {} differs from the checkpoint's {}; a resumed run keeps the "
                    "checkpoint's settings (leave {} out)",
                    option, *given, value, option));
            }
        };
        same("--layers", request.sage_layers, kept.policy.sage_layers);
        same("--hidden", request.hidden, kept.policy.hidden);
        same("--rounds", request.rounds, kept.policy.rounds);
        same("--rollouts", request.rollouts, kept.ppo.rollouts);
        same("--minibatches", request.minibatches, kept.ppo.minibatches);
        same("--epochs", request.epochs, kept.ppo.epochs);
    }
    if (agent.config().policy.chips != config.policy.chips) {
        throw std::invalid_argument(
            fmt::format("--resume: the checkpoint's policy has {} chips, the platform {}",
                        agent.config().policy.chips, config.policy.chips));
    }

    ValidationWorker worker(data.validation, request, out / "validation.csv");
    if (request.resume) {
        // Rows already validated stay; checkpoints written but not validated are queued again.
        std::map<int, bool> done;
        for (const ValidationRow& r : read_validation_csv(out / "validation.csv")) {
            worker.add_existing(r);
            done[r.checkpoint] = true;
        }
        for (int k = 1; k <= checkpoints_written; ++k) {
            const fs::path file = out / checkpoint_name(k);
            if (!done.count(k) && fs::exists(file)) {
                rl::CheckpointMeta meta;
                rl::Agent snapshot = rl::Agent::load(file.string(), &meta);
                const auto state = nlohmann::json::parse(meta.train_state);
                worker.submit(k, state.at("samples").get<std::int64_t>(), std::move(snapshot));
            }
        }
    }

    const std::int64_t every = std::max<std::int64_t>(
        1, (request.samples + request.checkpoints - 1) / request.checkpoints);
    const auto start = Clock::now();
    const auto elapsed = [&] {
        return elapsed_before_s + std::chrono::duration<double>(Clock::now() - start).count();
    };
    const std::int64_t samples_at_start = samples;
    double running_reward = 0.0;  // exponential average over updates
    bool have_running = false;
    auto last_draw = Clock::now() - std::chrono::seconds(10);
    std::ofstream log(out / "train_log.csv", std::ios::app);

    const auto write_checkpoint = [&] {
        ++checkpoints_written;
        nlohmann::json state = {{"samples", samples},
                                {"updates", updates},
                                {"checkpoints", checkpoints_written},
                                {"cursor", cursor},
                                {"order", order}};
        // The one wall-clock field of a checkpoint; without it the same seed gives the same bytes.
        if (!request.deterministic)
            state["elapsed_wall_s"] = elapsed();
        std::ostringstream rng_text;
        rng_text << rng;
        state["rng"] = rng_text.str();
        const rl::CheckpointMeta meta{data.manifest_hash, state.dump()};
        save_atomically(agent, out / checkpoint_name(checkpoints_written), meta);
        save_atomically(agent, out / "last.pt", meta);
        folder.keep();  // from now on the folder holds a run to resume
        worker.submit(checkpoints_written, samples, agent.clone());
    };
    const auto draw = [&](bool force) {
        const auto now = Clock::now();
        if (!force && now - last_draw < std::chrono::milliseconds(500))
            return;
        last_draw = now;
        const double done = static_cast<double>(samples) / static_cast<double>(request.samples);
        const double rate_elapsed = std::chrono::duration<double>(now - start).count();
        const std::int64_t fresh = samples - samples_at_start;
        const double eta = fresh > 0 ? rate_elapsed / static_cast<double>(fresh) *
                                           static_cast<double>(request.samples - samples)
                                     : 0.0;
        const auto best = worker.best(request.select);
        const std::string val =
            best ? fmt::format(" | val {:.3f}x @{}",
                               request.select == "zero-shot" ? best->zero_shot : best->finetune,
                               best->checkpoint)
                 : "";
        if (terminal) {
            progress << fmt::format(
                            "\rtrain mcm.rl {} {}/{} samples {:3.0f}% | reward "
                            "{:.3f}x{} | {} ETA {}   ",
                            sim::progress_bar(done), samples, request.samples, 100.0 * done,
                            running_reward, val, sim::duration_text(elapsed()),
                            sim::duration_text(eta))
                     << std::flush;
        } else {
            progress << fmt::format(
                            "train mcm.rl: {}/{} samples ({:.0f}%), reward {:.3f}x{}, "
                            "{} elapsed, ETA {}\n",
                            samples, request.samples, 100.0 * done, running_reward, val,
                            sim::duration_text(elapsed()), sim::duration_text(eta))
                     << std::flush;
        }
    };

    bool out_of_time = false;
    while (samples < request.samples) {
        if (cursor >= order.size()) {
            // A fresh seeded pass over the train split.
            order = placement::mcm::random_order(static_cast<int>(data.train.size()), rng);
            cursor = 0;
        }
        Task& task = data.train[static_cast<std::size_t>(order[cursor++])];
        rl::AnalyticScorer scorer(*task.problem);
        rl::Environment env(*task.problem, task.greedy, task.greedy_time_s, scorer,
                            request.seed + static_cast<std::uint64_t>(updates),
                            rl::fix_order_from_string(request.fix_order));
        const std::int64_t next_checkpoint = (samples / every + 1) * every;
        const rl::IterationStats it =
            agent.iterate(env, rng, true, std::min(request.samples, next_checkpoint) - samples);
        samples += it.samples;
        ++updates;
        running_reward =
            have_running ? 0.9 * running_reward + 0.1 * it.mean_reward : it.mean_reward;
        have_running = true;
        log << fmt::format("{},{},{},{},{:.6f},{:.6f},{:.4f},{}\n", updates, samples, task.name,
                           it.valid, it.mean_reward, it.best_reward, it.policy_entropy,
                           request.deterministic ? "" : fmt::format("{:.2f}", elapsed()));
        out_of_time = request.time_limit_s && elapsed() >= *request.time_limit_s;
        if (samples % every == 0 || samples >= request.samples || out_of_time) {
            log.flush();
            write_checkpoint();
            if (!terminal)
                draw(true);
        }
        if (terminal)
            draw(false);
        if (out_of_time)
            break;
    }
    if (terminal) {
        draw(true);
        progress << "\n";
    }
    progress << "train mcm.rl: validating the last checkpoints...\n" << std::flush;
    std::vector<ValidationRow> rows = worker.finish();
    const auto best = ValidationWorker::best_of(rows, request.select);
    std::string best_text = "no validation graph: best.pt is the last checkpoint";
    // best.pt: the chosen checkpoint's policy without the optimiser's state (what mcm.rl
    // deploys; a third of the size).
    const auto export_best = [&](const fs::path& from) {
        rl::CheckpointMeta meta;
        const rl::Agent chosen = rl::Agent::load(from.string(), &meta);
        save_atomically(chosen, out / "best.pt", {meta.manifest_hash, ""}, false);
    };
    if (best && !data.validation.empty()) {
        export_best(out / checkpoint_name(best->checkpoint));
        best_text = fmt::format(
            "best.pt = checkpoint {} ({} samples): validation zero-shot {:.3f}x, fine-tuned "
            "{:.3f}x greedy",
            best->checkpoint, best->samples, best->zero_shot, best->finetune);
    } else {
        export_best(out / "last.pt");
    }
    std::string skipped;
    for (const std::string& s : data.skipped)
        skipped += fmt::format("  skipped {}\n", s);
    return fmt::format(
        "trained mcm.rl: {} samples, {} PPO iterations on {} train graphs ({} validation), {} "
        "checkpoints, {}{}\n{}\n{}checkpoints in {}/ (best.pt, last.pt, train_log.csv, "
        "validation.csv)\n",
        samples, updates, data.train.size(), data.validation.size(), checkpoints_written,
        sim::duration_text(elapsed()), out_of_time ? " (stopped at the time limit)" : "", best_text,
        skipped, out.string());
}

}  // namespace hetsim::app
