#include "devices/gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "sim/device_component.hpp"
#include "sim/op_table.hpp"
#include "sim/yaml_params.hpp"

namespace hetsim::devices {

const std::vector<GpuTile>& default_gemm_tiles() {
    // The thread-block tiles of CUTLASS's SGEMM configurations, which cuBLAS's kernels share,
    // with their warp counts (a profile of cuBLAS 13 on an H100 names them, e.g.
    // tilesize128x64x8_warpsize2x2x1): large tiles for throughput, narrow ones for skinny
    // problems.
    static const std::vector<GpuTile> tiles = {
        {256, 128, 8}, {128, 256, 8}, {128, 128, 8}, {256, 64, 4}, {64, 256, 4},
        {128, 64, 4},  {64, 128, 4},  {64, 64, 4},   {128, 32, 4}, {32, 128, 4},
        {64, 32, 2},   {32, 64, 2},   {32, 32, 2}};
    return tiles;
}

namespace {

// 16-bit operands run on the tensor cores (their rate, K tile and operand copies); fp32 on the
// SIMT FMA lanes (TF32 off, as the measurements ran).
bool on_tensor_cores(sim::DType dtype) {
    return dtype == sim::DType::bf16 || dtype == sim::DType::f16;
}

}  // namespace

double GpuParams::flops_per_cycle_per_sm(sim::DType dtype) const {
    return on_tensor_cores(dtype) && bf16_flops_per_cycle_per_sm > 0.0
               ? bf16_flops_per_cycle_per_sm
               : fp32_flops_per_cycle_per_sm;
}

int GpuParams::resident_blocks(const GpuTile& tile) const {
    // The CUDA occupancy calculation over the SM's limits. A block's threads hold its tile's
    // accumulators in registers, tm tn / threads each, plus about 40 for addresses and operand
    // fragments [assumption], at most 255 (the ISA's limit). Its shared memory holds 3 stages
    // of 32 bytes of K (CUTLASS's SIMT k-tile of 8 fp32) for its tm + tn operand rows
    // [assumption].
    const double threads = 32.0 * tile.warps;
    const double registers_per_thread =
        std::min(255.0, static_cast<double>(tile.m) * tile.n / threads + 40.0);
    const double shared_bytes = 3.0 * 32.0 * (tile.m + tile.n);
    const double by_threads = std::floor(max_threads_per_sm / threads);
    const double by_registers = std::floor(registers_per_sm / (registers_per_thread * threads));
    const double by_shared = std::floor(shared_memory_per_sm_bytes / shared_bytes);
    const double resident =
        std::min({static_cast<double>(max_blocks_per_sm), by_threads, by_registers, by_shared});
    return std::max(1, static_cast<int>(resident));
}

GpuModel::GpuModel(GpuParams params) : params_(std::move(params)) {
    const GpuParams& p = params_;
    if (p.sms <= 0 || !(p.clock_hz > 0.0) || !(p.fp32_flops_per_cycle_per_sm > 0.0) ||
        !(p.memory_bandwidth_Bps > 0.0) || p.bf16_flops_per_cycle_per_sm < 0.0) {
        throw std::invalid_argument("GpuModel: sms, clock, FLOP/cycle and bandwidth must be > 0");
    }
    if (!(p.compute_efficiency > 0.0 && p.compute_efficiency <= 1.0) ||
        !(p.bandwidth_efficiency > 0.0 && p.bandwidth_efficiency <= 1.0) ||
        !(std::isnan(p.gemm_bandwidth_efficiency) ||
          (p.gemm_bandwidth_efficiency > 0.0 && p.gemm_bandwidth_efficiency <= 1.0))) {
        throw std::invalid_argument("GpuModel: efficiencies must be in (0, 1]");
    }
    if (p.launch_overhead_s < 0.0 || p.kernel_latency_s < 0.0 || p.tile_load_Bpc < 0.0 ||
        p.block_overhead_cycles < 0.0 || p.k_tile_latency_cycles < 0.0 ||
        p.tensor_k_tile_latency_cycles < 0.0 || p.legacy_tensor_k_tile_latency_cycles < 0.0 ||
        p.tensor_block_overhead_cycles < 0.0 || p.chained_kernel_latency_s < 0.0 ||
        p.recurrent_step_latency_s < 0.0 || p.reduction_latency_s < 0.0 ||
        p.persistent_rnn_weight_load_Bps < 0.0 ||
        p.persistent_rnn_weight_load_conflicting_Bps <= 0.0) {
        throw std::invalid_argument("GpuModel: overheads, rates and latencies must be >= 0");
    }
    if (p.registers_per_sm <= 0 || p.max_threads_per_sm <= 0 || p.max_blocks_per_sm <= 0 ||
        !(p.shared_memory_per_sm_bytes > 0.0)) {
        throw std::invalid_argument("GpuModel: the SM's limits must be > 0");
    }
    for (const GpuTile& tile : p.gemm_tiles) {
        if (tile.m <= 0 || tile.n <= 0 || tile.warps <= 0)
            throw std::invalid_argument("GpuModel: tile sides and warps must be > 0");
    }
    if (params_.gemm_tiles.empty())
        params_.gemm_tiles = default_gemm_tiles();
    // Not splitting is always a candidate (a list without it could leave no candidate).
    if (std::find(params_.split_k.begin(), params_.split_k.end(), 1) == params_.split_k.end())
        params_.split_k.insert(params_.split_k.begin(), 1);
}

sim::Support GpuModel::supports(const sim::Graph&, const sim::Op& op) const {
    if (params_.unsupported_ops.count(op.type) != 0) {
        return sim::Support::no(
            fmt::format("{} is listed under unsupported_ops of this accelerator", op.type));
    }
    return sim::Support::yes();
}

double GpuModel::streaming_s(double bytes, double flops) const {
    return std::max(bytes / params_.achievable_bandwidth_Bps(),
                    flops / (params_.peak_flops() * params_.compute_efficiency));
}

namespace {

// The K depth of one main-loop step (a pipeline stage): CUTLASS's SIMT fp32 kernels load 8
// values of K a stage, its 16-bit tensor-op kernels 32 [assumption: their default tiles]. A
// split-K slice is at least one such step.
double k_tile_depth(sim::DType dtype) {
    return on_tensor_cores(dtype) ? 32.0 : 8.0;
}
// Outputs of a matrix-vector product one thread block computes (a warp per output, as
// cuBLAS's gemv kernels split them) [assumption]; it sets how many SMs a short GEMV occupies.
constexpr double gemv_outputs_per_block = 32.0;

// cuDNN's standard RNN algorithm runs a step's product with the recurrent weights as cuBLAS's
// small-N kernel (gemmSN_TN, which streams the weights as a GEMV does) while the batch is at
// most this, and as a tiled GEMM above: h100_fresh_layers/stats.csv names gemmSN_TN for batches
// 2 to 14 and tiled kernels from 17 [assumption: the threshold between].
constexpr double cudnn_streaming_step_max_batch = 16.0;

// Initial states (ONNX inputs 5, initial_h, and 6, an LSTM's initial_c) the recurrent op `op`
// is not given: a framework zeroes each in a small kernel before cuDNN's call (PyTorch's fill
// kernels ahead of cuDNN's in the profiles of h100_fresh_layers/stats.csv).
double zeroed_initial_states(const sim::Graph& graph, const sim::Op& op) {
    const std::size_t states = op.type == "LSTM" ? 2 : 1;
    double zeroed = 0.0;
    for (std::size_t i = 5; i < 5 + states; ++i) {
        const bool given = i < op.inputs.size() && graph.tensor(op.inputs[i]).elements() > 0;
        zeroed += given ? 0.0 : 1.0;
    }
    return zeroed;
}

// Cycles the busiest SM needs for its q blocks, r resident at once: rounds of b <= r blocks,
// each b A + K_s max(L, b C) (devices/gpu.hpp), with C and L per value of K.
double rounds_cycles(double q, double r, double k_steps, double per_block, double step_latency,
                     double step_throughput) {
    const double full = std::floor(q / r);
    const double rest = q - full * r;
    auto round = [&](double b) {
        return b * per_block + k_steps * std::max(step_latency, b * step_throughput);
    };
    return full * round(r) + (rest > 0.0 ? round(rest) : 0.0);
}

}  // namespace

GemmAlignment gemm_alignment(double a_row, double b_row, sim::DType dtype) {
    const double element_bytes = static_cast<double>(sim::dtype_size_bytes(dtype));
    const auto widest = [&](double row) {
        if (!(row > 0.0))
            return 16.0;
        const double row_bytes = row * element_bytes;
        double width = 16.0;
        while (width > 1.0 && std::fmod(row_bytes, width) != 0.0)
            width /= 2.0;
        return width;
    };
    return {widest(a_row), widest(b_row)};
}

GemmKernelCost GpuModel::gemm(double batch, double m, double n, double k, sim::DType dtype,
                              bool allow_split_k, double streaming_max_side,
                              GemmAlignment alignment) const {
    const GpuParams& p = params_;
    const double element_bytes = static_cast<double>(sim::dtype_size_bytes(dtype));
    // A and B read once, C written once.
    const double operand_bytes = batch * (m * k + k * n + m * n) * element_bytes;
    const double flops = 2.0 * batch * m * n * k;
    GemmKernelCost best;
    if (m <= streaming_max_side || n <= streaming_max_side) {
        // BLAS runs a matrix-vector product as a GEMV: each operand element is used once, so
        // it is a streaming kernel (cuBLAS's gemv kernels), not a tiled GEMM; so does its
        // small-N kernel where a caller asks for it (streaming_max_side). Too few outputs
        // leave SMs idle, and an SM loads at most tile_load_Bpc.
        best.gemv = true;
        best.blocks = std::ceil(batch * std::max(m, n) / gemv_outputs_per_block);
        double bandwidth_Bps = p.gemm_achievable_bandwidth_Bps();
        if (p.tile_load_Bpc > 0.0) {
            const double busy_sms = std::min(static_cast<double>(p.sms), best.blocks);
            bandwidth_Bps = std::min(bandwidth_Bps, busy_sms * p.tile_load_Bpc * p.clock_hz);
        }
        best.memory_s = operand_bytes / bandwidth_Bps;
        best.total_s = std::max(best.memory_s, flops / p.peak_flops());
        return best;
    }
    const double fma_cycles = 2.0 / (p.flops_per_cycle_per_sm(dtype) * p.compute_efficiency);
    const double memory_s = operand_bytes / p.gemm_achievable_bandwidth_Bps();
    const double k_depth = k_tile_depth(dtype);
    const bool tensor_core = on_tensor_cores(dtype);
    // Without 16-byte rows there is no TMA: the library's pre-Hopper tensor-op kernels. A
    // constant the platform leaves out (NaN) falls back to the more general one.
    const bool tma = tensor_core && alignment.a_bytes >= 16.0 && alignment.b_bytes >= 16.0;
    const auto given_or = [](double value, double fallback) {
        return std::isnan(value) ? fallback : value;
    };
    const double tensor_k_tile_latency_cycles =
        given_or(p.tensor_k_tile_latency_cycles, p.k_tile_latency_cycles);
    const double k_tile_latency_cycles =
        !tensor_core ? p.k_tile_latency_cycles
        : tma        ? tensor_k_tile_latency_cycles
              : given_or(p.legacy_tensor_k_tile_latency_cycles, tensor_k_tile_latency_cycles);
    const double step_latency = k_tile_latency_cycles / k_depth;
    const double block_overhead =
        tma ? given_or(p.tensor_block_overhead_cycles, p.block_overhead_cycles)
            : p.block_overhead_cycles;
    best.total_s = std::numeric_limits<double>::infinity();
    for (const GpuTile& tile : p.gemm_tiles) {
        const double tm = tile.m, tn = tile.n;
        // Edge tiles are computed whole: ceil, not m / tm ...
        const double row_tiles = std::ceil(m / tm), column_tiles = std::ceil(n / tn);
        const double tiles = batch * row_tiles * column_tiles;
        // ... but their loads past the edge are predicated off: a block loads its share of the
        // rows and columns that exist.
        const double rows = m / row_tiles, columns = n / column_tiles;
        const double fma_step = tm * tn * fma_cycles;
        // A tensor-core kernel's operand with rows unaligned to 16 bytes loads in narrower
        // accesses: 16 / width times the loads (devices/gpu.hpp).
        const double a_loads = tensor_core ? 16.0 / alignment.a_bytes : 1.0;
        const double b_loads = tensor_core ? 16.0 / alignment.b_bytes : 1.0;
        const double load_step = p.tile_load_Bpc > 0.0 ? (rows * a_loads + columns * b_loads) *
                                                             element_bytes / p.tile_load_Bpc
                                                       : 0.0;
        const double step_throughput =
            tensor_core ? std::max(fma_step, load_step) : fma_step + load_step;
        const double resident = p.resident_blocks(tile);
        for (int split : p.split_k) {
            if (split > 1 && (!allow_split_k || k < k_depth * split))
                continue;
            GemmKernelCost c;
            c.tile = tile;
            c.split_k = split;
            c.blocks = tiles * split;
            c.waves = std::ceil(c.blocks / p.sms);  // blocks on the busiest SM
            c.resident = std::min(resident, c.waves);
            c.rounds = std::ceil(c.waves / resident);
            c.compute_s = rounds_cycles(c.waves, resident, std::ceil(k / split), block_overhead,
                                        step_latency, step_throughput) /
                          p.clock_hz;
            c.memory_s = memory_s;
            // Split-K writes the fp32 partial sums of every slice and a second kernel reduces
            // them; they are re-read while still in L2, so at no less than the peak bandwidth.
            c.reduce_s = split > 1 ? p.chained_kernel_latency_s +
                                         2.0 * split * batch * m * n * 4.0 / p.memory_bandwidth_Bps
                                   : 0.0;
            c.total_s = std::max(c.compute_s, c.memory_s) + c.reduce_s;
            if (c.total_s < best.total_s)
                best = c;
        }
    }
    return best;
}

std::optional<std::pair<double, double>> GpuModel::fft_conv(const sim::Graph& graph,
                                                            const sim::Op& op) const {
    if (!params_.conv_fft || op.inputs.size() < 2 || op.outputs.empty())
        return std::nullopt;
    const sim::Shape& x = graph.tensor(op.inputs[0]).shape;
    const sim::Shape& w = graph.tensor(op.inputs[1]).shape;
    const sim::Shape& y = graph.tensor(op.outputs[0]).shape;
    // fp32 only: the FFT runs the measurements saw (16-bit convolutions take tensor cores).
    if (x.size() != 4 || w.size() != 4 || y.size() != 4 || op.attr_int("group", 1) != 1 ||
        graph.tensor(op.inputs[0]).dtype != sim::DType::f32)
        return std::nullopt;
    for (const char* key : {"strides", "dilations"}) {
        for (std::int64_t v : op.attr_ints(key)) {
            if (v != 1)
                return std::nullopt;
        }
    }
    const std::vector<std::int64_t> pads = op.attr_ints("pads");  // [top, left, bottom, right]
    const auto pad = [&](std::size_t i) { return pads.size() == 4 ? pads[i] : std::int64_t{0}; };
    const double padded =
        static_cast<double>(std::max(x[2] + pad(0) + pad(2), x[3] + pad(1) + pad(3)));
    constexpr double max_fft_side = 64.0;  // devices/gpu.hpp [assumption]
    const double side = std::exp2(std::ceil(std::log2(std::max(2.0, padded))));
    if (side > max_fft_side)
        return std::nullopt;
    const double n = static_cast<double>(x[0]), c = static_cast<double>(x[1]);
    const double k = static_cast<double>(w[0]);
    const double bins = side * (side / 2.0 + 1.0);
    constexpr double complex_bytes = 8.0, real_bytes = 4.0;               // fp32
    const double fft_flops = 2.5 * side * side * std::log2(side * side);  // one real 2-D FFT
    const double filter_bytes = static_cast<double>(sim::element_count(w)) * real_bytes;
    const double flip_s = streaming_s(2.0 * filter_bytes, 0.0);
    const double filter_fft_s =
        streaming_s(filter_bytes + k * c * bins * complex_bytes, k * c * fft_flops);
    const double input_fft_s = streaming_s(
        static_cast<double>(sim::element_count(x)) * real_bytes + n * c * bins * complex_bytes,
        n * c * fft_flops);
    const double product_s = gemm(bins, n, 2.0 * k, 2.0 * c, sim::DType::f32).total_s;
    const double output_fft_s = streaming_s(
        n * k * bins * complex_bytes + static_cast<double>(sim::element_count(y)) * real_bytes,
        n * k * fft_flops);
    constexpr double kernels = 5.0;
    return std::make_pair(flip_s + filter_fft_s + input_fft_s + product_s + output_fft_s +
                              (kernels - 1.0) * params_.chained_kernel_latency_s,
                          kernels);
}

double GpuModel::block_persistent_rnn_s(double gates, double hidden, double batch, double steps,
                                        double element_bytes) const {
    // CUDA's ceiling on registers per thread [datasheet]; the registers a persistent thread
    // keeps besides its weights: the kernels' register counts less their hidden size are 32
    // to 44 where the row fits (LSTM 64: 108, LSTM 96: 132, GRU 96: 130, GRU 128: 160;
    // configs/calibration/h100_reserve3/stats.csv).
    constexpr double max_registers_per_thread = 255.0;
    constexpr double kept_registers = 32.0;
    constexpr double register_bytes = 4.0;
    const GpuParams& p = params_;
    // cuDNN instantiates the kernel for hidden sizes 64, 96, 128, 160 and 192 (and 256 for a
    // vanilla RNN) and runs a hidden size as the smallest of them that holds it
    // (RNN_blockPersist_fp_LSTM<..., 96> for hidden 72, <..., 160> for 132: h100_fresh_layers/ and
    // h100_reserve2/stats.csv).
    constexpr double template_step = 32.0;
    constexpr double smallest_template = 64.0;
    const double rows =
        std::max(smallest_template, template_step * std::ceil(hidden / template_step));
    const double threads = gates * rows;
    // The load moves the weights there are; the registers and FMAs follow the template.
    const double weight_bytes = gates * hidden * hidden * element_bytes;
    const double row_registers = rows * element_bytes / register_bytes;
    const double weight_registers =
        std::max(0.0, std::min(max_registers_per_thread,
                               std::floor(static_cast<double>(p.registers_per_sm) / threads)) -
                          kept_registers);
    const double spilled_bytes =
        threads * std::max(0.0, row_registers - weight_registers) * register_bytes;
    // A thread reads its own row; the 32 rows a warp reads at once are a row's bytes apart,
    // and where that is a multiple of 128 bytes (a cache line) they fall on the same sets.
    constexpr double conflicting_row_bytes = 128.0;
    const bool conflicting = std::fmod(hidden * element_bytes, conflicting_row_bytes) == 0.0 &&
                             !std::isnan(p.persistent_rnn_weight_load_conflicting_Bps);
    const double load_Bps = conflicting ? p.persistent_rnn_weight_load_conflicting_Bps
                                        : p.persistent_rnn_weight_load_Bps;
    const double load_s = load_Bps > 0.0 ? weight_bytes / load_Bps : 0.0;
    const double step_s =
        p.recurrent_step_latency_s +
        2.0 * threads * rows / (p.fp32_flops_per_cycle_per_sm * p.clock_hz * p.compute_efficiency) +
        (p.tile_load_Bpc > 0.0 ? spilled_bytes / (p.tile_load_Bpc * p.clock_hz) : 0.0);
    // One block per sequence, one block per SM: more sequences than SMs run in rounds.
    const double rounds = std::ceil(batch / static_cast<double>(p.sms));
    return rounds * (load_s + steps * step_s);
}

GpuOpCost GpuModel::cost(const sim::Graph& graph, const sim::Op& op) const {
    GpuOpCost c;
    const sim::OpCategory category = sim::op_category(op.type);
    if (category == sim::OpCategory::view) {  // views alias their input: no kernel at all
        c.kernels = 0.0;
        return c;
    }
    const sim::DType dtype = op.inputs.empty() ? sim::DType::f32 : graph.tensor(op.inputs[0]).dtype;
    const double element_bytes = static_cast<double>(sim::dtype_size_bytes(dtype));
    const double op_bytes = static_cast<double>(op.bytes_read + op.bytes_written);
    if (const auto rnn = sim::recurrent_dims(graph, op)) {
        // Per direction: the input projection X W^T for all steps at once (one GEMM kernel),
        // then the steps (devices/gpu.hpp).
        const double hidden = static_cast<double>(rnn->hidden);
        const double gates_h = static_cast<double>(rnn->gates) * hidden;
        const double steps = static_cast<double>(rnn->seq);
        const double batch = static_cast<double>(rnn->batch);
        const double directions = static_cast<double>(rnn->directions);
        const double projection =
            gemm(1.0, steps * batch, gates_h, static_cast<double>(rnn->input), dtype).total_s;
        // The gates read the pre-activations and the cell state, write h and c.
        const double gate_s = streaming_s(batch * (gates_h + 3.0 * hidden) * element_bytes, 0.0);
        const bool cudnn = params_.recurrent_library == RecurrentLibrary::cudnn;
        // Through cuDNN, a zeroing kernel for each initial state the op is not given.
        const double zeroed = cudnn ? zeroed_initial_states(graph, op) : 0.0;
        double kernels = zeroed;
        double bodies_s = zeroed * streaming_s(directions * batch * hidden * element_bytes, 0.0);
        if (hidden <= params_.persistent_max_hidden(sim::anchor_type(op))) {
            double steps_s = 0.0;
            if (cudnn) {
                steps_s = block_persistent_rnn_s(static_cast<double>(rnn->gates), hidden, batch,
                                                 steps, element_bytes) +
                          steps * gate_s;
            } else {  // a compiler's kernel: the whole GPU on each step
                const double step_flops = 2.0 * batch * gates_h * hidden;
                steps_s =
                    steps *
                    (params_.recurrent_step_latency_s +
                     step_flops / (params_.peak_flops() * params_.compute_efficiency) + gate_s);
            }
            kernels += 2.0 * directions;
            bodies_s += directions * (projection + steps_s);
            if (cudnn && op.type == "GRU") {
                // cuDNN's persistent GRU adds the biases to the projection in a kernel of its
                // own (persistRNN_addBias in h100_fresh_layers/stats.csv): it reads and writes
                // the projection.
                kernels += directions;
                bodies_s +=
                    directions * streaming_s(2.0 * steps * batch * gates_h * element_bytes, 0.0);
            }
        } else {
            const double step_product = gemm(1.0, batch, gates_h, hidden, dtype, true,
                                             cudnn ? cudnn_streaming_step_max_batch : 1.0)
                                            .total_s;
            kernels += directions * (1.0 + 2.0 * steps);
            bodies_s += directions * (projection + steps * (step_product + gate_s));
        }
        // The first kernel pays the floor of a lone kernel; each further one is queued behind
        // the one before.
        c.kernels = kernels;
        c.device_s = params_.kernel_latency_s + (kernels - 1.0) * params_.chained_kernel_latency_s +
                     bodies_s;
    } else if (const auto dims = sim::gemm_dims(graph, op)) {
        // A Conv, or a fusion group anchored at one (its operands and attributes come first).
        const bool conv = sim::anchor_type(op) == "Conv";
        GemmKernelCost k = gemm(dims->batch, dims->m, dims->n, dims->k, dtype, !conv, 1.0,
                                gemm_alignment(dims->a_row, dims->b_row, dtype));
        if (conv) {
            // Implicit GEMM never materialises im2col: device memory sees the op's tensors.
            k.memory_s = op_bytes / params_.memory_bandwidth_Bps;
            k.total_s = std::max(k.total_s, k.memory_s);
            // The FFT algorithm, where it applies and is faster (cuDNN's benchmark mode).
            if (const auto fft = fft_conv(graph, op); fft && fft->first < k.total_s) {
                k.total_s = fft->first;
                c.kernels = fft->second;
                c.fft = true;
            }
        }
        c.device_s = params_.kernel_latency_s + k.total_s;
    } else {
        c.device_s = params_.kernel_latency_s + streaming_s(op_bytes, op.flops);
        if (sim::reduces_across_threads(sim::anchor_type(op)))
            c.device_s += params_.reduction_latency_s;
    }
    c.host_s = c.kernels * params_.launch_overhead_s;
    c.total_s = c.host_s + c.device_s;
    return c;
}

double GpuModel::op_time_s(const sim::Graph& graph, const sim::Op& op) const {
    if (!supports(graph, op).ok)
        return std::numeric_limits<double>::infinity();
    return cost(graph, op).total_s;
}

double GpuModel::kernel_time_s(const sim::Graph& graph, const sim::Op& op) const {
    if (!supports(graph, op).ok)
        return std::numeric_limits<double>::infinity();
    return cost(graph, op).device_s;
}

namespace {

std::vector<GpuTile> parse_tiles(const sim::ConfigNode& node) {
    node.expect_sequence();
    std::vector<GpuTile> tiles;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const sim::ConfigNode tile = node.at(i);
        tile.expect_sequence();
        if (tile.size() != 2 && tile.size() != 3) {
            tile.fail(
                "expected [rows, columns] or [rows, columns, warps] of a thread-block "
                "tile, e.g. [128, 64, 4]");
        }
        const std::int64_t rows = tile.at(0).as_int();
        const std::int64_t cols = tile.at(1).as_int();
        const std::int64_t warps = tile.size() == 3 ? tile.at(2).as_int() : GpuTile{}.warps;
        if (rows <= 0 || cols <= 0 || rows > 4096 || cols > 4096)
            tile.fail(fmt::format("tile sides must be in 1..4096, got [{}, {}]", rows, cols));
        if (warps <= 0 || warps > 32)
            tile.fail(fmt::format("a block has 1..32 warps, got {}", warps));
        tiles.push_back({static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(warps)});
    }
    if (tiles.empty())
        node.fail("expected at least one tile");
    return tiles;
}

double fraction(const sim::ConfigNode& node, const std::string& key) {
    if (!node.has(key))
        return 1.0;
    const double v = node.at(key).as_double();
    if (!(v > 0.0 && v <= 1.0))
        node[key].fail(fmt::format("must be in (0, 1], got {}", v));
    return v;
}

double non_negative_cycles(const sim::ConfigNode& node, const std::string& key) {
    if (!node.has(key))
        return 0.0;
    const double v = node.at(key).as_double();
    if (!(v >= 0.0))
        node[key].fail(fmt::format("must be >= 0 cycles, got {}", v));
    return v;
}

}  // namespace

void build_gpu(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(sim::device_component_keys({"device",
                                                 "sms",
                                                 "clock",
                                                 "fp32_flops_per_cycle_per_sm",
                                                 "bf16_flops_per_cycle_per_sm",
                                                 "memory_bandwidth",
                                                 "bandwidth_efficiency",
                                                 "gemm_bandwidth_efficiency",
                                                 "compute_efficiency",
                                                 "tile_load_Bpc",
                                                 "block_overhead_cycles",
                                                 "k_tile_latency_cycles",
                                                 "tensor_k_tile_latency_cycles",
                                                 "legacy_tensor_k_tile_latency_cycles",
                                                 "tensor_block_overhead_cycles",
                                                 "chained_kernel_latency",
                                                 "kernel_latency",
                                                 "reduction_latency",
                                                 "launch_overhead",
                                                 "recurrent_step_latency",
                                                 "persistent_rnn_max_hidden",
                                                 "persistent_rnn_weight_load",
                                                 "persistent_rnn_weight_load_conflicting",
                                                 "recurrent_library",
                                                 "registers_per_sm",
                                                 "max_threads_per_sm",
                                                 "max_blocks_per_sm",
                                                 "shared_memory_per_sm",
                                                 "gemm_tiles",
                                                 "split_k",
                                                 "conv_algorithms",
                                                 "memory",
                                                 "unsupported_ops"}));
    GpuParams p;
    p.sms = sim::positive_int(node, "sms");
    p.clock_hz = node.require_positive_quantity("clock", sim::Quantity::frequency);
    p.fp32_flops_per_cycle_per_sm = sim::positive_number(node, "fp32_flops_per_cycle_per_sm");
    if (node.has("bf16_flops_per_cycle_per_sm"))
        p.bf16_flops_per_cycle_per_sm = sim::positive_number(node, "bf16_flops_per_cycle_per_sm");
    p.memory_bandwidth_Bps =
        node.require_positive_quantity("memory_bandwidth", sim::Quantity::bandwidth);
    p.bandwidth_efficiency = fraction(node, "bandwidth_efficiency");
    if (node.has("gemm_bandwidth_efficiency"))
        p.gemm_bandwidth_efficiency = fraction(node, "gemm_bandwidth_efficiency");
    p.compute_efficiency = fraction(node, "compute_efficiency");
    if (node.has("tile_load_Bpc"))
        p.tile_load_Bpc = sim::positive_number(node, "tile_load_Bpc");
    p.block_overhead_cycles = non_negative_cycles(node, "block_overhead_cycles");
    p.k_tile_latency_cycles = non_negative_cycles(node, "k_tile_latency_cycles");
    if (node.has("tensor_k_tile_latency_cycles"))
        p.tensor_k_tile_latency_cycles = non_negative_cycles(node, "tensor_k_tile_latency_cycles");
    if (node.has("tensor_block_overhead_cycles"))
        p.tensor_block_overhead_cycles = non_negative_cycles(node, "tensor_block_overhead_cycles");
    if (node.has("legacy_tensor_k_tile_latency_cycles")) {
        p.legacy_tensor_k_tile_latency_cycles =
            non_negative_cycles(node, "legacy_tensor_k_tile_latency_cycles");
    }
    p.chained_kernel_latency_s = sim::non_negative_time(node, "chained_kernel_latency");
    if (node.has("registers_per_sm"))
        p.registers_per_sm = sim::positive_int(node, "registers_per_sm");
    if (node.has("max_threads_per_sm"))
        p.max_threads_per_sm = sim::positive_int(node, "max_threads_per_sm");
    if (node.has("max_blocks_per_sm"))
        p.max_blocks_per_sm = sim::positive_int(node, "max_blocks_per_sm");
    p.shared_memory_per_sm_bytes = sim::optional_positive(
        node, "shared_memory_per_sm", sim::Quantity::data_size, p.shared_memory_per_sm_bytes);
    p.launch_overhead_s = sim::non_negative_time(node, "launch_overhead");
    p.kernel_latency_s = sim::non_negative_time(node, "kernel_latency");
    p.reduction_latency_s = sim::non_negative_time(node, "reduction_latency");
    p.recurrent_step_latency_s = sim::non_negative_time(node, "recurrent_step_latency");
    p.persistent_rnn_weight_load_Bps =
        sim::optional_positive(node, "persistent_rnn_weight_load", sim::Quantity::bandwidth, 0.0);
    if (node.has("persistent_rnn_weight_load_conflicting")) {
        p.persistent_rnn_weight_load_conflicting_Bps = sim::optional_positive(
            node, "persistent_rnn_weight_load_conflicting", sim::Quantity::bandwidth, 0.0);
    }
    if (node.has("persistent_rnn_max_hidden")) {
        // One size for every cell, or {LSTM: 192, GRU: 192, RNN: 256}: a size per cell type.
        const sim::ConfigNode limit = node.at("persistent_rnn_max_hidden");
        if (limit.is_map()) {
            limit.expect_keys({"LSTM", "GRU", "RNN"});
            for (const std::string& cell : limit.keys())
                p.persistent_rnn_max_hidden_of_cell[cell] = sim::positive_int(limit, cell);
        } else {
            p.persistent_rnn_max_hidden = sim::positive_int(node, "persistent_rnn_max_hidden");
        }
    }
    if (node.has("recurrent_library")) {
        const sim::ConfigNode library = node.at("recurrent_library");
        const std::string name = library.as_string();
        if (name == "cudnn")
            p.recurrent_library = RecurrentLibrary::cudnn;
        else if (name != "fused")
            library.fail(fmt::format("expected 'fused' or 'cudnn', got '{}'", name));
    }
    if (node.has("gemm_tiles"))
        p.gemm_tiles = parse_tiles(node.at("gemm_tiles"));
    if (node.has("split_k")) {
        const sim::ConfigNode splits = node.at("split_k");
        splits.expect_sequence();
        p.split_k.clear();
        for (std::size_t i = 0; i < splits.size(); ++i) {
            const std::int64_t s = splits.at(i).as_int();
            if (s <= 0)
                splits.at(i).fail(fmt::format("a K split must be >= 1, got {}", s));
            p.split_k.push_back(static_cast<int>(s));
        }
    }
    if (node.has("conv_algorithms")) {
        const sim::ConfigNode algorithms = node.at("conv_algorithms");
        bool implicit_gemm = false;
        for (const std::string& a : algorithms.as_string_list()) {
            if (a == "implicit_gemm")
                implicit_gemm = true;
            else if (a == "fft")
                p.conv_fft = true;
            else
                algorithms.fail(fmt::format(
                    "unknown convolution algorithm '{}' (algorithms: implicit_gemm, fft)", a));
        }
        if (!implicit_gemm)
            algorithms.fail("implicit_gemm must be listed: it runs every convolution");
    }
    p.memory_bytes =
        sim::bytes_of(sim::optional_positive(node, "memory", sim::Quantity::data_size, 0.0));
    if (node.has("unsupported_ops")) {
        for (const auto& type : node.at("unsupported_ops").as_string_list())
            p.unsupported_ops.insert(type);
    }
    const std::string device_name = node.at("device").as_string();
    if (device_name.empty())
        node["device"].fail("expected a device name, e.g. GPU0");

    sim::DeviceComponentSpec spec;
    spec.memory_bytes = p.memory_bytes;
    spec.devices.push_back(sim::DeviceSpec{device_name, std::make_shared<GpuModel>(std::move(p))});
    sim::add_device_component(node, name, std::move(spec), platform);
}

}  // namespace hetsim::devices
