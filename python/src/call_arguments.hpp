// A Python call's arguments as the JIT takes them (tessel::HostArg): integers, floats, bools, and
// arrays of any DLPack producer (torch tensors, numpy arrays) as pointers with their extent. The
// checks and messages are the C++ API's: KernelSignature::check sees the same HostArgs a C++ call
// builds from a tessel::Tensor.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessel/jit/arguments.hpp"

namespace tessel::python {

// Where a call's arrays are: the simulator runs calls on host memory, the GPU calls on its own.
enum class Memory { None, Host, Gpu };

class CallArguments {
 public:
  // Converts `args` for a kernel of `signature`; throws tessel::Error naming the parameter when an
  // argument has no HostArg form (an unknown element type, another GPU, mixed memories).
  CallArguments(const detail::KernelSignature& signature, nanobind::handle args);
  CallArguments(const CallArguments&) = delete;
  CallArguments& operator=(const CallArguments&) = delete;
  // Ends the simulator's registration of the host arrays this call registered.
  ~CallArguments();

  const std::vector<HostArg>& host_args() const { return host_args_; }
  Memory memory() const { return memory_; }
  // The stream a call runs on unless it names one: PyTorch's current stream of the first CUDA
  // tensor's device, else 0 (the default stream).
  uintptr_t default_stream() const;

 private:
  // An array's memory as a pointer argument: `type` nullopt for an element type tessel lacks,
  // named by `type_words`.
  HostArg pointer_argument(const detail::KernelSignature& signature, size_t index, void* data,
                           std::optional<DType> type, const std::string& type_words, Memory memory,
                           const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

  std::vector<HostArg> host_args_;
  std::vector<nanobind::ndarray<>> arrays_;                  // keeps each array imported through DLPack alive
  std::vector<std::pair<const void*, size_t>> host_arrays_;  // host memory to register for the simulator
  std::vector<const void*> registered_;                      // what this call registered
  Memory memory_ = Memory::None;
  size_t first_array_ = 0;
  int torch_cuda_device_ = -1;
};

}  // namespace tessel::python
