// The keys each config section accepts, as its loader states them to ConfigNode::expect_keys():
// a listener set here hears every such call, for a section present in the file or not, so
// that the keys hetsim accepts can be enumerated by running the loaders rather than copied
// (tests/tools/usage_doc_test.cpp checks that docs/usage.md names every one). No listener is
// set by default; not thread-safe (for tests and tools that load configs on one thread).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace hetsim::sim {

class ConfigNode;

// `section` is the node whose keys are checked (its file and YAML path), `allowed` the keys
// its loader accepts there.
using KeyListener =
    std::function<void(const ConfigNode& section, const std::vector<std::string>& allowed)>;

// Installs `listener` (an empty one removes it) and returns the one it replaces.
KeyListener set_key_listener(KeyListener listener);

}  // namespace hetsim::sim
