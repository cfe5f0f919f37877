#include "interconnect/address_mapping.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace hetsim::interconnect {

std::string_view to_string(AddressField f) {
    switch (f) {
        case AddressField::row:
            return "row";
        case AddressField::bank:
            return "bank";
        case AddressField::bank_group:
            return "bankgroup";
        case AddressField::column:
            return "column";
    }
    return "?";
}

AddressMapping::AddressMapping(const Ddr4Timing& timing, std::array<AddressField, 4> msb_to_lsb)
    : order_(msb_to_lsb) {
    bool seen[4] = {false, false, false, false};
    for (AddressField f : order_) {
        const auto i = static_cast<int>(f);
        if (seen[i]) {
            throw std::invalid_argument(fmt::format(
                "address mapping '{}': field '{}' appears twice", order(), to_string(f)));
        }
        seen[i] = true;
    }
    if (timing.BL <= 0 || timing.columns % timing.BL != 0 || timing.rows <= 0 ||
        timing.bank_groups <= 0 || timing.banks_per_group <= 0) {
        throw std::invalid_argument(fmt::format(
            "address mapping: memspec '{}' needs rows, bank groups and banks > 0 and columns a "
            "multiple of BL",
            timing.name));
    }
    burst_bytes_ = timing.burst_bytes();
    bursts_per_row_ = timing.columns / timing.BL;
    bank_groups_ = timing.bank_groups;
    banks_per_group_ = timing.banks_per_group;
    rows_ = timing.rows;
    column_step_ = timing.BL;
    capacity_ = static_cast<std::uint64_t>(burst_bytes_ * bursts_per_row_ * bank_groups_ *
                                           banks_per_group_ * rows_);
}

AddressMapping AddressMapping::parse(const Ddr4Timing& timing, std::string_view text) {
    std::vector<AddressField> fields;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t colon = text.find(':', start);
        const std::string_view name = text.substr(
            start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
        if (name == "row") {
            fields.push_back(AddressField::row);
        } else if (name == "bank") {
            fields.push_back(AddressField::bank);
        } else if (name == "bankgroup") {
            fields.push_back(AddressField::bank_group);
        } else if (name == "column") {
            fields.push_back(AddressField::column);
        } else {
            throw std::invalid_argument(fmt::format(
                "address mapping '{}': unknown field '{}'; expected the four fields row, bank, "
                "bankgroup and column separated by ':', most significant first",
                text, name));
        }
        if (colon == std::string_view::npos)
            break;
        start = colon + 1;
    }
    if (fields.size() != 4) {
        throw std::invalid_argument(fmt::format(
            "address mapping '{}': expected the four fields row, bank, bankgroup and column, "
            "got {}",
            text, fields.size()));
    }
    return AddressMapping(timing, {fields[0], fields[1], fields[2], fields[3]});
}

std::int64_t AddressMapping::radix(AddressField f) const {
    switch (f) {
        case AddressField::row:
            return rows_;
        case AddressField::bank:
            return banks_per_group_;
        case AddressField::bank_group:
            return bank_groups_;
        case AddressField::column:
            return bursts_per_row_;
    }
    return 1;
}

DramAddress AddressMapping::decode(std::uint64_t byte_address) const {
    if (byte_address >= capacity_) {
        throw std::out_of_range(
            fmt::format("address {:#x} beyond the rank's {} bytes", byte_address, capacity_));
    }
    auto rest = static_cast<std::int64_t>(byte_address / static_cast<std::uint64_t>(burst_bytes_));
    DramAddress a;
    // Least significant field first.
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
        const std::int64_t r = radix(*it);
        const std::int64_t v = rest % r;
        rest /= r;
        switch (*it) {
            case AddressField::row:
                a.row = v;
                break;
            case AddressField::bank:
                a.bank = static_cast<int>(v);
                break;
            case AddressField::bank_group:
                a.bank_group = static_cast<int>(v);
                break;
            case AddressField::column:
                a.column = v * column_step_;
                break;
        }
    }
    return a;
}

std::uint64_t AddressMapping::encode(const DramAddress& a) const {
    std::int64_t burst = 0;
    for (AddressField f : order_) {
        std::int64_t v = 0;
        switch (f) {
            case AddressField::row:
                v = a.row;
                break;
            case AddressField::bank:
                v = a.bank;
                break;
            case AddressField::bank_group:
                v = a.bank_group;
                break;
            case AddressField::column:
                v = a.column / column_step_;
                break;
        }
        if (v < 0 || v >= radix(f)) {
            throw std::out_of_range(
                fmt::format("{} {} out of range 0..{}", to_string(f), v, radix(f) - 1));
        }
        burst = burst * radix(f) + v;
    }
    return static_cast<std::uint64_t>(burst) * static_cast<std::uint64_t>(burst_bytes_);
}

std::string AddressMapping::order() const {
    return fmt::format("{}:{}:{}:{}", to_string(order_[0]), to_string(order_[1]),
                       to_string(order_[2]), to_string(order_[3]));
}

}  // namespace hetsim::interconnect
