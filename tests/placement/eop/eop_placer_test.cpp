// EOP's ratio search and placers (placement/eop/eop_placer.hpp): Eq. 5 balance and Eq. 3 on a
// hand-computed pair, Algorithm 2 on a three-op chain by hand, AT (Eq. 4) against the device
// models and the transfer cost called one by one, and the placers on a small LSTM of the
// shipped i7_rtx2060 platform.
#include "placement/eop/eop_placer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "placement/eop/analysis.hpp"
#include "sim/evaluator.hpp"
#include "sim/passes/passes.hpp"
#include "sim/passes/split.hpp"
#include "sim/transfer_cost.hpp"
#include "sim/workloads/model_zoo.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement::eop {
namespace {

// cpu(n) = a n, gpu(n) = b n, cm(n) = c(n); the whole op a * extent and b * extent.
SplitModel linear_model(std::int64_t extent, double a, double b,
                        std::function<double(std::int64_t)> cm) {
    SplitModel m;
    m.extent = extent;
    m.cpu_whole_s = a * static_cast<double>(extent);
    m.gpu_whole_s = b * static_cast<double>(extent);
    m.cpu_s = [a](std::int64_t n) { return a * static_cast<double>(n); };
    m.gpu_s = [b](std::int64_t n) { return b * static_cast<double>(n); };
    m.cm_s = std::move(cm);
    return m;
}

TEST(EopRatios, EquationFiveBalancesThePartsAndEquationThreeKeepsOnlyAGain) {
    // Extent 10, CPU 2 per unit, GPU 1 per unit, cm 1: |gpu(10 - n) - cpu(n)| = |10 - 3n| is
    // least at n = 3 (gap 1); T = max(6, 7) + 1 = 8 < min(20, 10). On the 0.01 grid the first
    // share that rounds to n = 3 is 0.25 (llround(2.5) = 3).
    const SplitModel m = linear_model(10, 2.0, 1.0, [](std::int64_t) { return 1.0; });
    EXPECT_DOUBLE_EQ(balance_share(m, 0.01), 0.25);
    EXPECT_DOUBLE_EQ(m.time_s(0.25), 8.0);
    // With cm 5 the balanced split takes 12 > 10 (the GPU alone): Eq. 3 fails, all on the GPU.
    const SplitModel costly = linear_model(10, 2.0, 1.0, [](std::int64_t) { return 5.0; });
    EXPECT_DOUBLE_EQ(balance_share(costly, 0.01), 0.0);
    EXPECT_DOUBLE_EQ(costly.time_s(0.0), 10.0);
    // And all on the CPU when the CPU is the faster device.
    const SplitModel cpu_side = linear_model(10, 1.0, 2.0, [](std::int64_t) { return 5.0; });
    EXPECT_DOUBLE_EQ(balance_share(cpu_side, 0.01), 1.0);
}

TEST(EopRatios, AlgorithmTwoTunesAThreeOpChainAsComputedByHand) {
    // Extent 10, step 0.1. A and C: cpu(n) = gpu(n) = n, and cm 3 below n = 6, 0 from 6 (so the
    // balance n = 5 costs 8 while n = 6 costs 6). B: the same without cm (balance n = 5: 5).
    const auto step_cm = [](std::int64_t n) { return n < 6 ? 3.0 : 0.0; };
    const SplitModel a = linear_model(10, 1.0, 1.0, step_cm);
    const SplitModel b = linear_model(10, 1.0, 1.0, [](std::int64_t) { return 0.0; });
    const SplitModel c = linear_model(10, 1.0, 1.0, step_cm);
    EXPECT_DOUBLE_EQ(balance_share(a, 0.1), 0.5);
    EXPECT_DOUBLE_EQ(balance_share(b, 0.1), 0.5);
    // (A, B) from (0.5, 0.5) = 8 + 5: A up and B down one step gives 6 + 6 = 12, two steps
    // 7 + 7; the other way 9 + 6. So (0.6, 0.4).
    const auto [sa, sb] = tune_pair(a, 0.5, b, 0.5, 0.1);
    EXPECT_NEAR(sa, 0.6, 1e-12);
    EXPECT_NEAR(sb, 0.4, 1e-12);
    // Then (B, C) from (0.4, 0.5) = 6 + 8: B up, C down gives 5 + 9 (not better); B down, C up
    // gives 7 + 6 = 13 (better), two steps 8 + 7. So the chain ends at (0.6, 0.3, 0.6):
    // AT 6 + 7 + 6 = 19 against 8 + 5 + 8 = 21 balanced.
    const std::vector<double> tuned = tune_chain({&a, &b, &c}, {0.5, 0.5, 0.5}, 0.1);
    ASSERT_EQ(tuned.size(), 3u);
    EXPECT_NEAR(tuned[0], 0.6, 1e-12);
    EXPECT_NEAR(tuned[1], 0.3, 1e-12);
    EXPECT_NEAR(tuned[2], 0.6, 1e-12);
    EXPECT_DOUBLE_EQ(a.time_s(tuned[0]) + b.time_s(tuned[1]) + c.time_s(tuned[2]), 19.0);
    // An op that is not split breaks the chain: A and C are not adjacent through it.
    const std::vector<double> broken = tune_chain({&a, nullptr, &c}, {0.5, 1.0, 0.5}, 0.1);
    EXPECT_EQ(broken, (std::vector<double>{0.5, 1.0, 0.5}));
}

const std::string kPlatform = std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/i7_rtx2060.yaml";

sim::Platform shipped_platform() {
    app::register_all();  // the component types the platform file names
    return sim::load_platform(kPlatform);
}

struct EopRun {
    sim::Graph graph;
    sim::Platform platform = shipped_platform();
    std::unique_ptr<sim::Evaluator> evaluator =
        sim::make_evaluator("analytic", platform, sim::EvalOptions{1});
    explicit EopRun(sim::Graph g) : graph(std::move(g)) {}
    PlacementResult place(const std::string& spec) {
        app::register_all();
        PlacementContext context{graph, platform, *evaluator, Objective::latency, 1};
        return PlacerRegistry::instance().create(spec)->place(context);
    }
    int device(const std::string& name) const { return *platform.find_device(name); }
};

TEST(EopAt, IsTheSumOfOpTimesAndASplitOpCostsItsPartsItsCutsAndItsCopies) {
    // One Dense [64, 512] x [512, 512] followed by a Tanh, batch split 0.25 / 0.75.
    sim::Graph g("at");
    const int x = g.add_tensor("x", {64, 512}, sim::DType::f32, sim::TensorKind::input);
    const int w = g.add_tensor("w", {512, 512}, sim::DType::f32, sim::TensorKind::weight);
    const int h = g.add_tensor("h", {64, 512}, sim::DType::f32);
    const int y = g.add_tensor("y", {64, 512}, sim::DType::f32);
    g.add_op("mm", "MatMul", {x, w}, {h});
    g.add_op("tanh", "Tanh", {h}, {y});
    g.mark_output(y);
    g.finalize();
    EopRun run(g);
    const int cpu = run.device("CPU"), gpu = run.device("GPU");
    const auto& pf = run.platform;
    // Unsplit on the GPU: the sum of the two op times, no transfer counted.
    sim::Placement on_gpu;
    on_gpu.device_of_op = {gpu, gpu};
    EXPECT_DOUBLE_EQ(at_seconds(g, on_gpu, pf), pf.device(gpu).model->op_time_s(g, g.op(0)) +
                                                    pf.device(gpu).model->op_time_s(g, g.op(1)));
    // Split: parts on CPU and GPU, the Split and Concat on the GPU (the Tanh too).
    sim::Placement split;
    split.rewrite =
        sim::passes::apply(g, {{"split", {{"op", "mm"}, {"dim", "batch"}, {"share", "0.25"}}}});
    const sim::Graph& s = *split.rewrite.graph;
    for (int o = 0; o < s.op_count(); ++o)
        split.device_of_op.push_back(s.op(o).attr_int("split_part", 1) == 0 ? cpu : gpu);
    const auto t = [&](const std::string& op, int d) {
        return pf.device(d).model->op_time_s(s, s.op(*s.find_op(op)));
    };
    // x comes from the host (the CPU) to the GPU's Split; its CPU slice goes back to the CPU;
    // the CPU part's rows go to the GPU's Concat.
    const double copies =
        sim::transfer_cost(pf, cpu, gpu, s.tensor(*s.find_tensor("x"))).seconds() +
        sim::transfer_cost(pf, gpu, cpu, s.tensor(*s.find_tensor("mm#in0#0"))).seconds() +
        sim::transfer_cost(pf, cpu, gpu, s.tensor(*s.find_tensor("h#0"))).seconds();
    const double expected = std::max(t("mm#0", cpu), t("mm#1", gpu)) + t("mm#split0", gpu) +
                            t("mm#concat0", gpu) + copies + t("tanh", gpu);
    EXPECT_NEAR(at_seconds(g, split, pf), expected, 1e-15);
}

TEST(EopPlacers, KeyOperatorsCoverTheirShareAndEverySplitIsPlacedAsEq2Says) {
    EopRun run(sim::workloads::build_model(
        "lstm", {{"layers", 1}, {"hidden", 64}, {"input", 80}, {"seq_len", 3}, {"batch", 16}}));
    const int cpu = run.device("CPU"), gpu = run.device("GPU");
    AnalysisOptions options;
    options.samples = 8;
    options.dims = {sim::passes::SplitDim::batch, sim::passes::SplitDim::hw};
    const Analysis analysis = analyse(run.graph, run.platform, cpu, gpu, options);
    // The key ops are the longest (on their faster device) and cover >= 95 % of the time,
    // and dropping the shortest of them would cover less.
    double total = 0.0, key = 0.0, shortest = 1e300;
    for (int o = 0; o < run.graph.op_count(); ++o)
        total += analysis.best_s(o);
    for (const KeyOp& k : analysis.key) {
        key += analysis.best_s(k.op);
        shortest = std::min(shortest, analysis.best_s(k.op));
    }
    EXPECT_GE(key, 0.95 * total);
    EXPECT_LT(key - shortest, 0.95 * total);
    EXPECT_NEAR(analysis.key_time_share, key / total, 1e-12);
    EXPECT_GT(analysis.profile_runs, 0);

    // eop.equal splits every splittable key op 0.5 / 0.5: part 0 on the CPU, part 1 on the GPU,
    // the Split and Concat on the op's faster device; FLOPs are kept.
    const PlacementResult equal = run.place("eop.equal:key_share=0.95");
    ASSERT_FALSE(equal.placement.rewrite.empty());
    const sim::Graph& s = *equal.placement.rewrite.graph;
    EXPECT_DOUBLE_EQ(s.total_flops(), run.graph.total_flops());
    int parts = 0;
    for (int o = 0; o < s.op_count(); ++o) {
        const sim::Op& op = s.op(o);
        const int d = equal.placement.device_of_op[static_cast<std::size_t>(o)];
        if (op.attrs.count("split_part")) {
            ++parts;
            EXPECT_EQ(d, op.attr_int("split_part", -1) == 0 ? cpu : gpu) << op.name;
        }
    }
    EXPECT_EQ(parts, 2 * std::stoi(equal.stats.at("split_ops")));
    EXPECT_GT(parts, 0);

    // eop never reports an AT worse than the better single device: every split it keeps passed
    // Eq. 3 on its estimates, which are exact for the linear times of this platform's models.
    const PlacementResult eop = run.place("eop");
    const double at = at_seconds(run.graph, eop.placement, run.platform);
    EXPECT_NEAR(at, std::stod(eop.stats.at("at_s")), 1e-8 * at);
    const double cpu_only = at_seconds(
        run.graph, sim::Placement{std::vector<int>(run.graph.op_count(), cpu), {}}, run.platform);
    const double gpu_only = at_seconds(
        run.graph, sim::Placement{std::vector<int>(run.graph.op_count(), gpu), {}}, run.platform);
    EXPECT_LE(at, std::min(cpu_only, gpu_only) * (1 + 1e-9));
    EXPECT_FALSE(eop.tables.at("ratios").empty());
}

TEST(EopPlacers, KeyOperatorsByTypeTakeEveryOpOfTheLongestTypes) {
    EopRun run(sim::workloads::build_model(
        "lstm", {{"layers", 1}, {"hidden", 64}, {"input", 80}, {"seq_len", 3}, {"batch", 16}}));
    AnalysisOptions options;
    options.dims = {sim::passes::SplitDim::batch};
    options.samples = 4;
    options.key_by_type = true;
    const Analysis a =
        analyse(run.graph, run.platform, run.device("CPU"), run.device("GPU"), options);
    std::set<std::string> key_types;
    for (const KeyOp& k : a.key)
        key_types.insert(run.graph.op(k.op).type);
    // Every op of a key type is key, and the key types cover key_share of the time.
    int ops_of_key_types = 0;
    for (const sim::Op& op : run.graph.ops())
        ops_of_key_types += key_types.count(op.type) ? 1 : 0;
    EXPECT_EQ(static_cast<int>(a.key.size()), ops_of_key_types);
    EXPECT_GE(a.key_time_share, 0.95);
}

TEST(EopPlacers, ArgumentsAreCheckedAndSubgraphsFollowTheLayers) {
    app::register_all();
    auto& registry = PlacerRegistry::instance();
    EXPECT_THAT([&] { registry.create("eop:conditions=c4"); },
                testing::ThrowsMessage<PlacementError>(testing::HasSubstr("conditions")));
    EXPECT_THAT([&] { registry.create("eop:dims=batch+depth"); },
                testing::ThrowsMessage<PlacementError>(testing::HasSubstr("'depth'")));
    EXPECT_EQ(subgraph_of("/lstm.0/MatMul_3"), "/lstm.0");
    EXPECT_EQ(subgraph_of("/bert/encoder/layer.11/attention/self/MatMul"),
              "/bert/encoder/layer.11");
    EXPECT_EQ(subgraph_of("/input/Split"), "/input");
    EXPECT_EQ(subgraph_of("mm"), "");
}

}  // namespace
}  // namespace hetsim::placement::eop
