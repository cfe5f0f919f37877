// Classic task-graph instances (issue 24 item 7, tools/app/task_graph.hpp): hand-written
// schedules from the literature replay at exactly their published makespans, the mapping
// alone (no order) does not, and bad instances end with exit 2 and one line naming the file
// and the task.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tests/fixtures/cli_fixtures.hpp"

namespace {

namespace fs = std::filesystem;
using hetsim::testing::read_file;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;
using Json = nlohmann::json;

using Costs = std::vector<std::vector<double>>;
using Edges = std::map<std::pair<int, int>, double>;
struct Slot {
    int processor;
    double start;
};
using Schedule = std::map<int, Slot>;  // task -> where and when

std::string instance(const Costs& w, const Edges& edges) {
    Json doc;
    doc["processors"] = w.front().size();
    for (std::size_t t = 0; t < w.size(); ++t)
        doc["tasks"].push_back({{"id", t}, {"cost", w[t]}});
    for (const auto& [e, c] : edges)
        doc["edges"].push_back({{"from", e.first}, {"to", e.second}, {"comm", c}});
    return doc.dump();
}

// A placement file (sim/placement_file.hpp) with each processor's order by start time, and,
// with `plan`, the planned times.
std::string placement(const Costs& w, const Schedule& s, bool order, bool plan) {
    Json doc;
    std::map<int, std::vector<std::pair<double, int>>> by_processor;
    for (const auto& [t, slot] : s) {
        doc["ops"].push_back(
            {{"op", "t" + std::to_string(t)}, {"device", "P" + std::to_string(slot.processor)}});
        by_processor[slot.processor].push_back({slot.start, t});
    }
    if (order) {
        Json o = Json::object();
        for (std::size_t p = 0; p < w.front().size(); ++p) {
            auto& list = by_processor[static_cast<int>(p)];
            std::sort(list.begin(), list.end());
            o["P" + std::to_string(p)] = Json::array();
            for (const auto& [start, t] : list)
                o["P" + std::to_string(p)].push_back("t" + std::to_string(t));
        }
        doc["schedule"]["order"] = o;
        if (plan) {
            for (const auto& [t, slot] : s) {
                const double cost =
                    w[static_cast<std::size_t>(t)][static_cast<std::size_t>(slot.processor)];
                doc["schedule"]["planned"]["ops"].push_back({{"op", "t" + std::to_string(t)},
                                                             {"start_s", slot.start},
                                                             {"finish_s", slot.start + cost}});
            }
        }
    }
    return doc.dump();
}

struct Replayed {
    double makespan = -1.0;
    Json schedule;
    std::string output;
};

// Runs `placer` on an instance and returns the schedule the simulator ran.
Replayed place_with(const TempDir& dir, const Costs& w, const Edges& e, const std::string& placer) {
    const fs::path inst = dir.write("instance.json", instance(w, e));
    const fs::path out = dir.path() / "out.json";
    fs::remove(out);
    const auto run =
        run_hetsim("place " + inst.string() + " --placer " + placer + " --out " + out.string());
    Replayed r;
    r.output = run.output;
    EXPECT_EQ(run.exit_code, 0) << run.output;
    if (run.exit_code != 0)
        return r;
    const Json doc = Json::parse(read_file(out));
    r.makespan = doc["makespan"].get<double>();
    r.schedule = doc["schedule"];
    return r;
}

Replayed replay(const TempDir& dir, const Costs& w, const Edges& e, const Schedule& s, bool order) {
    const fs::path plan = dir.write("plan.json", placement(w, s, order, order));
    return place_with(dir, w, e, "replay:" + plan.string());
}

// Topcuoglu, Hariri and Wu, IEEE TPDS 2002, Fig. 2: ten tasks on three processors, and the
// paper's HEFT schedule of it (makespan 80).
const Costs kTopcuogluCosts = {{14, 16, 9}, {13, 19, 18}, {11, 13, 19}, {13, 8, 17},  {12, 13, 10},
                               {13, 16, 9}, {7, 15, 11},  {5, 11, 14},  {18, 12, 20}, {21, 7, 16}};
const Edges kTopcuogluEdges = {{{0, 1}, 18}, {{0, 2}, 12}, {{0, 3}, 9},  {{0, 4}, 11},
                               {{0, 5}, 14}, {{1, 7}, 19}, {{1, 8}, 16}, {{2, 6}, 23},
                               {{3, 7}, 27}, {{3, 8}, 23}, {{4, 8}, 13}, {{5, 7}, 15},
                               {{6, 9}, 17}, {{7, 9}, 11}, {{8, 9}, 13}};
const Schedule kTopcuogluHeft = {{0, {2, 0}},  {1, {0, 27}}, {2, {2, 9}},  {3, {1, 18}},
                                 {4, {2, 28}}, {5, {1, 26}}, {6, {2, 38}}, {7, {0, 57}},
                                 {8, {1, 56}}, {9, {1, 73}}};

// Arabnejad and Barbosa, IEEE TPDS 2014 (PEFT): the paper's sample DAG and its HEFT (133) and
// PEFT (122) schedules.
const Costs kPeftCosts = {{22, 21, 36}, {22, 18, 18}, {32, 27, 43}, {7, 10, 4},  {29, 27, 35},
                          {26, 17, 24}, {14, 25, 30}, {29, 23, 36}, {15, 21, 8}, {13, 16, 33}};
const Edges kPeftEdges = {{{0, 1}, 17}, {{0, 2}, 31}, {{0, 3}, 29}, {{0, 4}, 13}, {{0, 5}, 7},
                          {{1, 7}, 3},  {{1, 8}, 30}, {{2, 6}, 16}, {{3, 7}, 11}, {{3, 8}, 7},
                          {{4, 8}, 57}, {{5, 7}, 5},  {{6, 9}, 9},  {{7, 9}, 42}, {{8, 9}, 7}};
const Schedule kPeftHeft = {{0, {1, 0}},  {1, {0, 38}}, {2, {1, 48}}, {3, {2, 52}},  {4, {1, 21}},
                            {5, {2, 28}}, {6, {1, 75}}, {7, {0, 67}}, {8, {2, 105}}, {9, {0, 120}}};
const Schedule kPeftPeft = {{0, {0, 0}},  {1, {0, 29}}, {2, {0, 51}}, {3, {0, 22}}, {4, {2, 35}},
                            {5, {1, 29}}, {6, {0, 83}}, {7, {1, 54}}, {8, {2, 81}}, {9, {1, 106}}};

TEST(TaskGraph, TopcuoglusHeftScheduleReplaysAt80TaskByTask) {
    TempDir dir;
    const Replayed r = replay(dir, kTopcuogluCosts, kTopcuogluEdges, kTopcuogluHeft, true);
    EXPECT_EQ(r.makespan, 80.0);
    EXPECT_THAT(r.output, HasSubstr("makespan 80 (planned 80)"));
    ASSERT_EQ(r.schedule.size(), 10U);
    for (const Json& entry : r.schedule) {
        const int t = entry["task"].get<int>();
        const Slot& slot = kTopcuogluHeft.at(t);
        EXPECT_EQ(entry["processor"].get<int>(), slot.processor) << "task " << t;
        EXPECT_EQ(entry["start"].get<double>(), slot.start) << "task " << t;
        EXPECT_EQ(entry["finish"].get<double>(),
                  slot.start + kTopcuogluCosts[static_cast<std::size_t>(t)]
                                              [static_cast<std::size_t>(slot.processor)])
            << "task " << t;
    }
}

TEST(TaskGraph, PeftPapersHeftAndPeftSchedulesReplayAt133And122) {
    TempDir dir;
    EXPECT_EQ(replay(dir, kPeftCosts, kPeftEdges, kPeftHeft, true).makespan, 133.0);
    EXPECT_EQ(replay(dir, kPeftCosts, kPeftEdges, kPeftPeft, true).makespan, 122.0);
    // The mapping alone, each processor starting its lowest-numbered ready task first, is
    // not the plan: 160 and 133.
    EXPECT_EQ(replay(dir, kPeftCosts, kPeftEdges, kPeftHeft, false).makespan, 160.0);
    EXPECT_EQ(replay(dir, kPeftCosts, kPeftEdges, kPeftPeft, false).makespan, 133.0);
}

// Every task where and when the paper's schedule has it.
void expect_schedule(const Replayed& r, const Costs& w, const Schedule& published) {
    ASSERT_EQ(r.schedule.size(), published.size());
    for (const Json& entry : r.schedule) {
        const int t = entry["task"].get<int>();
        const Slot& slot = published.at(t);
        EXPECT_EQ(entry["processor"].get<int>(), slot.processor) << "task " << t;
        EXPECT_EQ(entry["start"].get<double>(), slot.start) << "task " << t;
        EXPECT_EQ(
            entry["finish"].get<double>(),
            slot.start + w[static_cast<std::size_t>(t)][static_cast<std::size_t>(slot.processor)])
            << "task " << t;
    }
}

// Issue 28: the list schedulers reproduce the published makespans, task by task where the
// papers print the schedule, and the DES runs each plan in exactly its planned time (these
// instances have no contention).
TEST(TaskGraph, HeftAndCpopGiveTopcuoglus80And86) {
    TempDir dir;
    const Replayed heft = place_with(dir, kTopcuogluCosts, kTopcuogluEdges, "heft");
    EXPECT_EQ(heft.makespan, 80.0);
    EXPECT_THAT(heft.output, HasSubstr("makespan 80 (planned 80)"));
    expect_schedule(heft, kTopcuogluCosts, kTopcuogluHeft);
    const Replayed cpop = place_with(dir, kTopcuogluCosts, kTopcuogluEdges, "cpop");
    EXPECT_EQ(cpop.makespan, 86.0);
    EXPECT_THAT(cpop.output, HasSubstr("makespan 86 (planned 86)"));
    // CPOP's critical path n1, n2, n9, n10 all on P1 (Topcuoglu §4.2: the processor that runs
    // it fastest: 16 + 19 + 12 + 7 = 54 on P1 against 66 on P0 and 63 on P2).
    for (const Json& entry : cpop.schedule) {
        const int t = entry["task"].get<int>();
        if (t == 0 || t == 1 || t == 8 || t == 9)
            EXPECT_EQ(entry["processor"].get<int>(), 1) << "task " << t;
    }
}

TEST(TaskGraph, PeftAndHeftGiveArabnejadAndBarbosas122And133) {
    TempDir dir;
    const Replayed peft = place_with(dir, kPeftCosts, kPeftEdges, "peft");
    EXPECT_EQ(peft.makespan, 122.0);
    EXPECT_THAT(peft.output, HasSubstr("makespan 122 (planned 122)"));
    expect_schedule(peft, kPeftCosts, kPeftPeft);
    const Replayed heft = place_with(dir, kPeftCosts, kPeftEdges, "heft");
    EXPECT_EQ(heft.makespan, 133.0);
    expect_schedule(heft, kPeftCosts, kPeftHeft);
    // ETF: the earliest start first, whatever the finish: worse than both here.
    const Replayed etf = place_with(dir, kPeftCosts, kPeftEdges, "etf");
    EXPECT_THAT(etf.output, HasSubstr(fmt::format("(planned {:g})", etf.makespan)));
    EXPECT_GT(etf.makespan, 122.0);
}

// A generated instance (issue 28 item 3): the same seed gives the same makespan, the DES runs
// each list schedule in its planned time, and bad knobs are exit 2 naming the knob.
TEST(TaskGraph, RandomTaskGraphsRunEveryListSchedulerAtItsPlannedMakespan) {
    for (const char* placer : {"heft", "cpop", "peft", "etf"}) {
        const std::string cmd =
            std::string(
                "place random_taskgraph --processors 3 --set tasks=40 --set ccr=2 "
                "--set seed=7 --placer ") +
            placer;
        const auto a = run_hetsim(cmd), b = run_hetsim(cmd);
        ASSERT_EQ(a.exit_code, 0) << a.output;
        EXPECT_EQ(a.output, b.output);
        // "makespan M (planned M)": the same number twice.
        const auto at = a.output.find("makespan ");
        ASSERT_NE(at, std::string::npos) << a.output;
        const std::string rest = a.output.substr(at + 9);
        const std::string made = rest.substr(0, rest.find(' '));
        EXPECT_THAT(rest, HasSubstr("(planned " + made + ")")) << placer;
    }
    const auto bad = run_hetsim("place random_taskgraph --set wings=2 --placer heft");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_THAT(bad.output, HasSubstr("random_taskgraph has no knob 'wings'"));
}

TEST(TaskGraph, AnyPlacerRunsOnAnInstanceAndEachTaskTakesItsCost) {
    TempDir dir;
    const fs::path inst = dir.write("i.json", instance(kTopcuogluCosts, kTopcuogluEdges));
    const fs::path out = dir.path() / "o.json";
    const auto run =
        run_hetsim("place " + inst.string() + " --placer random --out " + out.string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const Json doc = Json::parse(read_file(out));
    double last = 0.0;
    for (const Json& e : doc["schedule"]) {
        const auto t = e["task"].get<std::size_t>();
        const auto p = e["processor"].get<std::size_t>();
        EXPECT_EQ(e["finish"].get<double>() - e["start"].get<double>(), kTopcuogluCosts[t][p]);
        last = std::max(last, e["finish"].get<double>());
    }
    EXPECT_EQ(doc["makespan"].get<double>(), last);
}

TEST(TaskGraph, BadInstancesAreExit2NamingTheFileAndTheTask) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"processors": 2, "tasks": [{"id": 0, "cost": [1, 2]}, {"id": 1, "cost": [1]}]})",
         "tasks[1].cost: task 1: expected 2 costs, one per processor, got 1"},
        {R"({"processors": 2, "tasks": [{"id": 0, "cost": [1, -2]}]})",
         "tasks[0].cost[1]: task 0's cost on processor 1 is -2; expected a time in seconds from 0 "
         "to 4.61e+06"},
        {R"({"processors": 1, "tasks": [{"id": 0, "cost": ["NaN"]}]})",
         "task 0's cost on processor 0 is \"NaN\""},
        {R"({"processors": 1, "tasks": [{"id": 0, "cost": [1]}],
             "edges": [{"from": 0, "to": 7, "comm": 1}]})",
         "edges[0].to: task 7 is not in the instance"},
        {R"({"processors": 1, "tasks": [{"id": 0, "cost": [1]}, {"id": 1, "cost": [1]}],
             "edges": [{"from": 0, "to": 1, "comm": 1}, {"from": 1, "to": 0, "comm": 1}]})",
         "edges: the edges form a cycle through task 0"},
        {R"({"processors": 1, "tasks": [{"id": 0, "cost": [1]}, {"id": 0, "cost": [2]}]})",
         "tasks[1]: task 0 is listed twice"},
        {R"({"processors": 0, "tasks": []})", "processors: expected the number of processors"},
    };
    for (const auto& [text, message] : cases) {
        TempDir dir;
        const fs::path inst = dir.write("bad.json", text);
        const auto run = run_hetsim("place " + inst.string() + " --placer random --out " +
                                    (dir.path() / "o.json").string());
        EXPECT_EQ(run.exit_code, 2) << run.output;
        EXPECT_THAT(run.output, HasSubstr("bad.json"));
        EXPECT_THAT(run.output, HasSubstr(message));
        EXPECT_FALSE(fs::exists(dir.path() / "o.json"));
    }
}

// The Standard Task Graph Set's text format: 4 real tasks between the dummy entry 0 and exit
// 5 on 2 identical processors, no communication. t1 (3) then t3 (4) on P0 while t2 (2) runs on
// P1; t4 (1) waits for t2 and t3: 8. All on P0: 0 + 3 + 2 + 4 + 1 = 10.
TEST(TaskGraph, AStandardTaskGraphSetFileRunsOnIdenticalProcessors) {
    TempDir dir;
    const fs::path stg = dir.write("four.stg",
                                   "4\n0 0 0\n1 3 1 0\n2 2 1 0\n3 4 1 1\n"
                                   "4 1 2 2 3\n5 0 1 4\n# a comment\n");
    auto run_with = [&](const std::string& ops, const std::string& order) {
        const fs::path plan = dir.write(
            "p.json", R"({"ops": [)" + ops + R"(], "schedule": {"order": )" + order + "}}");
        const fs::path out = dir.path() / "o.json";
        const auto run = run_hetsim("place " + stg.string() + " --processors 2 --placer replay:" +
                                    plan.string() + " --out " + out.string());
        EXPECT_EQ(run.exit_code, 0) << run.output;
        return run.exit_code == 0 ? Json::parse(read_file(out))["makespan"].get<double>() : -1.0;
    };
    auto op = [](int t, int p) {
        return R"({"op": "t)" + std::to_string(t) + R"(", "device": "P)" + std::to_string(p) +
               R"("})";
    };
    EXPECT_EQ(run_with(op(0, 0) + "," + op(1, 0) + "," + op(2, 1) + "," + op(3, 0) + "," +
                           op(4, 0) + "," + op(5, 0),
                       R"({"P0": ["t0", "t1", "t3", "t4", "t5"], "P1": ["t2"]})"),
              8.0);
    EXPECT_EQ(run_with(op(0, 0) + "," + op(1, 0) + "," + op(2, 0) + "," + op(3, 0) + "," +
                           op(4, 0) + "," + op(5, 0),
                       R"({"P0": ["t0", "t1", "t2", "t3", "t4", "t5"], "P1": []})"),
              10.0);
    // Errors name the file and the line; the processors must be given.
    const auto no_processors = run_hetsim("place " + stg.string() + " --placer random --out " +
                                          (dir.path() / "x").string());
    EXPECT_EQ(no_processors.exit_code, 2);
    EXPECT_THAT(no_processors.output, HasSubstr("give --processors N"));
    const fs::path bad = dir.write("bad.stg", "2\n0 0 0\n2 1 1 0\n");
    const auto misnumbered =
        run_hetsim("place " + bad.string() + " --processors 2 --placer random");
    EXPECT_EQ(misnumbered.exit_code, 2);
    EXPECT_THAT(misnumbered.output, HasSubstr("bad.stg"));
    EXPECT_THAT(misnumbered.output, HasSubstr("expected task 1 here, got task 2"));
}

// WfCommons' WfFormat: A (2 s) writes x (1 GB) for B (3 s) and y (0.5 GB) for C (1 s). A and B
// on P0, C on P1: y crosses the link. At 1 GB/s C runs 2.5-3.5 and B ends at 5; at 100 MB/s y
// takes 5 s, C runs 7-8. The 1.4 layout (runtimes and files on the tasks) reads the same.
TEST(TaskGraph, AWfCommonsWorkflowRunsItsRuntimesAndCarriesItsFiles) {
    TempDir dir;
    const std::string v15 = R"({"name": "w", "schemaVersion": "1.5", "workflow": {
      "specification": {
        "tasks": [{"name": "a", "id": "A", "parents": [], "children": ["B", "C"],
                   "inputFiles": [], "outputFiles": ["x", "y"]},
                  {"name": "b", "id": "B", "parents": ["A"], "children": [],
                   "inputFiles": ["x"], "outputFiles": []},
                  {"name": "c", "id": "C", "parents": ["A"], "children": [],
                   "inputFiles": ["y"], "outputFiles": []}],
        "files": [{"id": "x", "sizeInBytes": 1000000000}, {"id": "y", "sizeInBytes": 500000000}]},
      "execution": {"makespanInSeconds": 6, "executedAt": "2026-01-01T00:00:00Z",
        "tasks": [{"id": "A", "runtimeInSeconds": 2}, {"id": "B", "runtimeInSeconds": 3},
                  {"id": "C", "runtimeInSeconds": 1}]}}})";
    const std::string v14 = R"({"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": [
      {"name": "A", "runtimeInSeconds": 2, "parents": [],
       "files": [{"link": "output", "name": "x", "sizeInBytes": 1000000000},
                 {"link": "output", "name": "y", "sizeInBytes": 500000000}]},
      {"name": "B", "runtimeInSeconds": 3, "parents": ["A"],
       "files": [{"link": "input", "name": "x", "sizeInBytes": 1000000000}]},
      {"name": "C", "runtimeInSeconds": 1, "parents": ["A"],
       "files": [{"link": "input", "name": "y", "sizeInBytes": 500000000}]}]}})";
    const fs::path plan =
        dir.write("p.json", R"({"ops": [{"op": "tA", "device": "P0"}, {"op": "tB", "device": "P0"},
                              {"op": "tC", "device": "P1"}],
                     "schedule": {"order": {"P0": ["tA", "tB"], "P1": ["tC"]}}})");
    for (const std::string& text : {v15, v14}) {
        const fs::path wf = dir.write("wf.json", text);
        auto makespan = [&](const std::string& extra, double* c_start) {
            const fs::path out = dir.path() / "o.json";
            const auto run = run_hetsim("place " + wf.string() +
                                        " --processors 2 --placer replay:" + plan.string() +
                                        " --out " + out.string() + extra);
            EXPECT_EQ(run.exit_code, 0) << run.output;
            if (run.exit_code != 0)
                return -1.0;
            const Json doc = Json::parse(read_file(out));
            for (const Json& e : doc["schedule"]) {
                if (e["task"] == "C")
                    *c_start = e["start"].get<double>();
            }
            return doc["makespan"].get<double>();
        };
        double c_start = -1.0;
        EXPECT_DOUBLE_EQ(makespan("", &c_start), 5.0);
        EXPECT_DOUBLE_EQ(c_start, 2.5);
        EXPECT_DOUBLE_EQ(makespan(" --bandwidth '100 MB/s'", &c_start), 8.0);
        EXPECT_DOUBLE_EQ(c_start, 7.0);
    }
    // No processors, an unknown parent: exit 2 naming the file and the task.
    const fs::path wf = dir.write("wf.json", v15);
    const auto none = run_hetsim("place " + wf.string() + " --placer random");
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_THAT(none.output, HasSubstr("give --processors N"));
    std::string orphan = v15;
    orphan.replace(orphan.find(R"("parents": ["A"])"), 16, R"("parents": ["Z"])");
    const auto bad = run_hetsim("place " + dir.write("bad.json", orphan).string() +
                                " --processors 2 --placer random");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_THAT(bad.output, HasSubstr("bad.json"));
    EXPECT_THAT(bad.output, HasSubstr("task 'B' names parent 'Z', which is not in the workflow"));
}

}  // namespace
