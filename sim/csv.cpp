#include "sim/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "sim/config.hpp"

namespace hetsim::sim {

namespace {

// Reads one record from `text` at `pos` (advanced past its line break). `complete` is false when
// the text ended inside a quoted field.
CsvRow next_record(std::string_view text, std::size_t& pos, bool& complete) {
    CsvRow row(1);
    bool quoted = false;
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
                }
            } else {
                row.back() += c;
            }
        } else if (c == '"' && row.back().empty()) {
            quoted = true;
        } else if (c == ',') {
            row.emplace_back();
        } else if (c == '\n') {
            break;
        } else if (c != '\r') {
            row.back() += c;
        }
    }
    complete = !quoted;
    return row;
}

}  // namespace

CsvRow parse_csv_line(std::string_view line) {
    std::size_t pos = 0;
    bool complete = true;
    return next_record(line, pos, complete);
}

std::vector<CsvRow> read_csv(std::istream& in) {
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::vector<CsvRow> rows;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t start = pos;
        bool complete = true;
        CsvRow row = next_record(text, pos, complete);
        if (!complete)
            throw std::runtime_error("CSV ends inside a quoted field (a truncated file?)");
        const std::string_view line = std::string_view(text).substr(start, pos - start);
        if (line.find_first_not_of("\r\n") == std::string_view::npos)
            continue;  // an empty line
        rows.push_back(std::move(row));
    }
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

std::unordered_map<std::string, std::size_t> csv_columns(const CsvRow& header,
                                                         const std::string& file) {
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < header.size(); ++i) {
        const auto [it, inserted] = index.emplace(header[i], i);
        if (!inserted) {
            throw InputError(
                file, "", 1,
                fmt::format("the header names column '{}' twice (columns {} and {})",
                            header[i].size() > 60 ? header[i].substr(0, 60) + "..." : header[i],
                            it->second + 1, i + 1));
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

std::optional<double> csv_number(const std::string& cell) {
    if (cell.empty())
        return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(cell.c_str(), &end);
    if (end != cell.c_str() + cell.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
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
