// GPU / PCIe accelerator: `type: gpu`. One device per component (its own memory, reached over
// a link such as PCIe). The op cost is a kernel model kept physical (spec/simulator.md "GPU",
// issue 25): SMs, clock, FLOP per cycle, memory bandwidth, a launch cost and a kernel floor,
// with the efficiency a function of the shape through these mechanisms only:
//
//   GEMM and convolution (implicit GEMM): the output is cut into tiles of tm x tn, one thread
//   block of `warps` warps each, optionally split along K into s slices (split-K). Edge tiles
//   are computed whole (tile quantisation). The blocks are spread evenly over the SMs, so the
//   busiest SM holds q = ceil(blocks / SMs) of them (wave quantisation), and an SM keeps r of
//   them resident at once, as its registers, threads, shared memory and block slots allow (an
//   occupancy calculator over the datasheet limits). The SM runs its q blocks in rounds of up
//   to r resident blocks. A round of b blocks costs
//       b A + K_s max(L, b C)
//   cycles, K_s the values of K in a slice, where
//       C = 2 tm tn / (FLOP/cycle x compute_efficiency)              the FMAs of one K value
//           + (rows + columns it really loads) x bytes / tile_load_Bpc   and feeding them:
//         the SM's throughput per block and K value, shared by the resident blocks. A SIMT
//         (fp32) kernel's warps issue both its FFMAs and its shared-memory loads, so the two
//         add up; a tensor-core (16-bit) kernel copies its operands asynchronously (cp.async,
//         TMA) while its MMAs run, so C is the larger of the two;
//       L = k_tile_latency_cycles / k_tile: how long a block takes per K value however idle
//         its SM. The main loop moves K in tiles (8 fp32 values a pipeline stage in CUTLASS's
//         SIMT kernels, 32 16-bit ones in its tensor-op kernels) and cannot start the next
//         before its operands arrive, so a stage costs about a memory round trip; a few
//         resident blocks leave the FMA pipes idle. A tensor-core kernel takes
//         tensor_k_tile_latency_cycles instead where the platform gives it: Hopper's
//         tensor-core GEMMs keep more stages of asynchronous copies (TMA) in flight and so
//         expose less of the round trip than the SIMT kernels the fp32 fit sees. TMA needs
//         every operand row on a 16-byte boundary; where one is not, cuBLAS runs Ampere's and
//         Turing's tensor-op kernels (cutlass_80_tensorop_*, cutlass_75_tensorop_*, with
//         cp.async or plain loads: configs/calibration/h100_kernels/stats.csv), which take
//         legacy_tensor_k_tile_latency_cycles where the platform gives it;
//       A = block_overhead_cycles: what a block costs besides its K loop (prologue,
//         epilogue); tensor_block_overhead_cycles for a TMA kernel where the platform gives
//         it, as Hopper's are persistent and overlap one tile's epilogue with the next's loads.
//   A tensor-core (16-bit) kernel copies each operand's rows 16 bytes at a time, which needs
//   every row to start on a 16-byte boundary: a row of K bf16 values does when K is a
//   multiple of 8. Otherwise the library runs a kernel that loads the operand with the widest
//   access its rows allow (8, 4 or 2 bytes), and feeding the tensor cores takes 16 / width
//   times the loads: that operand's share of the load term is scaled by it (row lengths from
//   sim::GemmDims; an H100's bf16 GEMMs with K and N both odd ran 4-8x slower than aligned
//   ones of the same size). A SIMT (fp32) kernel is left as it is: its FFMAs, not its loads,
//   set its pace, and the H100's align1 fp32 kernels ran within 3 % of the model's error on
//   align4 ones (h100_fresh's kernel names).
//   As a library's heuristic does, the tile and split with the least time are taken. The
//   kernel cannot beat streaming its operands once at the achievable bandwidth. A split-K
//   pays a second kernel that reduces the fp32 partial sums: chained_kernel_latency plus the
//   partial sums written and re-read while they sit in L2 (at the peak bandwidth). Convolutions run
//   as cuDNN's implicit-GEMM kernels, which do not split K.
//
//   Where the platform lists `fft` among its conv_algorithms (cuDNN in benchmark mode, which
//   times its algorithms and keeps the fastest), a stride-1, undilated, ungrouped fp32 2-D
//   convolution may instead run as cuDNN's FFT algorithm, and the faster of the two is taken.
//   With T the power of two that holds the padded image (T <= 64, the largest FFT tile cuDNN
//   9 ran on the H100 [assumption]) and F = T (T/2 + 1) frequency bins, its kernels are: the
//   filters flipped; real-to-complex FFTs of the filters and of the input; per bin, the complex
//   product (N x C)(C x K), a real GEMM (N x 2C)(2C x 2K) batched over F; and a complex-to-real
//   FFT of the output. The FFTs stream their bytes (with 2.5 T^2 log2 T^2 FLOPs each), and
//   every kernel after the first is a chained kernel.
//
//   A matrix-vector product (m = 1 or n = 1) is what BLAS runs it as: a GEMV, a streaming
//   kernel, at the library's achievable bandwidth or, when its outputs are too few to occupy
//   every SM, at what the busy SMs load (tile_load_Bpc each).
//
//   Memory-bound kernels stream their bytes at memory_bandwidth x bandwidth_efficiency
//   (achievable versus peak), or run at the FLOP rate if that is slower. The BLAS library's
//   GEMV and skinny-GEMM kernels (the operand floor above) may reach less than such an
//   element-wise kernel, whose loads are all wide and coalesced: gemm_bandwidth_efficiency,
//   by default the same.
//
//   A kernel that reduces across threads (softmax, a norm's statistics, Reduce*:
//   sim::reduces_across_threads) also pays reduction_latency: its dependent steps of warp
//   shuffles, shared memory and barriers, and the pass that follows them.
//
//   Every kernel pays kernel_latency on the GPU (the floor of an empty kernel: launch to
//   completion) and launch_overhead on the host that issues it.
//
// A fused recurrent op (LSTM, GRU, RNN) is one GEMM for its input projection over all steps,
// then the steps, each one product with the recurrent weights and the element-wise gates:
//   - a persistent kernel (hidden <= persistent_rnn_max_hidden; by default every size, as a
//     compiler's fused RNN kernel): one launch for all steps, the recurrent weights held on
//     chip, so a step costs recurrent_step_latency (the grid-wide hand-over between steps),
//     its FMAs at the SMs' rate and its gates' bytes;
//     Through cuDNN that kernel is block-persistent (RNN_blockPersist_fp_LSTM/GRU; grid =
//     batch, block = gates x hidden threads: configs/calibration/h100_reserve3/stats.csv):
//     each sequence is one thread block on an SM of its own, each thread holds the row of
//     recurrent weights it multiplies in registers; a hidden size runs as the template
//     (64, 96, 128, 160, 192; 256 for a vanilla RNN) that holds it. The block first loads those
//     weights (gates x hidden^2 elements at persistent_rnn_weight_load per block, or at
//     persistent_rnn_weight_load_conflicting where a row's bytes are a multiple of 128: the
//     rows a warp reads at once then fall on the same cache sets, as at the template sizes
//     themselves; configs/calibration/h100_persist_odd), then each step
//     costs recurrent_step_latency, the block's FMAs at one SM's rate, and, where a thread's
//     row does not fit in the registers it can have (registers_per_sm / threads, at most 255,
//     less 32 it keeps for itself), the rest of the row re-read from the memory hierarchy at
//     the SM's operand rate, tile_load_Bpc, which the GEMMs fix;
//   - otherwise cuDNN's standard algorithm: per step a GEMM kernel and a gates kernel.
// With recurrent_library: cudnn (a framework calling cuDNN, as PyTorch does), each initial
// state the op is not given (h, and an LSTM's c) is first zeroed by a kernel of its own,
// cuDNN's persistent GRU adds its biases in one more kernel, and a standard-algorithm step's
// product is cuBLAS's small-N kernel, which streams the weights as a GEMV does, while the
// batch is at most 16 (a tiled GEMM above; cuDNN 9's kernel names). The default, fused, is a
// compiler's code, which has none of these. The op's first kernel pays kernel_latency, each
// further one chained_kernel_latency. (zhang2021 §II: DUET finds small RNNs faster on the
// CPU.)
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/platform.hpp"

namespace hetsim::devices {

struct GpuTile {
    int m = 128;
    int n = 128;
    int warps = 4;  // warps per thread block (CUTLASS's 128 x 64 tile: 2 x 2 warps)
};

// What runs a fused recurrent op (LSTM, GRU, RNN): `fused`, a compiler's kernels (TVM), or
// `cudnn`, a framework calling cuDNN (devices/gpu.hpp's header comment has what each costs).
enum class RecurrentLibrary { fused, cudnn };

struct GpuParams {
    int sms = 1;
    double clock_hz = 0.0;
    double fp32_flops_per_cycle_per_sm = 0.0;  // FMA lanes x 2 (Volta: 64 x 2 = 128)
    // Tensor-core rate for 16-bit operands; 0 = the fp32 rate.
    double bf16_flops_per_cycle_per_sm = 0.0;
    double memory_bandwidth_Bps = 0.0;  // device memory (HBM2 / GDDR6), peak
    double launch_overhead_s = 0.0;     // per kernel, host side
    // The free parameters (devices/register.cpp declares their bounds for `calibrate --fit`);
    // the defaults make a plain roofline.
    double compute_efficiency = 1.0;    // fraction of FLOP/cycle the GEMM inner loop reaches
    double bandwidth_efficiency = 1.0;  // achievable / peak memory bandwidth, streaming kernels
    // The same for the BLAS library's GEMV and a GEMM's operand floor; NaN = bandwidth_efficiency.
    double gemm_bandwidth_efficiency = std::numeric_limits<double>::quiet_NaN();
    double tile_load_Bpc = 0.0;          // operand bytes per cycle per SM feeding FMAs; 0 = free
    double block_overhead_cycles = 0.0;  // per thread block, besides its K loop
    double k_tile_latency_cycles = 0.0;  // one K tile (pipeline stage) of a block alone on its SM
    // The same for a tensor-core (16-bit) kernel; NaN = k_tile_latency_cycles.
    double tensor_k_tile_latency_cycles = std::numeric_limits<double>::quiet_NaN();
    // The same for a tensor-core kernel with an operand whose rows are not 16-byte aligned (no
    // TMA: the library's pre-Hopper kernels); NaN = tensor_k_tile_latency_cycles.
    double legacy_tensor_k_tile_latency_cycles = std::numeric_limits<double>::quiet_NaN();
    // block_overhead_cycles for a tensor-core kernel with TMA (every operand row 16-byte
    // aligned): Hopper's cuBLAS kernels (nvjet_sm90_*) are persistent, one block per SM
    // looping over output tiles (their grids hold 128 blocks whatever the size:
    // configs/calibration/h100_kernels/stats.csv), so a tile's prologue and epilogue overlap
    // the next tile's loads; NaN = block_overhead_cycles.
    double tensor_block_overhead_cycles = std::numeric_limits<double>::quiet_NaN();
    // A further kernel queued right behind another (a split-K's reduction, a recurrent step's
    // kernels): its launch gap and floor, besides its body.
    double chained_kernel_latency_s = 0.0;
    double kernel_latency_s = 0.0;          // per kernel, device side
    double reduction_latency_s = 0.0;       // further, per kernel that reduces across threads
    double recurrent_step_latency_s = 0.0;  // per recurrent step inside a fused RNN kernel
    // Bytes per second one block of cuDNN's block-persistent RNN kernel loads its recurrent
    // weights at, before the first step; 0 = free (the weights are on chip already).
    double persistent_rnn_weight_load_Bps = 0.0;
    // The same where a row of weights is a multiple of 128 bytes; NaN = the rate above.
    double persistent_rnn_weight_load_conflicting_Bps = std::numeric_limits<double>::quiet_NaN();
    // Largest hidden size the library runs as a persistent kernel; larger ones launch kernels
    // per step. Infinite: every size (a compiler's fused kernel).
    double persistent_rnn_max_hidden = std::numeric_limits<double>::infinity();
    // The same for one cell type (LSTM, GRU, RNN), where it differs: cuDNN 9 runs a vanilla RNN
    // of hidden 256 persistently, LSTM and GRU only up to 192.
    std::map<std::string, double, std::less<>> persistent_rnn_max_hidden_of_cell;
    double persistent_max_hidden(std::string_view cell) const {
        const auto it = persistent_rnn_max_hidden_of_cell.find(cell);
        return it == persistent_rnn_max_hidden_of_cell.end() ? persistent_rnn_max_hidden
                                                             : it->second;
    }
    RecurrentLibrary recurrent_library = RecurrentLibrary::fused;
    std::vector<GpuTile> gemm_tiles;  // candidate tiles; empty = default_gemm_tiles()
    std::vector<int> split_k = {1, 2, 4, 8, 16, 32, 64};  // candidate K splits
    // What an SM holds at once [datasheet]; the defaults are Volta's to Hopper's (an H100 has
    // 228 KiB of shared memory per SM, a V100 96 KiB; a Turing SM 1024 threads and 16 blocks).
    int registers_per_sm = 65536;
    int max_threads_per_sm = 2048;
    int max_blocks_per_sm = 32;
    double shared_memory_per_sm_bytes = 96.0 * 1024.0;
    std::int64_t memory_bytes = 0;          // 0 = unlimited
    std::set<std::string> unsupported_ops;  // op types the accelerator cannot run
    bool conv_fft = false;                  // conv_algorithms lists fft (cuDNN in benchmark mode)

    double peak_flops() const { return sms * clock_hz * fp32_flops_per_cycle_per_sm; }
    // Blocks of `tile` an SM keeps resident (at least 1); see resident_blocks() in gpu.cpp.
    int resident_blocks(const GpuTile& tile) const;
    double flops_per_cycle_per_sm(sim::DType dtype) const;
    double achievable_bandwidth_Bps() const { return memory_bandwidth_Bps * bandwidth_efficiency; }
    double gemm_achievable_bandwidth_Bps() const {
        return memory_bandwidth_Bps * (std::isnan(gemm_bandwidth_efficiency)
                                           ? bandwidth_efficiency
                                           : gemm_bandwidth_efficiency);
    }
};

// CUTLASS's and cuBLAS's usual thread-block tiles.
const std::vector<GpuTile>& default_gemm_tiles();

// One GEMM kernel's choice and cost, for tests and explanations.
struct GemmKernelCost {
    bool gemv = false;  // run as a matrix-vector product: a streaming kernel, no tiles
    GpuTile tile;
    int split_k = 1;
    double blocks = 0.0;
    double waves = 0.0;      // blocks on the busiest SM: ceil(blocks / SMs)
    double resident = 0.0;   // blocks an SM keeps resident at once
    double rounds = 0.0;     // ceil(waves / resident)
    double compute_s = 0.0;  // the busiest SM's rounds of blocks
    double reduce_s = 0.0;   // the split-K reduction kernel
    double memory_s = 0.0;   // the operands streamed once
    double total_s = 0.0;    // device side, without kernel_latency
};

// The widest load, in bytes (a power of two, at most 16), that the rows of each operand of a
// GEMM allow: 16 unless a row's bytes are not a multiple of 16.
struct GemmAlignment {
    double a_bytes = 16.0;
    double b_bytes = 16.0;
};
// Of rows of `a_row` and `b_row` elements of `dtype` (0: not known, taken as aligned).
GemmAlignment gemm_alignment(double a_row, double b_row, sim::DType dtype);

struct GpuOpCost {
    double kernels = 1.0;
    bool fft = false;       // a convolution run as cuDNN's FFT algorithm
    double device_s = 0.0;  // on the GPU: every kernel's body and kernel_latency
    double host_s = 0.0;    // kernels x launch_overhead
    double total_s = 0.0;   // host_s + device_s
};

class GpuModel final : public sim::DeviceModel {
public:
    explicit GpuModel(GpuParams params);
    std::string type() const override { return "gpu"; }
    sim::DeviceRole role() const override { return sim::DeviceRole::gpu; }
    sim::Support supports(const sim::Graph& graph, const sim::Op& op) const override;
    double op_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    double kernel_time_s(const sim::Graph& graph, const sim::Op& op) const override;
    GpuOpCost cost(const sim::Graph& graph, const sim::Op& op) const;
    // Body of one GEMM kernel (batch products of m x k by k x n, operands of `dtype`) at the
    // best tile and split (no split when `allow_split_k` is false: convolutions). A product
    // with at most `streaming_max_side` rows or columns runs as a streaming kernel (a GEMV).
    // `alignment` is what the operands' rows allow (a tensor-core kernel's loads).
    GemmKernelCost gemm(double batch, double m, double n, double k, sim::DType dtype,
                        bool allow_split_k = true, double streaming_max_side = 1.0,
                        GemmAlignment alignment = {}) const;
    const GpuParams& params() const { return params_; }

private:
    double streaming_s(double bytes, double flops) const;
    // Device time of cuDNN's block-persistent kernel for `steps` steps of a recurrent cell of
    // `gates` gates over `batch` sequences (header comment), the gates' bytes per step apart.
    double block_persistent_rnn_s(double gates, double hidden, double batch, double steps,
                                  double element_bytes) const;
    // Device time of the Conv `op` by the FFT algorithm, without kernel_latency, and its
    // kernel count; nullopt when the algorithm does not apply.
    std::optional<std::pair<double, double>> fft_conv(const sim::Graph& graph,
                                                      const sim::Op& op) const;
    GpuParams params_;
};

// Factory behind `type: gpu` (registered in devices/register.cpp).
void build_gpu(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform);

}  // namespace hetsim::devices
