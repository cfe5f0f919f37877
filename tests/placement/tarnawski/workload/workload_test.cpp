// The tarnawski2020 workload and split formats: round trips and error messages.
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "placement/tarnawski/workload/workload.hpp"

namespace hetsim::placement::tarnawski {
namespace {

using nlohmann::json;

const char* kSmall = R"({
  "maxSizePerFPGA": 100.5, "maxFPGAs": 2, "maxCPUs": 1,
  "nodes": [
    {"id": 7, "supportedOnFpga": 1, "cpuLatency": 4, "fpgaLatency": 1.5,
     "isBackwardNode": 0, "colorClass": 3, "size": 10, "name": "a"},
    {"id": 9, "supportedOnFpga": false, "cpuLatency": 2.25, "fpgaLatency": 0,
     "isBackwardNode": true, "size": 0, "layerId": 4}
  ],
  "edges": [{"sourceId": 7, "destId": 9, "cost": 0.5, "size": 64}]
})";

// A per-process temporary file name (tests may run in parallel).
std::filesystem::path temp_file(const std::string& stem) {
    return std::filesystem::temp_directory_path() /
           (stem + "_" + std::to_string(::getpid()) + ".json");
}

std::string error_of(const std::string& text) {
    try {
        parse_workload(json::parse(text), "in.json");
    } catch (const WorkloadError& e) {
        return e.what();
    }
    return "";
}

TEST(TarnawskiWorkload, ParsesBooleansAsNumbersAndTheFormatsUnreadFields) {
    const Workload w = parse_workload(json::parse(kSmall), "small");
    EXPECT_DOUBLE_EQ(w.max_size_per_accelerator, 100.5);
    EXPECT_EQ(w.max_accelerators, 2);
    EXPECT_EQ(w.max_cpus, 1);
    ASSERT_EQ(w.node_count(), 2u);
    EXPECT_EQ(w.id[1], 9);
    EXPECT_EQ(w.supported_on_accelerator[0], 1);
    EXPECT_EQ(w.supported_on_accelerator[1], 0);
    EXPECT_EQ(w.is_backward[1], 1);
    EXPECT_EQ(w.has_color_class[0], 1);
    EXPECT_EQ(w.color_class[0], 3);
    EXPECT_EQ(w.has_color_class[1], 0);
    EXPECT_DOUBLE_EQ(w.cpu_latency[1], 2.25);
    ASSERT_EQ(w.edge_count(), 1u);
    EXPECT_EQ(w.edge_source[0], 0);
    EXPECT_EQ(w.edge_dest[0], 1);
    EXPECT_DOUBLE_EQ(w.edge_cost[0], 0.5);
    EXPECT_EQ(w.index_of(9), 1);
    EXPECT_THROW(w.index_of(8), WorkloadError);
}

TEST(TarnawskiWorkload, RoundTripsThroughJsonAndFile) {
    const Workload w = parse_workload(json::parse(kSmall), "small");
    const json once = workload_to_json(w);
    const Workload back = parse_workload(once, "again");
    EXPECT_EQ(workload_to_json(back), once);

    const auto path = temp_file("tarnawski_workload_test");
    write_workload(w, path);
    const Workload from_file = read_workload(path);
    EXPECT_EQ(workload_to_json(from_file), once);
    std::filesystem::remove(path);
}

TEST(TarnawskiWorkload, ErrorsNameFileAndLocation) {
    EXPECT_NE(error_of("[1]").find("in.json: /: expected an object"), std::string::npos);
    const json base = json::parse(kSmall);
    auto broken = [&](auto edit) {
        json j = base;
        edit(j);
        return error_of(j.dump());
    };
    auto msg = broken([](json& j) { j.erase("maxFPGAs"); });
    EXPECT_NE(msg.find("in.json: /: missing required field \"maxFPGAs\""), std::string::npos)
        << msg;
    msg = broken([](json& j) { j["nodes"][1]["cpuLatency"] = "slow"; });
    EXPECT_NE(msg.find("in.json: /nodes/1/cpuLatency: expected a number"), std::string::npos)
        << msg;
    msg = broken([](json& j) { j["nodes"][0]["isBackwardNode"] = 2; });
    EXPECT_NE(msg.find("/nodes/0/isBackwardNode: expected a boolean"), std::string::npos) << msg;
    msg = broken([](json& j) { j["nodes"][1]["id"] = 7; });
    EXPECT_NE(msg.find("/nodes/1/id: duplicate node id 7"), std::string::npos) << msg;
    msg = broken([](json& j) { j["edges"][0]["destId"] = 42; });
    EXPECT_NE(msg.find("/edges/0/destId: no node with id 42"), std::string::npos) << msg;
    msg = broken([](json& j) { j["edges"][0]["cost"] = -1; });
    EXPECT_NE(msg.find("/edges/0/cost: expected a non-negative number"), std::string::npos) << msg;
    msg = broken([](json& j) {
        j["nodes"] = json::array();
        j["edges"] = json::array();
    });
    EXPECT_NE(msg.find("in.json: /nodes: expected at least one node"), std::string::npos) << msg;
    // Fields outside the published format were ignored: a typo ("objective", "cpuLatncy") too.
    msg = broken([](json& j) { j["objective"] = "bogus"; });
    EXPECT_NE(msg.find("in.json: /objective: unknown field \"objective\"; fields: maxSizePerFPGA"),
              std::string::npos)
        << msg;
    msg = broken([](json& j) { j["nodes"][1]["cpuLatncy"] = 1; });
    EXPECT_NE(msg.find("/nodes/1/cpuLatncy: unknown field"), std::string::npos) << msg;
    msg = broken([](json& j) { j["edges"][0]["bogus"] = 1; });
    EXPECT_NE(msg.find("/edges/0/bogus: unknown field"), std::string::npos) << msg;
    msg = broken([](json& j) { j["nodes"][0].erase("fpgaLatency"); });
    EXPECT_NE(msg.find("/nodes/0: missing required field \"fpgaLatency\""), std::string::npos)
        << msg;

    try {
        read_workload("/nonexistent/dir/w.json");
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/w.json: cannot open"),
                  std::string::npos);
    }
    const auto path = temp_file("tarnawski_bad");
    std::ofstream(path) << "{\"maxFPGAs\": ";
    try {
        read_workload(path);
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_NE(std::string(e.what()).find("invalid JSON"), std::string::npos);
    }
    std::filesystem::remove(path);
}

TEST(TarnawskiWorkload, SplitRoundTripInExpertsFormat) {
    Split s;
    s.cpus = {{1, 2}};
    s.accelerators = {{3}, {}, {4, 5}};
    s.objective = 12.5;
    const json j = split_to_json(s);
    EXPECT_EQ(j["fpgas"][2]["nodes"], json::array({4, 5}));
    EXPECT_EQ(j["objective"], 12.5);
    const auto path = temp_file("tarnawski_split_test");
    write_split(s, path);
    const Split back = read_split(path);
    EXPECT_EQ(back.cpus, s.cpus);
    EXPECT_EQ(back.accelerators, s.accelerators);
    EXPECT_DOUBLE_EQ(back.objective, 12.5);
    std::filesystem::remove(path);
    try {
        parse_split(json::parse(R"({"cpus": [], "fpgas": [{"nodes": [1, "x"]}]})"), "s.json");
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_NE(std::string(e.what()).find("s.json: /fpgas/0/nodes/1: expected an integer"),
                  std::string::npos)
            << e.what();
    }
}

TEST(TarnawskiWorkload, SplitReplicaCountsRoundTripOnlyWhenPresent) {
    Split s;
    s.cpus = {{1}};
    s.accelerators = {{2, 3}, {}, {}};
    EXPECT_FALSE(s.replicated());
    EXPECT_FALSE(split_to_json(s)["fpgas"][0].contains("replicas"));
    s.cpu_replicas = {1};
    s.accelerator_replicas = {3, 0, 0};
    EXPECT_TRUE(s.replicated());
    const json j = split_to_json(s);
    EXPECT_EQ(j["fpgas"][0]["replicas"], 3);
    EXPECT_EQ(j["fpgas"][1]["replicas"], 0);
    EXPECT_EQ(j["cpus"][0]["replicas"], 1);
    const Split back = parse_split(j, "s.json");
    EXPECT_EQ(back.accelerator_replicas, s.accelerator_replicas);
    EXPECT_EQ(back.cpu_replicas, s.cpu_replicas);
    // The experts' files carry no counts: nothing is invented for them.
    const Split plain = parse_split(json::parse(R"({"cpus": [{"nodes": [1]}], "fpgas": []})"), "p");
    EXPECT_TRUE(plain.cpu_replicas.empty());
    try {
        parse_split(json::parse(R"({"cpus": [{"nodes": [1], "replicas": -2}], "fpgas": []})"),
                    "s.json");
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_NE(std::string(e.what()).find("s.json: /cpus/0/replicas: expected a replica count"),
                  std::string::npos)
            << e.what();
    }
}

TEST(TarnawskiWorkload, ReadsSharedExpertSplits) {
    const std::filesystem::path dir = std::filesystem::path(HETSIM_SOURCE_DIR) / ".." / "shared" /
                                      "workloads" / "tarnawski2020" / "experts";
    if (!std::filesystem::exists(dir))
        GTEST_SKIP() << "shared workloads not found at " << dir;
    const Split s = read_split(dir / "bert24_inference_expert.json");
    EXPECT_FALSE(s.accelerators.empty());
}

}  // namespace
}  // namespace hetsim::placement::tarnawski
