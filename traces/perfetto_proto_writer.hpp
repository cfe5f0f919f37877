// The "perfetto_proto" format: Perfetto's native protobuf trace (a `Trace` of `TracePacket`s
// with TrackDescriptor and TrackEvent, protos/perfetto/trace/track_event/), which
// ui.perfetto.dev and trace_processor open directly, smaller and faster to load than JSON.
//
// Encoded by hand (protobuf wire format: varints, length-delimited fields, fixed64): the
// handful of messages needed do not justify building Perfetto's .proto tree. Field numbers, from
// Perfetto's protos:
//   Trace.packet 1; TracePacket: timestamp 8, trusted_packet_sequence_id 10, track_event 11,
//   track_descriptor 60; TrackDescriptor: uuid 1, name 2, process 3, thread 4, parent_uuid 5,
//   counter 8; ProcessDescriptor: pid 1, process_name 6; ThreadDescriptor: pid 1, tid 2,
//   thread_name 5; TrackEvent: type 9 (SLICE_BEGIN 1, SLICE_END 2, INSTANT 3, COUNTER 4),
//   track_uuid 11, categories 22, name 23, double_counter_value 44, debug_annotations 4,
//   flow_ids 47, terminating_flow_ids 48 (fixed64); DebugAnnotation: name 10, string_value 6.
#pragma once

#include <ostream>
#include <string>

#include "sim/trace.hpp"
#include "traces/trace_writer.hpp"

namespace hetsim::traces {

// A process track per distinct process name and a thread track under it per track (numbered as
// in the JSON format), a counter track per (process, counter name). A slice is a SLICE_BEGIN and
// a SLICE_END (an INSTANT when it lasts 0 ns), its args debug annotations; a flow joins the
// producer's begin to the consumer's begin; times in integer nanoseconds. Validates like the
// JSON writer and throws std::invalid_argument on the same traces.
class PerfettoProtoWriter final : public TraceWriter {
public:
    std::string format_name() const override { return "perfetto_proto"; }
    std::string extension() const override { return ".pftrace"; }
    void write(const sim::Trace& trace, std::ostream& out) const override;
};

}  // namespace hetsim::traces
