// The one placer registry (issue 24, item 6): every placer belongs to a family that registers
// it from its own folder, every name but the classic ones carries its family prefix, and the
// tarnawski baselines' old bare names still create them, with one warning per name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "placement/placer.hpp"
#include "placement/tarnawski/split_solver.hpp"
#include "placement/tarnawski/tarnawski_placer.hpp"
#include "tools/app/registration.hpp"

namespace hetsim::placement {
namespace {

using ::testing::HasSubstr;

PlacerInfo dummy(const std::string& name, std::vector<std::string> old = {}) {
    return PlacerInfo{name,
                      name,
                      "a test placer",
                      [](const std::string&) {
                          return std::unique_ptr<Placer>{}; },
                      {},
                      std::move(old)};
}

TEST(PlacerRegistry, EveryPlacerHasAFamilyAndItsPrefix) {
    app::register_all();
    const PlacerRegistry& registry = PlacerRegistry::instance();
    std::set<std::string> families;
    for (const auto& f : registry.families()) {
        EXPECT_FALSE(f.description.empty()) << f.name;
        EXPECT_TRUE(families.insert(f.name).second) << "family listed twice: " << f.name;
    }
    EXPECT_EQ(families, (std::set<std::string>{"classic", "lee2022", "tarnawski", "mcm", "duet",
                                               "eop", "baechi"}));
    for (const PlacerInfo* p : registry.all()) {
        ASSERT_TRUE(families.count(p->family)) << p->name << " in family '" << p->family << "'";
        if (p->family == kClassicFamily) {
            EXPECT_EQ(p->name.find('.'), std::string::npos) << p->name;
        } else if (p->name != p->family) {  // a family's main placer may carry its name alone
            EXPECT_EQ(p->name.rfind(p->family + ".", 0), 0U) << p->name;
        }
    }
    // xu2022 names its method EOP: the eop family's main placer is `eop`.
    EXPECT_NO_THROW(registry.create("eop"));
    // mcm.rl, registered by the app from its own library, joins the mcm family.
    bool rl = false;
    for (const PlacerInfo* p : registry.all())
        rl = rl || (p->name == "mcm.rl" && p->family == "mcm");
    EXPECT_TRUE(rl);
}

TEST(PlacerRegistry, OldTarnawskiNamesCreateTheRenamedPlacersWithOneWarningEach) {
    const PlacerRegistry& registry = PlacerRegistry::instance();
    const std::pair<const char*, const char*> renamed[] = {
        {"greedy", "tarnawski.greedy"},
        {"local_search:restarts=2", "tarnawski.local_search:restarts=2"},
        {"scotch:preset=quality", "tarnawski.scotch:preset=quality"},
        {"pipedream", "tarnawski.pipedream"},
        {"one_accelerator", "tarnawski.one_accelerator"},
    };
    for (const auto& [old_spec, new_spec] : renamed) {
        ::testing::internal::CaptureStderr();
        EXPECT_EQ(registry.create(old_spec)->name(), new_spec);
        EXPECT_EQ(registry.canonical_spec(old_spec), new_spec);  // warned already: silent
        const std::string warning = ::testing::internal::GetCapturedStderr();
        const std::string old_name =
            std::string(old_spec).substr(0, std::string(old_spec).find(':'));
        EXPECT_EQ(warning, "hetsim: warning: placer '" + old_name + "' is now 'tarnawski." +
                               old_name + "'; the old name goes in the next release\n");
    }
    // The current names warn about nothing.
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(registry.create("tarnawski.greedy")->name(), "tarnawski.greedy");
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    // `hetsim place` on a tarnawski JSON goes through the split solvers: the same old names.
    tarnawski::register_split_solvers();
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(tarnawski::SplitSolverRegistry::instance().create("expert:x.json")->name(),
              "tarnawski.expert:x.json");
    EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("'expert' is now"));
}

TEST(PlacerRegistry, AFamilyRefusesNamesOutsideIt) {
    PlacerRegistry r;
    auto mcm = r.family("mcm", "test");
    EXPECT_THROW(mcm.add(dummy("greedy")), std::logic_error);
    EXPECT_THROW(mcm.add(dummy("mcmgreedy")), std::logic_error);
    mcm.add(dummy("mcm.greedy", {"greedy_old"}));
    EXPECT_THROW(r.family(kClassicFamily, "test").add(dummy("mcm.other")), std::logic_error);
    // An old name may not shadow a placer, nor be taken twice.
    EXPECT_THROW(mcm.add(dummy("mcm.other", {"mcm.greedy"})), std::logic_error);
    EXPECT_THROW(mcm.add(dummy("mcm.third", {"greedy_old"})), std::logic_error);
    EXPECT_EQ(r.all().size(), 1U);
    EXPECT_EQ(r.all()[0]->family, "mcm");
    EXPECT_EQ(r.families().size(), 2U);  // mcm, classic: in the order they were opened
    EXPECT_EQ(r.families()[1].name, kClassicFamily);
}

// `random:` with nothing after the colon was accepted as `random`: a cut-off spec is refused.
TEST(PlacerRegistry, ASpecWithNothingAfterTheColonIsRefused) {
    app::register_all();
    const auto& registry = PlacerRegistry::instance();
    EXPECT_NO_THROW(registry.create("random"));
    for (const std::string spec : {"random:", "random:  "}) {
        try {
            registry.create(spec);
            ADD_FAILURE() << spec << " was accepted";
        } catch (const PlacementError& e) {
            EXPECT_EQ(std::string(e.what()),
                      "placer spec '" + spec +
                          "' has nothing after ':'; write 'random' for the defaults, or "
                          "'random:key=value'");
        }
    }
}

}  // namespace
}  // namespace hetsim::placement
