#include "tools/app/errors.hpp"

#include <filesystem>
#include <stdexcept>

#include "placement/placer.hpp"
#include "sim/config.hpp"
#include "sim/exec_graph.hpp"
#include "sim/graph.hpp"

namespace hetsim::app {

bool is_input_error(const std::exception& e) {
    return dynamic_cast<const sim::InputError*>(&e) != nullptr ||
           dynamic_cast<const sim::GraphError*>(&e) != nullptr ||
           dynamic_cast<const placement::PlacementError*>(&e) != nullptr ||
           dynamic_cast<const sim::LoweringError*>(&e) != nullptr ||
           dynamic_cast<const std::invalid_argument*>(&e) != nullptr ||
           // A path the user gave that the file system refuses (too long a name, a file where
           // a folder must be, no permission): the message names the path.
           dynamic_cast<const std::filesystem::filesystem_error*>(&e) != nullptr;
}

}  // namespace hetsim::app
