#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <typeinfo>

#include "tests/fuzz/fuzz_target.hpp"
#include "tools/app/errors.hpp"

namespace fs = std::filesystem;

namespace hetsim::fuzz {
namespace {

std::map<std::string, TargetFunction, std::less<>>& targets() {
    static std::map<std::string, TargetFunction, std::less<>> table;
    return table;
}

fs::path make_scratch_dir() {
    const char* tmp = std::getenv("TMPDIR");
    fs::path dir = fs::path(tmp && *tmp ? tmp : "/tmp") /
                   ("hetsim_fuzz_" + std::to_string(static_cast<long>(::getpid())));
    fs::remove_all(dir);
    fs::create_directories(dir / "fuzz");
    const fs::path configs = fs::path(HETSIM_SOURCE_DIR) / "configs";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(configs, ec)) {
        if (entry.is_directory())
            fs::create_directory_symlink(entry.path(), dir / entry.path().filename(), ec);
    }
    // Removed at exit: a long libFuzzer run leaves nothing behind but its corpus.
    static const fs::path removed_at_exit = dir;
    std::atexit([] {
        std::error_code ignored;
        fs::remove_all(removed_at_exit, ignored);
    });
    return dir;
}

}  // namespace

int register_target(const char* name, TargetFunction function) {
    targets().emplace(name, function);
    return 0;
}

TargetFunction find_target(std::string_view name) {
    const auto it = targets().find(name);
    return it == targets().end() ? nullptr : it->second;
}

std::string registered_names() {
    std::string names;
    for (const auto& [name, function] : targets())
        names += (names.empty() ? "" : ", ") + name;
    return names;
}

const fs::path& scratch_dir() {
    static const fs::path dir = make_scratch_dir();
    return dir;
}

fs::path write_input(const std::uint8_t* data, std::size_t size, const std::string& extension) {
    const fs::path path = scratch_dir() / "fuzz" / ("input" + extension);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out)
        throw std::runtime_error("fuzz: cannot write " + path.string());
    return path;
}

void expect_clean(const char* harness, const std::function<void()>& load) {
    try {
        load();
    } catch (const std::exception& e) {
        if (app::is_input_error(e))
            return;
        std::fprintf(stderr, "fuzz %s: internal error (%s): %s\n", harness, typeid(e).name(),
                     e.what());
        std::abort();
    }
}

}  // namespace hetsim::fuzz
