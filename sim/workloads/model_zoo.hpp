// Built-in workload generators with the papers' knobs (`hetsim list models`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/graph.hpp"

namespace hetsim::sim::workloads {

struct KnobInfo {
    std::string name;
    std::int64_t default_value;
    std::string description;
    std::int64_t min_value = 1;  // accepted range, checked before a model is built
    std::int64_t max_value = std::int64_t{1} << 62;
    // A knob added after workload labels were recorded (the shipped mcm.rl checkpoint's
    // dataset manifest hashes them) appears in a label only when set away from its default,
    // so that every label written before it keeps its text.
    bool labelled_at_default = true;
};

// "" when `value` is in the knob's range, else "must be in [1, 64], got 0" (the bound passed).
std::string knob_value_problem(const KnobInfo& knob, std::int64_t value);

struct ModelInfo {
    std::string name;         // "bert"
    std::string description;  // one line, names the paper setting the defaults follow
    std::vector<KnobInfo> knobs;
};

using Knobs = std::map<std::string, std::int64_t>;

// Every generator, in a stable order.
const std::vector<ModelInfo>& list_models();

// Builds and finalizes the graph of `model` with `knobs` overriding the defaults.
// Throws std::invalid_argument for an unknown model or knob (with a "did you mean" where
// one is close) and for invalid values (e.g. hidden not divisible by heads).
Graph build_model(const std::string& model, const Knobs& knobs);

}  // namespace hetsim::sim::workloads
