// Workloads no split can place (no device, a node no device takes, a cyclic graph) are refused
// once, by the loader (naming the file and the JSON location) and by SplitSolver::solve for
// every registered solver (naming the solver), and a solver that finds no split at all reports
// it as a SolverError: never a crash, never an internal error, never a silent answer.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/tarnawski_placer.hpp"
#include "placement/tarnawski/workload/workload.hpp"
#include "tests/placement/tarnawski/test_support.hpp"

namespace hetsim::placement::tarnawski {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// One node (id 1) on no device: the first hostile-input reproduction.
const char* kNoDevice = R"({"maxSizePerFPGA": 1, "maxFPGAs": 0, "maxCPUs": 0,
  "nodes": [{"id": 1, "supportedOnFpga": true, "cpuLatency": 1, "fpgaLatency": 1,
             "isBackwardNode": false}],
  "edges": []})";

// Two nodes feeding each other, on one accelerator and one CPU.
const char* kTwoCycle = R"({"maxSizePerFPGA": 1, "maxFPGAs": 1, "maxCPUs": 1,
  "nodes": [{"id": 1, "supportedOnFpga": true, "cpuLatency": 1, "fpgaLatency": 1,
             "isBackwardNode": false},
            {"id": 2, "supportedOnFpga": true, "cpuLatency": 1, "fpgaLatency": 1,
             "isBackwardNode": false}],
  "edges": [{"sourceId": 1, "destId": 2, "cost": 1}, {"sourceId": 2, "destId": 1, "cost": 1}]})";

std::string load_error(const json& j) {
    try {
        parse_workload(j, "w.json");
    } catch (const WorkloadError& e) {
        return e.what();
    }
    return "";
}

std::string load_error(const char* text) {
    return load_error(json::parse(text));
}

// kNoDevice with some fields changed.
json no_device_with(const std::function<void(json&)>& change) {
    json j = json::parse(kNoDevice);
    change(j);
    return j;
}

TEST(TarnawskiUnplaceable, LoaderRefusesAWorkloadWithoutADevice) {
    EXPECT_EQ(load_error(kNoDevice),
              "w.json: /maxCPUs: no device to place the nodes on: maxFPGAs and maxCPUs are both "
              "0; expected maxCPUs >= 1 or maxFPGAs >= 1");
    // No accelerator memory either: still no device.
    EXPECT_THAT(load_error(no_device_with([](json& j) { j["maxSizePerFPGA"] = 0; })),
                StartsWith("w.json: /maxCPUs: no device to place the nodes on"));
}

TEST(TarnawskiUnplaceable, LoaderRefusesANodeNoAcceleratorTakesWithoutACpu) {
    // Unsupported on accelerators (§3 footnote 1).
    EXPECT_EQ(load_error(no_device_with([](json& j) {
                  j["maxFPGAs"] = 2;
                  j["nodes"][0]["supportedOnFpga"] = false;
              })),
              "w.json: /nodes/0/supportedOnFpga: node 1 cannot run on an accelerator and the "
              "workload has no CPU (maxCPUs 0); expected maxCPUs >= 1 or the node supported on "
              "accelerators");
    // Larger than M (constraint (3)).
    EXPECT_EQ(load_error(no_device_with([](json& j) {
                  j["maxFPGAs"] = 1;
                  j["maxSizePerFPGA"] = 0;
                  j["nodes"][0]["size"] = 3;
              })),
              "w.json: /nodes/0/size: node 1 needs 3 B, more than an accelerator holds "
              "(maxSizePerFPGA 0 B), and the workload has no CPU (maxCPUs 0); expected maxCPUs "
              ">= 1 or maxSizePerFPGA >= 3");
    // A colour class shares one device (App. B): 2 + 2 B in a class, M = 3.
    EXPECT_EQ(load_error(no_device_with([](json& j) {
                  j["maxFPGAs"] = 2;
                  j["maxSizePerFPGA"] = 3;
                  j["nodes"][0]["size"] = 2;
                  j["nodes"][0]["colorClass"] = 5;
                  json other = j["nodes"][0];
                  other["id"] = 2;
                  j["nodes"].push_back(other);
              })),
              "w.json: /nodes/1/colorClass: colour class 5 needs 4 B on one device up to node 2, "
              "more than an accelerator holds (maxSizePerFPGA 3 B), and the workload has no CPU "
              "(maxCPUs 0); expected maxCPUs >= 1 or maxSizePerFPGA >= 4");
}

TEST(TarnawskiUnplaceable, LoaderAcceptsWhatSomeSplitPlaces) {
    // M = 0 holds nodes of size 0 (a missing size is 0, as in the published code).
    EXPECT_EQ(load_error(no_device_with([](json& j) {
                  j["maxFPGAs"] = 1;
                  j["maxSizePerFPGA"] = 0;
              })),
              "");
    // CPUs only.
    EXPECT_EQ(load_error(no_device_with([](json& j) { j["maxCPUs"] = 1; })), "");
    // With a CPU, a node no accelerator takes runs there.
    EXPECT_EQ(load_error(no_device_with([](json& j) {
                  j["maxCPUs"] = 1;
                  j["maxFPGAs"] = 1;
                  j["nodes"][0]["supportedOnFpga"] = false;
                  j["nodes"][0]["size"] = 10;
              })),
              "");
}

// A chain of `n` nodes with ids 1..n and the edges i -> i+1, on one accelerator and one CPU.
json chain(int n) {
    json j = {{"maxSizePerFPGA", 10}, {"maxFPGAs", 1}, {"maxCPUs", 1}};
    for (int i = 1; i <= n; ++i)
        j["nodes"].push_back({{"id", i},
                              {"supportedOnFpga", true},
                              {"cpuLatency", 1},
                              {"fpgaLatency", 1},
                              {"isBackwardNode", false}});
    j["edges"] = json::array();
    for (int i = 1; i < n; ++i)
        j["edges"].push_back({{"sourceId", i}, {"destId", i + 1}, {"cost", 1}});
    return j;
}

TEST(TarnawskiUnplaceable, LoaderRefusesACyclicGraphNamingAnEdgeOfTheCycle) {
    EXPECT_EQ(load_error(kTwoCycle),
              "w.json: /edges/1: the graph has a cycle through nodes 1 -> 2 -> 1; expected a DAG "
              "(tarnawski2020 §3)");
    // A cycle behind a DAG part: 1 -> 2 -> 3 -> 4, 4 -> 2.
    json j = chain(4);
    j["edges"].push_back({{"sourceId", 4}, {"destId", 2}, {"cost", 1}});
    EXPECT_EQ(load_error(j),
              "w.json: /edges/3: the graph has a cycle through nodes 2 -> 3 -> 4 -> 2; expected a "
              "DAG (tarnawski2020 §3)");
    // A long cycle is named by its first nodes, the one closing it and its length.
    j = chain(20);
    j["edges"].push_back({{"sourceId", 20}, {"destId", 1}, {"cost", 1}});
    const std::string message = load_error(j);
    EXPECT_EQ(message,
              "w.json: /edges/19: the graph has a cycle of 20 nodes through 1 -> 2 -> 3 -> 4 -> 5 "
              "-> 6 -> 7 -> 8 -> ... -> 20 -> 1; expected a DAG (tarnawski2020 §3)");
    EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(TarnawskiUnplaceable, LoaderAcceptsDagsWhoseColourClassesContractToACycle) {
    // App. B: u -> v -> w with u and w colocated contracts to a cycle {u, w} <-> v. The input is
    // a DAG, so it loads; the solvers contract the strongly connected component.
    json j = chain(3);
    j["nodes"][0]["colorClass"] = 7;
    j["nodes"][2]["colorClass"] = 7;
    // A diamond and parallel edges are no cycle either.
    j["edges"].push_back({{"sourceId", 1}, {"destId", 3}, {"cost", 1}});
    j["edges"].push_back({{"sourceId", 1}, {"destId", 2}, {"cost", 2}});
    EXPECT_EQ(load_error(j), "");
}

TEST(TarnawskiUnplaceable, EverySharedWorkloadLoads) {
    int loaded = 0;
    for (const char* folder : {"throughput", "latency"}) {
        const std::filesystem::path dir = kSharedWorkloads / folder;
        if (!std::filesystem::exists(dir))
            GTEST_SKIP() << "shared workloads not found at " << dir;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() != ".json")
                continue;
            EXPECT_NO_THROW(read_workload(entry.path())) << entry.path();
            ++loaded;
        }
    }
    EXPECT_GE(loaded, 10);
}

// ---- every registered split solver --------------------------------------------------------

// A per-process temporary split file for tarnawski.expert (tests may run in parallel).
class ExpertSplitFile {
public:
    explicit ExpertSplitFile(const Split& split)
        : path_(std::filesystem::temp_directory_path() /
                ("tarnawski_unplaceable_" + std::to_string(::getpid()) + ".json")) {
        write_split(split, path_);
    }
    ~ExpertSplitFile() { std::filesystem::remove(path_); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// Every registered solver, tarnawski.expert reading `expert`.
std::vector<std::unique_ptr<SplitSolver>> every_solver(const std::filesystem::path& expert) {
    register_split_solvers();
    const SplitSolverRegistry& registry = SplitSolverRegistry::instance();
    std::vector<std::unique_ptr<SplitSolver>> solvers;
    for (const SplitSolverInfo* info : registry.all()) {
        solvers.push_back(registry.create(info->name() == "tarnawski.expert"
                                              ? info->name() + ":" + expert.string()
                                              : info->name()));
    }
    EXPECT_GE(solvers.size(), 11u);
    return solvers;
}

SolveOptions options_for(SplitObjective objective) {
    SolveOptions options;
    options.objective = objective;
    options.time_limit_s = 10.0;
    return options;
}

// Workloads built in code, where no loader stands between them and the solvers.
Workload no_device() {
    Workload w;
    w.max_size_per_accelerator = 1.0;
    w.add_node(1, 1.0, 1.0);
    return w;
}

Workload no_cpu_and_unsupported() {
    Workload w;
    w.max_accelerators = 2;
    w.max_size_per_accelerator = 10.0;
    w.add_node(1, 1.0, 1.0, 1.0);
    w.add_node(2, 1.0, 1.0, 1.0, false, /*supported=*/false);
    w.add_edge(0, 1, 1.0);
    return w;
}

Workload no_cpu_and_too_big() {
    Workload w;
    w.max_accelerators = 1;
    w.max_size_per_accelerator = 0.0;
    w.add_node(1, 1.0, 1.0, 1.0);
    return w;
}

Workload two_cycle() {
    Workload w;
    w.max_accelerators = 1;
    w.max_cpus = 1;
    w.max_size_per_accelerator = 1.0;
    w.add_node(1, 1.0, 1.0);
    w.add_node(2, 1.0, 1.0);
    w.add_edge(0, 1, 1.0);
    w.add_edge(1, 0, 1.0);
    return w;
}

TEST(TarnawskiUnplaceable, EverySolverRefusesAnUnplaceableWorkloadByName) {
    struct Case {
        const char* what;
        Workload workload;
        const char* message;  // after "<solver>: workload "
    };
    const Case cases[] = {
        {"no device", no_device(),
         "/maxCPUs: no device to place the nodes on: maxFPGAs and maxCPUs are both 0; expected "
         "maxCPUs >= 1 or maxFPGAs >= 1"},
        {"no CPU, unsupported node", no_cpu_and_unsupported(),
         "/nodes/1/supportedOnFpga: node 2 cannot run on an accelerator and the workload has no "
         "CPU (maxCPUs 0)"},
        {"no CPU, node over M", no_cpu_and_too_big(),
         "/nodes/0/size: node 1 needs 1 B, more than an accelerator holds (maxSizePerFPGA 0 B)"},
        {"cycle", two_cycle(),
         "/edges/1: the graph has a cycle through nodes 1 -> 2 -> 1; expected a DAG "
         "(tarnawski2020 §3)"},
    };
    Split everything_on_cpu;
    everything_on_cpu.cpus = {{1, 2}};
    const ExpertSplitFile expert(everything_on_cpu);
    for (const auto& solver : every_solver(expert.path())) {
        for (const Case& c : cases) {
            for (SplitObjective objective : {SplitObjective::throughput, SplitObjective::latency}) {
                SCOPED_TRACE(solver->name() + ", " + c.what +
                             (objective == SplitObjective::latency ? ", latency" : ", throughput"));
                try {
                    solver->solve(c.workload, options_for(objective));
                    ADD_FAILURE() << "accepted";
                } catch (const SolverError& e) {
                    EXPECT_THAT(e.what(), StartsWith(solver->name() + ": workload " + c.message));
                    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
                }
            }
        }
    }
}

// Placeable node by node but not as a whole: no CPU, and two nodes of 1 B for one accelerator
// of M = 1. A legitimately infeasible instance: a solver either returns a complete split scored
// ∞ (a heuristic's split over memory) or says it found none, by name.
TEST(TarnawskiUnplaceable, EverySolverAnswersAnInstanceThatDoesNotFitWithoutACpu) {
    Workload w;
    w.max_accelerators = 1;
    w.max_size_per_accelerator = 1.0;
    w.add_node(1, 1.0, 1.0, 1.0);
    w.add_node(2, 1.0, 1.0, 1.0);
    w.add_edge(0, 1, 1.0);
    ASSERT_FALSE(find_unplaceable(w).has_value());
    Split both_on_the_accelerator;
    both_on_the_accelerator.accelerators = {{1, 2}};
    const ExpertSplitFile expert(both_on_the_accelerator);
    int refused = 0;
    for (const auto& solver : every_solver(expert.path())) {
        for (SplitObjective objective : {SplitObjective::throughput, SplitObjective::latency}) {
            SCOPED_TRACE(solver->name() +
                         (objective == SplitObjective::latency ? ", latency" : ", throughput"));
            try {
                const SolveResult r = solver->solve(w, options_for(objective));
                EXPECT_TRUE(std::isinf(r.objective)) << r.objective;
                EXPECT_NO_THROW(to_assignment(w, r.split));
            } catch (const SolverError& e) {
                EXPECT_THAT(e.what(), StartsWith(solver->name() + ": "));
                EXPECT_THAT(e.what(), HasSubstr("no feasible split"));
                EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
                ++refused;
            }
        }
    }
    EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
