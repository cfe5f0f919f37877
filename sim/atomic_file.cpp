#include "sim/atomic_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>
#include <system_error>

namespace hetsim::sim {

void write_file_atomically(const std::filesystem::path& file, const std::string& content) {
    const std::filesystem::path tmp = file.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << content;
        out.close();
        if (!out) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            throw std::runtime_error(fmt::format("cannot write '{}'", file.string()));
        }
    }
    std::filesystem::rename(tmp, file);
}

}  // namespace hetsim::sim
