// fuzz_smoke: every harness of tests/fuzz in one program, for builds without libFuzzer (GCC, the
// ASan/UBSan test build). ctest runs it once per harness:
//
//   fuzz_smoke TARGET [--seconds S] [--seed N] PATH... [--ext .EXT PATH...]
//
// It replays every file under the PATHs (seed corpora, regression inputs), then mutates them for
// S seconds with a seeded generator: byte flips, insertions, deletions, repeats, splices and
// tokens that loaders get wrong (huge and non-finite numbers, deep nesting, YAML anchors, paths
// out of the folder). This is a smoke test on the seed corpus, not coverage-guided fuzzing: the
// long runs use the same harnesses under libFuzzer (tools/fuzz). A finding aborts; the input is
// written to ./fuzz_smoke-crash-TARGET and printed when short.
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/fuzz/fuzz_target.hpp"

// The sanitizers' hook for their reports (sanitizer/common_interface_defs.h), weak: a build
// without sanitizers has none.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

// The input running now and where it goes when the process dies: a signal handler or the
// sanitizers' death callback may only touch what is already allocated.
const Bytes* current_input = nullptr;
std::string crash_file;

void dump_current_input() {
    if (current_input == nullptr)
        return;
    if (FILE* f = std::fopen(crash_file.c_str(), "wb")) {
        std::fwrite(current_input->data(), 1, current_input->size(), f);
        std::fclose(f);
    }
    std::fprintf(stderr, "fuzz_smoke: the failing input (%zu bytes) is in %s\n",
                 current_input->size(), crash_file.c_str());
    if (current_input->size() <= 512) {
        std::fputs("fuzz_smoke: as hex: ", stderr);
        for (std::uint8_t byte : *current_input)
            std::fprintf(stderr, "%02x", byte);
        std::fputc('\n', stderr);
    }
}

// Like libFuzzer's -rss_limit_mb and -timeout: a watchdog thread ends the run, with the input,
// when memory or the time of one input passes its limit (an OOM kill would leave no input).
constexpr std::size_t kRssLimitBytes = std::size_t{2} << 30;
constexpr double kInputTimeout_s = 25.0;
std::atomic<std::int64_t> input_started_ns{0};  // steady clock; 0: between inputs

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void start_watchdog() {
    std::thread([] {
        for (;;) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            const std::int64_t started = input_started_ns.load();
            const std::size_t rss = resident_bytes();
            const double running_s = started == 0 ? 0.0 : (now_ns() - started) * 1e-9;
            if (rss > kRssLimitBytes || running_s > kInputTimeout_s) {
                std::fprintf(stderr, "fuzz_smoke: %s\n",
                             rss > kRssLimitBytes ? "out of memory (resident set over 2 GiB)"
                                                  : "timeout (one input ran over 25 s)");
                dump_current_input();
                std::_Exit(1);
            }
        }
    }).detach();
}

// Runs one input with the watchdog's clock on.
void run_input(hetsim::fuzz::TargetFunction target, const Bytes& input) {
    current_input = &input;
    input_started_ns.store(now_ns());
    target(input.data(), input.size());
    input_started_ns.store(0);
}

extern "C" void on_abort(int) {
    dump_current_input();
    std::signal(SIGABRT, SIG_DFL);
    std::raise(SIGABRT);
}

// A regression input NAME.hex is a binary input as hex text (tests/fuzz/regressions/README.md).
Bytes read_bytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    Bytes bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
    if (file.extension() != ".hex")
        return bytes;
    Bytes decoded;
    int high = -1;
    for (std::uint8_t c : bytes) {
        const int digit = std::isdigit(c)    ? c - '0'
                          : std::isxdigit(c) ? std::tolower(c) - 'a' + 10
                                             : -1;
        if (digit < 0)
            continue;  // line breaks of xxd -p
        if (high < 0) {
            high = digit;
        } else {
            decoded.push_back(static_cast<std::uint8_t>(high * 16 + digit));
            high = -1;
        }
    }
    return decoded;
}

// Seeds above this size (e.g. tarnawski2020's largest instances) would make each mutated run slow
// without reaching more of the loader.
constexpr std::uintmax_t kMaxSeedBytes = 256 * 1024;

// A path to read inputs from, and the extension its folder's files must have (empty: any;
// `--ext` applies to the paths after it: a seeds folder may hold other files, e.g. the graphs
// beside a measurement CSV).
struct CorpusPath {
    std::string path;
    std::string extension;
};

std::vector<Bytes> read_corpus(const std::vector<CorpusPath>& paths) {
    std::vector<fs::path> files;
    for (const auto& [path, extension] : paths) {
        std::error_code ec;
        if (fs::is_regular_file(path, ec)) {
            files.emplace_back(path);
            continue;
        }
        if (!fs::is_directory(path, ec))
            continue;  // e.g. a harness with no regression input yet, or ../shared absent
        for (const auto& entry : fs::recursive_directory_iterator(path, ec))
            if (entry.is_regular_file() && entry.file_size() <= kMaxSeedBytes &&
                (extension.empty() || entry.path().extension() == extension))
                files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // the same order, hence the same mutations, each run
    std::vector<Bytes> corpus;
    for (const fs::path& file : files)
        corpus.push_back(read_bytes(file));
    return corpus;
}

// Tokens that loaders have mishandled or that reach limits.
const std::vector<std::string>& dictionary() {
    static const std::vector<std::string> tokens = {"-1",
                                                    "0",
                                                    "1e999",
                                                    "-1e999",
                                                    "nan",
                                                    ".nan",
                                                    "inf",
                                                    ".inf",
                                                    "1e308",
                                                    "4294967296",
                                                    "2147483648",
                                                    "9223372036854775808",
                                                    "18446744073709551616",
                                                    "-0",
                                                    "0x10",
                                                    "1_000",
                                                    "[]",
                                                    "{}",
                                                    "null",
                                                    "~",
                                                    "true",
                                                    "\"\"",
                                                    "''",
                                                    ": ",
                                                    "- ",
                                                    "\n",
                                                    "\n  ",
                                                    ",",
                                                    "[",
                                                    "{",
                                                    "((((((((",
                                                    "))))",
                                                    "&a ",
                                                    "*a",
                                                    "<<: *a",
                                                    "!!binary ",
                                                    "!!str ",
                                                    "../",
                                                    "/etc/hostname",
                                                    "/dev/zero",
                                                    "../../../../etc/passwd",
                                                    "\xff\xfe",
                                                    "\x00",
                                                    "10 GiB",
                                                    "1 ms",
                                                    "1e-30",
                                                    "not",
                                                    " and ",
                                                    " or ",
                                                    "==",
                                                    "**",
                                                    "/0",
                                                    "%"};
    return tokens;
}

Bytes mutate(const Bytes& input, const std::vector<Bytes>& corpus, std::mt19937_64& rng) {
    Bytes out = input;
    auto pick = [&](std::size_t n) {
        return std::uniform_int_distribution<std::size_t>(0, n)(rng);
    };
    const std::size_t rounds = 1 + pick(3);
    for (std::size_t r = 0; r < rounds; ++r) {
        const std::size_t at = pick(out.size());
        switch (pick(7)) {
            case 0:  // flip a bit
                if (!out.empty())
                    out[std::min(at, out.size() - 1)] ^= static_cast<std::uint8_t>(1u << pick(7));
                break;
            case 1:  // a random byte
                out.insert(out.begin() + static_cast<long>(at),
                           static_cast<std::uint8_t>(pick(255)));
                break;
            case 2: {  // erase a range
                const std::size_t n = std::min(out.size() - at, pick(32));
                out.erase(out.begin() + static_cast<long>(at),
                          out.begin() + static_cast<long>(at + n));
                break;
            }
            case 3: {  // repeat a chunk (deep nesting, long sums)
                const std::size_t n = std::min(out.size() - at, 1 + pick(15));
                const Bytes chunk(out.begin() + static_cast<long>(at),
                                  out.begin() + static_cast<long>(at + n));
                for (std::size_t k = 0, times = 1 + pick(63); k < times; ++k)
                    out.insert(out.begin() + static_cast<long>(at), chunk.begin(), chunk.end());
                break;
            }
            case 4: {  // splice another input's piece
                const Bytes& other = corpus[pick(corpus.size() - 1)];
                const std::size_t from = pick(other.size());
                const std::size_t n = std::min(other.size() - from, pick(128));
                out.insert(out.begin() + static_cast<long>(at),
                           other.begin() + static_cast<long>(from),
                           other.begin() + static_cast<long>(from + n));
                break;
            }
            case 5: {  // replace a run of digits by a dictionary token
                std::size_t begin = at;
                while (begin < out.size() && !std::isdigit(out[begin]))
                    ++begin;
                std::size_t end = begin;
                while (end < out.size() && (std::isdigit(out[end]) || out[end] == '.'))
                    ++end;
                const std::string& token = dictionary()[pick(dictionary().size() - 1)];
                out.erase(out.begin() + static_cast<long>(begin),
                          out.begin() + static_cast<long>(end));
                out.insert(out.begin() + static_cast<long>(begin), token.begin(), token.end());
                break;
            }
            default: {  // insert a dictionary token
                const std::string& token = dictionary()[pick(dictionary().size() - 1)];
                out.insert(out.begin() + static_cast<long>(at), token.begin(), token.end());
                break;
            }
        }
    }
    constexpr std::size_t kMaxInputBytes = 512 * 1024;
    if (out.size() > kMaxInputBytes)
        out.resize(kMaxInputBytes);
    return out;
}

int usage() {
    std::cerr << "usage: fuzz_smoke TARGET [--seconds S] [--seed N] PATH... [--ext .EXT PATH...]\n"
                 "  targets: "
              << hetsim::fuzz::registered_names() << "\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2)
        return usage();
    const std::string name = argv[1];
    const hetsim::fuzz::TargetFunction target = hetsim::fuzz::find_target(name);
    if (target == nullptr) {
        std::cerr << "fuzz_smoke: unknown target '" << name << "'\n";
        return usage();
    }
    double seconds = 10.0;
    std::uint64_t seed = 1;
    std::string extension;
    std::vector<CorpusPath> paths;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--seconds" || arg == "--seed" || arg == "--ext") && i + 1 < argc) {
            const std::string value = argv[++i];
            if (arg == "--seconds")
                seconds = std::stod(value);
            else if (arg == "--seed")
                seed = std::stoull(value);
            else
                extension = value;
        } else {
            paths.push_back({arg, extension});
        }
    }
    crash_file = "fuzz_smoke-crash-" + name;
    std::signal(SIGABRT, on_abort);
    if (__sanitizer_set_death_callback != nullptr)
        __sanitizer_set_death_callback(dump_current_input);

    const std::vector<Bytes> corpus = read_corpus(paths);
    start_watchdog();
    for (const Bytes& input : corpus)
        run_input(target, input);
    std::cout << "fuzz_smoke " << name << ": replayed " << corpus.size() << " inputs\n";
    if (corpus.empty() || seconds <= 0)
        return 0;

    std::mt19937_64 rng(seed);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(seconds));
    std::size_t runs = 0;
    Bytes input;
    while (std::chrono::steady_clock::now() < deadline) {
        const Bytes& base =
            corpus[std::uniform_int_distribution<std::size_t>(0, corpus.size() - 1)(rng)];
        input = mutate(base, corpus, rng);
        run_input(target, input);
        ++runs;
    }
    current_input = nullptr;
    std::cout << "fuzz_smoke " << name << ": " << runs << " mutated inputs in " << seconds
              << " s, seed " << seed << ", no finding\n";
    return 0;
}
