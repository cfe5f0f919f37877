// One fuzz harness per loader (issue 29). A harness is written once, with HETSIM_FUZZ_TARGET, and
// built two ways:
//   - with clang's libFuzzer (tools/fuzz; HETSIM_LIBFUZZER defined): one executable per harness,
//     coverage-guided, for the long runs;
//   - into `fuzz_smoke` (every build with tests; tests/fuzz/smoke_main.cpp): all harnesses in one
//     program that replays the seed corpora and the regression inputs, then mutates them for a
//     few seconds. ctest runs it per harness, so CI's ASan/UBSan build exercises every loader.
//
// A loader reports bad input by throwing; the harness accepts exactly what the CLI reports as
// bad input (app::is_input_error: exit 2, one line). Any other exception is what the CLI would
// print as "internal error", a crash or a sanitizer report: a finding, and the harness aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace hetsim::fuzz {

using TargetFunction = void (*)(const std::uint8_t* data, std::size_t size);

// Smoke build: adds a harness to the table smoke_main.cpp runs by name. Returns 0.
int register_target(const char* name, TargetFunction function);
// The registered harness called `name`, or nullptr.
TargetFunction find_target(std::string_view name);
// Every registered harness's name, sorted.
std::string registered_names();

// A scratch folder for this process that mirrors the source tree's configs/ (a symbolic link per
// sub-folder: studies/, platforms/, ...), so that an input written to scratch_dir()/fuzz/ resolves
// `../studies/x.yaml` or `../platforms/y.yaml` as the shipped files do.
const std::filesystem::path& scratch_dir();
// Writes the input to scratch_dir()/fuzz/input<extension> and returns that path.
std::filesystem::path write_input(const std::uint8_t* data, std::size_t size,
                                  const std::string& extension);

// Calls `load`; returns normally when it returns or throws bad input, aborts (after printing the
// exception) on anything else.
void expect_clean(const char* harness, const std::function<void()>& load);

}  // namespace hetsim::fuzz

#ifdef HETSIM_LIBFUZZER
#define HETSIM_FUZZ_TARGET(name)                                                        \
    static void hetsim_fuzz_##name(const std::uint8_t* data, std::size_t size);         \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
        hetsim_fuzz_##name(data, size);                                                 \
        return 0;                                                                       \
    }                                                                                   \
    static void hetsim_fuzz_##name(const std::uint8_t* data, std::size_t size)
#else
#define HETSIM_FUZZ_TARGET(name)                                                \
    static void hetsim_fuzz_##name(const std::uint8_t* data, std::size_t size); \
    [[maybe_unused]] static const int hetsim_fuzz_registered_##name =           \
        ::hetsim::fuzz::register_target(#name, hetsim_fuzz_##name);             \
    static void hetsim_fuzz_##name(const std::uint8_t* data, std::size_t size)
#endif
