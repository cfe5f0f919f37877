// A sweep YAML with its axes, samplers and `where:` expressions (sweep/expression.hpp), as
// `hetsim sweep --dry-run` reads it: loaded, its points enumerated and, for a small sweep, every
// point built as a study. A large sweep stops after enumeration: validating 10^6 studies is slow
// by design, not a finding.
#include <sstream>

#include "sweep/design_space.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/sweep.hpp"

HETSIM_FUZZ_TARGET(sweep_yaml) {
    hetsim::app::register_all();
    const auto path = hetsim::fuzz::write_input(data, size, ".yaml");
    hetsim::fuzz::expect_clean("sweep_yaml", [&] {
        const auto spec = hetsim::sweep::load_sweep(path);
        const auto space = hetsim::sweep::enumerate_points(spec);
        constexpr std::size_t kValidatedPoints = 4;
        if (space.points.size() > kValidatedPoints)
            return;
        hetsim::app::SweepRequest request;
        request.file = path.string();
        request.dry_run = true;
        std::ostringstream progress;
        int exit_code = 0;
        (void)hetsim::app::run_sweep(request, progress, false, exit_code);
    });
}
