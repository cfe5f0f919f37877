// The one placer-argument parser (placer_args.hpp): typed getters and defaults, every kind of
// bad argument refused with one line naming the placer and the key, and the usage generated
// from the declarations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "placement/placer.hpp"
#include "placement/placer_args.hpp"

namespace hetsim::placement {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

ArgumentSchema schema() {
    return ArgumentSchema("demo")
        .integer("rounds", 0, 1000, "200", "search rounds")
        .number("time", 0.0, std::numeric_limits<double>::infinity(), "", "seconds")
        .positive_number("bandwidth", "inf", "bytes per second")
        .boolean("contiguous", "0", "contiguous sets")
        .choice("mode", {"fast", "exact"}, "fast", "search mode")
        .bare()
        .text("strategy", "", "raw strategy")
        .rest();
}

// The message of the PlacementError that parsing `arguments` throws ("" if none).
std::string error_of(const std::string& arguments) {
    try {
        schema().parse(arguments);
    } catch (const PlacementError& e) {
        return e.what();
    }
    return "";
}

TEST(PlacerArgs, SplitsNameAndArgumentsAtTheFirstColon) {
    const PlacerSpec spec = split_placer_spec(" scotch :strategy=a:b,c");
    EXPECT_EQ(spec.name, "scotch");
    EXPECT_EQ(spec.arguments, "strategy=a:b,c");
    EXPECT_EQ(split_placer_spec("greedy").arguments, "");
    EXPECT_EQ(join_placer_spec("greedy", ""), "greedy");
    EXPECT_EQ(join_placer_spec("demo", "rounds=3"), "demo:rounds=3");
}

TEST(PlacerArgs, GettersReturnGivenValuesOrDefaults) {
    const PlacerArguments none = schema().parse("");
    EXPECT_EQ(none.integer("rounds"), 200);
    EXPECT_FALSE(none.has("time"));
    EXPECT_EQ(none.number("bandwidth"), std::numeric_limits<double>::infinity());
    EXPECT_FALSE(none.boolean("contiguous"));
    EXPECT_EQ(none.choice("mode"), "fast");

    const PlacerArguments given =
        schema().parse("rounds=7, time=2.5,bandwidth=1e9,contiguous=on,exact,strategy=r{a,b=1}");
    EXPECT_EQ(given.integer("rounds"), 7);
    EXPECT_TRUE(given.has("time"));
    EXPECT_DOUBLE_EQ(given.number("time"), 2.5);
    EXPECT_DOUBLE_EQ(given.number("bandwidth"), 1e9);
    EXPECT_TRUE(given.boolean("contiguous"));
    EXPECT_EQ(given.choice("mode"), "exact");       // the bare value
    EXPECT_EQ(given.text("strategy"), "r{a,b=1}");  // the rest, commas and '=' included
    EXPECT_EQ(schema().parse("mode=exact").choice("mode"), "exact");
    EXPECT_EQ(schema().parse("rounds=0").integer("rounds"), 0);
    EXPECT_EQ(schema().parse("rounds=1000").integer("rounds"), 1000);
}

TEST(PlacerArgs, UnknownKeySuggestsTheClosestDeclaredOne) {
    EXPECT_EQ(error_of("round=3"),
              "placer 'demo': unknown argument 'round' (did you mean 'rounds'?); known: rounds, "
              "time, bandwidth, contiguous, mode, strategy (usage: demo[:rounds=N,time=X,"
              "bandwidth=X,contiguous=0|1,mode=fast|exact,strategy=S])");
    EXPECT_THAT(error_of("zzzzzz=1"),
                StartsWith("placer 'demo': unknown argument 'zzzzzz'; known:"));
}

TEST(PlacerArgs, BadValuesNameTheKeyAndWhatWasExpected) {
    EXPECT_THAT(error_of("rounds=abc"),
                StartsWith("placer 'demo': rounds=abc: expected an integer in 0..1000 (usage: "));
    EXPECT_THAT(error_of("rounds=2.5"),
                StartsWith("placer 'demo': rounds=2.5: expected an integer"));
    EXPECT_THAT(error_of("rounds=1001"),
                StartsWith("placer 'demo': rounds=1001: expected an integer in 0..1000"));
    EXPECT_THAT(error_of("rounds=-1"),
                StartsWith("placer 'demo': rounds=-1: expected an integer in 0..1000"));
    EXPECT_THAT(error_of("rounds=99999999999999999999"), HasSubstr("expected an integer"));
    EXPECT_THAT(error_of("time=-1"), StartsWith("placer 'demo': time=-1: expected a number >= 0"));
    EXPECT_THAT(error_of("time=nan"), HasSubstr("time=nan: expected a number >= 0"));
    EXPECT_THAT(error_of("bandwidth=0"),
                StartsWith("placer 'demo': bandwidth=0: expected a number > 0"));
    EXPECT_THAT(
        error_of("contiguous=maybe"),
        StartsWith("placer 'demo': contiguous=maybe: expected 0, 1, true, false, on or off"));
    EXPECT_THAT(error_of("mode=slow"),
                StartsWith("placer 'demo': mode=slow: expected one of fast, exact"));
    EXPECT_THAT(error_of("strategy="),
                StartsWith("placer 'demo': strategy=: expected a non-empty text"));
}

TEST(PlacerArgs, RepeatedKeyAndMissingEqualsAreRefused) {
    EXPECT_THAT(error_of("rounds=3,rounds=4"),
                StartsWith("placer 'demo': argument 'rounds' is given twice"));
    EXPECT_THAT(error_of("exact,mode=fast"),
                StartsWith("placer 'demo': argument 'mode' is given twice"));
    EXPECT_THAT(error_of("rounds"),
                StartsWith("placer 'demo': expected key=value, got 'rounds' (keys: rounds, time,"));
    // A stray comma is a typo, not nothing (`mcmc:samples=10,` was accepted).
    EXPECT_THAT(error_of("rounds=3,"),
                StartsWith("placer 'demo': empty argument at character 10 of 'rounds=3,'"));
    EXPECT_THAT(error_of("rounds=3,,time=1"),
                StartsWith("placer 'demo': empty argument at character 10 of 'rounds=3,,time=1'"));
    EXPECT_THAT(error_of(",rounds=3"), StartsWith("placer 'demo': empty argument at character 1"));
}

TEST(PlacerArgs, EveryMessageIsOneLine) {
    for (const char* bad : {"round=3", "rounds=x", "rounds=3,rounds=3", "rounds", "mode=slow"})
        EXPECT_EQ(error_of(bad).find('\n'), std::string::npos) << bad;
}

TEST(PlacerArgs, NoKeysRequiredKeysAndBareText) {
    const ArgumentSchema none("greedy");
    EXPECT_NO_THROW(none.parse(""));
    EXPECT_EQ(none.usage(), "greedy");
    try {
        none.parse("3");
        ADD_FAILURE() << "accepted";
    } catch (const PlacementError& e) {
        EXPECT_STREQ(e.what(), "placer 'greedy': takes no arguments, got '3' (usage: greedy)");
    }
    ArgumentSchema file("expert");
    file.text("file", "", "split file").bare().rest().required();
    EXPECT_EQ(file.usage(), "expert:<file>");
    EXPECT_EQ(file.parse("dir/a,b.json").text("file"), "dir/a,b.json");
    EXPECT_EQ(file.parse("file=x.json").text("file"), "x.json");
    try {
        file.parse("");
        ADD_FAILURE() << "accepted";
    } catch (const PlacementError& e) {
        EXPECT_THAT(e.what(), StartsWith("placer 'expert': missing argument 'file'"));
    }
}

TEST(PlacerArgs, UsageAndHelpComeFromTheDeclarations) {
    EXPECT_EQ(schema().usage(),
              "demo[:rounds=N,time=X,bandwidth=X,contiguous=0|1,mode=fast|exact,strategy=S]");
    const std::vector<std::string> help = schema().key_help();
    ASSERT_EQ(help.size(), 6u);
    EXPECT_EQ(help[0], "rounds=N  search rounds; an integer in 0..1000, default 200");
    EXPECT_EQ(help[1], "time=X  seconds; a number >= 0");
    EXPECT_EQ(help[2], "bandwidth=X  bytes per second; a number > 0, default inf");
    EXPECT_EQ(help[3], "contiguous=0|1  contiguous sets; default 0");
    EXPECT_EQ(help[4], "mode=fast|exact  search mode; default fast, the value may stand alone");
    EXPECT_EQ(help[5],
              "strategy=S  raw strategy; a non-empty text, last: takes the rest of the spec, "
              "commas included");
}

TEST(PlacerArgs, DeclarationMistakesAreProgrammingErrors) {
    EXPECT_THROW(ArgumentSchema("x").integer("n", 1, 5, "9", "out of range default"),
                 std::logic_error);
    EXPECT_THROW(ArgumentSchema("x").boolean("b", "0", "").boolean("b", "1", ""), std::logic_error);
    const PlacerArguments parsed = schema().parse("");
    EXPECT_THROW(parsed.integer("time"), std::logic_error);  // declared as a number
    EXPECT_THROW(parsed.number("time"), std::logic_error);   // no value, no default
    EXPECT_THROW(parsed.integer("nope"), std::logic_error);
}

}  // namespace
}  // namespace hetsim::placement
