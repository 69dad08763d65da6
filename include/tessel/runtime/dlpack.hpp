// DLPack: tensors handed between frameworks (PyTorch, JAX, CuPy) without a copy. `from_dlpack`
// takes a DLManagedTensor as a tessel tensor over the same memory; `to_dlpack` hands a tessel
// tensor over. Needs the DLPack header (<dlpack/dlpack.h>, the distribution's libdlpack-dev);
// tessel.hpp does not include this file.
//
//   DlpackTensor<float> x = from_dlpack<float>(capsule_pointer, Device::gpu());
//   kernel(n, x.tensor());          // checked at launch against the views built over it
//   DLManagedTensor* out = to_dlpack(Tensor<float>(buffer, {m, n}));  // the buffer must outlive it
#pragma once

#include <dlpack/dlpack.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "tessel/runtime/tensor.hpp"
#include "tessel/sim/simulator.hpp"

namespace tessel {

namespace detail {

// DLPack's name for tessel's element type `t`: code and bits (one lane); nullopt for none. Packed
// data travels as its bytes (uint8), and DLPack before 1.1 has no fp8 codes.
inline std::optional<DLDataType> dlpack_type(DType t) {
  if (t == DType::Bool || is_packed(t)) return std::nullopt;
  const uint8_t bits = uint8_t(dtype_bits(t));
  if (t == DType::BF16) return DLDataType{kDLBfloat, bits, 1};
  if (is_fp8(t)) {
#if DLPACK_MAJOR_VERSION > 1 || (DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION >= 1)
    return DLDataType{uint8_t(t == DType::F8E4M3 ? kDLFloat8_e4m3fn : kDLFloat8_e5m2), bits, 1};
#else
    return std::nullopt;
#endif
  }
  return DLDataType{uint8_t(is_float(t) ? kDLFloat : is_signed(t) ? kDLInt : kDLUInt), bits, 1};
}

// "float16", "bfloat16", "int32x4"
inline std::string dlpack_type_name(DLDataType t) {
  const std::string code = t.code == kDLInt      ? "int"
                           : t.code == kDLUInt   ? "uint"
                           : t.code == kDLFloat  ? "float"
                           : t.code == kDLBfloat ? "bfloat"
                                                 : fmt::format("type code {} of ", int(t.code));
  return fmt::format("{}{}{}", code, int(t.bits), t.lanes == 1 ? std::string() : fmt::format("x{}", int(t.lanes)));
}

// The device a DLPack tensor's memory must be on to run on `device`: CUDA memory for the GPU, host
// memory for the simulator.
inline DLDeviceType dlpack_device_type(const Device& device) { return device.is_gpu() ? kDLCUDA : kDLCPU; }

// The memory that DLPack strides (in elements, null for row-major) describe, checked as tessel
// tensors need it; throws tessel::Error at `loc` naming what does not fit.
template <class T> Tensor<T> dlpack_view(const DLTensor& t, const Device& device, SourceLoc loc) {
  const DType type = dtype_v<T>;
  const std::optional<DLDataType> want = dlpack_type(type);
  if (!want) throw Error(loc, fmt::format("from_dlpack: tessel has no DLPack form of {} elements", dtype_name(type)));
  if (t.dtype.code != want->code || t.dtype.bits != want->bits || t.dtype.lanes != 1)
    throw Error(loc, fmt::format("from_dlpack: the tensor holds {} elements, and a Tensor<{}> takes {}",
                                 dlpack_type_name(t.dtype), dtype_name(type), dlpack_type_name(*want)));
  if (t.device.device_type != dlpack_device_type(device))
    throw Error(loc, fmt::format("from_dlpack: the tensor is in {} memory (DLPack device type {}), but {} runs on {}",
                                 t.device.device_type == kDLCUDA  ? "GPU"
                                 : t.device.device_type == kDLCPU ? "host"
                                                                  : "other",
                                 int(t.device.device_type), device.name(),
                                 device.is_gpu() ? "GPU memory (kDLCUDA)" : "host memory (kDLCPU)"));
  if (t.ndim < 0) throw Error(loc, fmt::format("from_dlpack: the tensor has {} dimensions", t.ndim));
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim), strides;
  if (t.strides) strides.assign(t.strides, t.strides + t.ndim);
  for (int64_t s : strides)
    if (s < 0)
      throw Error(loc, fmt::format("from_dlpack: the tensor has strides [{}]; tessel tensors take non-negative "
                                   "strides: pass a contiguous copy",
                                   fmt::join(strides, ", ")));
  auto* data = reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
  if (reinterpret_cast<uintptr_t>(data) % sizeof(T) != 0)
    throw Error(loc, fmt::format("from_dlpack: the tensor's first element (its data plus a byte offset of {}) is not "
                                 "aligned to its {}-byte elements",
                                 t.byte_offset, sizeof(T)));
  return Tensor<T>(device, data, std::move(shape), std::move(strides), std::source_location::current());
}

// What to_dlpack's DLManagedTensor owns: its shape and strides.
struct DlpackExport {
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

}  // namespace detail

// A DLPack tensor taken without a copy: `tensor()` is a tessel tensor over its memory, valid as
// long as this object lives. Its destructor calls the producer's deleter, as a DLPack consumer
// must. On the simulator, host memory the tensor brings is registered for the simulator's bounds
// checks while it lives.
template <class T> class DlpackTensor {
 public:
  DlpackTensor(DLManagedTensor* managed, const Device& device,
               std::source_location loc = std::source_location::current())
      : managed_(managed), tensor_(view(managed, device, SourceLoc::from(loc))) {
    const size_t bytes = size_t(tensor_.span()) * sizeof(T);
    if (!device.is_gpu() && bytes > 0 && !sim::is_registered(tensor_.data(), bytes)) {
      sim::register_allocation(tensor_.data(), bytes);
      registered_ = true;
    }
  }
  DlpackTensor(const DlpackTensor&) = delete;
  DlpackTensor& operator=(const DlpackTensor&) = delete;
  DlpackTensor(DlpackTensor&& other) noexcept
      : managed_(std::exchange(other.managed_, nullptr)),
        tensor_(other.tensor_),
        registered_(std::exchange(other.registered_, false)) {}
  ~DlpackTensor() {
    if (registered_) sim::unregister_allocation(tensor_.data());
    if (managed_ && managed_->deleter) managed_->deleter(managed_);
  }

  const Tensor<T>& tensor() const { return tensor_; }

 private:
  static Tensor<T> view(DLManagedTensor* managed, const Device& device, SourceLoc loc) {
    if (!managed) throw Error(loc, "from_dlpack: the DLManagedTensor is null");
    return detail::dlpack_view<T>(managed->dl_tensor, device, loc);
  }

  DLManagedTensor* managed_;
  Tensor<T> tensor_;
  bool registered_ = false;
};

// Takes `managed` as a tensor on `device`; ownership passes to the result. When it does not fit
// (its element type, its device, negative strides, a misaligned first element), the error says
// why and `managed` stays the caller's.
template <class T> DlpackTensor<T> from_dlpack(DLManagedTensor* managed, const Device& device,
                                               std::source_location loc = std::source_location::current()) {
  return DlpackTensor<T>(managed, device, loc);
}

// Hands `t` over: the consumer calls the result's deleter when done, which frees what describes
// the tensor but not its memory, which must outlive the consumer's use (it belongs to a Buffer or
// to whoever made the tensor).
template <class T> DLManagedTensor* to_dlpack(const Tensor<T>& t) {
  const std::optional<DLDataType> type = detail::dlpack_type(dtype_v<T>);
  if (!type) throw Error(fmt::format("to_dlpack: tessel has no DLPack form of {} elements", dtype_name(dtype_v<T>)));
  auto owned = std::make_unique<detail::DlpackExport>();
  owned->shape = t.shape();
  owned->strides = t.strides();
  DLTensor& d = owned->managed.dl_tensor;
  d.data = t.data();
  d.device = DLDevice{detail::dlpack_device_type(t.device()), 0};
  d.ndim = t.rank();
  d.dtype = *type;
  d.shape = owned->shape.data();
  d.strides = owned->strides.data();
  d.byte_offset = 0;
  owned->managed.manager_ctx = owned.get();
  owned->managed.deleter = [](DLManagedTensor* self) { delete static_cast<detail::DlpackExport*>(self->manager_ctx); };
  return &owned.release()->managed;
}

}  // namespace tessel
