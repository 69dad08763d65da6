// argmax and argmin on the simulator under every order (arg_extremes_kernels.hpp), and their
// generated code through NVRTC.
#include "arg_extremes_kernels.hpp"
#include "simulate.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"

namespace tessel::testing {
namespace {

TEST(ArgExtremes, FirstPositionOfTheExtremeAcrossWarpsUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    check_arg_extremes<int32_t>(Device::simulator(), o);
    check_arg_extremes<float>(Device::simulator(), o);
    check_arg_extremes<bf16>(Device::simulator(), o);
    check_arg_extremes<f16>(Device::simulator(), o);
    check_arg_extremes<int64_t>(Device::simulator(), o);
  }
}

template <class T> std::string cuda_of(const KernelOptions& options) {
  T* x = nullptr;
  int32_t* at = nullptr;
  return Kernel<ArgExtremes<T>>(Device::simulator(), options).cuda_source(x, x, x, at, at, x, at, at, x, at, x, at);
}

// The pairs' shuffles, comparisons and scratches compile for both targets, in f32 and in bf16
// (whose pairs compare in f32), f16 and i64.
TEST(ArgExtremes, TheGeneratedCodeCompiles) {
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    const auto compile = [&](const std::string& src) {
      runtime::CompileRequest req{
          src, "arg_extremes", arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
      EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u) << src;
    };
    const KernelOptions options{.arch = arch};
    compile(cuda_of<float>(options));
    compile(cuda_of<bf16>(options));
    compile(cuda_of<f16>(options));
    compile(cuda_of<int64_t>(options));
  }
}

}  // namespace
}  // namespace tessel::testing
