// Tensor maps at launch: a kernel's table of TensorMap entries evaluated from the call's values,
// checked (ir::check_tensor_map), encoded by cuTensorMapEncodeTiled, and cached per distinct
// values so that repeated calls with the same tensors encode nothing.
#pragma once

#include <mutex>
#include <span>
#include <vector>

#include "tessel/ir/tensor_map.hpp"
#include "tessel/runtime/kernel_params.hpp"

namespace tessel::runtime {

// The driver's encoding of `map` after the checks of ir::check_tensor_map (reported at `loc`), so
// that a broken rule never reaches the driver as CUDA_ERROR_INVALID_VALUE.
EncodedTensorMap encode_tensor_map(const ir::TensorMapValues& map, const SourceLoc& loc);

class TensorMapEncoder {
 public:
  // The most tensor maps one kernel may take: a launch keeps them on the stack.
  static constexpr size_t kMaxMaps = ir::kMaxTensorMapsPerKernel;
  // Distinct values remembered per tensor map, most recent first.
  static constexpr size_t kCachedPerMap = 4;

  // How a map's values become its bytes: encode_tensor_map, or a stand-in in tests without a driver.
  using Encode = EncodedTensorMap (*)(const ir::TensorMapValues& map, const SourceLoc& loc);

  explicit TensorMapEncoder(const ir::KernelNode& k, Encode encode = encode_tensor_map);
  size_t size() const { return maps_.size(); }

  // Writes the kernel's tensor maps for a launch with `values` (one per kernel parameter) into
  // `out` (size() long). Thread-safe.
  void encode(std::span<const ir::Scalar> values, std::span<EncodedTensorMap> out);
  // Debug mode: throws tessel::Error, at the first instruction that uses it, for a tensor map whose
  // view reaches past the allocation its address lies in (`allocation_of` finds it), since TMA
  // would read or write outside the buffer without a word.
  void check_allocations(std::span<const ir::Scalar> values, AllocationRange (*allocation_of)(uint64_t)) const;

 private:
  // Map i's values at a launch with `values`.
  ir::TensorMapValues evaluate(size_t i, std::span<const ir::Scalar> values) const;

  struct Cached {
    ir::TensorMapValues values;
    EncodedTensorMap encoded;
  };
  Encode encode_;
  std::vector<ir::TensorMap> maps_;
  std::vector<ir::Var> params_;
  std::mutex mutex_;
  std::vector<std::vector<Cached>> cache_;  // per map
};

}  // namespace tessel::runtime
