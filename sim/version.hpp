// What made an output: hetsim's version (CMake's project version) and the git commit of the
// source tree it was built from (cmake/version.cmake writes them at build time; the commit
// ends in "-dirty" for a tree with uncommitted changes, "unknown" outside a git checkout).
// `hetsim --version` prints them, and results.json, sweep.json and traces record them.
#pragma once

#include <string>
#include <string_view>

namespace hetsim::sim {

std::string_view version();
std::string_view git_commit();
// "hetsim 0.1 (commit 0123456789ab)"
inline std::string version_line() {
    return "hetsim " + std::string(version()) + " (commit " + std::string(git_commit()) + ")";
}

}  // namespace hetsim::sim
