// The perfetto_proto writer, decoded back with a protobuf wire-format reader written here: the
// track descriptors (processes, threads under them, counter tracks), a BEGIN/END pair per slice
// on its thread (an INSTANT for a zero-length one), args as debug annotations, flows from the
// producer's begin to the consumer's, counters as exact doubles, time order, and the refusals
// the JSON writer makes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/trace.hpp"
#include "traces/perfetto_proto_writer.hpp"
#include "traces/trace_writer.hpp"

namespace hetsim::traces {
namespace {

// A decoded message: field number -> its values in order (varints and fixed64 as integers,
// length-delimited fields as bytes).
struct Decoded {
    std::multimap<std::uint32_t, std::uint64_t> ints;
    std::multimap<std::uint32_t, std::string> bytes;
    std::uint64_t get(std::uint32_t f) const { return ints.count(f) ? ints.find(f)->second : 0; }
    std::string str(std::uint32_t f) const { return bytes.count(f) ? bytes.find(f)->second : ""; }
};

std::uint64_t varint(const std::string& s, std::size_t& pos) {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        if (pos >= s.size())
            throw std::runtime_error("truncated varint");
        const auto b = static_cast<unsigned char>(s[pos++]);
        v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

Decoded decode(const std::string& s) {
    Decoded d;
    std::size_t pos = 0;
    while (pos < s.size()) {
        const std::uint64_t key = varint(s, pos);
        const auto field = static_cast<std::uint32_t>(key >> 3);
        switch (key & 7) {
            case 0:
                d.ints.emplace(field, varint(s, pos));
                break;
            case 1: {
                std::uint64_t v = 0;
                for (int i = 0; i < 8; ++i)
                    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s.at(pos + i)))
                         << (8 * i);
                pos += 8;
                d.ints.emplace(field, v);
                break;
            }
            case 2: {
                const std::uint64_t n = varint(s, pos);
                if (pos + n > s.size())
                    throw std::runtime_error("truncated field");
                d.bytes.emplace(field, s.substr(pos, n));
                pos += n;
                break;
            }
            default:
                throw std::runtime_error("unexpected wire type");
        }
    }
    return d;
}

double as_double(std::uint64_t bits) {
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

sim::Trace sample_trace() {
    sim::Trace trace;
    const int core0 = trace.track("CPU", "core0");
    const int pim0 = trace.track("PIM", "pim0");
    const int core1 = trace.track("CPU", "core1");
    trace.slices = {
        {core0, "matmul", "compute", 0.0, 1.5e-6, {{"op", "MatMul"}, {"shape", "64x64"}}},
        {pim0, "gemv", "compute", 1.5e-6, 2.5e-6, {{"op", "Gemv"}}},
        {core0, "relu", "compute", 1.5e-6, 0.5e-6, {}},  // touches matmul
        {core1, "marker", "convert", 4.5e-6, 0.0, {}},   // zero length: an instant
    };
    trace.flows = {{0, 1}};
    trace.counters = {{pim0, "utilisation", 0.0, 0.5}, {pim0, "utilisation", 4.5e-6, 1.0 / 3}};
    return trace;
}

TEST(PerfettoProtoWriter, DecodesToTheTracksSlicesFlowsAndCounters) {
    std::ostringstream out;
    PerfettoProtoWriter{}.write(sample_trace(), out);
    const Decoded file = decode(out.str());
    std::vector<Decoded> descriptors, events;
    std::vector<std::uint64_t> times;
    for (auto [it, end] = file.bytes.equal_range(1); it != end; ++it) {
        const Decoded packet = decode(it->second);
        if (packet.bytes.count(60)) {
            descriptors.push_back(decode(packet.str(60)));
        } else {
            ASSERT_TRUE(packet.bytes.count(11));
            EXPECT_EQ(packet.get(10), 1u);  // one sequence
            events.push_back(decode(packet.str(11)));
            times.push_back(packet.get(8));
        }
    }
    // 2 processes, 3 threads, 1 counter track.
    std::map<std::string, std::uint64_t> process_uuid, thread_uuid;
    std::uint64_t counter_uuid = 0;
    for (const Decoded& d : descriptors) {
        if (d.bytes.count(3)) {
            process_uuid[decode(d.str(3)).str(6)] = d.get(1);
        } else if (d.bytes.count(4)) {
            const Decoded thread = decode(d.str(4));
            thread_uuid[thread.str(5)] = d.get(1);
            EXPECT_EQ(d.get(5), process_uuid.at(thread.str(5) == "pim0" ? "PIM" : "CPU"));
        } else {
            ASSERT_TRUE(d.bytes.count(8));  // a counter track
            EXPECT_EQ(d.str(2), "utilisation");
            EXPECT_EQ(d.get(5), process_uuid.at("PIM"));
            counter_uuid = d.get(1);
        }
    }
    EXPECT_EQ(process_uuid.size(), 2u);
    EXPECT_EQ(thread_uuid.size(), 3u);
    ASSERT_NE(counter_uuid, 0u);
    // 3 slices x (begin, end) + 1 instant + 2 counter samples, in time order.
    ASSERT_EQ(events.size(), 9u);
    for (std::size_t i = 1; i < times.size(); ++i)
        EXPECT_LE(times[i - 1], times[i]);
    std::map<std::uint64_t, int> open;  // per track: slices begun and not ended
    std::vector<double> counter_values;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Decoded& e = events[i];
        const std::uint64_t type = e.get(9), track = e.get(11);
        if (type == 1) {
            EXPECT_EQ(open[track]++, 0) << "slices nest on one track";
            if (e.str(23) == "matmul") {
                EXPECT_EQ(times[i], 0u);
                EXPECT_EQ(track, thread_uuid["core0"]);
                EXPECT_EQ(e.str(22), "compute");
                EXPECT_EQ(e.bytes.count(4), 2u);  // op, shape
                EXPECT_EQ(decode(e.bytes.find(4)->second).str(10), "op");
                EXPECT_EQ(decode(e.bytes.find(4)->second).str(6), "MatMul");
                EXPECT_EQ(e.get(47), 1u);  // the flow leaves here
            }
            if (e.str(23) == "gemv") {
                EXPECT_EQ(times[i], 1500u);
                EXPECT_EQ(e.get(48), 1u);  // and ends here
            }
        } else if (type == 2) {
            EXPECT_EQ(--open[track], 0);
            if (track == thread_uuid["pim0"]) {
                EXPECT_EQ(times[i], 4000u);
            }
        } else if (type == 3) {
            EXPECT_EQ(e.str(23), "marker");
            EXPECT_EQ(times[i], 4500u);
        } else {
            ASSERT_EQ(type, 4u);
            EXPECT_EQ(track, counter_uuid);
            counter_values.push_back(as_double(e.get(44)));
        }
    }
    EXPECT_EQ(counter_values, (std::vector<double>{0.5, 1.0 / 3}));
    for (const auto& [track, depth] : open)
        EXPECT_EQ(depth, 0);
}

TEST(PerfettoProtoWriter, RefusesWhatTheJsonWriterRefusesAndIsRegistered) {
    sim::Trace trace = sample_trace();
    trace.slices.push_back({0, "overlap", "compute", 1.0e-6, 1.0e-6, {}});
    std::ostringstream out;
    EXPECT_THROW(PerfettoProtoWriter{}.write(trace, out), std::invalid_argument);
    EXPECT_TRUE(out.str().empty());
    EXPECT_EQ(make_trace_writer("perfetto_proto")->format_name(), "perfetto_proto");
}

}  // namespace
}  // namespace hetsim::traces
