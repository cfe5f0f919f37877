// sim::read_text_file and the input-file checks every file loader shares: only a regular file
// (symlinks followed) of at most the limit is opened, so that a FIFO cannot block a reader, a
// directory or a device cannot fail it mid-read, and a file of gigabytes is refused at once
// instead of after minutes of reading and std::bad_alloc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <system_error>

#include "sim/atomic_file.hpp"
#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::sim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string invalid_argument_of(const std::function<void()>& read) {
    try {
        read();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

// `--out .` where a file is meant left "..tmp" behind and failed on the rename; a directory is
// refused first, with a filesystem_error (bad input), and no temporary is left anywhere.
TEST(AtomicWrite, ADirectoryIsRefusedAndNoTemporaryIsLeft) {
    hetsim::testing::TempDir dir;
    const fs::path folder = dir.path() / "sub";
    fs::create_directory(folder);
    try {
        write_file_atomically(folder, "x");
        ADD_FAILURE() << "wrote over a directory";
    } catch (const fs::filesystem_error& e) {
        EXPECT_EQ(e.code(), std::make_error_code(std::errc::is_a_directory));
        EXPECT_EQ(e.path1(), folder);
    }
    EXPECT_FALSE(fs::exists(folder.string() + ".tmp"));
    EXPECT_TRUE(fs::is_directory(folder));
    write_file_atomically(dir.path() / "f.txt", "content");
    EXPECT_EQ(read_text_file(dir.path() / "f.txt"), "content");
    EXPECT_FALSE(fs::exists(dir.path() / "f.txt.tmp"));
}

TEST(InputFile, ReadsARegularFileAndOneBehindASymlink) {
    hetsim::testing::TempDir dir;
    const fs::path file = dir.write("a.txt", "line 1\nline 2\n");
    fs::create_symlink(file, dir.path() / "link.txt");
    EXPECT_EQ(read_text_file(file), "line 1\nline 2\n");
    EXPECT_EQ(read_text_file(dir.path() / "link.txt"), "line 1\nline 2\n");
    EXPECT_EQ(input_file_problem(file), std::nullopt);
    // A missing file is the caller's to name: the open fails as before.
    EXPECT_EQ(input_file_problem(dir.path() / "missing.txt"), std::nullopt);
    try {
        (void)read_text_file(dir.path() / "missing.txt");
        ADD_FAILURE() << "a missing file was read";
    } catch (const std::system_error& e) {
        EXPECT_THAT(e.what(), HasSubstr("missing.txt': No such file or directory"));
    }
}

TEST(InputFile, ADirectoryAFifoAndADeviceAreRefusedBeforeTheOpen) {
    hetsim::testing::TempDir dir;
    const fs::path fifo = dir.path() / "fifo.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    fs::create_symlink(fifo, dir.path() / "link.json");
    // Opening the FIFO would block this test until something wrote to it.
    EXPECT_EQ(invalid_argument_of([&] { (void)read_text_file(fifo); }),
              fifo.string() + ": is a FIFO (named pipe), not a regular file");
    EXPECT_EQ(invalid_argument_of([&] { check_input_file(dir.path() / "link.json", "a graph"); }),
              (dir.path() / "link.json").string() +
                  ": is a FIFO (named pipe), not a regular file, expected a graph");
    EXPECT_EQ(invalid_argument_of([&] { (void)read_text_file(dir.path()); }),
              dir.path().string() + ": is a directory");
    EXPECT_EQ(invalid_argument_of([&] { (void)read_text_file("/dev/zero"); }),
              "/dev/zero: is a character device, not a regular file");
}

TEST(InputFile, AFileAboveTheLimitIsRefusedNamingItsSizeAndTheLimit) {
    hetsim::testing::TempDir dir;
    // Sparse: no disk space is used, and nothing is read.
    const fs::path big = dir.path() / "big.json";
    std::ofstream(big).put('{');
    fs::resize_file(big, kMaxInputFileBytes + 1);
    EXPECT_EQ(invalid_argument_of([&] { (void)read_text_file(big); }),
              big.string() +
                  ": is 1073741825 bytes (1.0 GiB), more than the 1.0 GiB limit "
                  "hetsim reads");
    const fs::path small = dir.write("small.json", std::string(2000, ' '));
    EXPECT_EQ(invalid_argument_of([&] { (void)read_text_file(small, 1024); }),
              small.string() +
                  ": is 2000 bytes (2.0 KiB), more than the 1.0 KiB limit hetsim "
                  "reads");
    EXPECT_EQ(read_text_file(small, 2000).size(), 2000U);
}

// A regular file whose read fails: /proc/self/mem is readable only at mapped addresses, so a
// read from offset 0 fails with EIO (it used to escape as basic_filebuf::underflow's exception).
TEST(InputFile, AReadThatFailsIsAnErrorNotAnEscapedStreamException) {
    if (!fs::exists("/proc/self/mem"))
        GTEST_SKIP() << "no /proc";
    try {
        (void)read_text_file("/proc/self/mem");
        FAIL() << "/proc/self/mem was read";
    } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), std::error_code(EIO, std::generic_category()));
        EXPECT_STREQ(e.what(), "cannot read '/proc/self/mem': Input/output error");
    }
}

}  // namespace
}  // namespace hetsim::sim
