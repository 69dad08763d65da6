// Timing runs during tuning execute the kernel on the call's own buffers. This saves the
// allocations behind every pointer argument and puts them back afterwards, so that tuning has no
// visible effect on the caller's data.
#pragma once

#include <vector>

#include "tessel/runtime/kernel.hpp"

namespace tessel::runtime {

class OutputBackup {
 public:
  explicit OutputBackup(const std::vector<HostArg>& args);
  ~OutputBackup();
  OutputBackup(const OutputBackup&) = delete;
  OutputBackup& operator=(const OutputBackup&) = delete;
  void restore() const;

 private:
  struct Saved {
    unsigned long long base, copy;  // CUdeviceptr
    size_t bytes;
  };
  std::vector<Saved> saved_;
};

}  // namespace tessel::runtime
