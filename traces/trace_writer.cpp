#include "traces/trace_writer.hpp"

#include <fstream>
#include <functional>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "traces/perfetto_json_writer.hpp"

namespace hetsim::traces {

namespace {

using Factory = std::function<std::unique_ptr<TraceWriter>()>;

// The one place a format is registered; trace_formats() lists it from here, so error
// messages and --help never drift from what make_trace_writer accepts.
const std::vector<std::pair<std::string, Factory>>& registry() {
    static const std::vector<std::pair<std::string, Factory>> formats = {
        {"perfetto_json", [] { return std::make_unique<PerfettoJsonWriter>(); }},
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
