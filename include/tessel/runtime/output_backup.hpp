// Timing runs during tuning execute the kernel on the call's own buffers. This saves the
// allocations behind every pointer argument and puts them back afterwards, so that tuning has no
// visible effect on the caller's data.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace tessel::runtime {

class OutputBackup {
 public:
  // Saves the allocation each device pointer points into (null pointers are skipped, and an
  // allocation is saved once however many pointers point into it).
  explicit OutputBackup(std::span<const void* const> pointers);
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
