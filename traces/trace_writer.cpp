#include "traces/trace_writer.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "sim/config.hpp"
#include "sim/units.hpp"
#include "traces/perfetto_json_writer.hpp"
#include "traces/perfetto_proto_writer.hpp"

namespace hetsim::traces {

namespace {

using Factory = std::function<std::unique_ptr<TraceWriter>()>;

// The one place a format is registered; trace_formats() lists it from here, so error
// messages and --help never drift from what make_trace_writer accepts.
const std::vector<std::pair<std::string, Factory>>& registry() {
    static const std::vector<std::pair<std::string, Factory>> formats = {
        {"perfetto_json", [] { return std::make_unique<PerfettoJsonWriter>(); }},
        {"perfetto_proto", [] { return std::make_unique<PerfettoProtoWriter>(); }},
    };
    return formats;
}

std::string joined_formats() {
    std::string text;
    for (const std::string& name : trace_formats()) {
        text += (text.empty() ? "" : ", ") + name;
    }
    return text;
}

}  // namespace

std::unique_ptr<TraceWriter> make_trace_writer(const std::string& format) {
    for (const auto& [name, factory] : registry()) {
        if (name == format) {
            return factory();
        }
    }
    throw std::invalid_argument("unknown trace format '" + format +
                                "'; known formats: " + joined_formats());
}

std::vector<std::string> trace_formats() {
    std::vector<std::string> names;
    for (const auto& entry : registry()) {
        names.push_back(entry.first);
    }
    return names;
}

namespace {

std::string render(const TraceWriter& writer, const sim::Trace& trace) {
    std::ostringstream out;
    writer.write(trace, out);
    return out.str();
}

// The part of `trace` whose slices start in [from, to) (by index into `order`, the slices
// sorted by start), with the counter samples in that time window and the flows between its
// slices.
sim::Trace window(const sim::Trace& trace, const std::vector<std::size_t>& order, std::size_t from,
                  std::size_t to, bool last) {
    sim::Trace part;
    part.title = trace.title;
    part.tracks = trace.tracks;
    std::vector<int> index(trace.slices.size(), -1);
    for (std::size_t i = from; i < to; ++i) {
        index[order[i]] = static_cast<int>(part.slices.size());
        part.slices.push_back(trace.slices[order[i]]);
    }
    const double t0 = from == 0 ? -1e300 : trace.slices[order[from]].start_s;
    const double t1 = last ? 1e300 : trace.slices[order[to]].start_s;
    for (const auto& c : trace.counters) {
        if (c.time_s >= t0 && c.time_s < t1)
            part.counters.push_back(c);
    }
    for (const auto& f : trace.flows) {
        const int a = index[static_cast<std::size_t>(f.from_slice)];
        const int b = index[static_cast<std::size_t>(f.to_slice)];
        if (a >= 0 && b >= 0)
            part.flows.push_back(sim::TraceFlow{a, b});
    }
    return part;
}

}  // namespace

void check_trace_limit(std::size_t max_bytes) {
    if (max_bytes >= kMinTraceLimitBytes)
        return;
    const auto size = [](std::size_t bytes) {
        return sim::format_quantity(static_cast<double>(bytes), sim::Quantity::data_size);
    };
    throw sim::InputError("", "--trace-limit", 0,
                          "must be at least " + size(kMinTraceLimitBytes) + ", got " +
                              size(max_bytes) +
                              ": each part of a split trace repeats the tracks and holds at "
                              "least one instant, so a smaller part cannot be kept to");
}

std::vector<std::string> render_within(const TraceWriter& writer, const sim::Trace& trace,
                                       std::size_t max_bytes) {
    check_trace_limit(max_bytes);
    std::string whole = render(writer, trace);
    if (whole.size() <= max_bytes || trace.slices.size() < 2)
        return {std::move(whole)};
    std::vector<std::size_t> order(trace.slices.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return trace.slices[a].start_s < trace.slices[b].start_s;
    });
    // Equal numbers of slices per part, more parts until every part fits (10 % headroom for
    // the per-part metadata).
    std::size_t parts = whole.size() / (max_bytes - max_bytes / 10) + 1;
    while (true) {
        parts = std::min(parts, order.size());
        std::vector<std::string> out;
        bool fits = true;
        for (std::size_t k = 0; k < parts; ++k) {
            std::size_t from = k * order.size() / parts, to = (k + 1) * order.size() / parts;
            // A window never splits slices that start at the same instant.
            while (from > 0 && from < order.size() &&
                   trace.slices[order[from]].start_s == trace.slices[order[from - 1]].start_s)
                ++from;
            while (to < order.size() &&
                   trace.slices[order[to]].start_s == trace.slices[order[to - 1]].start_s)
                ++to;
            if (from >= to)
                continue;
            out.push_back(render(writer, window(trace, order, from, to, to == order.size())));
            fits = fits && (out.back().size() <= max_bytes || to - from == 1);
        }
        if (fits || parts == order.size())
            return out;
        parts *= 2;
    }
}

void write_trace_file(const TraceWriter& writer, const sim::Trace& trace,
                      const std::filesystem::path& file) {
    std::filesystem::path tmp = file;
    tmp += ".tmp";
    const auto discard_tmp = [&] {
        std::error_code ignored;  // best effort: the original failure is what gets reported
        std::filesystem::remove(tmp, ignored);
    };

    try {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) {
            throw std::runtime_error("cannot open '" + tmp.string() + "' for writing");
        }
        writer.write(trace, out);
        out.close();
        if (!out) {
            throw std::runtime_error("writing '" + tmp.string() + "' failed");
        }
    } catch (const std::invalid_argument&) {
        // An invalid trace is the caller's bug, not an I/O failure: keep the exception type.
        discard_tmp();
        throw;
    } catch (const std::exception& error) {
        discard_tmp();
        throw std::runtime_error("cannot write " + writer.format_name() + " trace file '" +
                                 file.string() + "': " + error.what());
    }

    std::error_code error;
    std::filesystem::rename(tmp, file, error);
    if (error) {
        discard_tmp();
        throw std::runtime_error("cannot write " + writer.format_name() + " trace file '" +
                                 file.string() + "': renaming '" + tmp.string() +
                                 "' failed: " + error.message());
    }
}

}  // namespace hetsim::traces
