// `hetsim agree`, memory capacity in `hetsim run`, and the limits and bad inputs that used to
// crash (issue 11 item 7): each ends with exit 2 and one line naming the input and the limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fixtures/cli_fixtures.hpp"

namespace {

namespace fs = std::filesystem;
using hetsim::testing::read_file;
using hetsim::testing::run_hetsim;
using hetsim::testing::TempDir;
using ::testing::HasSubstr;

const std::string kZynq = std::string(HETSIM_SOURCE_DIR) + "/configs/platforms/zynq_silentpim.yaml";

// A small BERT on the Zynq platform; `extra` is appended (more keys).
std::string small_study(const std::string& extra = "") {
    return "study: t\nplatform: " + kZynq +
           "\nworkload: { model: bert, layers: 1, hidden: 64, heads: 2, ffn: 128, seq_len: 8 }"
           "\nevaluator: des\nsamples: 2\nbaseline: single:CPU_S\n"
           "placers: [priority:PIM,CPU_P,CPU_S]\n" +
           extra;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

void expect_one_line_error(const hetsim::testing::Outcome& o, const std::string& expected) {
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("hetsim: error: "));
    EXPECT_THAT(o.output, HasSubstr(expected));
    EXPECT_EQ(lines_of(o.output).size(), 1u) << o.output;
}

// Column `index` of a plain CSV line (no quoted commas).
std::string column(const std::string& line, std::size_t index) {
    std::istringstream in(line);
    std::string cell;
    for (std::size_t i = 0; i <= index; ++i)
        std::getline(in, cell, ',');
    return cell;
}

TEST(CliAgree, SequentialDispatchHasNoContentionSoBothEvaluatorsAgreeExactly) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    const auto o = run_hetsim("agree " + study.string() + " --samples 6 --seed 3 --out " +
                              (dir.path() / "out").string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("Pearson r     1.0000"));
    EXPECT_THAT(o.output, HasSubstr("max +0.00 %"));
    const auto lines = lines_of(read_file(dir.path() / "out" / "agreement.csv"));
    ASSERT_EQ(lines.size(), 7u);
    EXPECT_EQ(lines[0].rfind("placement,analytic_s,des_s,feasible", 0), 0u) << lines[0];
    for (std::size_t i = 1; i < lines.size(); ++i) {
        EXPECT_EQ(column(lines[i], 1), column(lines[i], 2)) << lines[i];
        EXPECT_EQ(column(lines[i], 3), "1");
        EXPECT_GT(std::stod(column(lines[i], 1)), 0.0);
    }
}

TEST(CliAgree, DataflowIsSeededAndTheDesIsNeverFasterOnALinkOnlyPlatform) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    const std::string args =
        "agree " + study.string() + " --set platform.dispatch=dataflow --samples 5 --seed 7 --out ";
    const auto a = run_hetsim(args + (dir.path() / "a").string());
    const auto b = run_hetsim(args + (dir.path() / "b").string());
    ASSERT_EQ(a.exit_code, 0) << a.output;
    ASSERT_EQ(b.exit_code, 0) << b.output;
    EXPECT_EQ(read_file(dir.path() / "a" / "agreement.csv"),
              read_file(dir.path() / "b" / "agreement.csv"));
    EXPECT_EQ(lines_of(read_file(dir.path() / "a" / "agreement.csv")).size(), 6u);
}

TEST(CliAgree, NeedsTwoPlacements) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    const auto o = run_hetsim("agree " + study.string() + " --samples 1 --out " +
                              (dir.path() / "out").string());
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output, HasSubstr("--samples: needs at least 2 placements, got 1"));
}

TEST(CliMemory, APlacementOverACapacityIsAnInfeasibleRowNotANumber) {
    TempDir dir;
    // 64 KiB of PIM memory cannot hold the encoder's weights: the PIM-first placement is
    // infeasible, single:CPU_S is not.
    const fs::path study = dir.write("s.yaml", small_study());
    const fs::path out = dir.path() / "out";
    const auto o = run_hetsim("run " + study.string() +
                              " --set platform.components.pim.memory=64KiB --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("priority:PIM,CPU_P,CPU_S  infeasible: memory of PIM ('pim') "
                                    "exceeded: peak "));
    EXPECT_THAT(o.output, HasSubstr("> capacity 65536 bytes"));
    const auto lines = lines_of(read_file(out / "results.csv"));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_THAT(lines[0], HasSubstr(",platform,feasible,infeasible_reason"));
    EXPECT_THAT(lines[1], HasSubstr("zynq_silentpim,1,\"\""));
    EXPECT_THAT(lines[2], HasSubstr("zynq_silentpim,0,\"memory of PIM ('pim') exceeded"));
    const auto json = nlohmann::json::parse(read_file(out / "results.json"));
    const auto& rows = json.at("rows");
    EXPECT_TRUE(rows[0].at("feasible").get<bool>());
    EXPECT_FALSE(rows[1].at("feasible").get<bool>());
    EXPECT_GT(rows[1].at("peak_memory_bytes").at("PIM").get<std::int64_t>(), 65536);
    EXPECT_GT(rows[0].at("peak_memory_bytes").at("CPU_S").get<std::int64_t>(), 0);
    EXPECT_EQ(rows[0].at("peak_memory_bytes").at("CPU_S"),
              rows[0].at("peak_memory_bytes").at("CPU_P"));  // one memory
}

TEST(CliMemory, EveryPlacementInfeasibleEndsWithExit2AndNoOutput) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    const fs::path out = dir.path() / "out";
    const auto o = run_hetsim("run " + study.string() +
                              " --set platform.components.cpu.memory=1KiB --out " + out.string());
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output, HasSubstr("every placement is infeasible (first: single:CPU_S: memory "
                                    "of CPU_S, CPU_P ('cpu') exceeded"));
    EXPECT_THAT(o.output, HasSubstr("> capacity 1024 bytes"));
    EXPECT_FALSE(fs::exists(out / "results.csv"));
}

struct BadInput {
    std::string name;
    std::string set;       // --set assignments
    std::string expected;  // substring of the one-line message
};

class CliLimits : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliLimits, EndsWithExit2AndOneLine) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    const auto o = run_hetsim("run " + study.string() + " " + GetParam().set + " --out " +
                              (dir.path() / "out").string());
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("hetsim: error: "));
    EXPECT_THAT(o.output, HasSubstr(GetParam().expected));
    EXPECT_EQ(lines_of(o.output).size(), 1u) << o.output;
    EXPECT_FALSE(fs::exists(dir.path() / "out" / "results.csv"));
}

INSTANTIATE_TEST_SUITE_P(
    Issue11, CliLimits,
    ::testing::Values(
        BadInput{"ClockTooSlow", "--set \"platform.components.cpu.clock=1e-300 GHz\"",
                 "--set platform.components.cpu.clock=1e-300 GHz: frequency "
                 "'1e-300 GHz' is outside 1 Hz to 1 PHz"},
        BadInput{"BatchTooLarge", "--set workload.batch=1000000000000",
                 "beyond the simulator's time range"},
        BadInput{"HiddenTooLarge", "--set workload.hidden=2000000000",
                 "has more than 2^50 elements, hetsim's limit"},
        BadInput{"SamplesTooMany", "--set samples=1000000000",
                 "of simulator memory, over the limit of 8 GiB; lower `samples`"},
        BadInput{"SamplesPastInt", "--set samples=4294967297",
                 "--set samples=4294967297: expected at most 2147483647"},
        BadInput{"NegativeSeed", "--set seed=-1",
                 "--set seed=-1: expected an integer >= 0, got -1"},
        BadInput{"MemoryBandwidthTooLow",
                 "--set \"platform.components.cpu.dram_bandwidth_all_cores=1 B/s\" "
                 "--set workload.hidden=2048 --set workload.ffn=8192",
                 "B/s through 'mem:cpu' (its bandwidth), so alone it takes"},
        BadInput{"BandwidthBelowOneBytePerSecond",
                 "--set \"platform.components.cpu.dram_bandwidth_all_cores=1e-6 "
                 "B/s\"",
                 "bandwidth '1e-6 B/s' is outside 1 B/s to 1 EB/s"},
        BadInput{"MemoryPast8EiB", "--set \"platform.components.cpu.memory=99999999999999 PiB\"",
                 "data size '99999999999999 PiB' is more than 8 EiB"},
        BadInput{"CacheBelowOneByte", "--set \"platform.components.cpu.l2=0.5 B\"",
                 "data size '0.5 B' is less than one byte"},
        BadInput{"RemovedLinkEndpoint", "--set platform.components.cpu=~",
                 "components.dma: link endpoint 'cpu' is a component set to null "
                 "(removed); remove this link too (components.dma: ~)"},
        BadInput{"ListElementFromSet", "--set platform.components.dma.endpoints.1=cpu",
                 "--set platform.components.dma.endpoints.1=cpu: a link needs two "
                 "different endpoints, got 'cpu' twice"},
        BadInput{"DescriptionNotText", "--set \"description={a: 1}\"",
                 "--set description={a: 1}: expected a string, got a map"},
        BadInput{"TrailingCommaInPlacer", "--set \"placers.0=mcmc:samples=10,\"",
                 "placer 'mcmc': empty argument at character 12 of "
                 "'samples=10,,CPU_P,CPU_S'"},
        BadInput{"NothingAfterColon", "--set \"placers=['random:']\"",
                 "placer spec 'random:' has nothing after ':'"},
        BadInput{"PimWithoutLink", "--set platform.components.dma.endpoints=[cpu,cpu2]",
                 "link endpoint 'cpu2' is not a component"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(CliLimitsPlatform, AnUnwritableOutIsBadInput) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    const fs::path file = dir.write("a_file", "x");
    const auto o = run_hetsim("run " + study.string() + " --out " + (file / "sub").string());
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output,
                HasSubstr("hetsim: error: --out: cannot write '" + (file / "sub").string() +
                          "': '" + file.string() + "' is a file, not a folder"));
}

// Options that the command's input or solver does not use were silently ignored.
TEST(CliLimitsPlatform, OptionsThatDoNothingAreRefused) {
    const std::string study = std::string(HETSIM_SOURCE_DIR) + "/configs/sweeps/duet_fig14.yaml";
    const std::string zynq = kZynq;
    const std::string fit = std::string(HETSIM_SOURCE_DIR) + "/configs/calibration/lee2022/fit.csv";
    for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
             {"place " + study + " --placer tarnawski.dp --processors 3",
              "--processors: applies to a .stg or WfCommons task graph only"},
             {"place " + study + " --placer tarnawski.dp --gap 0.1",
              "--gap: 'tarnawski.dp' has no MIP gap; --gap applies to tarnawski.ip_latency"},
             {"calibrate " + zynq + " --check " + fit + " --device PIM", "--device requires --fit"},
             {"calibrate " + zynq + " --check " + fit + " --fix pim.x", "--fix requires --fit"},
             {"calibrate " + zynq + " --check " + fit + " --folds 3", "--folds requires --fit"}}) {
        expect_one_line_error(run_hetsim(args), message);
    }
}

// An output that is a device node or a FIFO is refused, never replaced by a regular file (as
// root, `--out /dev/null` deleted /dev/null); a symlink is written through to its target; and a
// refused output leaves none of the run's other files behind.
TEST(CliLimitsPlatform, OutputsAreRegularFilesAndARefusedOneLeavesNothing) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    const fs::path fifo = dir.path() / "fifo.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    auto o = run_hetsim("inspect lstm --export " + fifo.string());
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("--export: cannot write '" + fifo.string() +
                                    "': is a FIFO (named pipe), not a regular file"));
    EXPECT_EQ(fs::symlink_status(fifo).type(), fs::file_type::fifo);

    // place checks its --out before the solver runs (its progress line came first).
    const std::string graph =
        std::string(HETSIM_SOURCE_DIR) + "/configs/sweeps/duet_fig14.yaml --placer tarnawski.dp";
    expect_one_line_error(run_hetsim("place " + graph + " --out " + fifo.string()),
                          "--out: cannot write '" + fifo.string() + "': is a FIFO");
    expect_one_line_error(
        run_hetsim("place " + graph + " --out " + (dir.path() / "nodir" / "x.json").string()),
        "its folder '" + (dir.path() / "nodir").string() + "' does not exist");

    const fs::path target = dir.path() / "target.json";
    const fs::path link = dir.path() / "link.json";
    fs::create_symlink(target, link);  // dangling: the write creates its target
    o = run_hetsim("inspect lstm --export " + link.string());
    EXPECT_EQ(o.exit_code, 0) << o.output;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
    EXPECT_TRUE(fs::is_regular_file(target));

    const fs::path nowhere = dir.path() / "nowhere";
    fs::create_symlink(dir.path() / "missing", nowhere);  // an --out folder that is a dead link
    o = run_hetsim("run " + study.string() + " --out " + nowhere.string());
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("is a symlink to '" + (dir.path() / "missing").string() +
                                    "', which does not exist"));

    const fs::path out = dir.path() / "o";
    fs::create_directories(out / "results.csv");  // a folder where a file goes
    o = run_hetsim("run " + study.string() + " --out " + out.string());
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("--out: cannot write '" + (out / "results.csv").string() +
                                    "': is a directory"));
    std::vector<fs::path> left;
    for (const auto& entry : fs::directory_iterator(out))
        left.push_back(entry.path().filename());
    EXPECT_EQ(left, std::vector<fs::path>{"results.csv"});
}

// Commands that run one design point refuse a study whose `points:` make several (they ran the
// first and dropped the rest), and `point:` beside `points:` is refused (it was dropped).
TEST(CliLimitsPlatform, OnePointCommandsRefuseSeveralPoints) {
    TempDir dir;
    const fs::path study =
        dir.write("s.yaml", small_study("points: {workload.seq_len: [8, 16]}\n"));
    for (const std::string& command :
         {"agree " + study.string() + " --samples 1 --out " + (dir.path() / "a").string(),
          "inspect " + study.string(), "place " + study.string() + " --placer tarnawski.dp"}) {
        const auto o = run_hetsim(command);
        EXPECT_EQ(o.exit_code, 2) << command << "\n" << o.output;
        EXPECT_THAT(o.output, HasSubstr("points: this command runs one design point, and "
                                        "`points:` makes 2"))
            << command;
    }
    EXPECT_FALSE(fs::exists(dir.path() / "a"));
    std::string text = small_study();
    text.replace(text.find("placers: ["), 10, "placers: [random, random, ");
    const fs::path twice = dir.write("t.yaml", text);
    expect_one_line_error(
        run_hetsim("run " + twice.string() + " --out " + (dir.path() / "t").string()),
        "placer 'random' is listed twice; each runs once");
    const fs::path labelled =
        dir.write("l.yaml", small_study("points: {workload.seq_len: [8, 16]}\npoint: x\n"));
    const auto o = run_hetsim("run " + labelled.string() + " --out " + (dir.path() / "o").string());
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("l.yaml:9: point: `point:` labels a study without "
                                    "`points:`"));
}

TEST(CliLimitsPlatform, APimWithNoLinkIsAnErrorNamingBothComponents) {
    TempDir dir;
    std::string text = read_file(kZynq);
    text = text.substr(0, text.find("\n  dma:"));
    const fs::path platform = dir.write("p.yaml", text + "\n");
    const auto o = run_hetsim("calibrate " + platform.string());
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output, HasSubstr("p.yaml"));
    EXPECT_THAT(o.output, HasSubstr("no route from 'cpu' to 'pim'"));
}

TEST(CliLimitsPlatform, TwoLinksToOneAcceleratorAreAnError) {
    TempDir dir;
    const std::string text = read_file(kZynq) +
                             "  dma2:\n    type: dma\n    endpoints: [pim, cpu]\n"
                             "    forward: {bandwidth: 1 GB/s}\n"
                             "    backward: {bandwidth: 1 GB/s}\n";
    const fs::path platform = dir.write("p.yaml", text);
    const auto o = run_hetsim("calibrate " + platform.string());
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_THAT(o.output, HasSubstr("components.dma2: links 'dma' and 'dma2' both join"));
}

TEST(CliLimitsPlatform, CommandLineParseErrorsExit2WithOneLine) {
    for (const std::string args : {"run --bogus", "frobnicate", "agree", "run --out"}) {
        const auto o = run_hetsim(args);
        EXPECT_EQ(o.exit_code, 2) << args << ": " << o.output;
        EXPECT_THAT(o.output, HasSubstr("hetsim: error: ")) << args;
        EXPECT_EQ(lines_of(o.output).size(), 1u) << o.output;
    }
    EXPECT_EQ(run_hetsim("--help").exit_code, 0);
}

// Found by tests/fuzz (study_yaml): a platform path longer than the file system allows made
// std::filesystem throw, and the CLI called it an internal error (exit 1). A path the file
// system refuses is bad input: exit 2, one line naming the path.
TEST(CliLimits, APathTheFileSystemRefusesIsBadInput) {
    TempDir dir;
    const std::string long_name(5000, 'p');
    const fs::path study = dir.write("s.yaml", "study: t\nplatform: ../" + long_name +
                                                   ".yaml\nworkload: { model: bert }\n"
                                                   "placers: [random]\n");
    const auto o = run_hetsim("run " + study.string() + " --out " + (dir.path() / "o").string());
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_THAT(o.output, HasSubstr("hetsim: error: "));
    EXPECT_THAT(o.output, HasSubstr("File name too long"));
    EXPECT_EQ(lines_of(o.output).size(), 1u) << o.output;
}

// A NaN or infinite duration passed CLI11's NonNegativeNumber and ran with no limit; zero
// workers printed a range up to DBL_MAX.
TEST(CliLimits, DurationsMustBeFiniteAndWorkersAtLeastOne) {
    const std::string sweep = std::string(HETSIM_SOURCE_DIR) + "/configs/sweeps/duet_fig14.yaml";
    for (const std::string value : {"nan", "inf", "-1", "3s"}) {
        const auto o =
            run_hetsim("place " + sweep + " --placer tarnawski.dp --time-limit " + value);
        EXPECT_EQ(o.exit_code, 2) << value << ": " << o.output;
        EXPECT_THAT(o.output,
                    HasSubstr("--time-limit: expected a finite number >= 0, got '" + value + "'"));
    }
    const auto gap = run_hetsim("place " + sweep + " --placer tarnawski.dp --gap nan");
    EXPECT_EQ(gap.exit_code, 2) << gap.output;
    // Past 10^7 s a deadline overflowed the clock and the search stopped at once.
    expect_one_line_error(run_hetsim("place " + sweep + " --placer tarnawski.dp --time-limit 1e10"),
                          "--time-limit: expected at most 1e+07 seconds, got '1e10'");
    for (const std::string spec :
         {"mcmc:time=1e10", "mcmc:time=inf", "tarnawski.dp:time=1e300", "mcm.sa:time=1e10"}) {
        const auto o =
            run_hetsim("run " + std::string(HETSIM_SOURCE_DIR) +
                       "/configs/studies/default.yaml --set \"placers=['" + spec + "']\"");
        EXPECT_EQ(o.exit_code, 2) << spec << ": " << o.output;
        EXPECT_THAT(o.output, HasSubstr("1e+07")) << spec;
    }
    const auto train = run_hetsim("train --time-limit nan");
    EXPECT_EQ(train.exit_code, 2) << train.output;
    EXPECT_THAT(train.output, HasSubstr("--time-limit: expected a finite number >= 0"));
    const auto jobs = run_hetsim("sweep " + sweep + " -j 0 --dry-run");
    EXPECT_EQ(jobs.exit_code, 2) << jobs.output;
    EXPECT_THAT(jobs.output, HasSubstr("--jobs: Value 0 not in range 1 to 4096"));
    EXPECT_EQ(lines_of(jobs.output).size(), 1u) << jobs.output;
}

}  // namespace

namespace {

using ::testing::Not;

// Issue 29's hostile-input campaign, second round: each of these exited 0, 1 or crashed, or
// blamed the wrong input. Each now ends with exit 2 and one line naming the input.

// A --set path 30,000 parts deep overflowed the stack while it was assigned.
TEST(CliLimitsRound2, ADeepSetPathIsRefused) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    std::string path = "description";
    for (int i = 0; i < 30000; ++i)
        path += ".a";
    const auto o = run_hetsim("run " + study.string() + " --set " + path + "=1 --out " +
                              (dir.path() / "out").string());
    expect_one_line_error(o, "--set: description.a.a");
    EXPECT_THAT(o.output, HasSubstr("a path has at most 64 parts"));
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

// An unknown key a --set adds at the study's root was blamed on the study file's line 1.
TEST(CliLimitsRound2, AnUnknownRootKeyFromSetNamesTheArgument) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    expect_one_line_error(
        run_hetsim("run " + study.string() + " --set foo=1 --out " + (dir.path() / "out").string()),
        "--set foo=1: unknown key 'foo'");
}

// A bad first placer was reported at `baseline:`, a key the study did not have.
TEST(CliLimitsRound2, ABadFirstPlacerIsReportedInTheList) {
    TempDir dir;
    const fs::path study =
        dir.write("s.yaml", "study: t\nplatform: " + kZynq +
                                "\nworkload: { model: bert, layers: 1, seq_len: 8 }\n"
                                "placers: ['mcmc:samples=-1', random]\n");
    const auto o = run_hetsim("run " + study.string() + " --out " + (dir.path() / "o").string());
    expect_one_line_error(o, "placers.0: ");
    EXPECT_THAT(o.output, Not(HasSubstr("baseline")));
}

// Study, sweep and compare names become folder names: "../" wrote outside --out's folder, and
// a newline split the error over two lines.
TEST(CliLimitsRound2, NamesThatWouldLeaveTheOutputFolderAreRefused) {
    TempDir dir;
    for (const std::string name : {"'../../escape'", "'a/b'", "'..'", "\"a\\nb\""}) {
        const fs::path study = dir.write("s.yaml", "study: " + name + "\nplatform: " + kZynq +
                                                       "\nworkload: { model: bert, layers: 1 }\n"
                                                       "placers: [random]\n");
        const auto o = run_hetsim("run " + study.string());
        expect_one_line_error(o, "s.yaml:1: study: expected a name of 1 to 100 bytes of printable");
    }
    EXPECT_FALSE(fs::exists(dir.path() / ".." / "escape"));
    const fs::path study = dir.write("ok.yaml", small_study());
    const fs::path sweep = dir.write("w.yaml", "sweep: ../up\nstudy: ok.yaml\naxes: {seed: [1]}\n");
    expect_one_line_error(run_hetsim("sweep " + sweep.string() + " --dry-run"),
                          "w.yaml:1: sweep: expected a name");
}

// Negative seeds wrapped around to 2^64 - 1 in the commands' unsigned options; `agree
// --samples` had no upper limit.
TEST(CliLimitsRound2, SeedsAndAgreeSamplesAreChecked) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    // Past 2^63 - 1 too: the range check clamped 9223372036854775808 and 2^64 and let them in.
    for (const std::string& args : std::vector<std::string>{
             "agree " + study.string() + " --samples 2 --seed -1",
             "place random_taskgraph --placer heft --set tasks=10 --seed -5",
             "train mcm.rl --seed -1",
             "agree " + study.string() + " --samples 2 --seed 9223372036854775808",
             "place random_taskgraph --placer heft --set tasks=10 --seed 18446744073709551616",
             "dataset build --spec d.yaml --out x --seed 1e3"}) {
        const auto o = run_hetsim(args);
        expect_one_line_error(o, "--seed: expected an integer in 0..9223372036854775807, got '");
    }
    expect_one_line_error(run_hetsim("agree " + study.string() + " --samples 2000000000"),
                          "--samples: Value 2000000000 not in range 1 to 1000000");
}

// A study's `points:` grid was expanded whatever its size: 10^10 points hung.
TEST(CliLimitsRound2, AStudysPointGridIsCountedFirst) {
    TempDir dir;
    std::string values = "[";
    for (int i = 1; i <= 100; ++i)
        values += (i > 1 ? "," : "") + std::to_string(i);
    values += "]";
    const fs::path study =
        dir.write("s.yaml", small_study("points: {seed: " + values + ", samples: " + values +
                                        ", workload.seq_len: " + values + "}\n"));
    expect_one_line_error(
        run_hetsim("run " + study.string() + " --out " + (dir.path() / "o").string()),
        "points: the grid has 1000000 points (100 x 100 x 100), more than a "
        "study's limit of 10000");
}

// A sweep's `where:` dividing by zero kept or dropped points silently (x / 0 = inf).
TEST(CliLimitsRound2, AWhereThatDividesByZeroIsAnError) {
    TempDir dir;
    dir.write("ok.yaml", small_study());
    const fs::path sweep = dir.write("w.yaml",
                                     "sweep: w\nstudy: ok.yaml\naxes: {workload.seq_len: [8, 16]}\n"
                                     "where: 'seq_len / 0 > 3'\n");
    expect_one_line_error(run_hetsim("sweep " + sweep.string() + " --dry-run"),
                          "'seq_len / 0 > 3': division by zero");
}

// A compare's `placers:` given as one spec ran only the baseline; a misspelt `exclude:`
// excluded nothing.
TEST(CliLimitsRound2, CompareTakesOnePlacerAndChecksExcludes) {
    TempDir dir;
    dir.write("s.yaml", small_study());
    const fs::path one = dir.write("c.yaml", "compare: c\nstudies: [s.yaml]\nplacers: etf\n");
    const auto o =
        run_hetsim("compare " + one.string() + " --dry-run --out " + (dir.path() / "o").string());
    EXPECT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(o.output, HasSubstr("etf"));
    const fs::path bad =
        dir.write("b.yaml", "compare: b\nstudies: [s.yaml]\nexclude: [nosuchplacer]\n");
    expect_one_line_error(run_hetsim("compare " + bad.string() + " --dry-run"),
                          "exclude.0: no placer 'nosuchplacer' to exclude");
}

// Issue 29's third round: leniencies and misplaced blame left from the second.
TEST(CliLimitsRound3, YamlTagsAndNonTextDescriptionsAreRefused) {
    TempDir dir;
    const fs::path tagged = dir.write(
        "t.yaml", "study: !!binary aGVsbG8=\nplatform: " + kZynq +
                      "\nworkload: { model: bert, layers: 1, seq_len: 8 }\nplacers: [heft]\n");
    expect_one_line_error(
        run_hetsim("run " + tagged.string() + " --out " + (dir.path() / "o").string()),
        "t.yaml:1: YAML tags such as '!!binary' are not accepted");
    const fs::path described = dir.write("d.yaml", small_study("description: [a, b]\n"));
    expect_one_line_error(
        run_hetsim("run " + described.string() + " --out " + (dir.path() / "o").string()),
        "d.yaml:8: description: expected a string, got a sequence");
    EXPECT_FALSE(fs::exists(dir.path() / "o"));
}

// `points:` mistakes are the axis value's, at its line; an empty grid and a repeated value
// (a point run twice) are refused as a sweep's are.
TEST(CliLimitsRound3, PointErrorsAreReportedAtTheAxisValue) {
    TempDir dir;
    const auto error_of = [&](const std::string& points) {
        const fs::path study = dir.write("p.yaml", small_study(points));
        return run_hetsim("run " + study.string() + " --out " + (dir.path() / "o").string());
    };
    expect_one_line_error(error_of("points: {}\n"),
                          "p.yaml:8: points: `points:` needs at least one axis");
    expect_one_line_error(error_of("points:\n  workload.seq_len: [8, 16, 8]\n"),
                          "p.yaml:9: points.workload.seq_len.2: the axis lists '8' twice");
    expect_one_line_error(error_of("points:\n  workload.nosuch: [1]\n"),
                          "p.yaml:9: points.workload.nosuch.0: point nosuch=1: unknown key "
                          "'nosuch'");
    EXPECT_FALSE(fs::exists(dir.path() / "o"));
}

// Names a placer spec or a --set path is written with: no ',', ':', '.', '/' or invisible
// characters, so that every device can be named.
TEST(CliLimitsRound3, DeviceAndComponentNamesAreChecked) {
    TempDir dir;
    const auto platform_with = [&](const std::string& component, const std::string& device) {
        return "\nplatform:\n  name: p\n  components:\n    " + component +
               ": {type: cpu, devices: {" + device +
               ": serial}, cores: 1, clock: 1 GHz, flops_per_cycle: 2, l1d: 32 KiB, l2: 1 MiB, "
               "dram_bandwidth: 5 GB/s}\n";
    };
    const auto run_with = [&](const std::string& component, const std::string& device) {
        const fs::path study = dir.write(
            "s.yaml", "study: s" + platform_with(component, device) +
                          "workload: { model: bert, layers: 1, seq_len: 8 }\nplacers: [heft]\n");
        return run_hetsim("run " + study.string() + " --out " + (dir.path() / "o").string());
    };
    expect_one_line_error(run_with("cpu", "'a,b:c/../d'"),
                          "s.yaml:5: platform.components.cpu: device name 'a,b:c/../d' is not 1 "
                          "to 64 ASCII letters, digits, '_' or '-'");
    expect_one_line_error(run_with("cpu", "''"), "device name '' is not 1 to 64");
    expect_one_line_error(run_with("cpu", "\"C\\u202EPU\""), "device name 'C\\xe2\\x80\\xaePU'");
    expect_one_line_error(run_with("c.pu", "CPU"), "component name 'c.pu' is not 1 to 64");
    const auto fine = run_with("cpu-0", "CPU_a-1");
    EXPECT_EQ(fine.exit_code, 0) << fine.output;
}

// Options outside what they can mean: a negative ideals limit, more folds than rows, a WfCommons
// bandwidth for a .stg graph (even the default value), a report of no rows.
TEST(CliLimitsRound3, OptionsThatCannotApplyAreRefused) {
    TempDir dir;
    expect_one_line_error(run_hetsim("inspect bert --ideals --ideals-limit -1"),
                          "--ideals-limit: Value -1 not in range 1 to 1000000000");
    const std::string fit_csv =
        std::string(HETSIM_SOURCE_DIR) + "/configs/calibration/lee2022/fit.csv";
    expect_one_line_error(
        run_hetsim("calibrate " + kZynq + " --fit " + fit_csv + " --folds 11 --out " +
                   (dir.path() / "f.yaml").string()),
        "--folds 11: more folds than the 10 rows of " + fit_csv + ": at most 10 (0 for none)");
    EXPECT_FALSE(fs::exists(dir.path() / "f.yaml"));
    const std::string stg =
        std::string(HETSIM_SOURCE_DIR) + "/tests/fuzz/seeds/task_graph_stg/fork_join.stg";
    expect_one_line_error(
        run_hetsim("place " + stg + " --placer heft --processors 2 --bandwidth '1 GB/s'"),
        "--bandwidth: applies to a WfCommons workflow only (a .stg graph has no communication)");
    fs::create_directories(dir.path() / "r");
    dir.write("r/results.csv", "point_id,status,placer,latency_s,throughput_per_s\n");
    expect_one_line_error(run_hetsim("report " + (dir.path() / "r").string()),
                          "results.csv: a header and no rows: no point has finished");
    EXPECT_FALSE(fs::exists(dir.path() / "r" / "report.html"));
}

// A CSV header that names a column twice: which one a reader used was a guess.
TEST(CliLimitsRound3, ACsvColumnNamedTwiceIsRefused) {
    TempDir dir;
    const fs::path csv = dir.write("m.csv", "device,workload,time_s,time_s\nCPU_S,bert,0.1,0.2\n");
    expect_one_line_error(run_hetsim("calibrate " + kZynq + " --check " + csv.string() + " --out " +
                                     (dir.path() / "o").string()),
                          "m.csv:1: the header names column 'time_s' twice (columns 3 and 4)");
}

// A compare's `set:` mistake is reported at the assignment, not at `study:`; the inlined
// platform's internal key is never offered as a key to write.
TEST(CliLimitsRound3, CompareSetMistakesAreReportedAtTheAssignment) {
    TempDir dir;
    dir.write("s.yaml", small_study());
    const fs::path compare = dir.write(
        "c.yaml", "compare: c\nstudies:\n  - study: s.yaml\n    set: [workload.seq_len]\n");
    expect_one_line_error(run_hetsim("compare " + compare.string() + " --dry-run"),
                          "c.yaml:4: studies.0.set.0: study '");
    const fs::path study = dir.write("t.yaml", small_study());
    const auto o = run_hetsim("run " + study.string() +
                              " --set platform.components.cpu.cores=2 --set foo=1 --out " +
                              (dir.path() / "o").string());
    expect_one_line_error(o, "--set foo=1: unknown key 'foo'; expected one of: study,");
    EXPECT_THAT(o.output, Not(HasSubstr("inlined")));
}

// Messages that misled: a workload with two sources blamed one of them as unknown, a
// non-breaking space printed like an accepted unit, an unwritable file's name came twice.
TEST(CliLimitsRound3, MessagesSayWhatIsWrong) {
    TempDir dir;
    const fs::path two =
        dir.write("w.yaml", "study: t\nplatform: " + kZynq +
                                "\nworkload: { model: bert, json: g.json }\nplacers: [heft]\n");
    expect_one_line_error(
        run_hetsim("run " + two.string() + " --out " + (dir.path() / "o").string()),
        "workload.json: a workload is one of `model:`, `onnx:` or `json:`, got "
        "both `model:` and `json:`");
    const auto nbsp = run_hetsim("run " + dir.write("n.yaml", small_study()).string() +
                                 " --set \"platform.components.cpu.dram_bandwidth=5\xC2\xA0GB/s\"" +
                                 " --out " + (dir.path() / "o").string());
    expect_one_line_error(nbsp, "unknown unit '\\xc2\\xa0GB/s'");
    EXPECT_THAT(nbsp.output, HasSubstr("(it has a non-ASCII or control character, such as a "
                                       "non-breaking space)"));
    const auto unwritable = run_hetsim("inspect bert --set layers=1 --export /proc/version/x.json");
    expect_one_line_error(unwritable, "--export: cannot write '/proc/version/x.json': ");
    EXPECT_EQ(unwritable.output.find("cannot write", unwritable.output.find("cannot write") + 1),
              std::string::npos)
        << unwritable.output;
}

// Issue 29's fourth round (a third campaign of 330 inputs): accepted inputs that meant nothing or
// something else, and errors blamed on a line that does not hold the value.
TEST(CliLimitsRound4, EmptyValuesAndOptionsThatWouldBeIgnoredAreRefused) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    for (const std::string& args : std::vector<std::string>{
             "run " + study.string() + " --out ''", "agree " + study.string() + " --out ''",
             "inspect bert --export ''", "run ''", "dataset build --spec d.yaml --out ''"}) {
        const auto o = run_hetsim(args);
        expect_one_line_error(o, "expected a value, got an empty one ('')");
    }
    for (const std::string option : {"--trace-format perfetto_proto", "--trace-limit '1 MB'"}) {
        expect_one_line_error(run_hetsim("run " + study.string() + " " + option + " --out " +
                                         (dir.path() / "o").string()),
                              option.substr(0, option.find(' ')) + ": applies with --trace only");
    }
    EXPECT_FALSE(fs::exists(dir.path() / "o"));
    // best.pt chosen by a score measured on no sample.
    expect_one_line_error(
        run_hetsim("train mcm.rl --dataset " + dir.path().string() + " --out " +
                   (dir.path() / "ck").string() + " --select finetune --val-finetune 0"),
        "--select finetune chooses best.pt by the finetune score, which "
        "--val-finetune 0 leaves unmeasured");
    EXPECT_FALSE(fs::exists(dir.path() / "ck"));
}

// A knob out of range is the knob's: a --set value is blamed, and the bound it passed is named.
TEST(CliLimitsRound4, KnobErrorsNameTheKnobAndTheBoundPassed) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    expect_one_line_error(run_hetsim("run " + study.string() + " --set workload.seq_len=0 --out " +
                                     (dir.path() / "o").string()),
                          "--set workload.seq_len=0: model 'bert': knob 'seq_len' must be > 0, "
                          "got 0");
    expect_one_line_error(
        run_hetsim("run " + study.string() + " --set workload.batch=9223372036854775807 --out " +
                   (dir.path() / "o").string()),
        "knob 'batch' must be at most 4611686018427387904 (2^62), got 9223372036854775807");
}

// Times and sizes past what a task graph can hold overflowed into "negative dimension".
TEST(CliLimitsRound4, TaskGraphTimesAndSizesAreBounded) {
    TempDir dir;
    const fs::path graph = dir.write(
        "g.json",
        R"({"processors": 2, "tasks": [{"id": 0, "cost": [1, 1]}, {"id": 1, "cost": [1, 1]}],
                     "edges": [{"from": 0, "to": 1, "comm": 1e30}]})");
    expect_one_line_error(run_hetsim("place " + graph.string() + " --placer heft"),
                          "edges[0].comm: the comm of edge 0 -> 1 is 1e+30; expected a time in "
                          "seconds from 0 to 4.61e+06");
    const fs::path typo = dir.write(
        "t.json",
        R"({"processors": 2, "tasks": [{"id": 0, "cost": [1, 1]}, {"id": 1, "cost": [1, 1]}],
                     "edges": [{"from": 0, "to": 1, "coms": 3}]})");
    expect_one_line_error(run_hetsim("place " + typo.string() + " --placer heft"),
                          "edges[0].coms: unknown key 'coms'; keys: from, to, comm");
    const fs::path workflow =
        dir.write("w.json",
                  R"({"name": "w", "schemaVersion": "1.4", "workflow": {"specification": {
             "tasks": [{"name": "a", "id": "a", "parents": [], "children": ["b"], "inputFiles": [], "outputFiles": ["f1"]},
                       {"name": "b", "id": "b", "parents": ["a"], "children": [], "inputFiles": ["f1"], "outputFiles": []}],
             "files": [{"id": "f1", "sizeInBytes": 1e30}]},
            "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 2.5}, {"id": "b", "runtimeInSeconds": 1.0}]}}})");
    expect_one_line_error(
        run_hetsim("place " + workflow.string() + " --placer heft --processors 2"),
        "sizeInBytes is 1e+30; expected a file size in bytes from 0 to 2^53");
    expect_one_line_error(
        run_hetsim("place " + workflow.string() + " --placer heft --processors 0"),
        "--processors: Value 0 not in range 1 to 4096");
}

// Measurement rows that were read as something else.
TEST(CliLimitsRound4, MeasurementRowsThatMeanNothingAreRefused) {
    TempDir dir;
    const auto check = [&](const std::string& csv) {
        const fs::path file = dir.write("m.csv", csv);
        return run_hetsim("calibrate " + kZynq + " --check " + file.string() + " --out " +
                          (dir.path() / "o").string());
    };
    expect_one_line_error(
        check("device,workload,knobs,scope,time_s\nCPU_S,bert,seq_len=16;seq_len=32,compute,0.1\n"),
        "m.csv:2: knobs: knob 'seq_len' is given twice in 'seq_len=16;seq_len=32'");
    expect_one_line_error(
        check("device,workload,knobs,scope,time_s\nCPU_S,bert,seq_len=16,compute,0.1,x,y\n"),
        "m.csv:2: 7 cells, but the header names 5 columns");
    expect_one_line_error(check("device,workload,knobs,scope,time_s,reference_device,speedup\n"
                                "CPU_S,bert,seq_len=16,compute,0.002,CPU_P,3\n"),
                          "m.csv:2: time_s: a row gives a time_s, or a reference_device and a "
                          "speedup, not both");
    expect_one_line_error(check("device,workload,knobs,scope,reference_device,speedup\n"
                                "CPU_S,bert,seq_len=16,compute,CPU_S,3\n"),
                          "m.csv:2: reference_device: the reference is the row's own device and "
                          "workload");
    EXPECT_FALSE(fs::exists(dir.path() / "o"));
}

// A WfCommons workflow's references to nothing, a file listed twice, an unknown WfFormat.
TEST(CliLimitsRound4, WfCommonsReferencesAreChecked) {
    TempDir dir;
    const auto place = [&](const std::string& version, const std::string& tasks,
                           const std::string& files) {
        const fs::path w = dir.write(
            "w.json", R"({"name": "w", "schemaVersion": ")" + version +
                          R"(", "workflow": {"specification": {"tasks": [)" + tasks +
                          R"(], "files": [)" + files +
                          R"(]}, "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1},
                                                          {"id": "b", "runtimeInSeconds": 1}]}}})");
        return run_hetsim("place " + w.string() + " --placer heft --processors 2");
    };
    const std::string a =
        R"({"id": "a", "parents": [], "children": ["b"], "inputFiles": [], "outputFiles": ["f1"]})";
    const std::string b =
        R"({"id": "b", "parents": ["a"], "children": [], "inputFiles": ["f1"], "outputFiles": []})";
    const std::string f1 = R"({"id": "f1", "sizeInBytes": 1000})";
    EXPECT_EQ(place("1.5", a + "," + b, f1).exit_code, 0);
    expect_one_line_error(place("9.9", a + "," + b, f1),
                          "schemaVersion: WfFormat \"9.9\" is not one this reader knows");
    expect_one_line_error(place("1.5", a + "," + b, f1 + "," + R"({"id": "f1", "sizeInBytes": 5})"),
                          "workflow.specification.files[1]: file 'f1' is listed twice");
    const std::string b_reads_nothing =
        R"({"id": "b", "parents": ["a"], "children": [], "inputFiles": ["f9"], "outputFiles": []})";
    expect_one_line_error(place("1.5", a + "," + b_reads_nothing, f1),
                          "task 'b' names file 'f9', which is not in workflow.specification.files");
    const std::string a_orphan_child =
        R"({"id": "a", "parents": [], "children": ["zz"], "inputFiles": [], "outputFiles": ["f1"]})";
    expect_one_line_error(place("1.5", a_orphan_child + "," + b, f1),
                          "task 'a' names child \"zz\", which is not in the workflow");
}

// Compare keys that were silently deduplicated or ignored.
TEST(CliLimitsRound4, CompareKeysThatWouldBeIgnoredAreRefused) {
    TempDir dir;
    dir.write("s.yaml", small_study());
    const auto dry_run = [&](const std::string& body) {
        const fs::path file = dir.write("c.yaml", "compare: c\n" + body);
        return run_hetsim("compare " + file.string() + " --dry-run");
    };
    expect_one_line_error(dry_run("studies: [s.yaml]\nplacers: [random, random]\n"),
                          "c.yaml:3: placers.1: placer 'random' is listed twice");
    expect_one_line_error(dry_run("studies: [{study: s.yaml, placers: []}]\n"),
                          "an empty list would run only the baseline");
    expect_one_line_error(
        dry_run("studies: [{study: s.yaml, placers: [random], exclude: [random]}]\n"),
        "`exclude:` applies to `placers: all`");
    expect_one_line_error(
        dry_run("studies: [s.yaml]\nplacers: [random]\nargs: {mcmc: samples=5}\n"),
        "c.yaml:4: args: `args:` applies to the placers `placers: all` lists");
    EXPECT_EQ(dry_run("studies: [s.yaml]\nplacers: [random, etf]\n").exit_code, 0);
}

// A placement file whose op types contradict the graph is another graph's, names aside.
TEST(CliLimitsRound4, AReplayedPlacementOfAnotherGraphIsRefused) {
    TempDir dir;
    const fs::path study = dir.write("s.yaml", small_study());
    const auto first =
        run_hetsim("run " + study.string() + " --out " + (dir.path() / "a").string());
    ASSERT_EQ(first.exit_code, 0) << first.output;
    const fs::path placement = dir.path() / "a" / "placement_priority_PIM_CPU_P_CPU_S.json";
    ASSERT_TRUE(fs::exists(placement)) << first.output;
    nlohmann::json doc = nlohmann::json::parse(read_file(placement));
    const std::string op = doc["ops"][0]["op"].get<std::string>();
    const std::string type = doc["ops"][0]["type"].get<std::string>();
    doc["ops"][0]["type"] = "Conv";
    const fs::path edited = dir.write("p.json", doc.dump());
    expect_one_line_error(
        run_hetsim("run " + study.string() + " --set \"placers=['replay:" + edited.string() +
                   "']\" --out " + (dir.path() / "b").string()),
        "ops[0].type: op '" + op + "' is a " + type + " in this graph, but the file says Conv");
}

}  // namespace
