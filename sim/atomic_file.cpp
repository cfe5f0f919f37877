#include "sim/atomic_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iterator>
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

std::string read_text_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw std::runtime_error(fmt::format("cannot read '{}'", file.string()));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string last_nonblank_line(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string line, last;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            last = line;
    }
    return last;
}

}  // namespace hetsim::sim
