// Two error channels (see docs/architecture.md):
//  - tessel::Error: something the user can cause. It carries the user's source location and a
//    message that says what is wrong and what to do; tests compare these messages exactly.
//  - TESSEL_CHECK: an internal invariant. Failing it is a bug in tessel, never in user code.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tessel {

// Where in the user's program something happened: file and line of a DSL call.
struct SourceLoc {
  std::string file;
  int line = 0;

  static SourceLoc from(const std::source_location& l) { return {l.file_name(), int(l.line())}; }
  bool known() const { return line > 0; }
  bool operator==(const SourceLoc&) const = default;
  std::string str() const { return known() ? fmt::format("{}:{}", file, line) : "<unknown>"; }
};

class Error : public std::runtime_error {
 public:
  Error(SourceLoc loc, const std::string& message)
      : std::runtime_error(loc.known() ? loc.str() + ": " + message : message),
        loc_(std::move(loc)),
        message_(message) {}
  explicit Error(const std::string& message) : Error(SourceLoc{}, message) {}

  const SourceLoc& loc() const { return loc_; }
  // The message without the location prefix.
  const std::string& message() const { return message_; }

 private:
  SourceLoc loc_;
  std::string message_;
};

[[noreturn]] void internal_error(const char* cond, const char* file, int line, const std::string& what);

}  // namespace tessel

#define TESSEL_CHECK(cond, ...)                                                                 \
  do {                                                                                          \
    if (!(cond)) ::tessel::internal_error(#cond, __FILE__, __LINE__, fmt::format(__VA_ARGS__)); \
  } while (0)
