// Names a user gives that hetsim writes back into specs, paths and files: components and devices
// (placer specs such as `priority:CPU_P,PIM`, `--set platform.components.dma.bandwidth`), and a
// dataset's splits (its manifest, `hetsim train --split`).
#pragma once

#include <string>

namespace hetsim::sim {

// "" when `name` is 1 to 64 ASCII letters, digits, '_' or '-'; else why not, with the name
// quoted and its non-printable bytes escaped: "'a,b' is not 1 to 64 ASCII letters, ...". ',',
// ':', '.', '/', spaces and invisible or bidirectional characters would break or disguise it.
std::string plain_name_problem(const std::string& name);

}  // namespace hetsim::sim
