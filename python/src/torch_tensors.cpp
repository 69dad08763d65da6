#include "torch_tensors.hpp"

#include <array>
#include <utility>

namespace nb = nanobind;

namespace tessel::python {

namespace {

// What is looked up once: torch.Tensor, the dtypes tessel has, and the current-stream function.
struct Torch {
  nb::object tensor_type;
  std::vector<std::pair<nb::object, DType>> dtypes;
  nb::object current_raw_stream;  // torch._C._cuda_getCurrentRawStream, or a fallback
  nb::str data_ptr{"data_ptr"}, dtype{"dtype"}, get_device{"get_device"}, shape{"shape"}, stride{"stride"};
};

// Null until torch is in sys.modules; then built once and kept for the process's life (leaked, so
// that nothing is released after the interpreter is gone).
Torch* torch_types() {
  static Torch* types = nullptr;
  if (types) return types;
  PyObject* module = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
  if (!module) return nullptr;
  nb::handle torch(module);
  auto* t = new Torch;
  t->tensor_type = torch.attr("Tensor");
  const std::array<std::pair<const char*, DType>, 12> names = {{{"float16", DType::F16},
                                                                {"bfloat16", DType::BF16},
                                                                {"float32", DType::F32},
                                                                {"float64", DType::F64},
                                                                {"int8", DType::I8},
                                                                {"uint8", DType::U8},
                                                                {"int16", DType::I16},
                                                                {"int32", DType::I32},
                                                                {"int64", DType::I64},
                                                                {"uint16", DType::U16},
                                                                {"uint32", DType::U32},
                                                                {"uint64", DType::U64}}};
  for (const auto& [name, type] : names)
    if (nb::hasattr(torch, name)) t->dtypes.emplace_back(torch.attr(name), type);
  for (const auto& [name, type] : {std::pair{"float8_e4m3fn", DType::F8E4M3}, std::pair{"float8_e5m2", DType::F8E5M2},
                                   std::pair{"float8_e8m0fnu", DType::E8M0}})
    if (nb::hasattr(torch, name)) t->dtypes.emplace_back(torch.attr(name), type);
  nb::object c = torch.attr("_C");
  if (nb::hasattr(c, "_cuda_getCurrentRawStream"))
    t->current_raw_stream = c.attr("_cuda_getCurrentRawStream");
  else
    t->current_raw_stream = nb::cpp_function([torch](int index) {
      return nb::cast<uintptr_t>(torch.attr("cuda").attr("current_stream")(index).attr("cuda_stream"));
    });
  types = t;
  return types;
}

std::vector<int64_t> int_tuple(nb::handle tuple) {
  std::vector<int64_t> out(size_t(PyTuple_GET_SIZE(tuple.ptr())));
  for (size_t i = 0; i < out.size(); ++i) out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple.ptr(), Py_ssize_t(i)));
  return out;
}

}  // namespace

bool is_torch_tensor(nb::handle object) {
  const Torch* t = torch_types();
  return t && PyObject_TypeCheck(object.ptr(), reinterpret_cast<PyTypeObject*>(t->tensor_type.ptr()));
}

TorchTensor read_torch_tensor(nb::handle tensor) {
  const Torch& t = *torch_types();
  TorchTensor out;
  nb::object dtype = tensor.attr(t.dtype);
  for (const auto& [object, type] : t.dtypes)
    if (object.is(dtype)) out.dtype = type;
  if (!out.dtype) out.dtype_words = nb::cast<std::string>(nb::str(dtype)).substr(std::string("torch.").size());
  out.data = PyLong_AsVoidPtr(tensor.attr(t.data_ptr)().ptr());
  out.device = nb::cast<int>(tensor.attr(t.get_device)());
  out.shape = int_tuple(tensor.attr(t.shape));
  out.strides = int_tuple(tensor.attr(t.stride)());
  return out;
}

uintptr_t torch_current_stream(int index) { return nb::cast<uintptr_t>(torch_types()->current_raw_stream(index)); }

}  // namespace tessel::python
