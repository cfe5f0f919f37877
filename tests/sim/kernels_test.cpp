// One-op kernel benchmarks (sim/workloads/kernels.hpp): `matmul` and `conv` build the graphs
// tools/measure/gpu.py writes for the H100 rows, so a measurement file may name a row by model
// and knobs; shapes by hand; bad geometry is refused with the knob named.
#include "sim/workloads/kernels.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "sim/op_table.hpp"
#include "sim/workloads/json_graph.hpp"
#include "sim/workloads/model_zoo.hpp"

namespace hetsim::sim::workloads {
namespace {

namespace fs = std::filesystem;

std::string shipped_graph(const std::string& file) {
    return write_json_graph(load_json_graph(
        (fs::path(HETSIM_SOURCE_DIR) / "configs/calibration/h100/graphs" / file).string()));
}

TEST(KernelModels, MatMulAndConvAreTheGraphsOfTheMeasuredRows) {
    EXPECT_EQ(write_json_graph(build_model("matmul", {{"m", 47}, {"k", 693}, {"n", 17}})),
              shipped_graph("matmul_float32_47x693x17.json"));
    EXPECT_EQ(write_json_graph(
                  build_model("matmul", {{"m", 1000}, {"k", 1000}, {"n", 1000}, {"bf16", 1}})),
              shipped_graph("matmul_bfloat16_1000x1000x1000.json"));
    EXPECT_EQ(write_json_graph(build_model("conv", {{"batch", 16},
                                                    {"channels", 1024},
                                                    {"height", 14},
                                                    {"width", 14},
                                                    {"out_channels", 2048},
                                                    {"kernel_h", 1},
                                                    {"kernel_w", 1},
                                                    {"stride", 2},
                                                    {"pad_h", 0},
                                                    {"pad_w", 0}})),
              shipped_graph("conv_b16_1024x14x14_o2048_k1x1_s2x2_p0x0.json"));
}

TEST(KernelModels, ShapesFlopsAndBatchedGemm) {
    const Graph mm = build_matmul({4, 8, 16, 32, DType::f32});
    ASSERT_EQ(mm.op_count(), 1);
    EXPECT_EQ(mm.tensor(mm.op(0).inputs[0]).shape, (Shape{4, 8, 16}));
    EXPECT_EQ(mm.tensor(mm.op(0).inputs[1]).shape, (Shape{4, 16, 32}));
    EXPECT_EQ(mm.tensor(mm.op(0).outputs[0]).shape, (Shape{4, 8, 32}));
    EXPECT_DOUBLE_EQ(mm.op(0).flops, 2.0 * 4 * 8 * 16 * 32);

    // Inception's 7x1 with padding (3, 0); ResNet's stem, 7x7 stride 2 pad 3: 224 -> 112; a
    // dilated 3x3 (dilation 2, pad 2) keeps 56; a depthwise conv has one input channel a filter.
    ConvConfig c;
    c.batch = 2;
    c.channels = 8;
    c.height = 17;
    c.width = 17;
    c.out_channels = 4;
    c.kernel_h = 7;
    c.kernel_w = 1;
    c.pad_h = 3;
    c.pad_w = 0;
    const Graph tall = build_conv(c);
    EXPECT_EQ(tall.tensor(tall.op(0).outputs[0]).shape, (Shape{2, 4, 17, 17}));
    EXPECT_DOUBLE_EQ(tall.op(0).flops, 2.0 * 2 * 4 * 17 * 17 * 8 * 7);
    const Graph stem = build_model("conv", {{"channels", 3},
                                            {"height", 224},
                                            {"width", 224},
                                            {"kernel_h", 7},
                                            {"kernel_w", 7},
                                            {"stride", 2},
                                            {"pad_h", 3},
                                            {"pad_w", 3}});
    EXPECT_EQ(stem.tensor(stem.op(0).outputs[0]).shape, (Shape{1, 64, 112, 112}));
    const Graph dilated = build_model("conv", {{"dilation", 2}, {"pad_h", 2}, {"pad_w", 2}});
    EXPECT_EQ(dilated.tensor(dilated.op(0).outputs[0]).shape, (Shape{1, 64, 56, 56}));
    EXPECT_EQ(dilated.name(), "conv_b1_64x56x56_o64_k3x3_s1x1_p2x2_d2");
    const Graph depthwise = build_model("conv", {{"group", 64}, {"bf16", 1}});
    EXPECT_EQ(depthwise.tensor(depthwise.op(0).inputs[1]).shape, (Shape{64, 1, 3, 3}));
    EXPECT_EQ(depthwise.tensor(depthwise.op(0).inputs[1]).dtype, DType::bf16);
    EXPECT_EQ(depthwise.name(), "conv_b1_64x56x56_o64_k3x3_s1x1_p1x1_g64_bfloat16");
}

TEST(KernelModels, TransposedOperandsAreAGemmOfTheirStoredShapes) {
    // DeepBench's a_t / b_t: m = 3, k = 5, n = 7 with A stored [k, m] and B [n, k].
    const Graph both =
        build_model("matmul", {{"m", 3}, {"k", 5}, {"n", 7}, {"trans_a", 1}, {"trans_b", 1}});
    ASSERT_EQ(both.op_count(), 1);
    const Op& gemm = both.op(0);
    EXPECT_EQ(gemm.type, "Gemm");
    EXPECT_EQ(gemm.attr_int("transA", 0), 1);
    EXPECT_EQ(gemm.attr_int("transB", 0), 1);
    EXPECT_EQ(both.tensor(gemm.inputs[0]).shape, (Shape{5, 3}));
    EXPECT_EQ(both.tensor(gemm.inputs[1]).shape, (Shape{7, 5}));
    EXPECT_EQ(both.tensor(gemm.outputs[0]).shape, (Shape{3, 7}));
    EXPECT_DOUBLE_EQ(gemm.flops, 2.0 * 3 * 5 * 7);
    EXPECT_EQ(both.name(), "matmul_float32_3x5x7_tt");
    // The product is the same GEMM; the stored rows, which a device model reads for their
    // alignment, are M for A and K for B.
    const auto dims = gemm_dims(both, gemm);
    ASSERT_TRUE(dims.has_value());
    EXPECT_EQ(dims->m, 3.0);
    EXPECT_EQ(dims->n, 7.0);
    EXPECT_EQ(dims->k, 5.0);
    EXPECT_EQ(dims->a_row, 3.0);
    EXPECT_EQ(dims->b_row, 5.0);

    const Graph only_b = build_model("matmul", {{"m", 3}, {"k", 5}, {"n", 7}, {"trans_b", 1}});
    EXPECT_EQ(only_b.name(), "matmul_float32_3x5x7_nt");
    EXPECT_EQ(only_b.tensor(only_b.op(0).inputs[0]).shape, (Shape{3, 5}));
    EXPECT_EQ(gemm_dims(only_b, only_b.op(0))->a_row, 5.0);
    EXPECT_EQ(gemm_dims(only_b, only_b.op(0))->b_row, 5.0);
    // Neither flag: the MatMul gpu.py times, under its name.
    EXPECT_EQ(build_model("matmul", {{"m", 3}, {"k", 5}, {"n", 7}}).op(0).type, "MatMul");

    try {
        build_model("matmul", {{"batch", 2}, {"trans_a", 1}});
        ADD_FAILURE() << "a batched transposed GEMM was built";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(),
                     "model 'matmul': trans_a and trans_b need batch = 1 (ONNX Gemm is "
                     "two-dimensional; got batch 2)");
    }
}

std::string conv_error(const Knobs& knobs) {
    try {
        build_model("conv", knobs);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no error";
}

TEST(KernelModels, BadConvGeometryIsRefused) {
    EXPECT_EQ(conv_error({{"group", 3}}),
              "model 'conv': group (3) must divide channels (64) and out_channels (64)");
    EXPECT_EQ(conv_error({{"height", 2}, {"pad_h", 0}, {"kernel_h", 5}}),
              "model 'conv': the kernel_h kernel (5, dilation 1) is larger than the padded "
              "input (2 + 2 x 0)");
    EXPECT_EQ(conv_error({{"stride", 0}}), "model 'conv': knob 'stride' must be > 0, got 0");
}

}  // namespace
}  // namespace hetsim::sim::workloads
