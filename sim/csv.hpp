// RFC 4180 CSV: reading the tables hetsim writes (results.csv) back in — a sweep resuming, a
// report — and the measurement files `hetsim calibrate` reads. Fields may be quoted ("a, b"),
// with a doubled quote for a quote inside. Written by hand because none of the project's
// libraries reads CSV and the format needs a dozen lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hetsim::sim {

using CsvRow = std::vector<std::string>;

// A record and the line it starts on (1-based, counted in the file's line breaks: a quoted
// field that spans lines, or an empty line, puts records on other lines than their index).
struct CsvRecord {
    CsvRow cells;
    int line = 0;
};

// A file that is no CSV hetsim reads. what() is "line N: <reason>" (for callers that report
// it after the file name); reason() and line() give the parts. An invalid_argument: bad input
// (exit 2) even where a caller does not add the file's name.
class CsvError : public std::invalid_argument {
public:
    CsvError(int line, std::string reason);
    int line() const { return line_; }
    const std::string& reason() const { return reason_; }

private:
    int line_;
    std::string reason_;
};

// Splits one record that holds no line break inside a quoted field. Lenient, never throws
// (sweep resume reads its own rows back line by line): text after a closing quote is kept.
CsvRow parse_csv_line(std::string_view line);
// Every record of `text`. Records end at LF, CRLF or a lone CR (old Mac files); quoted fields
// may span lines; empty lines are no records. A UTF-8 byte-order mark at the start is dropped
// (spreadsheets write one; it would become part of the first column's name). Lenient where
// RFC 4180 is silent: a quote inside an unquoted field (`a"b`) is literal. Throws CsvError for
// what cannot be read as meant: a UTF-16 or UTF-32 byte-order mark, a NUL byte (a binary or
// UTF-16 file), text after a quoted field's closing quote (`"h1"00`: h100, or h1"00?), and a
// quoted field still open at the end (a truncated file).
std::vector<CsvRecord> read_csv_records(std::string_view text);
// read_csv_records of the whole stream, the cells only.
std::vector<CsvRow> read_csv(std::istream& in);
// `field` quoted when it holds a comma, a quote or a line break (quotes doubled inside).
std::string csv_field(std::string_view field);
// A cell as an error message shows it (inside quotes the caller adds): bytes outside printable
// ASCII as \xNN, so that a tab, a NUL or an invisible character (a no-break space, a
// byte-order mark) cannot pass for the text it resembles; cut to `max_chars` with "...".
std::string csv_shown(std::string_view cell, std::size_t max_chars = 60);
// The index of `column` in a header row, nullopt when absent.
std::optional<std::size_t> csv_column(const CsvRow& header, std::string_view column);

// A cell read as a decimal number: an optional '-' or '+', digits with an optional '.', an
// optional exponent ("12", "-1.5", "4.5e-06"). Nothing else: no spaces around it (RFC 4180
// keeps spaces as part of a field, and hetsim never trims one column but not another), no hex
// ("0x10" would read as 16), no "inf" or "nan".
struct CsvDecimal {
    enum class Status {
        ok,
        not_decimal,   // empty, text, hex, spaces, inf, nan
        out_of_range,  // decimal, but beyond a double (1e309) or below its normal range (1e-320)
    };
    Status status = Status::not_decimal;
    double value = 0.0;  // when ok
};
CsvDecimal csv_decimal(std::string_view cell);
// csv_decimal's value when ok, else nullopt ("", "nan", "inf", text, hex, out of range).
std::optional<double> csv_number(const std::string& cell);
// A cell holding a whole decimal integer ("-12"), within int64; nullopt otherwise ("1.0", "1e3").
std::optional<std::int64_t> csv_integer(const std::string& cell);

// A text value (a placer stat, a trace slice's argument) as the JSON value it holds: an integer,
// a finite number, else the text. `Json` is nlohmann::json or ordered_json (a template, so that
// this header needs no JSON library).
template <class Json>
Json typed_json_value(const std::string& text) {
    if (const auto i = csv_integer(text))
        return Json(*i);
    if (const auto d = csv_number(text))
        return Json(*d);
    return Json(text);
}
// Column name -> index for a header row. A name that repeats is an InputError naming `file`
// (line 1): which of the two columns a reader should use is not for it to guess.
std::unordered_map<std::string, std::size_t> csv_columns(const CsvRow& header,
                                                         const std::string& file = "");

}  // namespace hetsim::sim
