#include "devices/register.hpp"

#include "devices/cpu.hpp"
#include "devices/gpu.hpp"
#include "devices/table.hpp"

namespace hetsim::devices {

void register_components(sim::ComponentRegistry& registry) {
    registry.add(
        {"cpu",
         "device",
         "multicore CPU: serial and parallel devices, roofline with caches, GEMM "
         "efficiency curve, fork/join overhead, fp32<->bf16 conversion",
         &build_cpu,
         // Fitted by `hetsim calibrate --fit`: the per-class efficiencies and the
         // fixed costs; cores, clock and caches are datasheet facts.
         {{"flops_per_cycle", std::nullopt, 0.1, 256.0, "sustained FLOP/cycle per core"},
          {"efficiency.conv", std::nullopt, 1e-4, 1.0, "conv, of flops_per_cycle"},
          {"efficiency.matmul", std::nullopt, 1e-4, 1.0, "dense, of flops_per_cycle"},
          {"efficiency.elementwise", std::nullopt, 1e-4, 1.0,
           "element-wise, reductions, normalisations"},
          {"efficiency.data_movement", std::nullopt, 1e-4, 1.0, "copies"},
          {"efficiency.recurrent", std::nullopt, 1e-4, 1.0, "LSTM/GRU/RNN cells"},
          {"gemm_n_half", std::nullopt, 0.01, 1e4, "GEMM half-performance M"},
          {"dram_bandwidth", sim::Quantity::bandwidth, 1e8, 1e12, "one core"},
          {"dram_bandwidth_all_cores", sim::Quantity::bandwidth, 1e8, 1e12, "all cores"},
          {"op_overhead", sim::Quantity::time, 1e-9, 1e-2, "dispatch per op"},
          {"fork_join_overhead", sim::Quantity::time, 1e-9, 1e-2, "per parallel op"},
          {"fork_join_per_core", sim::Quantity::time, 1e-10, 1e-3, "per parallel op and core"},
          {"recurrent_step_overhead", sim::Quantity::time, 1e-9, 1e-2, "per recurrent step"},
          {"convert_bandwidth", sim::Quantity::bandwidth, 1e7, 1e12, "fp32<->bf16 conversion"},
          {"convert_overhead", sim::Quantity::time, 1e-9, 1e-2, "per conversion"}}});
    registry.add(
        {"gpu",
         "device",
         "GPU / PCIe accelerator: kernels of thread-block tiles in rounds of resident blocks "
         "over the SMs, with occupancy, K-step latency, split-K and GEMV; memory-bound kernels "
         "at the achievable bandwidth; "
         "fused recurrent ops as a persistent kernel or two kernels per step (a compiler's, "
         "or a framework's calling cuDNN)",
         &build_gpu,
         // What `hetsim calibrate --fit` may fit (issue 25): the efficiencies and
         // latencies of the kernel model; SMs, clock, FLOP/cycle and the peak
         // bandwidth are datasheet facts and stay as written.
         {{"compute_efficiency", std::nullopt, 0.01, 1.0,
           "fraction of FLOP/cycle the GEMM inner loop reaches"},
          {"bandwidth_efficiency", std::nullopt, 0.05, 1.0,
           "achievable / peak memory bandwidth of streaming kernels"},
          {"gemm_bandwidth_efficiency", std::nullopt, 0.05, 1.0,
           "the same for the BLAS library's GEMV and a GEMM's operand floor"},
          {"tile_load_Bpc", std::nullopt, 1.0, 1e5,
           "operand bytes per cycle per SM that feed the FMAs"},
          {"block_overhead_cycles", std::nullopt, 1.0, 1e7,
           "cycles a thread block costs its SM besides its K loop"},
          {"k_tile_latency_cycles", std::nullopt, 1.0, 1e5,
           "cycles one K tile (pipeline stage) takes a block alone on its SM"},
          {"tensor_k_tile_latency_cycles", std::nullopt, 1.0, 1e5,
           "the same for a tensor-core (16-bit) kernel"},
          {"tensor_block_overhead_cycles", std::nullopt, 1.0, 1e7,
           "the same for a tensor-core kernel with TMA (persistent on Hopper)"},
          {"legacy_tensor_k_tile_latency_cycles", std::nullopt, 1.0, 1e5,
           "the same for a tensor-core kernel whose operand rows are not 16-byte aligned"},
          {"chained_kernel_latency", sim::Quantity::time, 1e-8, 1e-3,
           "a further kernel of a chain (split-K reduction, recurrent step), besides its body"},
          {"kernel_latency", sim::Quantity::time, 1e-8, 1e-3, "device-side floor of one kernel"},
          {"reduction_latency", sim::Quantity::time, 1e-9, 1e-3,
           "further floor of a kernel that reduces across threads (softmax, norms)"},
          {"launch_overhead", sim::Quantity::time, 1e-8, 1e-2,
           "host-side cost of issuing one kernel"},
          {"recurrent_step_latency", sim::Quantity::time, 1e-9, 1e-3,
           "cost of one step inside a fused recurrent kernel"},
          {"persistent_rnn_weight_load", sim::Quantity::bandwidth, 1e7, 1e13,
           "rate one block of cuDNN's persistent RNN kernel loads its recurrent weights at"},
          {"persistent_rnn_weight_load_conflicting", sim::Quantity::bandwidth, 1e7, 1e13,
           "the same where a row of weights is a multiple of 128 bytes"}},
         // From rough values one descent stops on a step of the tile and wave staircase: the
         // H100 GEMMs predict h100_fresh at 9.7 / 25.8 % (median / p90) after one, 7.9 / 22.7 %
         // after 8 (README, "Calibration"); h100.yaml is fitted with 8.
         8});
    registry.add({"table", "device",
                  "a processor whose op times are given per op (the costs_s attribute): "
                  "classic task-graph instances",
                  &build_table});
}

}  // namespace hetsim::devices
