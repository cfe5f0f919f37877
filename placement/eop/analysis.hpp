// What EOP knows about a graph before it chooses ratios (xu2022 §3.2-3.3, Algorithm 1 and
// Algorithm 3 lines 1-5): every op's time on the CPU and the GPU, the key operators, and for
// each key op and partition dimension its pattern models (or, for the Equal and Fixed
// baselines, the measured times themselves) and its split communication.
//
// A profile run is one simulated execution of one op (or one split op's Split, copies and
// Concat) on one device: the device model's op time, which is the compute task the DES charges
// when the op has its memory to itself. Identical ops (an unrolled RNN's steps) share their
// runs; every distinct one is counted.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "placement/eop/eop_placer.hpp"
#include "placement/eop/pattern.hpp"
#include "sim/passes/split.hpp"

namespace hetsim::placement::eop {

struct AnalysisOptions {
    double key_share = 0.95;
    bool key_by_type = false;  // key operators chosen by op type (Table 5) instead of by op
    double step = 0.01;
    int samples = 24;
    std::vector<sim::passes::SplitDim> dims;  // in order of preference
    // true (eop): fit patterns and choose the dimension by Algorithm 1; false (Equal, Fixed):
    // the first dimension of `dims` the op can be split on, costed by measurement.
    bool fit_patterns = true;
    // Hears the key ops analysed so far of all of them (Algorithm 1's profiling, one op at a
    // time). Empty = none.
    std::function<void(int done, int total)> on_progress;
};

// One dimension of one key op: its fitted patterns and Eq. 5's ratio on them.
struct DimFit {
    sim::passes::SplitDim dim = sim::passes::SplitDim::batch;
    std::int64_t extent = 0;
    Pattern cpu, gpu, cm;
    double share = 0.0;   // balance_share
    double time_s = 0.0;  // T at that share, estimated
};

struct KeyOp {
    int op = -1;
    sim::passes::SplitDim dim = sim::passes::SplitDim::batch;  // the chosen one
    std::optional<SplitModel> model;  // empty: it cannot be split (why_unsplit says why)
    std::vector<DimFit> fits;         // eop: every dimension tried
    std::string why_unsplit;
};

struct Analysis {
    int cpu = -1, gpu = -1;
    std::vector<double> cpu_s, gpu_s;  // per op, unsplit (infinite where a device cannot)
    std::vector<KeyOp> key;            // in topological order
    double key_time_share = 0.0;       // of the sum over ops of each op's faster time
    int profile_runs = 0;

    int faster_device(int op) const;
    double best_s(int op) const;
};

Analysis analyse(const sim::Graph& graph, const sim::Platform& platform, int cpu, int gpu,
                 const AnalysisOptions& options);

// The subgraph of an op for eop.fixed: its name's scopes up to the first one that carries an
// index ("/lstm.0", "/bert/encoder/layer.3", "/Mixed_5b"), else its first scope (the layers
// EOP's Table 1 counts: 2 for LSTM and GRU, 12 for BERT).
std::string subgraph_of(const std::string& op_name);

// CSV of the key ops: op, type, dim, extent, the three patterns and their errors, the share.
std::string ratio_table(const sim::Graph& graph, const Analysis& analysis,
                        const std::vector<double>& shares);

// `hetsim inspect STUDY --patterns`: the key operators, then for each one every dimension it
// can be split on, the pattern chosen on each device and for the split's communication (kind,
// coefficients, fit error), the balanced CPU share and the estimated time; the chosen
// dimension is marked.
std::string describe_patterns(const sim::Graph& graph, const Analysis& analysis,
                              const sim::Platform& platform);

// Eq. 2 for a group of ops of `graph`: max over the parts (ops with `split_part`), plus the
// others (Split, Slice, Concat), plus each transfer of a non-weight input into an op from a
// device other than its own (from its producer's device when the producer is in the group,
// else from home_of_external). communication_s, when given, receives the last two (cm).
double group_seconds(const sim::Graph& graph, const std::vector<int>& ops,
                     const std::vector<int>& device_of_op,
                     const std::function<int(int tensor)>& home_of_external,
                     const sim::Platform& platform, double* communication_s);

}  // namespace hetsim::placement::eop
