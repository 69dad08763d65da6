// The base of every GPU test: skips itself, visibly, where no GPU is present.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/error.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::testing {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& d = runtime::CudaDriver::get();
    if (!d.available()) GTEST_SKIP() << "no GPU: " << d.unavailable_reason();
  }
};

// For death tests of calls after which the process's GPU context is unusable: runs `call`, then
// ends the process with status 3 after writing to stderr what the GPU printed (its printf writes
// to stdout) and the error the call raised.
template <class Call> [[noreturn]] void run_and_exit(Call&& call) {
  dup2(STDERR_FILENO, STDOUT_FILENO);
  try {
    call();
    std::fprintf(stderr, "no error\n");
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
  }
  std::fflush(nullptr);
  std::_Exit(3);
}

// Matches an output that holds each of `parts`, in order.
class ContainsInOrder : public ::testing::MatcherInterface<const std::string&> {
 public:
  explicit ContainsInOrder(std::vector<std::string> parts) : parts_(std::move(parts)) {}
  bool MatchAndExplain(const std::string& output, ::testing::MatchResultListener* listener) const override {
    size_t at = 0;
    for (const std::string& part : parts_) {
      at = output.find(part, at);
      if (at == std::string::npos) {
        *listener << "lacks, after what came before it: " << part;
        return false;
      }
      at += part.size();
    }
    return true;
  }
  void DescribeTo(std::ostream* os) const override {
    *os << "contains, in order:";
    for (const std::string& part : parts_) *os << "\n  " << part;
  }

 private:
  std::vector<std::string> parts_;
};

inline ::testing::Matcher<const std::string&> contains_in_order(std::vector<std::string> parts) {
  return ::testing::Matcher<const std::string&>(new ContainsInOrder(std::move(parts)));
}

}  // namespace tessel::testing
