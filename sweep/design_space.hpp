// A sweep file and the design points it names.
//
//   sweep: lee2022_codesign
//   study: ../studies/lee2022_seq.yaml        # relative to this file, or absolute
//   axes:                                     # any YAML path of the study -> values
//     workload.seq_len: [8, 16, 32]
//     platform.components.dma.forward.bandwidth: [1 GB/s, 2 GB/s]
//     platform.components.pim.clock: {min: 200 MHz, max: 400 MHz}   # a range (sampling only)
//     accelerators:                           # a named axis whose values set several paths
//       values:
//         "2": {platform.components.acc2: ~, platform.components.pcie2: ~}
//         "3": {platform.components.acc2: ~}
//   where: ["seq_len * 2 <= 64"]              # constraints (sweep/expression.hpp), all must hold
//   random: {n: 200, seed: 1}                 # or latin_hypercube: {n: 20, seed: 1}; else a grid
//   timeout: 10 min                           # per point; the point fails when it runs longer
//   trace: false                              # a Perfetto trace per placer and point
//
// A grid is every combination (the last axis changing fastest). `random` draws n points: n
// distinct grid points when every axis is a list, else each axis independently (a range
// uniformly, or log-uniformly with `log: true`). `latin_hypercube` cuts each axis into n strata
// and uses each stratum once (McKay, Beckman & Conover 1979). Points that break a `where`
// constraint are skipped (random sampling draws again; a Latin hypercube keeps its strata and
// has fewer points).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sweep/expression.hpp"

namespace hetsim::sweep {

struct Axis {
    std::string path;                 // the study's YAML path (a bundle axis: its name)
    std::vector<std::string> values;  // a list axis: its values as YAML text (bundles: labels)
    // A bundle axis: per label, the assignments ("path=value") it makes.
    std::vector<std::vector<std::string>> bundles;
    // A range axis (values empty): [min, max] in `unit` (as written with `min`).
    bool range = false;
    double min = 0.0, max = 0.0;
    std::string unit;
    bool log = false;
    bool integer = false;  // both bounds bare integers: draws are rounded
};

enum class Sampling { grid, random, latin_hypercube };
std::string to_string(Sampling sampling);

struct SweepSpec {
    std::string name;
    std::filesystem::path file;   // the sweep file
    std::filesystem::path study;  // the base study, resolved against the sweep file
    std::vector<Axis> axes;
    std::vector<Expression> where;
    Sampling sampling = Sampling::grid;
    std::size_t samples = 0;  // n of random / latin_hypercube
    std::uint64_t seed = 1;
    double timeout_s = 0.0;  // 0: none
    bool trace = false;
    std::vector<std::string> axis_paths() const;  // the axes' paths (names), in order
};

// Reads and checks a sweep file. Throws sim::InputError naming the file, the YAML path and line.
SweepSpec load_sweep(const std::filesystem::path& file);

struct DesignPoint {
    std::size_t index = 0;  // position in the sweep's order
    std::string id;         // "p" + 12 hex digits of a digest of `assignments` (point_id)
    std::vector<std::pair<std::string, std::string>> values;  // axis path -> YAML text
    // The `--set` assignments that make the base study this point: "path=value" (a bundle
    // axis's value expanded into its assignments).
    std::vector<std::string> assignments;
    // The study this point runs, when it is not the sweep's base study (`hetsim compare` runs
    // several studies through one runner), and that study's name (a failed point's `study`).
    std::filesystem::path study;
    std::string study_name;
    // A digest of the study this point runs, resolved (its axes' values set, the platform
    // inlined): what sweep.json records so that --resume reuses a point's rows only while the
    // point still runs that study. "" when the caller does not compute it (not checked).
    std::string study_digest;
    // "seq_len=16, bandwidth=2 GB/s": each axis by its last path component.
    std::string label() const;
};

// A point's id: a digest of the assignments that make it, in axis order. The same values give
// the same id in every run and on every machine, so resumed and split sweeps agree on it.
std::string point_id(const std::vector<std::string>& assignments);

struct DesignSpace {
    std::vector<DesignPoint> points;
    std::size_t skipped = 0;  // candidates a `where` constraint removed
};

// The points of a sweep, in a fixed order. Throws sim::InputError when a constraint cannot be
// evaluated, or when no point is left.
DesignSpace enumerate_points(const SweepSpec& spec);

}  // namespace hetsim::sweep
