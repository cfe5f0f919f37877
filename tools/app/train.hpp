// `hetsim train mcm.rl`: mcm2022 §4.3's training phase. A training worker runs PPO on the
// train split of a `hetsim dataset build` folder against the §5.1 analytical model and writes a
// checkpoint every `samples / checkpoints` samples; a validation worker (a second thread, as the
// paper's second worker) scores each checkpoint on the validation split, zero-shot and after a
// short fine-tune, and keeps the best as best.pt.
//
// Output folder:
//   last.pt            the newest checkpoint, with the resume state (--resume reads it)
//   ckpt_NNNN.pt       every checkpoint
//   best.pt            the checkpoint with the best validation score (by --select)
//   train_log.csv      update,samples,graph,valid,mean_reward,best_reward,entropy,wall_s
//
// The same inputs and seed give the same bytes in every file but the wall-clock fields: the
// checkpoints' train state `elapsed_wall_s` and train_log.csv's `wall_s` column, which
// `deterministic` leaves out (the column's cells empty).
//   validation.csv     checkpoint,samples,zero_shot,finetune (mean best reward over greedy)
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace hetsim::app {

struct TrainRequest {
    std::string placer = "mcm.rl";
    std::string dataset;              // folder with manifest.json and graphs/
    std::string platform;             // platform YAML with the chiplet ring
    std::string out;                  // checkpoint folder
    std::int64_t samples = 20'000;    // §5.2: 20,000 pre-training samples
    bool resume = false;              // continue from OUT/last.pt
    int checkpoints = 200;            // §5.2: 200 checkpoints over the run
    int validation_zero_shot = 20;    // samples per validation graph, zero-shot
    int validation_finetune = 40;     // samples per validation graph, fine-tuned
    std::string select = "finetune";  // which validation score picks best.pt
    std::string fix_order =
        "topological_then_random";   // FIX's node order in training and validation (FixOrder)
    std::optional<int> sage_layers;  // the policy's size (default §5.1's 8 x 128)
    std::optional<int> hidden;
    std::optional<int> rounds;
    std::optional<int> rollouts;  // PPO (default §5.1's 20 / 4 / 10)
    std::optional<int> minibatches;
    std::optional<int> epochs;
    std::optional<double> entropy;       // PPO's entropy bonus per op (default 0.01)
    std::optional<double> risk_epsilon;  // risk-seeking PPO's ε (default 1: off)
    std::uint64_t seed = 1;
    std::optional<double> time_limit_s;  // stop at a checkpoint once it is reached
    bool deterministic = false;          // leave the wall-clock fields out (see above)
};

// Runs the training; progress goes to `progress` (a bar with ETA and the running reward when
// `terminal`, one line per checkpoint otherwise). Returns the summary to print. Throws
// sim::InputError for a bad dataset or platform, std::invalid_argument for a bad request or a
// checkpoint that cannot be resumed (another dataset, another config). The options, the dataset
// and the platform are checked before the output folder is made; a fresh run that fails before
// its first checkpoint removes the folder it made.
std::string train(const TrainRequest& request, std::ostream& progress, bool terminal);

}  // namespace hetsim::app
