#include "sim/csv.hpp"

#include "sim/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <stdexcept>

#include "sim/config.hpp"

namespace hetsim::sim {

namespace {

// Reads one record from `text` at `pos` (advanced past its line break), counting the line
// breaks it crosses in `line`. `complete` is false when the text ended inside a quoted field.
// `strict`: text after a closing quote is a CsvError instead of being appended.
CsvRow next_record(std::string_view text, std::size_t& pos, int& line, bool& complete,
                   bool strict) {
    CsvRow row(1);
    bool quoted = false;
    bool closed = false;  // the current field was quoted and its closing quote has passed
    std::size_t field_start = pos;
    complete = true;
    while (pos < text.size()) {
        const char c = text[pos++];
        if (quoted) {
            if (c == '"') {
                if (pos < text.size() && text[pos] == '"') {
                    row.back() += '"';
                    ++pos;
                } else {
                    quoted = false;
                    closed = true;
                }
            } else {
                if (c == '\n' || (c == '\r' && (pos >= text.size() || text[pos] != '\n')))
                    ++line;
                row.back() += c;
            }
        } else if (c == ',') {
            row.emplace_back();
            closed = false;
            field_start = pos;
        } else if (c == '\n' || c == '\r') {
            // LF, CRLF, or a lone CR (the line end of old Mac files): the record ends.
            if (c == '\r' && pos < text.size() && text[pos] == '\n')
                ++pos;
            ++line;
            break;
        } else if (closed && strict) {
            // `"h1"00` could mean h100 or h1"00: RFC 4180 has no text after the closing quote.
            const std::size_t end = std::min(text.find_first_of(",\r\n", pos), text.size());
            throw CsvError(line,
                           fmt::format("text after the closing quote of a quoted field ('{}'): "
                                       "quote the whole field, with each quote inside doubled",
                                       csv_shown(text.substr(field_start, end - field_start))));
        } else if (c == '"' && row.back().empty() && !closed) {
            quoted = true;
        } else {
            row.back() += c;
        }
    }
    complete = !quoted;
    return row;
}

}  // namespace

CsvError::CsvError(int line, std::string reason)
    : std::invalid_argument(fmt::format("line {}: {}", line, reason)),
      line_(line),
      reason_(std::move(reason)) {}

CsvRow parse_csv_line(std::string_view line) {
    std::size_t pos = 0;
    int line_number = 1;
    bool complete = true;
    return next_record(line, pos, line_number, complete, false);
}

std::vector<CsvRecord> read_csv_records(std::string_view text) {
    // Dropped: a spreadsheet's UTF-8 byte-order mark would become part of the first column's
    // name ("\uFEFFdevice", which prints like "device").
    constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
    if (text.starts_with(kUtf8Bom))
        text.remove_prefix(kUtf8Bom.size());
    // UTF-16 and UTF-32 (little- or big-endian; UTF-32LE's mark starts with UTF-16LE's) would
    // read as text with a NUL in every other byte.
    for (const std::string_view bom :
         {std::string_view("\xFF\xFE", 2), std::string_view("\xFE\xFF", 2),
          std::string_view("\x00\x00\xFE\xFF", 4)}) {
        if (text.starts_with(bom))
            throw CsvError(1,
                           "the file starts with a UTF-16 or UTF-32 byte-order mark; save it as "
                           "UTF-8");
    }
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        const std::string_view before = text.substr(0, nul);
        const auto line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
        throw CsvError(line,
                       "a NUL byte: not a text file, or UTF-16 without a byte-order mark; save "
                       "it as UTF-8");
    }
    std::vector<CsvRecord> records;
    std::size_t pos = 0;
    int line = 1;
    while (pos < text.size()) {
        const std::size_t start = pos;
        const int first_line = line;
        bool complete = true;
        CsvRow row = next_record(text, pos, line, complete, true);
        if (!complete) {
            throw CsvError(first_line,
                           "the file ends inside a quoted field that starts on this line (a "
                           "truncated file, or a quote never closed?)");
        }
        const std::string_view raw = text.substr(start, pos - start);
        if (raw.find_first_not_of("\r\n") == std::string_view::npos)
            continue;  // an empty line
        records.push_back({std::move(row), first_line});
    }
    return records;
}

std::vector<CsvRow> read_csv(std::istream& in) {
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::vector<CsvRow> rows;
    for (CsvRecord& record : read_csv_records(text))
        rows.push_back(std::move(record.cells));
    return rows;
}

std::string csv_field(std::string_view field) {
    if (field.find_first_of(",\"\n\r") == std::string_view::npos)
        return std::string(field);
    std::string out = "\"";
    for (const char c : field) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

std::string csv_shown(std::string_view cell, std::size_t max_chars) {
    return shown_bytes(cell, max_chars);
}

std::unordered_map<std::string, std::size_t> csv_columns(const CsvRow& header,
                                                         const std::string& file) {
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < header.size(); ++i) {
        const auto [it, inserted] = index.emplace(header[i], i);
        if (!inserted) {
            throw InputError(file, "", 1,
                             fmt::format("the header names column '{}' twice (columns {} and {})",
                                         csv_shown(header[i]), it->second + 1, i + 1));
        }
    }
    return index;
}

std::optional<std::size_t> csv_column(const CsvRow& header, std::string_view column) {
    const auto it = std::find(header.begin(), header.end(), column);
    if (it == header.end())
        return std::nullopt;
    return static_cast<std::size_t>(it - header.begin());
}

CsvDecimal csv_decimal(std::string_view cell) {
    CsvDecimal out;
    // The grammar first: strtod alone would also take spaces before the number, hex ("0x10"),
    // "inf", "nan" and "infinity".
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t from = i;
        while (i < cell.size() && cell[i] >= '0' && cell[i] <= '9')
            ++i;
        return i - from;
    };
    if (i < cell.size() && (cell[i] == '-' || cell[i] == '+'))
        ++i;
    std::size_t mantissa = digits();
    if (i < cell.size() && cell[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0)
        return out;
    if (i < cell.size() && (cell[i] == 'e' || cell[i] == 'E')) {
        ++i;
        if (i < cell.size() && (cell[i] == '-' || cell[i] == '+'))
            ++i;
        if (digits() == 0)
            return out;
    }
    if (i != cell.size())
        return out;
    const std::string text(cell);
    errno = 0;
    const double value = std::strtod(text.c_str(), nullptr);
    // ERANGE: past a double's largest (1e309) or below its smallest normal value (1e-320,
    // which would keep a few bits of precision or none).
    if (errno == ERANGE || !std::isfinite(value)) {
        out.status = CsvDecimal::Status::out_of_range;
        return out;
    }
    out.status = CsvDecimal::Status::ok;
    out.value = value;
    return out;
}

std::optional<double> csv_number(const std::string& cell) {
    const CsvDecimal d = csv_decimal(cell);
    if (d.status != CsvDecimal::Status::ok)
        return std::nullopt;
    return d.value;
}

std::optional<std::int64_t> csv_integer(const std::string& cell) {
    std::int64_t value = 0;
    const char* end = cell.data() + cell.size();
    const auto [stop, ec] = std::from_chars(cell.data(), end, value);
    if (cell.empty() || ec != std::errc() || stop != end)
        return std::nullopt;
    return value;
}

}  // namespace hetsim::sim
