#include "tessel/runtime/kernel_params.hpp"

#include <cstring>
#include <memory>

namespace tessel::runtime {

namespace {

size_t align_up(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

template <class T> void write(std::byte* dst, T value) { std::memcpy(dst, &value, sizeof value); }

// The bytes of a scalar parameter as the generated kernel declares it (codegen's c_type): its
// bits, little-endian, in the type's width. Packed types have no scalar parameters
// (lang/values.hpp).
void write_scalar(DType t, ir::Scalar v, std::byte* dst) {
  TESSEL_CHECK(!is_packed(t), "a scalar parameter of the packed type {}", dtype_name(t));
  const uint64_t bits = t == DType::Bool ? uint64_t(v.i != 0) : ir::bits_of(t, v);
  std::memcpy(dst, &bits, size_t(dtype_bytes(t)));
}

}  // namespace

ParamSlot param_slot(const ir::Type& t) {
  // Device addresses are 64 bits wide on every target.
  if (t.pointer) return {.kind = ParamSlot::Kind::Pointer, .size = 8, .alignment = 8};
  const auto bytes = uint32_t(dtype_bytes(t.dtype));
  return {.kind = ParamSlot::Kind::Scalar, .dtype = t.dtype, .size = bytes, .alignment = bytes};
}

ParamLayout ParamLayout::of(const ir::KernelNode& k, bool debug) {
  ParamLayout layout;
  for (size_t i = 0; i < k.params.size(); ++i) {
    ParamSlot slot = param_slot(k.params[i]->type);
    slot.source = uint32_t(i);
    layout.add(slot);
  }
  for (size_t i = 0; i < k.tensor_maps.size(); ++i)
    layout.add({.kind = ParamSlot::Kind::TensorMap,
                .size = uint32_t(ir::kTensorMapBytes),
                .alignment = uint32_t(ir::kTensorMapAlignment),
                .source = uint32_t(i)});
  if (debug)
    for (const ir::Var& p : k.params)
      if (p->type.pointer)
        layout.add({.kind = ParamSlot::Kind::Allocation,
                    .size = uint32_t(sizeof(AllocationRange)),
                    .alignment = uint32_t(alignof(AllocationRange)),
                    .source = uint32_t(layout.allocations_++)});
  return layout;
}

void ParamLayout::add(ParamSlot slot) {
  TESSEL_CHECK(slot.alignment > 0 && slot.alignment <= kBlockAlignment && (slot.alignment & (slot.alignment - 1)) == 0,
               "parameter alignment {}", slot.alignment);
  slot.offset = uint32_t(align_up(bytes_, slot.alignment));
  bytes_ = slot.offset + slot.size;
  slots_.push_back(slot);
}

namespace {

size_t sources_of(const ParamSlot& slot, std::span<const ir::Scalar> values,
                  std::span<const EncodedTensorMap> tensor_maps, std::span<const AllocationRange> allocations) {
  switch (slot.kind) {
    case ParamSlot::Kind::Scalar:
    case ParamSlot::Kind::Pointer: return values.size();
    case ParamSlot::Kind::TensorMap: return tensor_maps.size();
    case ParamSlot::Kind::Allocation: return allocations.size();
  }
  TESSEL_CHECK(false, "bad parameter kind {}", int(slot.kind));
}

}  // namespace

void ParamLayout::fill(std::span<const ir::Scalar> values, std::span<const EncodedTensorMap> tensor_maps,
                       std::span<const AllocationRange> allocations, std::byte* block, void** pointers) const {
  for (size_t i = 0; i < slots_.size(); ++i) {
    const ParamSlot& slot = slots_[i];
    const size_t sources = sources_of(slot, values, tensor_maps, allocations);
    TESSEL_CHECK(slot.source < sources, "parameter {} is made from source {} of {}", i, slot.source, sources);
    std::byte* dst = block + slot.offset;
    switch (slot.kind) {
      case ParamSlot::Kind::Scalar: write_scalar(slot.dtype, values[slot.source], dst); break;
      case ParamSlot::Kind::Pointer: write(dst, uint64_t(values[slot.source].i)); break;
      case ParamSlot::Kind::TensorMap: write(dst, tensor_maps[slot.source]); break;
      case ParamSlot::Kind::Allocation: write(dst, allocations[slot.source]); break;
    }
    pointers[i] = dst;
  }
}

ArgumentBlock::ArgumentBlock(const ParamLayout& layout, std::span<const ir::Scalar> values,
                             std::span<const EncodedTensorMap> tensor_maps,
                             std::span<const AllocationRange> allocations) {
  std::byte* block = inline_bytes_.data();
  pointers_ = inline_pointers_.data();
  if (layout.bytes() > kInlineBytes) {
    // Room to move the start up to the block alignment.
    heap_bytes_.resize(layout.bytes() + ParamLayout::kBlockAlignment);
    void* start = heap_bytes_.data();
    size_t space = heap_bytes_.size();
    block = static_cast<std::byte*>(std::align(ParamLayout::kBlockAlignment, layout.bytes(), start, space));
  }
  if (layout.slots().size() > kInlineParams) {
    heap_pointers_.resize(layout.slots().size());
    pointers_ = heap_pointers_.data();
  }
  layout.fill(values, tensor_maps, allocations, block, pointers_);
}

}  // namespace tessel::runtime
