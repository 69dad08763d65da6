// Text files that the library writes: tuning logs, IR dumps and timelines.
#pragma once

#include <string>
#include <string_view>

namespace tessel {

// Writes `text` to the file at `path`, replacing it, and returns the system's reason when it cannot
// ("" when it could). It writes with fmt's file rather than an iostream: no locale machinery, which
// a process holding two copies of the C++ library's (a Python module beside PyTorch's) can get wrong.
std::string write_text_file(const std::string& path, std::string_view text);

}  // namespace tessel
