#include "traces/perfetto_json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/csv.hpp"
#include "sim/version.hpp"

namespace hetsim::traces {

namespace {

using Json = nlohmann::ordered_json;  // insertion-ordered keys: the same trace, the same bytes

// The trace-event format counts time in microseconds; the model counts seconds computed
// from integer picoseconds (the DES resolution). Rounding back to the picosecond grid before
// dividing makes a slice's end and the next slice's start the same double, so touching
// slices and flow ends line up exactly in the file.
constexpr double kPicosPerSecond = 1e12;
constexpr double kPicosPerMicro = 1e6;
double to_us(double seconds) {
    return std::round(seconds * kPicosPerSecond) / kPicosPerMicro;
}
double end_us(const sim::TraceSlice& slice) {
    return to_us(slice.start_s + slice.duration_s);
}

// pid/tid numbering derived from Trace::tracks. tids are unique across the whole trace, not
// just within a process: trace importers key threads by tid first, and a tid shared by two
// pids can be taken for one thread that moved between processes.
struct Layout {
    struct Thread {
        int pid = 0;
        int tid = 0;
        int sort_index = 0;  // position within its process, so units show in first-use order
        std::string name;
    };
    std::vector<std::string> process_names;  // index pid - 1
    std::vector<Thread> threads;             // index tid - 1
    std::vector<int> track_tid;              // per Trace::tracks entry; equal tracks share it

    int pid_of_track(int track) const {
        return threads[static_cast<std::size_t>(track_tid[static_cast<std::size_t>(track)] - 1)]
            .pid;
    }
    int tid_of_track(int track) const { return track_tid[static_cast<std::size_t>(track)]; }
};

Layout lay_out(const sim::Trace& trace) {
    Layout layout;
    std::map<std::string, int> pid_by_process;
    std::map<std::pair<int, std::string>, int> tid_by_thread;
    std::vector<int> threads_in_process;
    for (const sim::TraceTrack& track : trace.tracks) {
        auto [pit, new_process] = pid_by_process.try_emplace(
            track.process, static_cast<int>(layout.process_names.size()) + 1);
        if (new_process) {
            layout.process_names.push_back(track.process);
            threads_in_process.push_back(0);
        }
        const int pid = pit->second;
        auto [tit, new_thread] = tid_by_thread.try_emplace(
            {pid, track.thread}, static_cast<int>(layout.threads.size()) + 1);
        if (new_thread) {
            const int sort_index = ++threads_in_process[static_cast<std::size_t>(pid - 1)];
            layout.threads.push_back({pid, tit->second, sort_index, track.thread});
        }
        layout.track_tid.push_back(tit->second);
    }
    return layout;
}

std::string describe_slice(const sim::Trace& trace, std::size_t index) {
    const sim::TraceSlice& slice = trace.slices[index];
    std::ostringstream text;
    text.precision(std::numeric_limits<double>::max_digits10);
    text << "slice " << index << " '" << slice.name << "' [" << slice.start_s << " s, "
         << slice.start_s + slice.duration_s << " s)";
    if (slice.track >= 0 && static_cast<std::size_t>(slice.track) < trace.tracks.size()) {
        const sim::TraceTrack& track = trace.tracks[static_cast<std::size_t>(slice.track)];
        text << " on " << track.process << "/" << track.thread;
    }
    return text.str();
}

[[noreturn]] void invalid(const std::string& what) {
    throw std::invalid_argument("perfetto_json: invalid trace: " + what);
}

bool valid_index(int index, std::size_t size) {
    return index >= 0 && static_cast<std::size_t>(index) < size;
}

bool valid_time(double seconds) {
    return std::isfinite(seconds) && seconds >= 0.0;
}

// Everything the evaluators guarantee, checked before a byte is written: a violation is a
// simulator bug, and a trace that silently renders it would hide the bug rather than show it.
void validate(const sim::Trace& trace, const Layout& layout) {
    std::vector<std::vector<std::size_t>> slices_by_thread(layout.threads.size());
    for (std::size_t i = 0; i < trace.slices.size(); ++i) {
        const sim::TraceSlice& slice = trace.slices[i];
        if (!valid_index(slice.track, trace.tracks.size())) {
            invalid(describe_slice(trace, i) + " refers to missing track " +
                    std::to_string(slice.track));
        }
        if (!valid_time(slice.start_s) || !valid_time(slice.duration_s)) {
            invalid(describe_slice(trace, i) + " has a negative or non-finite start or duration");
        }
        std::set<std::string> keys;
        for (const auto& [key, value] : slice.args) {
            // A JSON object keeps one value per key; a duplicate would silently drop data.
            if (!keys.insert(key).second) {
                invalid(describe_slice(trace, i) + " has duplicate arg '" + key + "'");
            }
        }
        slices_by_thread[static_cast<std::size_t>(layout.tid_of_track(slice.track) - 1)].push_back(
            i);
    }

    // A track is one server: its slices must be disjoint. After sorting by (start, end), any
    // overlap -- partial or nested -- shows up between neighbours as a start before the
    // previous end. Times are seconds converted from the simulator's integer picoseconds, so
    // start + duration of one slice can exceed the next slice's start by a rounding error:
    // overlaps shorter than the 1 ps time resolution are not overlaps.
    for (std::vector<std::size_t>& indices : slices_by_thread) {
        const auto end_of = [&](std::size_t i) {
            return trace.slices[i].start_s + trace.slices[i].duration_s;
        };
        std::stable_sort(indices.begin(), indices.end(), [&](std::size_t a, std::size_t b) {
            if (trace.slices[a].start_s != trace.slices[b].start_s) {
                return trace.slices[a].start_s < trace.slices[b].start_s;
            }
            return end_of(a) < end_of(b);
        });
        for (std::size_t k = 1; k < indices.size(); ++k) {
            constexpr double kResolution_s = 1e-12;
            if (trace.slices[indices[k]].start_s < end_of(indices[k - 1]) - kResolution_s) {
                invalid(describe_slice(trace, indices[k - 1]) + " overlaps " +
                        describe_slice(trace, indices[k]));
            }
        }
    }

    for (std::size_t i = 0; i < trace.flows.size(); ++i) {
        const sim::TraceFlow& flow = trace.flows[i];
        if (!valid_index(flow.from_slice, trace.slices.size()) ||
            !valid_index(flow.to_slice, trace.slices.size())) {
            invalid("flow " + std::to_string(i) + " refers to missing slice (from " +
                    std::to_string(flow.from_slice) + ", to " + std::to_string(flow.to_slice) +
                    "; " + std::to_string(trace.slices.size()) + " slices)");
        }
        if (flow.from_slice == flow.to_slice) {
            invalid("flow " + std::to_string(i) + " goes from " +
                    describe_slice(trace, static_cast<std::size_t>(flow.from_slice)) +
                    " to itself");
        }
    }

    for (std::size_t i = 0; i < trace.counters.size(); ++i) {
        const sim::TraceCounterSample& sample = trace.counters[i];
        if (!valid_index(sample.track, trace.tracks.size())) {
            invalid("counter sample " + std::to_string(i) + " '" + sample.name +
                    "' refers to missing track " + std::to_string(sample.track));
        }
        if (!valid_time(sample.time_s) || !std::isfinite(sample.value)) {
            invalid("counter sample " + std::to_string(i) + " '" + sample.name +
                    "' has a negative or non-finite time or a non-finite value");
        }
    }
}

// Order among events at the same (ts, pid, tid). Perfetto binds a flow-start to the slice on
// top of the thread's stack when the "s" is read, and closes a finished slice only when the
// next one begins; so the "s" at a producer's end must come before a slice starting at that
// instant, and an "f" (bound to its enclosing slice) after its consumer's "X". A zero-length
// slice starts and ends at one instant, so its events sit between the two groups.
enum Rank : int {
    kFlowStartFromSlice = 0,
    kZeroLengthSlice = 1,
    kFlowEndIntoZeroLength = 2,
    kFlowStartFromZeroLength = 3,
    kSlice = 4,
    kFlowEnd = 5,
    kCounter = 6,
};

struct Event {
    double ts = 0.0;
    int pid = 0;
    int tid = 0;
    int rank = 0;
    Json json;
};

Json metadata_event(const char* name, int pid, int tid, Json args) {
    Json event;
    event["ph"] = "M";
    event["name"] = name;
    event["pid"] = pid;
    event["tid"] = tid;
    event["ts"] = 0;
    event["args"] = std::move(args);
    return event;
}

std::vector<Json> metadata_events(const Layout& layout) {
    std::vector<Json> events;
    for (std::size_t p = 0; p < layout.process_names.size(); ++p) {
        const int pid = static_cast<int>(p) + 1;
        events.push_back(
            metadata_event("process_name", pid, 0, Json{{"name", layout.process_names[p]}}));
        events.push_back(metadata_event("process_sort_index", pid, 0, Json{{"sort_index", pid}}));
        for (const Layout::Thread& thread : layout.threads) {
            if (thread.pid != pid) {
                continue;
            }
            events.push_back(
                metadata_event("thread_name", pid, thread.tid, Json{{"name", thread.name}}));
            events.push_back(metadata_event("thread_sort_index", pid, thread.tid,
                                            Json{{"sort_index", thread.sort_index}}));
        }
    }
    return events;
}

std::vector<Event> timed_events(const sim::Trace& trace, const Layout& layout) {
    std::vector<Event> events;
    events.reserve(trace.slices.size() + 2 * trace.flows.size() + trace.counters.size());

    for (const sim::TraceSlice& slice : trace.slices) {
        Event event{to_us(slice.start_s), layout.pid_of_track(slice.track),
                    layout.tid_of_track(slice.track),
                    slice.duration_s == 0.0 ? kZeroLengthSlice : kSlice, Json{}};
        event.json["ph"] = "X";
        event.json["name"] = slice.name;
        event.json["cat"] = slice.category;
        event.json["pid"] = event.pid;
        event.json["tid"] = event.tid;
        event.json["ts"] = event.ts;
        event.json["dur"] = end_us(slice) - to_us(slice.start_s);
        Json args = Json::object();
        for (const auto& [key, value] : slice.args)
            args[key] = sim::typed_json_value<Json>(value);  // numbers as JSON numbers
        event.json["args"] = std::move(args);
        events.push_back(std::move(event));
    }

    for (std::size_t i = 0; i < trace.flows.size(); ++i) {
        const sim::TraceSlice& from =
            trace.slices[static_cast<std::size_t>(trace.flows[i].from_slice)];
        const sim::TraceSlice& to = trace.slices[static_cast<std::size_t>(trace.flows[i].to_slice)];
        const int id = static_cast<int>(i) + 1;
        // The start's ts is the sum of the producer's written ts and dur, so a reader that
        // computes the producer's end from the "X" event gets exactly this value.
        Event start{end_us(from), layout.pid_of_track(from.track), layout.tid_of_track(from.track),
                    from.duration_s == 0.0 ? kFlowStartFromZeroLength : kFlowStartFromSlice,
                    Json{}};
        Event end{to_us(to.start_s), layout.pid_of_track(to.track), layout.tid_of_track(to.track),
                  to.duration_s == 0.0 ? kFlowEndIntoZeroLength : kFlowEnd, Json{}};
        for (Event* event : {&start, &end}) {
            event->json["ph"] = event == &start ? "s" : "f";
            event->json["name"] = "flow";
            event->json["cat"] = "flow";
            event->json["id"] = id;
            event->json["pid"] = event->pid;
            event->json["tid"] = event->tid;
            event->json["ts"] = event->ts;
        }
        // "e": bind to the enclosing slice (the consumer, which starts at ts) rather than the
        // next slice to begin after ts.
        end.json["bp"] = "e";
        events.push_back(std::move(start));
        events.push_back(std::move(end));
    }

    for (const sim::TraceCounterSample& sample : trace.counters) {
        Event event{to_us(sample.time_s), layout.pid_of_track(sample.track),
                    layout.tid_of_track(sample.track), kCounter, Json{}};
        event.json["ph"] = "C";
        event.json["name"] = sample.name;
        event.json["pid"] = event.pid;
        event.json["tid"] = event.tid;
        event.json["ts"] = event.ts;
        event.json["args"] = Json{{"value", sample.value}};
        events.push_back(std::move(event));
    }

    // Stable, so events with equal keys keep the trace's own order: deterministic output.
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        return std::tie(a.ts, a.pid, a.tid, a.rank) < std::tie(b.ts, b.pid, b.tid, b.rank);
    });
    return events;
}

std::string dump(const Json& json) {
    // Replace rather than throw on invalid UTF-8 in a name: a mangled label beats no trace.
    return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

void PerfettoJsonWriter::write(const sim::Trace& trace, std::ostream& out) const {
    const Layout layout = lay_out(trace);
    validate(trace, layout);

    std::vector<Json> events = metadata_events(layout);
    for (Event& event : timed_events(trace, layout)) {
        events.push_back(std::move(event.json));
    }

    Json other_data;
    other_data["title"] = trace.title;
    other_data["generator"] = "hetsim";
    other_data["hetsim_version"] = std::string(sim::version());
    other_data["hetsim_commit"] = std::string(sim::git_commit());

    // One event per line: the file stays valid JSON yet diffs and greps line by line.
    out << "{\"displayTimeUnit\":\"ns\",\n\"otherData\":" << dump(other_data)
        << ",\n\"traceEvents\":[";
    for (std::size_t i = 0; i < events.size(); ++i) {
        out << (i == 0 ? "\n" : ",\n") << dump(events[i]);
    }
    out << "\n]}\n";
    if (!out) {
        throw std::runtime_error("perfetto_json: writing the trace to the stream failed");
    }
}

void validate_trace(const sim::Trace& trace) {
    validate(trace, lay_out(trace));
}

}  // namespace hetsim::traces
