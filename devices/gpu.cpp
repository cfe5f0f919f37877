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
    // The thread-block tiles of CUTLASS's default SGEMM/HGEMM configurations, which cuBLAS's
    // kernels share: large square tiles for throughput, narrow ones for skinny problems.
    static const std::vector<GpuTile> tiles = {{256, 128}, {128, 256}, {128, 128}, {128, 64},
                                               {64, 128},  {64, 64},   {64, 32},   {32, 64},
                                               {32, 32},   {16, 64},   {64, 16}};
    return tiles;
}

double GpuParams::flops_per_cycle_per_sm(sim::DType dtype) const {
    const bool sixteen_bit = dtype == sim::DType::bf16 || dtype == sim::DType::f16;
    return sixteen_bit && bf16_flops_per_cycle_per_sm > 0.0 ? bf16_flops_per_cycle_per_sm
                                                            : fp32_flops_per_cycle_per_sm;
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
    const double fma_cycles = 2.0 / (p.flops_per_cycle_per_sm(dtype) * p.compute_efficiency);
    const double load_cycles = p.tile_load_Bpc > 0.0 ? element_bytes / p.tile_load_Bpc : 0.0;
    GemmKernelCost best;
    best.total_s = std::numeric_limits<double>::infinity();
    for (const GpuTile& tile : p.gemm_tiles) {
        const double tm = tile.m, tn = tile.n;
        // Edge tiles are computed whole: ceil, not m / tm.
        const double tiles = batch * std::ceil(m / tm) * std::ceil(n / tn);
        const double per_k_cycles = tm * tn * fma_cycles + (tm + tn) * load_cycles;
        for (int split : p.split_k) {
            if (split > 1 && k < 2.0 * split)
                continue;
            GemmKernelCost c;
            c.tile = tile;
            c.split_k = split;
            c.blocks = tiles * split;
            // Blocks are spread over the SMs in waves; the busiest SM decides.
            c.waves = std::ceil(c.blocks / p.sms);
            const double k_per_block = std::ceil(k / split);
            c.compute_s =
                c.waves * (k_per_block * per_k_cycles + p.block_overhead_cycles) / p.clock_hz;
            // A and B read once, C written once; split-K also writes and re-reads the fp32
            // partial sums of every slice, and reduces them in a kernel of its own.
            const double operand_bytes = batch * (m * k + k * n + m * n) * element_bytes;
            const double partial_bytes = split > 1 ? 2.0 * split * batch * m * n * 4.0 : 0.0;
            c.memory_s = operand_bytes / p.achievable_bandwidth_Bps();
            const double reduce_s =
                split > 1 ? p.kernel_latency_s + partial_bytes / p.achievable_bandwidth_Bps() : 0.0;
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
            k.memory_s = op_bytes / params_.achievable_bandwidth_Bps();
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
        if (tile.size() != 2)
            tile.fail("expected [rows, columns] of a thread-block tile, e.g. [128, 128]");
        const std::int64_t rows = tile.at(0).as_int();
        const std::int64_t cols = tile.at(1).as_int();
        if (rows <= 0 || cols <= 0)
            tile.fail(fmt::format("tile sides must be > 0, got [{}, {}]", rows, cols));
        tiles.push_back({static_cast<int>(rows), static_cast<int>(cols)});
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
    node.expect_keys(sim::device_component_keys(
        {"device", "sms", "clock", "fp32_flops_per_cycle_per_sm", "bf16_flops_per_cycle_per_sm",
         "memory_bandwidth", "bandwidth_efficiency", "compute_efficiency", "tile_load_Bpc",
         "block_overhead_cycles", "kernel_latency", "launch_overhead", "recurrent_step_latency",
         "gemm_tiles", "split_k", "memory", "unsupported_ops"}));
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
