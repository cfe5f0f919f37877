// sim/csv: RFC 4180 records (quoted commas, doubled quotes, line breaks in quotes, CRLF), a
// truncated file, and writing a field back.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/csv.hpp"

namespace hetsim::sim {
namespace {

TEST(CsvTest, QuotedFieldsCommasAndDoubledQuotes) {
    std::istringstream in(
        "a,b,c\r\n"
        "\"x, y\",\"he said \"\"hi\"\"\",\n"
        "\n"
        "\"two\nlines\",\"\",3\n"
        "plain\"quote,\"\"\"\",last");  // no final line break
    const auto records = read_csv(in);
    using R = std::vector<std::string>;
    ASSERT_EQ(records.size(), 4u);
    EXPECT_EQ(records[0], (R{"a", "b", "c"}));
    EXPECT_EQ(records[1], (R{"x, y", "he said \"hi\"", ""}));
    EXPECT_EQ(records[2], (R{"two\nlines", "", "3"}));
    EXPECT_EQ(records[3], (R{"plain\"quote", "\"", "last"}));
    const auto index = csv_columns(records[0]);
    EXPECT_EQ(index.at("a"), 0u);
    EXPECT_EQ(index.at("c"), 2u);
    EXPECT_EQ(index.count("d"), 0u);
}

TEST(CsvTest, AnOpenQuoteAtTheEndThrows) {
    std::istringstream in("a,b\n\"never closed,2\n");
    EXPECT_THROW(read_csv(in), std::runtime_error);
}

TEST(CsvTest, FieldsRoundTrip) {
    for (const std::string field : {"plain", "a, b", "say \"hi\"", "two\nlines", ""}) {
        std::istringstream in("x," + csv_field(field) + ",y\n");
        const auto records = read_csv(in);
        ASSERT_EQ(records.size(), 1u) << field;
        EXPECT_EQ(records[0], (CsvRow{"x", field, "y"})) << field;
    }
    EXPECT_EQ(parse_csv_line("a,\"b,c\",d"), (CsvRow{"a", "b,c", "d"}));
    EXPECT_EQ(csv_column(CsvRow{"a", "b"}, "b"), 1u);
    EXPECT_FALSE(csv_column(CsvRow{"a", "b"}, "c").has_value());
}

}  // namespace
}  // namespace hetsim::sim
