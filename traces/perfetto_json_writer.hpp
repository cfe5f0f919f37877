// The "perfetto_json" format: Chrome trace-event JSON (the JSON object form), which both
// ui.perfetto.dev and chrome://tracing open without conversion.
#pragma once

#include <ostream>
#include <string>

#include "sim/trace.hpp"
#include "traces/trace_writer.hpp"

namespace hetsim::traces {

// One process per distinct track process name and one thread per distinct (process, thread)
// pair, both numbered from 1 in first-use order of Trace::tracks; slices become "X" events,
// flows "s"/"f" pairs and counter samples "C" events. Times are written in microseconds.
//
// write() validates the trace first and throws std::invalid_argument (writing nothing) if a
// slice or counter names a missing track, a flow names a missing slice, a time is negative or
// not finite, or two slices on one thread overlap (tracks are single-server resources, so
// nesting is an error too; touching, end == start, is fine).
class PerfettoJsonWriter final : public TraceWriter {
public:
    std::string format_name() const override { return "perfetto_json"; }
    std::string extension() const override { return ".json"; }
    void write(const sim::Trace& trace, std::ostream& out) const override;
};

// The checks write() makes, for the other formats: throws std::invalid_argument naming the
// first problem.
void validate_trace(const sim::Trace& trace);

}  // namespace hetsim::traces
