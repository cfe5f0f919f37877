// sweep/: the design points of a sweep file (grid order, `where`, random and Latin-hypercube
// sampling, point ids), the `where` expressions, and the results files' crash recovery.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "sim/config.hpp"
#include "sweep/design_space.hpp"
#include "sweep/expression.hpp"
#include "sweep/results_store.hpp"
#include "tests/fixtures/cli_fixtures.hpp"

namespace hetsim::sweep {
namespace {

using hetsim::testing::TempDir;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

// A sweep file next to a (dummy) study file in `dir`.
SweepSpec spec_from(const TempDir& dir, const std::string& body) {
    dir.write("study.yaml", "study: s\n");
    return load_sweep(dir.write("sweep.yaml", "sweep: t\nstudy: study.yaml\n" + body));
}

std::vector<std::string> values_of(const DesignSpace& space, std::size_t axis) {
    std::vector<std::string> out;
    for (const auto& p : space.points)
        out.push_back(p.values.at(axis).second);
    return out;
}

std::string input_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const sim::InputError& e) {
        return e.what();
    }
    return "no error";
}

// --- grid, where, ids ------------------------------------------------------------------------

TEST(SweepDesignSpace, GridIsEveryCombinationLastAxisFastest) {
    TempDir dir;
    const SweepSpec spec =
        spec_from(dir, "axes:\n  workload.seq_len: [8, 16]\n  placers.0: [a, b, c]\n");
    const DesignSpace space = enumerate_points(spec);
    ASSERT_EQ(space.points.size(), 6u);
    EXPECT_EQ(values_of(space, 0), (std::vector<std::string>{"8", "8", "8", "16", "16", "16"}));
    EXPECT_EQ(values_of(space, 1), (std::vector<std::string>{"a", "b", "c", "a", "b", "c"}));
    std::set<std::string> ids;
    for (std::size_t i = 0; i < space.points.size(); ++i) {
        EXPECT_EQ(space.points[i].index, i);
        EXPECT_EQ(space.points[i].id, point_id(space.points[i].assignments));
        EXPECT_EQ(space.points[i].id.size(), 13u);
        ids.insert(space.points[i].id);
    }
    EXPECT_EQ(ids.size(), 6u);
    EXPECT_EQ(space.points[4].assignments,
              (std::vector<std::string>{"workload.seq_len=16", "placers.0=b"}));
    EXPECT_EQ(space.points[4].label(), "seq_len=16, 0=b");
    // The id is of the path and the value: the same value on another axis is another point.
    using List = std::vector<std::string>;
    EXPECT_NE(point_id(List{"a.x=1"}), point_id(List{"a.y=1"}));
    EXPECT_NE(point_id(List{"a.x=1"}), point_id(List{"a.x=2"}));
    EXPECT_EQ(point_id(List{"a.x=1"}), point_id(List{"a.x=1"}));
}

// A grid is counted before it is listed: 10^10 points is bad input at once, not a hang.
TEST(SweepDesignSpace, HugeGridsAreRefusedBeforeTheyAreListed) {
    TempDir dir;
    std::string axes = "axes:\n";
    for (int a = 0; a < 10; ++a)
        axes += "  a.x" + std::to_string(a) + ": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
    const SweepSpec spec = spec_from(dir, axes);
    try {
        enumerate_points(spec);
        FAIL() << "a grid of 10^10 points was listed";
    } catch (const sim::InputError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("the grid has 10000000000 points (10 x 10"));
        EXPECT_THAT(e.what(), ::testing::HasSubstr("random"));
    }
}

// A grid of up to 10^6 points is listed, but at most 100,000 run: `where` may thin a larger
// grid down to them; a grid that keeps more is refused (each point is checked before any runs).
TEST(SweepDesignSpace, AGridRunsAtMostAHundredThousandPoints) {
    TempDir dir;
    std::string axes = "axes:\n";
    for (int a = 0; a < 5; ++a)
        axes += "  a.x" + std::to_string(a) + ": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
    axes += "  a.y: [0, 1]\n";
    const auto refusal = [&](const std::string& where) {
        try {
            enumerate_points(spec_from(dir, axes + where));
        } catch (const sim::InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_THAT(refusal(""),
                ::testing::HasSubstr("the grid keeps 200000 points, more than the 100000 a sweep "
                                     "runs; use `random: {n: N}`"));
    EXPECT_THAT(refusal("where: 'y < 1 or x0 < 1'\n"),
                ::testing::HasSubstr("the grid keeps 110000 points of 200000 after `where`, more "
                                     "than the 100000"));
    const DesignSpace space = enumerate_points(spec_from(dir, axes + "where: 'y < 1'\n"));
    EXPECT_EQ(space.points.size(), 100'000u);
    EXPECT_EQ(space.skipped, 100'000u);
}

TEST(SweepDesignSpace, HugeSampleCountsAndNegativeSeedsAreRefused) {
    TempDir dir;
    const auto message_of = [&](const std::string& axes_text, const std::string& sampling) {
        try {
            enumerate_points(spec_from(dir, axes_text + sampling));
        } catch (const sim::InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    const std::string axes = "axes:\n  workload.seq_len: {min: 1, max: 64}\n";
    const auto message = [&](const std::string& sampling) {
        try {
            spec_from(dir, axes + sampling);
        } catch (const sim::InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_THAT(message("latin_hypercube: {n: 100000000000, seed: 1}\n"),
                ::testing::HasSubstr("n must be at most 100000, got 100000000000"));
    EXPECT_THAT(message("random: {n: 100001, seed: 2}\n"),
                ::testing::HasSubstr("n must be at most 100000, got 100001"));
    EXPECT_THAT(message("random: {n: 10, seed: -2}\n"),
                ::testing::HasSubstr("expected an integer >= 0, got -2"));
    // A rounded range of one integer cannot give 3 distinct points; there is no `where` to blame.
    EXPECT_THAT(message_of("axes:\n  workload.seq_len: {min: 8.5, max: 8.7, integer: true}\n",
                           "random: {n: 3}\n"),
                ::testing::HasSubstr("the axes gave only 1 distinct point(s) in 3000 draws, fewer "
                                     "than n = 3"));
    EXPECT_EQ(message("random: {n: 100000, seed: 2}\n"), "accepted");
}

TEST(SweepDesignSpace, WhereRemovesCombinations) {
    TempDir dir;
    const SweepSpec spec = spec_from(dir,
                                     "axes:\n  workload.seq_len: [8, 16, 32]\n"
                                     "  platform.link.bandwidth: [1 GB/s, 2 GB/s]\n"
                                     "where: ['seq_len * bandwidth <= 32 GB/s', "
                                     "'not (seq_len == 8 and bandwidth > 1500 MB/s)']\n");
    const DesignSpace space = enumerate_points(spec);
    // Kept: (8, 1), (16, 1), (16, 2), (32, 1); removed (8, 2) and (32, 2).
    EXPECT_EQ(space.skipped, 2u);
    EXPECT_EQ(values_of(space, 0), (std::vector<std::string>{"8", "16", "16", "32"}));
    EXPECT_EQ(values_of(space, 1),
              (std::vector<std::string>{"1 GB/s", "1 GB/s", "2 GB/s", "1 GB/s"}));
}

TEST(SweepDesignSpace, BundleAxisSetsSeveralPathsPerValue) {
    TempDir dir;
    const SweepSpec spec = spec_from(dir,
                                     "axes:\n  accelerators:\n    values:\n"
                                     "      '2': {platform.components.acc2: ~, p.acc3: ~}\n"
                                     "      '4': {}\n"
                                     "  workload.batch: [1, 8]\n"
                                     "where: 'accelerators * batch <= 16'\n");
    const DesignSpace space = enumerate_points(spec);
    ASSERT_EQ(space.points.size(), 3u);  // (4, 8) breaks the constraint
    EXPECT_EQ(space.points[0].values[0],
              (std::pair<std::string, std::string>{"accelerators", "2"}));
    EXPECT_EQ(
        space.points[0].assignments,
        (std::vector<std::string>{"platform.components.acc2=~", "p.acc3=~", "workload.batch=1"}));
    EXPECT_EQ(space.points[2].assignments, (std::vector<std::string>{"workload.batch=1"}));
    EXPECT_EQ(space.points[2].label(), "accelerators=4, batch=1");
}

// --- sampling --------------------------------------------------------------------------------

TEST(SweepDesignSpace, RandomDrawsDistinctGridPointsFromItsSeed) {
    TempDir dir;
    const std::string axes = "axes:\n  a.x: [1, 2, 3, 4]\n  a.y: [p, q, r]\n";
    const DesignSpace one = enumerate_points(spec_from(dir, axes + "random: {n: 5, seed: 3}\n"));
    const DesignSpace again = enumerate_points(spec_from(dir, axes + "random: {n: 5, seed: 3}\n"));
    const DesignSpace other = enumerate_points(spec_from(dir, axes + "random: {n: 5, seed: 4}\n"));
    ASSERT_EQ(one.points.size(), 5u);
    std::set<std::string> ids;
    for (std::size_t i = 0; i < 5; ++i) {
        ids.insert(one.points[i].id);
        EXPECT_EQ(one.points[i].id, again.points[i].id);
    }
    EXPECT_EQ(ids.size(), 5u);
    std::vector<std::string> a, b;
    for (std::size_t i = 0; i < 5; ++i) {
        a.push_back(one.points[i].id);
        b.push_back(other.points[i].id);
    }
    EXPECT_NE(a, b);
    // More points than the grid has: the whole grid, once each.
    EXPECT_EQ(enumerate_points(spec_from(dir, axes + "random: {n: 50, seed: 1}\n")).points.size(),
              12u);
}

TEST(SweepDesignSpace, LatinHypercubeUsesEveryStratumOnce) {
    TempDir dir;
    const SweepSpec spec = spec_from(dir,
                                     "axes:\n  a.bandwidth: {min: 1 GB/s, max: 2 GB/s}\n"
                                     "  a.memory: {min: 1 MiB, max: 1 GiB, log: true}\n"
                                     "  a.cores: [1, 2, 4, 8, 16]\n"
                                     "latin_hypercube: {n: 10, seed: 7}\n");
    const DesignSpace space = enumerate_points(spec);
    ASSERT_EQ(space.points.size(), 10u);
    std::set<int> linear, logarithmic;
    std::map<std::string, int> cores;
    for (const auto& p : space.points) {
        const double bw = std::get<double>(axis_value(p.values[0].second));
        const double mem = std::get<double>(axis_value(p.values[1].second));
        EXPECT_THAT(p.values[0].second, ::testing::EndsWith(" GB/s"));
        EXPECT_THAT(p.values[1].second, ::testing::EndsWith(" MiB"));
        ASSERT_GE(bw, 1e9);
        ASSERT_LT(bw, 2e9);
        linear.insert(static_cast<int>((bw - 1e9) / 1e8));
        // Log scale: strata of equal ratio between 1 MiB and 1024 MiB.
        logarithmic.insert(static_cast<int>(std::log(mem / 1048576.0) / std::log(1024.0) * 10));
        ++cores[p.values[2].second];
    }
    EXPECT_EQ(linear.size(), 10u);
    EXPECT_EQ(logarithmic.size(), 10u);
    // A list of 5 values over 10 strata: each value twice.
    for (const auto& [value, count] : cores)
        EXPECT_EQ(count, 2) << value;
}

TEST(SweepDesignSpace, BadSweepFilesNameTheProblem) {
    TempDir dir;
    EXPECT_THAT(input_error([&] { spec_from(dir, "axes:\n  a.x: {min: 1, max: 2}\n"); }),
                HasSubstr("needs `random:` or `latin_hypercube:`"));
    EXPECT_THAT(input_error([&] { spec_from(dir, "axes:\n  a.x: []\n"); }),
                HasSubstr("at least one value"));
    // Two axes setting one path: the later won at every point, mislabelled in results.csv.
    EXPECT_THAT(input_error([&] {
                    spec_from(dir,
                              "axes:\n  workload.seq_len: [8, 16]\n"
                              "  b: {values: {x: {workload.seq_len: 32}}}\n");
                }),
                HasSubstr("axes.b: sets 'workload.seq_len', which axis 'workload.seq_len' sets "
                          "too ('workload.seq_len')"));
    EXPECT_THAT(input_error([&] {
                    spec_from(dir,
                              "axes:\n  workload: ['{model: lstm}']\n  workload.seq_len: [8]\n");
                }),
                HasSubstr("sets 'workload.seq_len', which axis 'workload' sets too"));
    // A later axis may remove a map an earlier one sets inside (an accelerator and its memory),
    // but not replace it with another value.
    EXPECT_NO_THROW(spec_from(dir,
                              "axes:\n  p.acc1.memory: [1 GB, 2 GB]\n"
                              "  n: {values: {one: {p.acc1: ~}, two: {}}}\n"));
    EXPECT_THAT(input_error([&] {
                    spec_from(dir,
                              "axes:\n  p.acc1.memory: [1 GB, 2 GB]\n"
                              "  n: {values: {one: {p.acc1: {memory: 4 GB}}}}\n");
                }),
                HasSubstr("axes.n: sets 'p.acc1', which axis 'p.acc1.memory' sets too"));
    // A range's ends are one kind of quantity: a bandwidth up to "5 GHz" is a typo, not 5e9 B/s.
    EXPECT_THAT(input_error([&] {
                    spec_from(dir, "axes:\n  a.x: {min: 1 GB/s, max: 5 GHz}\nrandom: {n: 2}\n");
                }),
                HasSubstr("min '1 GB/s' and max '5 GHz' have different units; give both as the "
                          "same kind of quantity (bandwidth)"));
    EXPECT_THAT(
        input_error([&] { spec_from(dir, "axes:\n  a.x: {min: 1 GB, max: 5}\nrandom: {n: 2}\n"); }),
        HasSubstr("have different units"));
    EXPECT_THAT(input_error([&] { spec_from(dir, "axes:\n  a.x: [1, 1]\n"); }),
                HasSubstr("lists '1' twice"));
    EXPECT_THAT(input_error([&] { spec_from(dir, "axis:\n  a.x: [1]\n"); }), HasSubstr("axis"));
    EXPECT_THAT(input_error([&] {
                    spec_from(dir, "axes: {a.x: [1]}\nrandom: {n: 2}\nlatin_hypercube: {n: 2}\n");
                }),
                HasSubstr("not both"));
    EXPECT_THAT(input_error([&] {
                    enumerate_points(spec_from(dir, "axes: {a.x: [1]}\nwhere: 'y > 1'\n"));
                }),
                HasSubstr("'y' is not an axis (axes: a.x)"));
    EXPECT_THAT(input_error([&] {
                    enumerate_points(spec_from(dir, "axes: {a.x: [1, 2]}\nwhere: 'x > 5'\n"));
                }),
                HasSubstr("no design point is left (2 removed"));
    EXPECT_THAT(input_error([&] { spec_from(dir, "axes: {a.x: [1]}\nwhere: 'x >'\n"); }),
                HasSubstr("expected a value"));
    EXPECT_THAT(
        input_error([&] {
            load_sweep(dir.write("s2.yaml", "sweep: t\nstudy: nope.yaml\naxes: {a: [1]}\n"));
        }),
        HasSubstr("does not exist"));
}

// --- expressions -----------------------------------------------------------------------------

bool holds(const std::string& text, const std::map<std::string, Value>& vars = {}) {
    return Expression::parse(text).holds(vars);
}

TEST(SweepExpression, ArithmeticUnitsTextAndNames) {
    EXPECT_TRUE(holds("1 + 2 * 3 == 7"));
    EXPECT_TRUE(holds("(1 + 2) * 3 == 9"));
    EXPECT_TRUE(holds("-2 * -3 == 6 and 7 / 2 == 3.5"));
    EXPECT_TRUE(holds("32 MiB == 33554432 B"));
    EXPECT_TRUE(holds("2 GB/s > 1500 MB/s"));
    // Kinds of quantity: compared, added or subtracted only with their own kind, a plain number
    // only with a plain number (products with a quantity are not checked).
    const auto expression_error = [](const std::string& text,
                                     const std::map<std::string, Value>& vars,
                                     const std::map<std::string, sim::Quantity>& kinds) {
        try {
            Expression::parse(text).holds(vars, kinds);
        } catch (const ExpressionError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    const std::map<std::string, Value> bw{{"a.bandwidth", 2e9}};
    const std::map<std::string, sim::Quantity> bw_kind{{"a.bandwidth", sim::Quantity::bandwidth}};
    EXPECT_THAT(expression_error("bandwidth > 1.5 GHz", bw, bw_kind),
                HasSubstr("compares a bandwidth with a frequency"));
    EXPECT_THAT(expression_error("1 GB/s + 1 s > 0", {}, {}),
                HasSubstr("adds a bandwidth and a time"));
    EXPECT_EQ(expression_error("bandwidth > 1.5 GB/s and bandwidth * 2 > 1 GHz", bw, bw_kind),
              "accepted");
    EXPECT_EQ(expression_error("32 MiB == 33554432 B", {}, {}), "accepted");
    EXPECT_TRUE(holds("1 ms == 1000 us or 1 > 2"));
    EXPECT_FALSE(holds("not 1 < 2"));
    const std::map<std::string, Value> vars{{"workload.model", std::string("bert")},
                                            {"workload.seq_len", 16.0},
                                            {"platform.dma.bandwidth", 2e9},
                                            {"platform.pim.bandwidth", 1e9}};
    EXPECT_TRUE(holds("model == 'bert' and seq_len >= 16", vars));
    EXPECT_TRUE(holds("workload.model != \"gpt2\"", vars));
    EXPECT_TRUE(holds("dma.bandwidth == 2 * pim.bandwidth", vars));
    EXPECT_THROW(holds("bandwidth > 1", vars), ExpressionError);  // ambiguous
    EXPECT_THROW(holds("model > 'a'", vars), ExpressionError);    // order of text
    EXPECT_THROW(holds("model * 2 == 1", vars), ExpressionError);
    EXPECT_THROW(holds("seq_len + 1", vars), ExpressionError);  // not a comparison
    EXPECT_THROW(Expression::parse("2 parsecs > 1"), ExpressionError);
    EXPECT_THROW(Expression::parse("(1 < 2"), ExpressionError);
    EXPECT_EQ(std::get<double>(axis_value("2 GB/s")), 2e9);
    EXPECT_EQ(std::get<double>(axis_value("16")), 16.0);
    EXPECT_EQ(std::get<std::string>(axis_value("ddr4-2400")), "ddr4-2400");
}

// Campaign 3 (sx10, sx37): a plain number against a quantity with a unit compared the bare SI
// value ("seq_len > 1 s" kept every point, "seq_len > 2 GB/s" none). It is refused like two
// different kinds are; a plain number times a quantity, and plain numbers among themselves, stay.
TEST(SweepExpression, APlainNumberAndAQuantityDoNotMix) {
    const std::map<std::string, Value> vars{{"workload.seq_len", 8.0},
                                            {"platform.dma.bandwidth", 2e9}};
    const std::map<std::string, sim::Quantity> kinds{
        {"platform.dma.bandwidth", sim::Quantity::bandwidth}};
    const auto outcome = [&](const std::string& text) {
        try {
            return Expression::parse(text).holds(vars, kinds) ? std::string("true")
                                                              : std::string("false");
        } catch (const ExpressionError& e) {
            return std::string(e.what());
        }
    };
    EXPECT_EQ(outcome("seq_len > 1 s"), "'seq_len > 1 s': compares a plain number with a time");
    EXPECT_EQ(outcome("seq_len > 2 GB/s"),
              "'seq_len > 2 GB/s': compares a plain number with a bandwidth");
    EXPECT_EQ(outcome("bandwidth >= 2e9"),
              "'bandwidth >= 2e9': compares a bandwidth with a plain number");
    EXPECT_EQ(outcome("bandwidth - 1 > 0 GB/s"),
              "'bandwidth - 1 > 0 GB/s': subtracts a bandwidth and a plain number");
    EXPECT_EQ(outcome("(seq_len + 1 ms) * 2 > 0"),
              "'(seq_len + 1 ms) * 2 > 0': adds a plain number and a time");
    EXPECT_EQ(outcome("seq_len * 2 / 4 > 1 s"),
              "'seq_len * 2 / 4 > 1 s': compares a plain number with a time");
    EXPECT_EQ(outcome("seq_len * 2 <= 16 and -seq_len < 0"), "true");
    EXPECT_EQ(outcome("bandwidth * 2 > 3 GB/s"), "true");
    EXPECT_EQ(outcome("bandwidth / 2 == 1 GB/s"), "true");
    EXPECT_EQ(outcome("bandwidth / (1 GB/s) == 2"), "true");  // a quotient is not checked
}

// sx17: "OR" after a number was taken for a unit; operators spelled as in other languages are
// named, with the spelling the grammar takes.
TEST(SweepExpression, OperatorsInOtherSpellingsAreNamed) {
    const auto message = [](const std::string& text) {
        try {
            (void)Expression::parse(text);
        } catch (const ExpressionError& e) {
            return std::string(e.what());
        }
        return std::string("parsed");
    };
    EXPECT_EQ(message("seq_len == 8 OR seq_len == 16"),
              "'seq_len == 8 OR seq_len == 16': unknown word 'OR' at column 14; the operators "
              "are lower case: or, and, not, ==, !=, <, <=, >, >=, +, -, *, /");
    EXPECT_THAT(message("x == 1 And y == 2"), HasSubstr("unknown word 'And' at column 8"));
    EXPECT_THAT(message("NOT x == 1"), HasSubstr("unknown word 'NOT' at column 1"));
    EXPECT_THAT(message("(x == 1 OR y == 2)"), HasSubstr("unknown word 'OR' at column 9"));
    EXPECT_THAT(message("x == 1 || y == 2"),
                HasSubstr("'||' is not an operator at column 8; write 'or'"));
    EXPECT_THAT(message("x == 1 && y == 2"), HasSubstr("'&&' is not an operator at column 8; "
                                                       "write 'and'"));
    EXPECT_THAT(message("x = 1"), HasSubstr("'=' is not an operator at column 3; write '=='"));
    EXPECT_THAT(message("x == y xor z"), HasSubstr("unexpected word 'xor' at column 8; expected "
                                                   "an operator"));
    EXPECT_THAT(message("8 parsecs > 1"), HasSubstr("'parsecs' is not a unit hetsim knows"));
    EXPECT_EQ(message("x == 8 or not y == 16 and z == 1"), "parsed");
}

// Parsing, evaluating and freeing recurse once per level: deep input is refused with a message
// instead of exhausting the stack (it used to end in a segmentation fault).
// x / 0 is inf or NaN, which a comparison would silently take or drop; a message quotes a long
// expression by its start and length, on one line.
TEST(SweepExpression, DivisionByZeroIsAnErrorAndLongTextIsShortened) {
    try {
        holds("x / (y - 2) > 3", {{"x", 1.0}, {"y", 2.0}});
        ADD_FAILURE() << "division by zero accepted";
    } catch (const ExpressionError& e) {
        EXPECT_THAT(e.what(), HasSubstr("'x / (y - 2) > 3': division by zero"));
    }
    EXPECT_TRUE(holds("x / (y - 1) > 0", {{"x", 1.0}, {"y", 2.0}}));
    std::string sum = "x";
    for (int i = 0; i < 150; ++i)
        sum += " + 1";
    try {
        (void)Expression::parse(sum + " >");
        ADD_FAILURE() << "a bad expression parsed";
    } catch (const ExpressionError& e) {
        EXPECT_THAT(e.what(),
                    HasSubstr("...' (" + std::to_string(sum.size() + 2) + " characters)"));
        EXPECT_LT(std::string(e.what()).size(), 200u);
    }
}

TEST(SweepExpression, DeepNestingAndLongSumsAreRefusedNotCrashed) {
    const auto refused = [](const std::string& text) {
        try {
            Expression::parse(text);
        } catch (const ExpressionError& e) {
            return std::string(e.what()).find("more than 200 levels") != std::string::npos;
        }
        return false;
    };
    const std::size_t n = 100000;
    EXPECT_TRUE(refused(std::string(n, '(') + "1" + std::string(n, ')') + " == 1"));
    std::string sum = "1";
    for (std::size_t i = 1; i < n; ++i)
        sum += " + 1";
    EXPECT_TRUE(refused(sum + " == 100000"));
    std::string nots;
    for (std::size_t i = 0; i < n; ++i)
        nots += "not ";
    EXPECT_TRUE(refused(nots + "1 < 2"));
    EXPECT_TRUE(refused(std::string(n, '-') + "1 < 2"));
    // Within the limit they still evaluate.
    EXPECT_TRUE(holds(std::string(150, '(') + "1" + std::string(150, ')') + " == 1"));
    std::string short_sum = "1";
    for (int i = 1; i < 150; ++i)
        short_sum += " + 1";
    EXPECT_TRUE(holds(short_sum + " == 150"));
}

// --- results files ---------------------------------------------------------------------------

const std::vector<std::string> kHeader{"study", "point", "placer", "latency_s"};

DesignPoint point(std::size_t index, const std::string& value) {
    DesignPoint p;
    p.index = index;
    p.values = {{"a.x", value}};
    p.assignments = {"a.x=" + value};
    p.id = point_id(p.assignments);
    return p;
}

std::string text_of(const std::filesystem::path& file) {
    return hetsim::testing::read_file(file);
}

// A crash inside a write leaves a torn last line; a crash between the two writes leaves a
// point in one file only. Resuming drops both and keeps the rest as it was.
TEST(SweepResults, ResumeDropsTornAndHalfWrittenPoints) {
    TempDir dir;
    auto store =
        std::make_unique<ResultsStore>(dir.path(), kHeader, std::vector<std::string>{"a.x"});
    EXPECT_TRUE(store->open(false, false).empty());
    const PointOutcome a = store->failed_point(point(0, "1"), "s", "boom, with a comma", 1.0);
    const PointOutcome b = store->failed_point(point(1, "2"), "s", "bang", 1.0);
    store->append(a);
    store->append(b);
    const auto csv = store->csv_path(), jsonl = store->jsonl_path();
    const std::string header = store->header_line();
    const std::string whole_csv = text_of(csv);
    const std::string whole_jsonl = text_of(jsonl);
    EXPECT_THAT(whole_csv, HasSubstr("\"boom, with a comma\""));
    const PointOutcome c = store->failed_point(point(2, "3"), "s", "late", 1.0);
    store.reset();  // the sweep dies here
    std::ofstream(jsonl, std::ios::app) << c.jsonl_rows.substr(0, 10);
    std::ofstream(csv, std::ios::app) << c.csv_rows;  // csv only
    {
        ResultsStore resumed(dir.path(), kHeader, {"a.x"});
        EXPECT_EQ(resumed.open(true, false),
                  (std::map<std::string, std::string>{{a.id, "failed"}, {b.id, "failed"}}));
    }
    EXPECT_EQ(text_of(csv), whole_csv);
    EXPECT_EQ(text_of(jsonl), whole_jsonl);
    // --retry-failed: failed points leave the files and run again.
    {
        ResultsStore retried(dir.path(), kHeader, {"a.x"});
        EXPECT_TRUE(retried.open(true, true).empty());
    }
    EXPECT_EQ(text_of(csv), header + "\n");
}

// A complete row of another width was not written by a sweep (an edit, another tool):
// resuming used to delete it silently. It refuses and leaves the folder as it was.
TEST(SweepResults, ResumeRefusesARowOfAnotherWidth) {
    TempDir dir;
    {
        ResultsStore store(dir.path(), kHeader, {"a.x"});
        store.open(false, false);
        store.append(store.failed_point(point(0, "1"), "s", "boom", 1.0));
    }
    const std::string before = text_of(dir.path() / "results.csv") + "only,three,cols\n";
    std::ofstream(dir.path() / "results.csv") << before;
    ResultsStore resumed(dir.path(), kHeader, {"a.x"});
    try {
        resumed.open(true, false);
        ADD_FAILURE() << "resume accepted a foreign row";
    } catch (const sim::InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("results.csv:3"));
        EXPECT_THAT(e.what(), HasSubstr("has a row of 3 cells where the header has"));
    }
    EXPECT_EQ(text_of(dir.path() / "results.csv"), before);
}

// Campaign 5 (sw05, sr06): a row with a status a sweep never writes was taken as done, and a
// row pasted twice was kept twice. Both refuse the resume, naming the line, and leave the
// folder as it was.
TEST(SweepResults, ResumeRefusesAStatusOrARowASweepDoesNotWrite) {
    TempDir dir;
    std::string row;
    {
        ResultsStore store(dir.path(), kHeader, {"a.x"});
        store.open(false, false);
        const PointOutcome a = store.failed_point(point(0, "1"), "s", "boom", 1.0);
        store.append(a);
        row = a.csv_rows;
    }
    const fs::path csv = dir.path() / "results.csv";
    const std::string good = text_of(csv);
    const auto refusal = [&](const std::string& content) {
        std::ofstream(csv) << content;
        const std::string message = input_error([&] {
            ResultsStore resumed(dir.path(), kHeader, {"a.x"});
            resumed.open(true, false);
        });
        EXPECT_EQ(text_of(csv), content);
        return message;
    };
    std::string bogus = good;
    bogus.replace(bogus.find(",failed,"), 8, ",bogus,");
    EXPECT_THAT(refusal(bogus), HasSubstr("results.csv:2: status 'bogus', expected ok or failed"));
    EXPECT_THAT(refusal(good + row), HasSubstr("results.csv:3: repeats the row of point " +
                                               point(0, "1").id + " of line 2"));
}

// --resume asks the caller about the points whose rows it would keep, before any file changes;
// a refusal names the caller's file and leaves the folder as it was.
TEST(SweepResults, ResumeCheckSeesThePointsItWouldKeep) {
    TempDir dir;
    const DesignPoint p = point(0, "1");
    {
        ResultsStore store(dir.path(), kHeader, {"a.x"});
        store.open(false, false);
        store.append(store.failed_point(p, "s", "boom", 1.0));
    }
    const std::string before = text_of(dir.path() / "results.csv");
    std::map<std::string, std::string> seen;
    const std::string message = input_error([&] {
        ResultsStore resumed(dir.path(), kHeader, {"a.x"});
        resumed.open(true, false,
                     [&](const std::map<std::string, std::string>& present)
                         -> std::optional<ResultsStore::Refusal> {
                         seen = present;
                         return ResultsStore::Refusal{dir.path() / "sweep.json", "changed"};
                     });
    });
    EXPECT_EQ(seen, (std::map<std::string, std::string>{{p.id, "failed"}}));
    EXPECT_THAT(message, HasSubstr("sweep.json: changed: use another --out, or run without "
                                   "--resume"));
    EXPECT_EQ(text_of(dir.path() / "results.csv"), before);
    ResultsStore resumed(dir.path(), kHeader, {"a.x"});
    EXPECT_EQ(resumed.open(
                  true, false,
                  [](const auto&) -> std::optional<ResultsStore::Refusal> { return std::nullopt; }),
              seen);
}

TEST(SweepResults, OneSweepAtATimePerFolder) {
    TempDir dir;
    {
        ResultsStore first(dir.path(), kHeader, {"a.x"});
        first.open(false, false);
        EXPECT_THAT(input_error([&] {
                        ResultsStore second(dir.path(), kHeader, {"a.x"});
                        second.open(true, false);
                    }),
                    HasSubstr("another hetsim sweep is writing this folder"));
    }
    ResultsStore after(dir.path(), kHeader, {"a.x"});  // the first one's lock is gone
    EXPECT_TRUE(after.open(true, false).empty());
}

TEST(SweepResults, AxisColumnsNeverShadowTheStudysColumns) {
    EXPECT_EQ(axis_columns({"study", "objective"}, {"objective", "workload.seq_len", "status"}),
              (std::vector<std::string>{"axis.objective", "workload.seq_len", "axis.status"}));
    ResultsStore store("unused", {"study", "point", "objective"}, {"objective"});
    EXPECT_EQ(store.header_line(), "study,point,objective,status,error,axis.objective");
}

TEST(SweepResults, SortPutsPointsInSweepOrderAndRefusesOtherColumns) {
    TempDir dir;
    const std::vector<DesignPoint> points{point(0, "1"), point(1, "2"), point(2, "3")};
    std::string sorted;
    {
        ResultsStore store(dir.path(), kHeader, {"a.x"});
        store.open(false, false);
        for (std::size_t i : {2u, 0u, 1u})
            store.append(store.failed_point(points[i], "s", "e" + std::to_string(i), 0.0));
        store.sort(points);
        sorted = text_of(store.csv_path());
    }
    std::istringstream csv(sorted);
    std::string line;
    std::getline(csv, line);
    for (std::size_t i = 0; i < 3; ++i) {
        std::getline(csv, line);
        EXPECT_THAT(line, HasSubstr(points[i].id + ",,,failed,e" + std::to_string(i)));
    }
    EXPECT_THAT(
        input_error([&] { ResultsStore(dir.path(), {"other"}, {"a.x"}).open(true, false); }),
        HasSubstr("other columns"));
}

}  // namespace
}  // namespace hetsim::sweep
