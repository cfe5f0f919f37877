// Writing a file so that a reader, or a crash, sees the old content or the new, never a mix:
// usage.md "no partial output files".
#pragma once

#include <filesystem>
#include <string>

namespace hetsim::sim {

// Writes `content` to a temporary name beside `file`, then renames it over `file`. Throws
// std::runtime_error (and leaves no temporary behind) when the write fails.
void write_file_atomically(const std::filesystem::path& file, const std::string& content);

}  // namespace hetsim::sim
