#include "sim/config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace hetsim::sim {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Runs `action`, which must throw InputError, and returns the error.
InputError expect_input_error(const std::function<void()>& action) {
    try {
        action();
    } catch (const InputError& error) {
        return error;
    }
    ADD_FAILURE() << "no InputError thrown";
    return InputError("", "", 0, "<no error>");
}

// Line numbers below refer to this text (line 1 is "platform:").
constexpr const char* kPlatformYaml = R"(platform:
  name: demo
  cpu:
    clock: 1.5 GHz
    cores: 8
    bandwith: 12 GB/s
    smt: yes
    fraction: 0.25
  memory:
    capacity: 16 GiB
    latency: -3 ns
  placers:
    - name: greedy
      budget: 2 us
    - name: ilp
  tags: [fast, small]
  single_tag: fast
  empty:
)";

ConfigNode platform_config() {
    return ConfigNode::from_string(kPlatformYaml, "demo.yaml");
}

TEST(InputError, FormatsFileLinePathAndMessage) {
    EXPECT_STREQ(InputError("a.yaml", "platform.cpu", 7, "bad").what(),
                 "a.yaml:7: platform.cpu: bad");
    EXPECT_STREQ(InputError("a.yaml", "platform.cpu", 0, "bad").what(),
                 "a.yaml: platform.cpu: bad");
    EXPECT_STREQ(InputError("a.yaml", "", 3, "bad").what(), "a.yaml:3: bad");
    EXPECT_STREQ(InputError("a.yaml", "", 0, "bad").what(), "a.yaml: bad");
    const InputError error("f.yaml", "x.y", 4, "message");
    EXPECT_EQ(error.file(), "f.yaml");
    EXPECT_EQ(error.yaml_path(), "x.y");
    EXPECT_EQ(error.line(), 4);
    EXPECT_EQ(error.message(), "message");
}

TEST(DidYouMean, SuggestsTheClosestCandidateWithinTheLimit) {
    const std::vector<std::string> keys{"bandwidth", "latency", "capacity"};
    EXPECT_EQ(did_you_mean("bandwith", keys), "bandwidth");
    EXPECT_EQ(did_you_mean("latncy", keys), "latency");
    EXPECT_EQ(did_you_mean("capacty", keys), "capacity");
    EXPECT_EQ(did_you_mean("colour", keys), "");
    EXPECT_EQ(did_you_mean("bandwidth", {}), "");
    // Short words still allow two edits: "bw" -> "bwx" is one insertion.
    EXPECT_EQ(did_you_mean("bw", {"bwx", "latency"}), "bwx");
    // Longer words allow len/3 edits: "intrconect" (10 letters) allows 3, here 2 are needed.
    EXPECT_EQ(did_you_mean("intrconect", {"interconnect"}), "interconnect");
    EXPECT_EQ(did_you_mean("abcdef", {"uvwxyz"}), "");
}

TEST(ConfigNode, PathsAndLines) {
    const ConfigNode root = platform_config();
    EXPECT_EQ(root.path(), "");
    EXPECT_EQ(root.file(), "demo.yaml");
    const ConfigNode clock = root["platform"]["cpu"]["clock"];
    EXPECT_EQ(clock.path(), "platform.cpu.clock");
    EXPECT_EQ(clock.line(), 4);
    EXPECT_EQ(root.at("platform").at("memory").at("capacity").line(), 10);
    const ConfigNode second_placer = root["platform"]["placers"].at(1);
    EXPECT_EQ(second_placer.path(), "platform.placers.1");
    EXPECT_EQ(second_placer.line(), 15);
    EXPECT_EQ(second_placer["name"].path(), "platform.placers.1.name");
}

TEST(ConfigNode, MissingKeyIsUndefinedWithTheParentsLine) {
    const ConfigNode cpu = platform_config()["platform"]["cpu"];
    const ConfigNode missing = cpu["threads"];
    EXPECT_FALSE(missing.defined());
    EXPECT_EQ(missing.path(), "platform.cpu.threads");
    EXPECT_EQ(missing.line(), cpu.line());
    EXPECT_EQ(cpu.line(), 4);
    // Chained lookups under a missing key stay undefined instead of throwing.
    EXPECT_FALSE(cpu["a"]["b"]["c"].defined());
    EXPECT_FALSE(cpu.has("threads"));
    EXPECT_TRUE(cpu.has("clock"));

    const InputError error = expect_input_error([&] { cpu.at("threads"); });
    EXPECT_STREQ(error.what(), "demo.yaml:4: platform.cpu: missing key 'threads'");
    const InputError via_value = expect_input_error([&] { missing.as_int(); });
    EXPECT_STREQ(via_value.what(), "demo.yaml:4: platform.cpu: missing key 'threads'");
}

TEST(ConfigNode, AssignmentRebindsTheHandleAndLeavesTheTreeAlone) {
    const ConfigNode root = ConfigNode::from_string("a: 1\nb: 2\n", "t.yaml");
    ConfigNode node = root["a"];
    node = root["b"];
    EXPECT_EQ(node.as_int(), 2);
    EXPECT_EQ(node.path(), "b");
    EXPECT_EQ(node.line(), 2);
    EXPECT_EQ(root["a"].as_int(), 1);
    node = ConfigNode(root.raw()["a"], "t.yaml", "a");
    EXPECT_EQ(root["b"].as_int(), 2);
    EXPECT_EQ(YAML::Dump(root.raw()), "a: 1\nb: 2");
}

TEST(ConfigNode, KeysInFileOrderAndKinds) {
    const ConfigNode platform = platform_config()["platform"];
    EXPECT_THAT(platform.keys(),
                ElementsAre("name", "cpu", "memory", "placers", "tags", "single_tag", "empty"));
    EXPECT_TRUE(platform.is_map());
    EXPECT_TRUE(platform["placers"].is_sequence());
    EXPECT_EQ(platform["placers"].size(), 2u);
    EXPECT_TRUE(platform["name"].is_scalar());
    EXPECT_FALSE(platform["empty"].defined());
}

TEST(ConfigNode, ExpectKeysRejectsUnknownKeyWithSuggestion) {
    const ConfigNode cpu = platform_config()["platform"]["cpu"];
    const InputError error = expect_input_error([&] {
        cpu.expect_keys({"clock", "cores", "bandwidth", "smt", "fraction"});
    });
    EXPECT_STREQ(error.what(),
                 "demo.yaml:6: platform.cpu: unknown key 'bandwith' (did you mean 'bandwidth'?); "
                 "expected one of: clock, cores, bandwidth, smt, fraction");
    EXPECT_EQ(error.line(), 6);

    const InputError no_suggestion = expect_input_error([&] {
        cpu.expect_keys({"clock", "cores", "smt", "fraction"});
    });
    EXPECT_EQ(no_suggestion.message(),
              "unknown key 'bandwith'; expected one of: clock, cores, smt, fraction");

    EXPECT_NO_THROW(cpu.expect_keys({"clock", "cores", "bandwith", "smt", "fraction"}));
    // An absent section has no keys to reject.
    EXPECT_NO_THROW(cpu["absent"].expect_keys({}));
}

TEST(ConfigNode, ExpectKeysRejectsDuplicates) {
    const ConfigNode root = ConfigNode::from_string("a: 1\nb: 2\na: 3\n", "dup.yaml");
    const InputError error = expect_input_error([&] { root.expect_keys({"a", "b"}); });
    EXPECT_STREQ(error.what(), "dup.yaml:3: duplicate key 'a'");
}

TEST(ConfigNode, ExpectMapAndSequence) {
    const ConfigNode platform = platform_config()["platform"];
    EXPECT_NO_THROW(platform.expect_map());
    EXPECT_NO_THROW(platform["placers"].expect_sequence());
    EXPECT_STREQ(expect_input_error([&] { platform["name"].expect_map(); }).what(),
                 "demo.yaml:2: platform.name: expected a map, got 'demo'");
    EXPECT_STREQ(expect_input_error([&] { platform["cpu"].expect_sequence(); }).what(),
                 "demo.yaml:4: platform.cpu: expected a sequence, got a map");
    EXPECT_STREQ(expect_input_error([&] { platform["gpu"].expect_map(); }).what(),
                 "demo.yaml:2: platform: missing key 'gpu'");
    EXPECT_STREQ(expect_input_error([&] { platform["placers"].at(5); }).what(),
                 "demo.yaml:13: platform.placers: index 5 is out of range: the sequence has 2 "
                 "element(s)");
    EXPECT_STREQ(expect_input_error([&] { platform["name"]["x"]; }).what(),
                 "demo.yaml:2: platform.name: expected a map with key 'x', got 'demo'");
}

TEST(ConfigNode, ScalarConversions) {
    const ConfigNode cpu = platform_config()["platform"]["cpu"];
    EXPECT_EQ(cpu["cores"].as_int(), 8);
    EXPECT_EQ(cpu["cores"].as_double(), 8.0);
    EXPECT_EQ(cpu["fraction"].as_double(), 0.25);
    EXPECT_TRUE(cpu["smt"].as_bool());
    EXPECT_EQ(cpu["clock"].as_string(), "1.5 GHz");
    EXPECT_EQ(cpu["clock"].as_quantity(Quantity::frequency), 1.5e9);

    const ConfigNode values = ConfigNode::from_string(
        "n: -42\nbig: 99999999999999999999\nyes: True\nno: off\nplus: +7\nexp: 1e3\n", "v.yaml");
    EXPECT_EQ(values["n"].as_int(), -42);
    EXPECT_EQ(values["plus"].as_int(), 7);
    EXPECT_EQ(values["exp"].as_double(), 1000.0);
    EXPECT_TRUE(values["yes"].as_bool());
    EXPECT_FALSE(values["no"].as_bool());
    EXPECT_THAT(expect_input_error([&] { values["big"].as_int(); }).message(),
                HasSubstr("integer out of range"));
}

TEST(ConfigNode, ScalarConversionErrorsNameTheValue) {
    const ConfigNode root = ConfigNode::from_string(
        "count: abc\nratio: 1.5x\nflag: maybe\nfrac: 2.5\nlist: [1, 2]\ninf: .inf\n", "s.yaml");
    EXPECT_STREQ(expect_input_error([&] { root["count"].as_int(); }).what(),
                 "s.yaml:1: count: expected an integer, got 'abc'");
    EXPECT_STREQ(expect_input_error([&] { root["frac"].as_int(); }).what(),
                 "s.yaml:4: frac: expected an integer, got '2.5'");
    EXPECT_STREQ(expect_input_error([&] { root["ratio"].as_double(); }).what(),
                 "s.yaml:2: ratio: expected a finite number, got '1.5x'");
    EXPECT_STREQ(expect_input_error([&] { root["inf"].as_double(); }).what(),
                 "s.yaml:6: inf: expected a finite number, got '.inf'");
    EXPECT_STREQ(expect_input_error([&] { root["flag"].as_bool(); }).what(),
                 "s.yaml:3: flag: expected a boolean (true or false), got 'maybe'");
    EXPECT_STREQ(expect_input_error([&] { root["list"].as_string(); }).what(),
                 "s.yaml:5: list: expected a string, got a sequence");
}

TEST(ConfigNode, QuantityErrorsBecomeInputErrorsAtTheNode) {
    const ConfigNode root = ConfigNode::from_string(
        "link:\n  bandwidth: 12\n  latency: 5 us\n  capacity: 0 MiB\n  width: -3 GB/s\n", "q.yaml");
    const ConfigNode link = root["link"];
    EXPECT_STREQ(
        expect_input_error([&] { link["bandwidth"].as_quantity(Quantity::bandwidth); }).what(),
        "q.yaml:2: link.bandwidth: expected a bandwidth with a unit such as '12 GB/s', "
        "got '12'");
    const InputError wrong_kind =
        expect_input_error([&] { link["latency"].as_quantity(Quantity::bandwidth); });
    EXPECT_EQ(wrong_kind.line(), 3);
    EXPECT_EQ(wrong_kind.yaml_path(), "link.latency");
    EXPECT_THAT(wrong_kind.message(), HasSubstr("'5 us' is a time, but a bandwidth is expected"));
    EXPECT_STREQ(expect_input_error([&] { link.as_quantity(Quantity::time); }).what(),
                 "q.yaml:2: link: expected a time, got a map");
}

TEST(ConfigNode, RequirePositiveQuantity) {
    const ConfigNode root = ConfigNode::from_string(
        "link:\n  bandwidth: 12 GB/s\n  capacity: 0 MiB\n  width: -3 GB/s\n", "p.yaml");
    const ConfigNode link = root["link"];
    EXPECT_EQ(link.require_positive_quantity("bandwidth", Quantity::bandwidth), 12e9);
    EXPECT_STREQ(expect_input_error([&] {
                     link.require_positive_quantity("width", Quantity::bandwidth);
                 }).what(),
                 "p.yaml:4: link.width: must be > 0, got '-3 GB/s'");
    EXPECT_STREQ(expect_input_error([&] {
                     link.require_positive_quantity("capacity", Quantity::data_size);
                 }).what(),
                 "p.yaml:3: link.capacity: must be > 0, got '0 MiB'");
    EXPECT_STREQ(expect_input_error([&] {
                     link.require_positive_quantity("latency", Quantity::time);
                 }).what(),
                 "p.yaml:2: link: missing key 'latency'");
}

TEST(ConfigNode, OptionalGettersFallBackOnlyWhenAbsent) {
    const ConfigNode platform = platform_config()["platform"];
    const ConfigNode cpu = platform["cpu"];
    EXPECT_EQ(cpu.get_int("cores", 1), 8);
    EXPECT_EQ(cpu.get_int("threads", 1), 1);
    EXPECT_EQ(cpu.get_double("fraction", 1.0), 0.25);
    EXPECT_EQ(cpu.get_double("share", 0.5), 0.5);
    EXPECT_TRUE(cpu.get_bool("smt", false));
    EXPECT_FALSE(cpu.get_bool("turbo", false));
    EXPECT_EQ(platform.get_string("name", "x"), "demo");
    EXPECT_EQ(platform.get_string("vendor", "acme"), "acme");
    // "empty:" has no value, which counts as absent.
    EXPECT_EQ(platform.get_string("empty", "fallback"), "fallback");
    EXPECT_EQ(cpu.get_quantity("clock", Quantity::frequency, 1.0), 1.5e9);
    EXPECT_EQ(cpu.get_quantity("boost", Quantity::frequency, 2e9), 2e9);
    // A present but malformed value is an error, not a silent fallback.
    EXPECT_STREQ(expect_input_error([&] { platform.get_int("name", 3); }).what(),
                 "demo.yaml:2: platform.name: expected an integer, got 'demo'");
    // A negative value is legal for get_quantity; positivity is the caller's choice.
    EXPECT_EQ(platform["memory"].get_quantity("latency", Quantity::time, 0.0), -3e-9);
}

TEST(ConfigNode, StringLists) {
    const ConfigNode platform = platform_config()["platform"];
    EXPECT_THAT(platform["tags"].as_string_list(), ElementsAre("fast", "small"));
    EXPECT_THAT(platform["single_tag"].as_string_list(), ElementsAre("fast"));
    EXPECT_STREQ(expect_input_error([&] { platform["cpu"].as_string_list(); }).what(),
                 "demo.yaml:4: platform.cpu: expected a list of strings, got a map");
    EXPECT_STREQ(expect_input_error([&] { platform["placers"].as_string_list(); }).what(),
                 "demo.yaml:13: platform.placers.0: expected a string, got a map");
}

TEST(ConfigNode, FailUsesTheNodesPosition) {
    const ConfigNode budget = platform_config()["platform"]["placers"].at(0)["budget"];
    EXPECT_STREQ(expect_input_error([&] { budget.fail("too small"); }).what(),
                 "demo.yaml:14: platform.placers.0.budget: too small");
}

TEST(ConfigNode, SyntaxErrorReportsTheLine) {
    const InputError error = expect_input_error(
        [] { ConfigNode::from_string("a: 1\nb: [1, 2\nc: 3\n", "broken.yaml"); });
    EXPECT_EQ(error.file(), "broken.yaml");
    EXPECT_EQ(error.yaml_path(), "");
    EXPECT_EQ(error.line(), 3);  // where yaml-cpp notices the flow sequence never closed
    EXPECT_THAT(error.message(), HasSubstr("invalid YAML"));
    EXPECT_THAT(error.what(), HasSubstr("broken.yaml:"));

    const InputError indent_error =
        expect_input_error([] { ConfigNode::from_string("a:\n  b: 1\n c: 2\n", "indent.yaml"); });
    EXPECT_EQ(indent_error.line(), 3);
}

TEST(ConfigNode, MoreThanOneDocumentIsRejected) {
    const InputError error =
        expect_input_error([] { ConfigNode::from_string("a: 1\n---\nb: 2\n", "two.yaml"); });
    EXPECT_EQ(error.message(), "expected one YAML document, found 2");
    EXPECT_EQ(error.line(), 3);
}

// Tags were ignored: `study: !!binary aGVsbG8=` ran a study named "aGVsbG8=", `!!str 8` was 8.
TEST(ConfigNode, YamlTagsAreRefusedWithTheirLine) {
    const auto refusal = [](const std::string& text) {
        return expect_input_error([&] { ConfigNode::from_string(text, "t.yaml"); });
    };
    InputError error = refusal("a: 1\nstudy: !!binary aGVsbG8=\n");
    EXPECT_EQ(error.line(), 2);
    EXPECT_EQ(error.message(),
              "YAML tags such as '!!binary' are not accepted: write the value without a tag; "
              "each key's type is fixed");
    EXPECT_THAT(refusal("seq_len: !!str 8\n").message(), HasSubstr("'!!str'"));
    EXPECT_THAT(refusal("model: !python/object:os.system bert\n").message(),
                HasSubstr("'!python/object:os.system'"));
    EXPECT_THAT(refusal("a: !!map {b: 1}\n").message(), HasSubstr("'!!map'"));
    EXPECT_THAT(refusal("a: !custom [1]\n").message(), HasSubstr("'!custom'"));
    // Quoted and plain scalars carry no tag of their own.
    EXPECT_EQ(
        ConfigNode::from_string("a: '!!str'\nb: \"x\"\nc: plain\n", "t.yaml").at("a").as_string(),
        "!!str");
}

// yaml-cpp has no merge keys: `<<: *g` became a key named "<<" and the keys it should have
// brought in were reported missing. Refused at its line, in a file and in a --set value, where
// tags are refused too (YAML::Load took them).
TEST(ConfigNode, MergeKeysAndTagsInSetValuesAreRefused) {
    const InputError merge = expect_input_error([] {
        ConfigNode::from_string("g: &g {type: gpu}\ngpu1: {<<: *g, device: GPU1}\n", "p.yaml");
    });
    EXPECT_EQ(merge.line(), 2);
    EXPECT_EQ(merge.message(), "YAML merge keys ('<<') are not supported: write the keys out");
    EXPECT_EQ(ConfigNode::from_string("a: '<<'\n", "t.yaml").at("a").as_string(), "<<");
    YAML::Node root = YAML::Load("samples: 1");
    const InputError tag = expect_input_error([&] { apply_override(root, "samples=!!int 2"); });
    EXPECT_EQ(tag.file(), "--set");
    EXPECT_THAT(tag.message(), HasSubstr("invalid YAML value '!!int 2': YAML tags such as "
                                         "'!!int' are not accepted"));
    const InputError set_merge =
        expect_input_error([&] { apply_override(root, "workload={<<: {a: 1}, b: 2}"); });
    EXPECT_THAT(set_merge.message(), HasSubstr("merge keys ('<<') are not supported"));
}

// A UTF-16 byte-order mark made yaml-cpp decode the file as UTF-16, and the error echoed the
// resulting text; a UTF-8 one is harmless.
TEST(ConfigNode, Utf16FilesAreRefusedAndAUtf8MarkIsRead) {
    const InputError error = expect_input_error(
        [] { ConfigNode::from_string(std::string("\xFF\xFEs\0t\0", 6), "u.yaml"); });
    EXPECT_EQ(error.message(),
              "the file starts with a UTF-16 or UTF-32 byte-order mark; save it as UTF-8");
    EXPECT_EQ(ConfigNode::from_string("\xEF\xBB\xBF"
                                      "a: 1\n",
                                      "u8.yaml")
                  .at("a")
                  .as_int(),
              1);
}

// yaml-cpp's depth guard said only "bad file".
TEST(ConfigNode, NestingTooDeepSaysSo) {
    const std::string deep = "a: " + std::string(3000, '[') + std::string(3000, ']') + "\n";
    const InputError error = expect_input_error([&] { ConfigNode::from_string(deep, "d.yaml"); });
    EXPECT_EQ(error.message(),
              "invalid YAML: nested too deep (the YAML parser stops at a few "
              "hundred levels of lists or maps)");
    EXPECT_EQ(error.line(), 1);
}

// yaml-cpp 0.7's LoadAll returns the same empty document forever on a stray ',' and allocates
// until the process is killed (found by tests/fuzz; jbeder/yaml-cpp#1040): now a syntax error on
// the comma's line.
TEST(ConfigNode, StrayCommaIsASyntaxErrorNotALoop) {
    const InputError error = expect_input_error(
        [] { ConfigNode::from_string("# comment\n, so\nsweep: x\n", "comma.yaml"); });
    EXPECT_EQ(error.line(), 2);
    EXPECT_EQ(error.message(), "invalid YAML: cannot parse past column 1");
    EXPECT_EQ(expect_input_error([] { ConfigNode::from_string(",", "c.yaml"); }).line(), 1);
}

TEST(ConfigNode, EmptyDocumentIsNotAMap) {
    const ConfigNode root = ConfigNode::from_string("", "empty.yaml");
    EXPECT_FALSE(root.defined());
    EXPECT_STREQ(expect_input_error([&] { root.expect_map(); }).what(),
                 "empty.yaml: expected a map, got nothing");
}

class TempFile {
public:
    explicit TempFile(const std::string& text)
        : path_(std::filesystem::temp_directory_path() /
                ("hetsim_config_test_" + std::to_string(::getpid()) + ".yaml")) {
        std::ofstream(path_) << text;
    }
    ~TempFile() { std::filesystem::remove(path_); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

TEST(ConfigNode, LoadFileReadsAndLabelsWithThePath) {
    const TempFile file("device:\n  clock: 2 GHz\n");
    const ConfigNode root = ConfigNode::load_file(file.path());
    EXPECT_EQ(root.file(), file.path().string());
    EXPECT_EQ(root["device"]["clock"].as_quantity(Quantity::frequency), 2e9);
    EXPECT_EQ(root["device"]["clock"].line(), 2);
}

TEST(ConfigNode, LoadFileReportsUnreadableFiles) {
    const InputError missing =
        expect_input_error([] { ConfigNode::load_file("/nonexistent/hetsim/x.yaml"); });
    EXPECT_STREQ(missing.what(),
                 "/nonexistent/hetsim/x.yaml: cannot read file: No such file or "
                 "directory");
    EXPECT_EQ(missing.line(), 0);

    const std::string directory = std::filesystem::temp_directory_path().string();
    const InputError is_directory = expect_input_error([&] { ConfigNode::load_file(directory); });
    EXPECT_EQ(is_directory.message(), "is a directory, expected a YAML file");
    // A FIFO would block the read forever: refused before it is opened.
    const std::filesystem::path fifo =
        std::filesystem::temp_directory_path() / ("hetsim_fifo_" + std::to_string(::getpid()));
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const InputError is_fifo = expect_input_error([&] { ConfigNode::load_file(fifo); });
    std::filesystem::remove(fifo);
    EXPECT_THAT(is_fifo.message(), HasSubstr("FIFO"));
    EXPECT_THAT(is_fifo.message(), HasSubstr("expected a YAML file"));

    const TempFile broken("a: [1, 2\n");
    const InputError syntax = expect_input_error([&] { ConfigNode::load_file(broken.path()); });
    EXPECT_EQ(syntax.file(), broken.path().string());
    EXPECT_THAT(syntax.message(), HasSubstr("invalid YAML"));
    EXPECT_GE(syntax.line(), 1);
}

TEST(ApplyOverride, SetsANestedScalarWithoutDisturbingSiblings) {
    YAML::Node root = YAML::Load("x: 1\nplatform:\n  cpu:\n    cores: 8\n    clock: 1 GHz\n");
    apply_override(root, "platform.cpu.cores=32");
    EXPECT_TRUE(root["platform"]["cpu"]["cores"].IsScalar());
    EXPECT_EQ(root["platform"]["cpu"]["cores"].as<int>(), 32);
    EXPECT_EQ(root["platform"]["cpu"]["clock"].as<std::string>(), "1 GHz");
    EXPECT_EQ(root["x"].as<int>(), 1);
    EXPECT_EQ(YAML::Dump(root), "x: 1\nplatform:\n  cpu:\n    cores: 32\n    clock: 1 GHz");
}

TEST(ApplyOverride, CreatesIntermediateMaps) {
    YAML::Node root = YAML::Load("a: {b: 1}\n");
    apply_override(root, "a.c.d=hello world");
    apply_override(root, "e.f=2 GB/s");
    EXPECT_EQ(root["a"]["b"].as<int>(), 1);
    EXPECT_EQ(root["a"]["c"]["d"].as<std::string>(), "hello world");
    EXPECT_EQ(root["e"]["f"].as<std::string>(), "2 GB/s");

    YAML::Node empty;
    apply_override(empty, "k=v");
    EXPECT_EQ(YAML::Dump(empty), "k: v");
}

TEST(ApplyOverride, ValueIsParsedAsYaml) {
    YAML::Node root = YAML::Load("tags: [a]\nmodel: {}\n");
    apply_override(root, "tags=[x, y, z]");
    ASSERT_TRUE(root["tags"].IsSequence());
    EXPECT_EQ(root["tags"].size(), 3u);
    EXPECT_EQ(root["tags"][2].as<std::string>(), "z");
    apply_override(root, " model = {layers: 4, name: bert} ");
    EXPECT_EQ(root["model"]["layers"].as<int>(), 4);
    EXPECT_EQ(root["model"]["name"].as<std::string>(), "bert");
    // Overrides go through ConfigNode like file values, so units stay explicit.
    apply_override(root, "bw=12 GB/s");
    EXPECT_EQ(ConfigNode(root, "x", "")["bw"].as_quantity(Quantity::bandwidth), 12e9);
}

TEST(ApplyOverride, NumericPartsIndexSequences) {
    YAML::Node root = YAML::Load("placers:\n  - name: greedy\n  - name: ilp\n    budget: 1 s\n");
    apply_override(root, "placers.1.budget=5 s");
    apply_override(root, "placers.0.name=random");
    EXPECT_EQ(root["placers"][0]["name"].as<std::string>(), "random");
    EXPECT_EQ(root["placers"][1]["name"].as<std::string>(), "ilp");
    EXPECT_EQ(root["placers"][1]["budget"].as<std::string>(), "5 s");
    ASSERT_TRUE(root["placers"].IsSequence());
    EXPECT_EQ(root["placers"].size(), 2u);

    apply_override(root, "placers.1=replaced");
    EXPECT_EQ(root["placers"][1].as<std::string>(), "replaced");
    // One past the end appends.
    apply_override(root, "placers.2.name=new");
    ASSERT_EQ(root["placers"].size(), 3u);
    EXPECT_EQ(root["placers"][2]["name"].as<std::string>(), "new");
    // In a map, a numeric part is an ordinary key.
    apply_override(root, "ports.0=eth");
    EXPECT_TRUE(root["ports"].IsMap());
    EXPECT_EQ(root["ports"]["0"].as<std::string>(), "eth");
}

TEST(ApplyOverride, Errors) {
    YAML::Node root = YAML::Load("a:\n  b: scalar\nlist: [1, 2]\n");
    const InputError no_equals = expect_input_error([&] { apply_override(root, "a.b"); });
    EXPECT_STREQ(no_equals.what(), "--set: a.b: expected PATH=VALUE");
    EXPECT_EQ(no_equals.file(), "--set");
    EXPECT_EQ(no_equals.yaml_path(), "a.b");
    EXPECT_EQ(no_equals.line(), 0);

    EXPECT_STREQ(expect_input_error([&] { apply_override(root, "a.b.c=1"); }).what(),
                 "--set: a.b.c: cannot set a key inside 'a.b': it is 'scalar'");
    EXPECT_STREQ(expect_input_error([&] { apply_override(root, "list.x=1"); }).what(),
                 "--set: list.x: 'list' is a sequence, so 'x' must be an index");
    EXPECT_STREQ(expect_input_error([&] { apply_override(root, "list.5=1"); }).what(),
                 "--set: list.5: index 5 is out of range: 'list' has 2 element(s)");
    EXPECT_THAT(expect_input_error([&] { apply_override(root, "a..b=1"); }).message(),
                HasSubstr("expected PATH=VALUE"));
    EXPECT_THAT(expect_input_error([&] { apply_override(root, "=1"); }).message(),
                HasSubstr("expected PATH=VALUE"));
    EXPECT_THAT(expect_input_error([&] { apply_override(root, "a.c=[1, 2"); }).message(),
                AllOf(HasSubstr("invalid YAML value"), HasSubstr("[1, 2")));
    // Only the first '=' splits; the rest belongs to the value.
    YAML::Node other;
    apply_override(other, "a.b=c=d");
    EXPECT_EQ(other["a"]["b"].as<std::string>(), "c=d");
    // Failed overrides leave the tree as it was.
    EXPECT_EQ(YAML::Dump(root), "a:\n  b: scalar\nlist: [1, 2]");
}

TEST(ApplyOverride, ValuesWriteThroughAliasesAndNullRemovesOneEntry) {
    YAML::Node root = YAML::Load(
        "bw: &b 25\nlinks: {r0: {bw: *b}, r1: {bw: *b}}\nchips: {c0: &c {m: 1}, c1: *c, c2: *c}");
    apply_override(root, "bw=50");  // the anchored scalar: every alias sees it
    EXPECT_EQ(root["links"]["r1"]["bw"].as<int>(), 50);
    apply_override(root, "chips.c1=~");  // one alias removed, the others untouched
    EXPECT_TRUE(root["chips"]["c1"].IsNull());
    EXPECT_EQ(root["chips"]["c0"]["m"].as<int>(), 1);
    EXPECT_EQ(root["chips"]["c2"]["m"].as<int>(), 1);
    apply_override(root, "chips.c0.m=2");  // inside the shared map: c2 (an alias) follows
    EXPECT_EQ(root["chips"]["c2"]["m"].as<int>(), 2);
    EXPECT_TRUE(root["chips"]["c1"].IsNull());
}

}  // namespace
}  // namespace hetsim::sim
