// Names a user gives that hetsim writes back into specs, paths and files: components and devices
// (placer specs such as `priority:CPU_P,PIM`, `--set platform.components.dma.bandwidth`), and a
// dataset's splits (its manifest, `hetsim train --split`).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hetsim::sim {

// `text` as a message may quote it on one line: every byte outside printable ASCII (controls,
// DEL, and each byte of a non-ASCII character) as \xNN, so an invisible or look-alike character
// (a non-breaking space, U+FEFF, U+202E) shows; at most `max_chars` bytes of it, then "...".
std::string shown_bytes(std::string_view text, std::size_t max_chars = std::string_view::npos);

// "" when `name` is 1 to 64 ASCII letters, digits, '_' or '-'; else why not, with the name
// quoted and its non-printable bytes escaped: "'a,b' is not 1 to 64 ASCII letters, ...". ',',
// ':', '.', '/', spaces and invisible or bidirectional characters would break or disguise it.
std::string plain_name_problem(const std::string& name);

}  // namespace hetsim::sim
