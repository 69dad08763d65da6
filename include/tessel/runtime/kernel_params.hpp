// How a kernel's parameters travel to the GPU. The driver takes one pointer per parameter and
// copies from it as many bytes as the kernel's signature declares, so a launch writes every
// parameter into one argument block, each at an offset of its own alignment, and points at it.
// A 4-byte int, an 8-byte pointer and a 128-byte tensor map are the same operation with a
// different size, alignment and way of making the bytes; a new kind of parameter is a new
// ParamSlot::Kind with its case in param_slot() and in ParamLayout::fill().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/tensor_map.hpp"

namespace tessel::runtime {

// A tensor map's bytes as cuTensorMapEncodeTiled writes them.
struct alignas(ir::kTensorMapAlignment) EncodedTensorMap {
  std::array<std::byte, ir::kTensorMapBytes> bytes{};
};

// The allocation a pointer lies in, [begin, end), as a kernel generated in debug mode takes it
// (the device header's tessel_allocation).
struct AllocationRange {
  uint64_t begin = 0, end = 0;
};

struct ParamSlot {
  enum class Kind : uint8_t {
    Scalar,      // a run-time value of `dtype`
    Pointer,     // a device address
    TensorMap,   // a `__grid_constant__` CUtensorMap, encoded at launch; `source` is its table index
    Allocation,  // debug mode: the AllocationRange of pointer parameter number `source`, found at launch
  };
  Kind kind = Kind::Scalar;
  DType dtype = DType::I32;  // Scalar only
  uint32_t size = 0, alignment = 1;
  uint32_t source = 0;  // the launch value its bytes are made from (the tensor map, for TensorMap)
  uint32_t offset = 0;  // in the argument block
};

// The parameters of one kernel, described once when it is loaded. A launch hands over its values
// (ir::Scalar: .i for integers, booleans and addresses, .f for floats), and each slot says which
// of them it is made from.
class ParamLayout {
 public:
  // The alignment of an argument block: enough for any parameter (a CUtensorMap is alignas(128)
  // in cuda.h).
  static constexpr size_t kBlockAlignment = 128;

  ParamLayout() = default;
  // The parameters of a lowered kernel, in its signature's order, each made from the launch value
  // of the same position, then its tensor maps in table order, then for a kernel generated in
  // debug mode the allocation of each pointer parameter, in order.
  static ParamLayout of(const ir::KernelNode& k, bool debug = false);
  // Appends a parameter at the next offset its alignment allows.
  void add(ParamSlot slot);

  std::span<const ParamSlot> slots() const { return slots_; }
  size_t bytes() const { return bytes_; }  // of the argument block
  // The Allocation slots: one per pointer parameter in debug mode, else none.
  size_t allocations() const { return allocations_; }

  // Writes the bytes of parameter i, made from its source value, tensor map or allocation (those
  // of the pointer parameters, in order), into `block` (bytes() long, aligned to kBlockAlignment),
  // and points pointers[i] at them.
  void fill(std::span<const ir::Scalar> values, std::span<const EncodedTensorMap> tensor_maps,
            std::span<const AllocationRange> allocations, std::byte* block, void** pointers) const;

 private:
  std::vector<ParamSlot> slots_;
  size_t bytes_ = 0;
  size_t allocations_ = 0;
};

// The slot of a parameter of type `t`, before it is placed.
ParamSlot param_slot(const ir::Type& t);

// The argument block of one launch, filled from the call's values. It lives on the stack for any
// kernel with up to kInlineParams parameters in kInlineBytes, so a launch allocates nothing; only
// larger ones use the heap.
class ArgumentBlock {
 public:
  static constexpr size_t kInlineBytes = 1024, kInlineParams = 32;

  ArgumentBlock(const ParamLayout& layout, std::span<const ir::Scalar> values,
                std::span<const EncodedTensorMap> tensor_maps = {}, std::span<const AllocationRange> allocations = {});
  ArgumentBlock(const ArgumentBlock&) = delete;
  ArgumentBlock& operator=(const ArgumentBlock&) = delete;

  // One pointer per parameter, as cuLaunchKernel's kernelParams takes them.
  void** pointers() { return pointers_; }

 private:
  alignas(ParamLayout::kBlockAlignment) std::array<std::byte, kInlineBytes> inline_bytes_;
  std::array<void*, kInlineParams> inline_pointers_;
  std::vector<std::byte> heap_bytes_;
  std::vector<void*> heap_pointers_;
  void** pointers_ = nullptr;
};

}  // namespace tessel::runtime
