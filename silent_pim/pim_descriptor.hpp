// The unit of work Silent-PIM receives (lee2022 §2.2; Kim et al., TPDS 2022): one DMA
// descriptor {src A, src B, dst C, p, q, r}. The functional engine (pim_engine) computes its
// bf16 result; the command-level model (pim_command_model) turns it into the standard DDR4
// RD/WR request stream that triggers the computation and times it.
#pragma once

#include <cstdint>

namespace hetsim::silent_pim {

// How the second operand of an element-wise kernel relates to the first (lee2022 Table 2).
enum class Operand2 {
    full,    // (p,r) op (p,r)   Table 2 element-wise (1), (4)
    row,     // (p,r) op (r)     (2), (5): one row vector reused by every row
    scalar,  // (p,r) op (1)     (3), (6)
    column,  // (p,r) op (p,1)   (7): one scalar per row
};

enum class PimOp {
    add,        // C(p,r) = A(p,r) + B          (B shaped by operand2)
    sub,        // C(p,r) = A(p,r) - B
    mul,        // C(p,r) = A(p,r) * B
    matmul,     // C(p,r) = A(p,q) x B(q,r): p vector-matrix products (vACC accumulates)
    transpose,  // C(q,p) = A(p,q)^T: the pass a Gemm with transB = 1 needs first
};

// Names for messages and test output.
constexpr const char* to_string(PimOp op) {
    switch (op) {
        case PimOp::add:
            return "add";
        case PimOp::sub:
            return "sub";
        case PimOp::mul:
            return "mul";
        case PimOp::matmul:
            return "matmul";
        case PimOp::transpose:
            return "transpose";
    }
    return "unknown op";
}

constexpr const char* to_string(Operand2 form) {
    switch (form) {
        case Operand2::full:
            return "full";
        case Operand2::row:
            return "row";
        case Operand2::scalar:
            return "scalar";
        case Operand2::column:
            return "column";
    }
    return "unknown form";
}

// Addresses are byte addresses in the PIM's DRAM; operands are row-major bf16.
struct PimDescriptor {
    PimOp op = PimOp::add;
    std::uint64_t src_a = 0;
    std::uint64_t src_b = 0;
    std::uint64_t dst_c = 0;
    std::int64_t p = 0;
    std::int64_t q = 0;  // matmul inner dimension (element-wise: unused, 0)
    std::int64_t r = 0;
    Operand2 operand2 = Operand2::full;  // element-wise only
};

}  // namespace hetsim::silent_pim
