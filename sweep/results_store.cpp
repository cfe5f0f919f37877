#include "sweep/results_store.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sim/atomic_file.hpp"
#include "sim/config.hpp"
#include "sim/csv.hpp"

namespace hetsim::sweep {

// The sweep's own result files may exceed the 1 GiB input limit (a million points with
// several placers each): they are hetsim's output, read back to resume.
constexpr std::uintmax_t kResultsMaxBytes = std::uintmax_t{64} << 30;

namespace fs = std::filesystem;

namespace {

// The complete lines of `text`: a last line without its '\n' is a write a crash cut short.
std::vector<std::string> complete_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
        lines.push_back(text.substr(start, nl - start));
    return lines;
}

// One write(2) of the whole text at the end of the file, then fsync(2): a concurrent reader
// or a crash never sees half a point (O_APPEND writes to a local file are not interleaved).
void append_durably(const fs::path& file, const std::string& text) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error(
            fmt::format("cannot open '{}': {}", file.string(), std::strerror(errno)));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            throw std::runtime_error(
                fmt::format("cannot append to '{}': {}", file.string(), std::strerror(error)));
        }
        done += static_cast<std::size_t>(n);
    }
    ::fsync(fd);
    ::close(fd);
}

std::string one_line(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::replace(text.begin(), text.end(), '\r', ' ');
    return text;
}

// The point id of a jsonl line; "" when the line is not a complete JSON object with one.
std::string jsonl_point(const std::string& line) {
    try {
        const auto j = nlohmann::json::parse(line);
        return j.value("point", "");
    } catch (const nlohmann::json::exception&) {
        return "";
    }
}

// A point's axis values as a JSON object, in axis order (results.jsonl's "axes").
nlohmann::ordered_json axes_json(const DesignPoint& point) {
    nlohmann::ordered_json axes = nlohmann::ordered_json::object();
    for (const auto& [path, value] : point.values)
        axes[path] = value;
    return axes;
}

}  // namespace

std::string status_problem(const std::string& status) {
    if (status == kStatusOk || status == kStatusFailed)
        return "";
    return fmt::format("status '{}', expected {} or {}", status, kStatusOk, kStatusFailed);
}

std::string PointOutcome::serialize() const {
    nlohmann::json j{{"index", index},
                     {"id", id},
                     {"ok", ok},
                     {"error", error},
                     {"csv_rows", csv_rows},
                     {"jsonl_rows", jsonl_rows},
                     {"seconds", seconds}};
    return j.dump();
}

PointOutcome PointOutcome::deserialize(const std::string& text) {
    const auto j = nlohmann::json::parse(text);
    PointOutcome o;
    o.index = j.at("index").get<std::size_t>();
    o.id = j.at("id").get<std::string>();
    o.ok = j.at("ok").get<bool>();
    o.error = j.at("error").get<std::string>();
    o.csv_rows = j.at("csv_rows").get<std::string>();
    o.jsonl_rows = j.at("jsonl_rows").get<std::string>();
    o.seconds = j.at("seconds").get<double>();
    return o;
}

ResultsStore::ResultsStore(fs::path dir, std::vector<std::string> study_header,
                           std::vector<std::string> axes)
    : dir_(std::move(dir)), study_header_(std::move(study_header)), axes_(std::move(axes)) {}

std::vector<std::string> axis_columns(const std::vector<std::string>& study_header,
                                      const std::vector<std::string>& axes) {
    std::vector<std::string> columns;
    for (const std::string& axis : axes) {
        const bool taken =
            std::find(study_header.begin(), study_header.end(), axis) != study_header.end() ||
            axis == "status" || axis == "error";
        columns.push_back(taken ? "axis." + axis : axis);
    }
    return columns;
}

std::string ResultsStore::header_line() const {
    std::vector<std::string> columns = study_header_;
    columns.push_back("status");
    columns.push_back("error");
    for (const std::string& c : axis_columns(study_header_, axes_))
        columns.push_back(c);
    std::string line;
    for (const auto& c : columns)
        line += (line.empty() ? "" : ",") + sim::csv_field(c);
    return line;
}

ResultsStore::~ResultsStore() {
    if (lock_fd_ >= 0)
        ::close(lock_fd_);  // releases the flock
}

std::map<std::string, std::string> ResultsStore::open(bool resume, bool retry_failed,
                                                      const ResumeCheck& check) {
    fs::create_directories(dir_);
    // Two sweeps appending to one folder would interleave their points and run each twice.
    const fs::path lock = dir_ / ".lock";
    const bool lock_existed = fs::exists(lock);
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        throw sim::InputError(dir_.string(), "--out", 0,
                              "another hetsim sweep is writing this folder; wait for it, or use "
                              "another --out");
    }
    std::map<std::string, std::string> present;
    if (!resume || !fs::exists(csv_path())) {
        sim::write_file_atomically(csv_path(), header_line() + "\n");
        sim::write_file_atomically(jsonl_path(), "");
        return present;
    }
    const std::vector<std::string> csv_lines =
        complete_lines(sim::read_text_file(csv_path(), kResultsMaxBytes));
    // Refused: leave the folder as it was, without the lock this call made.
    const auto refuse_in = [&](const fs::path& file, int line, const std::string& why) {
        ::close(lock_fd_);
        lock_fd_ = -1;
        if (!lock_existed) {
            std::error_code ec;
            fs::remove(lock, ec);
        }
        throw sim::InputError(file.string(), "", line,
                              why +
                                  ": use another --out, or run without --resume to replace "
                                  "the results");
    };
    const auto refuse = [&](int line, const std::string& why) { refuse_in(csv_path(), line, why); };
    if (csv_lines.empty() || csv_lines.front() != header_line())
        refuse(1, "has other columns than this sweep writes (another sweep's results?)");
    const sim::CsvRow header = sim::parse_csv_line(csv_lines.front());
    // Rows are appended whole, a line at a time (append_durably), and a torn last line is not
    // among the complete ones: a complete row of another width was not written by a sweep, and
    // resuming would delete it.
    for (std::size_t i = 1; i < csv_lines.size(); ++i) {
        const std::size_t cells = sim::parse_csv_line(csv_lines[i]).size();
        if (cells != header.size()) {
            refuse(
                static_cast<int>(i) + 1,
                fmt::format("has a row of {} cells where the header has {}", cells, header.size()));
        }
    }
    const std::size_t point_col = *sim::csv_column(header, "point");
    const std::size_t status_col = *sim::csv_column(header, "status");
    const std::size_t placer_col = *sim::csv_column(header, "placer");
    // A sweep writes each point's rows once (a resumed point's old rows are dropped before it
    // runs again) and only the statuses it knows: a row that repeats one, or another status,
    // was edited or pasted in, and reusing it would count a point twice or call it done.
    std::map<std::pair<std::string, std::string>, std::size_t> first_line;
    for (std::size_t i = 1; i < csv_lines.size(); ++i) {
        const sim::CsvRow row = sim::parse_csv_line(csv_lines[i]);
        const int line = static_cast<int>(i) + 1;
        if (const std::string problem = status_problem(row[status_col]); !problem.empty())
            refuse(line, problem);
        const auto [it, added] = first_line.emplace(std::pair{row[point_col], row[placer_col]},
                                                    static_cast<std::size_t>(line));
        if (!added) {
            refuse(line, row[placer_col].empty()
                             ? fmt::format("repeats the row of point {} of line {}", row[point_col],
                                           it->second)
                             : fmt::format("repeats the row of point {} and placer '{}' of line {}",
                                           row[point_col], row[placer_col], it->second));
        }
    }
    std::vector<std::string> jsonl_lines;
    if (fs::exists(jsonl_path()))
        jsonl_lines = complete_lines(sim::read_text_file(jsonl_path(), kResultsMaxBytes));
    std::set<std::string> in_jsonl;
    for (const auto& line : jsonl_lines)
        in_jsonl.insert(jsonl_point(line));

    std::map<std::string, std::string> status;
    for (std::size_t i = 1; i < csv_lines.size(); ++i) {
        const sim::CsvRow row = sim::parse_csv_line(csv_lines[i]);
        if (row.size() != header.size())
            continue;  // not a row this sweep wrote whole
        status[row[point_col]] = row[status_col];
    }
    // A point counts when both files have it; with --retry-failed a failed one does not.
    for (const auto& [id, s] : status) {
        if (in_jsonl.count(id) && !(retry_failed && s == kStatusFailed))
            present[id] = s;
    }
    if (check) {
        if (const std::optional<Refusal> refusal = check(present))
            refuse_in(refusal->file, 0, refusal->why);
    }
    std::string csv = csv_lines.front() + "\n", jsonl;
    for (std::size_t i = 1; i < csv_lines.size(); ++i) {
        const sim::CsvRow row = sim::parse_csv_line(csv_lines[i]);
        if (row.size() == header.size() && present.count(row[point_col]))
            csv += csv_lines[i] + "\n";
    }
    for (const auto& line : jsonl_lines) {
        if (present.count(jsonl_point(line)))
            jsonl += line + "\n";
    }
    sim::write_file_atomically(csv_path(), csv);
    sim::write_file_atomically(jsonl_path(), jsonl);
    return present;
}

void ResultsStore::append(const PointOutcome& outcome) {
    // jsonl first: a crash between the two writes leaves a point only there, and `open` drops
    // it; the csv, which users read, never has a point the jsonl lacks for long.
    append_durably(jsonl_path(), outcome.jsonl_rows);
    append_durably(csv_path(), outcome.csv_rows);
}

void ResultsStore::sort(const std::vector<DesignPoint>& points) {
    const std::vector<std::string> csv_lines =
        complete_lines(sim::read_text_file(csv_path(), kResultsMaxBytes));
    const std::vector<std::string> jsonl_lines =
        complete_lines(sim::read_text_file(jsonl_path(), kResultsMaxBytes));
    if (csv_lines.empty())
        return;
    const sim::CsvRow header = sim::parse_csv_line(csv_lines.front());
    const std::size_t point_col = *sim::csv_column(header, "point");
    std::map<std::string, std::size_t> order;
    for (const auto& p : points)
        order[p.id] = p.index;
    const auto rank = [&](const std::string& id) {
        const auto it = order.find(id);
        return it == order.end() ? points.size() : it->second;
    };
    // Stable: the rows of a point keep their order (the study's placer order).
    std::vector<std::pair<std::size_t, std::string>> csv_rows, jsonl_rows;
    for (std::size_t i = 1; i < csv_lines.size(); ++i)
        csv_rows.emplace_back(rank(sim::parse_csv_line(csv_lines[i])[point_col]), csv_lines[i]);
    for (const auto& line : jsonl_lines)
        jsonl_rows.emplace_back(rank(jsonl_point(line)), line);
    const auto by_rank = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(csv_rows.begin(), csv_rows.end(), by_rank);
    std::stable_sort(jsonl_rows.begin(), jsonl_rows.end(), by_rank);
    std::string csv = csv_lines.front() + "\n", jsonl;
    for (const auto& [r, line] : csv_rows)
        csv += line + "\n";
    for (const auto& [r, line] : jsonl_rows)
        jsonl += line + "\n";
    sim::write_file_atomically(csv_path(), csv);
    sim::write_file_atomically(jsonl_path(), jsonl);
}

PointOutcome ResultsStore::read_point(const DesignPoint& point, const fs::path& point_dir,
                                      double seconds) const {
    PointOutcome o;
    o.index = point.index;
    o.id = point.id;
    o.ok = true;
    o.seconds = seconds;
    std::istringstream csv_in(sim::read_text_file(point_dir / "results.csv"));
    const std::vector<sim::CsvRow> rows = sim::read_csv(csv_in);
    if (rows.empty() || rows.front() != study_header_) {
        throw std::runtime_error(fmt::format("'{}' does not have the study's columns",
                                             (point_dir / "results.csv").string()));
    }
    const std::size_t point_col = *sim::csv_column(rows.front(), "point");
    std::string axis_fields;
    for (const auto& [path, value] : point.values)
        axis_fields += "," + sim::csv_field(value);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        sim::CsvRow row = rows[i];
        row.at(point_col) = point.id;
        std::string line;
        for (const auto& field : row)
            line += (line.empty() ? "" : ",") + sim::csv_field(one_line(field));
        o.csv_rows += line + "," + kStatusOk + "," + axis_fields + "\n";
    }
    // ordered_json keeps the study's key order in every row.
    auto doc = nlohmann::ordered_json::parse(sim::read_text_file(point_dir / "results.json"));
    for (auto& row : doc.at("rows")) {
        row["point"] = point.id;
        row["status"] = kStatusOk;
        row["axes"] = axes_json(point);
        o.jsonl_rows += row.dump() + "\n";
    }
    return o;
}

PointOutcome ResultsStore::failed_point(const DesignPoint& point, const std::string& study_name,
                                        const std::string& error, double seconds) const {
    PointOutcome o;
    o.index = point.index;
    o.id = point.id;
    o.ok = false;
    o.error = one_line(error);
    o.seconds = seconds;
    std::vector<std::string> fields(study_header_.size());
    fields[*sim::csv_column(study_header_, "study")] = study_name;
    fields[*sim::csv_column(study_header_, "point")] = point.id;
    fields.push_back(kStatusFailed);
    fields.push_back(o.error);
    for (const auto& [path, value] : point.values)
        fields.push_back(value);
    std::string line;
    for (const auto& field : fields)
        line += (line.empty() ? "" : ",") + sim::csv_field(field);
    o.csv_rows = line + "\n";
    o.jsonl_rows = nlohmann::ordered_json{{"study", study_name},
                                          {"point", point.id},
                                          {"status", kStatusFailed},
                                          {"error", o.error},
                                          {"axes", axes_json(point)}}
                       .dump() +
                   "\n";
    return o;
}

}  // namespace hetsim::sweep
