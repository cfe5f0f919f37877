// RFC 4180 CSV: reading the tables hetsim writes (results.csv) back in — a sweep resuming, a
// report. Fields may be quoted ("a, b"), with a doubled quote for a quote inside. Written by hand
// because none of the project's libraries reads CSV and the format needs a dozen lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hetsim::sim {

using CsvRow = std::vector<std::string>;

// Splits one record that holds no line break inside a quoted field.
CsvRow parse_csv_line(std::string_view line);
// Every record of `in` (records end at LF or CRLF; quoted fields may span lines); empty lines
// are no records. Lenient where RFC 4180 is silent: a quote inside an unquoted field is
// literal. Throws std::runtime_error when a quoted field is still open at the end (a truncated
// file).
std::vector<CsvRow> read_csv(std::istream& in);
// `field` quoted when it holds a comma, a quote or a line break (quotes doubled inside).
std::string csv_field(std::string_view field);
// The index of `column` in a header row, nullopt when absent.
std::optional<std::size_t> csv_column(const CsvRow& header, std::string_view column);
// A cell holding a finite number, written whole ("1e-3"); nullopt for "", "nan", "inf" and text.
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
