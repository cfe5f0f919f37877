// The TraceWriter family: one file format per implementation, registered by name.
#pragma once

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
    virtual void write(const sim::Trace& trace, std::ostream& out) const = 0;
};

// Known formats: "perfetto_json" (Chrome trace-event JSON that ui.perfetto.dev opens).
std::unique_ptr<TraceWriter> make_trace_writer(const std::string& format);
std::vector<std::string> trace_formats();

// Writes through a temporary file and renames, so a failure never leaves a partial file.
void write_trace_file(const TraceWriter& writer, const sim::Trace& trace,
                      const std::filesystem::path& file);

}  // namespace hetsim::traces
