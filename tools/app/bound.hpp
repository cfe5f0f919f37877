// `hetsim calibrate PLATFORM --bound MEASUREMENTS.csv`: how well could any model fit these
// measured times, before blaming the model? (issue 25)
//
// A physical kernel model whose library always runs its fastest kernel never predicts less time
// for more work: a roofline, a tile-and-wave model taking its best tile and split (hetsim's GPU
// model), any such model is monotone in the problem's sizes. A real library's heuristic is not:
// on the H100, cuBLAS runs a 16 x 4096 x 4096 fp32 GEMM in 90 us and a 32 x 4096 x 4096 one in
// 53 us, because it picks a different kernel. No monotone model can be right on both. This
// command measures how much such inversions cost, exactly, for the one-op GEMM rows of a
// measurement file (MatMul or Gemm, compared on their (batch, M, N, K) within each device,
// scope and operand type):
//
//   Rows i and j with size_i <= size_j in every dimension conflict at a relative error x when
//   no pair of predictions p_i <= p_j lies within x of both measurements t_i and t_j, i.e. when
//   t_i (1 - x) > t_j (1 + x). A set of rows can all be predicted within x by one monotone
//   model exactly when no two of them conflict (the model max over the rows below of
//   t (1 - x) is monotone and within x of each). Conflict is a strict partial order (it is
//   transitive), so the largest such set is its largest antichain, and by Dilworth's theorem
//   and Koenig's the fewest rows any monotone model must get more than x wrong is the size of a
//   maximum matching in the bipartite graph of conflicting pairs (Boost's Edmonds matching).
//   The count only changes at the thresholds x = (t_i - t_j) / (t_i + t_j) of inverted pairs,
//   so the smallest x that keeps the count within a rank is found by bisecting them.
//
// From those counts it reports, for each group, lower bounds on the median, the 90th
// percentile and the maximum relative error (as `--check` computes them) that any monotone
// model, fitted or not, reaches on these rows, and the rows it must get more than 5 % and 15 %
// wrong; beside them, the platform's own predictions of the same rows and the most inverted
// pairs. A floor near the platform's error says the data, not the model, limit the fit. The
// floor holds for models monotone in the four sizes only: one that sees alignment (bf16 tensor
// cores load 16 bytes at a time only when K and N are multiples of 8) is not, and may beat it.
// So the same floor is computed a second time with only rows of equal row alignment compared
// (the widest access each operand's rows allow, devices::gemm_alignment): it holds for any
// model monotone within each alignment, hetsim's among them. On the H100's bf16 GEMMs the
// inversions all but vanish then (alignment explains them); on its fp32 ones they stay.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "tools/app/fit.hpp"

namespace hetsim::app {

struct InvertedPair {
    std::size_t smaller = 0, larger = 0;  // indices into BoundGroup::rows; smaller is slower
    double ratio = 0.0;                   // t_smaller / t_larger (> 1)
};

// What any model monotone in the sizes reaches on a set of rows, at best.
struct MonotoneFloor {
    std::size_t ordered_pairs = 0;   // comparable pairs: size_i <= size_j, i != j
    std::size_t inverted_pairs = 0;  // of them, measured slower for the smaller
    ErrorSummary floor;              // lower bounds on the median, p90 and max relative error
    std::size_t must_exceed_5 = 0, must_exceed_15 = 0;  // rows it must get > 5 %, > 15 % wrong
    std::vector<InvertedPair> worst;                    // up to five, most inverted first
};

struct BoundGroup {
    std::string device, scope, dtype;
    std::vector<std::size_t> rows;             // indices into the measurement file's rows
    std::vector<std::array<double, 4>> sizes;  // (batch, M, N, K) of each row
    std::vector<double> measured_s;            // of each row
    // The widest access (bytes) the rows of A and of B allow, as one class number per row
    // (devices::gemm_alignment): 16-byte rows, 8-byte, ...
    std::vector<int> alignment;
    MonotoneFloor any;               // every pair of rows comparable
    MonotoneFloor within_alignment;  // only rows of the same alignment class comparable
    ErrorSummary platform;           // the platform's own errors on these rows
};

struct BoundReport {
    CheckReport check;  // the platform's predictions of every row
    std::vector<BoundGroup> groups;
    std::size_t skipped = 0;  // rows that are not a one-op GEMM timing (ratios, other ops)
};

// The fewest of the rows with `sizes` and `times` (both positive) that any model monotone in
// every size must predict with a relative error above `x` (>= 0): a maximum matching over the
// conflicting pairs. With `classes` (one number per row), only rows of the same class are
// compared: the model may do anything between classes. Exposed for tests.
std::size_t monotone_must_exceed(const std::vector<std::array<double, 4>>& sizes,
                                 const std::vector<double>& times, double x,
                                 const std::vector<int>& classes = {});

// MonotoneFloor for rows given directly (`classes` as above).
MonotoneFloor monotone_floor(const std::vector<std::array<double, 4>>& sizes,
                             const std::vector<double>& times,
                             const std::vector<int>& classes = {});

// Loads and predicts the file as `--check` does (the same errors for a bad file), then bounds
// each group of one-op GEMM rows. Throws sim::InputError when the file has none.
BoundReport bound_platform(const std::string& platform_file, const std::string& measurements_file);
std::string format_bound(const BoundReport& report);

}  // namespace hetsim::app
