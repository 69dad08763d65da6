#include "progress_line.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace tessel::tuning {

namespace {
constexpr auto kFileInterval = std::chrono::seconds(5);
}

ProgressLine::ProgressLine() : terminal_(::isatty(STDERR_FILENO) == 1), last_(std::chrono::steady_clock::now()) {}

void ProgressLine::update(const std::string& text) {
  const auto now = std::chrono::steady_clock::now();
  if (terminal_) {
    fmt::print(stderr, "\r\033[K{}", text);
    dirty_ = true;
  } else if (now - last_ >= kFileInterval) {
    fmt::print(stderr, "{}\n", text);
    last_ = now;
  }
}

void ProgressLine::note(const std::string& text) {
  if (dirty_) fmt::print(stderr, "\r\033[K");
  fmt::print(stderr, "{}\n", text);
  dirty_ = false;
}

}  // namespace tessel::tuning
