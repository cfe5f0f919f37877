// A measurement file of `hetsim calibrate --fit/--check` (tools/app/fit.hpp), read against the
// shipped xeon_titanv platform (a CPU and a GPU, both fitted by such files). The input's folder
// links graphs/ to DUET's fit-set graphs, so the shipped fit sets' rows resolve.
#include <filesystem>

#include "sim/platform.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tools/app/fit.hpp"
#include "tools/app/registration.hpp"

HETSIM_FUZZ_TARGET(measurement_csv) {
    hetsim::app::register_all();
    static const hetsim::sim::Platform platform = hetsim::sim::load_platform(
        (hetsim::fuzz::scratch_dir() / "platforms" / "xeon_titanv.yaml").string());
    static const bool linked = [] {
        std::error_code ec;
        std::filesystem::create_directory_symlink(
            hetsim::fuzz::scratch_dir() / "calibration" / "duet" / "graphs",
            hetsim::fuzz::scratch_dir() / "fuzz" / "graphs", ec);
        return true;
    }();
    (void)linked;
    const auto path = hetsim::fuzz::write_input(data, size, ".csv");
    hetsim::fuzz::expect_clean(
        "measurement_csv", [&] { (void)hetsim::app::load_measurements(path.string(), platform); });
}
