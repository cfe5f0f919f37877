// sim/csv: RFC 4180 records (quoted commas, doubled quotes, line breaks in quotes, CRLF, CR),
// the line each record starts on, what is refused (a truncated file, text after a closing
// quote, UTF-16, NUL bytes), decimal numbers only, and writing a field back.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
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
    EXPECT_THROW(read_csv(in), CsvError);
    try {
        read_csv_records("a,b\n\n\"never closed,2\n");
        FAIL() << "expected a CsvError";
    } catch (const CsvError& e) {
        EXPECT_EQ(e.line(), 3);
        EXPECT_STREQ(e.what(),
                     "line 3: the file ends inside a quoted field that starts on this line (a "
                     "truncated file, or a quote never closed?)");
    }
}

// Each record knows the line it starts on: after empty lines and quoted line breaks too.
TEST(CsvTest, RecordsKnowTheirLines) {
    const auto records = read_csv_records("a,b\n\n\"x\ny\",1\r\nc,2\rd,3\n");
    ASSERT_EQ(records.size(), 4u);
    EXPECT_EQ(records[0].line, 1);
    EXPECT_EQ(records[1].line, 3);
    EXPECT_EQ(records[1].cells, (CsvRow{"x\ny", "1"}));
    EXPECT_EQ(records[2].line, 5);
    // A lone CR (old Mac line ends) ends a record instead of joining it to the next.
    EXPECT_EQ(records[2].cells, (CsvRow{"c", "2"}));
    EXPECT_EQ(records[3].line, 6);
    EXPECT_EQ(records[3].cells, (CsvRow{"d", "3"}));
}

// The line of a CsvError a reader would report, and its reason.
std::pair<int, std::string> csv_error(std::string_view text) {
    try {
        read_csv_records(text);
    } catch (const CsvError& e) {
        return {e.line(), e.reason()};
    }
    return {0, "no error"};
}

TEST(CsvTest, EncodingsAndFramingThatCannotBeReadAsMeantAreRefused) {
    // A UTF-8 byte-order mark is dropped; the first column keeps its name.
    EXPECT_EQ(read_csv_records("\xEF\xBB\xBF"
                               "device,b\n")[0]
                  .cells,
              (CsvRow{"device", "b"}));
    const std::string utf16 =
        "the file starts with a UTF-16 or UTF-32 byte-order mark; save it as UTF-8";
    EXPECT_EQ(csv_error(std::string("\xFF\xFE"
                                    "d\0e\0",
                                    6)),
              std::pair(1, utf16));
    EXPECT_EQ(csv_error(std::string("\xFE\xFF\0d\0e", 6)), std::pair(1, utf16));
    EXPECT_EQ(csv_error(std::string("\0\0\xFE\xFF\0\0\0d", 8)), std::pair(1, utf16));
    EXPECT_EQ(csv_error(std::string("a,b\n1,2\0\n", 9)),
              std::pair(2, std::string("a NUL byte: not a text file, or UTF-16 without a "
                                       "byte-order mark; save it as UTF-8")));
    // `"h1"00`: h100, or h1"00? RFC 4180 allows nothing after a closing quote.
    EXPECT_EQ(csv_error("a,b\nx,\"h1\"00,y\n"),
              std::pair(2, std::string("text after the closing quote of a quoted field "
                                       "('\"h1\"00'): quote the whole field, with each quote "
                                       "inside doubled")));
    // parse_csv_line (a sweep reading its own rows back) stays lenient.
    EXPECT_EQ(parse_csv_line("\"h1\"00,y"), (CsvRow{"h100", "y"}));
}

TEST(CsvTest, NumbersAreDecimalOnly) {
    using S = CsvDecimal::Status;
    for (const char* ok : {"12", "-1.5", "+2", "4.5e-06", "1E3", ".5", "5.", "0", "1e-307"})
        EXPECT_EQ(csv_decimal(ok).status, S::ok) << ok;
    EXPECT_EQ(csv_decimal("4.5e-06").value, 4.5e-06);
    for (const char* text : {"", "0x10", "0X1p3", " 5", "5 ", "inf", "-inf", "nan", "Infinity",
                             "1_000", "5 us", "e5", "1e", "1e+", ".", "-", "5e-6e3", "1,5"})
        EXPECT_EQ(csv_decimal(text).status, S::not_decimal) << "'" << text << "'";
    for (const char* text : {"1e309", "-1e309", "1e-320", "1e-400"})
        EXPECT_EQ(csv_decimal(text).status, S::out_of_range) << text;
    EXPECT_FALSE(csv_number("0x10").has_value());
    EXPECT_EQ(csv_number("2.5"), 2.5);
}

TEST(CsvTest, CellsAreShownWithInvisibleBytesEscaped) {
    EXPECT_EQ(csv_shown("plain"), "plain");
    EXPECT_EQ(csv_shown(std::string("a\tb\0c", 5)), "a\\x09b\\x00c");
    EXPECT_EQ(csv_shown("\xEF\xBB\xBF"
                        "device"),
              "\\xef\\xbb\\xbfdevice");
    EXPECT_EQ(csv_shown(std::string(70, 'x')), std::string(60, 'x') + "...");
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
