// The one classification of exceptions into "the user's input is wrong" (exit 2, one line) and
// "hetsim has a bug" (exit 1): the CLI's exit code and the fuzz harnesses (tests/fuzz) share it,
// so that a loader the fuzzer drives fails exactly when the CLI would print "internal error".
#pragma once

#include <exception>

namespace hetsim::app {

// The exit code of bad input (usage.md "Errors"); 1 is an internal error.
inline constexpr int kInputErrorExit = 2;

// True for the exception types that mean the input is wrong: sim::InputError, sim::GraphError,
// sim::LoweringError (limits included), placement::PlacementError, std::invalid_argument
// (ExpressionError, RlError, ...) and std::filesystem::filesystem_error (a path that cannot be
// read or written).
bool is_input_error(const std::exception& e);

}  // namespace hetsim::app
