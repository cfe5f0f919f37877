// `hetsim place`: one tarnawski2020 split solver on one workload, printing its objective and
// the split, and writing the split in the experts/ format. The workload is the paper's JSON
// instance, or a study YAML whose graph and platform are converted (graph_workload.hpp); a
// study's split is also simulated with the study's evaluator.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace hetsim::app {

struct PlaceRequest {
    std::string workload;       // .json (tarnawski2020 format) or study .yaml
    std::string placer;         // a split solver spec: "tarnawski.dp"
    std::string objective;      // "throughput" | "latency" | "" (JSON: throughput;
                                // study: the study's objective)
    double time_limit_s = 0.0;  // 0 = the solver's default
    double relative_gap = 0.0;  // MIP gap
    std::uint64_t seed = 1;
    std::string out;                     // split JSON path; "" = none
    std::vector<std::string> overrides;  // --set for a study
    int processors = 0;                  // a .stg or WfCommons task graph's identical processors
    std::string bandwidth;               // a WfCommons workflow's link bandwidth ("" = 1 GB/s)
};

// Runs the request; progress lines go to `progress` (stderr), the report is returned.
// Throws the input-error types of the CLI for bad input.
std::string place(const PlaceRequest& request, std::ostream& progress);

}  // namespace hetsim::app
