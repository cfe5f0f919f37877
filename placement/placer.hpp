// The Placer family. A placer sees the platform only through the cost models and the
// Evaluator, so any placer runs on any platform. Each implementation lives in its own file
// and is registered by name in placement/registry.cpp.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/evaluator.hpp"
#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"

namespace hetsim::placement {

enum class Objective { latency, throughput };

// How far a search is: `done` of `total` units (samples, steps), its best so far as text ("2.42
// ms", "" before there is one), and the time limit's share used (0 without one). A placer that
// searches reports it as it goes; the study runner shows it on a terminal once a step has taken
// 2 s (samples, best so far, ETA).
struct SearchProgress {
    long done = 0, total = 0;
    std::string unit = "samples";
    std::string best;
    double time_fraction = 0.0;
};
using ProgressSink = std::function<void(const SearchProgress&)>;
// The share of [start, deadline] that has passed, in [0, 1]; 0 without a deadline.
double time_fraction(std::chrono::steady_clock::time_point start,
                     std::optional<std::chrono::steady_clock::time_point> deadline);

struct PlacementContext {
    const sim::Graph& graph;
    const sim::Platform& platform;
    sim::Evaluator& evaluator;  // the study's evaluator; profile runs go through it
    Objective objective = Objective::latency;
    std::uint64_t seed = 1;
    ProgressSink progress = {};  // may be empty: report through report_progress()

    // Whether anyone listens: a search builds its report (a formatted best) only then.
    bool wants_progress() const { return static_cast<bool>(progress); }
    void report_progress(const SearchProgress& p) const {
        if (progress)
            progress(p);
    }
};

struct PlacementResult {
    sim::Placement placement;
    int profile_runs = 0;                      // evaluator runs the placer used to decide
    std::map<std::string, std::string> stats;  // placer-specific facts for the report
    // CSV tables the placer produced, by kind ("convergence"): `hetsim run` writes each as
    // <kind>_<placer>.csv next to results.csv.
    std::map<std::string, std::string> tables;
    // One line for the terminal under the results table ("" = none): what the placer found by
    // its own measure (samples, its model's best, a bound and the gap to it).
    std::string summary;
};

class Placer {
public:
    virtual ~Placer() = default;
    virtual std::string name() const = 0;  // the spec it was created from: "priority:PIM,CPU_P"
    virtual PlacementResult place(const PlacementContext& context) = 0;
};

// A placer that cannot run on this input (e.g. exhaustive on a graph too large), or a
// spec that names unknown devices. The message says what and why.
class PlacementError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Creates placers from specs "name" or "name:arguments" ("single:CPU_S",
// "priority:CPU_P,PIM,CPU_S", "random", "exhaustive").
using PlacerFactory = std::function<std::unique_ptr<Placer>(const std::string& arguments)>;

struct PlacerInfo {
    std::string name;
    std::string usage;  // "priority:<d1>,<d2>,..."
    std::string description;
    PlacerFactory factory;
    // One line per key=value argument, from the placer's ArgumentSchema (placer_args.hpp);
    // empty for placers whose arguments are a device list or a single number.
    std::vector<std::string> argument_help = {};
    // Names the placer had before it took its family prefix ("greedy" for "tarnawski.greedy").
    // They still create it for one release, with a one-line deprecation warning.
    std::vector<std::string> deprecated_names = {};
    std::string family = {};  // set by PlacerRegistry::Family::add
};

// The one placer registry. Every placer family registers in its own folder through one
// function, `register_placers(PlacerRegistry&)`, which opens its Family and adds each placer
// (placement/classic/register.cpp, lee2022/, tarnawski/, mcm/, mcm/rl/): a new placer is one
// file plus one line there. A family's names carry its prefix ("mcm.greedy"); the classic
// family's (single, priority, random, ...) are bare.
class PlacerRegistry {
public:
    class Family {
    public:
        // Stamps the family on `info`, checks that its name carries the family prefix, and
        // registers it with its deprecated names. Throws std::logic_error for a name outside
        // the family or one registered twice.
        Family& add(PlacerInfo info);

    private:
        friend class PlacerRegistry;
        Family(PlacerRegistry& registry, std::string name) : registry_(registry), name_(name) {}
        PlacerRegistry& registry_;
        std::string name_;
    };

    struct FamilyInfo {
        std::string name;         // "tarnawski"
        std::string description;  // one line: the paper or the idea the family follows
    };

    static PlacerRegistry& instance();  // every built-in placer registered
    // Opens (or reopens) a family; `description` replaces an empty one.
    Family family(const std::string& name, const std::string& description = "");
    // Throws PlacementError for an unknown name (with "did you mean"). A deprecated name
    // creates its placer and warns once per process (warn_deprecated_placer_name).
    std::unique_ptr<Placer> create(const std::string& spec) const;
    // `spec` with a deprecated name replaced by its current one (warning once); else as given.
    std::string canonical_spec(const std::string& spec) const;
    std::vector<const PlacerInfo*> all() const;  // sorted by name
    std::vector<FamilyInfo> families() const;    // in registration order

private:
    std::map<std::string, PlacerInfo> placers_;
    std::map<std::string, std::string> deprecated_;  // old name -> current name
    std::vector<FamilyInfo> families_;
};

// The family names a classic placer carries no prefix for.
inline constexpr const char* kClassicFamily = "classic";

// One line on stderr, once per process and old name: "hetsim: warning: placer 'greedy' is now
// 'tarnawski.greedy'; the old name goes in the next release". Shared by every registry that
// keeps old names (placers and tarnawski's split solvers).
void warn_deprecated_placer_name(const std::string& old_name, const std::string& new_name);

// --- helpers shared by placers -------------------------------------------------------

// Splits a placer's device-list arguments "CPU_P, PIM,CPU_S" into trimmed names; an empty or
// repeated entry -> PlacementError naming `placer` and the expected form `usage`.
std::vector<std::string> split_device_list(const std::string& placer, const std::string& arguments,
                                           const std::string& usage);

// A placer's single numeric argument ("exhaustive:100000"): a positive integer, else
// std::nullopt (the placer then reports its own usage).
std::optional<std::uint64_t> parse_positive_integer(const std::string& arguments);

// Devices (indices) able to run op `op_id`, in platform order. Throws PlacementError naming
// the op and every device's reason when no device can run it.
std::vector<int> capable_devices(const sim::Graph& graph, const sim::Platform& platform, int op_id);
// Resolves device names to indices; unknown names -> PlacementError listing the devices.
std::vector<int> resolve_devices(const sim::Platform& platform,
                                 const std::vector<std::string>& names,
                                 const std::string& placer_spec);
// The CPU and the GPU of DUET and EOP, by role: {the first host_cpu device, the first gpu or
// accelerator device}. Throws PlacementError naming `who` when the platform lacks either.
std::array<int, 2> cpu_and_gpu(const sim::Platform& platform, const std::string& who);
// Lowers and evaluates a placement with the context's evaluator.
sim::Metrics evaluate_placement(const PlacementContext& context, const sim::Placement& placement);
// The objective's value to minimise: latency_s, or 1/throughput; infinite for a placement
// that exceeds a memory capacity (sim::Metrics::feasible).
double objective_cost(Objective objective, const sim::Metrics& metrics);
// An objective_cost as a progress report's best so far: "2.42 ms" (latency) or "413.2/s"
// (throughput); "" for an infinite cost (nothing feasible yet).
std::string cost_text(Objective objective, double cost);

}  // namespace hetsim::placement
