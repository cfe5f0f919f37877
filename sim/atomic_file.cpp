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

WriteError::WriteError(const fs::path& file, std::string reason, std::error_code code)
    : fs::filesystem_error(reason, file, code),
      reason_(std::move(reason)),
      message_(fmt::format("cannot write '{}': {}", file.string(), reason_)) {}

fs::path output_target(const fs::path& requested) {
    // A symlink is written through, as a shell's `>` would: the rename replaces its target, not
    // the link (a dangling link gets its target created).
    fs::path file = requested;
    std::error_code ec;
    for (int hops = 0; fs::is_symlink(fs::symlink_status(file, ec)); ++hops) {
        const auto loop = std::make_error_code(std::errc::too_many_symbolic_link_levels);
        if (hops == 40)  // the kernel's own limit on links followed (ELOOP)
            throw WriteError(requested, loop.message(), loop);
        const fs::path target = fs::read_symlink(file, ec);
        file = target.is_absolute() ? target : file.parent_path() / target;
    }
    const fs::file_status status = fs::status(file, ec);
    // A folder given where a file is meant (`--out .`) would leave "..tmp" behind, then fail to
    // rename over the folder: refused first, with the reason.
    if (status.type() == fs::file_type::directory) {
        throw WriteError(requested, "is a directory",
                         std::make_error_code(std::errc::is_a_directory));
    }
    // The rename would replace a device node or a FIFO with a regular file: `--out /dev/null`
    // run as root deleted the system's /dev/null. Outputs are regular files.
    if (status.type() != fs::file_type::not_found && status.type() != fs::file_type::regular) {
        throw WriteError(requested,
                         kind_text(status.type()) + "; hetsim writes its outputs as regular files",
                         std::make_error_code(std::errc::operation_not_supported));
    }
    return file;
}

bool create_output_folder(const fs::path& folder) {
    std::error_code ec;
    // The first part of the path that is not a folder, for the reason: create_directories says
    // only "Not a directory" or "File exists".
    fs::path part;
    for (const fs::path& piece : folder) {
        part /= piece;
        const fs::file_status link = fs::symlink_status(part, ec);
        if (link.type() == fs::file_type::not_found)
            break;
        const fs::file_status status = fs::status(part, ec);
        if (status.type() == fs::file_type::directory)
            continue;
        const std::string why =
            status.type() == fs::file_type::not_found
                ? fmt::format("'{}' is a symlink to '{}', which does not exist", part.string(),
                              fs::read_symlink(part, ec).string())
                : fmt::format("'{}' {}", part.string(),
                              status.type() == fs::file_type::regular ? "is a file, not a folder"
                                                                      : kind_text(status.type()));
        throw WriteError(folder, why, std::make_error_code(std::errc::not_a_directory));
    }
    const bool created = fs::create_directories(folder, ec);
    if (ec)
        throw WriteError(folder, ec.message(), ec);
    return created;
}

void write_file_atomically(const fs::path& requested, const std::string& content) {
    const fs::path file = output_target(requested);
    std::error_code ec;
    const fs::path tmp = file.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << content;
        out.close();
        if (!out) {
            const int why = errno != 0 ? errno : EIO;
            fs::remove(tmp, ec);
            const std::error_code code(why, std::generic_category());
            throw WriteError(requested, code.message(), code);
        }
    }
    std::error_code renamed;
    fs::rename(tmp, file, renamed);
    if (renamed) {
        fs::remove(tmp, ec);
        throw WriteError(requested, renamed.message(), renamed);
    }
}

std::string write_failure_reason(const std::exception& error) {
    if (const auto* write = dynamic_cast<const WriteError*>(&error))
        return write->reason();
    if (const auto* system = dynamic_cast<const std::system_error*>(&error))
        return system->code().message();
    return error.what();
}

std::string write_failure_message(const std::exception& error, const fs::path& target) {
    if (dynamic_cast<const WriteError*>(&error) != nullptr)
        return error.what();
    return fmt::format("cannot write '{}': {}", target.string(), write_failure_reason(error));
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
