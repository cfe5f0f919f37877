// Finds and dlopens mcm.rl's libtorch module (policy_backend.hpp says why it is not linked).
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "placement/mcm/rl/policy_backend.hpp"

#ifndef HETSIM_RL_MODULE_PATH
#define HETSIM_RL_MODULE_PATH ""
#endif

namespace hetsim::placement::mcm::rl {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> candidate_paths() {
    std::vector<std::string> paths;
    if (const char* env = std::getenv("HETSIM_RL_MODULE"); env && *env)
        paths.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec)
        paths.push_back((exe.parent_path() / kPolicyModuleFile).string());
    if (*HETSIM_RL_MODULE_PATH)
        paths.emplace_back(HETSIM_RL_MODULE_PATH);
    return paths;
}

const PolicyModule* load() {
    std::string tried;
    for (const std::string& path : candidate_paths()) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            tried += fmt::format("\n  {}: no such file", path);
            continue;
        }
        // RTLD_LOCAL: libtorch's symbols stay out of the global namespace; the module is never
        // closed (its objects live until the process ends).
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            tried += fmt::format("\n  {}: {}", path, dlerror());
            continue;
        }
        using Entry = const PolicyModule* (*)();
        auto entry = reinterpret_cast<Entry>(dlsym(handle, kPolicyModuleSymbol));
        if (!entry) {
            tried += fmt::format("\n  {}: no symbol {} (a module of another hetsim?)", path,
                                 kPolicyModuleSymbol);
            continue;
        }
        return entry();
    }
    throw RlError(fmt::format(
        "mcm.rl needs its libtorch module {}, built with hetsim (set HETSIM_RL_MODULE to its "
        "path to use another); looked at:{}",
        kPolicyModuleFile, tried));
}

}  // namespace

const PolicyModule& policy_module() {
    // Loaded at most once; a failure is reported again on every call (the error is cheap to
    // rebuild and a later call may have another environment).
    static std::mutex mutex;
    static const PolicyModule* module = nullptr;
    std::lock_guard lock(mutex);
    if (!module)
        module = load();
    return *module;
}

}  // namespace hetsim::placement::mcm::rl
