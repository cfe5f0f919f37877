#include "interconnect/ddr4_timing.hpp"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "sim/config.hpp"

namespace hetsim::interconnect {

namespace {

int positive_int(const sim::ConfigNode& parent, const std::string& key) {
    const sim::ConfigNode n = parent.at(key);
    const std::int64_t v = n.as_int();
    if (v <= 0 || v > 1'000'000'000)
        n.fail(fmt::format("must be a cycle count in 1..1000000000, got {}", v));
    return static_cast<int>(v);
}

}  // namespace

Ddr4Timing parse_memspec(const sim::ConfigNode& node) {
    node.expect_map();
    node.expect_keys({"name", "architecture", "timing"});
    Ddr4Timing t;
    t.name = node.at("name").as_string();
    if (t.name.empty())
        node.at("name").fail("expected a speed-bin name, e.g. DDR4-2400");

    const sim::ConfigNode arch = node.at("architecture");
    arch.expect_map();
    arch.expect_keys(
        {"bank_groups", "banks_per_group", "rows", "columns", "burst_length", "bus_width_bits"});
    t.bank_groups = positive_int(arch, "bank_groups");
    t.banks_per_group = positive_int(arch, "banks_per_group");
    t.rows = positive_int(arch, "rows");
    t.columns = positive_int(arch, "columns");
    t.BL = positive_int(arch, "burst_length");
    t.bus_width_bits = positive_int(arch, "bus_width_bits");
    if (t.BL % 2 != 0 || t.columns % t.BL != 0) {
        arch.at("burst_length")
            .fail(fmt::format("must be even and divide columns ({}), got {}", t.columns, t.BL));
    }

    const sim::ConfigNode tm = node.at("timing");
    tm.expect_map();
    tm.expect_keys({"tCK_ps", "CL", "CWL", "tRCD", "tRP", "tRAS", "tRC", "tCCD_S", "tCCD_L",
                    "tRRD_S", "tRRD_L", "tFAW", "tWR", "tWTR_S", "tWTR_L", "tRTP", "tREFI",
                    "tRFC"});
    const sim::ConfigNode tck = tm.at("tCK_ps");
    t.tCK_ps = tck.as_double();
    if (!(t.tCK_ps > 0.0))
        tck.fail(fmt::format("must be > 0 ps, got {}", tck.as_string()));
    t.CL = positive_int(tm, "CL");
    t.CWL = positive_int(tm, "CWL");
    t.tRCD = positive_int(tm, "tRCD");
    t.tRP = positive_int(tm, "tRP");
    t.tRAS = positive_int(tm, "tRAS");
    t.tRC = positive_int(tm, "tRC");
    t.tCCD_S = positive_int(tm, "tCCD_S");
    t.tCCD_L = positive_int(tm, "tCCD_L");
    t.tRRD_S = positive_int(tm, "tRRD_S");
    t.tRRD_L = positive_int(tm, "tRRD_L");
    t.tFAW = positive_int(tm, "tFAW");
    t.tWR = positive_int(tm, "tWR");
    t.tWTR_S = positive_int(tm, "tWTR_S");
    t.tWTR_L = positive_int(tm, "tWTR_L");
    t.tRTP = positive_int(tm, "tRTP");
    t.tREFI = positive_int(tm, "tREFI");
    t.tRFC = positive_int(tm, "tRFC");
    if (t.tREFI <= t.tRFC) {
        tm.at("tREFI").fail(fmt::format(
            "must exceed tRFC ({}) or the rank never serves a request, got {}", t.tRFC, t.tREFI));
    }
    return t;
}

Ddr4Timing load_memspec(const std::filesystem::path& path) {
    return parse_memspec(sim::ConfigNode::load_file(path));
}

namespace {

// A literal, not a std::filesystem::path: tests load memspecs while initialising their statics.
constexpr const char* kMemspecFolder = "memspecs";

std::string unknown_memspec_message(std::string_view name) {
    const std::vector<std::string> known = memspec_names();
    const std::string hint = sim::did_you_mean(name, known);
    std::vector<std::string> folders;
    for (const auto& dir : sim::config_search_path())
        folders.push_back((dir / kMemspecFolder).string());
    return fmt::format(
        "unknown memspec '{}'{}; known: {} (memspecs/<name>.yaml in {}; "
        "HETSIM_CONFIG_PATH adds folders)",
        name, hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
        known.empty() ? "none" : fmt::format("{}", fmt::join(known, ", ")),
        folders.empty() ? "no config folder" : fmt::format("{}", fmt::join(folders, ", ")));
}

}  // namespace

std::vector<std::string> memspec_names() {
    std::set<std::string> names;
    for (const auto& dir : sim::config_search_path()) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(dir / kMemspecFolder, ec)) {
            if (entry.path().extension() == ".yaml")
                names.insert(entry.path().stem().string());
        }
    }
    return {names.begin(), names.end()};
}

std::optional<std::filesystem::path> find_memspec_file(std::string_view name) {
    // A name, not a path: "../x" or "a/b" never leave the memspecs folders.
    if (name.empty() || name.find('/') != std::string_view::npos || name.front() == '.')
        return std::nullopt;
    return sim::find_config_file(std::filesystem::path(kMemspecFolder) /
                                 (std::string(name) + ".yaml"));
}

Ddr4Timing named_memspec(std::string_view name) {
    if (auto file = find_memspec_file(name))
        return load_memspec(*file);
    throw std::invalid_argument(unknown_memspec_message(name));
}

Ddr4Timing memspec_from_config(const sim::ConfigNode& node) {
    const std::string name = node.as_string();
    auto file = find_memspec_file(name);
    if (!file)
        node.fail(unknown_memspec_message(name));
    return load_memspec(*file);
}

}  // namespace hetsim::interconnect
