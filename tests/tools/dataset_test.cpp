// `hetsim dataset build`: graph counts, split sizes, determinism, the shipped mcm2022 spec's
// shape, and bad specs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "sim/workloads/json_graph.hpp"
#include "tests/fixtures/cli_fixtures.hpp"

namespace {

using hetsim::testing::Outcome;
using hetsim::testing::read_file;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

// 2 lstm (seq_len 2, 3) + 1 gru + 3 random DAGs = 6 graphs.
constexpr const char* kSpec = R"(name: small
seed: 5
split: {train: 4, validation: 1, test: 1}
sources:
  - {model: lstm, knobs: {seq_len: [2, 3], hidden: 16, input: 8}}
  - {model: gru, knobs: {seq_len: 2, hidden: 16, input: 8}}
  - random_dag: {count: 3, knobs: {nodes: [10, 20], width: [2, 4], hidden: 8}}
)";

Outcome build(const fs::path& spec, const fs::path& out, const std::string& extra = "") {
    return run_hetsim("dataset build --spec " + spec.string() + " --out " + out.string() + extra);
}

TEST(CliDataset, CountsSplitsAndGraphFiles) {
    TempDir dir;
    const auto spec = dir.write("small.yaml", kSpec);
    const auto o = build(spec, dir.path() / "a");
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("dataset small: 6 graphs"));
    const auto manifest = nlohmann::json::parse(read_file(dir.path() / "a" / "manifest.json"));
    EXPECT_EQ(manifest.at("name"), "small");
    EXPECT_EQ(manifest.at("seed"), 5);
    const auto& graphs = manifest.at("graphs");
    ASSERT_EQ(graphs.size(), 6u);
    EXPECT_EQ(graphs[0].at("name"), "lstm_seq_len2_hidden16_input8");
    EXPECT_EQ(graphs[1].at("name"), "lstm_seq_len3_hidden16_input8");
    EXPECT_EQ(graphs[2].at("source"), "gru(layers=1,hidden=16,input=8,seq_len=2,batch=1,fused=0)");
    EXPECT_EQ(graphs[3].at("name"), "random_dag_000");
    std::map<std::string, int> split_sizes;
    for (const auto& g : graphs) {
        ++split_sizes[g.at("split").get<std::string>()];
        // The graph file is a hetsim JSON graph with the manifest's statistics.
        const auto graph = hetsim::sim::workloads::load_json_graph(
            (dir.path() / "a" / g.at("file").get<std::string>()).string());
        EXPECT_EQ(g.at("nodes"), graph.op_count());
        EXPECT_EQ(g.at("edges"), graph.edge_count());
        EXPECT_EQ(g.at("flops"), graph.total_flops());
        EXPECT_EQ(g.at("param_bytes"), graph.total_weight_bytes());
        EXPECT_TRUE(g.at("ideals").is_null() || g.at("ideals").get<int>() > graph.op_count());
    }
    EXPECT_EQ(split_sizes,
              (std::map<std::string, int>{{"train", 4}, {"validation", 1}, {"test", 1}}));
    // random_dag nodes drawn from [10, 20] (compute ops, so the graph has at least that many).
    for (int i = 3; i < 6; ++i)
        EXPECT_GE(graphs[i].at("nodes").get<int>(), 10);
}

TEST(CliDataset, SameSpecAndSeedGiveTheSameDataset) {
    TempDir dir;
    const auto spec = dir.write("small.yaml", kSpec);
    ASSERT_EQ(build(spec, dir.path() / "a").exit_code, 0);
    ASSERT_EQ(build(spec, dir.path() / "b").exit_code, 0);
    const std::string a = read_file(dir.path() / "a" / "manifest.json");
    EXPECT_EQ(a, read_file(dir.path() / "b" / "manifest.json"));
    EXPECT_EQ(read_file(dir.path() / "a" / "graphs" / "random_dag_002.json"),
              read_file(dir.path() / "b" / "graphs" / "random_dag_002.json"));
    // Another seed draws other random DAGs (their generator seeds are in the sources).
    ASSERT_EQ(build(spec, dir.path() / "c", " --seed 6").exit_code, 0);
    const auto c = nlohmann::json::parse(read_file(dir.path() / "c" / "manifest.json"));
    EXPECT_EQ(c.at("seed"), 6);
    EXPECT_NE(nlohmann::json::parse(a).at("graphs")[3].at("source"),
              c.at("graphs")[3].at("source"));
}

TEST(CliDataset, FractionsAreProportions) {
    TempDir dir;
    std::string spec = kSpec;
    const std::string counts = "{train: 4, validation: 1, test: 1}";
    spec.replace(spec.find(counts), counts.size(), "{train: 0.5, test: 0.5}");
    const auto file = dir.write("fractions.yaml", spec);
    ASSERT_EQ(build(file, dir.path() / "a").exit_code, 0);
    const auto manifest = nlohmann::json::parse(read_file(dir.path() / "a" / "manifest.json"));
    EXPECT_EQ(manifest.at("split"), nlohmann::json({{"train", 3}, {"test", 3}}));
}

// mcm2022 §5.1: 87 graphs of CNNs and RNNs, tens to hundreds of nodes, no attention, 66/5/16.
TEST(CliDataset, TheShippedMcmPretrainSpecHasThePapersShape) {
    TempDir dir;
    const auto o = build(fs::path(HETSIM_SOURCE_DIR) / "configs/datasets/mcm_pretrain.yaml",
                         dir.path() / "mcm");
    ASSERT_EQ(o.exit_code, 0) << o.output;
    const auto manifest = nlohmann::json::parse(read_file(dir.path() / "mcm" / "manifest.json"));
    const auto& graphs = manifest.at("graphs");
    EXPECT_GE(graphs.size(), 80u);
    std::map<std::string, int> split_sizes;
    int cnns = 0;  // graphs with convolutions
    int rnns = 0;  // graphs with recurrent cells (Sigmoid gates)
    for (const auto& g : graphs) {
        ++split_sizes[g.at("split").get<std::string>()];
        EXPECT_GE(g.at("nodes").get<int>(), 10) << g.at("name");
        EXPECT_LE(g.at("nodes").get<int>(), 1000) << g.at("name");
        const std::string text = read_file(dir.path() / "mcm" / g.at("file").get<std::string>());
        EXPECT_EQ(text.find("\"Softmax\""), std::string::npos) << g.at("name");
        cnns += text.find("\"Conv\"") != std::string::npos ? 1 : 0;
        rnns += text.find("\"Sigmoid\"") != std::string::npos ? 1 : 0;
    }
    // Real CNNs (ResNet, Inception, MobileNet, Wide-and-Deep's ResNet) and RNNs (LSTM, GRU,
    // Siamese, Wide-and-Deep's LSTM), as mcm2022 §5.1 describes the set.
    EXPECT_GE(cnns, 15);
    EXPECT_GE(rnns, 50);
    // 66/5/16 exactly for 87 graphs, else in that proportion (within rounding).
    const double n = static_cast<double>(graphs.size());
    EXPECT_NEAR(split_sizes["train"], 66 * n / 87, 1.0);
    EXPECT_NEAR(split_sizes["validation"], 5 * n / 87, 1.0);
    EXPECT_NEAR(split_sizes["test"], 16 * n / 87, 1.0);
    EXPECT_EQ(split_sizes.size(), 3u);
}

TEST(CliDataset, BadSpecsNameTheYamlPath) {
    TempDir dir;
    struct Case {
        std::string spec;
        std::string message;
    };
    const Case cases[] = {
        {"name: x\nsplit: {train: 1}\n", "missing key 'sources'"},
        {"name: x\nsplit: {train: 1}\nsources:\n  - {model: lstmm}\n",
         "sources.0.model: unknown model 'lstmm'"},
        {"name: x\nsplit: {train: 1}\nsources:\n  - random_dag: {count: 2, knobs: {nodes: [20, "
         "10]}}\n",
         "sources.0.random_dag.knobs.nodes: empty range [20, 10]"},
        {"name: x\nsplit: {train: 1}\nsources:\n  - {graph: g.json}\n",
         "sources.0: expected a source with one of the keys model, random_dag, onnx, export"},
        {"name: x\nsplit: {train: -1}\nsources:\n  - {model: lstm}\n",
         "split.train: expected a count or a fraction >= 0"},
        {"name: x\nsplit: {train: 0}\nsources:\n  - {model: lstm}\n",
         "split: the split sizes sum to 0"},
        {"name: x\nnodes: [10, 100]\nsplit: {train: 1}\nsources:\n  - {model: lstm, knobs: "
         "{seq_len: [2, 8]}}\n",
         "sources.0: lstm(layers=1,hidden=256,input=256,seq_len=8,batch=1,fused=0) has 129 ops, "
         "outside "
         "the spec's nodes: [10, 100]"},
    };
    for (const Case& c : cases) {
        const auto spec = dir.write("x.yaml", c.spec);
        const auto o = build(spec, dir.path() / "out");
        EXPECT_EQ(o.exit_code, 2) << c.spec << o.output;
        EXPECT_THAT(o.output, HasSubstr(c.message)) << c.spec;
        EXPECT_THAT(o.output, HasSubstr("x.yaml")) << c.spec;
        // Refused, even after graphs were built: nothing of the dataset stays.
        EXPECT_FALSE(fs::exists(dir.path() / "out")) << c.spec;
    }
    const auto missing = build(dir.path() / "none.yaml", dir.path() / "out");
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_THAT(missing.output, HasSubstr("none.yaml"));
}

// The lines of a refusal: exactly one, the error.
std::size_t line_count(const std::string& output) {
    return static_cast<std::size_t>(std::count(output.begin(), output.end(), '\n'));
}

// Builds `spec` (written to `dir`/`file`) into `dir`/o and checks the refusal: exit 2, one line
// naming the spec file and saying `message`, and nothing of the dataset written.
Outcome expect_build_refused(const TempDir& dir, const std::string& file, const std::string& spec,
                             const std::string& message) {
    const auto path = dir.write(file, spec);
    const auto o = build(path, dir.path() / "o");
    EXPECT_EQ(o.exit_code, 2) << spec << o.output;
    EXPECT_THAT(o.output, HasSubstr(file)) << spec;
    EXPECT_THAT(o.output, HasSubstr(message)) << spec;
    EXPECT_EQ(line_count(o.output), 1U) << o.output;
    EXPECT_FALSE(fs::exists(dir.path() / "o")) << spec;
    return o;
}

// A spec asking for 10^9 random DAGs wrote graphs until stopped; one of 7 knobs of 10 values
// (10^7 combinations) too. The graphs are counted before the first is built and refused past
// kDatasetGraphLimit, naming the source and its count; nothing is written.
TEST(CliDataset, SpecsMakingTooManyGraphsAreRefusedBeforeAnyIsBuilt) {
    TempDir dir;
    const std::string ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    struct Case {
        std::string spec;
        std::string message;
    };
    const Case cases[] = {
        {"name: d\nsplit: {train: 1}\nsources: [{random_dag: {count: 1000000000, knobs: {nodes: "
         "[20, 40]}}}]\n",
         "sources.0.random_dag.count: must be in 1..100000 (the most graphs of a dataset), got "
         "1000000000"},
        {"name: d\nsplit: {train: 1}\nsources:\n  - {model: bert, knobs: {layers: " + ten +
             ", hidden: " + ten + ", heads: " + ten + ", ffn: " + ten + ", seq_len: " + ten +
             ", batch: " + ten + ", classes: " + ten + "}}\n",
         "sources.0.knobs: the knob values make 10000000 combinations, one graph each, over the "
         "limit of 100000 graphs in a dataset"},
        {"name: d\nsplit: {train: 1}\nsources:\n  - random_dag: {count: 60000}\n  - random_dag: "
         "{count: 60000}\n",
         "sources: the sources make 120000 graphs, over the limit of 100000 in a dataset"},
    };
    for (const Case& c : cases)
        expect_build_refused(dir, "d.yaml", c.spec, c.message);
}

// docs/usage.md: the split's sizes must add up to the graphs built. Whole numbers that do not
// were read as proportions; they are refused, and the graphs built removed. Fractions stay
// proportions (CliDataset.FractionsAreProportions).
TEST(CliDataset, SplitCountsMustAddUpToTheGraphs) {
    TempDir dir;
    const auto spec = dir.write("s.yaml",
                                "name: d\nsplit: {train: 2, test: 7}\nsources:\n  - random_dag: "
                                "{count: 3, knobs: {nodes: [20, 40]}}\n");
    const auto o = build(spec, dir.path() / "o");
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("s.yaml:2: split: the split sizes add up to 9, the sources "
                                    "make 3 graphs: give counts that add up to 3 or fractions"));
    EXPECT_EQ(line_count(o.output), 1U) << o.output;
    EXPECT_FALSE(fs::exists(dir.path() / "o"));
}

// Campaign 5 (ds07, ds12, ds31, ds04): knob mistakes named at their own line and path; a
// repeated knob value (which built one graph twice) refused as a sweep refuses a repeated axis
// value; counts and fractions mixed in one split refused.
TEST(CliDataset, KnobAndSplitMistakesAreNamedAtTheirLine) {
    TempDir dir;
    struct Case {
        std::string spec;
        std::string message;
    };
    const Case cases[] = {
        {"name: t\nsplit: {train: 1}\nsources: [{random_dag: {count: 1, knobs: {nosuch: 3}}}]\n",
         "d.yaml:3: sources.0.random_dag.knobs.nosuch: model 'random_dag' has no knob 'nosuch'; "
         "its knobs: seed, nodes, width, skip_percent, matmul_percent, hidden, batch"},
        {"name: t\nsplit: {train: 2}\nsources:\n  - {model: lstm, knobs: {seq_len: [2, 2]}}\n",
         "d.yaml:4: sources.0.knobs.seq_len.1: the knob lists '2' twice"},
        {"name: t\nsplit: {train: 1}\nsources:\n  - {model: lstm, knobs: {hiden: 8}}\n",
         "d.yaml:4: sources.0.knobs.hiden: model 'lstm' has no knob 'hiden' (did you mean "
         "'hidden'?)"},
        {"name: t\nsplit: {train: 1}\nsources:\n  - random_dag: {count: 1, knobs: {width: [0, "
         "4]}}\n",
         "d.yaml:4: sources.0.random_dag.knobs.width.0: model 'random_dag': knob 'width' must be "
         "> 0, got 0"},
        {"name: t\nsplit: {train: 3}\nsources:\n  - random_dag: {count: 3, knobs: {seed: [1, "
         "2]}}\n",
         "d.yaml:4: sources.0.random_dag.knobs.seed: the range holds 2 seeds, fewer than the 3 "
         "graphs (count)"},
        {"name: t\nsplit: {train: 3, test: 0.25}\nsources:\n  - random_dag: {count: 4, knobs: "
         "{nodes: 10}}\n",
         "d.yaml:2: split: mixes a count (train: 3) and a fraction (test: 0.25); give every size "
         "as a count"},
    };
    for (const Case& c : cases) {
        const auto o = expect_build_refused(dir, "d.yaml", c.spec, c.message);
        EXPECT_THAT(o.output, ::testing::Not(HasSubstr("expected one of: model"))) << c.spec;
    }
}

// Campaign 5 (ds31): a fixed seed knob gave every graph of the source that seed, so `count: 3`
// built three identical graphs although each graph gets its own seed. The fixed seed is the
// first graph's, the next graphs take the seeds after it.
TEST(CliDataset, EveryRandomDagHasItsOwnSeed) {
    TempDir dir;
    const auto spec = dir.write(
        "d.yaml",
        "name: t\nsplit: {train: 3}\nsources:\n  - random_dag: {count: 3, knobs: {seed: 5, "
        "nodes: 10}}\n");
    const auto o = build(spec, dir.path() / "o");
    ASSERT_EQ(o.exit_code, 0) << o.output;
    const auto manifest = nlohmann::json::parse(read_file(dir.path() / "o" / "manifest.json"));
    std::set<std::string> graphs;
    for (int i = 0; i < 3; ++i) {
        const auto& g = manifest.at("graphs")[static_cast<std::size_t>(i)];
        EXPECT_THAT(g.at("source").get<std::string>(),
                    HasSubstr("random_dag(seed=" + std::to_string(5 + i) + ",nodes=10,"));
        graphs.insert(read_file(dir.path() / "o" / g.at("file").get<std::string>()));
    }
    EXPECT_EQ(graphs.size(), 3u);
}

// Campaign 5 (dso1): a 1-graph build into the folder of a 3-graph build left two stale graphs
// that its manifest did not list. A build replaces an earlier build's graphs/ once it
// completes; a refused one leaves the earlier build whole; a graphs/ holding a file no manifest
// lists is refused before anything is built.
TEST(CliDataset, ARebuildReplacesTheEarlierBuildsGraphs) {
    TempDir dir;
    const std::string head = "name: t\nsplit: {train: 1}\nsources:\n  - random_dag: {count: ";
    const auto three = dir.write("three.yaml",
                                 "name: t\nsplit: {train: 3}\nsources:\n  - random_dag: {count: "
                                 "3, knobs: {nodes: 10}}\n");
    const auto one = dir.write("one.yaml", head + "1, knobs: {nodes: 10}}\n");
    const fs::path out = dir.path() / "o";
    ASSERT_EQ(build(three, out).exit_code, 0);
    const auto listing = [&] {
        std::set<std::string> names;
        for (const auto& entry : fs::directory_iterator(out / "graphs"))
            names.insert(entry.path().filename().string());
        return names;
    };
    const std::set<std::string> earlier = listing();
    ASSERT_EQ(earlier.size(), 3u);
    const std::string earlier_manifest = read_file(out / "manifest.json");
    const std::string graph0 = read_file(out / "graphs" / "random_dag_000.json");

    // Refused after the graph was built (outside `nodes`): the earlier build stays as it was.
    const auto bad = dir.write("bad.yaml",
                               "name: t\nnodes: [1, 5]\nsplit: {train: 1}\n"
                               "sources:\n  - random_dag: {count: 1, knobs: {nodes: "
                               "10, seed: 99}}\n");
    EXPECT_EQ(build(bad, out).exit_code, 2);
    EXPECT_EQ(listing(), earlier);
    EXPECT_EQ(read_file(out / "manifest.json"), earlier_manifest);
    EXPECT_EQ(read_file(out / "graphs" / "random_dag_000.json"), graph0);

    const auto o = build(one, out);
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_EQ(listing(), (std::set<std::string>{"random_dag_000.json"}));
    EXPECT_EQ(nlohmann::json::parse(read_file(out / "manifest.json")).at("graphs").size(), 1u);
    EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 2)
        << "only graphs/ and manifest.json";

    dir.write("o/graphs/mine.json", "{}");
    const auto foreign = build(one, out);
    EXPECT_EQ(foreign.exit_code, 2) << foreign.output;
    EXPECT_THAT(foreign.output, HasSubstr("--out: '" + (out / "graphs").string() +
                                          "' holds 'mine.json', which no manifest.json in '" +
                                          out.string() + "' lists"));
    EXPECT_EQ(line_count(foreign.output), 1U) << foreign.output;
    EXPECT_TRUE(fs::exists(out / "graphs" / "mine.json"));
    EXPECT_TRUE(fs::exists(out / "graphs" / "random_dag_000.json"));
}

// A failed export named its log inside the output folder that the refusal then removed; the
// message carries the exporter's own last line instead, and a refused build into a folder that
// existed removes the onnx/ folder it made there.
TEST(CliDataset, AFailedExportSaysWhyInItsMessage) {
    if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "/usr/bin/python3 lacks torch: export sources are skipped";
    TempDir dir;
    const auto spec =
        dir.write("e.yaml", "name: d\nsplit: {train: 1}\nsources:\n  - {export: notamodel}\n");
    fs::create_directories(dir.path() / "o");
    const auto o = build(spec, dir.path() / "o");
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("e.yaml:4: sources.0.export: tools/export_models.py notamodel "
                                    "failed: export_models.py: unknown model 'notamodel'"));
    EXPECT_THAT(o.output, ::testing::Not(HasSubstr(".log")));
    EXPECT_EQ(line_count(o.output), 1U) << o.output;
    EXPECT_TRUE(fs::exists(dir.path() / "o"));
    EXPECT_FALSE(fs::exists(dir.path() / "o" / "onnx"));
    EXPECT_FALSE(fs::exists(dir.path() / "o" / "graphs"));
}

}  // namespace
