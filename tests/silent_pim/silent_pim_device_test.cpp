#include "silent_pim/silent_pim_device.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/config.hpp"
#include "sim/graph.hpp"
#include "sim/platform.hpp"
#include "tests/fixtures/graph_fixtures.hpp"
#include "tests/fixtures/yaml_fixtures.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::silent_pim {
namespace {

using hetsim::testing::binary;
using hetsim::testing::OneOp;
using hetsim::testing::parse_platform_yaml;
using hetsim::testing::platform_yaml_error;
using hetsim::testing::unary;
using sim::DType;
using sim::TensorKind;

// DDR4-2400: tCK = 1/1.2 GHz. The closed form counts the command-level model's stream
// (pim_command_model.hpp: operands in their own bank index, bursts rotating over the bank
// groups, B and C staggered by 1 and 3 bursts): first ACT -> first RD tRCD 16, RD->RD other
// bank group tCCD_S 4, RD->WR 16+4-12+2 = 10, WR->RD other group 12+4+3 = 19 (same group
// 12+4+9 = 25), last WR's data 12+4 = 16. Refresh stretches by 9360 / (9360 - 452): tRP 16 +
// tRFC 420 + tRCD 16 lost per tREFI.
constexpr double kTck = 1.0 / 1.2e9;
constexpr double kRefresh = 9360.0 / 8908.0;

SilentPimDevice device(double offload_s = 0.0) {
    SilentPimParams p;
    p.timing = interconnect::named_memspec("ddr4-2400");
    p.offload_overhead_s = offload_s;
    return SilentPimDevice(p);
}

// --- closed-form command streams, by hand ------------------------------------------------

TEST(SilentPimCycles, ElementwiseOneBurst) {
    // (1x32)+(1x32) bf16 = one 64-B output burst: the first RD A at tRCD = 16, RD B 4 later,
    // WR C 10 later, its data 16: 16 + 4 + 10 + 16 = 46 cycles (as the command-level trace:
    // RD 16, RD 20, WR 30, done 46).
    const SilentPimDevice pim = device();
    EXPECT_DOUBLE_EQ(pim.elementwise_cycles(1, 32, Operand2::full), 46);
    const OneOp g = binary("Add", {1, 32}, {1, 32}, {1, 32});
    // 46 cycles x 0.8333 ns = 38.33 ns, x 9360/8908 refresh = 40.278 ns.
    EXPECT_NEAR(pim.op_time_s(g.graph, g.get()), 46 * kTck * kRefresh, 1e-18);
    EXPECT_NEAR(pim.op_time_s(g.graph, g.get()), 40.278401436910643e-9, 1e-18);
    // The offload overhead is added once per kernel.
    EXPECT_NEAR(device(2e-6).op_time_s(g.graph, g.get()), 2e-6 + 40.278401436910643e-9, 1e-18);
}

TEST(SilentPimCycles, ElementwiseStreamsAcrossRows) {
    // (64x512)+(64x512): 32768 elements = 1024 output bursts x (4 + 10 + 19) = 33792, + 16 for
    // the first RD, - 19 + 16 for the last WR: 33805. Each operand crosses two 32-KiB row
    // groups, for free: the next rows are in the other bank groups' banks, activated while
    // the current ones stream.
    EXPECT_DOUBLE_EQ(device().elementwise_cycles(64, 512, Operand2::full), 33805);
}

TEST(SilentPimCycles, ElementwiseBroadcastOperands) {
    const SilentPimDevice pim = device();
    // Row vector (2x64)+(64): 2 rows x 2 output bursts x 33 = 132, RD B re-reads the vector's
    // burst from its open row; + 16 - 3: 145.
    EXPECT_DOUBLE_EQ(pim.elementwise_cycles(2, 64, Operand2::row), 145);
    // Scalar (2x64)+(1): one RD loads the scalar into vecA (4 to the first RD A), then per
    // output burst RD A + WR C (10 + 19) x 4 = 116; 16 + 4 + 116 - 3: 133.
    EXPECT_DOUBLE_EQ(pim.elementwise_cycles(2, 64, Operand2::scalar), 133);
    // Column (2x64)+(2x1): one scalar RD per row, 4 to the row's first RD A plus the expected
    // same-bank-group cost of its unrelated neighbours ((6-4) + (25-19)) / 4 = 2, so 6 per
    // row; 4 x 29 per output burst; 16 + 12 + 116 - 3: 141.
    EXPECT_DOUBLE_EQ(pim.elementwise_cycles(2, 64, Operand2::column), 141);

    // The graph ops map onto those kernels.
    EXPECT_NEAR(pim.op_time_s(binary("Add", {2, 64}, {64}, {2, 64}).graph,
                              binary("Add", {2, 64}, {64}, {2, 64}).get()),
                145 * kTck * kRefresh, 1e-18);
    const OneOp s = binary("Mul", {2, 64}, {1}, {2, 64});
    EXPECT_NEAR(pim.op_time_s(s.graph, s.get()), 133 * kTck * kRefresh, 1e-18);
    const OneOp c = binary("Sub", {2, 64}, {2, 1}, {2, 64});
    EXPECT_NEAR(pim.op_time_s(c.graph, c.get()), 141 * kTck * kRefresh, 1e-18);
}

TEST(SilentPimCycles, MatMulIsRepeatedVectorMatrixProducts) {
    const SilentPimDevice pim = device();
    // (1x32)x(32x32): one column block, one k block: RD A + 32 RD B back to back 32 x 4 =
    // 128; the RD A between weight bursts in unrelated bank groups: + 2 x (6-4)/4 = 1; last
    // RD -> WR 10, WR -> RD 19 + (25-19)/4 = 20.5: block 159.5; + 16 first RD, the last
    // block's WR -> RD replaced by the WR's data: - 20.5 + 16: 171.
    EXPECT_DOUBLE_EQ(pim.matmul_cycles(1, 32, 32), 171);
    // (2x64)x(64x64): 2 column blocks x 2 rows of A = 4 blocks, each 2 RD A + 64 RD B:
    // 65 x 4 + 2 x 1 + 30.5 = 292.5 -> 1170; the 8-KiB weight fits one row group (no
    // crossing); 16 + 1170 - 4.5: 1181.5.
    EXPECT_DOUBLE_EQ(pim.matmul_cycles(2, 64, 64), 1181.5);
    const OneOp g = binary("MatMul", {1, 2, 64}, {64, 64}, {1, 2, 64});
    EXPECT_NEAR(pim.op_time_s(g.graph, g.get()), 1181.5 * kTck * kRefresh, 1e-18);
    // p vector-matrix products: time grows linearly with p (lee2022 §4.2). One more product
    // of (512x512): 16 column blocks x ((512 + 16 - 1) x 4 + 16 x 1 + 30.5) = 34472, plus the
    // 512-KiB weight's 16 row-group crossings x (tRTP + tRP + tRCD 41 - 4 x tCCD_S) = 400:
    // 34872, the same from p = 8 to 9.
    const double per_row = pim.matmul_cycles(2, 512, 512) - pim.matmul_cycles(1, 512, 512);
    EXPECT_DOUBLE_EQ(per_row, 34872);
    EXPECT_DOUBLE_EQ(pim.matmul_cycles(9, 512, 512) - pim.matmul_cycles(8, 512, 512), per_row);
}

TEST(SilentPimCycles, TransposeGathersOneReadPerElement) {
    const SilentPimDevice pim = device();
    // 32x32: 32 output bursts, each gathering 32 elements with one RD each. A source row is
    // one burst, so consecutive rows rotate over the bank groups: 31 x tCCD_S 4 = 124, then
    // RD -> WR 10 and WR -> RD 19 + 1.5 (expected same group): 154.5 per output burst,
    // x 32 = 4944; + 16 - 30.5 + 10 + 16 for the first RD and the last WR: 4955.5.
    EXPECT_DOUBLE_EQ(pim.transpose_cycles(32, 32), 4955.5);
    // 512x512: 1-KiB source rows, 4 bursts apart: a column's 32 elements sit in one bank
    // (tCCD_L 6 apart) and a band of 32 rows (32 KiB) in one DRAM row of it, open for the
    // whole band: (31 x 6 + 30.5) x 8192 output bursts = 1773568, + 16 - 30.5 + 26: 1773579.5.
    EXPECT_DOUBLE_EQ(pim.transpose_cycles(512, 512), 1773579.5);
    // 512x2048: 4-KiB rows, a band spans 4 DRAM rows of that bank: each output burst reads
    // 8 rows of each, changing row 3 times inside and once back to the first for the next
    // column, each change tRTP + tRP + tRCD = 41 from the last RD (the WR's 30.5 hides under
    // the last one): 28 x 6 + 4 x 41 = 332 per output burst x 32768 = 10878976;
    // + 16 - 41 + 26: 10878977.
    EXPECT_DOUBLE_EQ(pim.transpose_cycles(512, 2048), 10878977);
}

TEST(SilentPimCycles, TransposedGemmPaysAnElementWiseGather) {
    const SilentPimDevice pim = device(1e-6);
    // Gemm (1x32) x (32x32)^T + (32): transpose 4955.5 + matmul 171 + row-bias add 46, three
    // descriptors of 1 us each.
    OneOp g;
    const int a = g.graph.add_tensor("a", {1, 32}, DType::f32, TensorKind::input);
    const int w = g.graph.add_tensor("w", {32, 32}, DType::f32, TensorKind::weight);
    const int c = g.graph.add_tensor("c", {32}, DType::f32, TensorKind::weight);
    const int y = g.graph.add_tensor("y", {1, 32}, DType::f32);
    g.op = g.graph.add_op("gemm", "Gemm", {a, w, c}, {y}, {{"transB", std::int64_t{1}}});
    g.graph.finalize();
    const PimPlan plan = pim.plan(g.graph, g.get());
    ASSERT_TRUE(plan.support.ok);
    ASSERT_EQ(plan.kernels.size(), 3u);
    EXPECT_EQ(plan.kernels[0].kind, PimKernel::Kind::transpose);
    EXPECT_EQ(plan.kernels[1].kind, PimKernel::Kind::matmul);
    EXPECT_EQ(plan.kernels[2].kind, PimKernel::Kind::elementwise);
    // With p = 1 the (r) bias has the output's size: a plain same-shape add.
    EXPECT_EQ(plan.kernels[2].operand2, Operand2::full);
    EXPECT_NEAR(pim.op_time_s(g.graph, g.get()), 3e-6 + (4955.5 + 171 + 46) * kTck * kRefresh,
                1e-18);

    // Without transB: matmul + bias add only, and much faster.
    OneOp n;
    const int na = n.graph.add_tensor("a", {1, 32}, DType::f32, TensorKind::input);
    const int nw = n.graph.add_tensor("w", {32, 32}, DType::f32, TensorKind::weight);
    const int nc = n.graph.add_tensor("c", {32}, DType::f32, TensorKind::weight);
    const int ny = n.graph.add_tensor("y", {1, 32}, DType::f32);
    n.op = n.graph.add_op("gemm", "Gemm", {na, nw, nc}, {ny});
    n.graph.finalize();
    EXPECT_NEAR(pim.op_time_s(n.graph, n.graph.op(n.op)), 2e-6 + (171 + 46) * kTck * kRefresh,
                1e-18);
}

// --- what the PIM can run (lee2022 Table 2, §2.2) ------------------------------------------

TEST(SilentPimSupport, Table2ElementwiseShapes) {
    const SilentPimDevice pim = device();
    auto ok = [&](const std::string& type, sim::Shape a, sim::Shape b, sim::Shape out) {
        const OneOp g = binary(type, a, b, out);
        return pim.supports(g.graph, g.get());
    };
    EXPECT_TRUE(ok("Add", {16, 512}, {16, 512}, {16, 512}).ok);     // (1)
    EXPECT_TRUE(ok("Add", {1, 16, 512}, {512}, {1, 16, 512}).ok);   // (2)
    EXPECT_TRUE(ok("Add", {16, 2048}, {1}, {16, 2048}).ok);         // (3)
    EXPECT_TRUE(ok("Mul", {16, 2048}, {16, 2048}, {16, 2048}).ok);  // (4)
    EXPECT_TRUE(ok("Mul", {16, 512}, {512}, {16, 512}).ok);         // (5)
    EXPECT_TRUE(ok("Mul", {16, 2048}, {}, {16, 2048}).ok);          // (6) rank-0 scalar
    EXPECT_TRUE(ok("Sub", {16, 512}, {16, 1}, {16, 512}).ok);       // (7)
    EXPECT_TRUE(ok("Add", {512}, {16, 512}, {16, 512}).ok);         // broadcast operand first
    // An outer sum broadcasts both operands: no Table 2 kernel.
    const sim::Support s = ok("Add", {16, 1}, {1, 512}, {16, 512});
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.reason.find("Table 2"), std::string::npos) << s.reason;
    // Integer shape arithmetic is not bf16 work.
    const OneOp i = binary("Add", {4}, {4}, {4}, {}, TensorKind::weight, DType::i64);
    const sim::Support si = pim.supports(i.graph, i.get());
    EXPECT_FALSE(si.ok);
    EXPECT_NE(si.reason.find("bfloat16"), std::string::npos) << si.reason;
}

TEST(SilentPimSupport, MatMulNeedsATwoDimensionalRightOperand) {
    const SilentPimDevice pim = device();
    const OneOp w = binary("MatMul", {1, 16, 512}, {512, 2048}, {1, 16, 2048});
    EXPECT_TRUE(pim.supports(w.graph, w.get()).ok);
    // Attention scores: (1,12,16,64) x (1,12,64,16) is a batch of matrices.
    const OneOp att = binary("MatMul", {1, 12, 16, 64}, {1, 12, 64, 16}, {1, 12, 16, 16});
    const sim::Support s = pim.supports(att.graph, att.get());
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.reason.find("2-D right operand"), std::string::npos) << s.reason;
    EXPECT_TRUE(std::isinf(pim.op_time_s(att.graph, att.get())));
}

TEST(SilentPimSupport, GemmForms) {
    const SilentPimDevice pim = device();
    const OneOp plain = binary("Gemm", {16, 768}, {768, 2304}, {16, 2304});
    EXPECT_TRUE(pim.supports(plain.graph, plain.get()).ok);
    const OneOp tb = binary("Gemm", {16, 512}, {2, 512}, {16, 2}, {{"transB", std::int64_t{1}}});
    EXPECT_TRUE(pim.supports(tb.graph, tb.get()).ok);
    const OneOp ta = binary("Gemm", {512, 16}, {512, 2}, {16, 2}, {{"transA", std::int64_t{1}}});
    const sim::Support s = pim.supports(ta.graph, ta.get());
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.reason.find("transA"), std::string::npos) << s.reason;
}

TEST(SilentPimSupport, ComplexFunctionsAndDataMovementAreRejected) {
    const SilentPimDevice pim = device();
    const OneOp erf = unary("Erf", {16, 2048}, {16, 2048});
    const sim::Support s = pim.supports(erf.graph, erf.get());
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.reason.find("Silent-PIM has no Erf unit (lee2022 §2.2: no complex functions"),
              std::string::npos)
        << s.reason;
    for (const char* type : {"Tanh", "Exp", "Sqrt"}) {
        const OneOp g = unary(type, {4, 8}, {4, 8});
        EXPECT_FALSE(pim.supports(g.graph, g.get()).ok) << type;
    }
    const OneOp div = binary("Div", {16, 512}, {1}, {16, 512});
    const sim::Support sd = pim.supports(div.graph, div.get());
    EXPECT_FALSE(sd.ok);
    EXPECT_NE(sd.reason.find("no Div unit"), std::string::npos) << sd.reason;
    const OneOp pow = binary("Pow", {16, 512}, {1}, {16, 512});
    EXPECT_FALSE(pim.supports(pow.graph, pow.get()).ok);
    const OneOp sm = unary("Softmax", {16, 16}, {16, 16}, {{"axis", std::int64_t{-1}}});
    const sim::Support ss = pim.supports(sm.graph, sm.get());
    EXPECT_FALSE(ss.ok);
    EXPECT_NE(ss.reason.find("Softmax"), std::string::npos) << ss.reason;
    const OneOp rm =
        unary("ReduceMean", {16, 512}, {16, 1},
              {{"axes", std::vector<std::int64_t>{-1}}, {"keepdims", std::int64_t{1}}});
    EXPECT_FALSE(pim.supports(rm.graph, rm.get()).ok);
    const OneOp tr =
        unary("Transpose", {4, 8}, {8, 4}, {{"perm", std::vector<std::int64_t>{1, 0}}});
    const sim::Support st = pim.supports(tr.graph, tr.get());
    EXPECT_FALSE(st.ok);
    EXPECT_NE(st.reason.find("data movement"), std::string::npos) << st.reason;
    EXPECT_TRUE(std::isinf(pim.op_time_s(tr.graph, tr.get())));
}

TEST(SilentPimSupport, ComputesInBf16) {
    EXPECT_EQ(device().compute_dtype(), DType::bf16);
}

// --- YAML ----------------------------------------------------------------------------------

std::string pim_yaml(const std::string& body) {
    return "name: t\ncomponents:\n  pim:\n    type: silent_pim\n    device: PIM\n" + body;
}

TEST(SilentPimYaml, BuildsDeviceResourceAndComponent) {
    const sim::Platform p = parse_platform_yaml(
        pim_yaml("    memspec: ddr4-3200\n    offload_overhead: 3 us\n    memory: 4 GiB\n"));
    ASSERT_EQ(p.device_count(), 1);
    EXPECT_EQ(p.device(0).name, "PIM");
    EXPECT_EQ(p.device(0).component, "pim");
    EXPECT_EQ(p.device(0).units, 1);
    ASSERT_EQ(p.resources().size(), 1u);
    EXPECT_EQ(p.resources()[0].capacity, 1);
    EXPECT_EQ(p.device(0).model->type(), "silent_pim");
    const auto& model = dynamic_cast<const SilentPimDevice&>(*p.device(0).model);
    EXPECT_EQ(model.params().timing.name, "DDR4-3200");
    EXPECT_DOUBLE_EQ(model.params().offload_overhead_s, 3e-6);
    const sim::Component* c = p.find_component("pim");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->memory_bytes, std::int64_t{4} << 30);
    EXPECT_EQ(c->converter, nullptr);  // the CPU converts (lee2022 §2.3)
}

TEST(SilentPimYaml, LogicClock) {
    auto logic_clock = [](const std::string& body) {
        const sim::Platform p = parse_platform_yaml(pim_yaml("    memspec: ddr4-2400\n" + body));
        return dynamic_cast<const SilentPimDevice&>(*p.device(0).model).params().logic_clock_Hz;
    };
    EXPECT_DOUBLE_EQ(logic_clock(""), 0.0);
    EXPECT_DOUBLE_EQ(logic_clock("    logic_clock: memspec\n"), 0.0);
    EXPECT_DOUBLE_EQ(logic_clock("    logic_clock: 300 MHz\n"), 300e6);
    const std::string e =
        platform_yaml_error(pim_yaml("    memspec: ddr4-2400\n    logic_clock: 300 ns\n"));
    EXPECT_NE(e.find("components.pim.logic_clock"), std::string::npos) << e;
    EXPECT_NE(e.find("MHz"), std::string::npos) << e;
}

TEST(SilentPimYaml, UnknownMemspecSuggestsTheClosest) {
    const std::string e = platform_yaml_error(pim_yaml("    memspec: ddr4-2401\n"));
    EXPECT_NE(e.find("components.pim.memspec"), std::string::npos) << e;
    EXPECT_NE(e.find("did you mean 'ddr4-2400'"), std::string::npos) << e;
    EXPECT_NE(e.find("known: ddr4-2400, ddr4-3200"), std::string::npos) << e;
}

TEST(SilentPimYaml, UnknownKeySuggestsTheClosest) {
    const std::string e =
        platform_yaml_error(pim_yaml("    memspec: ddr4-2400\n    offload_overheads: 2 us\n"));
    EXPECT_NE(e.find("did you mean 'offload_overhead'"), std::string::npos) << e;
}

TEST(SilentPimYaml, MissingUnitNamesThePath) {
    const std::string e =
        platform_yaml_error(pim_yaml("    memspec: ddr4-2400\n    offload_overhead: 2\n"));
    EXPECT_NE(e.find("components.pim.offload_overhead"), std::string::npos) << e;
}

// --- lee2022 Fig. 8 on the shipped platform ----------------------------------------------

OneOp fig8_add(std::int64_t p) {
    return binary("Add", {p, 512}, {p, 512}, {p, 512});
}
OneOp fig8_matmul(std::int64_t p) {
    return binary("MatMul", {p, 512}, {512, 512}, {p, 512});
}

TEST(ZynqSilentPim, Fig8OperatorRatios) {
    app::register_all();
    const sim::Platform platform = sim::load_platform(std::string(HETSIM_SOURCE_DIR) +
                                                      "/configs/platforms/zynq_silentpim.yaml");
    EXPECT_EQ(platform.dispatch, sim::DispatchMode::sequential);
    EXPECT_EQ(platform.host_component, "cpu");
    const auto& cpu_s = *platform.device(*platform.find_device("CPU_S")).model;
    const auto& cpu_p = *platform.device(*platform.find_device("CPU_P")).model;
    const auto& pim = *platform.device(*platform.find_device("PIM")).model;

    double previous_mm_advantage = INFINITY;
    std::printf(
        "lee2022 Fig. 8 (published: add PIM 2.1-3.4x CPU_S, 2.2-2.8x CPU_P; "
        "matmul 5.6-10.4x CPU_S, 1.5-3.1x CPU_P)\n");
    for (std::int64_t p : {8, 16, 32, 64}) {
        const OneOp add = fig8_add(p);
        const OneOp mm = fig8_matmul(p);
        const double add_s = cpu_s.op_time_s(add.graph, add.get());
        const double add_p = cpu_p.op_time_s(add.graph, add.get());
        const double add_pim = pim.op_time_s(add.graph, add.get());
        const double mm_s = cpu_s.op_time_s(mm.graph, mm.get());
        const double mm_p = cpu_p.op_time_s(mm.graph, mm.get());
        const double mm_pim = pim.op_time_s(mm.graph, mm.get());
        std::printf(
            "p=%2lld add: S %7.1f us P %7.1f us PIM %6.1f us | PIM/S %.2fx PIM/P %.2fx "
            "P/S %.2fx || matmul: S %6.0f us P %6.0f us PIM %5.0f us | PIM/S %.2fx PIM/P %.2fx\n",
            static_cast<long long>(p), add_s * 1e6, add_p * 1e6, add_pim * 1e6, add_s / add_pim,
            add_p / add_pim, add_s / add_p, mm_s * 1e6, mm_p * 1e6, mm_pim * 1e6, mm_s / mm_pim,
            mm_p / mm_pim);
        // What must hold qualitatively (lee2022 §4.2): PIM beats CPU_S on both operators at
        // every p, and its matmul advantage shrinks as p grows (the weight is re-read p
        // times while the CPU keeps it in cache).
        EXPECT_LT(add_pim, add_s) << "p=" << p;
        EXPECT_LT(mm_pim, mm_s) << "p=" << p;
        const double advantage = mm_s / mm_pim;
        EXPECT_LT(advantage, previous_mm_advantage) << "p=" << p;
        previous_mm_advantage = advantage;
    }
}

}  // namespace
}  // namespace hetsim::silent_pim
