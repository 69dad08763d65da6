// A small FileCheck: `pattern` lines "CHECK: text" must appear in order in `output` (as
// substrings of lines), "CHECK-NEXT: text" on the line right after the previous match, and
// "CHECK-NOT: text" nowhere between the previous match and the next one.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tessel::testing {

inline ::testing::AssertionResult file_check(const std::string& output, const std::string& pattern) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::istringstream pat(pattern);
  size_t next = 0;  // first line the next CHECK may match
  std::vector<std::string> pending_not;
  for (std::string p; std::getline(pat, p);) {
    const auto b = p.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    p = p.substr(b);
    auto take = [&](const char* tag) -> std::string {
      const std::string t = tag;
      return p.rfind(t, 0) == 0 ? p.substr(p.find_first_not_of(' ', t.size())) : std::string();
    };
    if (std::string t = take("CHECK-NOT:"); !t.empty()) {
      pending_not.push_back(t);
    } else if (std::string t = take("CHECK-NEXT:"); !t.empty()) {
      if (next >= lines.size() || lines[next].find(t) == std::string::npos)
        return ::testing::AssertionFailure() << "CHECK-NEXT: '" << t << "' not on line " << next + 1 << " of:\n"
                                             << output;
      ++next;
    } else if (std::string t = take("CHECK:"); !t.empty()) {
      size_t i = next;
      while (i < lines.size() && lines[i].find(t) == std::string::npos) ++i;
      if (i == lines.size())
        return ::testing::AssertionFailure() << "CHECK: '" << t << "' not found after line " << next << " of:\n"
                                             << output;
      for (const std::string& n : pending_not)
        for (size_t j = next; j < i; ++j)
          if (lines[j].find(n) != std::string::npos)
            return ::testing::AssertionFailure() << "CHECK-NOT: '" << n << "' found on line " << j + 1 << " of:\n"
                                                 << output;
      pending_not.clear();
      next = i + 1;
    }
  }
  for (const std::string& n : pending_not)
    for (size_t j = next; j < lines.size(); ++j)
      if (lines[j].find(n) != std::string::npos)
        return ::testing::AssertionFailure() << "CHECK-NOT: '" << n << "' found on line " << j + 1 << " of:\n"
                                             << output;
  return ::testing::AssertionSuccess();
}

}  // namespace tessel::testing
