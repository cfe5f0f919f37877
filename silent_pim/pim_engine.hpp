// The functional Silent-PIM engine: executes PimDescriptors on a PimMemory and produces the
// bf16 results the hardware would (lee2022 §2.2, Fig. 2(a); Kim et al., TPDS 2022). Timing is
// not modelled here (silent_pim_device / the command-level model do that); this file is about
// *what* is computed, walked in the order the datapath computes it.
//
// Datapath (lee2022 §2.2):
//   vecA  4 x 128 bit = one 64-byte RD burst = 32 bf16,
//   vecB  128 bit, refilled on every clock (beat) of a burst = 8 bf16 per beat, 4 beats,
//   an 8-way bf16 vector unit (add, sub, mul, MAC) combining vecB with 8 lanes of vecA,
//   vACC  accumulators, one per element of an output burst (32), written back by one WR.
//
// Kernels, in the datapath's order (the request counts match SilentPimDevice's cycle model):
//   add/sub/mul, C(p,r) = A(p,r) op B, B shaped by Operand2 (lee2022 Table 2 element-wise):
//     full   (1),(4): A and B stream once as one contiguous p*r stream, 32-element chunks:
//                     RD A -> vecA; RD B -> vecB beat by beat, lane l of beat t computes
//                     vecA[8t+l] op vecB[l] -> vACC[8t+l]; WR C <- vACC.
//     row    (2),(5): per row of A, the same with B's chunk taken from the row vector (r),
//                     which is re-read for every row (vecB is only filled by a burst).
//     scalar (3),(6): the scalar is read once and replicated into vecA; A streams through
//                     vecB; lanes compute vecB[l] op vecA[l] (A stays the left operand).
//     column (7):     per row, one RD loads that row's scalar (B is (p,1)) into vecA,
//                     then the row streams through vecB as for scalar.
//   matmul, C(p,r) = A(p,q) x B(q,r): p vector-matrix products (one per row of A), each
//     re-reading the whole of B. Per row i and per 32-column block of C:
//       vACC = 0; for each 32-element chunk of A's row i: RD -> vecA; then for each k of the
//       chunk: RD B row k's 32 columns of the block; beat t: lanes l MAC
//       vACC[8t+l] += vecA[k] * vecB[l]; after all q: WR C <- vACC (rounded to bf16).
//   transpose, C(q,p) = A(p,q)^T (Gemm with transB = 1, lee2022 §4.3): per output burst
//     (32 consecutive elements of a row of C = 32 source rows) one RD per element latches
//     A[i][j] into its vecA lane, then one WR of vecA. That is one RD per element, which is
//     why the paper calls the transpose "not a friendly operation for PIM".
//
// Numerics (the model's assumptions; lee2022 does not specify them beyond "bfloat16"):
//   - add/sub/mul: each lane result is rounded to bf16 with round-to-nearest-even, i.e. the
//     correctly rounded IEEE bf16 operation (see bf16_add in bf16.hpp for why fp32 lanes
//     give exactly that).
//   - MAC: a bf16 x bf16 product is exact in fp32 (16 significant bits <= 24); vACC is fp32
//     and accumulates in the order k = 0, 1, ..., q-1 (each step one fp32 RNE rounding);
//     the sum is rounded to bf16 RNE once, when vACC is written back to C.
//   - transpose moves bits, no rounding.
//   - A "burst" here is 32 consecutive elements of the operand stream (a row-major row or
//     the whole matrix for `full`); the last burst of a stream may be partial (lanes past
//     the end masked off). Whether a burst is 64-byte aligned in DRAM only changes timing,
//     which is the command-level model's business, so only 2-byte (bf16) alignment of the
//     addresses is required here.
//
// Descriptors the engine rejects (std::invalid_argument with the reason): p, r (and q for
// matmul/transpose) <= 0; misaligned (odd) addresses; operands outside the PIM DRAM; an
// unknown op/operand2; and writes that would corrupt an operand while it is still being
// read. In-place element-wise (C exactly at A, or exactly at B for `full`) is allowed: each
// burst of C is written after the burst of A/B at the same position has been read, and
// never read again. Every other overlap of C with an operand is rejected, because B of a
// broadcast form and both operands of a matmul are re-read after C writes start, and a
// partially overlapping stream would make the result depend on the request order.
// Fields a kernel does not use (q for element-wise, r for transpose, src_b for transpose,
// operand2 outside element-wise) are ignored.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "silent_pim/bf16.hpp"
#include "silent_pim/pim_descriptor.hpp"
#include "silent_pim/pim_memory.hpp"

namespace hetsim::silent_pim {

inline constexpr std::int64_t kBurstBytes = 64;     // DDR4 x64, BL8
inline constexpr std::int64_t kBurstElements = 32;  // bf16 per burst = vecA's 4 x 128 bit
inline constexpr std::int64_t kLanes = 8;           // bf16 per beat = vecB's 128 bit
inline constexpr std::int64_t kBeatsPerBurst = kBurstElements / kLanes;  // 4

// Requests and operations issued, for cross-checks with the command-level model.
struct PimEngineStats {
    std::uint64_t descriptors = 0;
    std::uint64_t rd_bursts = 0;   // RD requests (a partial last burst counts as one)
    std::uint64_t wr_bursts = 0;   // WR requests
    std::uint64_t vector_ops = 0;  // 8-way vector-unit issues (one per vecB beat)
    std::uint64_t lane_ops = 0;    // active lanes summed over those issues
};

// Throws std::invalid_argument naming the reason if Silent-PIM cannot execute `d` on a DRAM
// of `capacity_bytes`.
void validate_descriptor(const PimDescriptor& d,
                         std::uint64_t capacity_bytes = PimMemory::kDefaultCapacityBytes);

class PimEngine {
public:
    explicit PimEngine(PimMemory& memory) : memory_(memory) {}

    // validate_descriptor(), then run the kernel, writing C into the memory.
    void execute(const PimDescriptor& d);
    // In order; the first invalid descriptor throws (earlier ones have run).
    void execute(std::span<const PimDescriptor> descriptors);

    const PimEngineStats& stats() const { return stats_; }
    void reset_stats() { stats_ = {}; }

private:
    // The datapath's registers (lee2022 Fig. 2(a)).
    struct Registers {
        bf16 vec_a[kBurstElements];  // 4 x 128 bit
        bf16 vec_b[kLanes];          // 128 bit, one beat
        float v_acc[kBurstElements];
    };

    void run_elementwise(const PimDescriptor& d);
    void run_matmul(const PimDescriptor& d);
    void run_transpose(const PimDescriptor& d);

    // One chunk of an element-wise kernel with the operand2 = full/row order: vecA holds A,
    // B arrives through vecB. `n` <= 32 elements.
    void chunk_a_in_veca(PimOp op, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                         std::int64_t n);
    // One chunk with the scalar/column order: vecA holds the replicated scalar, A arrives
    // through vecB.
    void chunk_a_in_vecb(PimOp op, std::uint64_t a, std::uint64_t c, std::int64_t n);

    // RD of `n` <= 32 consecutive bf16 at addr into a burst buffer.
    void rd_burst(std::uint64_t addr, std::int64_t n, bf16* out);
    // WR of vACC[0, n) rounded to bf16 (RNE) at addr.
    void wr_vacc(std::uint64_t addr, std::int64_t n);

    PimMemory& memory_;
    Registers regs_{};
    PimEngineStats stats_;
};

// ---------------------------------------------------------------------------------------
// Op-level lowering of ONNX-style ops to descriptors (lee2022 Table 2).
//
// Tensors are 2-D row-major bf16 in PIM memory. A binary op is C(p,r) = A(p,r) op B with
// B broadcast onto A (numpy/ONNX multidirectional broadcasting restricted to the forms the
// PIM has: B may not be larger than A). MatMul is one matmul descriptor. Gemm
// (p,q) x (q,r) + bias is a matmul into C followed by an in-place add of the bias
// (lee2022 §4.2: "the execution time of Gemm is a sum of execution time in a matrix-matrix
// multiplication and an element-wise addition"); with transB = 1 the weight is stored
// (r,q) and a transpose into a scratch (q,r) buffer comes first (Table 2 Gemm (2)). The
// product is rounded to bf16 before the bias is added (two roundings, as in hardware).
// ---------------------------------------------------------------------------------------

// Which Operand2 form broadcasts a B of shape `b_shape` onto A(p,r): (p,r) -> full;
// all-ones/() -> scalar; (r) or (1,r) -> row; (p,1) -> column. Leading 1s beyond rank 2 are
// dropped. Anything else throws std::invalid_argument (e.g. (p) with p != r, or B larger
// than A, which the PIM would need to broadcast A for).
Operand2 classify_operand2(std::int64_t p, std::int64_t r,
                           const std::vector<std::int64_t>& b_shape);
// Elements B occupies in memory for a form.
std::int64_t operand2_elements(std::int64_t p, std::int64_t r, Operand2 form);

PimDescriptor lower_binary(PimOp op, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                           std::int64_t p, std::int64_t r, Operand2 form);
PimDescriptor lower_matmul(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::int64_t p,
                           std::int64_t q, std::int64_t r);

struct GemmAddresses {
    std::uint64_t a = 0;        // A (p,q)
    std::uint64_t b = 0;        // B (q,r), or (r,q) when trans_b
    std::uint64_t bias = 0;     // shaped by bias_form relative to (p,r); (r) in Table 2
    std::uint64_t c = 0;        // C (p,r)
    std::uint64_t scratch = 0;  // B^T (q,r), used only when trans_b
};
// [transpose B -> scratch,] matmul A x B -> C, add C = C + bias (in place).
std::vector<PimDescriptor> lower_gemm(const GemmAddresses& addrs, std::int64_t p, std::int64_t q,
                                      std::int64_t r, bool trans_b,
                                      Operand2 bias_form = Operand2::row);

// Runs of one op from host data: operands are written to PIM memory one after another from
// base_addr (each start rounded up to a 64-byte burst boundary), the lowered descriptors are
// executed, and C is read back.
struct PimOpRun {
    std::vector<bf16> output;                // C, row-major
    std::vector<PimDescriptor> descriptors;  // what was executed, in order
    PimEngineStats stats;                    // of those descriptors
};

// C(p,r) = A(p,r) op B for op in {add, sub, mul}, B of ONNX shape b_shape.
PimOpRun run_binary(PimMemory& memory, PimOp op, std::span<const bf16> a, std::int64_t p,
                    std::int64_t r, std::span<const bf16> b,
                    const std::vector<std::int64_t>& b_shape, std::uint64_t base_addr = 0);
// ONNX MatMul (p,q) x (q,r).
PimOpRun run_matmul(PimMemory& memory, std::span<const bf16> a, std::span<const bf16> b,
                    std::int64_t p, std::int64_t q, std::int64_t r, std::uint64_t base_addr = 0);
// ONNX Gemm (alpha = beta = 1, transA = 0): A (p,q) x B + bias, B (q,r) or, with trans_b,
// (r,q); bias of ONNX shape bias_shape broadcast onto (p,r) ((r) in Table 2).
PimOpRun run_gemm(PimMemory& memory, std::span<const bf16> a, std::span<const bf16> b,
                  std::span<const bf16> bias, std::int64_t p, std::int64_t q, std::int64_t r,
                  bool trans_b, const std::vector<std::int64_t>& bias_shape,
                  std::uint64_t base_addr = 0);

}  // namespace hetsim::silent_pim
