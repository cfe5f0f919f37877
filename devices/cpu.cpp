#include "devices/cpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "sim/device_component.hpp"
#include "sim/op_semantics.hpp"
#include "sim/op_table.hpp"
#include "sim/yaml_params.hpp"

namespace hetsim::devices {

namespace {

// M (rows of the left operand), K and N of a MatMul/Gemm; Einsum and unknown shapes read as
// MatMul's operands would, 0 when even those do not say.
sim::GemmDims gemm_shape(const sim::Graph& graph, const sim::Op& op) {
    std::vector<sim::Shape> in;
    for (int t : op.inputs)
        in.push_back(graph.tensor(t).shape);
    return sim::matmul_dims(op, in).value_or(sim::GemmDims{});
}

}  // namespace

CpuModel::CpuModel(CpuParams params, CpuMode mode) : params_(std::move(params)), mode_(mode) {
    if (params_.cores < 1 || !(params_.clock_hz > 0.0) || !(params_.flops_per_cycle > 0.0) ||
        !(params_.dram_bandwidth_Bps > 0.0) || !(params_.dram_bandwidth_all_cores_Bps > 0.0)) {
        throw std::invalid_argument(
            "CpuModel: cores, clock, flops_per_cycle and both DRAM bandwidths must be > 0");
    }
}

bool CpuModel::parallelizable(std::string_view op_type) {
    // This follows which ONNX Runtime CPU kernels use the intra-op thread pool (lee2022
    // §4.3 (2): CPU_P gets "all the thread-parallelizable operators"): MLAS GEMM and conv, the
    // element-wise math and activation kernels, Softmax, reductions and normalisations are
    // parallelised; pure data movement (views, Gather, Slice, Concat, Split, Transpose) and
    // Cast (an element-wise op whose ORT kernel is a plain loop) run on the calling thread.
    switch (sim::op_category(op_type)) {
        case sim::OpCategory::matmul:
        case sim::OpCategory::conv:
        case sim::OpCategory::reduction:
        case sim::OpCategory::normalization:
            return true;
        case sim::OpCategory::elementwise:
            return op_type != "Cast";
        case sim::OpCategory::view:
        case sim::OpCategory::data_movement:
        case sim::OpCategory::recurrent:
        case sim::OpCategory::fused:  // callers ask with the anchor's type
        case sim::OpCategory::unknown:
            return false;
    }
    return false;
}

sim::Support CpuModel::supports(const sim::Graph& /*graph*/, const sim::Op& op) const {
    const std::string_view type = sim::anchor_type(op);
    if (mode_ == CpuMode::serial || parallelizable(type))
        return sim::Support::yes();
    if (params_.parallel_every_op)
        return sim::Support::yes();
    return sim::Support::no(
        fmt::format("{} is not thread-parallelised by ONNX Runtime (pure data movement or "
                    "conversion), so the parallel CPU mode does not run it (lee2022 §4.3 (2))",
                    type));
}

double CpuModel::class_efficiency(sim::OpCategory category) const {
    switch (category) {
        case sim::OpCategory::conv:
            return params_.conv_efficiency;
        case sim::OpCategory::matmul:
            return params_.matmul_efficiency;
        case sim::OpCategory::elementwise:
        case sim::OpCategory::reduction:
        case sim::OpCategory::normalization:
            return params_.elementwise_efficiency;
        case sim::OpCategory::view:
        case sim::OpCategory::data_movement:
        case sim::OpCategory::fused:  // cost_category() resolves a group to its anchor
        case sim::OpCategory::unknown:
            return params_.data_movement_efficiency;
        case sim::OpCategory::recurrent:
            return params_.recurrent_efficiency;
    }
    return 1.0;
}

double CpuModel::overhead_s() const {
    if (mode_ == CpuMode::serial)
        return params_.op_overhead_s;
    return params_.op_overhead_s + params_.fork_join_overhead_s +
           static_cast<double>(params_.cores) * params_.fork_join_per_core_s;
}

double CpuModel::granularity(const sim::Graph& graph, const sim::Op& op, bool parallel) const {
    if (op.outputs.empty() || (params_.simd_lanes <= 0 && !params_.parallel_outer_loop))
        return 1.0;
    const sim::Shape& out = graph.tensor(op.outputs[0]).shape;
    if (out.empty())
        return 1.0;
    double factor = 1.0;
    // A partial vector of the innermost axis costs a whole one.
    const auto inner = static_cast<double>(out.back());
    if (params_.simd_lanes > 0 && inner > 0.0) {
        const double lanes = params_.simd_lanes;
        factor *= std::ceil(inner / lanes) * lanes / inner;
    }
    // Each core runs whole iterations of the outer loop (the rows: every axis but the last);
    // the core with the most sets the time.
    if (parallel && params_.parallel_outer_loop && params_.cores > 1) {
        double rows = 1.0;
        for (std::size_t a = 0; a + 1 < out.size(); ++a)
            rows *= static_cast<double>(out[a]);
        const double cores = params_.cores;
        // ceil(R / P) rows on the busiest core instead of R / P (fewer rows than cores:
        // R cores busy).
        if (rows > 0.0)
            factor *= std::ceil(rows / cores) * cores / rows;
    }
    return factor;
}

double CpuModel::gemm_efficiency(double m) const {
    // Hockney's n_1/2: a GEMM with M rows reaches M / (M + n_1/2) of the sustained rate.
    // Small-M GEMMs on an in-order core cannot fill the register-blocked micro-kernel (too
    // few rows to reuse each loaded weight), so they run far below peak.
    if (params_.gemm_n_half <= 0.0 || m <= 0.0)
        return 1.0;
    return m / (m + params_.gemm_n_half);
}

double CpuModel::dram_bytes(const sim::Graph& graph, const sim::Op& op) const {
    const double read = static_cast<double>(op.bytes_read);
    const double written = static_cast<double>(op.bytes_written);
    const sim::OpCategory category = sim::cost_category(op);
    // Views alias their input in ONNX Runtime: no traffic.
    if (category == sim::OpCategory::view)
        return 0.0;
    if (category == sim::OpCategory::data_movement) {
        // A copy reads what it writes (Gather/Slice read only the selected part of their
        // input, Expand only its small input).
        return std::min(read, written) + written;
    }
    if (category == sim::OpCategory::matmul && op.inputs.size() >= 2) {
        const sim::Tensor& a = graph.tensor(op.inputs[0]);
        const double a_bytes = static_cast<double>(a.size_bytes());
        const double b_bytes = static_cast<double>(graph.tensor(op.inputs[1]).size_bytes());
        const double rest = read - a_bytes - b_bytes + written;  // bias + output
        // The whole working set fits in the last-level cache: every byte comes from DRAM once
        // (first touch) and re-reads of the weight hit the cache.
        if (read + written <= static_cast<double>(params_.last_level_cache_bytes())) {
            return read + written;
        }
        // Otherwise the GEMM is blocked as in Goto & van de Geijn (ACM TOMS 2008), which is
        // what MLAS does: B is packed once into kc x nc panels that stay in the last-level
        // cache and serve every row of A, so the weight comes from DRAM once; A is re-read
        // once per column panel; the output is read and written once per K block after the
        // first. kc = MLAS's SGEMM K stride (256); nc fills half of the last-level cache.
        const sim::GemmDims s = gemm_shape(graph, op);
        const double elem = static_cast<double>(sim::dtype_size_bytes(a.dtype));
        constexpr double kMlasStrideK = 256.0;
        const double kc = std::max(1.0, std::min(s.k, kMlasStrideK));
        const double nc = std::max(
            1.0,
            std::floor(static_cast<double>(params_.last_level_cache_bytes()) / 2.0 / (kc * elem)));
        const double column_panels = std::max(1.0, std::ceil(s.n / nc));
        const double k_blocks = std::max(1.0, std::ceil(s.k / kc));
        const double out_bytes = static_cast<double>(op.bytes_written);
        const double bias_bytes = rest - out_bytes;
        return b_bytes + a_bytes * column_panels + bias_bytes + out_bytes * (2.0 * k_blocks - 1.0);
    }
    // Element-wise, reductions, normalisations, conv: every operand streamed once (a
    // broadcast operand is small and counted once, it stays in cache).
    return read + written;
}

CpuOpCost CpuModel::cost(const sim::Graph& graph, const sim::Op& op) const {
    CpuOpCost c;
    const bool parallel = mode_ == CpuMode::parallel;
    const double cores = parallel ? static_cast<double>(params_.cores) : 1.0;
    c.flops = op.flops;
    const sim::OpCategory category = sim::cost_category(op);
    c.efficiency = class_efficiency(category);
    if (category == sim::OpCategory::matmul) {
        // With a small M, ONNX Runtime/MLAS splits N across threads, so each thread still
        // sees the full M: the same efficiency in both modes.
        c.efficiency *= gemm_efficiency(gemm_shape(graph, op).m);
    }
    // compute = FLOPs / (cores x FLOP/cycle x clock x efficiency): the parallel mode reaches
    // close to `cores` times the serial rate on compute (lee2022 §4.2: "ideal speedup close
    // to the number of cores").
    c.compute_s = c.flops / (cores * params_.flops_per_cycle * params_.clock_hz * c.efficiency);
    c.compute_s *= granularity(graph, op, parallel);
    // memory = DRAM bytes / stream bandwidth of one core, or of all cores together.
    c.dram_bytes = dram_bytes(graph, op);
    c.memory_s = c.dram_bytes /
                 (parallel ? params_.dram_bandwidth_all_cores_Bps : params_.dram_bandwidth_Bps);
    // Fixed costs: framework dispatch per op, plus waking and joining the thread pool in
    // parallel mode (why CPU_P ~ CPU_S on small ops, lee2022 §4.2).
    c.overhead_s = overhead_s();
    if (const auto rnn = sim::recurrent_dims(graph, op)) {
        // The steps of a recurrent op are sequential: each pays its own loop and sync cost.
        c.overhead_s +=
            static_cast<double>(rnn->seq * rnn->directions) * params_.recurrent_step_overhead_s;
    }
    c.total_s = c.overhead_s + std::max(c.compute_s, c.memory_s);
    return c;
}

double CpuModel::op_time_s(const sim::Graph& graph, const sim::Op& op) const {
    if (!supports(graph, op).ok)
        return std::numeric_limits<double>::infinity();
    return cost(graph, op).total_s;
}

sim::DeviceModel::Timing CpuModel::op_timing(const sim::Graph& graph, const sim::Op& op) const {
    if (!supports(graph, op).ok)
        return Timing{std::numeric_limits<double>::infinity(), 0.0, 0.0};
    const CpuOpCost c = cost(graph, op);
    const double window_s = std::max(c.compute_s, c.memory_s);
    if (!(c.dram_bytes > 0.0) || !(window_s > 0.0))
        return Timing{c.total_s, 0.0, 0.0};
    return Timing{c.overhead_s, c.dram_bytes, c.dram_bytes / window_s};
}

CpuConversionModel::CpuConversionModel(double bandwidth_Bps, double overhead_s)
    : bandwidth_Bps_(bandwidth_Bps), overhead_s_(overhead_s) {
    if (!(bandwidth_Bps_ > 0.0) || overhead_s_ < 0.0) {
        throw std::invalid_argument("CpuConversionModel: bandwidth must be > 0, overhead >= 0");
    }
}

double CpuConversionModel::conversion_time_s(std::int64_t elements, sim::DType from,
                                             sim::DType to) const {
    if (from == to || elements <= 0)
        return 0.0;
    // A streaming loop over the wider representation (4 B per element for fp32<->bf16):
    // elements x 4 B / convert_bandwidth, plus a fixed call cost.
    const auto width = std::max(sim::dtype_size_bytes(from), sim::dtype_size_bytes(to));
    return overhead_s_ + static_cast<double>(elements * width) / bandwidth_Bps_;
}

// --- YAML ---------------------------------------------------------------------------------

void build_cpu(const sim::ConfigNode& node, const std::string& name, sim::Platform& platform) {
    node.expect_map();
    node.expect_keys(sim::device_component_keys({"devices",
                                                 "cores",
                                                 "clock",
                                                 "flops_per_cycle",
                                                 "l1d",
                                                 "l2",
                                                 "l3",
                                                 "dram_bandwidth",
                                                 "dram_bandwidth_all_cores",
                                                 "op_overhead",
                                                 "fork_join_overhead",
                                                 "fork_join_per_core",
                                                 "gemm_n_half",
                                                 "memory",
                                                 "convert_bandwidth",
                                                 "convert_overhead",
                                                 "pinned",
                                                 "efficiency",
                                                 "recurrent_step_overhead",
                                                 "parallel_every_op",
                                                 "simd_lanes",
                                                 "parallel_outer_loop"}));
    CpuParams p;
    p.cores = sim::positive_int(node, "cores");
    p.clock_hz = node.require_positive_quantity("clock", sim::Quantity::frequency);
    p.flops_per_cycle = sim::positive_number(node, "flops_per_cycle");
    p.l1d_bytes = sim::bytes_of(node.require_positive_quantity("l1d", sim::Quantity::data_size));
    p.l2_bytes = sim::bytes_of(node.require_positive_quantity("l2", sim::Quantity::data_size));
    p.l3_bytes = sim::bytes_of(sim::optional_positive(node, "l3", sim::Quantity::data_size, 0.0));
    p.dram_bandwidth_Bps =
        node.require_positive_quantity("dram_bandwidth", sim::Quantity::bandwidth);
    p.dram_bandwidth_all_cores_Bps = sim::optional_positive(
        node, "dram_bandwidth_all_cores", sim::Quantity::bandwidth, p.dram_bandwidth_Bps);
    p.op_overhead_s = sim::non_negative_time(node, "op_overhead");
    p.fork_join_overhead_s = sim::non_negative_time(node, "fork_join_overhead");
    p.fork_join_per_core_s = sim::non_negative_time(node, "fork_join_per_core");
    p.recurrent_step_overhead_s = sim::non_negative_time(node, "recurrent_step_overhead");
    p.parallel_every_op = node.has("parallel_every_op") && node.at("parallel_every_op").as_bool();
    p.simd_lanes = node.has("simd_lanes") ? sim::positive_int(node, "simd_lanes") : 0;
    p.parallel_outer_loop =
        node.has("parallel_outer_loop") && node.at("parallel_outer_loop").as_bool();
    if (node.has("efficiency")) {
        // efficiency: {conv: 0.9, matmul: 0.5, elementwise: 0.2, data_movement: 1, recurrent: 0.3}
        const sim::ConfigNode eff = node.at("efficiency");
        eff.expect_map();
        eff.expect_keys({"conv", "matmul", "elementwise", "data_movement", "recurrent"});
        const std::pair<const char*, double*> classes[] = {
            {"conv", &p.conv_efficiency},
            {"matmul", &p.matmul_efficiency},
            {"elementwise", &p.elementwise_efficiency},
            {"data_movement", &p.data_movement_efficiency},
            {"recurrent", &p.recurrent_efficiency}};
        for (const auto& [key, field] : classes) {
            if (!eff.has(key))
                continue;
            *field = eff.at(key).as_double();
            if (!(*field > 0.0 && *field <= 1.0))
                eff[key].fail(fmt::format("must be in (0, 1], got {}", *field));
        }
    }
    p.gemm_n_half = node.get_double("gemm_n_half", 0.0);
    if (p.gemm_n_half < 0.0) {
        node["gemm_n_half"].fail(fmt::format("must be >= 0, got {}", p.gemm_n_half));
    }
    p.memory_bytes =
        sim::bytes_of(sim::optional_positive(node, "memory", sim::Quantity::data_size, 0.0));
    p.convert_bandwidth_Bps =
        sim::optional_positive(node, "convert_bandwidth", sim::Quantity::bandwidth, 0.0);
    p.convert_overhead_s = sim::non_negative_time(node, "convert_overhead");
    if (node.has("convert_overhead") && !node.has("convert_bandwidth")) {
        node["convert_overhead"].fail("needs convert_bandwidth as well");
    }

    // devices: {CPU_S: serial, CPU_P: parallel}
    const sim::ConfigNode devices = node.at("devices");
    devices.expect_map();
    if (devices.size() == 0)
        devices.fail("a cpu needs at least one device (serial or parallel)");
    std::vector<std::pair<std::string, CpuMode>> modes;
    for (const auto& device_name : devices.keys()) {
        const sim::ConfigNode mode_node = devices.at(device_name);
        const std::string mode = mode_node.as_string();
        if (mode == "serial") {
            modes.emplace_back(device_name, CpuMode::serial);
        } else if (mode == "parallel") {
            modes.emplace_back(device_name, CpuMode::parallel);
        } else {
            const std::string hint = sim::did_you_mean(mode, {"serial", "parallel"});
            mode_node.fail(
                fmt::format("expected 'serial' or 'parallel', got '{}'{}", mode,
                            hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
        }
    }

    sim::DeviceComponentSpec spec;
    spec.memory_bytes = p.memory_bytes;
    // The DRAM all cores stream from together is the memory the DES shares between the
    // cores' ops and the DMA streams in and out of it.
    spec.memory_bandwidth_Bps = p.dram_bandwidth_all_cores_Bps;
    if (p.convert_bandwidth_Bps > 0.0) {
        spec.converter =
            std::make_shared<CpuConversionModel>(p.convert_bandwidth_Bps, p.convert_overhead_s);
    }
    // One resource of `cores` units: a serial op takes one core, a parallel op all of them,
    // so CPU_S and CPU_P of the same CPU contend for cores. With `pinned: true` every device
    // is one core of its own (tarnawski2020 §3: each of the ℓ CPUs runs one op at a time), so
    // a device named in a placement never runs two ops at once.
    const bool pinned = node.has("pinned") && node.at("pinned").as_bool();
    if (pinned) {
        for (const auto& [device_name, mode] : modes) {
            if (mode == CpuMode::parallel) {
                devices.at(device_name)
                    .fail(
                        "a pinned cpu has one core per device: parallel devices need the shared "
                        "cores (remove 'pinned' or make it serial)");
            }
        }
        if (static_cast<int>(modes.size()) > p.cores) {
            devices.fail(fmt::format("{} pinned devices need {} cores; the cpu has {}",
                                     modes.size(), modes.size(), p.cores));
        }
    }
    spec.sharing = pinned ? sim::ResourceSharing::per_device : sim::ResourceSharing::shared;
    spec.capacity = p.cores;
    for (const auto& [device_name, mode] : modes) {
        spec.devices.push_back(sim::DeviceSpec{device_name, std::make_shared<CpuModel>(p, mode),
                                               mode == CpuMode::serial ? 1 : p.cores});
    }
    sim::add_device_component(node, name, std::move(spec), platform);
}

}  // namespace hetsim::devices
