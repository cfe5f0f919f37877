// Whole files: written so that a reader, or a crash, sees the old content or the new, never a mix:
// usage.md "no partial output files". Read only when they are regular files of a size hetsim can
// hold: a FIFO would block the reader forever, a directory or a device fails mid-read, and a
// many-gigabyte file would exhaust memory before the parser says anything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace hetsim::sim {

// The largest input file hetsim reads whole: 1 GiB, about 3000 times the largest workload or
// config it ships (a 330 KB JSON graph), and small enough that a wrong file is refused at once
// instead of after minutes of reading and an out-of-memory error.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{1} << 30;

// What stops `file` from being read as an input file, as a phrase that follows the file name
// ("is a directory", "is a FIFO, not a regular file", "is 5368709120 bytes (5.0 GiB), more than
// the 1.0 GiB limit"), or std::nullopt when it is a regular file (symlinks followed) of at most
// `max_bytes`, or when it does not exist (the caller's open names a missing file).
std::optional<std::string> input_file_problem(const std::filesystem::path& file,
                                              std::uintmax_t max_bytes = kMaxInputFileBytes);

// Throws std::invalid_argument "<file>: <problem>, expected <expected>" when
// input_file_problem() finds one; `expected` names what the file should be ("a JSON graph
// file").
void check_input_file(const std::filesystem::path& file, std::string_view expected,
                      std::uintmax_t max_bytes = kMaxInputFileBytes);

// An output file that could not be written: what() is "cannot write '<file>': <reason>". A
// std::filesystem::filesystem_error, so the CLI reports it as bad input (exit 2: the output
// path is the user's), not as an internal error.
class WriteError : public std::filesystem::filesystem_error {
public:
    WriteError(const std::filesystem::path& file, std::string reason, std::error_code code);
    const char* what() const noexcept override { return message_.c_str(); }
    const std::string& reason() const { return reason_; }

private:
    std::string reason_, message_;
};

// Writes `content` to a temporary name beside `file`, then renames it over `file`; a symlink is
// written through to its target. Throws WriteError, leaving no temporary behind, when the
// write fails, and when `file` is a directory, a device node, a FIFO or a socket (never
// replaced: `--out /dev/null` must not delete /dev/null).
void write_file_atomically(const std::filesystem::path& file, const std::string& content);

// Creates `folder` and its missing parents for a command's outputs (create_directories), and
// throws WriteError with the reason in words: a file on the way ("'f' is a file, not a
// folder"), a symlink to nothing, no permission. Returns whether `folder` was created.
bool create_output_folder(const std::filesystem::path& folder);

// The file write_file_atomically(`file`) would write (`file`, or the target of its symlinks);
// throws its WriteError for a directory, a device node, a FIFO or a socket. A command that
// writes several files checks them all first, so that a refused one leaves none written.
std::filesystem::path output_target(const std::filesystem::path& file);

// Why a write failed, for a message that names the file itself: a WriteError's reason, the
// reason of another std::system_error ("Permission denied"), else what().
std::string write_failure_reason(const std::exception& error);
// The one line for a failed write: a WriteError's own ("cannot write 'o/results.csv': is a
// directory"), else "cannot write '<target>': <reason>" (a folder that cannot be created).
std::string write_failure_message(const std::exception& error, const std::filesystem::path& target);

// The whole file as bytes. Throws std::invalid_argument (check_input_file) for a file that is
// not a regular file or is larger than `max_bytes`, before opening it, and std::system_error
// (a std::runtime_error) "cannot read '<file>': <reason>" when it cannot be opened or a read
// fails; code() is the reason.
std::string read_text_file(const std::filesystem::path& file,
                           std::uintmax_t max_bytes = kMaxInputFileBytes);

// The outermost folder that creating `folder` (create_directories) would make: `a` for `a/b/c`
// when `a` does not exist; `folder` itself when only it is missing. What an output that is
// refused must remove to leave no trace. Empty when `folder` exists.
std::filesystem::path first_missing_folder(const std::filesystem::path& folder);

// The last line of a text file that is not blank (a log's error line), "" when none or when the
// file cannot be read.
std::string last_nonblank_line(const std::filesystem::path& file);

}  // namespace hetsim::sim
