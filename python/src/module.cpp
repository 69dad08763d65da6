// tessel._tessel: the Python module's native half. The package (python/tessel/) builds the
// user-facing API on it: tessel.load, the kernels' callables, tessel.ops and the torch ops.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <nanobind/stl/optional.h>

#include "kernel_library.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/disk_cache.hpp"
#include "torch_tensors.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace tessel::python {
namespace {

const char* kind_name(detail::ParamSpec::Kind k) {
  switch (k) {
    case detail::ParamSpec::Kind::CompileInt: return "compile-time int";
    case detail::ParamSpec::Kind::CompileBool: return "compile-time bool";
    case detail::ParamSpec::Kind::Scalar: return "scalar";
    case detail::ParamSpec::Kind::Pointer: return "pointer";
  }
  return "?";
}

// [(name, kind, element type)] of a kernel's parameters.
nb::list parameters(const detail::KernelSignature& s) {
  nb::list out;
  for (size_t i = 0; i < s.params().size(); ++i)
    out.append(
        nb::make_tuple(s.names()[i], kind_name(s.params()[i].kind), std::string(dtype_name(s.params()[i].dtype))));
  return out;
}

}  // namespace
}  // namespace tessel::python

NB_MODULE(_tessel, m) {
  using tessel::python::KernelFunction;
  using tessel::python::KernelLibrary;
  m.attr("__version__") = TESSEL_VERSION;
  // Kernels registered as torch ops stay referenced by PyTorch's op registry until the interpreter
  // is gone; nanobind's report of them at exit would be noise, not a leak.
  nb::set_leak_warnings(false);
  nb::exception<tessel::Error>(m, "Error", PyExc_RuntimeError);
  m.def(
      "default_cache_dir", [] { return tessel::runtime::DiskCache::default_dir().string(); },
      "The compile cache's directory: $TESSEL_CACHE_DIR, else the user's cache directory.");

  m.def(
      "gpu_capability",
      []() -> nb::object {
        auto& driver = tessel::runtime::CudaDriver::get();
        if (!driver.available()) return nb::none();
        const auto info = driver.device_info();
        return nb::make_tuple(info.cc_major, info.cc_minor);
      },
      "The compute capability (major, minor) of GPU 0, or None without a GPU.");

  m.def(
      "current_stream",
      [](nb::handle args) -> uintptr_t {
        for (nb::handle a : args)
          if (tessel::python::is_torch_tensor(a)) {
            const int device = nb::cast<int>(a.attr("get_device")());
            return device >= 0 ? tessel::python::torch_current_stream(device) : 0;
          }
        return 0;
      },
      "args"_a, "The stream a call with `args` runs on: PyTorch's current stream of the first tensor's GPU, else 0.");

  nb::class_<KernelFunction>(m, "KernelFunction",
                             "One registered kernel. Call it with the arguments of its operator(), in order: "
                             "integers, floats, bools, and arrays for its pointer parameters.")
      .def(
          "__call__",
          [](KernelFunction& f, nb::args args, nb::kwargs kwargs) {
            std::optional<uintptr_t> stream;
            for (auto [key, value] : kwargs) {
              if (nb::cast<std::string>(key) != "stream")
                throw nb::type_error(("kernel " + f.name() + " takes no keyword argument '" +
                                      nb::cast<std::string>(key) + "' (only stream=)")
                                         .c_str());
              if (!value.is_none()) stream = nb::cast<uintptr_t>(value);
            }
            f.call(args, stream);
          },
          "Launches; stream= (an integer CUstream) defaults to PyTorch's current stream of the first CUDA tensor. "
          "Returns without waiting for the GPU.")
      .def(
          "as_torch_op",
          [](nb::handle self, const std::string& qualname, nb::handle mutates) {
            return nb::module_::import_("tessel.torch_ops").attr("register_kernel_op")(self, qualname, mutates);
          },
          "qualname"_a, "mutates"_a,
          "Registers the kernel as the PyTorch custom op `qualname` ('namespace::name') that writes the arrays named "
          "in `mutates`, with a fake implementation; returns torch.ops.namespace.name.")
      .def_prop_ro("name", &KernelFunction::name)
      .def_prop_ro("parameters", [](const KernelFunction& f) { return tessel::python::parameters(f.signature()); })
      .def("__repr__", [](const KernelFunction& f) {
        std::string params;
        const auto& s = f.signature();
        for (size_t i = 0; i < s.params().size(); ++i)
          params += (i ? ", " : "") + std::string(tessel::python::kind_name(s.params()[i].kind)) + " " +
                    std::string(tessel::dtype_name(s.params()[i].dtype)) + " " + s.names()[i];
        return "<tessel kernel " + f.name() + "(" + params + ")>";
      });

  nb::class_<KernelLibrary>(m, "KernelLibrary")
      .def_static("examples", &KernelLibrary::examples)
      .def_static("open", &KernelLibrary::open, "path"_a)
      .def_prop_ro("origin", &KernelLibrary::origin)
      .def("names", &KernelLibrary::names)
      .def("kernel", &KernelLibrary::kernel, "name"_a, "configuration"_a = "", "arch"_a = "")
      .def("description", [](const KernelLibrary& l, const std::string& name) { return l.entry(name).description; })
      .def("size_names", [](const KernelLibrary& l, const std::string& name) { return l.entry(name).size_names; })
      .def("check", &KernelLibrary::check, "name"_a, "device"_a = "sim", "sizes"_a = std::vector<int64_t>{},
           "seeds"_a = 3);
}
