#include "interconnect/address_mapping.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "interconnect/ddr4_timing.hpp"

namespace hetsim::interconnect {
namespace {

const Ddr4Timing kT = named_memspec("ddr4-2400");

TEST(AddressMapping, DefaultRowBankBankGroupColumn) {
    const AddressMapping m(kT);
    EXPECT_EQ(m.order(), "row:bank:bankgroup:column");
    EXPECT_EQ(m.burst_bytes(), 64);
    EXPECT_EQ(m.bursts_per_row(), 128);  // 1024 columns / BL8
    EXPECT_EQ(m.capacity_bytes(), std::uint64_t{8} << 30);
    // | row 16 | bank 2 | bank group 2 | column burst 7 | byte 6 |
    EXPECT_EQ(m.decode(0), (DramAddress{0, 0, 0, 0}));
    EXPECT_EQ(m.decode(63), (DramAddress{0, 0, 0, 0}));       // same burst
    EXPECT_EQ(m.decode(64), (DramAddress{0, 0, 0, 8}));       // next burst: column 8
    EXPECT_EQ(m.decode(8191), (DramAddress{0, 0, 0, 1016}));  // last burst of the row
    EXPECT_EQ(m.decode(8192), (DramAddress{1, 0, 0, 0}));     // next 8 KiB: bank group 1
    EXPECT_EQ(m.decode(32768), (DramAddress{0, 1, 0, 0}));    // 4 groups on: bank 1
    EXPECT_EQ(m.decode(131072), (DramAddress{0, 0, 1, 0}));   // 16 banks on: row 1
    EXPECT_EQ(m.decode(131072 + 3 * 8192 + 2 * 32768 + 5 * 64), (DramAddress{3, 2, 1, 40}));
    EXPECT_EQ(m.flat_bank(DramAddress{3, 2, 0, 0}), 14);
}

TEST(AddressMapping, EncodeInvertsDecode) {
    for (const char* order : {"row:bank:bankgroup:column", "row:bank:column:bankgroup",
                              "bank:row:column:bankgroup", "bankgroup:bank:row:column"}) {
        const AddressMapping m = AddressMapping::parse(kT, order);
        EXPECT_EQ(m.order(), order);
        for (std::uint64_t a : {std::uint64_t{0}, std::uint64_t{64}, std::uint64_t{12345 * 64},
                                std::uint64_t{1} << 32, (std::uint64_t{8} << 30) - 64}) {
            EXPECT_EQ(m.encode(m.decode(a)), a) << order << " " << a;
        }
    }
}

TEST(AddressMapping, BankGroupInterleavingAndBankRanges) {
    // row:bank:column:bankgroup: consecutive bursts rotate over the bank groups.
    const AddressMapping il = AddressMapping::parse(kT, "row:bank:column:bankgroup");
    EXPECT_EQ(il.decode(0).bank_group, 0);
    EXPECT_EQ(il.decode(64).bank_group, 1);
    EXPECT_EQ(il.decode(192).bank_group, 3);
    EXPECT_EQ(il.decode(256), (DramAddress{0, 0, 0, 8}));
    // bank:row:column:bankgroup (the Silent-PIM memory): each bank index owns 2 GiB.
    const AddressMapping pim = AddressMapping::parse(kT, "bank:row:column:bankgroup");
    EXPECT_EQ(pim.decode(std::uint64_t{2} << 30), (DramAddress{0, 1, 0, 0}));
    EXPECT_EQ(pim.decode((std::uint64_t{2} << 30) + 64 + 32768), (DramAddress{1, 1, 1, 0}));
}

TEST(AddressMapping, BadOrdersAndAddresses) {
    EXPECT_THROW((void)AddressMapping::parse(kT, "row:bank:column"), std::invalid_argument);
    EXPECT_THROW((void)AddressMapping::parse(kT, "row:bank:row:column"), std::invalid_argument);
    try {
        (void)AddressMapping::parse(kT, "row:bank:bankgrp:column");
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("unknown field 'bankgrp'"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW((void)AddressMapping(kT).decode(std::uint64_t{8} << 30), std::out_of_range);
    EXPECT_THROW((void)AddressMapping(kT).encode(DramAddress{4, 0, 0, 0}), std::out_of_range);
}

}  // namespace
}  // namespace hetsim::interconnect
