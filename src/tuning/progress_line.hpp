// A status line on stderr for long work: rewritten in place on a terminal, and printed at most
// every few seconds when stderr is a file or a pipe, so that logs stay short.
#pragma once

#include <chrono>
#include <string>

namespace tessel::tuning {

class ProgressLine {
 public:
  ProgressLine();
  void update(const std::string& text);
  // A line that stays: a dropped candidate's reason, or the final result.
  void note(const std::string& text);

 private:
  bool terminal_;
  bool dirty_ = false;  // a partial line is on the terminal
  std::chrono::steady_clock::time_point last_;
};

}  // namespace tessel::tuning
