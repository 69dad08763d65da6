// Where a statement of a test's kernel header or an example is, for the exact messages that name
// its line.
#pragma once

#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace tessel::testing {

// The first line of `path` (relative to the source tree) that holds `statement`.
inline int line_of(const std::string& path, const std::string& statement) {
  std::ifstream in(std::string(TESSEL_SOURCE_DIR) + "/" + path);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.find(statement) != std::string::npos) return n;
  }
  ADD_FAILURE() << statement << " is not in " << path;
  return 0;
}

// "<source tree>/path:line" of that statement, as a message names it.
inline std::string source_at(const std::string& path, const std::string& statement) {
  return std::string(TESSEL_SOURCE_DIR) + "/" + path + ":" + std::to_string(line_of(path, statement));
}

}  // namespace tessel::testing
