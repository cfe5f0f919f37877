// The contents of Silent-PIM's DRAM as a functional byte store (lee2022 §2.2: the PIM is a
// DDR4 device; operands and results of every PIM kernel live in its memory, addressed by the
// byte addresses of a PimDescriptor).
//
// Storage is sparse: 4 KiB pages allocated on first write, so a 4 GiB (or larger) address
// space costs only the pages a test or a run actually touches. Bytes never written read as
// zero (a freshly initialised DRAM in the model; real DRAM would hold garbage, and nothing in
// the engine may rely on either). bf16 values are stored little-endian, as the ARM host and
// the DMA lay them out (lee2022 §2.3).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "silent_pim/bf16.hpp"

namespace hetsim::silent_pim {

class PimMemory {
public:
    static constexpr std::uint64_t kPageBytes = 4096;
    static constexpr std::uint64_t kDefaultCapacityBytes = 4ull << 30;  // 4 GiB

    // Addresses [0, capacity_bytes) are valid; accesses outside throw std::out_of_range.
    explicit PimMemory(std::uint64_t capacity_bytes = kDefaultCapacityBytes);

    std::uint64_t capacity_bytes() const { return capacity_bytes_; }
    // Pages allocated so far (the model's real memory cost is this times kPageBytes).
    std::size_t pages_allocated() const { return pages_.size(); }

    // Raw bytes; a range may span any number of pages.
    void write(std::uint64_t addr_bytes, std::span<const std::byte> data);
    void read(std::uint64_t addr_bytes, std::span<std::byte> out) const;

    // bf16 elements at consecutive 2-byte addresses starting at addr_bytes.
    void write_bf16(std::uint64_t addr_bytes, std::span<const bf16> values);
    void read_bf16(std::uint64_t addr_bytes, std::span<bf16> out) const;
    bf16 load_bf16(std::uint64_t addr_bytes) const;
    void store_bf16(std::uint64_t addr_bytes, bf16 value);

    // A row-major rows x cols bf16 matrix (row i, column j at addr + 2 * (i * cols + j)),
    // the layout every PimDescriptor operand uses. write_matrix requires
    // values.size() == rows * cols (std::invalid_argument otherwise).
    void write_matrix(std::uint64_t addr_bytes, std::int64_t rows, std::int64_t cols,
                      std::span<const bf16> values);
    std::vector<bf16> read_matrix(std::uint64_t addr_bytes, std::int64_t rows,
                                  std::int64_t cols) const;

    // Throws std::out_of_range unless [addr_bytes, addr_bytes + size_bytes) is inside the
    // capacity (overflow-safe).
    void check_range(std::uint64_t addr_bytes, std::uint64_t size_bytes) const;

private:
    using Page = std::array<std::byte, kPageBytes>;

    std::uint64_t capacity_bytes_;
    std::unordered_map<std::uint64_t, std::unique_ptr<Page>> pages_;  // by page index
};

}  // namespace hetsim::silent_pim
