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

double GpuParams::flops_per_cycle_per_sm(sim::DType dtype) const {
    const bool sixteen_bit = dtype == sim::DType::bf16 || dtype == sim::DType::f16;
    return sixteen_bit && bf16_flops_per_cycle_per_sm > 0.0 ? bf16_flops_per_cycle_per_sm
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
        !(p.bandwidth_efficiency > 0.0 && p.bandwidth_efficiency <= 1.0)) {
        throw std::invalid_argument("GpuModel: efficiencies must be in (0, 1]");
    }
    if (p.launch_overhead_s < 0.0 || p.kernel_latency_s < 0.0 || p.tile_load_Bpc < 0.0 ||
        p.block_overhead_cycles < 0.0 || p.recurrent_step_latency_s < 0.0) {
        throw std::invalid_argument("GpuModel: overheads and latencies must be >= 0");
    }
    if (!(p.warps_to_saturate >= 1.0) || p.registers_per_sm <= 0 || p.max_threads_per_sm <= 0 ||
        p.max_blocks_per_sm <= 0 || !(p.shared_memory_per_sm_bytes > 0.0)) {
        throw std::invalid_argument(
            "GpuModel: warps_to_saturate must be >= 1 and the SM's limits > 0");
    }
    for (const GpuTile& tile : p.gemm_tiles) {
        if (tile.m <= 0 || tile.n <= 0 || tile.warps <= 0)
            throw std::invalid_argument("GpuModel: tile sides and warps must be > 0");
    }
    if (params_.gemm_tiles.empty())
        params_.gemm_tiles = default_gemm_tiles();
    if (params_.split_k.empty())
        params_.split_k = {1};
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

GemmKernelCost GpuModel::gemm(double batch, double m, double n, double k, sim::DType dtype) const {
    const GpuParams& p = params_;
    const double element_bytes = static_cast<double>(sim::dtype_size_bytes(dtype));
    // A and B read once, C written once.
    const double operand_bytes = batch * (m * k + k * n + m * n) * element_bytes;
    GemmKernelCost best;
    if (m <= 1.0 || n <= 1.0) {
        // BLAS runs a matrix-vector product as a GEMV: each operand element is used once, so
        // it is a streaming kernel (cuBLAS's gemvx / gemv2T), not a tiled GEMM.
        best.gemv = true;
        best.memory_s = operand_bytes / p.achievable_bandwidth_Bps();
        best.total_s = std::max(best.memory_s, 2.0 * batch * m * n * k / p.peak_flops());
        return best;
    }
    const double fma_cycles = 2.0 / (p.flops_per_cycle_per_sm(dtype) * p.compute_efficiency);
    const double memory_s = operand_bytes / p.memory_bandwidth_Bps;
    best.total_s = std::numeric_limits<double>::infinity();
    for (const GpuTile& tile : p.gemm_tiles) {
        const double tm = tile.m, tn = tile.n;
        // Edge tiles are computed whole: ceil, not m / tm ...
        const double row_tiles = std::ceil(m / tm), column_tiles = std::ceil(n / tn);
        const double tiles = batch * row_tiles * column_tiles;
        const double fma_per_k = tm * tn * fma_cycles;
        // ... but their loads past the edge are predicated off: a block loads its share of
        // the rows and columns that exist.
        const double load_per_k = p.tile_load_Bpc > 0.0 ? (m / row_tiles + n / column_tiles) *
                                                              element_bytes / p.tile_load_Bpc
                                                        : 0.0;
        const double resident = p.resident_blocks(tile);
        for (int split : p.split_k) {
            if (split > 1 && k < 2.0 * split)
                continue;
            GemmKernelCost c;
            c.tile = tile;
            c.split_k = split;
            c.blocks = tiles * split;
            c.waves = std::ceil(c.blocks / p.sms);  // blocks on the busiest SM
            c.resident = std::min(resident, c.waves);
            c.rounds = std::ceil(c.waves / resident);
            const double busy = std::min(1.0, c.resident * tile.warps / p.warps_to_saturate);
            const double k_per_block = std::ceil(k / split);
            c.compute_s = (c.waves * k_per_block * std::max(fma_per_k / busy, load_per_k) +
                           c.rounds * p.block_overhead_cycles) /
                          p.clock_hz;
            c.memory_s = memory_s;
            // Split-K writes the fp32 partial sums of every slice and a second kernel reduces
            // them; they are re-read while still in L2, so at no less than the peak bandwidth.
            const double reduce_s = split > 1
                                        ? p.kernel_latency_s + 2.0 * split * batch * m * n * 4.0 /
                                                                   p.memory_bandwidth_Bps
                                        : 0.0;
            c.total_s = std::max(c.compute_s, c.memory_s) + reduce_s;
            if (c.total_s < best.total_s)
                best = c;
        }
    }
    return best;
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
        // then the recurrent kernel: per step h R^T (one GEMM) with the gates fused into it.
        const double gates_h = static_cast<double>(rnn->gates * rnn->hidden);
        const double steps = static_cast<double>(rnn->seq);
        const double batch = static_cast<double>(rnn->batch);
        const double projection =
            gemm(1.0, steps * batch, gates_h, static_cast<double>(rnn->input), dtype).total_s;
        const double step_gemm =
            gemm(1.0, batch, gates_h, static_cast<double>(rnn->hidden), dtype).total_s;
        // The gates read the pre-activations and the cell state, write h and c.
        const double gate_bytes =
            batch * (gates_h + 3.0 * static_cast<double>(rnn->hidden)) * element_bytes;
        const double per_step =
            params_.recurrent_step_latency_s + step_gemm + streaming_s(gate_bytes, 0.0);
        const double directions = static_cast<double>(rnn->directions);
        c.kernels = 2.0 * directions;
        c.device_s = directions * (2.0 * params_.kernel_latency_s + projection + steps * per_step);
    } else if (const auto dims = sim::gemm_dims(graph, op)) {
        GemmKernelCost k = gemm(dims->batch, dims->m, dims->n, dims->k, dtype);
        if (op.type == "Conv") {
            // Implicit GEMM never materialises im2col: device memory sees the op's tensors.
            k.memory_s = op_bytes / params_.memory_bandwidth_Bps;
            k.total_s = std::max(k.total_s, k.memory_s);
        }
        c.device_s = params_.kernel_latency_s + k.total_s;
    } else {
        c.device_s = params_.kernel_latency_s + streaming_s(op_bytes, op.flops);
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
                                                 "compute_efficiency",
                                                 "tile_load_Bpc",
                                                 "block_overhead_cycles",
                                                 "kernel_latency",
                                                 "launch_overhead",
                                                 "recurrent_step_latency",
                                                 "warps_to_saturate",
                                                 "registers_per_sm",
                                                 "max_threads_per_sm",
                                                 "max_blocks_per_sm",
                                                 "shared_memory_per_sm",
                                                 "gemm_tiles",
                                                 "split_k",
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
    p.compute_efficiency = fraction(node, "compute_efficiency");
    if (node.has("tile_load_Bpc"))
        p.tile_load_Bpc = sim::positive_number(node, "tile_load_Bpc");
    if (node.has("block_overhead_cycles")) {
        p.block_overhead_cycles = node.at("block_overhead_cycles").as_double();
        if (p.block_overhead_cycles < 0.0)
            node["block_overhead_cycles"].fail("must be >= 0");
    }
    if (node.has("warps_to_saturate")) {
        p.warps_to_saturate = node.at("warps_to_saturate").as_double();
        if (!(p.warps_to_saturate >= 1.0 && p.warps_to_saturate <= 1024.0))
            node["warps_to_saturate"].fail("must be in [1, 1024] warps");
    }
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
    p.recurrent_step_latency_s = sim::non_negative_time(node, "recurrent_step_latency");
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
