// Tensors as kernel arguments on the GPU: a view that fits runs, one past its tensor is refused
// before the launch with the simulator's message, and a tensor of the other device is refused.

#include "../expect_error.hpp"
#include "../tensor_kernels.hpp"
#include "gpu_test.hpp"
#include "tessel/cli/host_check.hpp"

namespace tessel::testing {
namespace {

using TensorArgumentsOnGpu = GpuTest;

constexpr int kRows = 20, kCols = 64, kLd = 80;

TEST_F(TensorArgumentsOnGpu, APaddedTensorThatHoldsTheViewRuns) {
  const Device gpu = Device::gpu();
  const std::vector<float> x = cli::random_vector<float>(size_t(kRows) * kLd, 3);
  Buffer<float> dx(gpu, x), dout(gpu, cli::poisoned<float>(size_t(kRows) * kCols));
  Kernel<ScaleRows> k(gpu);
  k(kRows, kCols, kLd, Tensor<float>(dx, {kRows, kLd}), Tensor<float>(dout, {kRows, kCols}));
  gpu.synchronize();
  EXPECT_EQ(dout.download(), scaled_rows(x, kRows, kCols, kLd));
}

TEST_F(TensorArgumentsOnGpu, AViewPastItsTensorIsRefusedBeforeTheLaunch) {
  const Device gpu = Device::gpu();
  Buffer<float> dx(gpu, cli::random_vector<float>(size_t(kRows) * kLd, 4));
  const std::vector<float> untouched = cli::poisoned<float>(size_t(kRows) * kCols);
  Buffer<float> dout(gpu, untouched);
  Kernel<ScaleRows> k(gpu);
  const std::string got = error_of_call([&] {
    k(kRows, kCols, 90, Tensor<float>(dx, {kRows, kLd}), Tensor<float>(dout, {kRows, kCols}));
  });
  EXPECT_EQ(got, ScaleRows::view_loc.str() +
                     ": kernel ScaleRows: the global_view of parameter x with shape [20, 64] and strides [90, 1] "
                     "spans 1774 elements, but the argument for x holds 1600; pass a larger tensor, or sizes that "
                     "fit it");
  gpu.synchronize();
  EXPECT_EQ(dout.download(), untouched);
}

TEST_F(TensorArgumentsOnGpu, ATensorOnTheSimulatorIsRefused) {
  const Device gpu = Device::gpu();
  Buffer<float> dx(gpu, size_t(kRows) * kLd);
  Buffer<float> on_simulator(Device::simulator(), size_t(kRows) * kCols);
  Kernel<ScaleRows> k(gpu);
  const std::string got = error_of_call([&] { k(kRows, kCols, kLd, dx, on_simulator); });
  EXPECT_NE(got.find(": kernel ScaleRows runs on the GPU, but the tensor passed for out is on the simulator; pass a "
                     "tensor on the kernel's device"),
            std::string::npos)
      << got;
}

}  // namespace
}  // namespace tessel::testing
