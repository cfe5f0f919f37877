// A study YAML (usage.md "Studies"), loaded as `hetsim run STUDY` loads it: every point, its
// platform resolved beside it (scratch_dir() mirrors configs/) and its workload built.
#include "tests/fuzz/fuzz_target.hpp"
#include "tools/app/registration.hpp"
#include "tools/app/study.hpp"

HETSIM_FUZZ_TARGET(study_yaml) {
    hetsim::app::register_all();
    const auto path = hetsim::fuzz::write_input(data, size, ".yaml");
    hetsim::fuzz::expect_clean("study_yaml",
                               [&] { (void)hetsim::app::load_study_points(path.string(), {}); });
}
