// PyTorch tensors read through their own attributes rather than DLPack: a tensor's __dlpack__
// builds a capsule per call, which costs more than the whole launch. Nothing here links PyTorch:
// its types are looked up in sys.modules once torch has been imported.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <vector>

#include "tessel/dtype.hpp"

namespace tessel::python {

struct TorchTensor {
  void* data = nullptr;
  std::optional<DType> dtype;  // nullopt: an element type tessel lacks
  std::string dtype_words;     // "float64", for that message
  int device = -1;             // CUDA device index; -1 for host memory
  std::vector<int64_t> shape, strides;
};

// Whether `object` is a torch.Tensor (false while torch is not imported).
bool is_torch_tensor(nanobind::handle object);
TorchTensor read_torch_tensor(nanobind::handle tensor);
// PyTorch's current CUDA stream of device `index`, as an integer CUstream.
uintptr_t torch_current_stream(int index);

}  // namespace tessel::python
