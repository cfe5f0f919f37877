#include "sim/atomic_file.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace hetsim::sim {

namespace {

namespace fs = std::filesystem;

// "5368709120 bytes (5.0 GiB)": the exact count, and a size a reader takes in at a glance.
std::string size_text(std::uintmax_t bytes) {
    constexpr std::array<const char*, 4> units{"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024)
        return fmt::format("{} bytes", bytes);
    double scaled = static_cast<double>(bytes) / 1024.0;
    std::size_t unit = 0;
    while (scaled >= 1024.0 && unit + 1 < units.size()) {
        scaled /= 1024.0;
        ++unit;
    }
    return fmt::format("{} bytes ({:.1f} {})", bytes, scaled, units[unit]);
}

std::string limit_text(std::uintmax_t bytes) {
    const std::string text = size_text(bytes);
    // The limit reads better as "1.0 GiB" than as its byte count.
    const auto open = text.find('(');
    return open == std::string::npos ? text : text.substr(open + 1, text.size() - open - 2);
}

std::string kind_text(fs::file_type type) {
    switch (type) {
        case fs::file_type::directory:
            return "is a directory";
        case fs::file_type::fifo:
            return "is a FIFO (named pipe), not a regular file";
        case fs::file_type::socket:
            return "is a socket, not a regular file";
        case fs::file_type::character:
            return "is a character device, not a regular file";
        case fs::file_type::block:
            return "is a block device, not a regular file";
        default:
            return "is not a regular file";
    }
}

}  // namespace

std::optional<std::string> input_file_problem(const fs::path& file, std::uintmax_t max_bytes) {
    std::error_code ec;
    // status() follows symlinks: a link to a FIFO is a FIFO.
    const fs::file_status status = fs::status(file, ec);
    if (status.type() == fs::file_type::not_found)
        return std::nullopt;
    if (ec)
        return fmt::format("cannot be read ({})", ec.message());
    if (status.type() != fs::file_type::regular)
        return kind_text(status.type());
    const std::uintmax_t bytes = fs::file_size(file, ec);
    if (ec)
        return fmt::format("cannot be read ({})", ec.message());
    if (bytes > max_bytes)
        return fmt::format("is {}, more than the {} limit hetsim reads", size_text(bytes),
                           limit_text(max_bytes));
    return std::nullopt;
}

void check_input_file(const fs::path& file, std::string_view expected, std::uintmax_t max_bytes) {
    if (const auto problem = input_file_problem(file, max_bytes)) {
        throw std::invalid_argument(
            expected.empty()
                ? fmt::format("{}: {}", file.string(), *problem)
                : fmt::format("{}: {}, expected {}", file.string(), *problem, expected));
    }
}

void write_file_atomically(const fs::path& file, const std::string& content) {
    // A folder given where a file is meant (`--out .`) would leave "..tmp" behind, then fail to
    // rename over the folder: refused first, with the reason.
    if (fs::is_directory(file))
        throw fs::filesystem_error("cannot write a file", file,
                                   std::make_error_code(std::errc::is_a_directory));
    const fs::path tmp = file.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << content;
        out.close();
        if (!out) {
            const int why = errno;
            std::error_code ec;
            fs::remove(tmp, ec);
            throw std::system_error(why != 0 ? why : EIO, std::generic_category(),
                                    fmt::format("cannot write '{}'", file.string()));
        }
    }
    std::error_code renamed;
    fs::rename(tmp, file, renamed);
    if (renamed) {
        std::error_code ec;
        fs::remove(tmp, ec);
        throw fs::filesystem_error("cannot write a file", file, renamed);
    }
}

std::string write_failure_reason(const std::exception& error) {
    if (const auto* system = dynamic_cast<const std::system_error*>(&error))
        return system->code().message();
    return error.what();
}

std::string read_text_file(const fs::path& file, std::uintmax_t max_bytes) {
    check_input_file(file, "", max_bytes);
    const auto cannot_read = [&](std::error_code why) {
        return std::system_error(why, fmt::format("cannot read '{}'", file.string()));
    };
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw cannot_read(std::error_code(errno != 0 ? errno : EIO, std::generic_category()));
    // A failing read (EIO from /proc/self/mem) throws from basic_filebuf::underflow; with badbit
    // in the mask, istream::read passes that exception on, with its errno, instead of only
    // setting badbit.
    in.exceptions(std::ios::badbit);
    std::string content;
    std::array<char, 1 << 16> buffer{};
    try {
        while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
            content.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
            // A file that grows while it is read, or a special file that reports size 0.
            if (content.size() > max_bytes) {
                throw std::invalid_argument(
                    fmt::format("{}: has more than the {} limit hetsim reads", file.string(),
                                limit_text(max_bytes)));
            }
        }
    } catch (const std::ios_base::failure& e) {
        throw cannot_read(e.code());
    }
    return content;
}

fs::path first_missing_folder(const fs::path& folder) {
    if (fs::exists(folder))
        return {};
    fs::path top = folder;
    while (top.has_parent_path() && top.parent_path() != top && !fs::exists(top.parent_path()))
        top = top.parent_path();
    return top;
}

std::string last_nonblank_line(const fs::path& file) {
    std::ifstream in(file);
    std::string line, last;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            last = line;
    }
    return last;
}

}  // namespace hetsim::sim
