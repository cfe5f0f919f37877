#include "silent_pim/pim_memory.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace hetsim::silent_pim {

PimMemory::PimMemory(std::uint64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

void PimMemory::check_range(std::uint64_t addr_bytes, std::uint64_t size_bytes) const {
    if (addr_bytes > capacity_bytes_ || size_bytes > capacity_bytes_ - addr_bytes) {
        throw std::out_of_range("PIM memory access [" + std::to_string(addr_bytes) + ", +" +
                                std::to_string(size_bytes) + " B) is outside the " +
                                std::to_string(capacity_bytes_) + " B PIM DRAM");
    }
}

void PimMemory::write(std::uint64_t addr_bytes, std::span<const std::byte> data) {
    check_range(addr_bytes, data.size());
    std::size_t done = 0;
    while (done < data.size()) {
        const std::uint64_t addr = addr_bytes + done;
        const std::uint64_t offset = addr % kPageBytes;
        const std::size_t n = static_cast<std::size_t>(
            std::min<std::uint64_t>(kPageBytes - offset, data.size() - done));
        std::unique_ptr<Page>& page = pages_[addr / kPageBytes];
        if (!page) {
            page = std::make_unique<Page>();
            page->fill(std::byte{0});
        }
        std::memcpy(page->data() + offset, data.data() + done, n);
        done += n;
    }
}

void PimMemory::read(std::uint64_t addr_bytes, std::span<std::byte> out) const {
    check_range(addr_bytes, out.size());
    std::size_t done = 0;
    while (done < out.size()) {
        const std::uint64_t addr = addr_bytes + done;
        const std::uint64_t offset = addr % kPageBytes;
        const std::size_t n = static_cast<std::size_t>(
            std::min<std::uint64_t>(kPageBytes - offset, out.size() - done));
        const auto it = pages_.find(addr / kPageBytes);
        if (it == pages_.end()) {
            std::memset(out.data() + done, 0, n);  // never written: reads as zero
        } else {
            std::memcpy(out.data() + done, it->second->data() + offset, n);
        }
        done += n;
    }
}

// bf16 little-endian: low byte first. The byte order is spelled out (not memcpy of the
// host's uint16_t) so the stored image is the same on any host. Converted through a small
// stack buffer: the engine calls these once per 64-byte burst, so no heap traffic.
namespace {
constexpr std::size_t kChunkElements = 256;
}  // namespace

void PimMemory::write_bf16(std::uint64_t addr_bytes, std::span<const bf16> values) {
    check_range(addr_bytes, values.size() * 2);
    std::array<std::byte, 2 * kChunkElements> bytes;
    for (std::size_t start = 0; start < values.size(); start += kChunkElements) {
        const std::size_t n = std::min(kChunkElements, values.size() - start);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint16_t b = values[start + i].bits();
            bytes[2 * i] = static_cast<std::byte>(b & 0xFFu);
            bytes[2 * i + 1] = static_cast<std::byte>(b >> 8);
        }
        write(addr_bytes + 2 * start, std::span<const std::byte>(bytes.data(), 2 * n));
    }
}

void PimMemory::read_bf16(std::uint64_t addr_bytes, std::span<bf16> out) const {
    check_range(addr_bytes, out.size() * 2);
    std::array<std::byte, 2 * kChunkElements> bytes;
    for (std::size_t start = 0; start < out.size(); start += kChunkElements) {
        const std::size_t n = std::min(kChunkElements, out.size() - start);
        read(addr_bytes + 2 * start, std::span<std::byte>(bytes.data(), 2 * n));
        for (std::size_t i = 0; i < n; ++i) {
            out[start + i] = bf16::from_bits(
                static_cast<std::uint16_t>(std::to_integer<unsigned>(bytes[2 * i]) |
                                           (std::to_integer<unsigned>(bytes[2 * i + 1]) << 8)));
        }
    }
}

bf16 PimMemory::load_bf16(std::uint64_t addr_bytes) const {
    bf16 v;
    read_bf16(addr_bytes, std::span<bf16>(&v, 1));
    return v;
}

void PimMemory::store_bf16(std::uint64_t addr_bytes, bf16 value) {
    write_bf16(addr_bytes, std::span<const bf16>(&value, 1));
}

namespace {

std::size_t matrix_elements(std::int64_t rows, std::int64_t cols) {
    if (rows < 0 || cols < 0) {
        throw std::invalid_argument("PIM matrix shape (" + std::to_string(rows) + ", " +
                                    std::to_string(cols) + ") has a negative dimension");
    }
    // Bounded by the capacity check that follows; 2^62 elements would overflow nothing here.
    if (cols != 0 && rows > (std::int64_t{1} << 62) / cols) {
        throw std::invalid_argument("PIM matrix shape (" + std::to_string(rows) + ", " +
                                    std::to_string(cols) + ") is too large");
    }
    return static_cast<std::size_t>(rows * cols);
}

}  // namespace

void PimMemory::write_matrix(std::uint64_t addr_bytes, std::int64_t rows, std::int64_t cols,
                             std::span<const bf16> values) {
    const std::size_t n = matrix_elements(rows, cols);
    if (values.size() != n) {
        throw std::invalid_argument("PIM matrix (" + std::to_string(rows) + ", " +
                                    std::to_string(cols) + ") needs " + std::to_string(n) +
                                    " values, got " + std::to_string(values.size()));
    }
    write_bf16(addr_bytes, values);
}

std::vector<bf16> PimMemory::read_matrix(std::uint64_t addr_bytes, std::int64_t rows,
                                         std::int64_t cols) const {
    std::vector<bf16> out(matrix_elements(rows, cols));
    read_bf16(addr_bytes, out);
    return out;
}

}  // namespace hetsim::silent_pim
