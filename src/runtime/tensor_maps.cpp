#include "tessel/runtime/tensor_maps.hpp"

#include <cstring>
#include <functional>

#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::runtime {

namespace {

// TMA copies bits (and fills zeros), so a type without its own code travels as the unsigned one of
// its size.
CUtensorMapDataType tensor_map_type(DType t) {
  // Packed elements go into 16-element chunks (tensor_map.hpp); the verifier refuses the other packed types.
  if (t == DType::F4E2M1) return CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B;
  if (t == DType::F6E2M3 || t == DType::F6E3M2) return CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B;
  switch (t) {
    case DType::Bool: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case DType::I8:
    case DType::U8:
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::E8M0: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case DType::I16:
    case DType::U16: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case DType::I32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case DType::U32:
    case DType::TF32: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case DType::I64: return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case DType::U64: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case DType::F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case DType::F64: return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    case TESSEL_PACKED_DTYPES: break;
  }
  TESSEL_CHECK(false, "bad dtype {}", int(t));
}

CUtensorMapSwizzle tensor_map_swizzle(int swizzle_bytes) {
  switch (swizzle_bytes) {
    case 0: return CU_TENSOR_MAP_SWIZZLE_NONE;
    case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128: return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  TESSEL_CHECK(false, "swizzle of {} bytes", swizzle_bytes);
}

}  // namespace

EncodedTensorMap encode_tensor_map(const ir::TensorMapValues& map, const SourceLoc& loc) {
  ir::check_tensor_map(map, loc);
  static_assert(sizeof(CUtensorMap) == ir::kTensorMapBytes);
  std::array<cuuint64_t, ir::kTensorMapMaxRank> extents{}, strides{};
  std::array<cuuint32_t, ir::kTensorMapMaxRank> box{}, element_strides{};
  for (int d = 0; d < map.rank; ++d) {
    extents[size_t(d)] = map.extents[size_t(d)];
    box[size_t(d)] = map.box[size_t(d)];
    element_strides[size_t(d)] = 1;
    // The driver takes the strides of dimensions 1.. only; dimension 0 is contiguous.
    if (d > 0) strides[size_t(d - 1)] = cuuint64_t(map.strides[size_t(d)]);
  }
  CUtensorMap encoded;
  auto& driver = CudaDriver::get();
  driver.check(driver.tensorMapEncodeTiled(&encoded, tensor_map_type(map.dtype), cuuint32_t(map.rank),
                                           reinterpret_cast<void*>(map.address), extents.data(), strides.data(),
                                           box.data(), element_strides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
                                           tensor_map_swizzle(map.swizzle_bytes), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               "cuTensorMapEncodeTiled", loc.str());
  EncodedTensorMap out;
  std::memcpy(out.bytes.data(), &encoded, sizeof encoded);
  return out;
}

TensorMapEncoder::TensorMapEncoder(const ir::KernelNode& k, Encode encode)
    : encode_(encode), maps_(k.tensor_maps), params_(k.params), cache_(k.tensor_maps.size()) {
  TESSEL_CHECK(maps_.size() <= kMaxMaps, "kernel {} takes {} tensor maps, more than {}", k.name, maps_.size(),
               kMaxMaps);
}

ir::TensorMapValues TensorMapEncoder::evaluate(size_t i, std::span<const ir::Scalar> values) const {
  struct Parameters {
    const std::vector<ir::Var>* params;
    std::span<const ir::Scalar> values;
  } parameters{&params_, values};
  // Captures one pointer, which std::function stores without allocating.
  const std::function<ir::Scalar(const ir::ExprNode&)> lookup = [p = &parameters](const ir::ExprNode& e) {
    for (size_t j = 0; j < p->params->size(); ++j)
      if ((*p->params)[j].get() == &e) return p->values[j];
    TESSEL_CHECK(false, "a tensor map depends on a non-parameter");
  };
  return ir::evaluate_tensor_map(maps_[i], lookup);
}

void TensorMapEncoder::check_allocations(std::span<const ir::Scalar> values,
                                         AllocationRange (*allocation_of)(uint64_t)) const {
  for (size_t i = 0; i < maps_.size(); ++i) {
    const ir::TensorMapValues v = evaluate(i, values);
    // The view's last byte: every dimension at its last index (strides[0] is the element's size).
    uint64_t span =
        is_packed(v.dtype) ? v.extents[0] * uint64_t(dtype_bits(v.dtype)) / 8 : uint64_t(dtype_bytes(v.dtype));
    for (int d = is_packed(v.dtype) ? 1 : 0; d < v.rank; ++d)
      span += (v.extents[size_t(d)] - 1) * uint64_t(v.strides[size_t(d)]);
    const AllocationRange a = allocation_of(v.address);
    if (v.address + span > a.end)
      throw Error(maps_[i].loc,
                  fmt::format("debug mode: the global view that TMA accesses here spans {} bytes from its pointer, "
                              "but the allocation the pointer lies in ends {} bytes after it; check the global_view's "
                              "shape and strides against the buffer",
                              span, a.end - v.address));
  }
}

void TensorMapEncoder::encode(std::span<const ir::Scalar> values, std::span<EncodedTensorMap> out) {
  TESSEL_CHECK(out.size() == maps_.size(), "{} tensor maps for a kernel of {}", out.size(), maps_.size());
  if (maps_.empty()) return;  // most kernels: no lock on the launch path
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < maps_.size(); ++i) {
    const ir::TensorMapValues v = evaluate(i, values);
    std::vector<Cached>& cached = cache_[i];
    auto hit = std::find_if(cached.begin(), cached.end(), [&](const Cached& c) { return c.values == v; });
    if (hit == cached.end()) {
      ir::check_tensor_map(v, maps_[i].loc);  // whatever `encode_` is, a broken rule is the user's message
      if (cached.size() == kCachedPerMap) cached.pop_back();
      cached.insert(cached.begin(), Cached{v, encode_(v, maps_[i].loc)});
      hit = cached.begin();
    }
    out[i] = hit->encoded;
  }
}

}  // namespace tessel::runtime
