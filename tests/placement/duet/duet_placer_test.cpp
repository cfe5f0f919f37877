// DUET's placers (placement/duet/duet_placer.hpp) on the shipped xeon_titanv platform, whose
// constants are fitted on Table II/III's subgraph times: Table II's placements and Table III's
// fallback, Fig. 13's ordering of the placers, and the schedule a placement carries.
#include "placement/duet/duet_placer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sim/passes/fuse.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::duet {
namespace {

const std::string kPlatform =
    std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/xeon_titanv.yaml";

struct DuetRun {
    sim::Graph graph;
    sim::Platform platform = sim::load_platform(kPlatform);
    std::unique_ptr<sim::Evaluator> evaluator;
    explicit DuetRun(const std::string& model, sim::workloads::Knobs knobs)
        : graph(sim::passes::compile_for(sim::workloads::build_model(model, knobs),
                                         sim::Compiler::tvm)),
          evaluator(sim::make_evaluator("des", platform, sim::EvalOptions{1})) {}
    PlacementResult place(const std::string& spec) {
        PlacementContext context{graph, platform, *evaluator, Objective::latency, 1};
        return PlacerRegistry::instance().create(spec)->place(context);
    }
    double latency(const PlacementResult& r) {
        return evaluator->evaluate(sim::lower(graph, r.placement, platform)).latency_s;
    }
    // Device name of every op whose name starts with `prefix` (one name, or "mixed").
    std::string device_of(const PlacementResult& r, const std::string& prefix) const {
        std::string found;
        for (int op = 0; op < graph.op_count(); ++op) {
            if (graph.op(op).name.rfind(prefix, 0) != 0)
                continue;
            const std::string& d =
                platform.device(r.placement.device_of_op[static_cast<std::size_t>(op)]).name;
            if (found.empty())
                found = d;
            else if (found != d)
                return "mixed";
        }
        return found;
    }
};

// Table II: Wide-and-Deep's RNN and merge on the CPU, its wide, FFN and CNN on the GPU; and
// Fig. 13: greedy-correction finds what exhaustive search finds, random and round-robin do
// worse.
TEST(DuetPlacer, WideAndDeepFollowsTableTwoAndMatchesExhaustiveSearch) {
    app::register_all();
    DuetRun run("wide_and_deep", {{"fused", 1}});
    const PlacementResult greedy = run.place("duet.greedy_correction");
    EXPECT_EQ(run.device_of(greedy, "/rnn/"), "CPU");
    EXPECT_EQ(run.device_of(greedy, "/Add"), "CPU");
    EXPECT_EQ(run.device_of(greedy, "/cnn/"), "GPU");
    EXPECT_EQ(run.device_of(greedy, "/wide/"), "GPU");
    EXPECT_EQ(run.device_of(greedy, "/deep/"), "GPU");
    EXPECT_EQ(greedy.profile_runs, 2);  // one profile run per device
    EXPECT_EQ(greedy.stats.at("subgraphs"), "5");
    const PlacementResult exhaustive = run.place("duet.exhaustive");
    EXPECT_DOUBLE_EQ(run.latency(greedy), run.latency(exhaustive));
    EXPECT_EQ(exhaustive.stats.at("evaluations"), std::to_string(2 + 32));
    EXPECT_GT(run.latency(run.place("duet.random")), run.latency(greedy));
    EXPECT_GT(run.latency(run.place("duet.round_robin")), run.latency(greedy));
    // The placement is a schedule: each device's subgraphs one at a time, every op listed once
    // on its device's resource.
    const sim::Schedule& s = greedy.placement.schedule;
    ASSERT_EQ(s.order.size(), run.platform.resources().size());
    std::size_t listed = 0;
    for (std::size_t r = 0; r < s.order.size(); ++r) {
        for (int op : s.order[r]) {
            EXPECT_EQ(
                run.platform.device(greedy.placement.device_of_op[static_cast<std::size_t>(op)])
                    .resource,
                static_cast<int>(r));
            ++listed;
        }
    }
    EXPECT_EQ(listed, static_cast<std::size_t>(run.graph.op_count()));
}

// Table II: MT-DNN's bert-base on the GPU, its ten LSTM_CRF heads split 6 GPU / 4 CPU.
// DUET's exhaustive search reports each assignment it has measured to the context's sink:
// done counts up by one to the 2^n total, with the best so far once there is one.
TEST(DuetPlacer, ExhaustiveSearchReportsMonotoneProgress) {
    app::register_all();
    DuetRun run("wide_and_deep", {{"fused", 1}});
    std::vector<SearchProgress> seen;
    PlacementContext context{run.graph, run.platform, *run.evaluator, Objective::latency, 1};
    context.progress = [&](const SearchProgress& p) { seen.push_back(p); };
    PlacerRegistry::instance().create("duet.exhaustive")->place(context);
    ASSERT_EQ(seen.size(), 32u);  // 5 subgraphs
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i].done, static_cast<long>(i + 1));
        EXPECT_EQ(seen[i].total, 32);
        EXPECT_EQ(seen[i].unit, "assignments");
        EXPECT_NE(seen[i].best.find(" ms"), std::string::npos) << seen[i].best;
    }
}

TEST(DuetPlacer, MtDnnPutsBertOnTheGpuAndSplitsTheHeadsSixToFour) {
    app::register_all();
    DuetRun run("mt_dnn", {{"fused", 1}});
    const PlacementResult greedy = run.place("duet.greedy_correction");
    EXPECT_EQ(run.device_of(greedy, "/bert/"), "GPU");
    int heads_on_gpu = 0;
    for (int task = 0; task < 10; ++task) {
        const std::string d = run.device_of(greedy, "/task" + std::to_string(task) + "/");
        ASSERT_NE(d, "mixed");
        heads_on_gpu += d == "GPU" ? 1 : 0;
    }
    EXPECT_EQ(heads_on_gpu, 6);
}

// Table III: ResNet-18 has one phase; DUET runs it on the GPU alone, as fast as TVM-GPU.
TEST(DuetPlacer, ResNetFallsBackToTheGpu) {
    app::register_all();
    DuetRun run("resnet", {{"depth", 18}});
    const PlacementResult greedy = run.place("duet.greedy_correction");
    EXPECT_EQ(run.device_of(greedy, "/"), "GPU");
    EXPECT_EQ(greedy.stats.at("phases"), "1");
}

// Fig. 17: DUET's gain over TVM-GPU shrinks as the batch grows; Fig. 14: more RNN layers cost
// the GPU more than the CPU.
TEST(DuetPlacer, GainOverTheGpuShrinksWithBatchAndRnnDepthCostsTheGpuMost) {
    app::register_all();
    auto gain_over_gpu = [](sim::workloads::Knobs knobs) {
        knobs["fused"] = 1;
        DuetRun run("wide_and_deep", knobs);
        const double gpu = run.latency(run.place("single:GPU"));
        return gpu / run.latency(run.place("duet.greedy_correction"));
    };
    const double batch2 = gain_over_gpu({{"batch", 2}});
    const double batch32 = gain_over_gpu({{"batch", 32}});
    EXPECT_GT(batch2, batch32);
    EXPECT_GT(batch32, 1.0);
    auto single = [](int layers, const char* device) {
        DuetRun run("wide_and_deep", {{"fused", 1}, {"rnn_layers", layers}});
        return run.latency(run.place(std::string("single:") + device));
    };
    EXPECT_GT(single(8, "GPU") - single(1, "GPU"), single(8, "CPU") - single(1, "CPU"));
}

TEST(DuetPlacer, NeedsACpuAndAGpu) {
    app::register_all();
    const sim::Platform cpu_only = hetsim::testing::parse_platform_yaml(
        "name: cpu_only\nhost: cpu\ncomponents:\n" + hetsim::testing::one_core_cpu_component());
    const sim::Graph graph = sim::workloads::build_model("siamese_lstm", {{"fused", 1}});
    auto evaluator = sim::make_evaluator("analytic", cpu_only, sim::EvalOptions{1});
    PlacementContext context{graph, cpu_only, *evaluator, Objective::latency, 1};
    EXPECT_THROW(PlacerRegistry::instance().create("duet.greedy_correction")->place(context),
                 PlacementError);
    EXPECT_THROW(PlacerRegistry::instance().create("duet.random:3"), PlacementError);
}

}  // namespace
}  // namespace hetsim::placement::duet

namespace hetsim::placement::duet {
namespace {

// §IV-A: a graph input read by two branches of a multi-path phase becomes one placeholder per
// branch (the replicate_input rewrite); ops, ids and the assignment stay as they were.
TEST(DuetPlacer, AnInputReadByTwoBranchesIsReplicatedPerBranch) {
    app::register_all();
    sim::Graph g("shared_input");
    const int x = g.add_tensor("x", {64, 1, 64}, sim::DType::f32, sim::TensorKind::input);
    const int z = g.add_tensor("z", {1, 256}, sim::DType::f32, sim::TensorKind::input);
    const int w = g.add_tensor("w", {1, 256, 64}, sim::DType::f32, sim::TensorKind::weight);
    const int r = g.add_tensor("r", {1, 256, 64}, sim::DType::f32, sim::TensorKind::weight);
    const int y = g.add_tensor("y", {64, 1, 1, 64}, sim::DType::f32);
    g.add_op("lstm", "LSTM", {x, w, r}, {y}, {{"hidden_size", std::int64_t{64}}});
    // The second branch reads x too (through a MatMul on its last step's input row) and z.
    const int xm = g.add_tensor("xm", {64, 256}, sim::DType::f32, sim::TensorKind::weight);
    const int x2 = g.add_tensor("x2", {64, 64}, sim::DType::f32);
    g.add_op("flat", "Reshape", {x}, {x2});
    const int h = g.add_tensor("h", {64, 256}, sim::DType::f32);
    g.add_op("mm", "MatMul", {x2, xm}, {h});
    const int zs = g.add_tensor("zs", {64, 256}, sim::DType::f32);
    g.add_op("add_z", "Add", {h, z}, {zs});
    g.mark_output(y);
    g.mark_output(zs);
    g.finalize();
    sim::Platform platform = sim::load_platform(kPlatform);
    auto evaluator = sim::make_evaluator("analytic", platform, sim::EvalOptions{1});
    PlacementContext context{g, platform, *evaluator, Objective::latency, 1};
    const PlacementResult r1 =
        PlacerRegistry::instance().create("duet.greedy_correction")->place(context);
    ASSERT_FALSE(r1.placement.rewrite.empty());
    ASSERT_EQ(r1.placement.rewrite.steps.size(), 1u);
    EXPECT_EQ(r1.placement.rewrite.steps[0].pass, "replicate_input");
    EXPECT_EQ(r1.placement.rewrite.steps[0].args.at("tensor"), "x");
    const sim::Graph& placed = *r1.placement.rewrite.graph;
    EXPECT_TRUE(placed.find_tensor("x#0").has_value());
    EXPECT_TRUE(placed.find_tensor("x#1").has_value());
    EXPECT_EQ(placed.op_count(), g.op_count());
    EXPECT_TRUE(evaluator->evaluate(sim::lower(g, r1.placement, platform)).feasible);
}

}  // namespace
}  // namespace hetsim::placement::duet
