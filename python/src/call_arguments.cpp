#include "call_arguments.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "tessel/error.hpp"
#include "tessel/runtime/tensor.hpp"
#include "tessel/sim/simulator.hpp"
#include "torch_tensors.hpp"

namespace nb = nanobind;

namespace tessel::python {

namespace {

// DLPack's device types (dlpack.h, DLDeviceType).
constexpr int kDlpackCpu = 1, kDlpackCuda = 2, kDlpackCudaHost = 3;

// tessel's element type for a DLPack type, one lane (dlpack.h, DLDataTypeCode).
std::optional<DType> element_type(nb::dlpack::dtype t) {
  if (t.lanes != 1) return std::nullopt;
  using Code = nb::dlpack::dtype_code;
  switch (Code(t.code)) {
    case Code::Float:
      if (t.bits == 16) return DType::F16;
      if (t.bits == 32) return DType::F32;
      if (t.bits == 64) return DType::F64;
      return std::nullopt;
    case Code::Bfloat: return t.bits == 16 ? std::optional(DType::BF16) : std::nullopt;
    case Code::Int:
      if (t.bits == 8) return DType::I8;
      if (t.bits == 16) return DType::I16;
      if (t.bits == 32) return DType::I32;
      if (t.bits == 64) return DType::I64;
      return std::nullopt;
    case Code::UInt:
      if (t.bits == 8) return DType::U8;
      if (t.bits == 16) return DType::U16;
      if (t.bits == 32) return DType::U32;
      if (t.bits == 64) return DType::U64;
      return std::nullopt;
    case Code::Float8_E4M3FN: return DType::F8E4M3;
    case Code::Float8_E5M2: return DType::F8E5M2;
    case Code::Float8_E8M0FNU: return DType::E8M0;
    default: return std::nullopt;
  }
}

// numpy has no bf16, fp8 or e8m0 type: an array of unsigned integers of the same width passes their
// bits to a pointer parameter of such a type.
std::optional<DType> as_parameter_bits(const detail::KernelSignature& signature, size_t index,
                                       std::optional<DType> type) {
  if (!type || index >= signature.params().size()) return type;
  const detail::ParamSpec& p = signature.params()[index];
  const bool without_numpy_type =
      p.dtype == DType::BF16 || p.dtype == DType::F8E4M3 || p.dtype == DType::F8E5M2 || p.dtype == DType::E8M0;
  const bool same_width_bits = (*type == DType::U16 || *type == DType::U8) && dtype_bits(*type) == dtype_bits(p.dtype);
  return p.kind == detail::ParamSpec::Kind::Pointer && without_numpy_type && same_width_bits ? p.dtype : *type;
}

// "float64", "complex64": a DLPack type in the words numpy and PyTorch use.
std::string type_words(nb::dlpack::dtype t) {
  using Code = nb::dlpack::dtype_code;
  const char* code = Code(t.code) == Code::Int       ? "int"
                     : Code(t.code) == Code::UInt    ? "uint"
                     : Code(t.code) == Code::Float   ? "float"
                     : Code(t.code) == Code::Bfloat  ? "bfloat"
                     : Code(t.code) == Code::Bool    ? "bool"
                     : Code(t.code) == Code::Complex ? "complex"
                                                     : "type code ";
  return fmt::format("{}{}{}", code, Code(t.code) == Code::Bool ? std::string() : std::to_string(t.bits),
                     t.lanes == 1 ? std::string() : fmt::format("x{}", t.lanes));
}

const char* memory_words(Memory m) { return m == Memory::Gpu ? "GPU memory" : "host memory"; }

// "kernel Axpy, parameter x (argument 2)"
std::string parameter(const detail::KernelSignature& signature, size_t index) {
  return fmt::format("kernel {}, parameter {} (argument {})", signature.kernel(),
                     index < signature.names().size() ? signature.names()[index] : "?", index);
}

}  // namespace

CallArguments::CallArguments(const detail::KernelSignature& signature, nb::handle args) {
  const size_t count = nb::len(args);
  if (count != signature.params().size())
    throw Error(fmt::format("kernel {} takes {} arguments ({}), {} given", signature.kernel(),
                            signature.params().size(), fmt::join(signature.names(), ", "), count));
  host_args_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    nb::handle a = args[i];
    HostArg h;
    nb::ndarray<> array;
    // Arrays first: a torch tensor also answers __index__ and __float__.
    if (PyBool_Check(a.ptr())) {
      h.kind = HostArg::Kind::Int;
      h.i = a.ptr() == Py_True;
      h.is_bool = true;
    } else if (is_torch_tensor(a)) {
      const TorchTensor t = read_torch_tensor(a);
      h = pointer_argument(signature, i, t.data, t.dtype, t.dtype_words, t.device >= 0 ? Memory::Gpu : Memory::Host,
                           t.shape, t.strides);
      if (t.device > 0)
        throw Error(
            fmt::format("{}: the tensor is on GPU {}, and tessel runs on GPU 0", parameter(signature, i), t.device));
      if (t.device >= 0 && torch_cuda_device_ < 0) torch_cuda_device_ = t.device;
    } else if (nb::hasattr(a, "__dlpack__") && nb::try_cast(a, array)) {
      const int device = array.device_type();
      const Memory memory = device == kDlpackCuda                               ? Memory::Gpu
                            : device == kDlpackCpu || device == kDlpackCudaHost ? Memory::Host
                                                                                : Memory::None;
      if (memory == Memory::None)
        throw Error(
            fmt::format("{}: the array is on DLPack device type {}; tessel runs on CUDA GPUs (kDLCUDA) and "
                        "on the simulator (host memory, kDLCPU)",
                        parameter(signature, i), device));
      if (memory == Memory::Gpu && array.device_id() != 0)
        throw Error(fmt::format("{}: the array is on GPU {}, and tessel runs on GPU 0", parameter(signature, i),
                                array.device_id()));
      std::vector<int64_t> shape(array.ndim()), strides(array.ndim());
      int64_t row_major_stride = 1;
      for (size_t d = shape.size(); d-- > 0;) {
        shape[d] = int64_t(array.shape(d));
        strides[d] = array.stride_ptr() ? array.stride(d) : row_major_stride;
        row_major_stride *= shape[d];
      }
      h = pointer_argument(signature, i, array.data(), as_parameter_bits(signature, i, element_type(array.dtype())),
                           type_words(array.dtype()), memory, shape, strides);
      arrays_.push_back(std::move(array));
    } else if (nb::hasattr(a, "__dlpack__") && nb::hasattr(a, "dtype") && nb::hasattr(a.attr("dtype"), "isnative") &&
               !PyObject_IsTrue(a.attr("dtype").attr("isnative").ptr())) {
      throw Error(
          fmt::format("{}: the array's elements are not in this machine's byte order (dtype {}), which DLPack "
                      "cannot describe; pass x.astype(x.dtype.newbyteorder('='))",
                      parameter(signature, i), nb::borrow<nb::str>(a.attr("dtype").attr("str")).c_str()));
    } else if (nb::hasattr(a, "__dlpack__") && nb::hasattr(a, "ndim") && nb::cast<int>(a.attr("ndim")) > 0) {
      throw Error(
          fmt::format("{}: the array does not export itself through DLPack (numpy exports no read-only "
                      "array, such as one of np.broadcast_to or with writeable=False); pass a writable "
                      "copy (x.copy())",
                      parameter(signature, i)));
    } else if (PyIndex_Check(a.ptr())) {  // int, numpy integers
      nb::object index = nb::steal(PyNumber_Index(a.ptr()));
      if (!index.is_valid()) throw nb::python_error();
      h.kind = HostArg::Kind::Int;
      h.i = nb::cast<int64_t>(index);
    } else if (PyFloat_Check(a.ptr()) || nb::hasattr(a, "__float__")) {  // float, numpy floats
      h.kind = HostArg::Kind::Float;
      h.f = nb::cast<double>(nb::float_(a));
    } else {
      throw Error(
          fmt::format("{}: got a {} value; kernel arguments are integers, floats, bools and arrays (torch "
                      "tensors, numpy arrays, any DLPack producer)",
                      parameter(signature, i), nb::type_name(a.type()).c_str()));
    }
    host_args_.push_back(h);
  }
  // Registered only once every argument converted: a refused call leaves nothing behind.
  for (const auto& [data, bytes] : host_arrays_)
    if (!sim::is_registered(data, bytes)) {
      sim::register_allocation(data, bytes);
      registered_.push_back(data);
    }
}

HostArg CallArguments::pointer_argument(const detail::KernelSignature& signature, size_t index, void* data,
                                        std::optional<DType> type, const std::string& type_words, Memory memory,
                                        const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  if (!type)
    throw Error(fmt::format("{}: the array holds {} elements, which tessel has no element type for",
                            parameter(signature, index), type_words));
  if (memory_ == Memory::None) {
    memory_ = memory;
    first_array_ = index;
  } else if (memory_ != memory) {
    throw Error(
        fmt::format("kernel {}: parameter {} is in {} and parameter {} in {}; pass every array in one memory "
                    "(host memory runs on the simulator, GPU memory on the GPU)",
                    signature.kernel(), signature.names()[first_array_], memory_words(memory_),
                    signature.names()[index], memory_words(memory)));
  }
  for (int64_t stride : strides)
    if (stride < 0)
      throw Error(
          fmt::format("{}: the array has a negative stride; pass a contiguous copy", parameter(signature, index)));
  const int64_t span = detail::tensor_span(shape, strides);
  HostArg h;
  h.kind = HostArg::Kind::Pointer;
  h.p = data;
  h.pointee = *type;
  h.span = span;
  h.on_gpu = memory == Memory::Gpu;
  h.row_major = detail::is_row_major(shape, strides);
  const size_t bytes = size_t(span) * dtype_bytes(*type);
  if (memory == Memory::Host && bytes > 0) host_arrays_.emplace_back(data, bytes);
  return h;
}

uintptr_t CallArguments::default_stream() const {
  return torch_cuda_device_ >= 0 ? torch_current_stream(torch_cuda_device_) : 0;
}

CallArguments::~CallArguments() {
  for (const void* p : registered_) sim::unregister_allocation(p);
}

}  // namespace tessel::python
