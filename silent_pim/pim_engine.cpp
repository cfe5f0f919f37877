#include "silent_pim/pim_engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hetsim::silent_pim {

namespace {

constexpr std::uint64_t kBf16Bytes = 2;
// Shapes beyond 2^40 elements are far past any DRAM; the cap keeps every product of two
// dimensions (and its byte size) free of overflow before the capacity check sees it.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

bool is_elementwise(PimOp op) {
    return op == PimOp::add || op == PimOp::sub || op == PimOp::mul;
}

std::string describe(const PimDescriptor& d) {
    std::string s = std::string("Silent-PIM cannot execute ") + to_string(d.op) +
                    " {A=" + std::to_string(d.src_a) + ", B=" + std::to_string(d.src_b) +
                    ", C=" + std::to_string(d.dst_c) + ", p=" + std::to_string(d.p) +
                    ", q=" + std::to_string(d.q) + ", r=" + std::to_string(d.r);
    if (is_elementwise(d.op)) {
        s += std::string(", operand2=") + to_string(d.operand2);
    }
    return s + "}: ";
}

[[noreturn]] void reject(const PimDescriptor& d, const std::string& reason) {
    throw std::invalid_argument(describe(d) + reason);
}

// Elements of a rows x cols operand, rejecting shapes too large for any DRAM.
std::int64_t elements(const PimDescriptor& d, const char* name, std::int64_t rows,
                      std::int64_t cols) {
    if (rows > kMaxElements / cols) {
        reject(d, std::string("operand ") + name + " (" + std::to_string(rows) + " x " +
                      std::to_string(cols) + ") is larger than any PIM DRAM");
    }
    return rows * cols;
}

// A byte range of PIM DRAM an operand occupies.
struct Region {
    const char* name;
    std::uint64_t begin;
    std::uint64_t bytes;
    std::uint64_t end() const { return begin + bytes; }
};

bool overlaps(const Region& x, const Region& y) {
    return x.begin < y.end() && y.begin < x.end();
}

Region region(const PimDescriptor& d, const char* name, std::uint64_t addr, std::int64_t n,
              std::uint64_t capacity_bytes) {
    if (addr % kBf16Bytes != 0) {
        reject(d, std::string("operand ") + name + " address " + std::to_string(addr) +
                      " is not 2-byte aligned (bf16 elements)");
    }
    const std::uint64_t bytes = static_cast<std::uint64_t>(n) * kBf16Bytes;
    if (addr > capacity_bytes || bytes > capacity_bytes - addr) {
        reject(d, std::string("operand ") + name + " [" + std::to_string(addr) + ", +" +
                      std::to_string(bytes) + " B) lies outside the " +
                      std::to_string(capacity_bytes) + " B PIM DRAM");
    }
    return Region{name, addr, bytes};
}

void require_positive(const PimDescriptor& d, const char* dim, std::int64_t value) {
    if (value <= 0) {
        reject(d, std::string(dim) + " = " + std::to_string(value) +
                      " must be positive (an empty or negative shape is no PIM kernel)");
    }
}

}  // namespace

std::int64_t operand2_elements(std::int64_t p, std::int64_t r, Operand2 form) {
    switch (form) {
        case Operand2::full:
            return p * r;
        case Operand2::row:
            return r;
        case Operand2::scalar:
            return 1;
        case Operand2::column:
            return p;
    }
    throw std::invalid_argument("unknown Operand2 form");
}

void validate_descriptor(const PimDescriptor& d, std::uint64_t capacity_bytes) {
    if (is_elementwise(d.op)) {
        require_positive(d, "p", d.p);
        require_positive(d, "r", d.r);
        if (d.operand2 != Operand2::full && d.operand2 != Operand2::row &&
            d.operand2 != Operand2::scalar && d.operand2 != Operand2::column) {
            reject(d, "unknown operand2 form (lee2022 Table 2 has full, row, scalar, column)");
        }
        const std::int64_t n = elements(d, "A", d.p, d.r);
        const Region a = region(d, "A", d.src_a, n, capacity_bytes);
        const Region b =
            region(d, "B", d.src_b, operand2_elements(d.p, d.r, d.operand2), capacity_bytes);
        const Region c = region(d, "C", d.dst_c, n, capacity_bytes);
        // In place on A: each burst of C is written after A's burst at the same position was
        // read into vecA/vecB and that burst is never read again, so C == A is safe. Any
        // other overlap would write results over A elements still to be streamed (or stream
        // results back in), depending on the request order.
        if (overlaps(c, a) && c.begin != a.begin) {
            reject(d,
                   "dst C partially overlaps src A; only exact in-place (C == A) is "
                   "safe for a streamed operand");
        }
        if (overlaps(c, b)) {
            if (d.operand2 != Operand2::full) {
                reject(d, std::string("dst C overlaps src B, which the ") + to_string(d.operand2) +
                              " form keeps re-reading (or holds) while C is written");
            }
            if (c.begin != b.begin) {
                reject(d,
                       "dst C partially overlaps src B; only exact in-place (C == B) is "
                       "safe for a streamed operand");
            }
        }
        return;
    }
    switch (d.op) {
        case PimOp::matmul: {
            require_positive(d, "p", d.p);
            require_positive(d, "q", d.q);
            require_positive(d, "r", d.r);
            const Region a = region(d, "A", d.src_a, elements(d, "A", d.p, d.q), capacity_bytes);
            const Region b = region(d, "B", d.src_b, elements(d, "B", d.q, d.r), capacity_bytes);
            const Region c = region(d, "C", d.dst_c, elements(d, "C", d.p, d.r), capacity_bytes);
            // B is re-read for every row of A and A's row for every 32-column block of C, so
            // no write of C may land on either.
            if (overlaps(c, a)) {
                reject(d,
                       "dst C overlaps src A; a matmul re-reads each row of A for every "
                       "32-column block of C, so it cannot run in place");
            }
            if (overlaps(c, b)) {
                reject(d,
                       "dst C overlaps src B; a matmul re-reads the whole of B for every "
                       "row of A (lee2022 §2.2), so it cannot run in place");
            }
            return;
        }
        case PimOp::transpose: {
            require_positive(d, "p", d.p);
            require_positive(d, "q", d.q);
            const std::int64_t n = elements(d, "A", d.p, d.q);
            const Region a = region(d, "A", d.src_a, n, capacity_bytes);
            const Region c = region(d, "C", d.dst_c, n, capacity_bytes);
            if (overlaps(c, a)) {
                reject(d,
                       "dst C overlaps src A; the transpose gathers each output burst from "
                       "32 source rows, so it cannot run in place");
            }
            return;
        }
        default:
            reject(d, "unknown op (Silent-PIM does add, sub, mul, matmul and transpose)");
    }
}

// ---------------------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------------------

void PimEngine::execute(const PimDescriptor& d) {
    validate_descriptor(d, memory_.capacity_bytes());
    ++stats_.descriptors;
    if (is_elementwise(d.op)) {
        run_elementwise(d);
    } else if (d.op == PimOp::matmul) {
        run_matmul(d);
    } else {
        run_transpose(d);
    }
}

void PimEngine::execute(std::span<const PimDescriptor> descriptors) {
    for (const PimDescriptor& d : descriptors) {
        execute(d);
    }
}

void PimEngine::rd_burst(std::uint64_t addr, std::int64_t n, bf16* out) {
    ++stats_.rd_bursts;
    memory_.read_bf16(addr, std::span<bf16>(out, static_cast<std::size_t>(n)));
}

void PimEngine::wr_vacc(std::uint64_t addr, std::int64_t n) {
    bf16 out[kBurstElements];
    for (std::int64_t e = 0; e < n; ++e) {
        out[e] = bf16(regs_.v_acc[e]);  // the one RNE rounding of vACC on write-back
    }
    ++stats_.wr_bursts;
    memory_.write_bf16(addr, std::span<const bf16>(out, static_cast<std::size_t>(n)));
}

namespace {

// One lane of the vector unit: x op y, rounded to bf16 (x from A, y from B).
bf16 lane(PimOp op, bf16 x, bf16 y) {
    switch (op) {
        case PimOp::add:
            return bf16_add(x, y);
        case PimOp::sub:
            return bf16_sub(x, y);
        default:
            return bf16_mul(x, y);
    }
}

}  // namespace

void PimEngine::chunk_a_in_veca(PimOp op, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                std::int64_t n) {
    rd_burst(a, n, regs_.vec_a);
    bf16 bus[kBurstElements];  // B's burst on the DQ bus; vecB latches one beat per clock
    rd_burst(b, n, bus);
    for (std::int64_t beat = 0; beat * kLanes < n; ++beat) {
        const std::int64_t first = beat * kLanes;
        const std::int64_t lanes = std::min(kLanes, n - first);
        std::copy_n(bus + first, lanes, regs_.vec_b);
        for (std::int64_t l = 0; l < lanes; ++l) {
            regs_.v_acc[first + l] = lane(op, regs_.vec_a[first + l], regs_.vec_b[l]).to_float();
        }
        ++stats_.vector_ops;
        stats_.lane_ops += static_cast<std::uint64_t>(lanes);
    }
    wr_vacc(c, n);
}

void PimEngine::chunk_a_in_vecb(PimOp op, std::uint64_t a, std::uint64_t c, std::int64_t n) {
    bf16 bus[kBurstElements];  // A's burst; vecA holds the replicated scalar
    rd_burst(a, n, bus);
    for (std::int64_t beat = 0; beat * kLanes < n; ++beat) {
        const std::int64_t first = beat * kLanes;
        const std::int64_t lanes = std::min(kLanes, n - first);
        std::copy_n(bus + first, lanes, regs_.vec_b);
        for (std::int64_t l = 0; l < lanes; ++l) {
            // A stays the left operand (A - s, not s - A).
            regs_.v_acc[first + l] = lane(op, regs_.vec_b[l], regs_.vec_a[first + l]).to_float();
        }
        ++stats_.vector_ops;
        stats_.lane_ops += static_cast<std::uint64_t>(lanes);
    }
    wr_vacc(c, n);
}

void PimEngine::run_elementwise(const PimDescriptor& d) {
    const std::uint64_t a = d.src_a, b = d.src_b, c = d.dst_c;
    const std::int64_t p = d.p, r = d.r;
    switch (d.operand2) {
        case Operand2::full: {
            // Table 2 (1), (4): one contiguous stream of p*r elements for A, B and C; row
            // boundaries do not matter, every element is used once.
            const std::int64_t total = p * r;
            for (std::int64_t s = 0; s < total; s += kBurstElements) {
                const std::uint64_t off = static_cast<std::uint64_t>(s) * kBf16Bytes;
                chunk_a_in_veca(d.op, a + off, b + off, c + off,
                                std::min(kBurstElements, total - s));
            }
            return;
        }
        case Operand2::row:
            // Table 2 (2), (5): row i of A meets the same row vector, re-read for every row.
            for (std::int64_t i = 0; i < p; ++i) {
                for (std::int64_t s = 0; s < r; s += kBurstElements) {
                    const std::uint64_t off = static_cast<std::uint64_t>(i * r + s) * kBf16Bytes;
                    chunk_a_in_veca(d.op, a + off, b + static_cast<std::uint64_t>(s) * kBf16Bytes,
                                    c + off, std::min(kBurstElements, r - s));
                }
            }
            return;
        case Operand2::scalar: {
            // Table 2 (3), (6): one RD of the scalar, replicated into every lane of vecA.
            bf16 bus[1];
            rd_burst(b, 1, bus);
            std::fill(std::begin(regs_.vec_a), std::end(regs_.vec_a), bus[0]);
            const std::int64_t total = p * r;
            for (std::int64_t s = 0; s < total; s += kBurstElements) {
                const std::uint64_t off = static_cast<std::uint64_t>(s) * kBf16Bytes;
                chunk_a_in_vecb(d.op, a + off, c + off, std::min(kBurstElements, total - s));
            }
            return;
        }
        case Operand2::column:
            // Table 2 (7): row i of A meets B[i] (B is (p,1)), loaded into vecA once per row.
            for (std::int64_t i = 0; i < p; ++i) {
                bf16 bus[1];
                rd_burst(b + static_cast<std::uint64_t>(i) * kBf16Bytes, 1, bus);
                std::fill(std::begin(regs_.vec_a), std::end(regs_.vec_a), bus[0]);
                for (std::int64_t s = 0; s < r; s += kBurstElements) {
                    const std::uint64_t off = static_cast<std::uint64_t>(i * r + s) * kBf16Bytes;
                    chunk_a_in_vecb(d.op, a + off, c + off, std::min(kBurstElements, r - s));
                }
            }
            return;
    }
}

void PimEngine::run_matmul(const PimDescriptor& d) {
    const std::int64_t p = d.p, q = d.q, r = d.r;
    // lee2022 §2.2: "Silent-PIM performs a matrix-matrix (MM) multiplication, A x B = C, by
    // repeating a vector-matrix (VM) multiplication column-wise by the number of rows of A."
    for (std::int64_t i = 0; i < p; ++i) {
        // vACC holds one output burst: 32 columns of row i of C at a time.
        for (std::int64_t c0 = 0; c0 < r; c0 += kBurstElements) {
            const std::int64_t ncols = std::min(kBurstElements, r - c0);
            std::fill_n(regs_.v_acc, ncols, 0.0f);
            for (std::int64_t k0 = 0; k0 < q; k0 += kBurstElements) {
                const std::int64_t nk = std::min(kBurstElements, q - k0);
                // 32 inputs a[i][k0 .. k0+nk) into vecA.
                rd_burst(d.src_a + static_cast<std::uint64_t>(i * q + k0) * kBf16Bytes, nk,
                         regs_.vec_a);
                for (std::int64_t kk = 0; kk < nk; ++kk) {
                    const std::int64_t k = k0 + kk;
                    // Row k of B, this column block: 4 beats of 8 weights through vecB.
                    bf16 bus[kBurstElements];
                    rd_burst(d.src_b + static_cast<std::uint64_t>(k * r + c0) * kBf16Bytes, ncols,
                             bus);
                    const bf16 a_k = regs_.vec_a[kk];
                    for (std::int64_t beat = 0; beat * kLanes < ncols; ++beat) {
                        const std::int64_t first = beat * kLanes;
                        const std::int64_t lanes = std::min(kLanes, ncols - first);
                        std::copy_n(bus + first, lanes, regs_.vec_b);
                        for (std::int64_t l = 0; l < lanes; ++l) {
                            // vACC[j] += a[i][k] * B[k][j], fp32, k ascending.
                            regs_.v_acc[first + l] =
                                bf16_mac(regs_.v_acc[first + l], a_k, regs_.vec_b[l]);
                        }
                        ++stats_.vector_ops;
                        stats_.lane_ops += static_cast<std::uint64_t>(lanes);
                    }
                }
            }
            wr_vacc(d.dst_c + static_cast<std::uint64_t>(i * r + c0) * kBf16Bytes, ncols);
        }
    }
}

void PimEngine::run_transpose(const PimDescriptor& d) {
    const std::int64_t p = d.p, q = d.q;  // A (p,q) -> C (q,p)
    for (std::int64_t j = 0; j < q; ++j) {
        // The burst of each source row that holds column j.
        const std::int64_t j0 = j / kBurstElements * kBurstElements;
        const std::int64_t m = std::min(kBurstElements, q - j0);
        for (std::int64_t i0 = 0; i0 < p; i0 += kBurstElements) {
            const std::int64_t n = std::min(kBurstElements, p - i0);
            for (std::int64_t ii = 0; ii < n; ++ii) {
                bf16 bus[kBurstElements];
                rd_burst(d.src_a + static_cast<std::uint64_t>((i0 + ii) * q + j0) * kBf16Bytes, m,
                         bus);
                regs_.vec_a[ii] = bus[j - j0];  // latch one lane
            }
            // WR of vecA: C[j][i0 .. i0+n) = A[i0 .. i0+n)[j]. Bits move unchanged.
            ++stats_.wr_bursts;
            memory_.write_bf16(d.dst_c + static_cast<std::uint64_t>(j * p + i0) * kBf16Bytes,
                               std::span<const bf16>(regs_.vec_a, static_cast<std::size_t>(n)));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Lowering
// ---------------------------------------------------------------------------------------

namespace {

std::string shape_string(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return s + ")";
}

void require_positive_dims(const char* what, std::int64_t p, std::int64_t q, std::int64_t r) {
    if (p <= 0 || q <= 0 || r <= 0) {
        throw std::invalid_argument(std::string(what) + ": dimensions p=" + std::to_string(p) +
                                    ", q=" + std::to_string(q) + ", r=" + std::to_string(r) +
                                    " must all be positive");
    }
    if (p > kMaxElements / q || p > kMaxElements / r || q > kMaxElements / r) {
        throw std::invalid_argument(std::string(what) + ": shape too large for any PIM DRAM");
    }
}

void require_size(const char* what, const char* operand, std::size_t got, std::int64_t want) {
    if (got != static_cast<std::size_t>(want)) {
        throw std::invalid_argument(std::string(what) + ": operand " + operand + " has " +
                                    std::to_string(got) + " values, its shape needs " +
                                    std::to_string(want));
    }
}

std::uint64_t align_to_burst(std::uint64_t addr) {
    const auto burst = static_cast<std::uint64_t>(kBurstBytes);
    return (addr + burst - 1) / burst * burst;
}

// Bump allocation of operands in PIM memory, each starting on a burst boundary.
class Layout {
public:
    explicit Layout(std::uint64_t base) : next_(align_to_burst(base)) {}
    std::uint64_t place(std::int64_t n_elements) {
        const std::uint64_t at = next_;
        next_ = align_to_burst(next_ + static_cast<std::uint64_t>(n_elements) * kBf16Bytes);
        return at;
    }

private:
    std::uint64_t next_;
};

PimOpRun execute_and_read(PimMemory& memory, std::vector<PimDescriptor> descriptors,
                          std::uint64_t c, std::int64_t p, std::int64_t r) {
    PimEngine engine(memory);
    engine.execute(descriptors);
    PimOpRun run;
    run.output = memory.read_matrix(c, p, r);
    run.descriptors = std::move(descriptors);
    run.stats = engine.stats();
    return run;
}

}  // namespace

Operand2 classify_operand2(std::int64_t p, std::int64_t r,
                           const std::vector<std::int64_t>& b_shape) {
    std::vector<std::int64_t> s = b_shape;
    while (s.size() > 2 && s.front() == 1) {
        s.erase(s.begin());
    }
    const bool all_ones = std::all_of(s.begin(), s.end(), [](std::int64_t x) { return x == 1; });
    if (s.size() == 2 && s[0] == p && s[1] == r) {
        return Operand2::full;
    }
    if (s.size() <= 2 && all_ones) {
        return Operand2::scalar;
    }
    if ((s.size() == 1 && s[0] == r) || (s.size() == 2 && s[0] == 1 && s[1] == r)) {
        return Operand2::row;
    }
    if (s.size() == 2 && s[0] == p && s[1] == 1) {
        return Operand2::column;
    }
    throw std::invalid_argument(
        "B of shape " + shape_string(b_shape) + " does not broadcast onto A (" + std::to_string(p) +
        ", " + std::to_string(r) +
        ") in a form Silent-PIM has; lee2022 Table 2 forms are (p,r), (r) or (1,r), (1), and "
        "(p,1)");
}

PimDescriptor lower_binary(PimOp op, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                           std::int64_t p, std::int64_t r, Operand2 form) {
    if (!is_elementwise(op)) {
        throw std::invalid_argument(std::string("lower_binary: ") + to_string(op) +
                                    " is not an element-wise op (add, sub, mul)");
    }
    PimDescriptor d;
    d.op = op;
    d.src_a = a;
    d.src_b = b;
    d.dst_c = c;
    d.p = p;
    d.q = 0;
    d.r = r;
    d.operand2 = form;
    return d;
}

PimDescriptor lower_matmul(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::int64_t p,
                           std::int64_t q, std::int64_t r) {
    PimDescriptor d;
    d.op = PimOp::matmul;
    d.src_a = a;
    d.src_b = b;
    d.dst_c = c;
    d.p = p;
    d.q = q;
    d.r = r;
    return d;
}

std::vector<PimDescriptor> lower_gemm(const GemmAddresses& addrs, std::int64_t p, std::int64_t q,
                                      std::int64_t r, bool trans_b, Operand2 bias_form) {
    std::vector<PimDescriptor> out;
    std::uint64_t weight = addrs.b;
    if (trans_b) {
        // B is stored (r,q): write B^T (q,r) so the vector-matrix product can stream it.
        PimDescriptor t;
        t.op = PimOp::transpose;
        t.src_a = addrs.b;
        t.dst_c = addrs.scratch;
        t.p = r;
        t.q = q;
        out.push_back(t);
        weight = addrs.scratch;
    }
    out.push_back(lower_matmul(addrs.a, weight, addrs.c, p, q, r));
    // Bias added in place on the product (C == A of the add is the allowed aliasing).
    out.push_back(lower_binary(PimOp::add, addrs.c, addrs.bias, addrs.c, p, r, bias_form));
    return out;
}

PimOpRun run_binary(PimMemory& memory, PimOp op, std::span<const bf16> a, std::int64_t p,
                    std::int64_t r, std::span<const bf16> b,
                    const std::vector<std::int64_t>& b_shape, std::uint64_t base_addr) {
    require_positive_dims("run_binary", p, 1, r);
    const Operand2 form = classify_operand2(p, r, b_shape);
    require_size("run_binary", "A", a.size(), p * r);
    require_size("run_binary", "B", b.size(), operand2_elements(p, r, form));
    Layout layout(base_addr);
    const std::uint64_t a_addr = layout.place(p * r);
    const std::uint64_t b_addr = layout.place(operand2_elements(p, r, form));
    const std::uint64_t c_addr = layout.place(p * r);
    memory.write_bf16(a_addr, a);
    memory.write_bf16(b_addr, b);
    return execute_and_read(memory, {lower_binary(op, a_addr, b_addr, c_addr, p, r, form)}, c_addr,
                            p, r);
}

PimOpRun run_matmul(PimMemory& memory, std::span<const bf16> a, std::span<const bf16> b,
                    std::int64_t p, std::int64_t q, std::int64_t r, std::uint64_t base_addr) {
    require_positive_dims("run_matmul", p, q, r);
    require_size("run_matmul", "A", a.size(), p * q);
    require_size("run_matmul", "B", b.size(), q * r);
    Layout layout(base_addr);
    const std::uint64_t a_addr = layout.place(p * q);
    const std::uint64_t b_addr = layout.place(q * r);
    const std::uint64_t c_addr = layout.place(p * r);
    memory.write_bf16(a_addr, a);
    memory.write_bf16(b_addr, b);
    return execute_and_read(memory, {lower_matmul(a_addr, b_addr, c_addr, p, q, r)}, c_addr, p, r);
}

PimOpRun run_gemm(PimMemory& memory, std::span<const bf16> a, std::span<const bf16> b,
                  std::span<const bf16> bias, std::int64_t p, std::int64_t q, std::int64_t r,
                  bool trans_b, const std::vector<std::int64_t>& bias_shape,
                  std::uint64_t base_addr) {
    require_positive_dims("run_gemm", p, q, r);
    const Operand2 bias_form = classify_operand2(p, r, bias_shape);
    require_size("run_gemm", "A", a.size(), p * q);
    require_size("run_gemm", "B", b.size(), q * r);
    require_size("run_gemm", "bias", bias.size(), operand2_elements(p, r, bias_form));
    Layout layout(base_addr);
    GemmAddresses addrs;
    addrs.a = layout.place(p * q);
    addrs.b = layout.place(q * r);
    addrs.bias = layout.place(operand2_elements(p, r, bias_form));
    addrs.scratch = trans_b ? layout.place(q * r) : 0;
    addrs.c = layout.place(p * r);
    memory.write_bf16(addrs.a, a);
    memory.write_bf16(addrs.b, b);
    memory.write_bf16(addrs.bias, bias);
    return execute_and_read(memory, lower_gemm(addrs, p, q, r, trans_b, bias_form), addrs.c, p, r);
}

}  // namespace hetsim::silent_pim
