#include "traces/perfetto_proto_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "traces/perfetto_json_writer.hpp"

namespace hetsim::traces {

namespace {

// Protobuf wire format (protobuf.dev "Encoding"): a key is (field << 3 | wire type).
enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

class Message {
public:
    Message& varint(std::uint32_t field, std::uint64_t value) {
        key(field, kVarint);
        put_varint(value);
        return *this;
    }
    Message& fixed64(std::uint32_t field, std::uint64_t value) {
        key(field, kFixed64);
        for (int i = 0; i < 8; ++i)
            bytes_ += static_cast<char>((value >> (8 * i)) & 0xff);
        return *this;
    }
    Message& real(std::uint32_t field, double value) {
        std::uint64_t bits = 0;
        static_assert(sizeof bits == sizeof value);
        std::memcpy(&bits, &value, sizeof bits);
        return fixed64(field, bits);
    }
    Message& bytes(std::uint32_t field, const std::string& value) {
        key(field, kLengthDelimited);
        put_varint(value.size());
        bytes_ += value;
        return *this;
    }
    Message& message(std::uint32_t field, const Message& value) {
        return bytes(field, value.bytes_);
    }
    const std::string& data() const { return bytes_; }

private:
    void key(std::uint32_t field, WireType type) { put_varint((field << 3) | type); }
    void put_varint(std::uint64_t v) {
        while (v >= 0x80) {
            bytes_ += static_cast<char>((v & 0x7f) | 0x80);
            v >>= 7;
        }
        bytes_ += static_cast<char>(v);
    }
    std::string bytes_;
};

// TracePacket / TrackDescriptor / TrackEvent field numbers (header).
constexpr std::uint32_t kTracePacket = 1, kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11,
                        kTrackDescriptor = 60;
constexpr std::uint32_t kUuid = 1, kTrackName = 2, kProcess = 3, kThread = 4, kParentUuid = 5,
                        kCounter = 8;
constexpr std::uint32_t kPid = 1, kProcessName = 6, kTid = 2, kThreadName = 5;
constexpr std::uint32_t kType = 9, kTrackUuid = 11, kCategories = 22, kName = 23,
                        kDoubleCounterValue = 44, kDebugAnnotations = 4, kFlowIds = 47,
                        kTerminatingFlowIds = 48;
constexpr std::uint32_t kAnnotationName = 10, kAnnotationString = 6;
enum EventType : std::uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounterEvent = 4 };
// One writer, one sequence: every packet carries the same sequence id.
constexpr std::uint64_t kSequence = 1;

std::uint64_t to_ns(double seconds) {
    return static_cast<std::uint64_t>(std::llround(seconds * 1e9));
}

struct TimedPacket {
    std::uint64_t ns;
    int rank;  // at one instant: ends, then begins and instants, then counters
    std::size_t order;
    Message packet;
};

}  // namespace

void PerfettoProtoWriter::write(const sim::Trace& trace, std::ostream& out) const {
    validate_trace(trace);
    std::string file;
    const auto emit = [&file](const Message& packet) {
        Message wrapper;
        wrapper.message(kTracePacket, packet);
        file += wrapper.data();
    };

    // Tracks: processes in first-use order (pid from 1), a thread per track, then counters.
    std::map<std::string, int> pid_of;
    std::vector<std::uint64_t> thread_uuid(trace.tracks.size());
    std::uint64_t next_uuid = 1;
    std::map<std::string, std::uint64_t> process_uuid;
    for (std::size_t t = 0; t < trace.tracks.size(); ++t) {
        const sim::TraceTrack& track = trace.tracks[t];
        if (!pid_of.count(track.process)) {
            const int pid = static_cast<int>(pid_of.size()) + 1;
            pid_of[track.process] = pid;
            process_uuid[track.process] = next_uuid++;
            Message process;
            process.varint(kPid, static_cast<std::uint64_t>(pid))
                .bytes(kProcessName, track.process);
            Message descriptor;
            descriptor.varint(kUuid, process_uuid[track.process]).message(kProcess, process);
            Message packet;
            packet.message(kTrackDescriptor, descriptor);
            emit(packet);
        }
        thread_uuid[t] = next_uuid++;
        Message thread;
        thread.varint(kPid, static_cast<std::uint64_t>(pid_of[track.process]))
            .varint(kTid, t + 1)
            .bytes(kThreadName, track.thread);
        Message descriptor;
        descriptor.varint(kUuid, thread_uuid[t])
            .varint(kParentUuid, process_uuid[track.process])
            .message(kThread, thread);
        Message packet;
        packet.message(kTrackDescriptor, descriptor);
        emit(packet);
    }
    std::map<std::pair<std::string, std::string>, std::uint64_t> counter_uuid;
    for (const sim::TraceCounterSample& c : trace.counters) {
        const std::string& process = trace.tracks[static_cast<std::size_t>(c.track)].process;
        const auto key = std::make_pair(process, c.name);
        if (counter_uuid.count(key))
            continue;
        counter_uuid[key] = next_uuid++;
        Message descriptor;
        descriptor.varint(kUuid, counter_uuid[key])
            .bytes(kTrackName, c.name)
            .varint(kParentUuid, process_uuid[process])
            .message(kCounter, Message{});
        Message packet;
        packet.message(kTrackDescriptor, descriptor);
        emit(packet);
    }

    // Flows: an id per flow, on the producer's begin and (terminating) on the consumer's.
    std::map<std::size_t, std::vector<std::uint64_t>> flows_out, flows_in;
    for (std::size_t i = 0; i < trace.flows.size(); ++i) {
        flows_out[static_cast<std::size_t>(trace.flows[i].from_slice)].push_back(i + 1);
        flows_in[static_cast<std::size_t>(trace.flows[i].to_slice)].push_back(i + 1);
    }
    std::vector<TimedPacket> timed;
    const auto event_packet = [](std::uint64_t ns, const Message& event) {
        Message packet;
        packet.varint(kTimestamp, ns).varint(kSequenceId, kSequence).message(kTrackEvent, event);
        return packet;
    };
    for (std::size_t i = 0; i < trace.slices.size(); ++i) {
        const sim::TraceSlice& slice = trace.slices[i];
        const std::uint64_t begin = to_ns(slice.start_s);
        const std::uint64_t end = to_ns(slice.start_s + slice.duration_s);
        Message event;
        event.varint(kType, end > begin ? kSliceBegin : kInstant)
            .varint(kTrackUuid, thread_uuid[static_cast<std::size_t>(slice.track)])
            .bytes(kCategories, slice.category)
            .bytes(kName, slice.name);
        for (const auto& [key, value] : slice.args) {
            Message annotation;
            annotation.bytes(kAnnotationName, key).bytes(kAnnotationString, value);
            event.message(kDebugAnnotations, annotation);
        }
        for (std::uint64_t id : flows_out[i])
            event.fixed64(kFlowIds, id);
        for (std::uint64_t id : flows_in[i])
            event.fixed64(kTerminatingFlowIds, id);
        timed.push_back({begin, 1, timed.size(), event_packet(begin, event)});
        if (end > begin) {
            Message close;
            close.varint(kType, kSliceEnd)
                .varint(kTrackUuid, thread_uuid[static_cast<std::size_t>(slice.track)]);
            timed.push_back({end, 0, timed.size(), event_packet(end, close)});
        }
    }
    for (const sim::TraceCounterSample& c : trace.counters) {
        const std::string& process = trace.tracks[static_cast<std::size_t>(c.track)].process;
        Message event;
        event.varint(kType, kCounterEvent)
            .varint(kTrackUuid, counter_uuid[{process, c.name}])
            .real(kDoubleCounterValue, c.value);
        timed.push_back({to_ns(c.time_s), 2, timed.size(), event_packet(to_ns(c.time_s), event)});
    }
    // Slices on one track never overlap (validated), so at one instant the ending slice's END
    // goes before the next one's BEGIN; otherwise the trace's own order (deterministic output).
    std::sort(timed.begin(), timed.end(), [](const TimedPacket& a, const TimedPacket& b) {
        return std::tie(a.ns, a.rank, a.order) < std::tie(b.ns, b.rank, b.order);
    });
    for (const TimedPacket& t : timed)
        emit(t.packet);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    if (!out)
        throw std::runtime_error("perfetto_proto: writing the trace to the stream failed");
}

}  // namespace hetsim::traces
