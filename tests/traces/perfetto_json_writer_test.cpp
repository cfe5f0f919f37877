// The perfetto_json writer, checked by parsing its output back: names resolve through the
// metadata events, times are exact, flows bind producer end to consumer start, and invalid
// traces are refused before anything is written.
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/config.hpp"
#include "sim/trace.hpp"
#include "traces/perfetto_json_writer.hpp"
#include "traces/trace_writer.hpp"

namespace hetsim::traces {
namespace {

using nlohmann::json;

// 2 processes, 3 threads, 5 slices, 2 flows, one counter with two samples. The times are
// chosen so that most convert to short decimals in microseconds (checked literally below),
// plus one that does not, to check the conversion is the plain s * 1e6 with nothing lost.
sim::Trace sample_trace() {
    sim::Trace trace;
    trace.title = "unit-test study / greedy";
    const int core0 = trace.track("CPU", "core0");
    const int pim0 = trace.track("PIM", "pim0");
    const int core1 = trace.track("CPU", "core1");
    trace.slices = {
        {core0, "matmul", "compute", 0.0, 1.5e-6, {{"op", "MatMul"}, {"shape", "64x64"}}},
        {pim0, "gemv", "compute", 1.5e-6, 2.5e-6, {{"op", "Gemv"}, {"bytes", "8192"}}},
        {core0, "relu", "compute", 1.5e-6, 0.5e-6, {}},  // touches matmul: allowed
        {core1, "softmax", "compute", 4.5e-6, 1.2345678901234e-3, {{"sample", "3"}}},
        {pim0, "add", "convert", 4.5e-6, 1e-6, {}},
    };
    trace.flows = {{0, 1}, {1, 3}};
    trace.counters = {{pim0, "utilisation", 0.0, 0.5}, {pim0, "utilisation", 4.5e-6, 1.0}};
    return trace;
}

std::string write_to_string(const sim::Trace& trace) {
    std::ostringstream out;
    PerfettoJsonWriter{}.write(trace, out);
    return out.str();
}

const json& find_slice_event(const json& events, const std::string& name) {
    for (const json& event : events) {
        if (event["ph"] == "X" && event["name"] == name) {
            return event;
        }
    }
    throw std::runtime_error("no X event named " + name);
}

std::size_t index_of(const json& events, const json& wanted) {
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (events[i] == wanted) {
            return i;
        }
    }
    throw std::runtime_error("event not found");
}

// A directory of its own per test and process: ctest runs test cases in parallel processes.
class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ =
            std::filesystem::temp_directory_path() /
            ("hetsim_trace_test_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

TEST(TraceTrack, ReturnsStableIndicesInFirstUseOrder) {
    sim::Trace trace;
    EXPECT_EQ(trace.track("PIM", "pim0"), 0);
    EXPECT_EQ(trace.track("CPU", "core0"), 1);
    EXPECT_EQ(trace.track("PIM", "pim0"), 0);
    EXPECT_EQ(trace.track("PIM", "pim1"), 2);
    EXPECT_EQ(trace.track("CPU", "pim0"), 3);  // same thread name, other process: new track
    ASSERT_EQ(trace.tracks.size(), 4u);
    EXPECT_EQ(trace.tracks[2].process, "PIM");
    EXPECT_EQ(trace.tracks[2].thread, "pim1");
}

TEST(PerfettoJsonWriter, TopLevelObjectAndMetadataFirst) {
    const json doc = json::parse(write_to_string(sample_trace()));
    EXPECT_EQ(doc["displayTimeUnit"], "ns");
    EXPECT_EQ(doc["otherData"]["title"], "unit-test study / greedy");
    const json& events = doc["traceEvents"];
    ASSERT_TRUE(events.is_array());
    // 2 processes x 2 + 3 threads x 2 metadata, 5 slices, 2 x 2 flow events, 2 counters.
    ASSERT_EQ(events.size(), 4u + 6u + 5u + 4u + 2u);
    bool seen_timed = false;
    for (const json& event : events) {
        if (event["ph"] == "M") {
            EXPECT_FALSE(seen_timed) << "metadata after a timed event: " << event.dump();
        } else {
            seen_timed = true;
        }
    }
}

TEST(PerfettoJsonWriter, ProcessesAndThreadsNumberedInFirstUseOrder) {
    const json events = json::parse(write_to_string(sample_trace()))["traceEvents"];
    std::map<int, std::string> process_name;
    std::map<int, int> process_sort;
    std::map<std::pair<int, int>, std::string> thread_name;
    std::map<std::pair<int, int>, int> thread_sort;
    for (const json& event : events) {
        if (event["ph"] != "M") {
            continue;
        }
        const int pid = event["pid"];
        const int tid = event["tid"];
        if (event["name"] == "process_name") {
            EXPECT_TRUE(process_name.emplace(pid, event["args"]["name"]).second);
        } else if (event["name"] == "process_sort_index") {
            process_sort[pid] = event["args"]["sort_index"];
        } else if (event["name"] == "thread_name") {
            EXPECT_TRUE(thread_name.emplace(std::pair{pid, tid}, event["args"]["name"]).second);
        } else if (event["name"] == "thread_sort_index") {
            thread_sort[{pid, tid}] = event["args"]["sort_index"];
        } else {
            ADD_FAILURE() << "unexpected metadata " << event.dump();
        }
    }
    EXPECT_EQ(process_name, (std::map<int, std::string>{{1, "CPU"}, {2, "PIM"}}));
    EXPECT_EQ(process_sort, (std::map<int, int>{{1, 1}, {2, 2}}));
    // tids are unique across the trace, in first-use order of the tracks.
    EXPECT_EQ(thread_name, (std::map<std::pair<int, int>, std::string>{
                               {{1, 1}, "core0"}, {{2, 2}, "pim0"}, {{1, 3}, "core1"}}));
    EXPECT_EQ(thread_sort,
              (std::map<std::pair<int, int>, int>{{{1, 1}, 1}, {{2, 2}, 1}, {{1, 3}, 2}}));

    // Every slice lands on the thread of its own track.
    const sim::Trace trace = sample_trace();
    for (const sim::TraceSlice& slice : trace.slices) {
        const json& event = find_slice_event(events, slice.name);
        const int pid = event["pid"];
        const int tid = event["tid"];
        const sim::TraceTrack& track = trace.tracks[static_cast<std::size_t>(slice.track)];
        EXPECT_EQ(process_name[pid], track.process) << slice.name;
        EXPECT_EQ(thread_name[std::pair(pid, tid)], track.thread) << slice.name;
    }
}

TEST(PerfettoJsonWriter, SlicesCarryExactMicrosecondsAndArgs) {
    const sim::Trace trace = sample_trace();
    const json events = json::parse(write_to_string(trace))["traceEvents"];
    for (const sim::TraceSlice& slice : trace.slices) {
        const json& event = find_slice_event(events, slice.name);
        EXPECT_EQ(event["cat"], slice.category);
        ASSERT_TRUE(event["ts"].is_number() && event["dur"].is_number());
        // Times are written on the simulator's 1 ps grid: within 1e-6 µs of the input.
        EXPECT_NEAR(event["ts"].get<double>(), slice.start_s * 1e6, 1e-6) << slice.name;
        EXPECT_NEAR(event["dur"].get<double>(), slice.duration_s * 1e6, 1e-6) << slice.name;
        for (const auto& [key, value] : slice.args) {
            // Numbers are JSON numbers, the rest text.
            const json& written = event["args"][key];
            if (key == "bytes" || key == "sample")
                EXPECT_EQ(written, std::stoll(value)) << slice.name << "." << key;
            else
                EXPECT_EQ(written, value) << slice.name << "." << key;
        }
        EXPECT_EQ(event["args"].size(), slice.args.size()) << slice.name;
    }
    EXPECT_TRUE(find_slice_event(events, "gemv")["args"]["bytes"].is_number_integer());
    EXPECT_TRUE(find_slice_event(events, "matmul")["args"]["shape"].is_string());
    EXPECT_EQ(find_slice_event(events, "gemv")["ts"].get<double>(), 1.5);
    EXPECT_EQ(find_slice_event(events, "gemv")["dur"].get<double>(), 2.5);
    EXPECT_EQ(find_slice_event(events, "relu")["dur"].get<double>(), 0.5);
    EXPECT_EQ(find_slice_event(events, "add")["ts"].get<double>(), 4.5);
    // 1.2345678901234e-3 s rounds to 1234567890 ps = 1234.56789 µs.
    EXPECT_DOUBLE_EQ(find_slice_event(events, "softmax")["dur"].get<double>(), 1234.56789);
}

TEST(PerfettoJsonWriter, PerThreadSlicesAreDisjointAndTimeNeverGoesBack) {
    const json events = json::parse(write_to_string(sample_trace()))["traceEvents"];
    std::map<std::pair<int, int>, double> thread_end;
    double last_ts = 0.0;
    for (const json& event : events) {
        if (event["ph"] == "M") {
            continue;
        }
        const double ts = event["ts"];
        EXPECT_GE(ts, last_ts) << event.dump();
        last_ts = ts;
        if (event["ph"] != "X") {
            continue;
        }
        const std::pair<int, int> thread{event["pid"], event["tid"]};
        if (thread_end.count(thread) != 0) {
            EXPECT_GE(ts, thread_end[thread]) << "overlap at " << event.dump();
        }
        thread_end[thread] = ts + event["dur"].get<double>();
    }
    EXPECT_EQ(thread_end.size(), 3u);
}

TEST(PerfettoJsonWriter, EachFlowJoinsProducerEndToConsumerStart) {
    const sim::Trace trace = sample_trace();
    const json events = json::parse(write_to_string(trace))["traceEvents"];
    std::map<int, std::vector<json>> starts;
    std::map<int, std::vector<json>> ends;
    for (const json& event : events) {
        if (event["ph"] == "s") {
            starts[event["id"]].push_back(event);
        } else if (event["ph"] == "f") {
            ends[event["id"]].push_back(event);
        }
    }
    ASSERT_EQ(starts.size(), trace.flows.size());
    ASSERT_EQ(ends.size(), trace.flows.size());
    std::set<int> ids;
    for (const auto& [id, list] : starts) {
        ids.insert(id);
        ASSERT_EQ(list.size(), 1u) << "flow " << id;
        ASSERT_EQ(ends[id].size(), 1u) << "flow " << id;
    }
    // Ids 1..n in flow order; check each against its producer and consumer slice.
    ASSERT_EQ(ids, (std::set<int>{1, 2}));
    for (std::size_t i = 0; i < trace.flows.size(); ++i) {
        const int id = static_cast<int>(i) + 1;
        const json& producer = find_slice_event(
            events, trace.slices[static_cast<std::size_t>(trace.flows[i].from_slice)].name);
        const json& consumer = find_slice_event(
            events, trace.slices[static_cast<std::size_t>(trace.flows[i].to_slice)].name);
        const json& start = starts[id][0];
        const json& end = ends[id][0];
        EXPECT_EQ(start["ts"].get<double>(),
                  producer["ts"].get<double>() + producer["dur"].get<double>());
        EXPECT_EQ(start["pid"], producer["pid"]);
        EXPECT_EQ(start["tid"], producer["tid"]);
        EXPECT_EQ(end["ts"].get<double>(), consumer["ts"].get<double>());
        EXPECT_EQ(end["pid"], consumer["pid"]);
        EXPECT_EQ(end["tid"], consumer["tid"]);
        EXPECT_EQ(end["bp"], "e");
        EXPECT_FALSE(start.contains("bp"));
        for (const json* event : {&start, &end}) {
            EXPECT_EQ((*event)["name"], "flow");
            EXPECT_EQ((*event)["cat"], "flow");
        }
    }
    EXPECT_EQ(starts[1][0]["ts"].get<double>(), 1.5);
    EXPECT_EQ(ends[2][0]["ts"].get<double>(), 4.5);
}

// Perfetto binds "s" to the slice on top of the thread's stack when it reads it, and an
// "f" with "bp":"e" to its enclosing slice; at one instant the order therefore matters.
TEST(PerfettoJsonWriter, FlowEventsSitNextToTheSlicesTheyBindTo) {
    const json events = json::parse(write_to_string(sample_trace()))["traceEvents"];
    json flow_start_from_matmul;
    json flow_end_into_gemv;
    for (const json& event : events) {
        if (event["ph"] == "s" && event["id"] == 1) {
            flow_start_from_matmul = event;
        }
        if (event["ph"] == "f" && event["id"] == 1) {
            flow_end_into_gemv = event;
        }
    }
    // relu starts on core0 at the instant matmul ends there.
    EXPECT_LT(index_of(events, flow_start_from_matmul),
              index_of(events, find_slice_event(events, "relu")));
    EXPECT_GT(index_of(events, flow_end_into_gemv),
              index_of(events, find_slice_event(events, "gemv")));
}

TEST(PerfettoJsonWriter, CountersLiveOnTheirTrackProcess) {
    const json events = json::parse(write_to_string(sample_trace()))["traceEvents"];
    std::vector<json> counters;
    for (const json& event : events) {
        if (event["ph"] == "C") {
            counters.push_back(event);
        }
    }
    ASSERT_EQ(counters.size(), 2u);
    EXPECT_EQ(counters[0]["name"], "utilisation");
    EXPECT_EQ(counters[0]["pid"], 2);  // PIM
    EXPECT_EQ(counters[0]["ts"].get<double>(), 0.0);
    EXPECT_EQ(counters[0]["args"], (json{{"value", 0.5}}));
    EXPECT_EQ(counters[1]["ts"].get<double>(), 4.5);
    EXPECT_EQ(counters[1]["args"], (json{{"value", 1.0}}));
}

TEST(PerfettoJsonWriter, OutputIsDeterministic) {
    const std::string first = write_to_string(sample_trace());
    const std::string second = write_to_string(sample_trace());
    EXPECT_EQ(first, second);
    const sim::Trace trace = sample_trace();
    EXPECT_EQ(write_to_string(trace), write_to_string(trace));
}

TEST(PerfettoJsonWriter, RejectsPartiallyOverlappingSlices) {
    sim::Trace trace = sample_trace();
    trace.slices.push_back({0, "late", "compute", 1.0e-6, 1.0e-6, {}});  // into matmul
    EXPECT_THROW(write_to_string(trace), std::invalid_argument);
    try {
        write_to_string(trace);
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("overlaps"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("'late'"), std::string::npos) << error.what();
    }
}

TEST(PerfettoJsonWriter, RejectsNestedSlicesOnOneTrack) {
    sim::Trace trace = sample_trace();
    trace.slices.push_back({0, "inner", "compute", 0.5e-6, 0.5e-6, {}});  // inside matmul
    EXPECT_THROW(write_to_string(trace), std::invalid_argument);
}

TEST(PerfettoJsonWriter, SameTimesOnDifferentTracksAreFine) {
    sim::Trace trace = sample_trace();
    const int other = trace.track("PIM", "pim1");
    trace.slices.push_back({other, "parallel", "compute", 0.0, 1.5e-6, {}});
    EXPECT_NO_THROW(write_to_string(trace));
}

TEST(PerfettoJsonWriter, RejectsFlowToMissingSlice) {
    sim::Trace trace = sample_trace();
    trace.flows.push_back({0, 5});
    EXPECT_THROW(write_to_string(trace), std::invalid_argument);
    trace.flows.back() = {-1, 1};
    EXPECT_THROW(write_to_string(trace), std::invalid_argument);
}

TEST(PerfettoJsonWriter, RejectsSliceOnMissingTrack) {
    sim::Trace trace = sample_trace();
    trace.slices.push_back({7, "lost", "compute", 9e-6, 1e-6, {}});
    EXPECT_THROW(write_to_string(trace), std::invalid_argument);
}

TEST(WriteTraceFile, WritesAParsableFileAndNoTemporary) {
    TempDir dir;
    const std::filesystem::path file = dir.path() / "run.json";
    const sim::Trace trace = sample_trace();
    write_trace_file(*make_trace_writer("perfetto_json"), trace, file);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "run.json.tmp"));
    std::ifstream in(file, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(text, write_to_string(trace));
    const json doc = json::parse(text);
    EXPECT_EQ(doc["otherData"]["title"], trace.title);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                            std::filesystem::directory_iterator()),
              1);
}

TEST(WriteTraceFile, InvalidTraceLeavesNoFile) {
    TempDir dir;
    const std::filesystem::path file = dir.path() / "bad.json";
    sim::Trace trace = sample_trace();
    trace.flows.push_back({0, 42});
    EXPECT_THROW(write_trace_file(PerfettoJsonWriter{}, trace, file), std::invalid_argument);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(WriteTraceFile, UnwritablePathThrowsNamingTheFile) {
    TempDir dir;
    const std::filesystem::path file = dir.path() / "missing_dir" / "run.json";
    try {
        write_trace_file(PerfettoJsonWriter{}, sample_trace(), file);
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find(file.string()), std::string::npos) << error.what();
    }
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(MakeTraceWriter, KnowsPerfettoJsonAndProto) {
    EXPECT_EQ(trace_formats(), (std::vector<std::string>{"perfetto_json", "perfetto_proto"}));
    EXPECT_EQ(make_trace_writer("perfetto_json")->format_name(), "perfetto_json");
}

TEST(MakeTraceWriter, UnknownFormatListsTheKnownOnes) {
    try {
        make_trace_writer("protobuf");
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find("'protobuf'"), std::string::npos) << what;
        EXPECT_NE(what.find("known formats: perfetto_json"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace hetsim::traces

namespace hetsim::traces {
namespace {

// 20000 slices in a chain on two tracks (flows from each to the next), a counter sample at
// every slice start: split under a third of its size (above kMinTraceLimitBytes), every part
// fits, is a whole trace, and the parts together hold every slice and counter sample once;
// flows survive inside a part.
TEST(RenderWithin, SplitsByTimeIntoPartsThatFit) {
    constexpr int kSlices = 20000;
    sim::Trace trace;
    const int a = trace.track("CPU", "core0");
    const int b = trace.track("link", "cpu->pim");
    for (int i = 0; i < kSlices; ++i) {
        trace.slices.push_back({i % 2 ? b : a,
                                "s" + std::to_string(i),
                                "compute",
                                i * 1e-6,
                                1e-6,
                                {{"i", std::to_string(i)}}});
        trace.counters.push_back({b, "utilisation", i * 1e-6, (i % 3) / 2.0});
        if (i > 0)
            trace.flows.push_back({i - 1, i});
    }
    PerfettoJsonWriter writer;
    const std::string whole = write_to_string(trace);
    EXPECT_EQ(render_within(writer, trace, whole.size()), std::vector<std::string>{whole});
    const std::size_t limit = whole.size() / 3;
    ASSERT_GE(limit, kMinTraceLimitBytes);
    const std::vector<std::string> parts = render_within(writer, trace, limit);
    ASSERT_GE(parts.size(), 3u);
    std::set<std::string> slices;
    std::size_t counters = 0, flows = 0;
    double last_start = -1.0;
    for (const std::string& part : parts) {
        EXPECT_LE(part.size(), limit);
        const json doc = json::parse(part);
        for (const json& e : doc["traceEvents"]) {
            if (e["ph"] == "X") {
                EXPECT_TRUE(slices.insert(e["name"].get<std::string>()).second);
                EXPECT_GE(e["ts"].get<double>(), last_start);  // parts follow each other in time
            }
            counters += e["ph"] == "C" ? 1 : 0;
            flows += e["ph"] == "s" ? 1 : 0;
        }
        for (const json& e : doc["traceEvents"])
            if (e["ph"] == "X")
                last_start = std::max(last_start, e["ts"].get<double>());
    }
    EXPECT_EQ(slices.size(), static_cast<std::size_t>(kSlices));
    EXPECT_EQ(counters, static_cast<std::size_t>(kSlices));
    // Only the flows that cross a cut are lost.
    EXPECT_EQ(flows, static_cast<std::size_t>(kSlices - 1) - (parts.size() - 1));
}

// V19 of campaign 5: `--trace-limit '1 B'` (or '1 kB') was accepted and split a trace into 91
// parts of up to 3.8 kB, none within the limit. A limit below the smallest one a part can be
// kept to is refused, naming the option and the minimum.
TEST(RenderWithin, ALimitBelowTheMinimumIsRefused) {
    const sim::Trace trace = sample_trace();
    PerfettoJsonWriter writer;
    for (const std::size_t limit : {std::size_t{1}, std::size_t{1000}, kMinTraceLimitBytes - 1}) {
        try {
            (void)render_within(writer, trace, limit);
            ADD_FAILURE() << "a limit of " << limit << " B was accepted";
        } catch (const sim::InputError& e) {
            EXPECT_EQ(e.yaml_path(), "--trace-limit");
            EXPECT_NE(e.message().find("must be at least 1 MB, got "), std::string::npos)
                << e.message();
        }
    }
    EXPECT_EQ(render_within(writer, trace, kMinTraceLimitBytes).size(), 1u);
}

}  // namespace
}  // namespace hetsim::traces
