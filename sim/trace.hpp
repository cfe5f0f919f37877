// What an evaluator records of a run, independent of any file format: slices on tracks
// (a track = process + thread, e.g. device "PIM" / unit "pim0", link "dma" / "CPU->PIM"),
// flows between slices, and counters. traces/ turns it into Perfetto files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hetsim::sim {

struct TraceTrack {
    std::string process;  // device or link name
    std::string thread;   // unit or link direction
};

struct TraceSlice {
    int track = -1;  // index into Trace::tracks
    std::string name;
    std::string category;  // "compute", "transfer", "convert"
    double start_s = 0.0;
    double duration_s = 0.0;
    std::vector<std::pair<std::string, std::string>> args;  // op type, shape, bytes, sample...
};

// An arrow from the end of one slice to the start of another (producer -> transfer -> consumer).
struct TraceFlow {
    int from_slice = -1;
    int to_slice = -1;
};

struct TraceCounterSample {
    int track = -1;    // the counter lives in this track's process; name below
    std::string name;  // "utilisation", "bytes_in_flight", ...
    double time_s = 0.0;
    double value = 0.0;
};

struct Trace {
    std::string title;  // study / placer
    std::vector<TraceTrack> tracks;
    std::vector<TraceSlice> slices;
    std::vector<TraceFlow> flows;
    std::vector<TraceCounterSample> counters;

    // Returns the index of the track, adding it on first use (stable, first-use order).
    int track(const std::string& process, const std::string& thread);
};

}  // namespace hetsim::sim
