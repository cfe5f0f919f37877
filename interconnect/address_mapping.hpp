// Byte address -> DRAM coordinates (bank group, bank, row, column) of one DDR4 x64 rank, as a
// controller decodes it (DRAMSys/Ramulator "address mapping").
//
// The unit of access is one BL8 burst: 64 bytes = 8 columns of 8 bytes (eight x8 devices side
// by side). The low log2(64) address bits select a byte inside the burst and are always the
// lowest; above them the four fields row, bank, bank group and column (the column field counts
// bursts inside a row: 1024 columns / 8 = 128) are stacked in a configurable order, written
// most significant first:
//
//   row:bank:bankgroup:column   (default)
//     | row (16 bits) | bank (2) | bank group (2) | column burst (7) | byte in burst (6) |
//     Consecutive bursts stream through one open row (8 KiB), then the next bank group, then
//     the next bank: a sequential stream gets row hits, and successive rows land in other
//     bank groups so their activations overlap the stream.
//
// Other orders trade that for more bank-group interleaving, e.g. row:bank:column:bankgroup
// puts consecutive bursts in different bank groups (tCCD_S spacing instead of tCCD_L), and
// bank:row:column:bankgroup gives each bank index its own address range (operands placed in
// different ranges never evict each other's rows; used by the Silent-PIM command model).
// Field sizes come from the memspec and need not be powers of two (mixed radix).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "interconnect/ddr4_timing.hpp"

namespace hetsim::interconnect {

enum class AddressField { row, bank, bank_group, column };

// A burst's place in the rank. `column` is the column address of the burst's first column
// (a multiple of BL: 0, 8, ..., 1016), as it appears on the RD/WR command.
struct DramAddress {
    int bank_group = 0;
    int bank = 0;  // inside its bank group
    std::int64_t row = 0;
    std::int64_t column = 0;

    friend bool operator==(const DramAddress&, const DramAddress&) = default;
};

class AddressMapping {
public:
    static constexpr std::array<AddressField, 4> kDefaultOrder = {
        AddressField::row, AddressField::bank, AddressField::bank_group, AddressField::column};

    // Fields most significant first; each of the four exactly once.
    explicit AddressMapping(const Ddr4Timing& timing,
                            std::array<AddressField, 4> msb_to_lsb = kDefaultOrder);
    // "row:bank:bankgroup:column" (names: row, bank, bankgroup, column). Throws
    // std::invalid_argument naming the problem for a bad order.
    static AddressMapping parse(const Ddr4Timing& timing, std::string_view order);

    // The burst holding `byte_address`. Throws std::out_of_range beyond the rank's capacity.
    DramAddress decode(std::uint64_t byte_address) const;
    // Byte address of the first byte of the burst at `a` (inverse of decode).
    std::uint64_t encode(const DramAddress& a) const;

    std::string order() const;  // "row:bank:bankgroup:column"
    const std::array<AddressField, 4>& fields() const { return order_; }
    std::int64_t burst_bytes() const { return burst_bytes_; }
    std::int64_t bursts_per_row() const { return bursts_per_row_; }
    std::uint64_t capacity_bytes() const { return capacity_; }
    // Flat bank index 0..banks-1: bank_group * banks_per_group + bank.
    int flat_bank(const DramAddress& a) const { return a.bank_group * banks_per_group_ + a.bank; }

private:
    std::int64_t radix(AddressField f) const;

    std::array<AddressField, 4> order_;
    std::int64_t burst_bytes_ = 64;
    std::int64_t bursts_per_row_ = 128;
    int bank_groups_ = 4;
    int banks_per_group_ = 4;
    std::int64_t rows_ = 0;
    std::uint64_t capacity_ = 0;
    int column_step_ = 8;  // columns per burst (BL)
};

std::string_view to_string(AddressField f);

}  // namespace hetsim::interconnect
