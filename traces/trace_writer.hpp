// The TraceWriter family: one file format per implementation, registered by name.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "sim/trace.hpp"

namespace hetsim::traces {

class TraceWriter {
public:
    virtual ~TraceWriter() = default;
    virtual std::string format_name() const = 0;  // "perfetto_json"
    // The file name ending: a trace is <placer>.trace<ext>, a part of one
    // <placer>.trace.part<k><ext>.
    virtual std::string extension() const = 0;  // ".json"
    virtual void write(const sim::Trace& trace, std::ostream& out) const = 0;
};

// Known formats: "perfetto_json" (Chrome trace-event JSON that ui.perfetto.dev opens) and
// "perfetto_proto" (Perfetto's native protobuf TrackEvent trace).
std::unique_ptr<TraceWriter> make_trace_writer(const std::string& format);
std::vector<std::string> trace_formats();

// The Perfetto UI fails on JSON traces near 1 GB; hetsim splits a trace above this size.
inline constexpr std::size_t kDefaultTraceLimitBytes = 200'000'000;
// The smallest limit a trace is split to. Every part repeats the tracks' metadata and holds at
// least one instant's slices (a few kB on the shipped platforms; a limit of 1 kB gave 91 parts
// of up to 3.8 kB, none within it): below 1 MB a limit could not be kept, and no viewer needs it.
inline constexpr std::size_t kMinTraceLimitBytes = 1'000'000;

// Throws sim::InputError naming --trace-limit when `max_bytes` is below kMinTraceLimitBytes.
void check_trace_limit(std::size_t max_bytes);

// `trace` rendered by `writer`: one file when it fits in `max_bytes`, else consecutive time
// windows (each slice, counter sample and flow in the window where it starts; every track in
// every part), as many as it takes for each part to fit. A window of one slice is never cut,
// so a part may exceed the limit only when one instant alone does. A `max_bytes` below
// kMinTraceLimitBytes is refused (check_trace_limit).
std::vector<std::string> render_within(const TraceWriter& writer, const sim::Trace& trace,
                                       std::size_t max_bytes);

// Writes through a temporary file and renames, so a failure never leaves a partial file.
void write_trace_file(const TraceWriter& writer, const sim::Trace& trace,
                      const std::filesystem::path& file);

}  // namespace hetsim::traces
