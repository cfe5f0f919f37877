// Whole files: written so that a reader, or a crash, sees the old content or the new, never a mix:
// usage.md "no partial output files".
#pragma once

#include <filesystem>
#include <string>

namespace hetsim::sim {

// Writes `content` to a temporary name beside `file`, then renames it over `file`. Throws
// std::runtime_error (and leaves no temporary behind) when the write fails.
void write_file_atomically(const std::filesystem::path& file, const std::string& content);

// The whole file as bytes. Throws std::runtime_error "cannot read '<file>'".
std::string read_text_file(const std::filesystem::path& file);

// The last line of a text file that is not blank (a log's error line), "" when none or when the
// file cannot be read.
std::string last_nonblank_line(const std::filesystem::path& file);

}  // namespace hetsim::sim
